// Colours and axis styling shared by every plot: the axes follow the widget palette (light or dark
// theme), series use a colour-blind-safe palette, states carry text as well as colour.
#pragma once

#include "statecolors.h"

#include <QColor>
#include <QList>

class QCustomPlot;
class QWidget;

namespace traindeck::gui {

enum class PaletteKind { OkabeIto, Tableau };

QList<QColor> seriesColors(PaletteKind kind);
// Colour for series i (cycled), from the palette chosen in Settings.
QColor seriesColor(int i);
// A colour for rank r of n: the palette for up to 8 ranks, evenly spread hues beyond.
QColor rankColor(int rank, int ranks);

// Applies the widget palette to a plot: background, axes, grid, tick labels, legend; enables
// drag-to-pan and wheel zoom on the key axis, and adaptive sampling is left on (the default).
void stylePlot(QCustomPlot* plot);

} // namespace traindeck::gui
