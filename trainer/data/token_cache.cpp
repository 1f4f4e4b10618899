#include "data/token_cache.h"

#include "tokenizer/tokenizer.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace traindeck::data {

namespace {

constexpr int kFormatVersion = 1;

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex(uint64_t v)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

void* mapFile(const std::string& path, size_t& bytes)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw RuntimeFailure(path + ": cannot open token cache: " + std::strerror(errno));
    struct stat st {};
    ::fstat(fd, &st);
    bytes = static_cast<size_t>(st.st_size);
    void* m = bytes ? ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0) : nullptr;
    ::close(fd);
    if (m == MAP_FAILED)
        throw RuntimeFailure(path + ": cannot map token cache: " + std::strerror(errno));
    return m;
}

// Holds an exclusive flock so concurrent ranks on one node build the cache once.
class FileLock {
  public:
    explicit FileLock(const std::string& path)
    {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
            throw RuntimeFailure(path + ": cannot lock token cache: " + std::strerror(errno));
    }
    ~FileLock()
    {
        if (fd_ >= 0) {
            ::flock(fd_, LOCK_UN);
            ::close(fd_);
        }
    }

  private:
    int fd_ = -1;
};

} // namespace

// The cache is read through its offsets without further checks: a damaged or truncated cache (a full
// disk, a copy cut short, an edit) must fail here, naming the file, rather than read out of bounds.
void TokenCache::validate(TokenCache& cache, const std::string& dir)
{
    const std::string docsPath = dir + "/docs.bin", tokensPath = dir + "/tokens.bin";
    const std::string rebuild = "; delete the directory " + dir + " to rebuild the cache";
    if (cache.tokensBytes_ % sizeof(uint32_t) != 0)
        throw InputError(tokensPath + ": token cache is damaged (" + std::to_string(cache.tokensBytes_) +
                         " bytes is not a whole number of tokens)" + rebuild);
    if (cache.docsBytes_ < 2 * sizeof(uint64_t) || cache.docsBytes_ % sizeof(uint64_t) != 0)
        throw InputError(docsPath + ": token cache is damaged (" + std::to_string(cache.docsBytes_) +
                         " bytes is not a list of document offsets)" + rebuild);
    cache.numDocs_ = cache.docsBytes_ / sizeof(uint64_t) - 1;
    const uint64_t* docs = cache.docs_;
    if (docs[0] != 0)
        throw InputError(docsPath + ": token cache is damaged (the first document starts at " +
                         std::to_string(docs[0]) + ", not 0)" + rebuild);
    for (size_t i = 1; i <= cache.numDocs_; ++i) {
        // Every document holds at least its EOS, so offsets rise strictly.
        if (docs[i] <= docs[i - 1] || docs[i] > cache.numTokens_)
            throw InputError(docsPath + ": token cache is damaged (offset " + std::to_string(i) + " is " +
                             std::to_string(docs[i]) + " after " + std::to_string(docs[i - 1]) + ", with " +
                             std::to_string(cache.numTokens_) + " tokens in tokens.bin)" + rebuild);
    }
    if (docs[cache.numDocs_] != cache.numTokens_)
        throw InputError(docsPath + ": token cache is damaged (the documents end at token " +
                         std::to_string(docs[cache.numDocs_]) + " but tokens.bin holds " +
                         std::to_string(cache.numTokens_) + ")" + rebuild);
}

std::string TokenCache::defaultRoot()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string base = (xdg && *xdg) ? std::string(xdg) : std::string(home ? home : "/tmp") + "/.cache";
    return base + "/traindeck/tokens";
}

TokenCache::~TokenCache()
{
    if (tokensMap_)
        ::munmap(tokensMap_, tokensBytes_);
    if (docsMap_)
        ::munmap(docsMap_, docsBytes_);
}

std::shared_ptr<TokenCache> TokenCache::buildOrLoad(const TokenCacheOptions& options, const tok::Tokenizer* tokenizer)
{
    const auto sources = listSources(options.dataPath);
    std::string keyText = "v" + std::to_string(kFormatVersion) + "|field=" + options.textField +
                          "|tok=" + (tokenizer ? hex(tokenizer->fingerprint()) : std::string("bytes"));
    for (const auto& s : sources)
        keyText += "|" + s.path + ":" + std::to_string(s.size) + ":" + std::to_string(s.mtimeNs);
    const std::string root = options.cacheRoot.empty() ? defaultRoot() : options.cacheRoot;
    util::makeDirs(root);
    const std::string dir = (fs::path(root) / hex(fnv1a(keyText))).string();

    uint32_t eos = 256, pad = 256;
    if (tokenizer) {
        auto e = tokenizer->eosId();
        if (!e)
            throw InputError("the tokenizer defines no EOS token (needed to separate documents)");
        eos = static_cast<uint32_t>(*e);
        pad = static_cast<uint32_t>(tokenizer->padId().value_or(*e));
    }

    auto cache = std::shared_ptr<TokenCache>(new TokenCache());
    cache->dir_ = dir;
    cache->eos_ = eos;
    cache->pad_ = pad;
    {
        FileLock lock(dir + ".lock");
        if (!fs::exists(fs::path(dir) / "meta.json")) {
            const auto started = std::chrono::steady_clock::now();
            // Read every document, then tokenize them in parallel.
            std::vector<std::string> docs;
            uint64_t totalBytes = 0;
            for (const auto& s : sources)
                readDocuments(s, options.textField, [&](std::string&& text) {
                    totalBytes += text.size();
                    docs.push_back(std::move(text));
                });
            if (docs.empty())
                throw InputError(options.dataPath + ": the dataset contains no documents");
            std::vector<std::vector<int32_t>> ids;
            if (tokenizer) {
                std::vector<std::string_view> views(docs.begin(), docs.end());
                int lastPercent = -1;
                ids = tokenizer->encodeBatch(views, options.threads, false, [&](size_t done, size_t total) {
                    const int percent = total ? static_cast<int>(100.0 * done / total) : 100;
                    if (options.verbose && percent / 10 != lastPercent / 10) {
                        std::fprintf(stderr, "tokenizing %s: %d%% of %.1f MB\n", options.dataPath.c_str(), percent,
                                     total / 1e6);
                        lastPercent = percent;
                    }
                });
            } else {
                for (const auto& d : docs)
                    ids.emplace_back(reinterpret_cast<const uint8_t*>(d.data()),
                                     reinterpret_cast<const uint8_t*>(d.data()) + d.size());
            }
            const std::string tmp = dir + ".tmp." + std::to_string(::getpid());
            fs::remove_all(tmp);
            util::makeDirs(tmp);
            uint64_t count = 0;
            {
                util::AtomicFileWriter tokensOut(tmp + "/tokens.bin");
                util::AtomicFileWriter docsOut(tmp + "/docs.bin");
                std::vector<uint32_t> buffer;
                for (const auto& doc : ids) {
                    docsOut.write(&count, sizeof count);
                    buffer.assign(doc.begin(), doc.end());
                    buffer.push_back(eos);
                    tokensOut.write(buffer.data(), buffer.size() * sizeof(uint32_t));
                    count += buffer.size();
                }
                docsOut.write(&count, sizeof count);
                tokensOut.commit();
                docsOut.commit();
            }
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            nlohmann::json meta = {{"version", kFormatVersion},
                                   {"key", keyText},
                                   {"documents", docs.size()},
                                   {"tokens", count},
                                   {"bytes", totalBytes},
                                   {"eos", eos},
                                   {"pad", pad},
                                   {"seconds", seconds}};
            util::writeFileAtomic(tmp + "/meta.json", meta.dump(2) + "\n");
            fs::remove_all(dir);
            fs::rename(tmp, dir);
            util::fsyncDirectory(root);
            cache->builtNow_ = true;
            if (options.verbose)
                std::fprintf(stderr, "token cache: %zu documents, %llu tokens in %.1f s -> %s\n", docs.size(),
                             static_cast<unsigned long long>(count), seconds, dir.c_str());
        }
    }
    cache->tokensMap_ = mapFile(dir + "/tokens.bin", cache->tokensBytes_);
    cache->docsMap_ = mapFile(dir + "/docs.bin", cache->docsBytes_);
    cache->tokens_ = static_cast<const uint32_t*>(cache->tokensMap_);
    cache->docs_ = static_cast<const uint64_t*>(cache->docsMap_);
    cache->numTokens_ = cache->tokensBytes_ / sizeof(uint32_t);
    validate(*cache, dir);
    return cache;
}

} // namespace traindeck::data
