// Numbers as the views show them (CLI text, HTML report, GUI labels), with one rule for values
// that are not measured.
#pragma once

#include <QLocale>
#include <QString>

namespace traindeck {

// v with `precision` digits in QLocale::toString's `format` ('f', 'g', 'e'); NaN and +-inf (a
// missing or broken measurement) are "-". The C locale (no group separators) suits CLI output and
// files; the GUI passes QLocale() for the user's locale.
QString formatNumber(double v, int precision, char format = 'f', const QLocale& locale = QLocale::c());

} // namespace traindeck
