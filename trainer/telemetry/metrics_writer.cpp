#include "telemetry/metrics_writer.h"

#include "util/errors.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace traindeck::telemetry {

MetricsWriter::MetricsWriter(const std::string& path, bool toStdout) : path_(path), toStdout_(toStdout)
{
    if (path.empty())
        return;
    // Append: a resumed run continues the same file. Read access is only for the last byte.
    fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw RuntimeFailure(path + ": cannot open metrics file: " + std::strerror(errno));
    struct stat st {};
    char last = '\n';
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        ::pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n') {
        // The previous writer was cut off inside a line: end it, so it cannot swallow our first record.
        cut_ = true;
        writeFile(std::string());
    }
}

MetricsWriter::~MetricsWriter()
{
    if (fd_ >= 0)
        ::close(fd_);
}

std::string MetricsWriter::line(const std::string& type, const nlohmann::ordered_json& fields)
{
    nlohmann::ordered_json record;
    record["v"] = kSchemaVersion;
    record["type"] = type;
    record["t"] = unixSeconds();
    for (auto it = fields.begin(); it != fields.end(); ++it)
        record[it.key()] = it.value();
    return record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool MetricsWriter::writeFile(const std::string& text)
{
    const std::string data = cut_ ? "\n" + text : text;
    const size_t prefix = cut_ ? 1 : 0;
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        const int error = n < 0 ? errno : EIO;
        if (done > prefix)
            cut_ = true; // part of the line is in the file
        else if (done == prefix)
            cut_ = false; // only the '\n' that ends the earlier cut line
        errno = error;
        return false;
    }
    cut_ = false;
    return true;
}

void MetricsWriter::writeStdout(const std::string& text)
{
    if (!toStdout_)
        return;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
        const int error = errno;
        std::clearerr(stdout);
        if (!stderrWarned_) {
            stderrWarned_ = true;
            std::fprintf(stderr, "warning: telemetry on stdout lost (%s); training continues\n", std::strerror(error));
        }
    }
}

void MetricsWriter::lose(int error)
{
    ++lost_;
    if (lostError_.empty())
        lostError_ = std::strerror(error);
    if (!recordWarned_)
        recordPending_ = true;
    if (!stderrWarned_) {
        stderrWarned_ = true;
        std::fprintf(stderr,
                     "warning: %s: cannot write telemetry (%s); training continues, records are lost until the file "
                     "takes writes again\n",
                     path_.c_str(), lostError_.c_str());
        std::fflush(stderr);
    }
}

// The warning record about lost telemetry, once the file takes writes again.
void MetricsWriter::warnPending()
{
    const std::string warning =
        line("warning", {{"rank", -1},
                         {"host", ""},
                         {"message", std::to_string(lost_.load()) + " telemetry record(s) could not be written to " +
                                         path_ + " (" + lostError_ + ") and are missing from it"},
                         {"code", "telemetry_lost"}});
    if (!writeFile(warning))
        return; // still failing: the record that follows counts as lost
    recordPending_ = false;
    recordWarned_ = true;
    writeStdout(warning);
}

void MetricsWriter::write(const std::string& type, const nlohmann::ordered_json& fields)
{
    const std::string text = line(type, fields);
    const std::lock_guard<std::mutex> lock(mutex_); // the stall inspector's thread writes too
    if (fd_ >= 0) {
        if (recordPending_)
            warnPending();
        if (!writeFile(text))
            lose(errno);
    }
    writeStdout(text);
}

nlohmann::ordered_json MetricsWriter::number(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    return value;
}

double unixSeconds()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double residentMiB()
{
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double processCpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

} // namespace traindeck::telemetry
