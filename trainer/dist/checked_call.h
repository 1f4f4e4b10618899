#pragma once
// One way to check an MPI, NCCL or CUDA call: TRAINDECK_CHECKED(checker, call) hands `checker` the call's
// result, the called function's name (the call's text up to its '('), the file and the line, so no call
// site spells them by hand. Each library's file defines its short form over its own checker, e.g.
//   #define MPI_CHECKED(call) TRAINDECK_CHECKED(check, call)
#include <string_view>

namespace traindeck::dist {

// "MPI_Bcast(t.data_ptr(), ...)" -> "MPI_Bcast"
constexpr std::string_view calledFunction(std::string_view callText)
{
    return callText.substr(0, callText.find('('));
}

} // namespace traindeck::dist

#define TRAINDECK_CHECKED(checker, call) checker((call), ::traindeck::dist::calledFunction(#call), __FILE__, __LINE__)
