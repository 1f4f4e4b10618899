// Debian's OpenBLAS 0.3.21 misdetects recent Xeons (e.g. model 207, AVX-512) as "Prescott" and then runs
// matmuls about 5x slower. We compare the core OpenBLAS picked with what the CPU supports and, when
// OPENBLAS_CORETYPE is unset, have OpenBLAS choose again with the right core type before MPI starts (or,
// where this OpenBLAS cannot, re-execute ourselves with it set).
#pragma once

#include <string>

namespace traindeck::util {

// How this process came to OpenBLAS's core type.
enum class BlasCorrection {
    None,       // OpenBLAS's own choice, or OPENBLAS_CORETYPE as the user set it
    InPlace,    // OpenBLAS chose again, in this process
    Reexecuted, // this process was started again with OPENBLAS_CORETYPE set
};

struct BlasInfo {
    std::string library;     // "openblas" or "unknown"
    std::string coreName;    // openblas_get_corename(), empty when not OpenBLAS
    std::string cpuBestCore; // the best core type this CPU supports (SKYLAKEX, HASWELL, ...)
    std::string coretypeEnv; // OPENBLAS_CORETYPE as set, empty when unset
    int numThreads = 0;      // openblas_get_num_threads()
    BlasCorrection correction = BlasCorrection::None;
};

BlasInfo blasInfo();

// This process's name as ps shows it (/proc/self/comm; 15 characters at most), empty when unknown.
std::string readProcessName();

// When OpenBLAS picked a core older than the CPU supports: sets OPENBLAS_CORETYPE and has OpenBLAS choose
// again, or else re-executes the current process. Never changes a value already set; on the second pass
// it only gives the process its program's name back. Returns only when no re-exec happened. Call it
// first thing in main(), before any BLAS call.
void fixBlasCoreTypeOrReexec(int argc, char** argv);

} // namespace traindeck::util
