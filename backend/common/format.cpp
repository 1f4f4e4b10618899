#include "common/format.h"

#include <cmath>

namespace traindeck {

QString formatNumber(double v, int precision, char format, const QLocale& locale)
{
    return std::isfinite(v) ? locale.toString(v, format, precision) : QStringLiteral("-");
}

} // namespace traindeck
