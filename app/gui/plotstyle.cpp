#include "plotstyle.h"

#include "qcp.h"
#include "settings.h"

#include <QPalette>

namespace traindeck::gui {

QList<QColor> seriesColors(PaletteKind kind)
{
    if (kind == PaletteKind::Tableau) {
        return {QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c), QColor(0xd62728), QColor(0x9467bd),
                QColor(0x8c564b), QColor(0xe377c2), QColor(0x7f7f7f), QColor(0xbcbd22), QColor(0x17becf)};
    }
    // Okabe & Ito (2008), readable with the common colour-vision deficiencies and on light or dark.
    return {QColor(0x0072b2), QColor(0xe69f00), QColor(0x009e73), QColor(0xd55e00),
            QColor(0xcc79a7), QColor(0x56b4e9), QColor(0xf0e442), QColor(0x999999)};
}

QColor seriesColor(int i)
{
    const QList<QColor> colors = seriesColors(Settings::paletteKind());
    return colors.at(((i % colors.size()) + colors.size()) % colors.size());
}

QColor rankColor(int rank, int ranks)
{
    if (ranks <= 8)
        return seriesColor(rank);
    return QColor::fromHsv(int(360.0 * rank / ranks) % 360, 170, 200);
}

void stylePlot(QCustomPlot* plot)
{
    const QPalette pal = plot->palette();
    const QColor bg = pal.color(QPalette::Base);
    const QColor fg = pal.color(QPalette::Text);
    QColor grid = fg;
    grid.setAlphaF(0.15f);
    QColor subGrid = fg;
    subGrid.setAlphaF(0.06f);
    plot->setBackground(bg);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(fg, 1));
            axis->setTickPen(QPen(fg, 1));
            axis->setSubTickPen(QPen(fg, 1));
            axis->setTickLabelColor(fg);
            axis->setLabelColor(fg);
            axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    plot->legend->setBrush(bg);
    plot->legend->setBorderPen(QPen(grid));
    plot->legend->setTextColor(fg);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    // Dense, wiggly series (a gradient norm over 20k steps) with pens wider than 1 px take hundreds of
    // milliseconds through QPainter's stroker; the fast polyline path takes a few.
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->setFocusPolicy(Qt::StrongFocus);
}

} // namespace traindeck::gui
