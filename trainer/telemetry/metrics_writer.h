// Writes the JSON Lines telemetry of docs/metrics-protocol.md (schema v1): one flushed line per record.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace traindeck::telemetry {

constexpr int kSchemaVersion = 1;

class MetricsWriter {
  public:
    // path may be empty (no file); toStdout also prints every record on stdout.
    MetricsWriter(const std::string& path, bool toStdout); // throws RuntimeFailure
    ~MetricsWriter();
    MetricsWriter(const MetricsWriter&) = delete;
    MetricsWriter& operator=(const MetricsWriter&) = delete;

    // Adds v, type and t in front of `fields` and writes the line.
    void write(const std::string& type, const nlohmann::ordered_json& fields);

    // A float* value of the protocol: a number, or "NaN" / "Infinity" / "-Infinity".
    static nlohmann::ordered_json number(double value);

  private:
    std::FILE* file_ = nullptr;
    bool toStdout_;
};

double unixSeconds();

// Resident set size of this process in MiB (from /proc/self/statm).
double residentMiB();
// Process CPU time (user + system) in seconds.
double processCpuSeconds();

} // namespace traindeck::telemetry
