// SshTransport (launch::Transport over SSH) against a real OpenSSH server on 127.0.0.1
// (tests/fixtures/ssh): run with exit codes, streamed lines and timeout; readFile byte semantics
// (binary data, offsets, past EOF, missing file); writeFile + exists; startDetached surviving the
// channel, liveness of its process group and SIGTERM; one session per calling thread; an unknown
// host refused with the fingerprint; and a Launcher run of a fake mpirun followed by RunMonitor.
#include "sshd_fixture.h"
#include "test_paths.h"

#include "cluster/clusterprofile.h"
#include "launch/launcher.h"
#include "launch/rundir.h"
#include "launch/runmonitor.h"
#include "ssh/sshtransport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <thread>

using namespace traindeck;
using namespace traindeck::ssh;
using namespace traindeck::testing;

class TestSshTransport : public QObject {
    Q_OBJECT

  private:
    SshdInstance m_server{QStringLiteral("tr")};
    std::unique_ptr<SshClientEnv> m_client;
    QTemporaryDir m_tmp; // on this machine = the "head node" (sshd runs here)
    std::shared_ptr<SshTransport> m_t;

    SshTarget trustedTarget()
    {
        SshTarget t = m_client->target(m_server);
        QFile f(t.knownHosts);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write((m_server.knownHostsLine() + QLatin1Char('\n')).toUtf8());
        return t;
    }
    QString path(const QString& name) const { return m_tmp.filePath(name); }

    // Launches a run through `t` on the sshd at `port` whose mpirun is a fake: it runs `before`, writes the
    // first three lines of a 4-rank metrics fixture where --metrics-out says, then runs `after`.
    traindeck::Result<launch::LaunchOutcome> launchFakeRun(launch::Transport& t, int port, const QString& name,
                                                           const QByteArray& before, const QByteArray& after)
    {
        const QString mpirun = path(name + QStringLiteral("-mpirun"));
        const QByteArray body =
            QByteArray(
                "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; esac; done\n") +
            before + "\nhead -n 3 '" + TRAINDECK_SOURCE_DIR +
            "/tests/fixtures/metrics/example-4ranks.jsonl' > \"$m\"\n" + after + "\n";
        if (const traindeck::Status w = t.writeFile(mpirun, body, 0755); !w)
            return traindeck::Result<launch::LaunchOutcome>::failure(w.diagnostics());
        cluster::ClusterProfile profile;
        profile.name = name;
        cluster::ClusterNode head;
        head.name = head.host = QStringLiteral("127.0.0.1");
        head.port = port;
        head.role = cluster::NodeRole::Head;
        head.slots = 2;
        profile.nodes = {head};
        profile.launcher = mpirun;
        profile.extra.insert(QStringLiteral("trainer"), QStringLiteral("/bin/true"));
        launch::JobSpec spec;
        spec.name = name + QStringLiteral(" run");
        spec.ranks = 2;
        spec.trainer.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
        return launch::Launcher::launch(t, spec, profile, path(name + QStringLiteral("-runs")));
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        m_server.authorize(m_client->publicKeyLine());
        m_t = std::make_shared<SshTransport>(trustedTarget());
        const traindeck::Status c = m_t->connect();
        QVERIFY2(c.ok(), qPrintable(c.errorString()));
    }

    void basics()
    {
        QVERIFY(!m_t->isLocal());
        QVERIFY(m_t->runsAsRoot());
        QVERIFY(m_t->displayName().contains(QStringLiteral("127.0.0.1")));
    }

    void runExitCodeAndLines()
    {
        QList<QPair<launch::Transport::Stream, QByteArray>> lines;
        const auto r = m_t->run(QStringLiteral("echo one; echo 'two words'; echo err >&2; printf last; exit 3"), 10000,
                                [&](launch::Transport::Stream s, const QByteArray& l) {
                                    lines.append({s, l});
                                });
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        QCOMPARE(r->exitCode, 3);
        QVERIFY(!r->timedOut);
        QCOMPARE(r->out, QByteArray("one\ntwo words\nlast"));
        QCOMPARE(r->err, QByteArray("err\n"));
        QList<QByteArray> out;
        QList<QByteArray> err;
        for (const auto& [s, l] : lines)
            (s == launch::Transport::Stream::Out ? out : err).append(l);
        QCOMPARE(out, (QList<QByteArray>{"one", "two words", "last"}));
        QCOMPARE(err, (QList<QByteArray>{"err"}));

        // /bin/sh semantics whatever the login shell; quoting survives.
        const auto q = m_t->run(QStringLiteral("x='a b'; printf '%s|' \"$x\" \"it's\""));
        QVERIFY(q.ok());
        QCOMPARE(q->out, QByteArray("a b|it's|"));
        QCOMPARE(q->exitCode, 0);
    }

    void runTimeout()
    {
        QElapsedTimer timer;
        timer.start();
        const auto r = m_t->run(QStringLiteral("sleep 20"), 1000);
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        QVERIFY(r->timedOut);
        QCOMPARE(r->exitCode, -1);
        QVERIFY(timer.elapsed() < 8000);
        // The session is still usable.
        QCOMPARE(m_t->run(QStringLiteral("echo ok"))->out, QByteArray("ok\n"));
    }

    void readFileOffsets()
    {
        QByteArray data;
        for (int i = 0; i < 3000; ++i)
            data.append(char(i % 256));
        data.append("\0\n\0tail", 7);
        const QString f = path(QStringLiteral("binary.bin"));
        {
            QFile out(f);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(data);
        }
        auto whole = m_t->readFile(f, 0, 1 << 20);
        QVERIFY2(whole.ok(), qPrintable(whole.errorString()));
        QCOMPARE(whole->fileSize, qint64(data.size()));
        QCOMPARE(whole->data, data);

        auto mid = m_t->readFile(f, 100, 50); // max smaller than the rest
        QVERIFY(mid.ok());
        QCOMPARE(mid->data, data.mid(100, 50));
        QCOMPARE(mid->fileSize, qint64(data.size()));

        auto rest = m_t->readFile(f, 2990, 1000); // less than max is left
        QVERIFY(rest.ok());
        QCOMPARE(rest->data, data.mid(2990));

        auto atEnd = m_t->readFile(f, data.size(), 10);
        QVERIFY(atEnd.ok());
        QVERIFY(atEnd->data.isEmpty());
        auto past = m_t->readFile(f, data.size() + 1000, 10); // shrunk file: empty, size tells
        QVERIFY(past.ok());
        QVERIFY(past->data.isEmpty());
        QCOMPARE(past->fileSize, qint64(data.size()));
        auto zero = m_t->readFile(f, 0, 0);
        QVERIFY(zero.ok());
        QVERIFY(zero->data.isEmpty());

        QVERIFY(!m_t->readFile(path(QStringLiteral("missing")), 0, 10).ok());
        QVERIFY(!m_t->readFile(m_tmp.path(), 0, 10).ok());
        // A name that needs quoting.
        const QString odd = path(QStringLiteral("it's a $(file); x"));
        {
            QFile out(odd);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write("odd");
        }
        QCOMPARE(m_t->readFile(odd, 1, 10)->data, QByteArray("dd"));
    }

    void writeFileAndExists()
    {
        const QString f = path(QStringLiteral("new/dir/it's.txt"));
        QVERIFY(!m_t->exists(f));
        const QByteArray data("binary\0data\n", 12);
        const traindeck::Status w = m_t->writeFile(f, data, 0640);
        QVERIFY2(w.ok(), qPrintable(w.errorString()));
        QVERIFY(m_t->exists(f));
        QVERIFY(m_t->exists(path(QStringLiteral("new/dir"))));
        QFile in(f);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QCOMPARE(in.readAll(), data);
        QCOMPARE(in.permissions() & 0x7777,
                 QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser | QFile::ReadGroup);
        // Replaced whole; no temporary left behind.
        QVERIFY(m_t->writeFile(f, "short", 0755).ok());
        QCOMPARE(m_t->readFile(f, 0, 100)->data, QByteArray("short"));
        QVERIFY(QFileInfo(f).isExecutable());
        QCOMPARE(QDir(path(QStringLiteral("new/dir"))).entryList(QDir::Files).size(), 1);
        QVERIFY(m_t->writeFile(path(QStringLiteral("empty")), QByteArray()).ok());
        QCOMPARE(QFileInfo(path(QStringLiteral("empty"))).size(), 0);
        // Cannot write below a file.
        QVERIFY(!m_t->writeFile(path(QStringLiteral("empty/x")), "x").ok());
    }

    void detachedLivenessAndTerm()
    {
        const QString pidFile = path(QStringLiteral("detached.pid"));
        const QString script = path(QStringLiteral("detached.sh"));
        QVERIFY(
            m_t->writeFile(script, QStringLiteral("echo $$ > '%1'\nsleep 60 &\nwait $!\n").arg(pidFile).toUtf8(), 0755)
                .ok());
        QVERIFY(!m_t->startDetached(path(QStringLiteral("no-such-script.sh"))).ok());
        QElapsedTimer timer;
        timer.start();
        const traindeck::Status s = m_t->startDetached(script);
        QVERIFY2(s.ok(), qPrintable(s.errorString()));
        QVERIFY(timer.elapsed() < 10000); // returned without waiting for the script
        QTRY_VERIFY_WITH_TIMEOUT(m_t->readFile(pidFile, 0, 100).ok() && !m_t->readFile(pidFile, 0, 100)->data.isEmpty(),
                                 10000);
        const qint64 pgid = m_t->readFile(pidFile, 0, 100)->data.trimmed().toLongLong();
        QVERIFY(pgid > 1);
        // Its own session and group (setsid), not the sshd channel's.
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pgid));
        QVERIFY(stat.open(QIODevice::ReadOnly));
        const QList<QByteArray> fields = stat.readAll().split(')').last().trimmed().split(' ');
        QCOMPARE(fields.value(2).toLongLong(), pgid);
        QCOMPARE(fields.value(3).toLongLong(), pgid);

        QCOMPARE(m_t->signalProcessGroup(pgid, 0), launch::SignalResult::Delivered);
        QCOMPARE(m_t->signalProcessGroup(pgid, SIGTERM), launch::SignalResult::Delivered);
        QTRY_COMPARE_WITH_TIMEOUT(m_t->signalProcessGroup(pgid, 0), launch::SignalResult::NoSuchProcess, 5000);
        // (A real signal to a group of zombies is "delivered", as kill(2) says; a group that never
        // existed is not.)
        QCOMPARE(m_t->signalProcessGroup(4194399, SIGTERM), launch::SignalResult::NoSuchProcess);
        QCOMPARE(m_t->signalProcessGroup(4194399, 0), launch::SignalResult::NoSuchProcess);
        QCOMPARE(m_t->signalProcessGroup(1, 0), launch::SignalResult::Failed);
    }

    void zombieGroupCountsAsDead()
    {
        // A group whose only member is a zombie: its parent (in another group) never reaps it.
        const QString pidFile = path(QStringLiteral("zombie.pid"));
        const auto r =
            m_t->run(QStringLiteral("setsid -f perl -e 'if (my $p = fork) { open F, \">%1\"; print F \"$p $$\\n\"; "
                                    "close F; sleep 30; } else { setpgrp(0, 0); exit 0; }' </dev/null >/dev/null 2>&1")
                         .arg(pidFile));
        if (!r.ok() || r->exitCode != 0)
            QSKIP("perl not available");
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(pidFile).size() > 0, 10000);
        const QList<QByteArray> pids = m_t->readFile(pidFile, 0, 100)->data.trimmed().split(' ');
        const qint64 zombie = pids.value(0).toLongLong();
        const qint64 parent = pids.value(1).toLongLong();
        QVERIFY(zombie > 1);
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                QFile f(QStringLiteral("/proc/%1/stat").arg(zombie));
                return f.open(QIODevice::ReadOnly) && f.readAll().contains(") Z ");
            }(),
            5000);
        QCOMPARE(::kill(pid_t(-zombie), 0), 0); // the kernel still counts it...
        QCOMPARE(m_t->signalProcessGroup(zombie, 0), launch::SignalResult::NoSuchProcess); // ...we do not
        if (parent > 1)
            ::kill(pid_t(parent), SIGTERM);
    }

    void sessionPerThread()
    {
        // Several threads at once, each with its own session.
        std::vector<std::thread> threads;
        std::atomic_int good{0};
        for (int i = 0; i < 4; ++i)
            threads.emplace_back([&, i] {
                for (int k = 0; k < 3; ++k) {
                    const auto r = m_t->run(QStringLiteral("echo %1-%2").arg(i).arg(k));
                    if (r.ok() && r->out == QStringLiteral("%1-%2\n").arg(i).arg(k).toUtf8())
                        ++good;
                }
            });
        for (auto& t : threads)
            t.join();
        QCOMPARE(good.load(), 12);
    }

    void unknownHostRefused()
    {
        SshTarget t = m_client->target(m_server);
        t.knownHosts = path(QStringLiteral("empty_known_hosts"));
        SshTransport strict(t);
        const auto r = strict.run(QStringLiteral("true"));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorString().contains(m_server.hostKeyFingerprint()), qPrintable(r.errorString()));
        QVERIFY(r.errorString().contains(QStringLiteral("--accept-new-host-keys")));
        QVERIFY(!strict.exists(QStringLiteral("/")));
        QVERIFY(!QFile::exists(t.knownHosts));

        SshTransportOptions accept;
        accept.acceptNewHostKeys = true;
        SshTransport lenient(t, accept);
        QVERIFY(lenient.exists(QStringLiteral("/")));
        QFile kh(t.knownHosts);
        QVERIFY(kh.open(QIODevice::ReadOnly));
        QVERIFY(kh.readAll().contains(m_server.hostPublicKeyLine().section(QLatin1Char(' '), 1, 1).toUtf8()));
    }

    void launchAndMonitorOverSsh()
    {
        // A fake mpirun on the "head": writes three metrics lines where --metrics-out says, exits 0.
        const auto r = launchFakeRun(*m_t, m_server.port(), QStringLiteral("ssh"), "echo \"fake mpirun $*\"", "exit 0");
        QVERIFY2(r.ok(), qPrintable(r.errorString()));

        launch::RunMonitor monitor(m_t, r->runDir);
        QList<launch::JobState> states;
        bool ended = false;
        qsizetype records = 0;
        connect(&monitor, &launch::RunMonitor::recordsReady, this,
                [&](const QList<metrics::Record>& rs, qint64) { records += rs.size(); });
        connect(&monitor, &launch::RunMonitor::ended, this, [&](launch::JobState s) {
            ended = true;
            states.append(s);
        });
        QElapsedTimer timer;
        timer.start();
        while (!ended && timer.elapsed() < 20000) {
            monitor.poll();
            QTest::qWait(100);
        }
        QVERIFY(ended);
        QCOMPARE(launch::jobStateName(states.last()), QStringLiteral("finished"));
        QCOMPARE(records, qsizetype(3));
        QCOMPARE(monitor.metricsOffset(), QFileInfo(launch::runFile(r->runDir, launch::runfile::kMetrics)).size());
        QVERIFY(
            m_t->readFile(launch::runFile(r->runDir, launch::runfile::kStdout), 0, 4096)->data.contains("fake mpirun"));
    }

    // Following a run costs one command per poll, one start of the user's login shell, however many
    // files it reads (it was 9: run.json, slurm-job, pid, the pid's identity, its group's liveness,
    // exit-code, cancel-requested, metrics, stderr). A ~/.bashrc that notes every command counts them.
    void pollIsOneCommand()
    {
        SshdInstance counted(QStringLiteral("counted"));
        QString error;
        QVERIFY2(counted.start(&error), qPrintable(error));
        const QString countFile = path(QStringLiteral("commands"));
        if (!counted.setSessionBashrc(QStringLiteral("echo x >> '%1'\n").arg(countFile).toUtf8()))
            QSKIP("the fixture's sessions have no ~/.bashrc of their own here (needs root, ~/.bashrc, unshare)");
        counted.authorize(m_client->publicKeyLine());
        SshTarget target = m_client->target(counted);
        {
            QFile known(target.knownHosts);
            QVERIFY(known.open(QIODevice::WriteOnly | QIODevice::Truncate));
            known.write((counted.knownHostsLine() + QLatin1Char('\n')).toUtf8());
        }
        auto t = std::make_shared<SshTransport>(target);
        const traindeck::Status c = t->connect();
        QVERIFY2(c.ok(), qPrintable(c.errorString()));
        auto commands = [&] {
            QFile f(countFile);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : qsizetype(0);
        };

        // A run that stays up: a fake mpirun that writes three metrics lines, then waits.
        const auto r =
            launchFakeRun(*t, counted.port(), QStringLiteral("counted"), "echo 'rank 0 up' >&2", "exec sleep 60");
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        const QString metrics = launch::runFile(r->runDir, launch::runfile::kMetrics);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(metrics).size() > 0, 20000);
        launch::LocalTransport local;
        const auto pidRecord =
            launch::PidRecord::parse(local.readFile(launch::runFile(r->runDir, launch::runfile::kPid), 0, 256)->data);
        QVERIFY(pidRecord);
        struct KillGroup {
            qint64 pgid;
            ~KillGroup() { ::kill(pid_t(-pgid), SIGKILL); }
        } killAtEnd{pidRecord->pid};

        launch::RunMonitor monitor(t, r->runDir);
        qsizetype records = 0;
        QStringList lines;
        connect(&monitor, &launch::RunMonitor::recordsReady, this,
                [&](const QList<metrics::Record>& rs, qint64) { records += rs.size(); });
        connect(&monitor, &launch::RunMonitor::stderrLines, this, [&](const QStringList& l) { lines += l; });
        for (int poll = 0; poll < 3; ++poll) {
            const qsizetype before = commands();
            monitor.poll();
            QCOMPARE(commands() - before, qsizetype(1));
        }
        QCOMPARE(launch::jobStateName(monitor.state()), QStringLiteral("running"));
        QCOMPARE(records, qsizetype(3));
        QCOMPARE(monitor.metricsOffset(), QFileInfo(metrics).size());
        QVERIFY2(lines.contains(QStringLiteral("rank 0 up")), qPrintable(lines.join(QLatin1Char('|'))));
        QVERIFY(monitor.files().groupAlive);

        // The whole group (its wrapper too) is killed: no exit code, so the run is lost.
        ::kill(pid_t(-pidRecord->pid), SIGKILL);
        QElapsedTimer timer;
        timer.start();
        while (!launch::isFinal(monitor.state()) && timer.elapsed() < 20000) {
            monitor.poll();
            QTest::qWait(100);
        }
        QCOMPARE(launch::jobStateName(monitor.state()), QStringLiteral("lost"));
    }

    void sshFactory()
    {
        cluster::ClusterProfile profile;
        profile.name = QStringLiteral("remote");
        cluster::ClusterNode node;
        node.name = node.host = QStringLiteral("unreachable.invalid");
        profile.nodes = {node};
        const auto t = launch::transportFor(profile, sshTransportFactory());
        QVERIFY(!t.ok()); // a remote profile goes to SSH: the name does not resolve
        QVERIFY2(!t.errorString().contains(QStringLiteral("no SSH transport")), qPrintable(t.errorString()));
        QVERIFY(t.errorString().contains(QStringLiteral("unreachable.invalid")));
        // Without a factory the same profile is refused without trying.
        const auto none = launch::transportFor(profile, {});
        QVERIFY(!none.ok());
        QVERIFY2(none.errorString().contains(QStringLiteral("no SSH transport")), qPrintable(none.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestSshTransport)
#include "tst_ssh_transport.moc"
