// What one poll of a run on a remote head costs (RunMonitor::poll over SshTransport, a real sshd on
// 127.0.0.1): SSH commands per poll and seconds per poll, for the head's ~/.bashrc empty and taking one
// second (bash sources it for every command over SSH). Two ways of asking:
//   one command        SshTransport::probe: every read and the liveness check in one command;
//   one call each      the same reads asked one Transport call at a time (Transport::probe's default).
// The run: a live process group with its pid record, run.json, a 4-rank metrics file and a stderr log.
// Every command is counted by the ~/.bashrc (it appends a line to a file). Needs root (sshd, unshare).
// Usage: bench_remote_poll [polls per case = 5]
#include "sshd_fixture.h"
#include "test_paths.h"

#include "launch/rundir.h"
#include "launch/runmonitor.h"
#include "ssh/sshtransport.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <cstdio>

using namespace traindeck;

namespace {

// Forwards every call to the SSH transport except probe(), which stays Transport's default: the reads
// one call at a time.
class OneCallEach : public launch::Transport {
  public:
    explicit OneCallEach(std::shared_ptr<launch::Transport> inner) : m_inner(std::move(inner)) {}
    QString displayName() const override { return m_inner->displayName(); }
    bool isLocal() const override { return false; }
    bool runsAsRoot() const override { return m_inner->runsAsRoot(); }
    Result<launch::ExecResult> run(const QString& c, int ms, const LineCallback& l) override
    {
        return m_inner->run(c, ms, l);
    }
    Status startDetached(const QString& s) override { return m_inner->startDetached(s); }
    Result<launch::FileChunk> readFile(const QString& p, qint64 o, qint64 m) override
    {
        return m_inner->readFile(p, o, m);
    }
    Status writeFile(const QString& p, const QByteArray& d, int mode) override
    {
        return m_inner->writeFile(p, d, mode);
    }
    bool exists(const QString& p) override { return m_inner->exists(p); }
    Result<launch::ProcessIdentity> processIdentity(qint64 pid) override { return m_inner->processIdentity(pid); }
    launch::SignalResult signalProcessGroup(qint64 g, int s) override { return m_inner->signalProcessGroup(g, s); }

  private:
    std::shared_ptr<launch::Transport> m_inner;
};

qsizetype lines(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : 0;
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const int polls = argc > 1 ? qMax(2, QByteArray(argv[1]).toInt()) : 5;
    QTemporaryDir tmp;
    testing::SshdInstance server(QStringLiteral("bench"));
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "bench_remote_poll: sshd: %s\n", qPrintable(error));
        return 2;
    }
    const QString countFile = tmp.filePath(QStringLiteral("commands"));
    if (!server.setSessionBashrc(QByteArray())) {
        std::fprintf(stderr, "bench_remote_poll: the sessions cannot get a ~/.bashrc of their own (root, unshare)\n");
        return 2;
    }
    testing::SshClientEnv client;
    if (!client.ok() || !client.pairWith(server)) {
        std::fprintf(stderr, "bench_remote_poll: cannot set up the client side\n");
        return 2;
    }
    auto ssh = std::make_shared<ssh::SshTransport>(client.target(server));
    if (const Status c = ssh->connect(); !c) {
        std::fprintf(stderr, "bench_remote_poll: %s\n", qPrintable(c.errorString()));
        return 2;
    }

    // The run directory, with a live group standing for the run's wrapper.
    const QString runDir = tmp.filePath(QStringLiteral("run"));
    QDir().mkpath(runDir);
    launch::RunInfo info;
    info.runId = QStringLiteral("bench");
    info.created = info.started = QDateTime::currentDateTimeUtc();
    const QString pidFile = launch::runFile(runDir, launch::runfile::kPid);
    const QString script = tmp.filePath(QStringLiteral("wrapper.sh"));
    launch::LocalTransport local;
    QFile example(QString::fromUtf8(TRAINDECK_SOURCE_DIR) +
                  QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    if (!example.open(QIODevice::ReadOnly) ||
        !writeFile(launch::runFile(runDir, launch::runfile::kMetrics), example.readAll()) ||
        !writeFile(launch::runFile(runDir, launch::runfile::kStderr), "rank 0 up\nrank 1 up\n") ||
        !writeFile(launch::runFile(runDir, launch::runfile::kRunInfo), QJsonDocument(info.toJson()).toJson()) ||
        !local
             .writeFile(script, (launch::pidRecordShellLine(pidFile) + QStringLiteral("exec sleep 600\n")).toUtf8(),
                        0755)
             .ok() ||
        !local.startDetached(script).ok()) {
        std::fprintf(stderr, "bench_remote_poll: cannot write the run directory\n");
        return 2;
    }
    qint64 pgid = -1;
    for (int i = 0; i < 200 && pgid <= 0; ++i) {
        if (const auto r = local.readFile(pidFile, 0, 256))
            if (const auto rec = launch::PidRecord::parse(r->data))
                pgid = rec->pid;
        if (pgid <= 0)
            QThread::msleep(25);
    }
    if (pgid <= 0) {
        std::fprintf(stderr, "bench_remote_poll: the run's process group did not start\n");
        return 2;
    }

    std::printf(
        "| ~/.bashrc | how the poll asks | SSH commands per poll | seconds per poll: median (min–max) of %d |\n",
        polls);
    std::printf("|---|---|---:|---|\n");
    int rc = 0;
    for (const QByteArray& rc_line : {QByteArray(), QByteArray("sleep 1\n")}) {
        server.setSessionBashrc(rc_line + "echo x >> '" + countFile.toUtf8() + "'\n");
        for (const bool oneCommand : {true, false}) {
            std::shared_ptr<launch::Transport> t =
                oneCommand ? std::shared_ptr<launch::Transport>(ssh) : std::make_shared<OneCallEach>(ssh);
            launch::RunMonitor monitor(t, runDir);
            monitor.poll(); // the first poll reads the whole metrics file; the rest only ask what is new
            QList<double> seconds;
            QList<qsizetype> commands;
            for (int i = 0; i < polls; ++i) {
                const qsizetype before = lines(countFile);
                QElapsedTimer timer;
                timer.start();
                monitor.poll();
                seconds.append(double(timer.nsecsElapsed()) / 1e9);
                commands.append(lines(countFile) - before);
            }
            if (monitor.state() != launch::JobState::Running || !monitor.files().groupAlive) {
                std::fprintf(stderr, "bench_remote_poll: the run was not seen alive (state %s)\n",
                             qPrintable(launch::jobStateName(monitor.state())));
                rc = 1;
            }
            std::sort(seconds.begin(), seconds.end());
            std::sort(commands.begin(), commands.end());
            std::printf("| %s | %s | %lld | %.3f (%.3f–%.3f) |\n", rc_line.isEmpty() ? "empty" : "sleep 1",
                        oneCommand ? "one command" : "one call each", static_cast<long long>(commands.at(polls / 2)),
                        seconds.at(polls / 2), seconds.first(), seconds.last());
            std::fflush(stdout);
        }
    }
    ::kill(pid_t(-pgid), SIGKILL);
    return rc;
}
