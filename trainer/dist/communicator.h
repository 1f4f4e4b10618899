// Collective communication between ranks. The MPI backend works on CPU tensors; a single-process
// backend serves runs started without mpirun. Every failure names the rank, host and call.
#pragma once

// ATen's Tensor class only, not torch/torch.h: the suites that include this compile without LibTorch's
// precompiled header (docs/contributors/testing.md, "Compile time").
#include <ATen/core/Tensor.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace traindeck::dist {

enum class WireType { None, Fp16, Bf16 };        // gradient compression on the wire
WireType parseWireType(const std::string& name); // none | fp16 | bf16

class Communicator {
  public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual int localRank() const = 0;
    virtual const std::string& host() const = 0;
    virtual std::string libraryVersion() const = 0;
    // True when collectives take CUDA tensors directly (NCCL); otherwise device tensors are staged
    // through host memory by the caller.
    virtual bool acceptsDeviceTensors() const { return false; }
    // How a rank waits inside a CPU collective for a late peer, as the MPI library takes it: "yield"
    // (it gives the core to any other runnable thread between polls), "spin", or "none" (one process).
    virtual std::string waitPolicy() const = 0;

    // In-place sum over ranks of a contiguous CPU float32 tensor, optionally sent as fp16/bf16.
    virtual void allreduceSum(at::Tensor& tensor, WireType wire = WireType::None) = 0;
    // ZeRO-1 (--zero 1) on contiguous CPU float32 tensors split into rank-ordered pieces of counts[r]
    // elements (summing to the tensor's size). reduceScatterSum: the sum over ranks of this rank's piece
    // of `input` into `piece` (counts[rank] elements). allgatherInPlace: every rank's piece of `buffer`
    // (its own at its offset on entry) on every rank. gatherToRoot: every rank's `piece` into `all` at
    // root, in rank order (`all` is only used at root).
    virtual void reduceScatterSum(const at::Tensor& input, at::Tensor& piece, const std::vector<int64_t>& counts) = 0;
    virtual void allgatherInPlace(at::Tensor& buffer, const std::vector<int64_t>& counts) = 0;
    virtual void gatherToRoot(const at::Tensor& piece, at::Tensor& all, const std::vector<int64_t>& counts,
                              int root) = 0;
    // In-place broadcast of a contiguous CPU tensor from root.
    virtual void broadcast(at::Tensor& tensor, int root) = 0;
    virtual void barrier() = 0;
    // Gathers `values` (same length on every rank) at root: result[r * n + i]; empty on other ranks.
    virtual std::vector<double> gather(const std::vector<double>& values, int root) = 0;
    // Every rank's string, index = rank.
    virtual std::vector<std::string> allgatherStrings(const std::string& value) = 0;
    // One round trip of a contiguous CPU tensor with `peer` (the link test): the initiator sends it
    // and receives it back, the peer receives it and sends it back.
    virtual void pingPong(at::Tensor& tensor, int peer, bool initiator) = 0;
    // Logical OR over ranks (used to agree on skipping a step or stopping).
    virtual bool anyTrue(bool value) = 0;
    // Progress reports to rank 0 for the stall inspector, on a channel of their own and callable from a
    // helper thread while the training thread is inside a collective. hasProgressChannel() is false when
    // the MPI library cannot take calls from two threads at once (no MPI_THREAD_MULTIPLE).
    virtual bool hasProgressChannel() const = 0;
    virtual void sendProgress(const std::array<int64_t, 2>& report) = 0;
    // Rank 0: the next report that arrived, from rank `from`; false (without waiting) when none did.
    virtual bool receiveProgress(int& from, std::array<int64_t, 2>& report) = 0;
    // Ends every rank of the job with this exit code.
    [[noreturn]] virtual void abort(int exitCode) = 0;
};

// Power-of-two scale applied before fp16 wire compression (see communicator.cpp).
double fp16Scale(double maxAbs, int ranks);

// The MPI library's version string (first line); callable without MPI_Init.
std::string mpiLibraryVersion();

// True when this process was started by an MPI launcher (Open MPI, PMIx, Hydra).
bool launchedByMpi();
// The MPI backend when launched by mpirun, else the single-process backend.
std::unique_ptr<Communicator> makeCommunicator(int* argc, char*** argv);

} // namespace traindeck::dist
