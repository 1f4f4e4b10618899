#include "model/safetensors_header.h"

#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace traindeck::model {

namespace {
// A header larger than this is certainly corrupt (real ones are a few MB at most).
constexpr uint64_t kMaxHeaderBytes = 100ull * 1024 * 1024;
} // namespace

size_t dtypeSize(const std::string& d)
{
    if (d == "F64" || d == "I64" || d == "U64")
        return 8;
    if (d == "F32" || d == "I32" || d == "U32")
        return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16")
        return 2;
    if (d == "I8" || d == "U8" || d == "BOOL")
        return 1;
    return 0;
}

SafetensorsHeader parseSafetensorsHeader(const uint8_t* bytes, size_t available, uint64_t fileSize,
                                         const std::string& path)
{
    auto fail = [&](const std::string& what) -> InputError { return InputError(path + ": " + what); };
    if (fileSize < 8 || available < 8)
        throw fail("truncated: " + std::to_string(fileSize) + " bytes, shorter than the 8-byte header length");
    uint64_t headerLen = 0;
    std::memcpy(&headerLen, bytes, 8); // little-endian on every platform we build for
    if (headerLen > kMaxHeaderBytes || headerLen > fileSize - 8)
        throw fail("header length " + std::to_string(headerLen) + " exceeds the file size " + std::to_string(fileSize) +
                   " (truncated or not a safetensors file)");
    if (8 + headerLen > available)
        throw fail("header of " + std::to_string(headerLen) + " bytes is cut off after " +
                   std::to_string(available - 8));
    if (headerLen < 2 || bytes[8] != '{')
        throw fail("header is not a JSON object");
    SafetensorsHeader out;
    out.dataStart = 8 + headerLen;
    const uint64_t dataLen = fileSize - out.dataStart;

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(reinterpret_cast<const char*>(bytes + 8),
                                       reinterpret_cast<const char*>(bytes + 8 + headerLen));
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
        throw fail(std::string("header is not valid JSON: ") + e.what());
    }
    if (!header.is_object())
        throw fail("header is not a JSON object");

    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object())
                throw fail("__metadata__ is not an object");
            for (auto m2 = it->begin(); m2 != it->end(); ++m2) {
                if (!m2->is_string())
                    throw fail("__metadata__ value for \"" + m2.key() + "\" is not a string");
                out.metadata[m2.key()] = m2->get<std::string>();
            }
            continue;
        }
        const std::string& name = it.key();
        const auto& e = *it;
        auto bad = [&](const std::string& what) { return fail("tensor \"" + name + "\": " + what); };
        if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
            throw bad("entry needs dtype, shape and data_offsets");
        TensorInfo info;
        info.name = name;
        if (!e["dtype"].is_string())
            throw bad("dtype is not a string");
        info.dtype = e["dtype"].get<std::string>();
        const size_t elem = dtypeSize(info.dtype);
        if (elem == 0)
            throw bad("unknown dtype \"" + info.dtype + "\"");
        if (!e["shape"].is_array())
            throw bad("shape is not an array");
        uint64_t numel = 1;
        for (const auto& d : e["shape"]) {
            if (!d.is_number_unsigned())
                throw bad("shape has a non-integer or negative dimension");
            const uint64_t dim = d.get<uint64_t>();
            if (dim != 0 && numel > (UINT64_MAX / 8) / dim)
                throw bad("shape overflows");
            numel *= dim;
            info.shape.push_back(static_cast<int64_t>(dim));
        }
        const auto& off = e["data_offsets"];
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
            throw bad("data_offsets must be two non-negative integers");
        info.begin = off[0].get<uint64_t>();
        info.end = off[1].get<uint64_t>();
        if (info.begin > info.end)
            throw bad("data_offsets begin > end");
        if (info.end > dataLen)
            throw bad("data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) +
                      ") lie beyond the data section of " + std::to_string(dataLen) + " bytes (truncated file?)");
        if (info.end - info.begin != numel * elem)
            throw bad("byte length " + std::to_string(info.end - info.begin) + " does not match dtype " + info.dtype +
                      " and shape (" + std::to_string(numel * elem) + " bytes expected)");
        out.tensors.push_back(std::move(info));
    }
    // The data section must be covered exactly, without holes or overlaps.
    std::vector<const TensorInfo*> byOffset;
    for (const auto& t : out.tensors)
        byOffset.push_back(&t);
    std::sort(byOffset.begin(), byOffset.end(),
              [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
    uint64_t expected = 0;
    for (const auto* t : byOffset) {
        if (t->begin != expected)
            throw fail("tensor \"" + t->name + "\" starts at " + std::to_string(t->begin) + ", expected " +
                       std::to_string(expected) + " (offsets overlap or leave a hole)");
        expected = t->end;
    }
    if (expected != dataLen)
        throw fail("data section has " + std::to_string(dataLen) + " bytes but the tensors cover " +
                   std::to_string(expected));
    return out;
}

} // namespace traindeck::model
