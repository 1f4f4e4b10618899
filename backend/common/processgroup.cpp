#include "common/processgroup.h"

#include <QProcess>

#include <csignal>
#include <unistd.h>

namespace traindeck {

void startInOwnProcessGroup(QProcess& p)
{
    p.setChildProcessModifier([] { ::setpgid(0, 0); });
}

void endProcessGroup(QProcess& p, long long leader, int graceMs)
{
    if (leader <= 1) // kill(-0) or kill(-1) would reach far more than this command
        return;
    ::kill(-pid_t(leader), SIGTERM);
    p.waitForFinished(graceMs);
    ::kill(-pid_t(leader), SIGKILL);
    p.waitForFinished(graceMs);
}

} // namespace traindeck
