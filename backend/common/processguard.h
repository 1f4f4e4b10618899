// Keeps the secrets a person types into TrainDeck (SSH passwords, key passphrases) out of core dumps
// and away from other processes of the same user: the process is not dumpable (PR_SET_DUMPABLE 0: no
// core file, no ptrace attach, /proc/PID/mem closed), as ssh-agent does. Both front ends call it first
// thing. Programs they start are not affected (execve makes a process dumpable again), so a crashing
// trainer still leaves its core file. TRAINDECK_ALLOW_CORE_DUMPS=1 leaves the process as it was, for
// debugging TrainDeck itself.
#pragma once

#include "common/result.h"

namespace traindeck {

Status protectProcessSecrets();

} // namespace traindeck
