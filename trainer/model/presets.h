// Model presets compiled in from resources/models/*.json (generated presets.cpp).
#pragma once

#include <span>

namespace traindeck::model {

struct PresetSource {
    const char* name;
    const char* json;
};

std::span<const PresetSource> builtinPresets();

} // namespace traindeck::model
