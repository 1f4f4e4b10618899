#include "train/gradient_buckets.h"

#include "model/safetensors.h"
#include "train/rank_zero.h"
#include "util/errors.h"

#include <filesystem>
#include <numeric>

namespace traindeck::train {

namespace {

std::vector<Bucket> makeBuckets(const std::vector<torch::Tensor>& params, double bucketMb, const torch::Device& device,
                                bool stageOnHost)
{
    const int64_t limit = std::max<int64_t>(1, static_cast<int64_t>(bucketMb * 1024 * 1024 / sizeof(float)));
    std::vector<Bucket> buckets;
    std::vector<std::vector<torch::Tensor>> groups(1);
    int64_t elements = 0;
    for (auto it = params.rbegin(); it != params.rend(); ++it) {
        if (elements > 0 && elements + it->numel() > limit) {
            groups.emplace_back();
            elements = 0;
        }
        groups.back().push_back(*it);
        elements += it->numel();
    }
    for (auto& group : groups) {
        if (group.empty())
            continue;
        Bucket b;
        int64_t n = 0;
        for (const auto& p : group)
            n += p.numel();
        b.flat = torch::zeros({n}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
        if (stageOnHost)
            b.host = torch::empty({n}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
        int64_t offset = 0;
        for (auto& p : group) {
            auto view = b.flat.narrow(0, offset, p.numel()).view_as(p);
            p.mutable_grad() = view;
            b.views.push_back(view);
            offset += p.numel();
        }
        b.params = std::move(group);
        buckets.push_back(std::move(b));
    }
    return buckets;
}

} // namespace

GradientBuckets::GradientBuckets(const std::vector<torch::Tensor>& params, const std::vector<std::string>& names,
                                 double bucketMb, const torch::Device& device, bool stageOnHost,
                                 dist::Communicator& comm, dist::WireType wire, int zero)
    : comm_(comm), wire_(wire), zero_(zero), world_(comm.size()), rank_(comm.rank()),
      buckets_(makeBuckets(params, bucketMb, device, stageOnHost))
{
    for (size_t i = 0; i < params.size() && i < names.size(); ++i)
        names_[params[i].unsafeGetTensorImpl()] = names[i];
}

const std::string& GradientBuckets::nameOf(const torch::Tensor& param) const
{
    return names_.at(param.unsafeGetTensorImpl());
}

std::vector<std::vector<torch::Tensor>> GradientBuckets::parameterGroups() const
{
    std::vector<std::vector<torch::Tensor>> groups;
    for (const auto& b : buckets_)
        groups.push_back(b.params);
    return groups;
}

// A pointer comparison per parameter when nothing was replaced.
void GradientBuckets::reattachViews()
{
    torch::NoGradGuard noGrad;
    for (auto& b : buckets_)
        for (size_t i = 0; i < b.params.size(); ++i) {
            auto& g = b.params[i].mutable_grad();
            if (g.defined() && g.data_ptr() == b.views[i].data_ptr())
                continue;
            if (g.defined())
                b.views[i].copy_(g);
            else
                b.views[i].zero_();
            g = b.views[i];
        }
}

void GradientBuckets::reduce(size_t index)
{
    torch::NoGradGuard noGrad;
    Bucket& b = buckets_[index];
    if (zero_ == 1) {
        // Only this rank's range is summed here; the rest of `flat` keeps local gradients nobody reads.
        if (b.host.defined())
            b.host.copy_(b.flat);
        comm_.reduceScatterSum(b.host.defined() ? b.host : b.flat, b.received, b.counts);
        b.received.div_(static_cast<double>(world_));
        b.shard.copy_(b.received, /*non_blocking=*/true);
        return;
    }
    if (b.host.defined()) {
        b.host.copy_(b.flat);
        comm_.allreduceSum(b.host, wire_);
        b.flat.copy_(b.host, /*non_blocking=*/true);
    } else {
        comm_.allreduceSum(b.flat, wire_);
    }
    if (world_ > 1)
        b.flat.div_(static_cast<double>(world_));
}

void GradientBuckets::reduceAll()
{
    reattachViews();
    if (hasGradientsToExchange())
        for (size_t i = 0; i < buckets_.size(); ++i)
            reduce(i);
}

int64_t GradientBuckets::bytesSent() const
{
    if (!hasGradientsToExchange())
        return 0;
    int64_t bytes = 0;
    for (const auto& b : buckets_)
        bytes += b.flat.numel() * (wire_ == dist::WireType::None ? 4 : 2);
    return bytes;
}

double GradientBuckets::unscaleAndClip(double lossScale, double clip)
{
    torch::NoGradGuard noGrad;
    const bool sharded = zero_ == 1;
    std::vector<torch::Tensor> norms;
    for (auto& b : buckets_) {
        auto& g = sharded ? b.shard : b.flat;
        if (lossScale != 1.0)
            g.div_(lossScale);
        norms.push_back(torch::linalg_vector_norm(g, 2).to(torch::kFloat64));
    }
    double gradNorm = torch::stack(norms).norm().item<double>(); // one device sync for all buckets
    if (sharded && world_ > 1) {
        auto squares = torch::tensor({static_cast<float>(gradNorm * gradNorm)}, torch::kFloat32);
        comm_.allreduceSum(squares);
        gradNorm = std::sqrt(static_cast<double>(squares.item<float>()));
    }
    if (clip > 0 && std::isfinite(gradNorm) && gradNorm > clip) {
        const double scale = clip / (gradNorm + 1e-6);
        for (auto& b : buckets_)
            (sharded ? b.shard : b.flat).mul_(scale);
    }
    return gradNorm;
}

// The gradient bucket is the buffer (its gradients are used up): each rank puts its parameters' new values
// at its range, the all-gather fills in the others', and every parameter copies its values out.
void GradientBuckets::allgatherParameters()
{
    torch::NoGradGuard noGrad;
    for (size_t k = 0; k < buckets_.size(); ++k) {
        Bucket& b = buckets_[k];
        std::vector<torch::Tensor> mine;
        for (const auto& piece : zeroPieces_[k])
            mine.push_back(b.params[piece.param].detach().view(-1).narrow(0, piece.paramOffset, piece.length));
        if (!mine.empty())
            b.shard.copy_(torch::cat(mine));
        if (world_ > 1) {
            if (b.host.defined()) {
                b.host.copy_(b.flat);
                comm_.allgatherInPlace(b.host, b.counts);
                b.flat.copy_(b.host);
            } else {
                comm_.allgatherInPlace(b.flat, b.counts);
            }
        }
        for (size_t i = 0; i < b.params.size(); ++i)
            b.params[i].detach().copy_(b.views[i]);
    }
}

void GradientBuckets::zeroGradients()
{
    for (auto& b : buckets_)
        b.flat.zero_();
}

void GradientBuckets::shardOptimizer(const std::string& resumeDir, std::optional<AdamW>& optimizer)
{
    torch::NoGradGuard noGrad;
    const bool resumed = !resumeDir.empty();
    std::shared_ptr<model::SafetensorsFile> saved; // rank 0, on resume
    if (resumed && rank_ == 0)
        saved = model::SafetensorsFile::open((std::filesystem::path(resumeDir) / "optimizer.safetensors").string());
    std::vector<AdamWParam> pieces;
    zeroPieces_.clear();
    for (auto& b : buckets_) {
        b.counts = shardCounts(b.flat.numel(), world_);
        b.shardBegin = std::accumulate(b.counts.begin(), b.counts.begin() + rank_, int64_t(0));
        const int64_t n = b.counts[static_cast<size_t>(rank_)];
        b.shard = b.flat.narrow(0, b.shardBegin, n);
        b.received = torch::empty({n}, (b.host.defined() ? b.host : b.flat).options());
        std::vector<int64_t> sizes;
        for (const auto& p : b.params)
            sizes.push_back(p.numel());
        torch::Tensor state[2]; // the bucket's exp_avg and exp_avg_sq in bucket layout (resume only)
        if (resumed) {
            for (int which = 0; which < 2; ++which) {
                state[which] = torch::zeros_like(b.flat);
                int64_t offset = 0;
                for (const auto& p : b.params) {
                    if (saved) {
                        const std::string name = nameOf(p) + (which == 0 ? ".exp_avg" : ".exp_avg_sq");
                        const auto* info = saved->find(name);
                        if (!info)
                            throw InputError(saved->path() + ": optimizer state \"" + name + "\" is missing");
                        const auto v = saved->view(*info);
                        if (v.sizes() != p.sizes())
                            throw InputError(saved->path() + ": optimizer state \"" + name + "\" has the wrong shape");
                        state[which].narrow(0, offset, p.numel()).copy_(v.reshape(-1));
                    }
                    offset += p.numel();
                }
                broadcastFromRankZero(comm_, state[which]);
            }
        }
        auto bucketPieces = piecesIn(sizes, b.shardBegin, b.shardBegin + n);
        for (const auto& piece : bucketPieces) {
            const auto& p = b.params[piece.param];
            AdamWParam ap;
            ap.name = nameOf(p);
            ap.param = p.detach().view(-1).narrow(0, piece.paramOffset, piece.length);
            ap.grad = b.flat.narrow(0, piece.bucketOffset, piece.length);
            ap.decay = p.dim() >= 2;
            if (resumed) {
                ap.expAvg = state[0].narrow(0, piece.bucketOffset, piece.length).clone();
                ap.expAvgSq = state[1].narrow(0, piece.bucketOffset, piece.length).clone();
            }
            pieces.push_back(std::move(ap));
        }
        zeroPieces_.push_back(std::move(bucketPieces));
    }
    auto& sharded = optimizer.emplace(std::move(pieces));
    if (resumed) {
        int64_t steps = 0;
        if (saved)
            if (auto it = saved->metadata().find("steps"); it != saved->metadata().end())
                steps = std::stoll(it->second);
        auto t = torch::tensor({steps}, torch::kInt64);
        if (world_ > 1)
            comm_.broadcast(t, 0);
        sharded.setSteps(t.item<int64_t>());
    }
}

std::vector<std::pair<std::string, torch::Tensor>> GradientBuckets::optimizerStateForCheckpoint(AdamW& optimizer)
{
    if (zero_ == 0)
        return optimizer.stateTensors();
    torch::NoGradGuard noGrad;
    std::vector<std::pair<std::string, torch::Tensor>> avg, avgSq;
    size_t next = 0; // the optimizer's pieces follow the buckets' order
    for (size_t k = 0; k < buckets_.size(); ++k) {
        const auto& b = buckets_[k];
        std::vector<torch::Tensor> mine[2];
        for (size_t i = 0; i < zeroPieces_[k].size(); ++i, ++next) {
            const auto& ap = optimizer.params()[next];
            mine[0].push_back(ap.expAvg.to(torch::kCPU));
            mine[1].push_back(ap.expAvgSq.to(torch::kCPU));
        }
        for (int which = 0; which < 2; ++which) {
            const torch::Tensor piece =
                mine[which].empty() ? torch::empty({0}, torch::kFloat32) : torch::cat(mine[which]).contiguous();
            torch::Tensor all = rank_ == 0 ? torch::empty({b.flat.numel()}, torch::kFloat32) : torch::Tensor();
            comm_.gatherToRoot(piece, all, b.counts, 0);
            if (rank_ != 0)
                continue;
            int64_t offset = 0;
            for (const auto& p : b.params) {
                (which == 0 ? avg : avgSq)
                    .emplace_back(nameOf(p) + (which == 0 ? ".exp_avg" : ".exp_avg_sq"),
                                  all.narrow(0, offset, p.numel()).view(p.sizes()));
                offset += p.numel();
            }
        }
    }
    avg.insert(avg.end(), avgSq.begin(), avgSq.end());
    return avg;
}

} // namespace traindeck::train
