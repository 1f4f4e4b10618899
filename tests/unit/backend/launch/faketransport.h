// A LocalTransport whose answers a test can bend: a liveness check that "could not ask" (as an SSH exec
// failure or timeout), reads that fail for chosen paths, a hook run after each readFile (to act as
// another writer between two reads of the code under test), exists() checks that miss paths, and a
// start command that fails (with or without having started the script).
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
    // exists() answers "no" for paths this returns true for (a check that races with another writer).
    std::function<bool(const QString& path)> hideFromExists;
    // The start command "fails": after starting the script (a connection that drops once it ran) or
    // without starting it.
    enum class Start { Normal, FailAfterStarting, FailWithoutStarting } start = Start::Normal;
    std::function<void()> beforeStart; // called when the start command is given

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
    bool exists(const QString& path) override
    {
        return !(hideFromExists && hideFromExists(path)) && LocalTransport::exists(path);
    }
    traindeck::Status startDetached(const QString& scriptPath) override
    {
        if (beforeStart)
            beforeStart();
        if (start == Start::FailAfterStarting && !LocalTransport::startDetached(scriptPath).ok())
            return traindeck::Status::failure(traindeck::Diagnostic::error(scriptPath, QStringLiteral("not started")));
        if (start != Start::Normal)
            return traindeck::Status::failure(
                traindeck::Diagnostic::error(QStringLiteral("fake-head"), QStringLiteral("connection lost")));
        return LocalTransport::startDetached(scriptPath);
    }
    traindeck::launch::SignalResult signalProcessGroup(qint64 pgid, int signal) override
    {
        return signalResult ? *signalResult : LocalTransport::signalProcessGroup(pgid, signal);
    }
};
