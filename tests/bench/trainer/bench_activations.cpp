// What --recompute layers saves and costs, in process: for a preset at several sequence lengths (batch 1,
// fp32, one thread, the fused loss), per mode (off, layers) and interleaved repetitions:
//   activations  the bytes alive after the decoder stack's forward, less those alive before it: what the
//                autograd graph keeps of the layers for backward;
//   peak         the most bytes alive at any moment of the stack's forward and backward, less those
//                before (recomputation brings one layer's activations back at a time; a thread reads
//                glibc's count every 2 ms, so a shorter peak can be missed);
//   ms           forward + backward of the whole model, the fused loss included, wall time.
// The embedding's weight is frozen (see main).
// Live bytes are glibc's in-use heap and mmapped blocks (mallinfo2), the allocator LibTorch's CPU tensors
// come from. Not a test; docs/reference/trainer.md has results.
//   bench_activations [--preset NAME] [--seq-lens 512,1024,2048] [--reps N]
#include "model/config.h"
#include "model/fused_loss.h"
#include "model/qwen2.h"
#include "util/blas.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

double liveBytes()
{
    const auto info = mallinfo2();
    return static_cast<double>(info.uordblks + info.hblkhd);
}

struct Sample {
    double heldMiB = 0, peakMiB = 0, ms = 0;
};

// The most bytes alive while `work` runs, read every 2 ms by another thread (and once after it).
template <typename Work> double peakWhile(Work&& work)
{
    std::atomic<bool> running{true};
    std::atomic<double> peak{liveBytes()};
    std::thread watcher([&] {
        while (running.load()) {
            const double now = liveBytes();
            if (now > peak.load())
                peak.store(now);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    });
    work();
    running.store(false);
    watcher.join();
    return std::max(peak.load(), liveBytes());
}

Sample measure(traindeck::model::Qwen2ForCausalLM& m, bool recompute, int64_t seqLen)
{
    m->zero_grad();
    m->model->setRecomputeLayers(recompute);
    const auto ids = torch::randint(0, m->config().vocab_size, {1, seqLen}, torch::kInt64);
    const int64_t predicted = seqLen - 1;
    const auto start = std::chrono::steady_clock::now();
    const double before = liveBytes();
    torch::Tensor h;
    const double forwardPeak = peakWhile([&] { h = m->model->forward(ids); });
    const double held = liveBytes() - before;
    // Qwen2ForCausalLMImpl::loss, cut at the last hidden state: the loss's own memory (its chunks, the
    // weight's gradient) is the same in both modes and is left out of the stack's numbers.
    torch::Tensor gradHidden;
    {
        const auto cut = h.detach().requires_grad_(true);
        auto loss =
            traindeck::model::fusedLinearCrossEntropy(cut.narrow(1, 0, predicted).reshape({predicted, -1}),
                                                      m->lmHeadWeight(), ids.narrow(1, 1, predicted).reshape({-1}));
        loss.backward();
        gradHidden = cut.grad();
    }
    const double backwardPeak = peakWhile([&] { h.backward(gradHidden); });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return {held / 1048576.0, (std::max(forwardPeak, backwardPeak) - before) / 1048576.0, ms};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int usage()
{
    std::fprintf(stderr, "usage: bench_activations [--preset NAME] [--seq-lens 512,1024,2048] [--reps N]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    traindeck::util::fixBlasCoreTypeOrReexec(argc, argv); // as the trainer: OpenBLAS's right kernels
    std::string preset = "qwen2-small", seqLens = "512,1024,2048";
    int reps = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            return usage();
        if (a == "--preset")
            preset = argv[++i];
        else if (a == "--seq-lens")
            seqLens = argv[++i];
        else if (a == "--reps")
            reps = std::atoi(argv[++i]);
        else
            return usage();
    }
    std::vector<int64_t> lengths;
    std::stringstream list(seqLens);
    for (std::string item; std::getline(list, item, ',');)
        lengths.push_back(std::atoll(item.c_str()));
    if (reps < 1 || lengths.empty() || std::any_of(lengths.begin(), lengths.end(), [](int64_t t) { return t < 2; }))
        return usage();

    torch::set_num_threads(1);
    torch::manual_seed(1);
    traindeck::model::Qwen2ForCausalLM m(traindeck::model::Qwen2Config::preset(preset));
    m->train();
    // The embedding's dense [vocab, hidden] gradient (148 MiB on qwen2-small), made at the very end of
    // backward, would be the stack's peak at every length and hide the layers': frozen here.
    m->model->embed_tokens->weight.set_requires_grad(false);
    measure(m, false, 16); // the gradients' buffers exist from here on, in every measurement
    std::printf("%s, batch 1, fp32, fused loss, 1 thread, %d interleaved repetitions: medians (range)\n\n",
                preset.c_str(), reps);
    std::printf("| seq | --recompute | activations MiB | peak activations MiB | fwd+bwd ms |\n|---|---|---|---|---|\n");
    for (const int64_t t : lengths) {
        std::vector<Sample> off, on;
        for (int r = 0; r < reps; ++r) {
            off.push_back(measure(m, false, t));
            on.push_back(measure(m, true, t));
        }
        auto cell = [](const std::vector<Sample>& s, double Sample::*field) {
            std::vector<double> v;
            for (const auto& x : s)
                v.push_back(x.*field);
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.0f (%.0f–%.0f)", median(v), *std::min_element(v.begin(), v.end()),
                          *std::max_element(v.begin(), v.end()));
            return std::string(buf);
        };
        for (const auto* mode : {"off", "layers"}) {
            const auto& s = std::strcmp(mode, "off") == 0 ? off : on;
            std::printf("| %lld | %s | %s | %s | %s |\n", static_cast<long long>(t), mode,
                        cell(s, &Sample::heldMiB).c_str(), cell(s, &Sample::peakMiB).c_str(),
                        cell(s, &Sample::ms).c_str());
        }
        std::vector<double> heldRatio, peakRatio, timeRatio;
        for (int r = 0; r < reps; ++r) {
            heldRatio.push_back(on[r].heldMiB / off[r].heldMiB);
            peakRatio.push_back(on[r].peakMiB / off[r].peakMiB);
            timeRatio.push_back(on[r].ms / off[r].ms);
        }
        std::printf("| %lld | layers / off | %.2f | %.2f | %.2f (%.2f–%.2f) |\n", static_cast<long long>(t),
                    median(heldRatio), median(peakRatio), median(timeRatio),
                    *std::min_element(timeRatio.begin(), timeRatio.end()),
                    *std::max_element(timeRatio.begin(), timeRatio.end()));
    }
    return 0;
}
