#include "dist/nccl_communicator.h"

#include "dist/checked_call.h"
#include "dist/collective_watchdog.h"
#include "util/errors.h"

#ifdef TRAINDECK_WITH_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
// Every NCCL and CUDA call goes through NcclCommunicator::checkNccl / checkCuda (dist/checked_call.h).
#define NCCL_CHECKED(call) TRAINDECK_CHECKED(checkNccl, call)
#define CUDA_CHECKED(call) TRAINDECK_CHECKED(checkCuda, call)
#endif

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>

namespace traindeck::dist {

CommBackend parseCommBackend(const std::string& name)
{
    if (name == "auto")
        return CommBackend::Auto;
    if (name == "mpi")
        return CommBackend::Mpi;
    if (name == "nccl")
        return CommBackend::Nccl;
    throw InputError("--comm must be auto, mpi or nccl, got \"" + name + "\"");
}

const char* commBackendName(CommBackend backend)
{
    switch (backend) {
    case CommBackend::Auto: return "auto";
    case CommBackend::Mpi: return "mpi";
    case CommBackend::Nccl: return "nccl";
    }
    return "?";
}

bool ncclBuilt()
{
#ifdef TRAINDECK_WITH_NCCL
    return true;
#else
    return false;
#endif
}

std::string ncclVersionString(int code)
{
    // NCCL 2.9 changed the encoding from X*1000+Y*100+Z to X*10000+Y*100+Z.
    const int major = code >= 20900 ? code / 10000 : code / 1000;
    const int minor = code >= 20900 ? code / 100 % 100 : code / 100 % 10;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string ncclLibraryVersion()
{
#ifdef TRAINDECK_WITH_NCCL
    int code = 0;
    if (ncclGetVersion(&code) != ncclSuccess)
        return "NCCL (ncclGetVersion failed)";
    return ncclVersionString(code);
#else
    return "none (built without NCCL)";
#endif
}

CommBackend chooseCommBackend(CommBackend requested, bool cudaDevice)
{
    if (requested == CommBackend::Mpi)
        return CommBackend::Mpi;
    if (requested == CommBackend::Auto)
        return cudaDevice && ncclBuilt() ? CommBackend::Nccl : CommBackend::Mpi;
    if (!ncclBuilt())
        throw InputError("--comm nccl: this traindeck-trainer was built without NCCL (CMake found no CUDA toolkit "
                         "with NCCL); use --comm mpi or auto");
    if (!cudaDevice)
        throw InputError("--comm nccl needs a CUDA device on every rank, and this run trains on the CPU (--device); "
                         "use --comm mpi or auto");
    return CommBackend::Nccl;
}

int localGpuIndex(const std::vector<std::string>& hosts, int rank, int gpusOnHost)
{
    const auto& mine = hosts.at(static_cast<size_t>(rank));
    int before = 0, onHost = 0;
    for (size_t r = 0; r < hosts.size(); ++r)
        if (hosts[r] == mine) {
            before += static_cast<int>(r) < rank ? 1 : 0;
            ++onHost;
        }
    const std::string who = "rank " + std::to_string(rank) + " on " + mine;
    if (gpusOnHost <= 0)
        throw RuntimeFailure(who + ": no CUDA device for NCCL");
    if (onHost > gpusOnHost)
        throw RuntimeFailure(
            who + ": " + std::to_string(onHost) + " ranks on this host share " + std::to_string(gpusOnHost) +
            " GPU(s); NCCL needs one GPU per rank (give the host at most " + std::to_string(gpusOnHost) + " slots)");
    return before;
}

#ifdef TRAINDECK_WITH_NCCL
namespace {

bool onDevice(const torch::Tensor& t)
{
    return t.device().is_cuda();
}

ncclDataType_t ncclType(const torch::Tensor& t)
{
    switch (t.scalar_type()) {
    case torch::kFloat32: return ncclFloat32;
    case torch::kFloat16: return ncclFloat16;
    case torch::kBFloat16: return ncclBfloat16;
    default: return ncclUint8;
    }
}

std::string mib(const torch::Tensor& t)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(t.numel() * t.element_size()) / (1 << 20));
    return text;
}

class NcclCommunicator final : public Communicator {
  public:
    NcclCommunicator(Communicator& control, int device, double timeoutS)
        : control_(control), device_(device), timeoutS_(timeoutS),
          who_("rank " + std::to_string(control.rank()) + " on " + control.host())
    {
        int count = 0;
        CUDA_CHECKED(cudaGetDeviceCount(&count));
        if (device < 0 || device >= count)
            throw RuntimeFailure(who_ + ": CUDA device " + std::to_string(device) + " does not exist (" +
                                 std::to_string(count) + " visible)");
        CUDA_CHECKED(cudaSetDevice(device_));
        CUDA_CHECKED(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECKED(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
        CUDA_CHECKED(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        // Rank 0's unique id reaches the others over the control communicator (MPI_Bcast under mpirun).
        ncclUniqueId id{};
        if (control.rank() == 0)
            NCCL_CHECKED(ncclGetUniqueId(&id));
        auto bytes = torch::empty({static_cast<int64_t>(sizeof id)}, torch::kUInt8);
        std::memcpy(bytes.data_ptr(), &id, sizeof id);
        control.broadcast(bytes, 0);
        std::memcpy(&id, bytes.data_ptr(), sizeof id);
        NCCL_CHECKED(ncclCommInitRank(&comm_, control.size(), id, control.rank()));
    }

    ~NcclCommunicator() override
    {
        // Errors here have nowhere to go: the run's outcome is already decided.
        if (comm_)
            ncclCommDestroy(comm_);
        if (done_)
            cudaEventDestroy(done_);
        if (ready_)
            cudaEventDestroy(ready_);
        if (stream_)
            cudaStreamDestroy(stream_);
    }

    int rank() const override { return control_.rank(); }
    int size() const override { return control_.size(); }
    int localRank() const override { return device_; }
    const std::string& host() const override { return control_.host(); }
    std::string libraryVersion() const override { return control_.libraryVersion(); } // hello: versions.mpi
    std::string waitPolicy() const override { return control_.waitPolicy(); }         // its CPU collectives
    bool acceptsDeviceTensors() const override { return true; }

    void allreduceSum(torch::Tensor& t, WireType wire) override
    {
        if (!onDevice(t))
            return control_.allreduceSum(t, wire);
        requireContiguous(t, "ncclAllReduce");
        if (wire == WireType::None) {
            TORCH_CHECK(t.scalar_type() == torch::kFloat32, "allreduceSum expects float32");
            collective("ncclAllReduce of " + mib(t), [&](cudaStream_t s) {
                NCCL_CHECKED(ncclAllReduce(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()), ncclFloat32,
                                           ncclSum, comm_, s));
            });
            return;
        }
        // The same numerics as the MPI path: fp16 is scaled by a power of two from the largest magnitude
        // over every rank, so the sum neither overflows nor flushes small gradients to zero.
        double scale = 1.0;
        if (wire == WireType::Fp16) {
            auto largest = t.abs().max().to(torch::kFloat32).reshape({1}).contiguous();
            collective("ncclAllReduce (max)", [&](cudaStream_t s) {
                NCCL_CHECKED(ncclAllReduce(largest.data_ptr(), largest.data_ptr(), 1, ncclFloat32, ncclMax, comm_, s));
            });
            scale = fp16Scale(largest.item<double>(), size());
        }
        auto onWire = (scale == 1.0 ? t : t.mul(scale)).to(wire == WireType::Fp16 ? torch::kFloat16 : torch::kBFloat16);
        collective("ncclAllReduce of " + mib(onWire), [&](cudaStream_t s) {
            NCCL_CHECKED(ncclAllReduce(onWire.data_ptr(), onWire.data_ptr(), static_cast<size_t>(onWire.numel()),
                                       ncclType(onWire), ncclSum, comm_, s));
        });
        t.copy_(onWire);
        if (scale != 1.0)
            t.div_(scale);
    }

    void reduceScatterSum(const torch::Tensor& input, torch::Tensor& piece, const std::vector<int64_t>& counts) override
    {
        if (!onDevice(input) && !onDevice(piece))
            return control_.reduceScatterSum(input, piece, counts);
        requireContiguous(input, "ncclReduceScatter");
        requireContiguous(piece, "ncclReduceScatter");
        const auto offsets = checkPieces(counts, input, "ncclReduceScatter");
        if (piece.numel() != counts[static_cast<size_t>(rank())])
            throw RuntimeFailure(who_ + ": ncclReduceScatter: the piece does not match this rank's count");
        auto* in = static_cast<float*>(input.data_ptr());
        collective("reduce-scatter of " + mib(input), [&](cudaStream_t s) {
            if (evenCounts(counts)) {
                NCCL_CHECKED(ncclReduceScatter(in, piece.data_ptr(), static_cast<size_t>(counts[0]), ncclFloat32,
                                               ncclSum, comm_, s));
                return;
            }
            // Uneven pieces: one reduce per rank, to that rank, grouped into one launch.
            NCCL_CHECKED(ncclGroupStart());
            for (int r = 0; r < size(); ++r)
                if (counts[static_cast<size_t>(r)] > 0)
                    NCCL_CHECKED(ncclReduce(in + offsets[static_cast<size_t>(r)], piece.data_ptr(),
                                            static_cast<size_t>(counts[static_cast<size_t>(r)]), ncclFloat32, ncclSum,
                                            r, comm_, s));
            NCCL_CHECKED(ncclGroupEnd());
        });
    }

    void allgatherInPlace(torch::Tensor& buffer, const std::vector<int64_t>& counts) override
    {
        if (!onDevice(buffer))
            return control_.allgatherInPlace(buffer, counts);
        requireContiguous(buffer, "ncclAllGather");
        const auto offsets = checkPieces(counts, buffer, "ncclAllGather");
        auto* data = static_cast<float*>(buffer.data_ptr());
        collective("all-gather of " + mib(buffer), [&](cudaStream_t s) {
            if (evenCounts(counts)) {
                NCCL_CHECKED(ncclAllGather(data + offsets[static_cast<size_t>(rank())], data,
                                           static_cast<size_t>(counts[0]), ncclFloat32, comm_, s));
                return;
            }
            NCCL_CHECKED(ncclGroupStart());
            for (int r = 0; r < size(); ++r)
                if (counts[static_cast<size_t>(r)] > 0) {
                    float* at = data + offsets[static_cast<size_t>(r)];
                    NCCL_CHECKED(ncclBroadcast(at, at, static_cast<size_t>(counts[static_cast<size_t>(r)]), ncclFloat32,
                                               r, comm_, s));
                }
            NCCL_CHECKED(ncclGroupEnd());
        });
    }

    void gatherToRoot(const torch::Tensor& piece, torch::Tensor& all, const std::vector<int64_t>& counts,
                      int root) override
    {
        if (!onDevice(piece) && (rank() != root || !onDevice(all)))
            return control_.gatherToRoot(piece, all, counts, root);
        requireContiguous(piece, "ncclSend/ncclRecv");
        std::vector<int64_t> offsets(counts.size(), 0);
        std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
        if (rank() == root)
            requireContiguous(all, "ncclSend/ncclRecv");
        collective("gather of " + mib(piece), [&](cudaStream_t s) {
            NCCL_CHECKED(ncclGroupStart());
            if (piece.numel() > 0)
                NCCL_CHECKED(
                    ncclSend(piece.data_ptr(), static_cast<size_t>(piece.numel()), ncclFloat32, root, comm_, s));
            if (rank() == root)
                for (int r = 0; r < size(); ++r)
                    if (counts[static_cast<size_t>(r)] > 0)
                        NCCL_CHECKED(ncclRecv(static_cast<float*>(all.data_ptr()) + offsets[static_cast<size_t>(r)],
                                              static_cast<size_t>(counts[static_cast<size_t>(r)]), ncclFloat32, r,
                                              comm_, s));
            NCCL_CHECKED(ncclGroupEnd());
        });
    }

    void broadcast(torch::Tensor& t, int root) override
    {
        if (!onDevice(t))
            return control_.broadcast(t, root);
        requireContiguous(t, "ncclBroadcast");
        collective("ncclBroadcast of " + mib(t), [&](cudaStream_t s) {
            NCCL_CHECKED(ncclBroadcast(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel() * t.element_size()),
                                       ncclUint8, root, comm_, s));
        });
    }

    // Host-side traffic stays on the control communicator.
    void barrier() override { control_.barrier(); }
    std::vector<double> gather(const std::vector<double>& v, int root) override { return control_.gather(v, root); }
    std::vector<std::string> allgatherStrings(const std::string& v) override { return control_.allgatherStrings(v); }
    void pingPong(torch::Tensor& t, int peer, bool initiator) override { control_.pingPong(t, peer, initiator); }
    bool anyTrue(bool v) override { return control_.anyTrue(v); }
    bool hasProgressChannel() const override { return control_.hasProgressChannel(); }
    void sendProgress(const std::array<int64_t, 2>& report) override { control_.sendProgress(report); }
    bool receiveProgress(int& from, std::array<int64_t, 2>& report) override
    {
        return control_.receiveProgress(from, report);
    }
    [[noreturn]] void abort(int exitCode) override
    {
        abortComm();
        control_.abort(exitCode);
        std::_Exit(exitCode); // [[noreturn]] does not carry over a virtual call
    }

  private:
    // One collective: ordered after the work queued so far on the device's default stream (where
    // LibTorch computes the gradients), enqueued on our stream, waited for under the watchdog, and
    // ordered before whatever the default stream does next. One at a time: NCCL needs every rank to
    // issue its collectives in the same order, and the overlap thread and the training thread both call.
    template <typename Enqueue> void collective(const std::string& what, Enqueue&& enqueue)
    {
        std::lock_guard lock(mutex_);
        if (!comm_)
            throw RuntimeFailure(who_ + ": " + what + ": the NCCL communicator was aborted earlier");
        CUDA_CHECKED(cudaSetDevice(device_));
        CUDA_CHECKED(cudaEventRecord(ready_, cudaStreamLegacy));
        CUDA_CHECKED(cudaStreamWaitEvent(stream_, ready_, 0));
        enqueue(stream_);
        CUDA_CHECKED(cudaEventRecord(done_, stream_));
        CollectiveWait wait;
        wait.who = who_;
        wait.what = what;
        wait.timeoutS = timeoutS_;
        wait.finished = [this] {
            const cudaError_t rc = cudaEventQuery(done_);
            if (rc == cudaErrorNotReady)
                return false;
            checkCuda(rc, "cudaEventQuery", __FILE__, __LINE__); // its "not ready" is an answer, not an error
            return true;
        };
        wait.error = [this]() -> std::optional<std::string> {
            ncclResult_t state = ncclSuccess;
            const ncclResult_t rc = ncclCommGetAsyncError(comm_, &state);
            if (rc != ncclSuccess)
                return std::string("ncclCommGetAsyncError: ") + ncclGetErrorString(rc);
            if (state == ncclSuccess || state == ncclInProgress)
                return std::nullopt;
            std::string text = ncclGetErrorString(state);
            if (const char* last = ncclGetLastError(comm_); last && *last)
                text += std::string(" (") + last + ")";
            return text;
        };
        wait.abort = [this] { abortComm(); };
        waitForCollective(wait);
        CUDA_CHECKED(cudaStreamWaitEvent(cudaStreamLegacy, done_, 0));
    }

    void abortComm()
    {
        if (comm_)
            ncclCommAbort(comm_);
        comm_ = nullptr;
    }

    void checkCuda(cudaError_t rc, std::string_view call, const char* file, int line) const
    {
        if (rc != cudaSuccess)
            throw RuntimeFailure(who_ + ": " + std::string(call) + " failed (" + file + ":" + std::to_string(line) +
                                 "): " + cudaGetErrorString(rc));
    }
    void checkNccl(ncclResult_t rc, std::string_view call, const char* file, int line) const
    {
        if (rc == ncclSuccess)
            return;
        std::string text = ncclGetErrorString(rc);
        if (const char* last = comm_ ? ncclGetLastError(comm_) : ncclGetLastError(nullptr); last && *last)
            text += std::string(" (") + last + ")";
        throw RuntimeFailure(who_ + ": " + std::string(call) + " failed (" + file + ":" + std::to_string(line) +
                             "): " + text);
    }
    void requireContiguous(const torch::Tensor& t, const char* call) const
    {
        if (!t.is_contiguous() || !onDevice(t) || t.device().index() != device_)
            throw RuntimeFailure(who_ + ": " + call + " needs a contiguous tensor on cuda:" + std::to_string(device_));
    }
    std::vector<int64_t> checkPieces(const std::vector<int64_t>& counts, const torch::Tensor& whole,
                                     const char* call) const
    {
        std::vector<int64_t> offsets(counts.size(), 0);
        int64_t total = 0;
        for (size_t r = 0; r < counts.size(); ++r) {
            offsets[r] = total;
            total += counts[r];
        }
        if (static_cast<int>(counts.size()) != size() || total != whole.numel() ||
            whole.scalar_type() != torch::kFloat32)
            throw RuntimeFailure(who_ + ": " + call + ": the pieces do not cover the float32 tensor");
        return offsets;
    }
    static bool evenCounts(const std::vector<int64_t>& counts)
    {
        return std::all_of(counts.begin(), counts.end(), [&](int64_t c) { return c == counts.front(); });
    }

    Communicator& control_;
    int device_;
    double timeoutS_;
    std::string who_;
    std::mutex mutex_;
    ncclComm_t comm_ = nullptr;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t ready_ = nullptr, done_ = nullptr;
};

} // namespace
#endif // TRAINDECK_WITH_NCCL

std::unique_ptr<Communicator> makeNcclCommunicator(Communicator& control, int device, double collectiveTimeoutS)
{
#ifdef TRAINDECK_WITH_NCCL
    return std::make_unique<NcclCommunicator>(control, device, collectiveTimeoutS);
#else
    (void)control;
    (void)device;
    (void)collectiveTimeoutS;
    throw InputError("--comm nccl: this traindeck-trainer was built without NCCL");
#endif
}

} // namespace traindeck::dist
