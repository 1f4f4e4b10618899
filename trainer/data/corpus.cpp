#include "data/corpus.h"

#include "util/errors.h"
#include "util/fileio.h"

#include <nlohmann/json.hpp>
#include <utf8proc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace traindeck::data {

static SourceFile describe(const fs::path& p)
{
    SourceFile s;
    s.path = fs::absolute(p).lexically_normal().string();
    s.size = fs::file_size(p);
    s.mtimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(fs::last_write_time(p).time_since_epoch()).count();
    const auto ext = p.extension().string();
    s.jsonl = ext == ".jsonl" || ext == ".json" || ext == ".ndjson";
    return s;
}

std::vector<SourceFile> listSources(const std::string& path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError(path + ": data path does not exist");
    std::vector<SourceFile> out;
    if (fs::is_regular_file(path)) {
        out.push_back(describe(path));
    } else {
        for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied);
             it != fs::recursive_directory_iterator(); ++it) {
            if (!it->is_regular_file())
                continue;
            const auto ext = it->path().extension().string();
            if (ext == ".jsonl" || ext == ".ndjson" || ext == ".txt")
                out.push_back(describe(it->path()));
        }
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    }
    if (out.empty())
        throw InputError(path + ": no input files (expected .jsonl, .ndjson or .txt)");
    return out;
}

int64_t findInvalidUtf8(const std::string& text)
{
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
    size_t i = 0;
    const size_t n = text.size();
    while (i < n) {
        if (p[i] < 0x80) { // ASCII fast path
            ++i;
            continue;
        }
        utf8proc_int32_t cp;
        const auto len = utf8proc_iterate(p + i, static_cast<utf8proc_ssize_t>(n - i), &cp);
        if (len < 0)
            return static_cast<int64_t>(i);
        i += static_cast<size_t>(len);
    }
    return -1;
}

void readDocuments(const SourceFile& source, const std::string& textField,
                   const std::function<void(std::string&&)>& sink)
{
    if (!source.jsonl) {
        std::string text = util::readFile(source.path);
        const int64_t bad = findInvalidUtf8(text);
        if (bad >= 0) {
            const auto line = 1 + std::count(text.begin(), text.begin() + bad, '\n');
            throw InputError(source.path + ":" + std::to_string(line) + ": invalid UTF-8 at byte offset " +
                             std::to_string(bad));
        }
        if (!text.empty())
            sink(std::move(text));
        return;
    }
    std::ifstream in(source.path, std::ios::binary);
    if (!in)
        throw InputError(source.path + ": cannot open");
    std::string line;
    int64_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        const std::string where = source.path + ":" + std::to_string(lineNo) + ": ";
        const int64_t bad = findInvalidUtf8(line);
        if (bad >= 0)
            throw InputError(where + "invalid UTF-8 at column " + std::to_string(bad + 1));
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
            throw InputError(where + "invalid JSON: " + e.what());
        }
        if (!j.is_object())
            throw InputError(where + "expected a JSON object per line");
        auto it = j.find(textField);
        if (it == j.end())
            throw InputError(where + "no \"" + textField + "\" field (set the text field with --text-field)");
        if (!it->is_string())
            throw InputError(where + "field \"" + textField + "\" is not a string");
        std::string text = it->get<std::string>();
        if (!text.empty())
            sink(std::move(text));
    }
}

} // namespace traindeck::data
