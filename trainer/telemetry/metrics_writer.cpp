#include "telemetry/metrics_writer.h"

#include "util/errors.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <unistd.h>

namespace traindeck::telemetry {

MetricsWriter::MetricsWriter(const std::string& path, bool toStdout) : toStdout_(toStdout)
{
    if (!path.empty()) {
        file_ = std::fopen(path.c_str(), "ae"); // append: a resumed run continues the same file
        if (!file_)
            throw RuntimeFailure(path + ": cannot open metrics file: " + std::strerror(errno));
    }
}

MetricsWriter::~MetricsWriter()
{
    if (file_)
        std::fclose(file_);
}

void MetricsWriter::write(const std::string& type, const nlohmann::ordered_json& fields)
{
    nlohmann::ordered_json record;
    record["v"] = kSchemaVersion;
    record["type"] = type;
    record["t"] = unixSeconds();
    for (auto it = fields.begin(); it != fields.end(); ++it)
        record[it.key()] = it.value();
    const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (file_) {
        std::fwrite(line.data(), 1, line.size(), file_);
        std::fflush(file_);
    }
    if (toStdout_) {
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fflush(stdout);
    }
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
