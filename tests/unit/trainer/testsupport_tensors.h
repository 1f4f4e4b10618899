// The part of testsupport.h that needs LibTorch: suites that only run the trainer as a process include
// testsupport.h alone and compile without LibTorch's headers (tests/unit/trainer/CMakeLists.txt, NO_TORCH).
#pragma once

#include "testsupport.h"

// ATen's Tensor class only: the suites that include this compile without LibTorch's precompiled header.
#include <ATen/core/Tensor.h>

#include <map>
#include <string>

namespace testsupport {

// A checkpoint's parameters by name (its model.safetensors, copied).
std::map<std::string, at::Tensor> checkpointWeights(const QString& checkpointDir);

} // namespace testsupport
