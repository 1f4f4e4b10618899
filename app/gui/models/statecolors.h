// Severity and state colours of the Okabe-Ito palette (colour-blind safe), always shown together with a
// text label: pass, warn, fail, info.
#pragma once

#include <QColor>

namespace traindeck::gui {

QColor passColor();
QColor warnColor();
QColor failColor();
QColor infoColor();

} // namespace traindeck::gui
