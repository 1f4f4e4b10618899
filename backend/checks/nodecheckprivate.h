// Helpers shared by the units of the node checks (nodecheck*.cpp); not part of the area's interface.
#pragma once

#include "checks/nodecheck.h"

#include <optional>

namespace traindeck::checks::nodecheck_detail {

// Command output as text, trimmed.
inline QString text(const QByteArray& b)
{
    return QString::fromUtf8(b).trimmed();
}

inline QString gb(double bytes)
{
    return QString::number(bytes / 1e9, 'f', 1) + QStringLiteral(" GB");
}

// Turns a failed command into a result (timeout, cancel, link loss); nullopt when it ran.
std::optional<CheckResult> ranBadly(CheckResult r, const ssh::ExecResult& e);

// ranBadly(), and when the command ran, its output excerpt as r's evidence.
inline std::optional<CheckResult> ranBadlyElseEvidence(CheckResult& r, const ssh::ExecResult& e)
{
    if (auto bad = ranBadly(r, e))
        return bad;
    r.evidence = excerpt(outputOf(e));
    return std::nullopt;
}

// A check that does not apply to this node, and why.
inline CheckResult skipped(CheckResult r, const QString& why)
{
    r.status = CheckStatus::Skip;
    r.summary = why;
    return r;
}

} // namespace traindeck::checks::nodecheck_detail
