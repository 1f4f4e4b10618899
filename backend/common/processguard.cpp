#include "common/processguard.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstring>
#include <sys/prctl.h>

namespace traindeck {

Status protectProcessSecrets()
{
    if (qEnvironmentVariable("TRAINDECK_ALLOW_CORE_DUMPS") == QLatin1String("1"))
        return Done{};
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return Status::failure(
            Diagnostic::error(QStringLiteral("PR_SET_DUMPABLE"), QString::fromLocal8Bit(std::strerror(errno))));
    return Done{};
}

} // namespace traindeck
