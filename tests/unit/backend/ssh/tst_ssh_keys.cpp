// Keys: ED25519 generation (modes 0600/0700 whatever the umask, passphrase semantics, public key
// line), installing a key with a password login (ssh-copy-id semantics, idempotent), proving key
// login, head → worker setup, deploying a file, and the keygen / install-key CLI commands. Uses the
// dedicated test user (tests/fixtures/ssh/sshd_fixture.h) for password logins.
#include "sshd_fixture.h"
#include "test_paths.h"

#include "ssh/sshkeys.h"
#include "ssh/sshsession.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace traindeck::ssh;
using traindeck::Result;
using traindeck::Status;
using namespace traindeck::testing;

namespace {

mode_t modeOf(const QString& path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 07777;
}

// The cipher name inside an OpenSSH private key ("none" when unencrypted).
QByteArray cipherOf(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QByteArray b64;
    for (const QByteArray& l : f.readAll().split('\n')) {
        if (!l.startsWith("-----"))
            b64 += l.trimmed();
    }
    const QByteArray raw = QByteArray::fromBase64(b64);
    const QByteArray magic("openssh-key-v1\0", 15);
    if (!raw.startsWith(magic))
        return {};
    const uchar* p = reinterpret_cast<const uchar*>(raw.constData()) + magic.size();
    const quint32 len = (quint32(p[0]) << 24) | (quint32(p[1]) << 16) | (quint32(p[2]) << 8) | p[3];
    return raw.mid(magic.size() + 4, int(len));
}

int countLines(const QString& path, const QString& needle)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    int n = 0;
    for (const QByteArray& l : f.readAll().split('\n'))
        n += QString::fromUtf8(l).contains(needle);
    return n;
}

} // namespace

class TestSshKeys : public QObject {
    Q_OBJECT

  private:
    SshdInstance m_head{QStringLiteral("head")};
    SshdInstance m_worker{QStringLiteral("worker")};
    std::unique_ptr<SshClientEnv> m_client;
    QString m_userError;

    QString userSsh() const { return testUserHome() + QStringLiteral("/.ssh"); }
    void resetUserSsh() { QDir(userSsh()).removeRecursively(); }
    SshPrompts passwordPrompts(int* asked = nullptr, const QByteArray& password = kTestUserPassword)
    {
        SshPrompts p;
        p.hostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptAndSave; };
        p.secret = [asked, password](const SecretRequest& req) -> std::optional<QByteArray> {
            if (asked)
                ++*asked;
            if (req.kind != SecretKind::Password)
                return std::nullopt;
            return password;
        };
        return p;
    }
    SshTarget userTarget(const SshdInstance& server)
    {
        SshTarget t = m_client->target(server, QLatin1String(kTestUser));
        t.identity.clear();
        return t;
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_head.start(&error), qPrintable(error));
        QVERIFY2(m_worker.start(&error), qPrintable(error));
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        m_head.authorize(m_client->publicKeyLine());
        m_worker.authorize(m_client->publicKeyLine());
        if (!ensureTestUser(&error))
            m_userError = error;
    }

    void generateUnencrypted()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.path() + QStringLiteral("/a/keys");
        const mode_t old = ::umask(0); // the worst umask: files would be 0666 without our care
        const auto key = SshKeys::generateEd25519(dir, QStringLiteral("id_test"), std::nullopt,
                                                  QStringLiteral("traindeck@testhost"));
        ::umask(old);
        QVERIFY2(key.ok(), qPrintable(key.errorString()));
        QCOMPARE(modeOf(dir), mode_t(0700));
        QCOMPARE(modeOf(key->privateKeyPath), mode_t(0600));
        QCOMPARE(modeOf(key->publicKeyPath), mode_t(0644));
        QVERIFY(QRegularExpression(QStringLiteral("^ssh-ed25519 [A-Za-z0-9+/]+=* traindeck@testhost$"))
                    .match(key->publicKeyLine)
                    .hasMatch());
        QCOMPARE(cipherOf(key->privateKeyPath), QByteArray("none"));
        // OpenSSH reads it and derives the same public key and fingerprint.
        QByteArray out;
        QCOMPARE(runProgram(
                     QStringLiteral("ssh-keygen"),
                     {QStringLiteral("-y"), QStringLiteral("-P"), QString(), QStringLiteral("-f"), key->privateKeyPath},
                     &out),
                 0);
        QCOMPARE(QString::fromUtf8(out).trimmed().section(QLatin1Char(' '), 0, 1),
                 SshKeys::keyPart(key->publicKeyLine));
        QCOMPARE(runProgram(QStringLiteral("ssh-keygen"),
                            {QStringLiteral("-l"), QStringLiteral("-f"), key->publicKeyPath}, &out),
                 0);
        QCOMPARE(QString::fromUtf8(out).section(QLatin1Char(' '), 1, 1), key->fingerprint);
        QCOMPARE(SshKeys::fingerprintOfLine(key->publicKeyLine), key->fingerprint);

        // No overwrite by accident.
        const auto exists = SshKeys::generateEd25519(dir, QStringLiteral("id_test"), std::nullopt, QString());
        QVERIFY(!exists);
        QVERIFY(exists.firstError().message.contains(QLatin1String("exists")));
        QCOMPARE(exists.errorCode(), QString(codes::Io));
        QVERIFY(SshKeys::generateEd25519(dir, QStringLiteral("id_test"), std::nullopt, QString(), true));
    }

    void generateEncrypted()
    {
        QTemporaryDir tmp;
        const auto key = SshKeys::generateEd25519(tmp.path(), QStringLiteral("k"), QByteArray("s3cret"), QString());
        QVERIFY2(key.ok(), qPrintable(key.errorString()));
        QVERIFY(cipherOf(key->privateKeyPath) != "none");
        QVERIFY(runProgram(QStringLiteral("ssh-keygen"), {QStringLiteral("-y"), QStringLiteral("-P"), QString(),
                                                          QStringLiteral("-f"), key->privateKeyPath}) != 0);
        QCOMPARE(runProgram(QStringLiteral("ssh-keygen"),
                            {QStringLiteral("-y"), QStringLiteral("-P"), QStringLiteral("s3cret"), QStringLiteral("-f"),
                             key->privateKeyPath}),
                 0);
        // "" is not "no passphrase": libssh cannot encrypt with it, and silently writing an unencrypted key
        // would surprise whoever asked for a passphrase. Refused, nothing written.
        const auto empty = SshKeys::generateEd25519(tmp.path(), QStringLiteral("e"), QByteArray(""), QString());
        QVERIFY(!empty);
        QVERIFY(empty.firstError().message.contains(QLatin1String("empty passphrase")));
        QCOMPARE(empty.errorCode(), QString(codes::Key));
        QVERIFY(!QFile::exists(tmp.path() + QStringLiteral("/e")));
    }

    void existingDirectoryTightened()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.path() + QStringLiteral("/open");
        QVERIFY(QDir().mkpath(dir));
        ::chmod(QFile::encodeName(dir).constData(), 0755);
        QVERIFY(SshKeys::generateEd25519(dir, QStringLiteral("k"), std::nullopt, QString()));
        QCOMPARE(modeOf(dir), mode_t(0700));
    }

    void readPublicKey()
    {
        QTemporaryDir tmp;
        const auto key = SshKeys::generateEd25519(tmp.path(), QStringLiteral("k"), std::nullopt, QStringLiteral("c"));
        QVERIFY(key);
        const Result<QString> line = SshKeys::readPublicKeyLine(key->publicKeyPath);
        QVERIFY2(line.ok(), qPrintable(line.errorString()));
        QCOMPARE(line.value(), key->publicKeyLine);
        const Result<QString> priv = SshKeys::readPublicKeyLine(key->privateKeyPath);
        QVERIFY(!priv);
        QVERIFY(priv.firstError().message.contains(QLatin1String("private")));
        QCOMPARE(priv.errorCode(), QString(codes::Key));
    }

    void passwordInstallKeyLogin()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        QTemporaryDir tmp;
        const auto key =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("id"), std::nullopt, QStringLiteral("t@x"));
        QVERIFY(key);

        // The new key does not work yet.
        SshTarget keyOnly = userTarget(m_head);
        keyOnly.identity = key->privateKeyPath;
        {
            SshSession s(keyOnly);
            s.setPrompts(passwordPrompts());
            const Status opened = s.open();
            QVERIFY(!opened);
            QCOMPARE(opened.errorCode(), QString(codes::Auth));
        }
        // A wrong password is refused.
        {
            SshSession s(userTarget(m_head));
            s.setPrompts(passwordPrompts(nullptr, "wrong"));
            const Status opened = s.open(AuthOptions{false, true, true});
            QVERIFY(!opened);
            QCOMPARE(opened.errorCode(), QString(codes::Auth));
        }
        int asked = 0;
        SshSession s(userTarget(m_head));
        s.setPrompts(passwordPrompts(&asked));
        const Status opened = s.open(AuthOptions{false, true, true});
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        QCOMPARE(s.authMethodUsed(), QStringLiteral("password"));
        QCOMPARE(asked, 1);

        const auto installed = SshKeys::installPublicKey(s, key->publicKeyLine, key->privateKeyPath, SshPrompts{});
        QVERIFY2(installed.ok(), qPrintable(installed.errorString()));
        QVERIFY(installed->added);
        QVERIFY(installed->keyLoginVerified);
        const QString auth = userSsh() + QStringLiteral("/authorized_keys");
        QCOMPARE(modeOf(userSsh()), mode_t(0700));
        QCOMPARE(modeOf(auth), mode_t(0600));
        QCOMPARE(countLines(auth, SshKeys::keyPart(key->publicKeyLine)), 1);

        // Twice: still one line.
        const auto again = SshKeys::installPublicKey(s, key->publicKeyLine, key->privateKeyPath, SshPrompts{});
        QVERIFY2(again.ok(), qPrintable(again.errorString()));
        QVERIFY(!again->added);
        QCOMPARE(countLines(auth, SshKeys::keyPart(key->publicKeyLine)), 1);

        // Key login now works without a password.
        SshSession k(keyOnly);
        const Status kOpened = k.open();
        QVERIFY2(kOpened.ok(), qPrintable(kOpened.errorString()));
        QCOMPARE(k.authMethodUsed(), QStringLiteral("publickey"));
        QCOMPARE(k.exec(QStringLiteral("id -un")).stdOut.trimmed(), QByteArray(kTestUser));
    }

    // One policy for the wizard and install-key: a node counts only once a key-only login works.
    void installOnNodePolicy()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        QTemporaryDir tmp;
        const auto key =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("id"), std::nullopt, QStringLiteral("t@x"));
        QVERIFY(key);
        const SshTarget target = userTarget(m_head);
        const QString auth = userSsh() + QStringLiteral("/authorized_keys");
        // Without the private key the login cannot be proved: refused before anything is installed.
        const auto noKey = SshKeys::installOnNode(target, key->publicKeyLine, tmp.path() + QStringLiteral("/nokey"),
                                                  passwordPrompts(), CancelToken{});
        QVERIFY(!noKey);
        QVERIFY2(noKey.firstError().message.contains(QStringLiteral("no private key")),
                 qPrintable(noKey.errorString()));
        QCOMPARE(noKey.errorCode(), QString(codes::Key));
        QVERIFY(!QFile::exists(auth));
        // The key does not work yet and no password is given.
        SshPrompts noPassword = passwordPrompts();
        noPassword.secret = [](const SecretRequest&) { return std::optional<QByteArray>(); };
        const auto refused =
            SshKeys::installOnNode(target, key->publicKeyLine, key->privateKeyPath, noPassword, CancelToken{});
        QVERIFY(!refused);
        QVERIFY2(refused.firstError().message.contains(QStringLiteral("no password was given")),
                 qPrintable(refused.errorString()));
        QCOMPARE(refused.errorCode(), QString(codes::Auth));
        QVERIFY(!QFile::exists(auth));
        // With the password: added and proved.
        int asked = 0;
        auto installed = SshKeys::installOnNode(target, key->publicKeyLine, key->privateKeyPath,
                                                passwordPrompts(&asked), CancelToken{});
        QVERIFY2(installed.ok(), qPrintable(installed.errorString()));
        QCOMPARE(installed->outcome, NodeInstall::Outcome::Added);
        QCOMPARE(installed->message(), QStringLiteral("key added, key login verified"));
        QCOMPARE(asked, 1);
        QCOMPARE(countLines(auth, SshKeys::keyPart(key->publicKeyLine)), 1);
        // Again: the key-only login works, no password asked, nothing written.
        asked = 0;
        installed = SshKeys::installOnNode(target, key->publicKeyLine, key->privateKeyPath, passwordPrompts(&asked),
                                           CancelToken{});
        QVERIFY2(installed.ok(), qPrintable(installed.errorString()));
        QCOMPARE(installed->outcome, NodeInstall::Outcome::AlreadyWorked);
        QCOMPARE(asked, 0);
        QCOMPARE(countLines(auth, SshKeys::keyPart(key->publicKeyLine)), 1);
        // A public key that is not the private key's (the wrong .pub chosen): it gets authorized, but the
        // key-only login with the private key fails, so the node does not count as done.
        const auto other =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("other"), std::nullopt, QStringLiteral("o@x"));
        QVERIFY(other);
        const auto wrongPair =
            SshKeys::installOnNode(target, key->publicKeyLine, other->privateKeyPath, passwordPrompts(), CancelToken{});
        QVERIFY(!wrongPair);
        QVERIFY2(wrongPair.firstError().message.contains(QStringLiteral("logging in with")),
                 qPrintable(wrongPair.errorString()));
        QCOMPARE(wrongPair.errorCode(), QString(codes::Auth));
    }

    // The one install-key rule of the wizard and `install-key` (SshKeys::installOnNodes).
    void installOnNodesRule()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        QTemporaryDir tmp;
        const auto key =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("id"), std::nullopt, QStringLiteral("t@x"));
        QVERIFY(key);
        SshTarget unreachable = userTarget(m_head);
        unreachable.port = 1; // nothing listens there: this node fails
        NodesKeyInstall plan;
        plan.targets = {userTarget(m_head), unreachable};
        plan.head = 0;
        plan.publicKeyLine = key->publicKeyLine;
        plan.privateKeyPath = key->privateKeyPath;
        plan.headToWorkers = true;
        QStringList events;
        NodesKeyInstallEvents on;
        on.prompts = [this](int) { return passwordPrompts(); };
        on.started = [&events](int node) { events << QStringLiteral("start %1").arg(node); };
        on.finished = [&events](int node, const Result<QString>& outcome) {
            events << QStringLiteral("%1 %2: %3")
                          .arg(outcome ? QStringLiteral("done") : QStringLiteral("failed"))
                          .arg(node)
                          .arg(outcome ? outcome.value() : outcome.firstError().message);
        };
        // Head -> workers with a node left out: refused before any login.
        plan.chosen = {true, false};
        const Status partial = SshKeys::installOnNodes(plan, on, CancelToken{});
        QVERIFY(!partial);
        QCOMPARE(partial.errorCode(), QString(codes::Input));
        QVERIFY2(partial.firstError().message.contains(unreachable.displayName()), qPrintable(partial.errorString()));
        QVERIFY(events.isEmpty());
        QVERIFY(!QFile::exists(userSsh() + QStringLiteral("/authorized_keys")));
        // Every node: the head gets the key, the unreachable node fails without stopping the run, and head ->
        // workers is skipped since not every node accepts the key.
        plan.chosen.clear();
        const Status all = SshKeys::installOnNodes(plan, on, CancelToken{});
        QVERIFY(!all);
        QCOMPARE(all.errorCode(), QString(codes::Connect));
        QCOMPARE(events.size(), 6);
        QCOMPARE(events.at(0), QStringLiteral("start 0"));
        QCOMPARE(events.at(1), QStringLiteral("done 0: key added, key login verified"));
        QCOMPARE(events.at(2), QStringLiteral("start 1"));
        QVERIFY2(events.at(3).startsWith(QStringLiteral("failed 1: ")), qPrintable(events.at(3)));
        QCOMPARE(events.at(4), QStringLiteral("start -1"));
        QCOMPARE(events.at(5), QStringLiteral("failed -1: skipped: not every node accepts the key"));
    }

    void installAddsMissingNewline()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        QDir().mkpath(userSsh());
        QTemporaryDir tmp;
        const auto other =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("o"), std::nullopt, QStringLiteral("other"));
        const auto key =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("k"), std::nullopt, QStringLiteral("mine"));
        QVERIFY(other && key);
        const QString auth = userSsh() + QStringLiteral("/authorized_keys");
        {
            QFile f(auth);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(other->publicKeyLine.toUtf8()); // no trailing newline
        }
        runProgram(QStringLiteral("chown"),
                   {QStringLiteral("-R"), QLatin1String(kTestUser) + QLatin1Char(':'), userSsh()});
        SshSession s(userTarget(m_head));
        s.setPrompts(passwordPrompts());
        const Status opened = s.open(AuthOptions{false, true, false});
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        const auto installed = SshKeys::installPublicKey(s, key->publicKeyLine, key->privateKeyPath, SshPrompts{});
        QVERIFY2(installed.ok(), qPrintable(installed.errorString()));
        QFile f(auth);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()),
                 other->publicKeyLine + QLatin1Char('\n') + key->publicKeyLine + QLatin1Char('\n'));
    }

    void headToWorkers()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        // Both "nodes" log in as the test user with its password; on this machine they share its home.
        SshSession head(userTarget(m_head));
        head.setPrompts(passwordPrompts());
        const Status headOpened = head.open(AuthOptions{false, true, false});
        QVERIFY2(headOpened.ok(), qPrintable(headOpened.errorString()));
        SshSession worker(userTarget(m_worker));
        worker.setPrompts(passwordPrompts());
        const Status workerOpened = worker.open(AuthOptions{false, true, false});
        QVERIFY2(workerOpened.ok(), qPrintable(workerOpened.errorString()));

        // Before: the head cannot log in to the worker.
        const QString probe = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=5 -p %1 -l %2 127.0.0.1 true")
                                  .arg(m_worker.port())
                                  .arg(QLatin1String(kTestUser));
        QVERIFY(!head.exec(probe).ok());

        const auto log = SshKeys::setupHeadToWorkers(head, {&worker});
        QVERIFY2(log.ok(), qPrintable(log.errorString()));
        QVERIFY2(head.exec(probe).ok(), qPrintable(log->join(QLatin1Char('\n'))));
        // The head's known_hosts holds the key this side verified, under the hostfile's name.
        QFile kh(userSsh() + QStringLiteral("/known_hosts"));
        QVERIFY(kh.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(kh.readAll()).contains(m_worker.knownHostsLine()));
        // Idempotent.
        const auto again = SshKeys::setupHeadToWorkers(head, {&worker});
        QVERIFY2(again.ok(), qPrintable(again.errorString()));
        QCOMPARE(countLines(userSsh() + QStringLiteral("/authorized_keys"), QStringLiteral("ssh-ed25519")), 1);
        QCOMPARE(countLines(userSsh() + QStringLiteral("/known_hosts"),
                            QStringLiteral("[127.0.0.1]:%1").arg(m_worker.port())),
                 1);
    }

    void deployFile()
    {
        QTemporaryDir tmp;
        QFile src(tmp.path() + QStringLiteral("/payload"));
        QVERIFY(src.open(QIODevice::WriteOnly));
        QByteArray data;
        for (int i = 0; i < 300000; ++i)
            data += QByteArray::number(qint64(i) * 7919);
        src.write(data);
        src.close();
        SshTarget t = m_client->target(m_head);
        {
            QFile kh(t.knownHosts);
            QVERIFY(kh.open(QIODevice::WriteOnly | QIODevice::Truncate));
            kh.write((m_head.knownHostsLine() + QLatin1Char('\n')).toUtf8());
        }
        SshSession s(t);
        const Status opened = s.open();
        QVERIFY2(opened.ok(), qPrintable(opened.errorString()));
        const QString dest = tmp.path() + QStringLiteral("/remote/bin/traindeck-trainer");
        const Status deployed = SshKeys::deployFile(s, src.fileName(), dest, 0755);
        QVERIFY2(deployed.ok(), qPrintable(deployed.errorString()));
        QFile out(dest);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readAll(), data);
        QCOMPARE(modeOf(dest), mode_t(0755));
    }

    void cliKeygen()
    {
        QTemporaryDir tmp;
        QProcess p;
        p.start(QString::fromUtf8(TRAINDECK_CLI),
                {QStringLiteral("keygen"), QStringLiteral("--out"), tmp.path() + QStringLiteral("/k")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString priv = tmp.path() + QStringLiteral("/k/") + SshKeys::defaultKeyName();
        QCOMPARE(modeOf(priv), mode_t(0600));
        QCOMPARE(modeOf(tmp.path() + QStringLiteral("/k")), mode_t(0700));
        QCOMPARE(cipherOf(priv), QByteArray("none"));
        QVERIFY(p.readAllStandardOutput().contains("ssh-ed25519 "));
        // Again: refused (exists) → 1.
        p.start(QString::fromUtf8(TRAINDECK_CLI),
                {QStringLiteral("keygen"), QStringLiteral("--out"), tmp.path() + QStringLiteral("/k")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        // With a passphrase from stdin.
        p.start(QString::fromUtf8(TRAINDECK_CLI),
                {QStringLiteral("keygen"), QStringLiteral("--out"), tmp.path() + QStringLiteral("/e"),
                 QStringLiteral("--passphrase-stdin")});
        p.write("pass phrase\n");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(runProgram(QStringLiteral("ssh-keygen"),
                            {QStringLiteral("-y"), QStringLiteral("-P"), QStringLiteral("pass phrase"),
                             QStringLiteral("-f"), tmp.path() + QStringLiteral("/e/") + SshKeys::defaultKeyName()}),
                 0);
        // Bad input.
        p.start(QString::fromUtf8(TRAINDECK_CLI), {QStringLiteral("keygen"), QStringLiteral("--bogus")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
    }

    void cliInstallKey()
    {
        if (!m_userError.isEmpty())
            QSKIP(qPrintable(m_userError));
        resetUserSsh();
        QTemporaryDir tmp;
        const auto key =
            SshKeys::generateEd25519(tmp.path(), QStringLiteral("id"), std::nullopt, QStringLiteral("cli"));
        QVERIFY(key);
        QFile profile(tmp.path() + QStringLiteral("/lab.json"));
        QVERIFY(profile.open(QIODevice::WriteOnly));
        profile.write(QStringLiteral(R"({"version": 1, "name": "lab", "known_hosts": "%1",
  "nodes": [{"name": "n1", "host": "127.0.0.1", "port": %2, "user": "%3", "role": "head"}]})")
                          .arg(tmp.path() + QStringLiteral("/known_hosts"))
                          .arg(m_head.port())
                          .arg(QLatin1String(kTestUser))
                          .toUtf8());
        profile.close();
        auto run = [&](const QStringList& extra, const QByteArray& input) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("SSH_AUTH_SOCK"));
            p.setProcessEnvironment(env);
            p.start(QString::fromUtf8(TRAINDECK_CLI),
                    QStringList{QStringLiteral("install-key"), QStringLiteral("--profile"), profile.fileName(),
                                QStringLiteral("--key"), key->publicKeyPath} +
                        extra);
            p.write(input);
            p.closeWriteChannel();
            p.waitForFinished(60000);
            qInfo().noquote() << p.readAllStandardOutput() << p.readAllStandardError();
            return p.exitCode();
        };
        // Unknown host key, no acceptance: fails, nothing installed.
        QCOMPARE(run({QStringLiteral("--password-stdin")}, QByteArray(kTestUserPassword) + '\n'), 1);
        QVERIFY(!QFile::exists(userSsh() + QStringLiteral("/authorized_keys")));
        QCOMPARE(run({QStringLiteral("--password-stdin"), QStringLiteral("--accept-new-host-keys")},
                     QByteArray(kTestUserPassword) + '\n'),
                 0);
        QCOMPARE(countLines(userSsh() + QStringLiteral("/authorized_keys"), SshKeys::keyPart(key->publicKeyLine)), 1);
        // Again: key login works already, no password needed; still one line.
        QCOMPARE(run({}, QByteArray()), 0);
        QCOMPARE(countLines(userSsh() + QStringLiteral("/authorized_keys"), SshKeys::keyPart(key->publicKeyLine)), 1);
        QCOMPARE(run({QStringLiteral("--bogus")}, QByteArray()), 2);
        // --head-to-workers with --node leaving a node out: bad input (exit 2), refused before any login.
        QFile two(tmp.path() + QStringLiteral("/two.json"));
        QVERIFY(two.open(QIODevice::WriteOnly));
        two.write(QStringLiteral(R"({"version": 1, "name": "two", "known_hosts": "%1",
  "nodes": [{"name": "n1", "host": "127.0.0.1", "port": %2, "user": "%3", "role": "head"},
            {"name": "n2", "host": "127.0.0.1", "port": 1, "user": "%3"}]})")
                      .arg(tmp.path() + QStringLiteral("/known_hosts"))
                      .arg(m_head.port())
                      .arg(QLatin1String(kTestUser))
                      .toUtf8());
        two.close();
        profile.setFileName(two.fileName());
        QCOMPARE(
            run({QStringLiteral("--head-to-workers"), QStringLiteral("--node"), QStringLiteral("n1")}, QByteArray()),
            2);
    }
};

QTEST_GUILESS_MAIN(TestSshKeys)
#include "tst_ssh_keys.moc"
