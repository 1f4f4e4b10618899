#include "dist/communicator.h"

#include "dist/checked_call.h"
#include "util/errors.h"

// TRAINDECK_NO_MPI (set by CMake when TRAINDECK_WITH_MPI is off): only the single-process backend exists.
#ifndef TRAINDECK_NO_MPI
#include <mpi.h>
// Every MPI call goes through MpiCommunicator::check (dist/checked_call.h).
#define MPI_CHECKED(call) TRAINDECK_CHECKED(check, call)
#endif

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace traindeck::dist {

WireType parseWireType(const std::string& name)
{
    if (name == "none")
        return WireType::None;
    if (name == "fp16")
        return WireType::Fp16;
    if (name == "bf16")
        return WireType::Bf16;
    throw InputError("unknown compression \"" + name + "\" (use none, fp16 or bf16)");
}

std::string mpiLibraryVersion()
{
#ifdef TRAINDECK_NO_MPI
    return "none (built without MPI)";
#else
    char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(buf, &len);
    std::string v(buf, static_cast<size_t>(len));
    if (auto nl = v.find_first_of(",\n"); nl != std::string::npos)
        v.resize(nl);
    return v;
#endif
}

bool launchedByMpi()
{
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(var))
            return true;
    return false;
}

namespace {

std::string hostName()
{
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

class LocalCommunicator final : public Communicator {
  public:
    LocalCommunicator() : host_(hostName()) {}
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int localRank() const override { return 0; }
    const std::string& host() const override { return host_; }
    std::string libraryVersion() const override { return "none (single process)"; }
    std::string waitPolicy() const override { return "none"; }
    void allreduceSum(torch::Tensor& t, WireType wire) override
    {
        // Keep the numerics of compression identical to a multi-rank run.
        if (wire == WireType::Fp16) {
            const double scale = fp16Scale(t.abs().max().item<double>(), 1);
            t.copy_(t.mul(scale).to(torch::kFloat16).to(torch::kFloat32).div_(scale));
        } else if (wire == WireType::Bf16) {
            t.copy_(t.to(torch::kBFloat16));
        }
    }
    void reduceScatterSum(const torch::Tensor& input, torch::Tensor& piece, const std::vector<int64_t>&) override
    {
        piece.copy_(input);
    }
    void allgatherInPlace(torch::Tensor&, const std::vector<int64_t>&) override {}
    void gatherToRoot(const torch::Tensor& piece, torch::Tensor& all, const std::vector<int64_t>&, int) override
    {
        all.copy_(piece);
    }
    void broadcast(torch::Tensor&, int) override {}
    void barrier() override {}
    std::vector<double> gather(const std::vector<double>& v, int) override { return v; }
    std::vector<std::string> allgatherStrings(const std::string& v) override { return {v}; }
    void pingPong(torch::Tensor&, int peer, bool) override
    {
        throw RuntimeFailure("no rank " + std::to_string(peer) + " to exchange with: a single process has no peers");
    }
    bool anyTrue(bool v) override { return v; }
    bool hasProgressChannel() const override { return true; } // nobody to hear from
    void sendProgress(const std::array<int64_t, 2>&) override {}
    bool receiveProgress(int&, std::array<int64_t, 2>&) override { return false; }
    [[noreturn]] void abort(int code) override { std::_Exit(code); }

  private:
    std::string host_;
};

} // namespace

double fp16Scale(double maxAbs, int ranks)
{
    // A power of two (exact to apply) that maps the largest magnitude to about 2^15 / ranks, so the sum
    // over ranks stays below fp16's 65504 and small gradients keep their precision instead of
    // underflowing.
    if (!(maxAbs > 0) || !std::isfinite(maxAbs))
        return 1.0;
    const double exponent = std::floor(std::log2(32768.0 / (maxAbs * ranks)));
    return std::ldexp(1.0, static_cast<int>(std::clamp(exponent, -60.0, 60.0)));
}

#ifndef TRAINDECK_NO_MPI
namespace {

// Sum reductions for 16-bit floats, which MPI has no type for: accumulate in float, store rounded.
template <typename T> void sum16(void* in, void* inout, int* len, MPI_Datatype*)
{
    auto* a = static_cast<const T*>(in);
    auto* b = static_cast<T*>(inout);
    for (int i = 0; i < *len; ++i)
        b[i] = static_cast<T>(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}

// Open MPI's mpi_yield_when_idle as the library takes it: from the environment, which outranks its
// parameter files (mpirun's --mca reaches the ranks through the environment too). Its boolean spellings:
// 1, t, true, enabled, yes, y or any other non-zero number. MPI_T could read the value back, but
// MPI_T_init_thread registers every component's parameters: 240 ms per rank here, and a block
// libmca_common_ofi never frees.
bool mpiYieldsWhenIdle()
{
    const char* raw = std::getenv("OMPI_MCA_mpi_yield_when_idle");
    if (!raw)
        return false;
    std::string value(raw);
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    if (value == "t" || value == "true" || value == "enabled" || value == "yes" || value == "y")
        return true;
    char* end = nullptr;
    const long number = std::strtol(value.c_str(), &end, 10);
    return end != value.c_str() && *end == '\0' && number != 0;
}

class MpiCommunicator final : public Communicator {
  public:
    MpiCommunicator(int* argc, char*** argv)
    {
        // A thread that waits in a collective for a late peer polls; by default Open MPI spins, and the
        // overlapped allreduce's communication thread then takes the CPU time of the backward pass
        // beside it. That slows the waiting rank and hides part of the late rank's delay from the
        // diagnosis (docs/users/diagnosis.md). Yielding between polls leaves the core to the computation and
        // costs nothing when nothing else runs. A value the user set is kept.
        ::setenv("OMPI_MCA_mpi_yield_when_idle", "1", /*overwrite=*/0);
        // The stall inspector's thread sends and receives while the training thread sits in a collective.
        int provided = 0;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
            throw RuntimeFailure("MPI_Init_thread failed on host " + hostName());
        host_ = hostName(); // check() names the host
        MPI_CHECKED(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_CHECKED(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
        MPI_CHECKED(MPI_Comm_size(MPI_COMM_WORLD, &size_));
        if (const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"))
            localRank_ = std::atoi(lr);
        MPI_CHECKED(MPI_Type_contiguous(2, MPI_BYTE, &half_));
        MPI_CHECKED(MPI_Type_commit(&half_));
        MPI_CHECKED(MPI_Op_create(&sum16<c10::Half>, 1, &sumFp16_));
        MPI_CHECKED(MPI_Op_create(&sum16<c10::BFloat16>, 1, &sumBf16_));
        if (provided >= MPI_THREAD_MULTIPLE)
            MPI_CHECKED(MPI_Comm_dup(MPI_COMM_WORLD, &progress_));
        yields_ = mpiYieldsWhenIdle();
    }
    ~MpiCommunicator() override
    {
        if (progress_ != MPI_COMM_NULL)
            MPI_Comm_free(&progress_);
        MPI_Op_free(&sumFp16_);
        MPI_Op_free(&sumBf16_);
        MPI_Type_free(&half_);
        MPI_Finalize();
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int localRank() const override { return localRank_; }
    const std::string& host() const override { return host_; }
    std::string libraryVersion() const override { return mpiLibraryVersion(); }
    std::string waitPolicy() const override { return yields_ ? "yield" : "spin"; }

    void allreduceSum(torch::Tensor& t, WireType wire) override
    {
        requireContiguousCpu(t, "MPI_Allreduce");
        if (wire == WireType::None) {
            TORCH_CHECK(t.scalar_type() == torch::kFloat32, "allreduceSum expects float32");
            MPI_CHECKED(MPI_Allreduce(MPI_IN_PLACE, t.data_ptr(), count(t), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            return;
        }
        double scale = 1.0;
        if (wire == WireType::Fp16) {
            double maxAbs = t.abs().max().item<double>();
            MPI_CHECKED(MPI_Allreduce(MPI_IN_PLACE, &maxAbs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            scale = fp16Scale(maxAbs, size_);
        }
        auto wireTensor =
            (scale == 1.0 ? t : t.mul(scale)).to(wire == WireType::Fp16 ? torch::kFloat16 : torch::kBFloat16);
        MPI_CHECKED(MPI_Allreduce(MPI_IN_PLACE, wireTensor.data_ptr(), count(wireTensor), half_,
                                  wire == WireType::Fp16 ? sumFp16_ : sumBf16_, MPI_COMM_WORLD));
        t.copy_(wireTensor);
        if (scale != 1.0)
            t.div_(scale);
    }

    void reduceScatterSum(const torch::Tensor& input, torch::Tensor& piece, const std::vector<int64_t>& counts) override
    {
        requireContiguousCpu(input, "MPI_Reduce_scatter");
        requireContiguousCpu(piece, "MPI_Reduce_scatter");
        const auto c = pieceCounts(counts, input, "MPI_Reduce_scatter");
        if (piece.numel() != c[static_cast<size_t>(rank_)])
            throw RuntimeFailure("rank " + std::to_string(rank_) + " on " + host_ +
                                 ": MPI_Reduce_scatter: the piece does not match this rank's count");
        MPI_CHECKED(
            MPI_Reduce_scatter(input.data_ptr(), piece.data_ptr(), c.data(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    }

    void allgatherInPlace(torch::Tensor& buffer, const std::vector<int64_t>& counts) override
    {
        requireContiguousCpu(buffer, "MPI_Allgatherv");
        const auto c = pieceCounts(counts, buffer, "MPI_Allgatherv");
        const auto d = displacements(c);
        MPI_CHECKED(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer.data_ptr(), c.data(), d.data(), MPI_FLOAT,
                                   MPI_COMM_WORLD));
    }

    void gatherToRoot(const torch::Tensor& piece, torch::Tensor& all, const std::vector<int64_t>& counts,
                      int root) override
    {
        requireContiguousCpu(piece, "MPI_Gatherv");
        std::vector<int> c(counts.begin(), counts.end());
        const auto d = displacements(c);
        if (rank_ == root)
            requireContiguousCpu(all, "MPI_Gatherv");
        MPI_CHECKED(MPI_Gatherv(piece.data_ptr(), count(piece), MPI_FLOAT, rank_ == root ? all.data_ptr() : nullptr,
                                c.data(), d.data(), MPI_FLOAT, root, MPI_COMM_WORLD));
    }

    void broadcast(torch::Tensor& t, int root) override
    {
        requireContiguousCpu(t, "MPI_Bcast");
        MPI_CHECKED(
            MPI_Bcast(t.data_ptr(), static_cast<int>(t.numel() * t.element_size()), MPI_BYTE, root, MPI_COMM_WORLD));
    }

    void barrier() override { MPI_CHECKED(MPI_Barrier(MPI_COMM_WORLD)); }

    std::vector<double> gather(const std::vector<double>& v, int root) override
    {
        std::vector<double> out(rank_ == root ? v.size() * static_cast<size_t>(size_) : 0);
        MPI_CHECKED(MPI_Gather(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, out.data(), static_cast<int>(v.size()),
                               MPI_DOUBLE, root, MPI_COMM_WORLD));
        return out;
    }

    std::vector<std::string> allgatherStrings(const std::string& value) override
    {
        constexpr int kMax = 256;
        char mine[kMax] = {};
        std::strncpy(mine, value.c_str(), kMax - 1);
        std::vector<char> all(static_cast<size_t>(kMax * size_));
        MPI_CHECKED(MPI_Allgather(mine, kMax, MPI_CHAR, all.data(), kMax, MPI_CHAR, MPI_COMM_WORLD));
        std::vector<std::string> out;
        for (int r = 0; r < size_; ++r)
            out.emplace_back(all.data() + r * kMax);
        return out;
    }

    void pingPong(torch::Tensor& t, int peer, bool initiator) override
    {
        requireContiguousCpu(t, "MPI_Send/MPI_Recv");
        const int bytes = static_cast<int>(t.numel() * t.element_size());
        if (initiator) {
            MPI_CHECKED(MPI_Send(t.data_ptr(), bytes, MPI_BYTE, peer, 77, MPI_COMM_WORLD));
            MPI_CHECKED(MPI_Recv(t.data_ptr(), bytes, MPI_BYTE, peer, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            MPI_CHECKED(MPI_Recv(t.data_ptr(), bytes, MPI_BYTE, peer, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CHECKED(MPI_Send(t.data_ptr(), bytes, MPI_BYTE, peer, 77, MPI_COMM_WORLD));
        }
    }

    bool anyTrue(bool value) override
    {
        int v = value ? 1 : 0, result = 0;
        MPI_CHECKED(MPI_Allreduce(&v, &result, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
        return result != 0;
    }

    bool hasProgressChannel() const override { return progress_ != MPI_COMM_NULL; }

    void sendProgress(const std::array<int64_t, 2>& report) override
    {
        if (progress_ == MPI_COMM_NULL)
            return;
        MPI_CHECKED(MPI_Send(report.data(), 2, MPI_INT64_T, 0, kProgressTag, progress_));
    }

    bool receiveProgress(int& from, std::array<int64_t, 2>& report) override
    {
        if (progress_ == MPI_COMM_NULL)
            return false;
        int arrived = 0;
        MPI_Status status;
        MPI_CHECKED(MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, progress_, &arrived, &status));
        if (!arrived)
            return false;
        from = status.MPI_SOURCE;
        MPI_CHECKED(MPI_Recv(report.data(), 2, MPI_INT64_T, from, kProgressTag, progress_, MPI_STATUS_IGNORE));
        return true;
    }

    [[noreturn]] void abort(int code) override
    {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);
    }

  private:
    void check(int rc, std::string_view call, const char* file, int line) const
    {
        if (rc == MPI_SUCCESS)
            return;
        char text[MPI_MAX_ERROR_STRING] = {};
        int len = 0;
        MPI_Error_string(rc, text, &len);
        throw RuntimeFailure("rank " + std::to_string(rank_) + " on " + host_ + ": " + std::string(call) + " failed (" +
                             file + ":" + std::to_string(line) + "): " + std::string(text, static_cast<size_t>(len)));
    }
    void requireContiguousCpu(const torch::Tensor& t, const char* call) const
    {
        if (!t.is_contiguous() || !t.device().is_cpu())
            throw RuntimeFailure(std::string(call) + " needs a contiguous CPU tensor");
        if (t.numel() > INT32_MAX)
            throw RuntimeFailure(std::string(call) + ": tensor too large for one call");
    }
    static int count(const torch::Tensor& t) { return static_cast<int>(t.numel()); }
    // Per-rank counts as MPI takes them; they must cover the whole float32 tensor.
    std::vector<int> pieceCounts(const std::vector<int64_t>& counts, const torch::Tensor& whole, const char* call) const
    {
        int64_t total = 0;
        for (int64_t n : counts)
            total += n;
        if (static_cast<int>(counts.size()) != size_ || total != whole.numel() ||
            whole.scalar_type() != torch::kFloat32)
            throw RuntimeFailure("rank " + std::to_string(rank_) + " on " + host_ + ": " + call +
                                 ": the pieces do not cover the float32 tensor");
        return std::vector<int>(counts.begin(), counts.end());
    }
    static std::vector<int> displacements(const std::vector<int>& counts)
    {
        std::vector<int> d(counts.size(), 0);
        for (size_t i = 1; i < counts.size(); ++i)
            d[i] = d[i - 1] + counts[i - 1];
        return d;
    }

    int rank_ = 0, size_ = 1, localRank_ = 0;
    bool yields_ = false; // mpi_yield_when_idle in effect
    std::string host_;
    MPI_Datatype half_ = MPI_DATATYPE_NULL;
    MPI_Op sumFp16_ = MPI_OP_NULL, sumBf16_ = MPI_OP_NULL;
    MPI_Comm progress_ = MPI_COMM_NULL; // the stall inspector's channel (a duplicate of MPI_COMM_WORLD)
    static constexpr int kProgressTag = 31;
};

} // namespace
#endif // TRAINDECK_NO_MPI

std::unique_ptr<Communicator> makeCommunicator(int* argc, char*** argv)
{
#ifdef TRAINDECK_NO_MPI
    (void)argc;
    (void)argv;
    if (launchedByMpi())
        throw InputError("started by an MPI launcher on host " + hostName() +
                         ", but this traindeck-trainer was built without MPI (TRAINDECK_WITH_MPI=OFF): run it "
                         "without mpirun, or rebuild it with MPI");
#else
    if (launchedByMpi())
        return std::make_unique<MpiCommunicator>(argc, argv);
#endif
    return std::make_unique<LocalCommunicator>();
}

} // namespace traindeck::dist
