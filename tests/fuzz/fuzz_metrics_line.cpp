// The metrics parser (metrics.jsonl lines from the trainer, read back by the Monitor and the CLI): any
// bytes, fed whole and split in two at a byte the input chooses, never crash and give the same records.
#include "metrics/parser.h"
#include "metrics/records.h"

#include <cstdint>
#include <cstdlib>

using namespace traindeck::metrics;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    RecordCollector whole;
    {
        MetricsParser p(&whole);
        p.feed(bytes);
        p.finish();
    }
    RecordCollector split;
    {
        MetricsParser p(&split);
        const qsizetype at = size ? qsizetype(data[0] % (size + 1)) : 0;
        p.feed(bytes.first(at));
        p.feed(bytes.sliced(at));
        p.finish();
    }
    if (whole.records.size() != split.records.size())
        std::abort(); // where the bytes arrive in two reads must not matter
    return 0;
}
