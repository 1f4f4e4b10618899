// The safetensors header, parsed and validated without LibTorch: what a file claims (names, dtypes,
// shapes, byte ranges, metadata) checked against its size before anything is read or mapped as a tensor.
// Kept apart from safetensors.cpp so the fuzzer (clang, which cannot compile LibTorch 1.13's headers in
// C++20) reaches every check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace traindeck::model {

struct TensorInfo {
    std::string name;
    std::string dtype; // safetensors dtype string: F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0; // byte offsets relative to the data section
};

// Bytes per element for a safetensors dtype string, 0 when unknown.
size_t dtypeSize(const std::string& dtype);

struct SafetensorsHeader {
    uint64_t dataStart = 0;          // 8 + the header's length: where the data section begins
    std::vector<TensorInfo> tensors; // in the header's order
    std::map<std::string, std::string> metadata;
};

// `bytes` holds the first `available` bytes of a file of `fileSize` bytes (at least the 8-byte length and
// the header it announces, when the file is whole). Throws InputError "<path>: <fault>" for anything
// but a header whose tensors cover the data section exactly, each with the byte length its dtype and
// shape need.
SafetensorsHeader parseSafetensorsHeader(const uint8_t* bytes, size_t available, uint64_t fileSize,
                                         const std::string& path);

} // namespace traindeck::model
