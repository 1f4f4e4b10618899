// Commands TrainDeck runs on this machine through /bin/sh (LocalTransport, LocalRunner) get a process
// group of their own, so that a timeout or cancel ends everything the shell started, not only the shell.
#pragma once

class QProcess;

namespace traindeck {

// Call before p.start(): the child becomes the leader of a new process group.
void startInOwnProcessGroup(QProcess& p);
// SIGTERM to the group of `leader` (p's pid, taken after start), SIGKILL after graceMs to what is left
// of it, the shell or what ignored SIGTERM. Does nothing for a pid of 1 or less.
void endProcessGroup(QProcess& p, long long leader, int graceMs = 2000);

} // namespace traindeck
