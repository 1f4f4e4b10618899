#include "statecolors.h"

namespace traindeck::gui {

QColor passColor()
{
    return QColor(0x009e73);
}

QColor warnColor()
{
    return QColor(0xe69f00);
}

QColor failColor()
{
    return QColor(0xd55e00);
}

QColor infoColor()
{
    return QColor(0x0072b2);
}

} // namespace traindeck::gui
