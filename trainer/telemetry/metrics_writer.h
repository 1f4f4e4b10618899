// Writes the JSON Lines telemetry of docs/reference/metrics-protocol.md (schema v1): one flushed line per record.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace traindeck::telemetry {

constexpr int kSchemaVersion = 1;

class MetricsWriter {
  public:
    // path may be empty (no file); toStdout also prints every record on stdout. An existing file is
    // appended to (a resumed run continues it); when its last line was cut (a kill -9, a full disk) a
    // '\n' is written first, so the cut line stays one malformed line and the next record is whole.
    MetricsWriter(const std::string& path, bool toStdout); // throws RuntimeFailure when it cannot open
    ~MetricsWriter();
    MetricsWriter(const MetricsWriter&) = delete;
    MetricsWriter& operator=(const MetricsWriter&) = delete;

    // Adds v, type and t in front of `fields` and writes the line; thread-safe. Never throws for a failed write:
    // telemetry lost to a full disk or an I/O error is counted and reported once on stderr, and by a
    // `warning` record (code telemetry_lost) once the file takes writes again; training goes on.
    void write(const std::string& type, const nlohmann::ordered_json& fields);

    // Records that could not be written to the file (whole or in part).
    uint64_t lostRecords() const { return lost_.load(); }

    // A float* value of the protocol: a number, or "NaN" / "Infinity" / "-Infinity".
    static nlohmann::ordered_json number(double value);

    // The line write() writes, '\n' included (tests/bench/analysis/bench_scale times it at 1,024 ranks).
    static std::string line(const std::string& type, const nlohmann::ordered_json& fields);

  private:
    // Writes all of `text` to the file; false (and errno) when it could not. Sets cut_ after a partial write.
    bool writeFile(const std::string& text);
    void writeStdout(const std::string& text);
    void lose(int error);
    void warnPending();

    std::mutex mutex_; // one record at a time, from any thread
    std::string path_;
    int fd_ = -1;
    bool toStdout_;
    bool cut_ = false;              // the file ends inside a line: the next write starts with '\n'
    std::atomic<uint64_t> lost_{0}; // records not (fully) written to the file
    std::string lostError_;         // the first error that lost a record
    bool stderrWarned_ = false;     // the stderr warning is printed once
    bool recordPending_ = false;    // a warning record is due when the file takes writes again
    bool recordWarned_ = false;     // ... and it is written once
};

double unixSeconds();

// Resident set size of this process in MiB (from /proc/self/statm).
double residentMiB();
// Process CPU time (user + system) in seconds.
double processCpuSeconds();

} // namespace traindeck::telemetry
