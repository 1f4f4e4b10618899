#include "util/fileio.h"

#include "util/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace traindeck::util {

static std::string errnoText()
{
    return std::strerror(errno);
}

static std::function<int(FileOp, const std::string&)>& faultHook()
{
    static std::function<int(FileOp, const std::string&)> hook;
    return hook;
}

void setFileFaultHookForTesting(std::function<int(FileOp, const std::string& path)> hook)
{
    faultHook() = std::move(hook);
}

// An errno injected by the test hook, or 0.
static int injected(FileOp op, const std::string& path)
{
    return faultHook() ? faultHook()(op, path) : 0;
}

static int checkedFsync(int fd, const std::string& path)
{
    if (const int e = injected(FileOp::Fsync, path)) {
        errno = e;
        return -1;
    }
    return ::fsync(fd);
}

// Closes fd in every case; -1 and errno when the close (or the hook) reports an error.
static int checkedClose(int fd, const std::string& path)
{
    const int e = injected(FileOp::Close, path);
    const int rc = ::close(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return rc;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path))
{
    tmpPath_ = path_ + ".tmp." + std::to_string(::getpid());
    fd_ = ::open(tmpPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw RuntimeFailure(tmpPath_ + ": cannot create: " + errnoText());
}

AtomicFileWriter::~AtomicFileWriter()
{
    if (fd_ >= 0)
        ::close(fd_);
    if (!committed_)
        ::unlink(tmpPath_.c_str());
}

void AtomicFileWriter::write(const void* data, size_t bytes)
{
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd_, p, bytes);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw RuntimeFailure(tmpPath_ + ": write failed: " + errnoText());
        }
        p += n;
        bytes -= static_cast<size_t>(n);
    }
}

void AtomicFileWriter::commit()
{
    if (checkedFsync(fd_, tmpPath_) != 0)
        throw RuntimeFailure(tmpPath_ + ": fsync failed: " + errnoText());
    const int fd = fd_;
    fd_ = -1;
    // A delayed write error (NFS, a full disk) may show only here: the data is not safely written.
    if (checkedClose(fd, tmpPath_) != 0)
        throw RuntimeFailure(tmpPath_ + ": close failed: " + errnoText());
    renamePath(tmpPath_, path_);
    committed_ = true;
    fsyncDirectory(std::filesystem::path(path_).parent_path().string());
}

void writeFileAtomic(const std::string& path, const std::string& contents)
{
    AtomicFileWriter w(path);
    w.write(contents);
    w.commit();
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot open: " + errnoText());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void fsyncDirectory(const std::string& dir)
{
    const std::string path = dir.empty() ? std::string(".") : dir;
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw RuntimeFailure(path + ": cannot open the directory to sync it: " + errnoText());
    if (checkedFsync(fd, path) != 0 && errno != EINVAL) {
        const std::string why = errnoText();
        ::close(fd);
        throw RuntimeFailure(path + ": fsync of the directory failed: " + why);
    }
    if (checkedClose(fd, path) != 0)
        throw RuntimeFailure(path + ": close of the directory failed: " + errnoText());
}

void renamePath(const std::string& from, const std::string& to)
{
    if (const int e = injected(FileOp::Rename, to)) {
        errno = e;
        throw RuntimeFailure(from + " -> " + to + ": rename failed: " + errnoText());
    }
    if (::rename(from.c_str(), to.c_str()) != 0)
        throw RuntimeFailure(from + " -> " + to + ": rename failed: " + errnoText());
}

void replaceDirectory(const std::string& from, const std::string& to)
{
    namespace fs = std::filesystem;
    const fs::path target(to);
    const std::string parent = target.parent_path().string();
    std::error_code ec;
    if (!fs::exists(target, ec)) {
        renamePath(from, to);
        fsyncDirectory(parent);
        return;
    }
    if (const int e = injected(FileOp::Rename, to)) {
        errno = e;
        throw RuntimeFailure(from + " -> " + to + ": rename failed: " + errnoText());
    }
#ifdef RENAME_EXCHANGE
    // One atomic step: `to` is the new directory, `from` the old one.
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
        fsyncDirectory(parent);
        fs::remove_all(from, ec);
        return;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        throw RuntimeFailure(from + " <-> " + to + ": exchange failed: " + errnoText());
#endif
    // No exchange on this file system: the old one aside, the new one in, then the old one removed.
    const std::string aside =
        (target.parent_path() / ("." + target.filename().string() + ".old-" + std::to_string(::getpid()))).string();
    fs::remove_all(aside, ec);
    renamePath(to, aside);
    try {
        renamePath(from, to);
    } catch (...) {
        ::rename(aside.c_str(), to.c_str()); // put the old one back
        throw;
    }
    fsyncDirectory(parent);
    fs::remove_all(aside, ec);
}

void makeDirs(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw RuntimeFailure(dir + ": cannot create directory: " + ec.message());
}

} // namespace traindeck::util
