// `traindeck-trainer plan [train flags] [--world-size N] [--available-mb MIB] [--json]`: the memory plan
// (train/memory_plan.h) of the run those flags describe, per rank, without running it.
#pragma once

#include <string>
#include <vector>

namespace traindeck::train {

// Exit status 0, or 2 (InputError thrown) for a bad flag. With --available-mb it says whether the plan
// fits and, when it does not, which flags would make it fit.
int runPlanCommand(const std::vector<std::string>& args);

} // namespace traindeck::train
