#include "analysis/detector.h"

#include <QCoreApplication>

namespace traindeck::analysis::detectors {

QString tr(const char* s, const char* disambiguation, int n)
{
    return QCoreApplication::translate(kTextContext, s, disambiguation, n);
}

QString pct(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 0);
}

QString ms(double v)
{
    return QString::number(v, 'f', v < 10 ? 2 : 1);
}

QString rankLabel(const Context& c, int k)
{
    const QString host = c.s.hostOf(k);
    return host.isEmpty() ? tr("rank %1").arg(k) : tr("rank %1 (%2)").arg(k).arg(host);
}

QString confidenceText(double confidence)
{
    return confidence >= 0.9999 ? QStringLiteral("> 99.99") : QString::number(confidence * 100, 'f', 2);
}

} // namespace traindeck::analysis::detectors
