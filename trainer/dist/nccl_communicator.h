// NCCL for the gradient collectives on CUDA tensors. It wraps the job's control communicator (MPI under
// mpirun, the single-process one otherwise), which shares NCCL's unique id, places each rank on its
// host's GPUs and carries everything that lives in host memory (progress reports, strings, figures).
// Built when CMake finds NCCL and the CUDA toolkit (TRAINDECK_WITH_NCCL); without them the functions
// below say so instead of running.
#pragma once

#include "dist/communicator.h"

#include <memory>
#include <string>
#include <vector>

namespace traindeck::dist {

enum class CommBackend { Auto, Mpi, Nccl };
CommBackend parseCommBackend(const std::string& name); // auto | mpi | nccl (InputError otherwise)
const char* commBackendName(CommBackend backend);

// True when this traindeck-trainer was built with NCCL.
bool ncclBuilt();
// "2.28.9" from an ncclGetVersion code (either encoding NCCL has used).
std::string ncclVersionString(int code);
// "2.28.9" from ncclGetVersion (the library loaded, not the header); "none (built without NCCL)".
std::string ncclLibraryVersion();

// The backend --comm asks for on this device: Auto is NCCL for a CUDA device when NCCL was built in,
// MPI otherwise. Throws InputError when NCCL is asked for and cannot serve (a CPU device, no NCCL).
CommBackend chooseCommBackend(CommBackend requested, bool cudaDevice);

// Which of the host's GPUs a rank takes: its position among the ranks on the same host (from every
// rank's host name, index = rank). Throws RuntimeFailure naming rank and host when the host has fewer
// GPUs than ranks.
int localGpuIndex(const std::vector<std::string>& hosts, int rank, int gpusOnHost);

// An NCCL communicator over every rank of `control`, on CUDA device `device`. Collectives on CUDA
// tensors run on a dedicated stream, ordered after the work queued on the device's default stream and
// before the work queued after them (events); the calling thread waits for each under
// waitForCollective with `collectiveTimeoutS`. Every NCCL and CUDA call is checked and its failure
// names the rank, host, call, file and line. `control` must outlive the result.
std::unique_ptr<Communicator> makeNcclCommunicator(Communicator& control, int device, double collectiveTimeoutS);

} // namespace traindeck::dist
