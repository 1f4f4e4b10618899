// SshSession and SshConnection against a real OpenSSH server (tests/fixtures/ssh): host keys (first
// contact, changed key, StrictHostKeyChecking=no in the config), ~/.ssh/config aliases, connect
// timeout, exit codes and signals, streamed and large outputs, stdin, per-command timeout,
// cancellation, the async API, and a dead link (network namespace, skipped where unavailable).
#include "process_state.h"
#include "sshd_fixture.h"

#include "cluster/clusterprofile.h"
#include "ssh/commandrunner.h"
#include "ssh/sshconnection.h"
#include "ssh/sshsession.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QThread>

#include <csignal>
#include <thread>

using namespace traindeck::ssh;
using traindeck::Diagnostics;
using traindeck::shellQuote;
using traindeck::Status;
using namespace traindeck::testing;

class TestSshSession : public QObject {
    Q_OBJECT

  private:
    SshdInstance m_server{QStringLiteral("n1")};
    std::unique_ptr<SshClientEnv> m_client;

    // A client whose known_hosts already has the server.
    SshTarget trustedTarget()
    {
        SshTarget t = m_client->target(m_server);
        QFile f(t.knownHosts);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write((m_server.knownHostsLine() + QLatin1Char('\n')).toUtf8());
        return t;
    }
    std::unique_ptr<SshSession> openSession()
    {
        auto s = std::make_unique<SshSession>(trustedTarget());
        if (const Status opened = s->open(); !opened)
            qWarning() << opened.errorString();
        return s;
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        m_server.authorize(m_client->publicKeyLine());
    }

    // One rule for every front end (the SSH wizard, the node checks, the link test): the node's own fields
    // from the profile, how to connect from the caller's settings.
    void targetForAppliesTheConnectionSettings()
    {
        traindeck::cluster::ClusterProfile profile;
        profile.knownHosts = QStringLiteral("/profile/known_hosts");
        traindeck::cluster::ClusterNode node;
        node.host = QStringLiteral("worker1");
        node.port = 2222;
        node.user = QStringLiteral("trainer");
        SshTarget connection;
        connection.configFile = QStringLiteral("none");
        connection.useAgent = false;
        connection.useDefaultIdentities = false;
        connection.identity = QStringLiteral("/keys/id_ed25519");
        connection.globalKnownHosts = QStringLiteral("/etc/global_known_hosts");
        connection.keepaliveIntervalMs = 700;
        connection.keepaliveCountMax = 2;
        connection.connectTimeoutMs = 1234;
        SshTarget t = SshSession::targetFor(profile, node, connection);
        QCOMPARE(t.host, QStringLiteral("worker1"));
        QCOMPARE(t.port, 2222);
        QCOMPARE(t.user, QStringLiteral("trainer"));
        QCOMPARE(t.knownHosts, profile.knownHosts); // the caller names none
        QCOMPARE(t.globalKnownHosts, connection.globalKnownHosts);
        QCOMPARE(t.configFile, QStringLiteral("none"));
        QVERIFY(!t.useAgent);
        QVERIFY(!t.useDefaultIdentities);
        QCOMPARE(t.identity, connection.identity); // the node names none
        QCOMPARE(t.keepaliveIntervalMs, 700);
        QCOMPARE(t.keepaliveCountMax, 2);
        QCOMPARE(t.connectTimeoutMs, 1234);

        node.identity = QStringLiteral("/keys/node_key");
        connection.knownHosts = QStringLiteral("/test/known_hosts");
        t = SshSession::targetFor(profile, node, connection);
        QCOMPARE(t.identity, node.identity);
        QCOMPARE(t.knownHosts, connection.knownHosts);
    }

    void firstContactRejected()
    {
        SshTarget t = m_client->target(m_server);
        QFile::remove(t.knownHosts);
        HostKeyInfo seen;
        int asked = 0;
        SshSession s(t);
        s.setPrompts({[&](const HostKeyInfo& info) {
                          ++asked;
                          seen = info;
                          return HostKeyDecision::Reject;
                      },
                      {}});
        const Status connected = s.connectToHost();
        QVERIFY(!connected);
        QCOMPARE(asked, 1);
        QCOMPARE(connected.errorCode(), QString(codes::HostKeyUnknown));
        QCOMPARE(seen.state, HostKeyInfo::State::Unknown);
        QCOMPARE(seen.fingerprint, m_server.hostKeyFingerprint());
        QVERIFY(seen.fingerprint.startsWith(QLatin1String("SHA256:")));
        QCOMPARE(seen.keyType, QStringLiteral("ssh-ed25519"));
        QVERIFY(connected.firstError().detail.contains(seen.fingerprint));
        QVERIFY(!QFile::exists(t.knownHosts));

        // No prompt at all: rejected too.
        SshSession silent(t);
        const Status silentConnected = silent.connectToHost();
        QVERIFY(!silentConnected);
        QCOMPARE(silentConnected.errorCode(), QString(codes::HostKeyUnknown));
    }

    void firstContactAccepted()
    {
        SshTarget t = m_client->target(m_server);
        QFile::remove(t.knownHosts);
        {
            SshSession once(t);
            once.setPrompts({[](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; }, {}});
            const Status onceOpened = once.open();
            QVERIFY2(onceOpened.ok(), qPrintable(onceOpened.errorString()));
            QVERIFY(!QFile::exists(t.knownHosts));
        }
        SshSession s(t);
        s.setPrompts({[](const HostKeyInfo&) { return HostKeyDecision::AcceptAndSave; }, {}});
        const Status opened = s.open();
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        QFile f(t.knownHosts);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString content = QString::fromUtf8(f.readAll());
        QVERIFY2(content.contains(QStringLiteral("[127.0.0.1]:%1 ssh-ed25519 ").arg(m_server.port())),
                 qPrintable(content));
        QVERIFY(content.contains(m_server.hostPublicKeyLine().section(QLatin1Char(' '), 1, 1)));
        // Known now: no question.
        SshSession again(t);
        int asked = 0;
        again.setPrompts({[&](const HostKeyInfo&) {
                              ++asked;
                              return HostKeyDecision::Reject;
                          },
                          {}});
        const Status againOpened = again.open();
        QVERIFY2(againOpened.ok(), qPrintable(againOpened.errorString()));
        QCOMPARE(asked, 0);
        QCOMPARE(again.hostKey().state, HostKeyInfo::State::Known);
        QCOMPARE(again.authMethodUsed(), QStringLiteral("publickey"));
    }

    void configAliasHonoured()
    {
        SshTarget t = trustedTarget();
        m_client->writeConfig(
            QStringLiteral("Host mynode\n  HostName 127.0.0.1\n  Port %1\n  User root\n  IdentityFile %2\n")
                .arg(m_server.port())
                .arg(m_client->identity()));
        t.host = QStringLiteral("mynode");
        t.port = 0;
        t.user.clear();
        t.identity.clear();
        t.useDefaultIdentities = true; // the config's IdentityFile
        SshSession s(t);
        const Status opened = s.open();
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        QCOMPARE(s.resolvedHost(), QStringLiteral("127.0.0.1"));
        QCOMPARE(s.resolvedPort(), m_server.port());
        QCOMPARE(s.resolvedUser(), QStringLiteral("root"));
        QCOMPARE(s.exec(QStringLiteral("echo ok")).stdOut, QByteArray("ok\n"));
        m_client->writeConfig(QString());
    }

    void changedHostKeyRefused_data()
    {
        QTest::addColumn<QString>("config");
        QTest::addRow("plain") << QString();
        QTest::addRow("StrictHostKeyChecking no") << QStringLiteral("Host *\n  StrictHostKeyChecking no\n");
        QTest::addRow("no + /dev/null") << QStringLiteral(
            "Host *\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  GlobalKnownHostsFile /dev/null\n");
    }
    void changedHostKeyRefused()
    {
        QFETCH(QString, config);
        SshdInstance server(QStringLiteral("changing"));
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        server.authorize(m_client->publicKeyLine());
        SshTarget t = m_client->target(server);
        QFile::remove(t.knownHosts);
        m_client->writeConfig(config);

        // Unknown host, config says "no": still asked, and refused without an answer.
        SshSession unknown(t);
        const Status unknownOpened = unknown.open();
        QVERIFY(!unknownOpened);
        QCOMPARE(unknownOpened.errorCode(), QString(codes::HostKeyUnknown));

        SshSession first(t);
        first.setPrompts({[](const HostKeyInfo&) { return HostKeyDecision::AcceptAndSave; }, {}});
        const Status firstOpened = first.open();
        QVERIFY2(firstOpened.ok(), qPrintable(firstOpened.errorString()));
        first.disconnect();

        QVERIFY2(server.regenerateHostKey(&error), qPrintable(error));
        int asked = 0;
        SshSession s(t);
        s.setPrompts({[&](const HostKeyInfo&) {
                          ++asked;
                          return HostKeyDecision::AcceptAndSave;
                      },
                      {}});
        const Status opened = s.open();
        QVERIFY(!opened);
        QCOMPARE(asked, 0); // never offered for acceptance
        QCOMPARE(opened.errorCode(), QString(codes::HostKeyChanged));
        QCOMPARE(s.hostKey().state, HostKeyInfo::State::Changed);
        QCOMPARE(s.hostKey().fingerprint, server.hostKeyFingerprint());
        QVERIFY(opened.firstError().toString().contains(QLatin1String("attack")));
        QVERIFY(
            opened.firstError().detail.contains(QStringLiteral("ssh-keygen -R '[127.0.0.1]:%1'").arg(server.port())));
        m_client->writeConfig(QString());
    }

    void connectTimeout()
    {
        // Listens (the kernel completes the handshake) but never answers: no SSH banner arrives.
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        SshTarget t = m_client->target(m_server);
        t.port = silent.serverPort();
        t.connectTimeoutMs = 1500;
        QElapsedTimer timer;
        timer.start();
        SshSession s(t);
        const Status connected = s.connectToHost();
        QVERIFY(!connected);
        const qint64 ms = timer.elapsed();
        QVERIFY2(ms < 5000, qPrintable(QString::number(ms)));
        QCOMPARE(connected.errorCode(), QString(codes::Timeout));

        // A closed port: refused quickly.
        SshTarget closed = t;
        closed.port = freePort();
        SshSession refused(closed);
        const Status refusedConnected = refused.connectToHost();
        QVERIFY(!refusedConnected);
        QCOMPARE(refusedConnected.errorCode(), QString(codes::Connect));
    }

    void authFailure()
    {
        SshTarget t = trustedTarget();
        SshClientEnv other; // a key the server does not know
        t.identity = other.identity();
        SshSession s(t);
        const Status opened = s.open();
        QVERIFY(!opened);
        QCOMPARE(opened.errorCode(), QString(codes::Auth));
        QVERIFY(opened.firstError().message.contains(QLatin1String("publickey")));
    }

    void exitCodes_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("code");
        QTest::addRow("true") << QStringLiteral("true") << 0;
        QTest::addRow("false") << QStringLiteral("false") << 1;
        QTest::addRow("exit 3") << QStringLiteral("exit 3") << 3;
        QTest::addRow("exit 255") << QStringLiteral("exit 255") << 255;
        QTest::addRow("not found") << QStringLiteral("no-such-command-traindeck") << 127;
    }
    void exitCodes()
    {
        QFETCH(QString, command);
        QFETCH(int, code);
        auto s = openSession();
        const ExecResult r = s->exec(command);
        QCOMPARE(r.status, ExecResult::Status::Exited);
        QCOMPARE(r.exitCode, code);
        QCOMPARE(r.ok(), code == 0);
    }

    void exitSignals_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("signal");
        QTest::addRow("TERM") << QStringLiteral("kill -TERM $$") << QStringLiteral("TERM");
        QTest::addRow("KILL") << QStringLiteral("kill -KILL $$") << QStringLiteral("KILL");
        QTest::addRow("SEGV") << QStringLiteral("kill -SEGV $$") << QStringLiteral("SEGV");
    }
    void exitSignals()
    {
        QFETCH(QString, command);
        QFETCH(QString, signal);
        auto s = openSession();
        const ExecResult r = s->exec(QStringLiteral("exec sh -c ") + shellQuote(command));
        QCOMPARE(r.status, ExecResult::Status::Signalled);
        QCOMPARE(r.exitSignal, signal);
        QVERIFY(r.describe().contains(signal));
    }

    void streamedLines()
    {
        auto s = openSession();
        QList<QByteArray> out, err;
        ExecOptions o;
        o.onStdoutLine = [&](const QByteArray& l) { out << l; };
        o.onStderrLine = [&](const QByteArray& l) { err << l; };
        const ExecResult r =
            s->exec(QStringLiteral("echo one; echo two >&2; printf 'three\\r\\nfour'; echo five >&2"), o);
        QVERIFY(r.ok());
        QCOMPARE(out, (QList<QByteArray>{"one", "three", "four"}));
        QCOMPARE(err, (QList<QByteArray>{"two", "five"}));
        QCOMPARE(r.stdOut, QByteArray("one\nthree\r\nfour"));
    }

    void largeOutput()
    {
        auto s = openSession();
        const qint64 size = 10 * 1024 * 1024;
        qint64 lines = 0;
        ExecOptions o;
        o.onStdoutLine = [&](const QByteArray&) { ++lines; };
        QElapsedTimer t;
        t.start();
        const ExecResult r = s->exec(QStringLiteral("yes 0123456789abcdef | head -c %1; echo tail >&2").arg(size), o);
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QCOMPARE(r.stdOut.size(), size);
        QCOMPARE(r.stdOutBytes, size);
        QCOMPARE(lines, (size + 16) / 17);
        QCOMPARE(r.stdErr, QByteArray("tail\n"));
        QVERIFY(r.stdOut.startsWith("0123456789abcdef\n0123"));
        qInfo("10 MB in %lld ms", t.elapsed());

        // Capped capture still counts everything.
        ExecOptions capped;
        capped.maxCaptureBytes = 1000;
        const ExecResult c = s->exec(QStringLiteral("head -c 100000 /dev/zero"), capped);
        QCOMPARE(c.stdOut.size(), 1000);
        QCOMPARE(c.stdOutBytes, 100000);
    }

    void stdinData()
    {
        auto s = openSession();
        ExecOptions o;
        o.stdinData = QByteArray(1024 * 1024, 'z') + "end";
        const ExecResult r = s->exec(QStringLiteral("wc -c"), o);
        QVERIFY(r.ok());
        QCOMPARE(r.stdOut.trimmed().toInt(), 1024 * 1024 + 3);
    }

    void commandTimeout()
    {
        auto s = openSession();
        QElapsedTimer t;
        t.start();
        const ExecResult r = s->exec(QStringLiteral("echo started; sleep 30"), ExecOptions::withTimeout(700));
        QCOMPARE(r.status, ExecResult::Status::TimedOut);
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(r.stdOut, QByteArray("started\n"));
        // The session is still usable.
        QCOMPARE(s->exec(QStringLiteral("echo again")).stdOut, QByteArray("again\n"));
    }

    void cancellation()
    {
        auto s = openSession();
        const QString pidFile = m_client->dir() + QStringLiteral("/sleep.pid");
        ExecOptions o;
        CancelToken token = o.cancel;
        std::thread canceller([token, pidFile] {
            for (int i = 0; i < 100 && !QFile::exists(pidFile); ++i)
                QThread::msleep(20);
            QThread::msleep(100);
            token.cancel();
        });
        QElapsedTimer t;
        t.start();
        const ExecResult r = s->exec(QStringLiteral("echo $$ > %1; exec sleep 30").arg(shellQuote(pidFile)), o);
        canceller.join();
        QCOMPARE(r.status, ExecResult::Status::Cancelled);
        QVERIFY(t.elapsed() < 5000);
        // sshd delivered SIGTERM to the remote process (same machine here): it is gone.
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const pid_t pid = pid_t(f.readAll().trimmed().toInt());
        QVERIFY(pid > 0);
        bool gone = false;
        for (int i = 0; i < 100 && !gone; ++i) {
            gone = ::kill(pid, 0) != 0;
            if (!gone)
                QThread::msleep(20);
        }
        if (!gone) {
            QByteArray ps;
            runProgram(QStringLiteral("ps"),
                       {QStringLiteral("-o"), QStringLiteral("pid,ppid,pgid,stat,cmd"), QStringLiteral("-p"),
                        QString::number(pid)},
                       &ps);
            QFile log(m_server.dir() + QStringLiteral("/sshd.log"));
            log.open(QIODevice::ReadOnly);
            qWarning().noquote() << ps << log.readAll();
        }
        QVERIFY2(gone, "the remote sleep survived the cancellation");
        QCOMPARE(s->exec(QStringLiteral("echo alive")).stdOut, QByteArray("alive\n"));
    }

    // A login that talks on stderr before the command (a ~/.bashrc here, which bash sources for every
    // command over SSH) must not hide the process-group marker: a timeout still ends what the command
    // started.
    void timeoutEndsTheGroupDespiteLoginNoise()
    {
        SshdInstance noisy(QStringLiteral("noisy"));
        QString error;
        QVERIFY2(noisy.start(&error), qPrintable(error));
        if (!noisy.setSessionBashrc("echo 'welcome to the cluster' >&2\n"))
            QSKIP("the fixture's sessions have no ~/.bashrc of their own here (needs root, ~/.bashrc, unshare)");
        noisy.authorize(m_client->publicKeyLine());
        SshTarget t = m_client->target(noisy);
        QFile known(t.knownHosts);
        QVERIFY(known.open(QIODevice::WriteOnly | QIODevice::Truncate));
        known.write((noisy.knownHostsLine() + QLatin1Char('\n')).toUtf8());
        known.close();
        SshSession s(t);
        const Status opened = s.open();
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));

        const QString pidFile = m_client->dir() + QStringLiteral("/noisy-background.pid");
        const ExecResult r =
            s.exec(QStringLiteral("sh -c 'trap \"\" TERM; sleep 30' & echo $! > %1; wait").arg(shellQuote(pidFile)),
                   ExecOptions::withTimeout(1500));
        QCOMPARE(r.status, ExecResult::Status::TimedOut);
        QVERIFY2(r.stdErr.contains("welcome to the cluster") && !r.stdErr.contains("TRAINDECK_PGID"),
                 r.stdErr.constData());
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const qint64 pid = f.readAll().trimmed().toLongLong();
        QVERIFY(pid > 1);
        QTRY_VERIFY_WITH_TIMEOUT(!processRunning(pid), 8000); // TERM to the group, KILL 2 s later
    }

    void localRunnerSameSemantics()
    {
        LocalRunner local;
        QCOMPARE(local.run(QStringLiteral("exit 4")).exitCode, 4);
        const ExecResult sig = local.run(QStringLiteral("kill -TERM $$"));
        QCOMPARE(sig.status, ExecResult::Status::Signalled);
        QCOMPARE(sig.exitSignal, QStringLiteral("TERM"));
        QList<QByteArray> err;
        ExecOptions o;
        o.onStderrLine = [&](const QByteArray& l) { err << l; };
        QCOMPARE(local.run(QStringLiteral("echo e1 >&2; echo e2 >&2"), o).stdErr, QByteArray("e1\ne2\n"));
        QCOMPARE(err, (QList<QByteArray>{"e1", "e2"}));
        QElapsedTimer t;
        t.start();
        QCOMPARE(local.run(QStringLiteral("sleep 30"), ExecOptions::withTimeout(300)).status,
                 ExecResult::Status::TimedOut);
        QVERIFY(t.elapsed() < 3000);
    }

    void asyncConnection()
    {
        SshTarget t = m_client->target(m_server);
        QFile::remove(t.knownHosts);
        SshConnection conn(t);
        QStringList questions;
        connect(conn.prompts(), &PromptBroker::hostKeyQuestion, this, [&](quint64 id, const HostKeyInfo& info) {
            QCOMPARE(QThread::currentThread(), this->thread()); // asked in the GUI thread
            questions << info.fingerprint;
            conn.prompts()->answerHostKey(id, HostKeyDecision::AcceptAndSave);
        });
        QSignalSpy connected(&conn, &SshConnection::connected);
        QSignalSpy failed(&conn, &SshConnection::connectFailed);
        conn.connectToHost();
        // The worker thread emits and QSignalSpy records it there: the signal may already be in before wait() starts.
        QTRY_COMPARE_WITH_TIMEOUT(connected.size(), 1, 10000);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(questions, QStringList{m_server.hostKeyFingerprint()});
        QCOMPARE(conn.state(), SshConnection::State::Connected);

        QStringList out, err;
        connect(&conn, &SshConnection::stdoutLine, this, [&](quint64, const QString& l) {
            QCOMPARE(QThread::currentThread(), this->thread());
            out << l;
        });
        connect(&conn, &SshConnection::stderrLine, this, [&](quint64, const QString& l) { err << l; });
        QSignalSpy finished(&conn, &SshConnection::finished);
        const quint64 a = conn.exec(QStringLiteral("echo hi; echo oops >&2; exit 4"));
        const quint64 b = conn.exec(QStringLiteral("sleep 30"));
        const quint64 c = conn.exec(QStringLiteral("echo after"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        conn.cancel(b);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 10000);
        QCOMPARE(finished.at(0).at(0).toULongLong(), a);
        const ExecResult ra = finished.at(0).at(1).value<ExecResult>();
        QCOMPARE(ra.exitCode, 4);
        QCOMPARE(finished.at(1).at(0).toULongLong(), b);
        QCOMPARE(finished.at(1).at(1).value<ExecResult>().status, ExecResult::Status::Cancelled);
        QCOMPARE(finished.at(2).at(0).toULongLong(), c);
        QVERIFY2(finished.at(2).at(1).value<ExecResult>().ok(),
                 qPrintable(finished.at(2).at(1).value<ExecResult>().describe() +
                            QString::fromUtf8(finished.at(2).at(1).value<ExecResult>().stdErr)));
        // QSignalSpy records `finished` directly in the worker thread; the line signals are queued to this
        // thread: let them arrive.
        QTRY_COMPARE_WITH_TIMEOUT(out, (QStringList{QStringLiteral("hi"), QStringLiteral("after")}), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(err, QStringList{QStringLiteral("oops")}, 5000);
        QObject::disconnect(&conn, nullptr, this, nullptr);
    }

    void asyncConnectFailure()
    {
        SshTarget t = m_client->target(m_server);
        t.port = freePort();
        SshConnection conn(t);
        QSignalSpy failed(&conn, &SshConnection::connectFailed);
        conn.connectToHost();
        // A refused connection can fail in the worker thread before this thread would start wait().
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QCOMPARE(failed.at(0).at(0).value<Diagnostics>().value(0).code, QString(codes::Connect));
        QCOMPARE(conn.state(), SshConnection::State::Disconnected);
    }

    // A node that vanishes while a command runs: keepalive + TCP user timeout notice it.
    void deadLink()
    {
        const QString ns = QStringLiteral("tdssh%1").arg(QCoreApplication::applicationPid() % 100000);
        const QString hostIf = ns + QStringLiteral("a"), nsIf = ns + QStringLiteral("b");
        const int octet = 100 + int(QCoreApplication::applicationPid() % 100);
        const QString hostAddr = QStringLiteral("10.231.%1.1").arg(octet),
                      nsAddr = QStringLiteral("10.231.%1.2").arg(octet);
        auto ip = [](const QStringList& args) { return runProgram(QStringLiteral("ip"), args); };
        if (ip({QStringLiteral("netns"), QStringLiteral("add"), ns}) != 0)
            QSKIP("cannot create a network namespace here");
        auto cleanup = qScopeGuard([&] {
            ip({QStringLiteral("link"), QStringLiteral("del"), hostIf});
            ip({QStringLiteral("netns"), QStringLiteral("del"), ns});
        });
        QCOMPARE(
            ip({QStringLiteral("link"), QStringLiteral("add"), hostIf, QStringLiteral("type"), QStringLiteral("veth"),
                QStringLiteral("peer"), QStringLiteral("name"), nsIf, QStringLiteral("netns"), ns}),
            0);
        QCOMPARE(ip({QStringLiteral("addr"), QStringLiteral("add"), hostAddr + QStringLiteral("/30"),
                     QStringLiteral("dev"), hostIf}),
                 0);
        QCOMPARE(ip({QStringLiteral("link"), QStringLiteral("set"), hostIf, QStringLiteral("up")}), 0);
        QCOMPARE(ip({QStringLiteral("netns"), QStringLiteral("exec"), ns, QStringLiteral("ip"), QStringLiteral("addr"),
                     QStringLiteral("add"), nsAddr + QStringLiteral("/30"), QStringLiteral("dev"), nsIf}),
                 0);
        QCOMPARE(ip({QStringLiteral("netns"), QStringLiteral("exec"), ns, QStringLiteral("ip"), QStringLiteral("link"),
                     QStringLiteral("set"), nsIf, QStringLiteral("up")}),
                 0);
        ip({QStringLiteral("netns"), QStringLiteral("exec"), ns, QStringLiteral("ip"), QStringLiteral("link"),
            QStringLiteral("set"), QStringLiteral("lo"), QStringLiteral("up")});
        SshdInstance remote(QStringLiteral("netns"));
        QString error;
        QVERIFY2(remote.start(&error, {}, ns, nsAddr), qPrintable(error));
        remote.authorize(m_client->publicKeyLine());
        SshTarget t = m_client->target(remote);
        t.keepaliveIntervalMs = 500;
        t.keepaliveCountMax = 3;
        SshSession s(t);
        s.setPrompts({[](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; }, {}});
        const Status opened = s.open();
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        std::thread cut([&] {
            QThread::msleep(500);
            ip({QStringLiteral("link"), QStringLiteral("set"), hostIf, QStringLiteral("down")});
        });
        QElapsedTimer timer;
        timer.start();
        const ExecResult r = s.exec(QStringLiteral("sleep 60"), ExecOptions::withTimeout(30000));
        cut.join();
        QCOMPARE(r.status, ExecResult::Status::Failed);
        QCOMPARE(r.error.code, QString(codes::LinkLost));
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        remote.stop();
    }
};

QTEST_GUILESS_MAIN(TestSshSession)
#include "tst_ssh_session.moc"
