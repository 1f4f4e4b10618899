// Training text inputs: JSON Lines (one document per line, text field configurable) and plain text
// files (one document per file), given as a file or a directory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace traindeck::data {

struct SourceFile {
    std::string path;
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    bool jsonl = false;
};

// Lists input files: the file itself, or every *.jsonl / *.txt under a directory (sorted, recursive).
// Throws InputError when the path does not exist or holds no inputs.
std::vector<SourceFile> listSources(const std::string& path);

// Index of the first invalid UTF-8 byte in `text`, or -1 when valid.
int64_t findInvalidUtf8(const std::string& text);

// Reads the documents of one file and hands each to `sink`. Throws InputError naming file:line for
// invalid JSON, a missing/non-string text field or invalid UTF-8. Empty JSONL lines are skipped.
void readDocuments(const SourceFile& source, const std::string& textField,
                   const std::function<void(std::string&&)>& sink);

} // namespace traindeck::data
