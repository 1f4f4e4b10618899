// A LocalTransport whose answers a test can bend: a liveness check that "could not ask" (as an SSH exec
// failure or timeout), reads that fail for chosen paths, and a hook run after each readFile (to act as
// another writer between two reads of the code under test).
#pragma once

#include "launch/transport.h"

#include <QSet>

#include <functional>
#include <optional>

class FakeTransport : public traindeck::launch::LocalTransport {
  public:
    std::optional<traindeck::launch::SignalResult> signalResult; // unset: the real answer
    QSet<QString> failingReads;                                  // paths whose readFile fails
    // (path, offset, maxBytes) of every readFile, in order.
    struct Read {
        QString path;
        qint64 offset = 0;
        qint64 maxBytes = 0;
    };
    QList<Read> reads;
    std::function<void(const QString& path, qint64 offset, qint64 maxBytes)> afterRead;

    QString displayName() const override { return QStringLiteral("fake-head"); }
    bool isLocal() const override { return false; }
    traindeck::Result<traindeck::launch::FileChunk> readFile(const QString& path, qint64 offset,
                                                             qint64 maxBytes) override
    {
        reads.append({path, offset, maxBytes});
        if (failingReads.contains(path))
            return traindeck::Result<traindeck::launch::FileChunk>::failure(
                traindeck::Diagnostic::error(path, QStringLiteral("fake-head: timed out")));
        auto r = LocalTransport::readFile(path, offset, maxBytes);
        if (afterRead)
            afterRead(path, offset, maxBytes);
        return r;
    }
    traindeck::launch::SignalResult signalProcessGroup(qint64 pgid, int signal) override
    {
        return signalResult ? *signalResult : LocalTransport::signalProcessGroup(pgid, signal);
    }
};
