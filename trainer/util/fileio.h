// Crash-safe file writing: data goes to a temporary file that is fsynced and renamed into place.
#pragma once

#include <functional>
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
// fsync(2) of a directory, so renames and new entries in it are durable. Throws RuntimeFailure naming
// the directory when it cannot be opened or synced (file systems that cannot sync directories, EINVAL,
// are accepted).
void fsyncDirectory(const std::string& dir);
// rename(2); throws RuntimeFailure naming both paths.
void renamePath(const std::string& from, const std::string& to);
// Puts the directory `from` in the place of the directory `to`, which may exist: `to` names the old or
// the new directory at every moment, never nothing (renameat2 RENAME_EXCHANGE where the file system has
// it, else the old one is renamed aside first and renamed back if the new one cannot be moved in). The
// old directory is removed afterwards. Throws RuntimeFailure naming the paths.
void replaceDirectory(const std::string& from, const std::string& to);
// Makes the directory and its parents; throws RuntimeFailure.
void makeDirs(const std::string& dir);

// Test aid: fault injection for the fsync, close and rename calls of this file. The hook sees each call
// before it is made; a non-zero return is the errno the call then fails with. An empty hook (the
// default) injects nothing.
enum class FileOp { Fsync, Close, Rename };
void setFileFaultHookForTesting(std::function<int(FileOp, const std::string& path)> hook);

} // namespace traindeck::util
