#include "icons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace traindeck::gui {

static const QColor kBlue(0x0072b2), kOrange(0xe69f00), kGreen(0x009e73), kRed(0xd55e00), kSky(0x56b4e9);

static QPixmap paint(const QString& name, int size)
{
    QPixmap pm(size, size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 24.0, size / 24.0);
    auto pen = [&](const QColor& c, double w) {
        QPen pe(c, w);
        pe.setCapStyle(Qt::RoundCap);
        pe.setJoinStyle(Qt::RoundJoin);
        p.setPen(pe);
        p.setBrush(Qt::NoBrush);
    };
    if (name == QLatin1String("traindeck")) {
        p.setPen(Qt::NoPen);
        p.setBrush(kBlue);
        p.drawRoundedRect(QRectF(1.5, 1.5, 21, 21), 4.5, 4.5);
        pen(Qt::white, 2);
        p.drawPolyline(QPolygonF({{4.5, 16.5}, {9, 11.2}, {12.7, 14.2}, {19.5, 6}}));
        p.setPen(Qt::NoPen);
        p.setBrush(kOrange);
        p.drawEllipse(QPointF(19.5, 6), 1.6, 1.6);
    } else if (name == QLatin1String("monitor")) {
        pen(kBlue, 2);
        p.drawRoundedRect(QRectF(2, 3, 20, 15), 2, 2);
        p.drawLine(QPointF(8, 21), QPointF(16, 21));
        pen(kOrange, 2);
        p.drawPolyline(QPolygonF({{5, 14}, {9, 9}, {12, 12}, {18, 6}}));
    } else if (name == QLatin1String("runs")) {
        pen(kBlue, 2);
        for (int y : {6, 12, 18})
            p.drawLine(QPointF(8, y), QPointF(21, y));
        p.setPen(Qt::NoPen);
        const QColor dots[] = {kGreen, kRed, kSky};
        for (int i = 0; i < 3; ++i) {
            p.setBrush(dots[i]);
            p.drawEllipse(QPointF(4, 6 + 6 * i), 1.9, 1.9);
        }
    } else if (name == QLatin1String("launch")) {
        pen(kBlue, 2);
        p.drawEllipse(QPointF(12, 12), 10, 10);
        p.setPen(Qt::NoPen);
        p.setBrush(kGreen);
        p.drawPolygon(QPolygonF({{9, 7}, {18, 12}, {9, 17}}));
    } else if (name == QLatin1String("cluster")) {
        pen(kOrange, 2);
        p.drawLine(QPointF(6, 10), QPointF(11, 15));
        p.drawLine(QPointF(18, 10), QPointF(13, 15));
        pen(kBlue, 2);
        p.drawRoundedRect(QRectF(2, 3, 8, 7), 1, 1);
        p.drawRoundedRect(QRectF(14, 3, 8, 7), 1, 1);
        p.drawRoundedRect(QRectF(8, 15, 8, 7), 1, 1);
    } else if (name == QLatin1String("checks")) {
        pen(kBlue, 2);
        p.drawRoundedRect(QRectF(3, 3, 18, 18), 3, 3);
        pen(kGreen, 2.5);
        p.drawPolyline(QPolygonF({{7, 12}, {11, 16}, {17, 8}}));
    } else if (name == QLatin1String("settings")) {
        pen(kBlue, 2);
        for (int y : {6, 12, 18})
            p.drawLine(QPointF(4, y), QPointF(20, y));
        p.setPen(Qt::NoPen);
        p.setBrush(kOrange);
        p.drawEllipse(QPointF(9, 6), 2.5, 2.5);
        p.drawEllipse(QPointF(15, 12), 2.5, 2.5);
        p.drawEllipse(QPointF(7, 18), 2.5, 2.5);
    }
    return pm;
}

QIcon appIcon(const QString& name)
{
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64, 128})
        icon.addPixmap(paint(name, size));
    return icon;
}

} // namespace traindeck::gui
