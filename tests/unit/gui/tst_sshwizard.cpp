// The SSH setup wizard against a real OpenSSH server (tests/fixtures/ssh): generate a key, enter the
// test user's password, install and verify that key login works; a changed host key is refused; the
// summary's advice for GPU nodes.
#include "sshd_fixture.h"
#include "sshwizard.h"

#include "cluster/gputrainer.h"
#include "ssh/sshkeys.h"
#include "ssh/sshsession.h"

#include <QCheckBox>
#include <QFile>
#include <QLineEdit>
#include <QRadioButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace traindeck;
using namespace traindeck::gui;
using namespace traindeck::testing;

class TestSshWizard : public QObject {
    Q_OBJECT

    SshdInstance m_server{QStringLiteral("wizard")};
    SshdInstance m_worker{QStringLiteral("worker")};
    std::unique_ptr<SshClientEnv> m_client;

    cluster::ClusterProfile profile() const
    {
        cluster::ClusterProfile p;
        p.name = QStringLiteral("wizard-test");
        cluster::ClusterNode n;
        n.name = QStringLiteral("node0");
        n.host = m_server.address();
        n.port = m_server.port();
        n.user = QLatin1String(kTestUser);
        n.role = cluster::NodeRole::Head;
        p.nodes.append(n);
        p.knownHosts = m_client->knownHosts();
        return p;
    }
    ssh::SshTarget sshTemplate() const
    {
        ssh::SshTarget t;
        t.configFile = m_client->configFile();
        t.useAgent = false;
        t.useDefaultIdentities = false;
        return t;
    }
    void writeKnownHosts(const QString& line)
    {
        QFile f(m_client->knownHosts());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(line.toUtf8() + '\n');
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(ensureTestUser(&error), qPrintable(error));
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QVERIFY2(m_worker.start(&error), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
    }

    void generateInstallVerify()
    {
        writeKnownHosts(m_server.knownHostsLine());
        QTemporaryDir keys;
        SshWizard w(profile());
        w.setKeyLocation(keys.path() + QStringLiteral("/ssh"), QStringLiteral("traindeck_ed25519"));
        w.setTargetTemplate(sshTemplate());
        w.show();
        QCOMPARE(w.currentId(), int(SshWizard::KeyPageId));
        QVERIFY(w.generateButton()->isChecked());
        // Mismatched passphrases are refused on the page.
        w.passphraseEdit()->setText(QStringLiteral("a"));
        w.passphraseRepeatEdit()->setText(QStringLiteral("b"));
        w.next();
        QCOMPARE(w.currentId(), int(SshWizard::KeyPageId));
        w.passphraseEdit()->clear();
        w.passphraseRepeatEdit()->clear();
        w.next();
        QCOMPARE(w.currentId(), int(SshWizard::NodesPageId));
        const QString key = keys.path() + QStringLiteral("/ssh/traindeck_ed25519");
        QCOMPARE(w.privateKeyPath(), key);
        QVERIFY(QFile::exists(key + QStringLiteral(".pub")));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(key).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        QVERIFY(w.publicKeyLine().startsWith(QStringLiteral("ssh-ed25519 ")));
        QVERIFY(!w.headToWorkersBox()->isEnabled());

        w.passwordEdit(0)->setFocus();
        QTest::keyClicks(w.passwordEdit(0), QLatin1String(kTestUserPassword));
        w.next();
        QCOMPARE(w.currentId(), int(SshWizard::InstallPageId));
        QVERIFY(w.passwordEdit(0)->text().isEmpty()); // not kept
        QTRY_VERIFY_WITH_TIMEOUT(w.installFinished(), 60000);
        QCOMPARE(w.nodeState(0), SshWizard::NodeState::Done);
        QVERIFY2(w.nodeMessage(0).contains(QStringLiteral("verified")), qPrintable(w.nodeMessage(0)));
        QVERIFY(w.statusTable()->item(0, 1)->text().startsWith(QStringLiteral("✓")));

        // Key login works on its own.
        ssh::SshTarget t = ssh::SshSession::targetFor(profile(), profile().nodes.at(0));
        t.configFile = m_client->configFile();
        t.identity = key;
        t.useAgent = false;
        t.useDefaultIdentities = false;
        ssh::SshSession s(t);
        const Status opened = s.open(ssh::AuthOptions{true, false, false});
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        QCOMPARE(s.exec(QStringLiteral("id -un")).stdOut.trimmed(), QByteArray(kTestUser));

        w.next();
        QCOMPARE(w.currentId(), int(SshWizard::SummaryPageId));
        QVERIFY(w.summaryText().contains(QStringLiteral("Every node accepts the key")));

        // Again with the same key: already works, no password needed.
        SshWizard again(profile());
        again.setKeyLocation(keys.path() + QStringLiteral("/ssh"), QStringLiteral("traindeck_ed25519"));
        again.setTargetTemplate(sshTemplate());
        again.show();
        again.next();
        again.next();
        QTRY_VERIFY_WITH_TIMEOUT(again.installFinished(), 60000);
        QCOMPARE(again.nodeState(0), SshWizard::NodeState::Done);
        QCOMPARE(again.nodeMessage(0), QStringLiteral("key login already works"));
    }

    void headToWorkers()
    {
        // Two "nodes" (both the test user on this machine): the key is installed on both, then the head
        // gets its own key, authorized on the worker, with the worker's host key in its known_hosts.
        writeKnownHosts(m_server.knownHostsLine() + QLatin1Char('\n') + m_worker.knownHostsLine());
        cluster::ClusterProfile p = profile();
        cluster::ClusterNode worker = p.nodes.at(0);
        worker.name = QStringLiteral("node1");
        worker.port = m_worker.port();
        worker.role = cluster::NodeRole::Worker;
        p.nodes.append(worker);
        QTemporaryDir keys;
        SshWizard w(p);
        w.setKeyLocation(keys.path(), QStringLiteral("traindeck_ed25519"));
        w.setTargetTemplate(sshTemplate());
        w.show();
        w.next();
        QCOMPARE(w.currentId(), int(SshWizard::NodesPageId));
        QVERIFY(w.headToWorkersBox()->isEnabled());
        QVERIFY(w.headToWorkersBox()->isChecked());
        w.passwordEdit(0)->setText(QLatin1String(kTestUserPassword));
        w.passwordEdit(1)->setText(QLatin1String(kTestUserPassword));
        w.next();
        QTRY_VERIFY_WITH_TIMEOUT(w.installFinished(), 90000);
        QCOMPARE(w.nodeState(0), SshWizard::NodeState::Done);
        QCOMPARE(w.nodeState(1), SshWizard::NodeState::Done);
        QVERIFY2(w.headToWorkersState() == SshWizard::NodeState::Done, qPrintable(w.headToWorkersMessage()));
        QCOMPARE(w.statusTable()->rowCount(), 3);

        // The head logs in to the worker without a password.
        ssh::SshTarget t = ssh::SshSession::targetFor(p, p.nodes.at(0));
        t.configFile = m_client->configFile();
        t.identity = keys.path() + QStringLiteral("/traindeck_ed25519");
        t.useAgent = false;
        t.useDefaultIdentities = false;
        ssh::SshSession head(t);
        const Status headOpened = head.open(ssh::AuthOptions{true, false, false});
        QVERIFY2(headOpened.ok(), qPrintable(headOpened.errorString()));
        const QString probe = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=5 -p %1 -l %2 127.0.0.1 true")
                                  .arg(m_worker.port())
                                  .arg(QLatin1String(kTestUser));
        QVERIFY(head.exec(probe).ok());
        w.next();
        QVERIFY(w.summaryText().contains(QStringLiteral("✓ Head → workers")));
    }

    // The summary of a profile with GPU nodes says how to build a trainer that uses their GPUs; a CPU
    // profile's says nothing of it.
    void summaryAdvisesGpuNodes()
    {
        SshWizard cpu(profile());
        QVERIFY(!cpu.summaryText().contains(QLatin1String("build-trainer.sh")));
        cluster::ClusterProfile p = profile();
        p.nodes[0].gpus = 8;
        p.nodes[0].slots = 8;
        SshWizard gpu(p);
        const QString summary = gpu.summaryText();
        QVERIFY2(summary.endsWith(QLatin1String("\n\n") + cluster::GpuTrainer::profileAdvice(p)), qPrintable(summary));
        QVERIFY(summary.contains(QLatin1String("scripts/build-trainer.sh")));
    }

    void changedHostKeyRefused()
    {
        // known_hosts records another key for the server: refused with the explanation.
        writeKnownHosts(QStringLiteral("[%1]:%2 %3")
                            .arg(m_server.address())
                            .arg(m_server.port())
                            .arg(ssh::SshKeys::keyPart(m_client->publicKeyLine())));
        QTemporaryDir keys;
        SshWizard w(profile());
        w.setKeyLocation(keys.path(), QStringLiteral("k"));
        w.setTargetTemplate(sshTemplate());
        w.show();
        w.next();
        w.passwordEdit(0)->setText(QLatin1String(kTestUserPassword));
        w.next();
        QTRY_VERIFY_WITH_TIMEOUT(w.installFinished(), 60000);
        QCOMPARE(w.nodeState(0), SshWizard::NodeState::Failed);
        QVERIFY(!w.nodeMessage(0).isEmpty());
        QVERIFY2(w.nodeMessage(0).contains(QStringLiteral("SHA256:")), qPrintable(w.nodeMessage(0)));
    }
};

QTEST_MAIN(TestSshWizard)
#include "tst_sshwizard.moc"
