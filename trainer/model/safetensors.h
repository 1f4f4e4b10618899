// safetensors reading (mmap, validated, zero-copy views) and writing in the layout transformers writes.
#pragma once

#include "model/safetensors_header.h"

// ATen's Tensor class only, not torch/torch.h: the suites that include this compile without LibTorch's
// precompiled header (docs/contributors/testing.md, "Compile time").
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace traindeck::model {

c10::ScalarType dtypeToTorch(const std::string& dtype); // throws InputError for unsupported
std::string torchToDtype(c10::ScalarType type);

class SafetensorsFile {
  public:
    // Maps and fully validates the file; throws InputError naming the file and the fault.
    static std::shared_ptr<SafetensorsFile> open(const std::string& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return path_; }
    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find(const std::string& name) const;
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

    // A read-only view of the tensor's bytes: zero-copy when the data is suitably aligned (the view keeps
    // the mapping alive), else an aligned copy. Do not write into it.
    at::Tensor view(const TensorInfo& info) const;
    at::Tensor view(const std::string& name) const;

  private:
    SafetensorsFile() = default;
    std::string path_;
    const uint8_t* map_ = nullptr;
    size_t size_ = 0;
    size_t dataStart_ = 0;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, size_t> index_;
    std::map<std::string, std::string> metadata_;
    std::weak_ptr<SafetensorsFile> self_;
};

// Writes tensors (contiguous CPU copies are made as needed) in name order with an 8-byte aligned
// header and {"format":"pt"} metadata, then fsyncs. Throws RuntimeFailure on I/O errors.
void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

} // namespace traindeck::model
