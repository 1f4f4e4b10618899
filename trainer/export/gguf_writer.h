// GGUF v3 files (the llama.cpp model format): a writer that streams tensor data, and a small reader used
// to check what was written.
//
// Layout (all little-endian): "GGUF", u32 version = 3, u64 tensor count, u64 metadata count, the metadata
// key/value pairs, one info record per tensor (name, n_dims, dims innermost-first, ggml type, offset
// relative to the data section), zero padding up to the alignment, then each tensor's bytes, each
// starting at a multiple of the alignment (general.alignment, 32 by default).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace traindeck::exporter {

// Metadata value types of the GGUF format.
enum class GgufValueType : uint32_t {
    Uint8 = 0,
    Int8 = 1,
    Uint16 = 2,
    Int16 = 3,
    Uint32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    Uint64 = 10,
    Int64 = 11,
    Float64 = 12,
};

// The ggml tensor types this exporter writes.
enum class GgmlType : uint32_t { F32 = 0, F16 = 1, BF16 = 30 };

size_t ggmlTypeSize(GgmlType type);      // bytes per element
const char* ggmlTypeName(GgmlType type); // "f32", "f16", "bf16"

// llama.cpp's general.file_type values (enum llama_ftype) for the unquantised types.
enum class GgufFileType : uint32_t { AllF32 = 0, MostlyF16 = 1, MostlyBF16 = 32 };

constexpr uint32_t kGgufVersion = 3;
constexpr uint64_t kGgufDefaultAlignment = 32;

class GgufWriter {
  public:
    // `sink` receives the file's bytes in order (the writer buffers them into large writes).
    using Sink = std::function<void(const void* data, size_t bytes)>;
    explicit GgufWriter(Sink sink, uint64_t alignment = kGgufDefaultAlignment);
    ~GgufWriter();
    GgufWriter(const GgufWriter&) = delete;
    GgufWriter& operator=(const GgufWriter&) = delete;

    // Metadata, in the order written. Keys must be unique (throws std::logic_error otherwise).
    void addString(const std::string& key, const std::string& value);
    void addUint32(const std::string& key, uint32_t value);
    void addInt32(const std::string& key, int32_t value);
    void addUint64(const std::string& key, uint64_t value);
    void addFloat32(const std::string& key, float value);
    void addBool(const std::string& key, bool value);
    void addStringArray(const std::string& key, const std::vector<std::string>& values);
    void addInt32Array(const std::string& key, const std::vector<int32_t>& values);

    // Declares a tensor; `ne` is in ggml order (innermost dimension first: a PyTorch [rows, cols] weight
    // is {cols, rows}). Returns its index. All tensors must be declared before writeHeader().
    size_t addTensor(const std::string& name, const std::vector<uint64_t>& ne, GgmlType type);

    uint64_t tensorBytes(size_t index) const;
    // Size of the whole file once every tensor is written.
    uint64_t totalBytes() const;
    uint64_t headerBytes() const; // metadata + tensor infos + padding (the data section's offset)

    // Writes the header. Then, for every tensor in declaration order, writeTensorData() its bytes (in one or
    // more pieces), and finally finish(). Mismatched sizes or order throw std::logic_error.
    void writeHeader();
    void writeTensorData(const void* data, size_t bytes);
    void finish();

  private:
    struct Tensor {
        std::string name;
        std::vector<uint64_t> ne;
        GgmlType type;
        uint64_t offset = 0; // relative to the data section
        uint64_t bytes = 0;
    };
    void emit(const void* data, size_t bytes);
    void flush();
    void beginKey(const std::string& key, GgufValueType type);
    void padTo(uint64_t alignment);

    Sink sink_;
    uint64_t alignment_;
    std::string kv_; // serialised metadata pairs
    uint64_t kvCount_ = 0;
    std::vector<std::string> keys_;
    std::vector<Tensor> tensors_;
    uint64_t dataBytes_ = 0; // data section size (tensors with padding)
    std::string buffer_;
    uint64_t written_ = 0; // bytes emitted so far
    uint64_t headerSize_ = 0;
    bool headerWritten_ = false;
    size_t current_ = 0; // tensor being written
    uint64_t currentDone_ = 0;
    bool finished_ = false;
};

// A parsed GGUF header (metadata and tensor infos; no tensor data), for checks and tests.
struct GgufInfo {
    using Value = std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<std::string>,
                               std::vector<int64_t>, std::vector<double>>;
    struct TensorInfo {
        std::string name;
        std::vector<uint64_t> ne;
        uint32_t type = 0;
        uint64_t offset = 0; // relative to dataOffset
    };
    uint32_t version = 0;
    std::map<std::string, Value> metadata;
    std::map<std::string, GgufValueType> metadataTypes; // declared type (element type for arrays)
    std::vector<std::string> keyOrder;
    std::vector<TensorInfo> tensors;
    uint64_t alignment = kGgufDefaultAlignment;
    uint64_t dataOffset = 0; // absolute offset of the data section
    uint64_t fileSize = 0;

    // Reads and validates the header of `path` (magic, version, bounds, alignment of every tensor, tensors
    // inside the file). Throws InputError naming the file and the fault.
    static GgufInfo read(const std::string& path);
};

} // namespace traindeck::exporter
