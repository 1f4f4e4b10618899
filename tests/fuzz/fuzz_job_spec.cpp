// Job specs (job.json): never crash; a spec that is accepted is written back and read again unchanged.
#include "launch/jobspec.h"

#include <cstdint>
#include <cstdlib>

using traindeck::launch::JobSpec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    const auto parsed = JobSpec::fromJson(json, QStringLiteral("fuzz.json"));
    if (!parsed.ok())
        return 0;
    const auto again = JobSpec::fromJson(parsed->toJson(), QStringLiteral("fuzz.json"));
    if (!again.ok() || again->toJson() != parsed->toJson())
        std::abort();
    return 0;
}
