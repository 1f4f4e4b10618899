// The hostfile parser in all three syntaxes: never crashes, and a file it accepts reads back the
// same after toText() (and converts to the other syntaxes without crashing).
#include "cluster/hostfile.h"

#include <QString>

#include <cstdint>
#include <cstdlib>

using traindeck::cluster::Hostfile;
using traindeck::cluster::HostfileFormat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    for (const HostfileFormat format : {HostfileFormat::OpenMpi, HostfileFormat::DeepSpeed, HostfileFormat::Mpich}) {
        const auto parsed = Hostfile::parse(text, format, QStringLiteral("fuzz"));
        if (!parsed.ok())
            continue;
        const auto again = Hostfile::parse(parsed->toText(), format, QStringLiteral("fuzz"));
        if (!again.ok() || again->hosts().size() != parsed->hosts().size())
            std::abort(); // what was accepted must read back
        for (const HostfileFormat target : {HostfileFormat::OpenMpi, HostfileFormat::DeepSpeed, HostfileFormat::Mpich})
            (void)parsed->convert(target, QStringLiteral("fuzz"));
    }
    return 0;
}
