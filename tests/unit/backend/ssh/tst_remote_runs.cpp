// Runs on a remote head node (launch/remoterun.h) against a real OpenSSH server listening on 127.0.0.2,
// so the profile is really remote (launch::isLocalProfile takes 127.0.0.1 for this machine) and every
// call goes through SshTransport (made by sshTransportFactory, as the front ends do). mpirun is
// a shell script; the trainer is /bin/true.
//
//   workdir "~/..." resolved with the head's $HOME; a launch puts the run under <workdir>/runs on the
//   head and writes the local record; listRuns lists it as remote; RunMonitor mirrors metrics.jsonl
//   byte for byte, also across a reattach from an offset (mirror read first, no duplicates, nothing
//   emitted before the offset); sync makes the record final; the record works with the sshd stopped;
//   cancel through the record reaches the remote process group; traindeck-cli launch + runs --json.
#include "sshd_fixture.h"
#include "test_paths.h"

#include "cluster/clusterprofile.h"
#include "launch/launcher.h"
#include "launch/remoterun.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "metrics/metricstore.h"
#include "ssh/sshtransport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace traindeck;
using namespace traindeck::testing;

namespace {
const QString kFixture =
    QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl");

// The permission bits of a file or directory (0600, 0700, ...).
unsigned modeOf(const QString& path)
{
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? unsigned(st.st_mode & 07777) : 0u;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

// Forwards to another transport and counts the metrics bytes the head sent.
class CountingTransport : public launch::Transport {
  public:
    explicit CountingTransport(std::shared_ptr<launch::Transport> inner) : m_inner(std::move(inner)) {}
    qint64 metricsBytes = 0;
    QString displayName() const override { return m_inner->displayName(); }
    bool isLocal() const override { return m_inner->isLocal(); }
    bool runsAsRoot() const override { return m_inner->runsAsRoot(); }
    traindeck::Result<launch::ExecResult> run(const QString& c, int ms, const LineCallback& l) override
    {
        return m_inner->run(c, ms, l);
    }
    traindeck::Status startDetached(const QString& s) override { return m_inner->startDetached(s); }
    traindeck::Result<launch::FileChunk> readFile(const QString& path, qint64 offset, qint64 maxBytes) override
    {
        auto r = m_inner->readFile(path, offset, maxBytes);
        if (r.ok() && path.endsWith(QLatin1String("/metrics.jsonl")))
            metricsBytes += r->data.size();
        return r;
    }
    traindeck::Status writeFile(const QString& p, const QByteArray& d, int mode) override
    {
        return m_inner->writeFile(p, d, mode);
    }
    bool exists(const QString& p) override { return m_inner->exists(p); }
    launch::SignalResult signalProcessGroup(qint64 pgid, int sig) override
    {
        return m_inner->signalProcessGroup(pgid, sig);
    }

  private:
    std::shared_ptr<launch::Transport> m_inner;
};

qint64 recordOffset(const metrics::Record& r)
{
    return std::visit([](const auto& x) { return x.origin.offset; }, r);
}
} // namespace

class TestRemoteRuns : public QObject {
    Q_OBJECT

  private:
    SshdInstance m_server{QStringLiteral("remote-runs")};
    std::unique_ptr<SshClientEnv> m_client;
    QTemporaryDir m_tmp; // the "head node" side (sshd runs on this machine) and the local runs dir
    QString m_headDir, m_localRuns;
    // The finished run of launchRecordMirrorAndSync, checked offline at the end.
    QString m_finishedRecord, m_finishedRemoteDir;
    QByteArray m_finishedMetrics;

    QString path(const QString& name) const { return m_tmp.filePath(name); }

    cluster::ClusterProfile profile(const QString& mpirun) const
    {
        return testing::headOnlyProfile(QStringLiteral("remote-test"), m_server, *m_client, mpirun, m_headDir);
    }

    launch::JobSpec spec(const QString& name) const
    {
        launch::JobSpec s;
        s.name = name;
        s.ranks = 2;
        s.trainer.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
        return s;
    }

    QString writeScript(const QString& name, const QByteArray& body)
    {
        const QString p = path(name);
        QFile f(p);
        f.open(QIODevice::WriteOnly);
        f.write(body);
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        return p;
    }

    std::shared_ptr<launch::Transport> transport(const cluster::ClusterProfile& p)
    {
        auto t = launch::transportFor(p, ssh::sshTransportFactory());
        if (!t.ok())
            qWarning() << t.errorString();
        return t.ok() ? t.value() : nullptr;
    }

    // Polls until ended or `until` holds; returns whether it ended.
    template <typename Until> static bool pollUntil(launch::RunMonitor& m, bool& ended, Until until, int ms = 20000)
    {
        QElapsedTimer timer;
        timer.start();
        while (!ended && !until() && timer.elapsed() < ms) {
            m.poll();
            QTest::qWait(50);
        }
        return ended;
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_headDir = path(QStringLiteral("head/work"));
        m_localRuns = path(QStringLiteral("local-runs"));
        QVERIFY(QDir().mkpath(m_localRuns));
        QString error;
        QVERIFY2(m_server.start(&error, {}, QString(), QStringLiteral("127.0.0.2")), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        QVERIFY(m_client->pairWith(m_server));
    }

    void profileIsRemote()
    {
        const cluster::ClusterProfile p = profile(QStringLiteral("mpirun"));
        QVERIFY(!launch::isLocalProfile(p));
        auto t = transport(p);
        QVERIFY(t);
        QVERIFY(!t->isLocal());
        QVERIFY2(t->displayName().contains(QStringLiteral("127.0.0.2")), qPrintable(t->displayName()));
    }

    void workerThreadReleasesItsSession()
    {
        // One session per calling thread; a worker that releases its own leaves no connection behind.
        auto t = transport(profile(QStringLiteral("mpirun")));
        QVERIFY(t);
        auto established = [&] {
            QByteArray out;
            runProgram(QStringLiteral("ss"),
                       {QStringLiteral("-Htn"), QStringLiteral("state"), QStringLiteral("established"),
                        QStringLiteral("( dst 127.0.0.2 and dport = :%1 )").arg(m_server.port())},
                       &out);
            return int(out.count('\n'));
        };
        const int before = established(); // this thread's session (transportFor connects)
        QVERIFY(before >= 1);
        bool ran = false;
        int during = 0;
        std::thread([&] {
            ran = t->run(QStringLiteral("true")).ok();
            during = established();
            t->releaseCallingThread();
        }).join();
        QVERIFY(ran);
        QCOMPARE(during, before + 1);
        QTRY_COMPARE(established(), before);
        // Without a release, an ended worker's session stays until the transport goes.
        std::thread([&] { ran = t->run(QStringLiteral("true")).ok(); }).join();
        QVERIFY(ran);
        QTRY_COMPARE(established(), before + 1);
        QVERIFY(t->run(QStringLiteral("true")).ok()); // this thread's session is untouched
    }

    void remoteRunsDirResolvesHome()
    {
        cluster::ClusterProfile p = profile(QStringLiteral("mpirun"));
        auto t = transport(p);
        QVERIFY(t);
        const passwd* pw = getpwuid(0);
        QVERIFY(pw);
        const QString home = QString::fromLocal8Bit(pw->pw_dir);
        p.workdir = QStringLiteral("~/traindeck");
        QCOMPARE(launch::RemoteRuns::remoteRunsDir(*t, p).value(),
                 QDir::cleanPath(home + QStringLiteral("/traindeck/runs")));
        p.workdir = QStringLiteral("~");
        QCOMPARE(launch::RemoteRuns::remoteRunsDir(*t, p).value(), QDir::cleanPath(home + QStringLiteral("/runs")));
        p.workdir = QStringLiteral("rel/dir");
        QCOMPARE(launch::RemoteRuns::remoteRunsDir(*t, p).value(),
                 QDir::cleanPath(home + QStringLiteral("/rel/dir/runs")));
        p.workdir = QStringLiteral("/srv/td/");
        QCOMPARE(launch::RemoteRuns::remoteRunsDir(*t, p).value(), QStringLiteral("/srv/td/runs"));
        p.workdir = QStringLiteral("~someone/x");
        const auto bad = launch::RemoteRuns::remoteRunsDir(*t, p);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.errorString().contains(QStringLiteral("workdir")), qPrintable(bad.errorString()));
    }

    void localProfileKeepsLocalRunsDir()
    {
        const QString mpirun = writeScript(QStringLiteral("mpirun-local"), "#!/bin/sh\nexit 0\n");
        cluster::ClusterProfile p = cluster::ClusterProfile::local(2);
        p.launcher = mpirun;
        p.extra.insert(QStringLiteral("trainer"), QStringLiteral("/bin/true"));
        launch::LocalTransport t;
        const QString runs = path(QStringLiteral("local-only-runs"));
        const auto r = launch::RemoteRuns::launch(t, spec(QStringLiteral("here")), p, runs);
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        QVERIFY(!r->remote);
        QCOMPARE(r->localDir, r->outcome.runDir);
        QVERIFY(r->outcome.runDir.startsWith(runs + QLatin1Char('/')));
        QVERIFY(!launch::isRemoteRecord(r->localDir));
    }

    void launchRecordMirrorAndSync()
    {
        // Three lines and half of the fourth, then (once "go" exists) the rest of the file.
        const QByteArray body =
            "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; esac; done\n"
            "f='" +
            kFixture.toUtf8() +
            "'\n"
            "echo \"fake mpirun $*\"\necho 'rank 0: warming up' >&2\n"
            "head -n 3 \"$f\" > \"$m\"\nsed -n 4p \"$f\" | head -c 40 >> \"$m\"\n"
            "i=0; while [ ! -e \"$(dirname \"$m\")/go\" ]; do [ -d \"$(dirname \"$m\")\" ] && [ $i -lt 2400 ] || exit "
            "1; i=$((i+1)); sleep 0.05; done\n"
            "sed -n 4p \"$f\" | tail -c +41 >> \"$m\"\ntail -n +5 \"$f\" >> \"$m\"\n"
            "echo 'rank 0: done' >&2\nexit 0\n";
        const cluster::ClusterProfile p = profile(writeScript(QStringLiteral("mpirun-staged"), body));
        auto t = transport(p);
        QVERIFY(t);

        const auto launched = launch::RemoteRuns::launch(*t, spec(QStringLiteral("remote run")), p, m_localRuns);
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        QVERIFY(launched->remote);
        const QString remoteDir = launched->outcome.runDir;
        const QString record = launched->localDir;
        QCOMPARE(QFileInfo(remoteDir).path(), QDir::cleanPath(m_headDir + QStringLiteral("/runs")));
        QCOMPARE(record, QDir::cleanPath(m_localRuns + QLatin1Char('/') + launched->outcome.runId));
        QCOMPARE(launched->mirrorPath, record + QStringLiteral("/metrics.jsonl"));

        // The local record: remote.json, copies of run.json/spec.json/profile.json, no pid.
        QVERIFY(launch::isRemoteRecord(record));
        const auto rec = launch::readRemoteRecord(record);
        QVERIFY(rec);
        QCOMPARE(rec->remoteRunDir, remoteDir);
        QCOMPARE(rec->profile, p.name);
        QCOMPARE(rec->headHost, QStringLiteral("127.0.0.2"));
        QVERIFY2(rec->head.contains(QStringLiteral("127.0.0.2")), qPrintable(rec->head));
        QVERIFY(!rec->synced);
        QCOMPARE(readAll(record + QStringLiteral("/run.json")), readAll(remoteDir + QStringLiteral("/run.json")));
        QCOMPARE(readAll(record + QStringLiteral("/spec.json")), readAll(remoteDir + QStringLiteral("/spec.json")));
        QVERIFY(QFileInfo::exists(record + QStringLiteral("/profile.json")));
        QVERIFY(!QFileInfo::exists(record + QStringLiteral("/pid")));

        // listRuns lists it as remote, without the network.
        {
            const QList<launch::RunSummary> runs = launch::listRuns(m_localRuns);
            QCOMPARE(runs.size(), 1);
            QVERIFY(runs.first().remote);
            QCOMPARE(runs.first().runDir, record);
            QCOMPARE(runs.first().remoteRunDir, remoteDir);
            QVERIFY(!launch::isFinal(runs.first().state));
            const QJsonObject o = runs.first().toJson();
            QCOMPARE(o.value(QStringLiteral("remote")).toBool(), true);
            QCOMPARE(o.value(QStringLiteral("remote_run_dir")).toString(), remoteDir);
            QVERIFY(o.value(QStringLiteral("head")).toString().contains(QStringLiteral("127.0.0.2")));
        }

        // The shared helper finds the head and the mirror from the record alone.
        const auto loc = launch::locateRun(record, ssh::sshTransportFactory());
        QVERIFY2(loc.ok(), qPrintable(loc.errorString()));
        QVERIFY(loc->remote);
        QVERIFY(!loc->transport->isLocal());
        QCOMPARE(loc->runDir, remoteDir);
        QCOMPARE(loc->mirrorPath, launched->mirrorPath);

        const QString remoteMetrics = remoteDir + QStringLiteral("/metrics.jsonl");
        const QByteArray fixture = readAll(kFixture);
        const qint64 firstPart = fixture.indexOf('\n', fixture.indexOf('\n', fixture.indexOf('\n') + 1) + 1) + 1 + 40;

        // First follower: reads the first part, mirrors it byte for byte (partial line included).
        qint64 offset1 = 0;
        {
            launch::RunMonitor m(loc->transport, loc->runDir);
            m.setMirrorPath(loc->mirrorPath);
            bool ended = false;
            qsizetype records = 0;
            connect(&m, &launch::RunMonitor::recordsReady, this,
                    [&](const QList<metrics::Record>& rs, qint64) { records += rs.size(); });
            connect(&m, &launch::RunMonitor::ended, this, [&] { ended = true; });
            pollUntil(m, ended, [&] { return records >= 3 && readAll(loc->mirrorPath).size() == firstPart; });
            QVERIFY(!ended);
            QCOMPARE(records, qsizetype(3));
            QCOMPARE(readAll(loc->mirrorPath), fixture.left(firstPart));
            QCOMPARE(readAll(loc->mirrorPath), readAll(remoteMetrics));
            offset1 = m.metricsOffset();
            QCOMPARE(offset1, qint64(firstPart - 40));
        }

        // The run goes on while nobody follows it, then a reattach from offset1.
        QFile go(remoteDir + QStringLiteral("/go"));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QElapsedTimer wait;
        wait.start();
        while (!QFileInfo::exists(remoteDir + QStringLiteral("/exit-code")) && wait.elapsed() < 20000)
            QTest::qWait(50);
        QCOMPARE(readAll(remoteMetrics), fixture);

        auto counting = std::make_shared<CountingTransport>(loc->transport);
        launch::RunMonitor m2(counting, loc->runDir);
        m2.setMirrorPath(loc->mirrorPath);
        bool ended = false;
        launch::JobState final = launch::JobState::Starting;
        QList<qint64> offsets;
        connect(&m2, &launch::RunMonitor::recordsReady, this, [&](const QList<metrics::Record>& rs, qint64) {
            for (const metrics::Record& r : rs)
                offsets << recordOffset(r);
        });
        connect(&m2, &launch::RunMonitor::ended, this, [&](launch::JobState s) {
            ended = true;
            final = s;
        });
        m2.start(offset1);
        QTRY_VERIFY_WITH_TIMEOUT(ended, 20000);
        QCOMPARE(launch::jobStateName(final), QStringLiteral("finished"));
        // Byte-identical, no duplicate: the mirror's prefix was read locally, the head sent the rest.
        QCOMPARE(readAll(loc->mirrorPath), fixture);
        QCOMPARE(readAll(loc->mirrorPath), readAll(remoteMetrics));
        // Emitted: the 12 lines from offset1 on, each once; the store holds all 15 (10 steps).
        QCOMPARE(offsets.size(), 12);
        QCOMPARE(offsets.first(), offset1);
        QCOMPARE(QSet<qint64>(offsets.begin(), offsets.end()).size(), offsets.size());
        QCOMPARE(m2.store().rowCount(), qint64(10));
        QCOMPARE(m2.metricsOffset(), qint64(fixture.size()));
        // What the mirror held was not fetched again: the head sent only the rest.
        QCOMPARE(counting->metricsBytes, qint64(fixture.size() - firstPart));

        // A follower with no emit offset replays all 15 from the mirror, the mirror unchanged.
        {
            launch::RunMonitor m3(loc->transport, loc->runDir);
            m3.setMirrorPath(loc->mirrorPath);
            qsizetype records = 0;
            bool e3 = false;
            connect(&m3, &launch::RunMonitor::recordsReady, this,
                    [&](const QList<metrics::Record>& rs, qint64) { records += rs.size(); });
            connect(&m3, &launch::RunMonitor::ended, this, [&] { e3 = true; });
            pollUntil(m3, e3, [] { return false; });
            QVERIFY(e3);
            QCOMPARE(records, qsizetype(15));
            QCOMPARE(readAll(loc->mirrorPath), fixture);
        }

        // Sync: the record is final, with the logs and the exit code.
        const auto synced = launch::RemoteRuns::sync(*loc->transport, loc->runDir, record);
        QVERIFY2(synced.ok(), qPrintable(synced.errorString()));
        QCOMPARE(launch::jobStateName(synced.value()), QStringLiteral("finished"));
        QVERIFY(launch::readRemoteRecord(record)->synced);
        QCOMPARE(readAll(record + QStringLiteral("/exit-code")).trimmed(), QByteArray("0"));
        QCOMPARE(readAll(record + QStringLiteral("/stderr.log")), readAll(remoteDir + QStringLiteral("/stderr.log")));
        QVERIFY(readAll(record + QStringLiteral("/stderr.log")).contains("rank 0: done"));
        QVERIFY(readAll(record + QStringLiteral("/stdout.log")).contains("fake mpirun"));
        QVERIFY(!QFileInfo::exists(record + QStringLiteral("/pid")));
        // The owner's only, as on the head (docs/users/security.md).
        for (const char* name : {"exit-code", "stderr.log", "stdout.log", "run.json", "remote.json", "spec.json"}) {
            const QString path = record + QLatin1Char('/') + QLatin1String(name);
            QVERIFY2(QFileInfo::exists(path), name);
            QVERIFY2(modeOf(path) == 0600, qPrintable(QStringLiteral("%1: %2").arg(path).arg(modeOf(path), 0, 8)));
        }
        m_finishedRecord = record;
        m_finishedRemoteDir = remoteDir;
        m_finishedMetrics = fixture;
    }

    void syncFillsAMirrorNobodyFollowed()
    {
        // Launched and never followed: sync alone brings the whole metrics file over.
        const QByteArray body =
            "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; esac; done\n"
            "cat '" +
            kFixture.toUtf8() + "' > \"$m\"\nexit 3\n";
        const cluster::ClusterProfile p = profile(writeScript(QStringLiteral("mpirun-fail"), body));
        auto t = transport(p);
        QVERIFY(t);
        const auto launched = launch::RemoteRuns::launch(*t, spec(QStringLiteral("unfollowed")), p, m_localRuns);
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        QElapsedTimer wait;
        wait.start();
        while (!QFileInfo::exists(launched->outcome.runDir + QStringLiteral("/exit-code")) && wait.elapsed() < 20000)
            QTest::qWait(50);
        const auto s = launch::RemoteRuns::sync(*t, launched->outcome.runDir, launched->localDir);
        QVERIFY2(s.ok(), qPrintable(s.errorString()));
        QCOMPARE(launch::jobStateName(s.value()), QStringLiteral("failed"));
        QCOMPARE(readAll(launched->mirrorPath), readAll(kFixture));
        for (const launch::RunSummary& r : launch::listRuns(m_localRuns)) {
            if (r.runDir == launched->localDir) {
                QCOMPARE(launch::jobStateName(r.state), QStringLiteral("failed"));
                QCOMPARE(r.exitCode.value_or(-1), 3);
                QCOMPARE(r.lastStep, qint64(10));
                QVERIFY(r.synced);
            }
        }
    }

    void resumeThroughRecord()
    {
        // Attempt 1 writes 5 lines and a checkpoint, then fails; attempt 2 (--resume=latest) appends the rest.
        const QByteArray body = "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; "
                                "--resume=latest) r=1;; esac; done\n"
                                "f='" +
                                kFixture.toUtf8() +
                                "'\nd=$(dirname \"$m\")\n"
                                "if [ -z \"$r\" ]; then head -n 5 \"$f\" > \"$m\"; mkdir -p "
                                "\"$d/out/checkpoints/latest\"; echo 'attempt 1 died' >&2; exit 3; fi\n"
                                "tail -n +6 \"$f\" >> \"$m\"\necho 'attempt 2 ok' >&2\nexit 0\n";
        const cluster::ClusterProfile p = profile(writeScript(QStringLiteral("mpirun-resume"), body));
        auto t = transport(p);
        QVERIFY(t);
        const auto launched = launch::RemoteRuns::launch(*t, spec(QStringLiteral("resumed")), p, m_localRuns);
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        const QString remoteDir = launched->outcome.runDir, record = launched->localDir;
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(remoteDir + QStringLiteral("/exit-code")), 20000);
        const auto first = launch::RemoteRuns::sync(*t, remoteDir, record);
        QVERIFY2(first.ok(), qPrintable(first.errorString()));
        QCOMPARE(launch::jobStateName(first.value()), QStringLiteral("failed"));
        QCOMPARE(readAll(record + QStringLiteral("/exit-code")).trimmed(), QByteArray("3"));

        const auto loc = launch::locateRun(record, ssh::sshTransportFactory());
        QVERIFY2(loc.ok(), qPrintable(loc.errorString()));
        const auto resumed = launch::Launcher::resume(*loc->transport, loc->runDir);
        QVERIFY2(resumed.ok(), qPrintable(resumed.errorString()));
        launch::RemoteRuns::reopen(*loc->transport, loc->runDir, record, 1);
        // The record is live again: the previous attempt's copies moved aside, attempts from the head.
        QVERIFY(!QFileInfo::exists(record + QStringLiteral("/exit-code")));
        QCOMPARE(readAll(record + QStringLiteral("/attempt-1/exit-code")).trimmed(), QByteArray("3"));
        QCOMPARE(modeOf(record + QStringLiteral("/attempt-1")), 0700u);
        QCOMPARE(modeOf(record + QStringLiteral("/attempt-1/exit-code")), 0600u);
        QCOMPARE(modeOf(record + QStringLiteral("/run.json")), 0600u);
        QVERIFY(!launch::readRemoteRecord(record)->synced);
        QCOMPARE(launch::readRunInfo(*loc->transport, record)->attempts, 2);
        for (const launch::RunSummary& r : launch::listRuns(m_localRuns)) {
            if (r.runDir == record)
                QVERIFY(!launch::isFinal(r.state));
        }

        launch::RunMonitor m(loc->transport, loc->runDir);
        m.setMirrorPath(loc->mirrorPath);
        bool ended = false;
        connect(&m, &launch::RunMonitor::ended, this, [&] { ended = true; });
        pollUntil(m, ended, [] { return false; });
        QVERIFY(ended);
        QCOMPARE(launch::jobStateName(m.state()), QStringLiteral("finished"));
        QCOMPARE(readAll(loc->mirrorPath), readAll(kFixture));
        const auto second = launch::RemoteRuns::sync(*loc->transport, loc->runDir, record);
        QVERIFY2(second.ok(), qPrintable(second.errorString()));
        QCOMPARE(launch::jobStateName(second.value()), QStringLiteral("finished"));
        QVERIFY(readAll(record + QStringLiteral("/stderr.log")).contains("attempt 2 ok"));
        QCOMPARE(readAll(record + QStringLiteral("/exit-code")).trimmed(), QByteArray("0"));
    }

    void cancelThroughRecordReachesRemoteGroup()
    {
        const QByteArray body = "#!/bin/sh\nsleep 300 &\nwait\n";
        const cluster::ClusterProfile p = profile(writeScript(QStringLiteral("mpirun-sleep"), body));
        auto t = transport(p);
        QVERIFY(t);
        const auto launched = launch::RemoteRuns::launch(*t, spec(QStringLiteral("to cancel")), p, m_localRuns);
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        const QString remoteDir = launched->outcome.runDir;
        // The head is this machine: its pid file names a live process group here.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(remoteDir + QStringLiteral("/pid")), 10000);
        // The pid file is "PID START_TIME BOOT_ID" (the run's identity, docs/users/security.md).
        const qint64 pgid = readAll(remoteDir + QStringLiteral("/pid")).trimmed().split(' ').value(0).toLongLong();
        QVERIFY(pgid > 1);
        launch::LocalTransport here;
        QTRY_COMPARE_WITH_TIMEOUT(int(here.signalProcessGroup(pgid, 0)), int(launch::SignalResult::Delivered), 5000);

        const auto loc = launch::locateRun(launched->localDir, ssh::sshTransportFactory()); // as the CLI and the GUI do
        QVERIFY2(loc.ok(), qPrintable(loc.errorString()));
        QVERIFY(!loc->transport->isLocal());
        const auto state = launch::Launcher::cancel(*loc->transport, loc->runDir, 3000);
        QVERIFY2(state.ok(), qPrintable(state.errorString()));
        QCOMPARE(launch::jobStateName(state.value()), QStringLiteral("cancelled"));
        QCOMPARE(int(here.signalProcessGroup(pgid, 0)), int(launch::SignalResult::NoSuchProcess));
        QVERIFY(QFileInfo::exists(remoteDir + QStringLiteral("/cancel-requested")));
        const auto synced = launch::RemoteRuns::sync(*loc->transport, loc->runDir, loc->localDir);
        QVERIFY2(synced.ok(), qPrintable(synced.errorString()));
        QVERIFY(QFileInfo::exists(launched->localDir + QStringLiteral("/cancel-requested")));
    }

    void cliLaunchAndRunsJson()
    {
        const QByteArray body =
            "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; esac; done\n"
            "cat '" +
            kFixture.toUtf8() + "' > \"$m\"\nexit 0\n";
        const cluster::ClusterProfile p = profile(writeScript(QStringLiteral("mpirun-cli"), body));
        QVERIFY(p.save(path(QStringLiteral("remote-profile.json"))).ok());
        QFile specFile(path(QStringLiteral("cli-spec.json")));
        QVERIFY(specFile.open(QIODevice::WriteOnly));
        specFile.write(
            // The data lives on the head (a remote run's files are not looked for on this machine).
            R"({"version":1,"name":"cli-remote","ranks":2,"trainer":{"preset":"qwen2-tiny","max-steps":3,"data":"/srv/corpus.jsonl"}})");
        specFile.close();
        const QString runs = path(QStringLiteral("cli-runs"));
        auto cli = [&](const QStringList& args, QByteArray* out, QByteArray* err) {
            QProcess proc;
            proc.setWorkingDirectory(m_tmp.path());
            proc.start(QString::fromUtf8(TRAINDECK_CLI), args);
            if (!proc.waitForFinished(60000))
                return -1;
            *out = proc.readAllStandardOutput();
            *err = proc.readAllStandardError();
            return proc.exitCode();
        };
        QByteArray out, err;
        const int rc =
            cli({QStringLiteral("launch"), QStringLiteral("--spec"), specFile.fileName(), QStringLiteral("--profile"),
                 path(QStringLiteral("remote-profile.json")), QStringLiteral("--runs-dir"), runs},
                &out, &err);
        QVERIFY2(rc == 0, err.constData());
        QVERIFY2(err.contains("127.0.0.2"), err.constData()); // says where the run is
        const QString runId = QString::fromUtf8(out.split('\n').first().trimmed());
        QVERIFY(!runId.isEmpty());
        const QString remoteDir = QDir::cleanPath(m_headDir + QStringLiteral("/runs/") + runId);
        QCOMPARE(readAll(runs + QLatin1Char('/') + runId + QStringLiteral("/metrics.jsonl")),
                 readAll(remoteDir + QStringLiteral("/metrics.jsonl")));

        QCOMPARE(
            cli({QStringLiteral("runs"), QStringLiteral("--json"), QStringLiteral("--runs-dir"), runs}, &out, &err), 0);
        const QJsonArray a = QJsonDocument::fromJson(out).array();
        QCOMPARE(a.size(), 1);
        const QJsonObject o = a.first().toObject();
        QCOMPARE(o.value(QStringLiteral("run_id")).toString(), runId);
        QCOMPARE(o.value(QStringLiteral("remote")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("remote_run_dir")).toString(), remoteDir);
        QVERIFY(o.value(QStringLiteral("head")).toString().contains(QStringLiteral("127.0.0.2")));
        QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
        QCOMPARE(o.value(QStringLiteral("last_step")).toInt(), 10);
        QCOMPARE(o.value(QStringLiteral("synced")).toBool(), true);
    }

    // Last: the sshd goes away; the finished run's record still lists and opens.
    void finishedRecordWorksOffline()
    {
        QVERIFY(!m_finishedRecord.isEmpty());
        m_server.stop();
        const QList<launch::RunSummary> runs = launch::listRuns(m_localRuns);
        bool found = false;
        for (const launch::RunSummary& r : runs) {
            if (r.runDir != m_finishedRecord)
                continue;
            found = true;
            QVERIFY(r.remote);
            QVERIFY(r.synced);
            QCOMPARE(launch::jobStateName(r.state), QStringLiteral("finished"));
            QCOMPARE(r.lastStep, qint64(10));
            QCOMPARE(r.exitCode.value_or(-1), 0);
        }
        QVERIFY(found);
        // Open offline: the record alone (local transport) gives the whole run and its state.
        launch::RunMonitor m(std::make_shared<launch::LocalTransport>(), m_finishedRecord);
        m.poll();
        QCOMPARE(launch::jobStateName(m.state()), QStringLiteral("finished"));
        QCOMPARE(m.store().rowCount(), qint64(10));
        metrics::MetricStore store;
        QVERIFY(store.loadFile(m_finishedRecord + QStringLiteral("/metrics.jsonl")).ok());
        QCOMPARE(store.lastStep(), qint64(10));
        // And the head really is unreachable now.
        QVERIFY(!launch::locateRun(m_finishedRecord, ssh::sshTransportFactory()).ok());
    }
};

QTEST_GUILESS_MAIN(TestRemoteRuns)
#include "tst_remote_runs.moc"
