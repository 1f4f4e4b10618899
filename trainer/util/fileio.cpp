#include "util/fileio.h"

#include "util/errors.h"

#include <cerrno>
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
    if (::fsync(fd_) != 0)
        throw RuntimeFailure(tmpPath_ + ": fsync failed: " + errnoText());
    ::close(fd_);
    fd_ = -1;
    if (::rename(tmpPath_.c_str(), path_.c_str()) != 0)
        throw RuntimeFailure(path_ + ": rename failed: " + errnoText());
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
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

void makeDirs(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw RuntimeFailure(dir + ": cannot create directory: " + ec.message());
}

} // namespace traindeck::util
