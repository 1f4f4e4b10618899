// The rank logs (launch/ranklogs: mpirun --tag-output, srun --label, the trainer's "rank N on HOST"
// lines) on any bytes, fed whole and split at a byte the input chooses: never crash, never allocate by a
// rank number beyond kMaxRankInText, and give the same groups however the bytes arrive.
#include "launch/ranklogs.h"

#include <cstdint>
#include <cstdlib>

using namespace traindeck::launch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    RankLog whole;
    whole.addText(bytes, LogStream::Stderr);
    whole.finish();
    RankLog split;
    const qsizetype at = size ? qsizetype(data[0] % (size + 1)) : 0;
    split.addText(bytes.first(at), LogStream::Stderr);
    split.addText(bytes.sliced(at), LogStream::Stderr);
    split.finish();
    if (whole.groups().size() != split.groups().size())
        std::abort(); // where the bytes arrive in two reads must not matter
    if (whole.hostsByRank().size() > kMaxRankInText + 1)
        std::abort();
    for (const LogGroup& g : whole.groups()) {
        for (int r : g.ranks) {
            if (r < 0 || r > kMaxRankInText)
                std::abort();
        }
        (void)whole.label(g);
    }
    // A failure named from the same text sizes nothing beyond the bound either.
    const FailureInfo f = attributeFailure({}, bytes, 1, whole.hostsByRank());
    if (f.rank > kMaxRankInText)
        std::abort();
    whole.setFailure(f);
    if (whole.hostsByRank().size() > kMaxRankInText + 1)
        std::abort();
    return 0;
}
