#include "model/recompute.h"

#include <ATen/autocast_mode.h>

#include <cstdint>

// LibTorch 2.4 replaced the per-backend autocast setters with device-type-generic ones (train/device.cpp).
#if (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)) &&                             \
    !defined(TRAINDECK_AUTOCAST_GENERIC)
#define TRAINDECK_AUTOCAST_GENERIC 1
#endif

namespace traindeck::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Autocast is thread-local and backward runs on the autograd engine's threads: the recomputation sets the
// state the forward ran under, and clears it (and the casts it cached) after.
struct AutocastState {
    bool cpu = false, cuda = false;
    at::ScalarType cpuDtype = at::kBFloat16, cudaDtype = at::kHalf;

    static AutocastState current()
    {
        AutocastState s;
#ifdef TRAINDECK_AUTOCAST_GENERIC
        s.cpu = at::autocast::is_autocast_enabled(at::kCPU);
        s.cuda = at::autocast::is_autocast_enabled(at::kCUDA);
        s.cpuDtype = at::autocast::get_autocast_dtype(at::kCPU);
        s.cudaDtype = at::autocast::get_autocast_dtype(at::kCUDA);
#else
        s.cpu = at::autocast::is_cpu_enabled();
        s.cuda = at::autocast::is_enabled();
        s.cpuDtype = at::autocast::get_autocast_cpu_dtype();
        s.cudaDtype = at::autocast::get_autocast_gpu_dtype();
#endif
        return s;
    }

    static void apply(const AutocastState& s)
    {
#ifdef TRAINDECK_AUTOCAST_GENERIC
        at::autocast::set_autocast_dtype(at::kCPU, s.cpuDtype);
        at::autocast::set_autocast_dtype(at::kCUDA, s.cudaDtype);
        at::autocast::set_autocast_enabled(at::kCPU, s.cpu);
        at::autocast::set_autocast_enabled(at::kCUDA, s.cuda);
#else
        at::autocast::set_autocast_cpu_dtype(s.cpuDtype);
        at::autocast::set_autocast_gpu_dtype(s.cudaDtype);
        at::autocast::set_cpu_enabled(s.cpu);
        at::autocast::set_enabled(s.cuda);
#endif
    }
};

class AutocastReplay {
  public:
    explicit AutocastReplay(const AutocastState& state)
        : before_(AutocastState::current()), on_(state.cpu || state.cuda)
    {
        AutocastState::apply(state);
    }
    ~AutocastReplay()
    {
        AutocastState::apply(before_);
        if (on_)
            at::autocast::clear_cache();
    }
    AutocastReplay(const AutocastReplay&) = delete;
    AutocastReplay& operator=(const AutocastReplay&) = delete;

  private:
    AutocastState before_;
    bool on_;
};

struct RecomputedLayerFunction : public torch::autograd::Function<RecomputedLayerFunction> {
    // params: the layer's parameters, only so that autograd routes their gradients; the layer uses its own.
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hidden, at::TensorList params,
                                 Qwen2DecoderLayerImpl* layer, const torch::Tensor& ropeCos,
                                 const torch::Tensor& ropeSin)
    {
        const auto autocast = AutocastState::current();
        ctx->saved_data["layer"] = reinterpret_cast<int64_t>(layer); // the model outlives its backward
        ctx->saved_data["params"] = static_cast<int64_t>(params.size());
        ctx->saved_data["cpu"] = autocast.cpu;
        ctx->saved_data["cuda"] = autocast.cuda;
        ctx->saved_data["cpu_dtype"] = static_cast<int64_t>(autocast.cpuDtype);
        ctx->saved_data["cuda_dtype"] = static_cast<int64_t>(autocast.cudaDtype);
        ctx->saved_data["rope_cos"] = ropeCos;
        ctx->saved_data["rope_sin"] = ropeSin;
        ctx->save_for_backward({hidden});
        // Autograd records nothing here (Function::apply turns gradients off): no activation is kept.
        return layer->forward(hidden, {ropeCos, ropeSin});
    }

    static variable_list backward(AutogradContext* ctx, variable_list gradOutputs)
    {
        auto* layer = reinterpret_cast<Qwen2DecoderLayerImpl*>(ctx->saved_data["layer"].toInt());
        AutocastState autocast;
        autocast.cpu = ctx->saved_data["cpu"].toBool();
        autocast.cuda = ctx->saved_data["cuda"].toBool();
        autocast.cpuDtype = static_cast<at::ScalarType>(ctx->saved_data["cpu_dtype"].toInt());
        autocast.cudaDtype = static_cast<at::ScalarType>(ctx->saved_data["cuda_dtype"].toInt());
        const RopeTables rope{ctx->saved_data["rope_cos"].toTensor(), ctx->saved_data["rope_sin"].toTensor()};
        const auto input = ctx->get_saved_variables()[0].detach().requires_grad_(true);

        variable_list inputs{input};
        for (const auto& p : layer->parameters())
            inputs.push_back(p);
        TORCH_CHECK(static_cast<int64_t>(inputs.size()) - 1 == ctx->saved_data["params"].toInt(),
                    "recomputation: the layer's parameters changed between forward and backward");
        torch::Tensor output;
        {
            torch::AutoGradMode gradients(true);
            AutocastReplay replay(autocast);
            output = layer->forward(input, rope);
        }
        // grad(), not backward(): the gradients come back here instead of accumulating into .grad, and the
        // outer backward hands them on to the parameters as to any other node's inputs.
        auto grads = torch::autograd::grad({output}, inputs, {gradOutputs[0]}, /*retain_graph=*/false,
                                           /*create_graph=*/false, /*allow_unused=*/true);
        grads.push_back(torch::Tensor()); // layer
        grads.push_back(torch::Tensor()); // rope cos
        grads.push_back(torch::Tensor()); // rope sin
        return grads;
    }
};

} // namespace

torch::Tensor recomputedLayer(Qwen2DecoderLayerImpl& layer, const torch::Tensor& hidden, const RopeTables& rope)
{
    if (!torch::GradMode::is_enabled())
        return layer.forward(hidden, rope);
    const auto params = layer.parameters();
    return RecomputedLayerFunction::apply(hidden, at::TensorList(params), &layer, rope.cos, rope.sin);
}

} // namespace traindeck::model
