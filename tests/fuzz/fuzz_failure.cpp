// attributeFailure (launch/failure: which rank on which host failed, from mpirun's, srun's and the
// trainer's text) on any bytes: never crash, and name only a rank within kMaxRankInText.
#include "launch/failure.h"

#include <cstdint>
#include <cstdlib>

using namespace traindeck::launch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const FailureInfo f = attributeFailure({}, bytes, size ? std::optional<int>(data[0]) : std::nullopt,
                                           {QStringLiteral("n0"), QStringLiteral("n1")}, lastLines(bytes, 20));
    if (f.rank < -1 || f.rank > kMaxRankInText || (f.known && f.rank < 0))
        std::abort();
    (void)f.summary();
    (void)f.toJson();
    return 0;
}
