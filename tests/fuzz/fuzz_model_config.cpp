// A model's config.json: bad input ends in InputError (exit 2 in the trainer), nothing else.
#include "model/config.h"
#include "util/errors.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto json = nlohmann::ordered_json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded())
        return 0;
    try {
        (void)traindeck::model::Qwen2Config::fromJson(json, "fuzz/config.json");
    } catch (const traindeck::InputError&) {
    }
    return 0;
}
