// Debian's OpenBLAS 0.3.21 misdetects recent Xeons (e.g. model 207, AVX-512) as "Prescott" and then runs
// matmuls about 5x slower. We compare the core OpenBLAS picked with what the CPU supports and, when
// OPENBLAS_CORETYPE is unset, re-execute ourselves with the right core type before MPI starts.
#pragma once

#include <string>

namespace traindeck::util {

struct BlasInfo {
    std::string library;     // "openblas" or "unknown"
    std::string coreName;    // openblas_get_corename(), empty when not OpenBLAS
    std::string cpuBestCore; // the best core type this CPU supports (SKYLAKEX, HASWELL, ...)
    std::string coretypeEnv; // OPENBLAS_CORETYPE as set, empty when unset
    int numThreads = 0;      // openblas_get_num_threads()
};

BlasInfo blasInfo();

// This process's name as ps shows it (/proc/self/comm; 15 characters at most), empty when unknown.
std::string readProcessName();

// Re-executes the current process with OPENBLAS_CORETYPE set when OpenBLAS picked a core older than
// the CPU supports. Never changes a value already set; on the second pass it only gives the process its
// program's name back. Returns only when no re-exec happened.
void fixBlasCoreTypeOrReexec(int argc, char** argv);

} // namespace traindeck::util
