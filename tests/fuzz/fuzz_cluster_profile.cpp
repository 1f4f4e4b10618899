// Cluster profiles (JSON a person edits, or that arrives with a shared setup): never crash; a profile
// that is accepted is written back and read again unchanged.
#include "cluster/clusterprofile.h"

#include <cstdint>
#include <cstdlib>

using traindeck::cluster::ClusterProfile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    const auto parsed = ClusterProfile::fromJson(json, QStringLiteral("fuzz.json"));
    if (!parsed.ok())
        return 0;
    const auto again = ClusterProfile::fromJson(parsed->toJson(), QStringLiteral("fuzz.json"));
    if (!again.ok() || again->toJson() != parsed->toJson())
        std::abort();
    return 0;
}
