// Crash-safe file writing: data goes to a temporary file that is fsynced and renamed into place.
#pragma once

#include <string>

namespace traindeck::util {

class AtomicFileWriter {
  public:
    explicit AtomicFileWriter(std::string path); // throws RuntimeFailure
    ~AtomicFileWriter();                         // removes the temporary file unless committed
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(const void* data, size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    void commit(); // fsync, rename, fsync the directory

  private:
    std::string path_, tmpPath_;
    int fd_ = -1;
    bool committed_ = false;
};

void writeFileAtomic(const std::string& path, const std::string& contents);
std::string readFile(const std::string& path); // throws InputError naming the file
void fsyncDirectory(const std::string& dir);
// Makes the directory and its parents; throws RuntimeFailure.
void makeDirs(const std::string& dir);

} // namespace traindeck::util
