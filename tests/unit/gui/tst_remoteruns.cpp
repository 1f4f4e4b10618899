// The GUI with runs on a remote head node, against a real OpenSSH server on 127.0.0.2 (a remote
// profile for launch::isLocalProfile; tests/fixtures/ssh): RunSession::followRecord connects on a
// worker thread, follows the run over SSH, mirrors metrics.jsonl into the local record and syncs it
// when the run ends; the main window reattaches at start to a remote run that is still going, and the
// Runs page lists it with its head node.
#include "mainwindow.h"
#include "runs/operations.h"
#include "runsession.h"
#include "runspage.h"
#include "settings.h"
#include "sshd_fixture.h"
#include "test_paths.h"

#include "cluster/clusterprofile.h"
#include "launch/remoterun.h"
#include "launch/transport.h"
#include "ssh/sshtransport.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;
using namespace traindeck::testing;

namespace {
const QString kFixture =
    QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl");

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}
} // namespace

class TestGuiRemoteRuns : public QObject {
    Q_OBJECT

    SshdInstance m_server{QStringLiteral("gui-remote")};
    std::unique_ptr<SshClientEnv> m_client;
    QTemporaryDir m_tmp;
    QString m_localRuns;

    // A run on the head that writes three lines, waits for RUN_DIR/go, then writes the rest.
    launch::RemoteRuns::Launched launchStaged(const QString& name)
    {
        const QString mpirun = m_tmp.filePath(QStringLiteral("mpirun-staged"));
        if (!QFileInfo::exists(mpirun)) {
            QFile f(mpirun);
            f.open(QIODevice::WriteOnly);
            f.write("#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-out=*) m=${a#--metrics-out=};; esac; done\n"
                    "f='" +
                    kFixture.toUtf8() +
                    "'\nhead -n 3 \"$f\" > \"$m\"\n"
                    "i=0; while [ ! -e \"$(dirname \"$m\")/go\" ]; do [ -d \"$(dirname \"$m\")\" ] && [ $i -lt 2400 ] "
                    "|| exit 1; i=$((i+1)); sleep 0.05; done\ntail -n +4 \"$f\" >> \"$m\"\nexit 0\n");
            f.close();
            f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        const cluster::ClusterProfile p = testing::headOnlyProfile(QStringLiteral("gui-remote"), m_server, *m_client,
                                                                   mpirun, m_tmp.filePath(QStringLiteral("head")));
        launch::JobSpec spec;
        spec.name = name;
        spec.ranks = 2;
        spec.trainer.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
        auto t = launch::transportFor(p, ssh::sshTransportFactory());
        if (!t.ok())
            qFatal("%s", qPrintable(t.errorString()));
        auto r = launch::RemoteRuns::launch(*t.value(), spec, p, m_localRuns);
        if (!r.ok() || !r->remote)
            qFatal("%s", qPrintable(r.errorString()));
        return r.value();
    }

    static void go(const launch::RemoteRuns::Launched& run)
    {
        QFile f(run.outcome.runDir + QStringLiteral("/go"));
        f.open(QIODevice::WriteOnly);
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_localRuns = m_tmp.filePath(QStringLiteral("local-runs"));
        QVERIFY(QDir().mkpath(m_localRuns));
        QString error;
        QVERIFY2(m_server.start(&error, {}, QString(), QStringLiteral("127.0.0.2")), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        QVERIFY(m_client->pairWith(m_server));
        Settings::setRunsDirOverride(m_localRuns);
    }

    void cleanupTestCase() { Settings::setRunsDirOverride(QString()); }

    void sessionFollowsRecordAndMirrors()
    {
        const auto run = launchStaged(QStringLiteral("followed"));
        RunSession session(std::make_shared<runs::Operations>(ssh::sshTransportFactory()));
        QSignalSpy ended(&session, &RunSession::jobEnded);
        session.followRecord(run.localDir);
        // The SSH connect happens on a worker thread: nothing is followed yet on return.
        QCOMPARE(session.mode(), RunSession::Mode::Loading);
        QVERIFY(!session.hasJob());
        QTRY_VERIFY_WITH_TIMEOUT(session.hasJob(), 15000);
        QCOMPARE(session.recordDir(), run.localDir);
        QCOMPARE(session.runDir(), run.outcome.runDir);
        QTRY_COMPARE_WITH_TIMEOUT(session.store().rowCount(), qint64(2), 15000);
        QCOMPARE(readAll(run.mirrorPath), readAll(run.outcome.runDir + QStringLiteral("/metrics.jsonl")));
        go(run);
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 20000);
        QCOMPARE(launch::JobState(ended.first().first().value<launch::JobState>()), launch::JobState::Finished);
        QCOMPARE(session.store().rowCount(), qint64(10));
        QCOMPARE(readAll(run.mirrorPath), readAll(kFixture));
        const auto rec = launch::readRemoteRecord(run.localDir);
        QVERIFY(rec && rec->synced);
        QCOMPARE(readAll(run.localDir + QStringLiteral("/exit-code")).trimmed(), QByteArray("0"));
    }

    void mainWindowReattachesToRemoteRun()
    {
        const auto run = launchStaged(QStringLiteral("reattached"));
        RunSession session(std::make_shared<runs::Operations>(ssh::sshTransportFactory()));
        QSignalSpy ended(&session, &RunSession::jobEnded);
        MainWindow window(&session);
        // The first listing finds the live remote run and follows it over SSH.
        QTRY_COMPARE_WITH_TIMEOUT(session.recordDir(), run.localDir, 15000);
        QVERIFY(session.hasJob());
        RunsPage* page = window.findChild<RunsPage*>();
        QVERIFY(page);
        const int row = page->model()->rowOfRunDir(run.localDir);
        QVERIFY(row >= 0);
        QVERIFY2(
            page->model()->index(row, RunsModel::HostColumn).data().toString().contains(QStringLiteral("127.0.0.2")),
            qPrintable(page->model()->index(row, RunsModel::HostColumn).data().toString()));
        QVERIFY(page->model()->index(row, 0).data(RunsModel::RemoteRole).toBool());
        go(run);
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 20000);
        QCOMPARE(session.store().rowCount(), qint64(10));
        QCOMPARE(readAll(run.mirrorPath), readAll(kFixture));
        // The page lists it as ended (from the synced record).
        page->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(
            launch::JobState(
                page->model()->index(page->model()->rowOfRunDir(run.localDir), 0).data(RunsModel::StateRole).toInt()),
            launch::JobState::Finished, 10000);
        // A live run whose head is gone: following it fails in the background and the window says so.
        const auto gone = launchStaged(QStringLiteral("head-gone"));
        QFile profile(gone.localDir + QStringLiteral("/profile.json"));
        QVERIFY(profile.open(QIODevice::ReadOnly));
        QByteArray json = profile.readAll();
        profile.close();
        json.replace(QByteArray::number(m_server.port()), QByteArray::number(freePort())); // nobody listens there
        QVERIFY(profile.open(QIODevice::WriteOnly | QIODevice::Truncate));
        profile.write(json);
        profile.close();
        QSignalSpy failed(&session, &RunSession::followFailed);
        session.followRecord(gone.localDir);
        QCOMPARE(session.mode(), RunSession::Mode::Loading);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
        QCOMPARE(failed.first().first().toString(), gone.localDir);
        QCOMPARE(session.mode(), RunSession::Mode::None);
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.contains(QFileInfo(gone.localDir).fileName()) && message.contains(QStringLiteral("127.0.0.2")),
                 qPrintable(message));
        go(gone);
    }
};

QTEST_MAIN(TestGuiRemoteRuns)
#include "tst_remoteruns.moc"
