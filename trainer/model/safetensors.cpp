#include "model/safetensors.h"

#include "util/errors.h"
#include "util/fileio.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace traindeck::model {

torch::ScalarType dtypeToTorch(const std::string& d)
{
    if (d == "F32")
        return torch::kFloat32;
    if (d == "F16")
        return torch::kFloat16;
    if (d == "BF16")
        return torch::kBFloat16;
    if (d == "F64")
        return torch::kFloat64;
    if (d == "I64")
        return torch::kInt64;
    if (d == "I32")
        return torch::kInt32;
    if (d == "I16")
        return torch::kInt16;
    if (d == "I8")
        return torch::kInt8;
    if (d == "U8")
        return torch::kUInt8;
    if (d == "BOOL")
        return torch::kBool;
    throw InputError("unsupported safetensors dtype " + d);
}

std::string torchToDtype(torch::ScalarType t)
{
    switch (t) {
    case torch::kFloat32: return "F32";
    case torch::kFloat16: return "F16";
    case torch::kBFloat16: return "BF16";
    case torch::kFloat64: return "F64";
    case torch::kInt64: return "I64";
    case torch::kInt32: return "I32";
    case torch::kInt16: return "I16";
    case torch::kInt8: return "I8";
    case torch::kUInt8: return "U8";
    case torch::kBool: return "BOOL";
    default: throw RuntimeFailure(std::string("cannot store tensor type ") + c10::toString(t) + " in safetensors");
    }
}

std::shared_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path)
{
    std::shared_ptr<SafetensorsFile> f(new SafetensorsFile());
    f->self_ = f;
    f->path_ = path;
    auto fail = [&](const std::string& what) -> InputError { return InputError(path + ": " + what); };

    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        throw fail(std::string("cannot stat: ") + std::strerror(errno));
    }
    f->size_ = static_cast<size_t>(st.st_size);
    if (f->size_ < 8) {
        ::close(fd);
        throw fail("truncated: " + std::to_string(f->size_) + " bytes, shorter than the 8-byte header length");
    }
    void* m = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m == MAP_FAILED)
        throw fail(std::string("cannot map: ") + std::strerror(errno));
    f->map_ = static_cast<const uint8_t*>(m);

    SafetensorsHeader header = parseSafetensorsHeader(f->map_, f->size_, f->size_, path);
    f->dataStart_ = header.dataStart;
    f->tensors_ = std::move(header.tensors);
    f->metadata_ = std::move(header.metadata);
    for (size_t i = 0; i < f->tensors_.size(); ++i)
        f->index_[f->tensors_[i].name] = i;
    return f;
}

SafetensorsFile::~SafetensorsFile()
{
    if (map_)
        ::munmap(const_cast<uint8_t*>(map_), size_);
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const
{
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

torch::Tensor SafetensorsFile::view(const TensorInfo& info) const
{
    const auto type = dtypeToTorch(info.dtype);
    const uint8_t* p = map_ + dataStart_ + info.begin;
    const size_t elem = dtypeSize(info.dtype);
    auto options = torch::TensorOptions().dtype(type);
    if (reinterpret_cast<uintptr_t>(p) % elem == 0) {
        auto keepAlive = self_.lock();
        return torch::from_blob(
            const_cast<uint8_t*>(p), info.shape, [keepAlive](void*) {}, options);
    }
    auto copy = torch::empty(info.shape, options);
    if (info.end > info.begin) // an empty tensor has no storage: memcpy from/to null is undefined even for 0 bytes
        std::memcpy(copy.data_ptr(), p, info.end - info.begin);
    return copy;
}

torch::Tensor SafetensorsFile::view(const std::string& name) const
{
    const TensorInfo* info = find(name);
    if (!info)
        throw InputError(path_ + ": no tensor named \"" + name + "\"");
    return view(*info);
}

void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata)
{
    std::vector<std::pair<std::string, torch::Tensor>> sorted;
    sorted.reserve(tensors.size());
    for (const auto& [name, t] : tensors)
        sorted.emplace_back(name, t.detach().to(torch::kCPU).contiguous());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        header["__metadata__"] = nlohmann::ordered_json::object();
        for (const auto& [k, v] : metadata)
            header["__metadata__"][k] = v;
    }
    uint64_t offset = 0;
    for (const auto& [name, t] : sorted) {
        const uint64_t bytes = static_cast<uint64_t>(t.numel()) * t.element_size();
        header[name] = {{"dtype", torchToDtype(t.scalar_type())},
                        {"shape", t.sizes().vec()},
                        {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' '); // data section starts 8-byte aligned
    const uint64_t headerLen = text.size();

    util::AtomicFileWriter out(path);
    out.write(&headerLen, 8);
    out.write(text.data(), text.size());
    for (const auto& [name, t] : sorted)
        out.write(t.data_ptr(), static_cast<size_t>(t.numel()) * t.element_size());
    out.commit();
}

} // namespace traindeck::model
