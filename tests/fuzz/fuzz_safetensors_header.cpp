// A safetensors file's header (model.safetensors, optimizer.safetensors, checkpoints, downloaded models):
// bad input ends in InputError naming the file, nothing else; and a header that passes describes tensors
// that cover the data section exactly, each with the byte length its dtype and shape need.
#include "model/safetensors_header.h"
#include "util/errors.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    traindeck::model::SafetensorsHeader h;
    try {
        h = traindeck::model::parseSafetensorsHeader(data, size, size, "fuzz/model.safetensors");
    } catch (const traindeck::InputError& e) {
        if (std::string(e.what()).rfind("fuzz/model.safetensors: ", 0) != 0)
            std::abort(); // every error names the file
        return 0;
    }
    if (h.dataStart < 10 || h.dataStart > size)
        std::abort();
    std::vector<const traindeck::model::TensorInfo*> byOffset;
    for (const auto& t : h.tensors) {
        uint64_t numel = 1;
        for (int64_t d : t.shape) {
            if (d < 0)
                std::abort();
            numel *= static_cast<uint64_t>(d);
        }
        if (t.end < t.begin || t.end - t.begin != numel * traindeck::model::dtypeSize(t.dtype))
            std::abort();
        byOffset.push_back(&t);
    }
    std::sort(byOffset.begin(), byOffset.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
    uint64_t covered = 0;
    for (const auto* t : byOffset) {
        if (t->begin != covered)
            std::abort();
        covered = t->end;
    }
    if (covered != size - h.dataStart)
        std::abort();
    return 0;
}
