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

} // namespace traindeck::checks::nodecheck_detail
