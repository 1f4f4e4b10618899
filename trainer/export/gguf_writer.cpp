#include "export/gguf_writer.h"

#include "util/errors.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <stdexcept>

static_assert(std::endian::native == std::endian::little, "GGUF is written little-endian; add byte swapping");

namespace traindeck::exporter {

namespace {

constexpr size_t kBufferBytes = size_t(8) << 20;

template <typename T> void appendPod(std::string& out, T value)
{
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void appendString(std::string& out, const std::string& s)
{
    appendPod<uint64_t>(out, s.size());
    out.append(s);
}

uint64_t padded(uint64_t n, uint64_t alignment)
{
    return (n + alignment - 1) / alignment * alignment;
}

} // namespace

size_t ggmlTypeSize(GgmlType type)
{
    switch (type) {
    case GgmlType::F32: return 4;
    case GgmlType::F16: return 2;
    case GgmlType::BF16: return 2;
    }
    throw std::logic_error("unknown ggml type");
}

const char* ggmlTypeName(GgmlType type)
{
    switch (type) {
    case GgmlType::F32: return "f32";
    case GgmlType::F16: return "f16";
    case GgmlType::BF16: return "bf16";
    }
    return "?";
}

GgufWriter::GgufWriter(Sink sink, uint64_t alignment) : sink_(std::move(sink)), alignment_(alignment)
{
    if (alignment_ == 0 || (alignment_ & (alignment_ - 1)) != 0)
        throw std::logic_error("GGUF alignment must be a power of two");
    if (alignment_ != kGgufDefaultAlignment)
        addUint32("general.alignment", static_cast<uint32_t>(alignment_));
}

GgufWriter::~GgufWriter() = default;

void GgufWriter::beginKey(const std::string& key, GgufValueType type)
{
    if (headerWritten_)
        throw std::logic_error("GGUF metadata added after the header was written: " + key);
    for (const auto& k : keys_)
        if (k == key)
            throw std::logic_error("duplicate GGUF metadata key " + key);
    keys_.push_back(key);
    appendString(kv_, key);
    appendPod<uint32_t>(kv_, static_cast<uint32_t>(type));
    ++kvCount_;
}

void GgufWriter::addString(const std::string& key, const std::string& value)
{
    beginKey(key, GgufValueType::String);
    appendString(kv_, value);
}

void GgufWriter::addUint32(const std::string& key, uint32_t value)
{
    beginKey(key, GgufValueType::Uint32);
    appendPod(kv_, value);
}

void GgufWriter::addInt32(const std::string& key, int32_t value)
{
    beginKey(key, GgufValueType::Int32);
    appendPod(kv_, value);
}

void GgufWriter::addUint64(const std::string& key, uint64_t value)
{
    beginKey(key, GgufValueType::Uint64);
    appendPod(kv_, value);
}

void GgufWriter::addFloat32(const std::string& key, float value)
{
    beginKey(key, GgufValueType::Float32);
    appendPod(kv_, value);
}

void GgufWriter::addBool(const std::string& key, bool value)
{
    beginKey(key, GgufValueType::Bool);
    appendPod<uint8_t>(kv_, value ? 1 : 0);
}

void GgufWriter::addStringArray(const std::string& key, const std::vector<std::string>& values)
{
    beginKey(key, GgufValueType::Array);
    appendPod<uint32_t>(kv_, static_cast<uint32_t>(GgufValueType::String));
    appendPod<uint64_t>(kv_, values.size());
    for (const auto& v : values)
        appendString(kv_, v);
}

void GgufWriter::addInt32Array(const std::string& key, const std::vector<int32_t>& values)
{
    beginKey(key, GgufValueType::Array);
    appendPod<uint32_t>(kv_, static_cast<uint32_t>(GgufValueType::Int32));
    appendPod<uint64_t>(kv_, values.size());
    for (int32_t v : values)
        appendPod(kv_, v);
}

size_t GgufWriter::addTensor(const std::string& name, const std::vector<uint64_t>& ne, GgmlType type)
{
    if (headerWritten_)
        throw std::logic_error("GGUF tensor added after the header was written: " + name);
    if (ne.empty() || ne.size() > 4)
        throw std::logic_error("GGUF tensor " + name + " must have 1 to 4 dimensions");
    for (const auto& t : tensors_)
        if (t.name == name)
            throw std::logic_error("duplicate GGUF tensor " + name);
    Tensor t{name, ne, type, dataBytes_, ggmlTypeSize(type)};
    for (uint64_t d : ne)
        t.bytes *= d;
    dataBytes_ += padded(t.bytes, alignment_);
    tensors_.push_back(std::move(t));
    return tensors_.size() - 1;
}

uint64_t GgufWriter::tensorBytes(size_t index) const
{
    return tensors_.at(index).bytes;
}

uint64_t GgufWriter::headerBytes() const
{
    if (headerWritten_)
        return headerSize_;
    uint64_t n = 4 + 4 + 8 + 8 + kv_.size();
    for (const auto& t : tensors_)
        n += 8 + t.name.size() + 4 + 8 * t.ne.size() + 4 + 8;
    return padded(n, alignment_);
}

uint64_t GgufWriter::totalBytes() const
{
    return headerBytes() + dataBytes_;
}

void GgufWriter::emit(const void* data, size_t bytes)
{
    written_ += bytes;
    if (bytes >= kBufferBytes) {
        flush();
        sink_(data, bytes);
        return;
    }
    buffer_.append(static_cast<const char*>(data), bytes);
    if (buffer_.size() >= kBufferBytes)
        flush();
}

void GgufWriter::flush()
{
    if (!buffer_.empty()) {
        sink_(buffer_.data(), buffer_.size());
        buffer_.clear();
    }
}

void GgufWriter::padTo(uint64_t alignment)
{
    static const char zeros[256] = {};
    uint64_t n = padded(written_, alignment) - written_;
    while (n > 0) {
        const size_t k = static_cast<size_t>(std::min<uint64_t>(n, sizeof zeros));
        emit(zeros, k);
        n -= k;
    }
}

void GgufWriter::writeHeader()
{
    if (headerWritten_)
        throw std::logic_error("GGUF header written twice");
    std::string h;
    h.append("GGUF", 4);
    appendPod<uint32_t>(h, kGgufVersion);
    appendPod<uint64_t>(h, tensors_.size());
    appendPod<uint64_t>(h, kvCount_);
    h += kv_;
    for (const auto& t : tensors_) {
        appendString(h, t.name);
        appendPod<uint32_t>(h, static_cast<uint32_t>(t.ne.size()));
        for (uint64_t d : t.ne)
            appendPod<uint64_t>(h, d);
        appendPod<uint32_t>(h, static_cast<uint32_t>(t.type));
        appendPod<uint64_t>(h, t.offset);
    }
    emit(h.data(), h.size());
    padTo(alignment_);
    if (written_ != headerBytes())
        throw std::logic_error("GGUF header size mismatch");
    headerSize_ = written_;
    headerWritten_ = true;
    current_ = 0;
    currentDone_ = 0;
    std::string().swap(kv_);
}

void GgufWriter::writeTensorData(const void* data, size_t bytes)
{
    if (!headerWritten_ || finished_)
        throw std::logic_error("GGUF tensor data written outside writeHeader()..finish()");
    while (current_ < tensors_.size() && tensors_[current_].bytes == currentDone_ && bytes > 0) {
        padTo(alignment_);
        ++current_;
        currentDone_ = 0;
    }
    if (current_ >= tensors_.size())
        throw std::logic_error("GGUF: more tensor data than declared");
    const Tensor& t = tensors_[current_];
    if (currentDone_ + bytes > t.bytes)
        throw std::logic_error("GGUF: tensor " + t.name + " given more bytes than its shape holds");
    if (currentDone_ == 0 && written_ != headerBytes() + t.offset)
        throw std::logic_error("GGUF: tensor " + t.name + " starts at the wrong offset");
    emit(data, bytes);
    currentDone_ += bytes;
}

void GgufWriter::finish()
{
    if (!headerWritten_ || finished_)
        throw std::logic_error("GGUF finish() called out of order");
    if (!tensors_.empty()) {
        if (current_ != tensors_.size() - 1 || currentDone_ != tensors_.back().bytes)
            throw std::logic_error("GGUF: not every tensor's data was written (stopped at " +
                                   (current_ < tensors_.size() ? tensors_[current_].name : std::string("?")) + ")");
        padTo(alignment_);
    }
    flush();
    if (written_ != totalBytes())
        throw std::logic_error("GGUF: file size mismatch");
    finished_ = true;
}

// ---- reader ----

namespace {

class Cursor {
  public:
    Cursor(std::ifstream& in, std::string path, uint64_t size) : in_(in), path_(std::move(path)), size_(size) {}

    template <typename T> T pod(const char* what)
    {
        need(sizeof(T), what);
        T v;
        in_.read(reinterpret_cast<char*>(&v), sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string str(const char* what)
    {
        const uint64_t n = pod<uint64_t>(what);
        need(n, what);
        std::string s(n, '\0');
        in_.read(s.data(), static_cast<std::streamsize>(n));
        pos_ += n;
        return s;
    }
    void need(uint64_t n, const char* what)
    {
        if (n > size_ - pos_)
            fail(std::string("truncated while reading ") + what);
    }
    [[noreturn]] void fail(const std::string& msg) const
    {
        throw InputError(path_ + ": not a valid GGUF file: " + msg + " (at byte " + std::to_string(pos_) + ")");
    }
    uint64_t pos() const { return pos_; }

  private:
    std::ifstream& in_;
    std::string path_;
    uint64_t size_;
    uint64_t pos_ = 0;
};

GgufInfo::Value readScalar(Cursor& c, GgufValueType type)
{
    switch (type) {
    case GgufValueType::Uint8: return uint64_t(c.pod<uint8_t>("u8"));
    case GgufValueType::Int8: return int64_t(c.pod<int8_t>("i8"));
    case GgufValueType::Uint16: return uint64_t(c.pod<uint16_t>("u16"));
    case GgufValueType::Int16: return int64_t(c.pod<int16_t>("i16"));
    case GgufValueType::Uint32: return uint64_t(c.pod<uint32_t>("u32"));
    case GgufValueType::Int32: return int64_t(c.pod<int32_t>("i32"));
    case GgufValueType::Uint64: return c.pod<uint64_t>("u64");
    case GgufValueType::Int64: return c.pod<int64_t>("i64");
    case GgufValueType::Float32: return double(c.pod<float>("f32"));
    case GgufValueType::Float64: return c.pod<double>("f64");
    case GgufValueType::Bool: {
        const uint8_t b = c.pod<uint8_t>("bool");
        if (b > 1)
            c.fail("bool value " + std::to_string(b));
        return b == 1;
    }
    case GgufValueType::String: return c.str("string");
    default: c.fail("unexpected value type " + std::to_string(static_cast<uint32_t>(type)));
    }
}

} // namespace

GgufInfo GgufInfo::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw InputError(path + ": cannot open");
    GgufInfo info;
    info.fileSize = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    Cursor h(in, path, info.fileSize);
    if (info.fileSize < 4 || h.pod<uint32_t>("magic") != 0x46554747u) // "GGUF" read as little-endian u32
        throw InputError(path + ": not a GGUF file (bad magic)");
    info.version = h.pod<uint32_t>("version");
    if (info.version != 3)
        h.fail("version " + std::to_string(info.version) + " (expected 3)");
    const uint64_t nTensors = h.pod<uint64_t>("tensor count");
    const uint64_t nKv = h.pod<uint64_t>("metadata count");
    if (nTensors > (1u << 20) || nKv > (1u << 20))
        h.fail("implausible tensor or metadata count");
    for (uint64_t i = 0; i < nKv; ++i) {
        const std::string key = h.str("metadata key");
        const auto type = static_cast<GgufValueType>(h.pod<uint32_t>("value type"));
        if (info.metadata.count(key))
            h.fail("duplicate metadata key " + key);
        info.keyOrder.push_back(key);
        if (type == GgufValueType::Array) {
            const auto elem = static_cast<GgufValueType>(h.pod<uint32_t>("array type"));
            const uint64_t n = h.pod<uint64_t>("array length");
            info.metadataTypes[key] = elem;
            if (elem == GgufValueType::String) {
                std::vector<std::string> v;
                v.reserve(static_cast<size_t>(std::min<uint64_t>(n, 1u << 20)));
                for (uint64_t j = 0; j < n; ++j)
                    v.push_back(h.str("string array element"));
                info.metadata[key] = std::move(v);
            } else if (elem == GgufValueType::Float32 || elem == GgufValueType::Float64) {
                std::vector<double> v;
                for (uint64_t j = 0; j < n; ++j)
                    v.push_back(std::get<double>(readScalar(h, elem)));
                info.metadata[key] = std::move(v);
            } else {
                std::vector<int64_t> v;
                for (uint64_t j = 0; j < n; ++j) {
                    auto x = readScalar(h, elem);
                    if (auto* u = std::get_if<uint64_t>(&x))
                        v.push_back(static_cast<int64_t>(*u));
                    else if (auto* s = std::get_if<int64_t>(&x))
                        v.push_back(*s);
                    else if (auto* b = std::get_if<bool>(&x))
                        v.push_back(*b);
                    else
                        h.fail("nested arrays are not supported");
                }
                info.metadata[key] = std::move(v);
            }
        } else {
            info.metadataTypes[key] = type;
            info.metadata[key] = readScalar(h, type);
        }
    }
    if (auto it = info.metadata.find("general.alignment"); it != info.metadata.end()) {
        const auto* a = std::get_if<uint64_t>(&it->second);
        if (!a || *a == 0 || (*a & (*a - 1)) != 0)
            h.fail("general.alignment must be a power of two");
        info.alignment = *a;
    }
    for (uint64_t i = 0; i < nTensors; ++i) {
        TensorInfo t;
        t.name = h.str("tensor name");
        const uint32_t nd = h.pod<uint32_t>("tensor n_dims");
        if (nd == 0 || nd > 4)
            h.fail("tensor " + t.name + " has " + std::to_string(nd) + " dimensions");
        for (uint32_t d = 0; d < nd; ++d)
            t.ne.push_back(h.pod<uint64_t>("tensor dimension"));
        t.type = h.pod<uint32_t>("tensor type");
        t.offset = h.pod<uint64_t>("tensor offset");
        info.tensors.push_back(std::move(t));
    }
    info.dataOffset = padded(h.pos(), info.alignment);
    uint64_t expectedOffset = 0;
    for (const auto& t : info.tensors) {
        uint64_t bytes;
        switch (t.type) {
        case 0: bytes = 4; break;
        case 1:
        case 30: bytes = 2; break;
        default:
            throw InputError(path + ": tensor " + t.name + " has ggml type " + std::to_string(t.type) +
                             ", which this reader does not size");
        }
        for (uint64_t d : t.ne)
            bytes *= d;
        if (t.offset != expectedOffset)
            throw InputError(path + ": tensor " + t.name + " is at offset " + std::to_string(t.offset) + ", expected " +
                             std::to_string(expectedOffset));
        if (t.offset % info.alignment != 0)
            throw InputError(path + ": tensor " + t.name + " is not aligned");
        if (info.dataOffset + t.offset + bytes > info.fileSize)
            throw InputError(path + ": tensor " + t.name + " extends past the end of the file");
        expectedOffset += padded(bytes, info.alignment);
    }
    return info;
}

} // namespace traindeck::exporter
