#include "ssh/sshkeys.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostInfo>
#include <QRegularExpression>
#include <QSaveFile>

#include <libssh/libssh.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace traindeck::ssh {

namespace {

Diagnostic failure(const QString& code, const QString& message)
{
    return Diagnostic::codedError(code, message);
}

// Writes data to a new file created with 0600 (and fchmod'ed, whatever the umask).
Status writePrivateFile(const QString& path, const QByteArray& data)
{
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return Status::failure(failure(
            codes::Io, SshKeys::tr("%1: cannot create: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)))));
    bool ok = ::fchmod(fd, 0600) == 0;
    qsizetype off = 0;
    while (ok && off < data.size()) {
        const ssize_t w = ::write(fd, data.constData() + off, size_t(data.size() - off));
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        off += w > 0 ? w : 0;
    }
    ok = ok && ::fsync(fd) == 0;
    const int saved = errno;
    ok = (::close(fd) == 0) && ok;
    if (!ok) {
        ::unlink(native.constData());
        return Status::failure(failure(
            codes::Io, SshKeys::tr("%1: cannot write: %2").arg(path, QString::fromLocal8Bit(std::strerror(saved)))));
    }
    return Done{};
}

Status ensurePrivateDir(const QString& dir)
{
    const QByteArray native = QFile::encodeName(dir);
    struct stat st {};
    if (::stat(native.constData(), &st) != 0) {
        if (!QDir().mkpath(dir))
            return Status::failure(failure(codes::Io, SshKeys::tr("%1: cannot create the directory").arg(dir)));
        if (::chmod(native.constData(), 0700) != 0)
            return Status::failure(failure(codes::Io, SshKeys::tr("%1: cannot set mode 0700").arg(dir)));
        return Done{};
    }
    if (!S_ISDIR(st.st_mode))
        return Status::failure(failure(codes::Io, SshKeys::tr("%1: not a directory").arg(dir)));
    if ((st.st_mode & 077) != 0 && ::chmod(native.constData(), 0700) != 0)
        return Status::failure(
            failure(codes::Io, SshKeys::tr("%1: readable by others and cannot be set to mode 0700").arg(dir)));
    return Done{};
}

QString fingerprintOf(ssh_key key)
{
    unsigned char* hash = nullptr;
    size_t len = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) != SSH_OK)
        return QString();
    char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    const QString out = QString::fromLatin1(fp);
    ssh_string_free_char(fp);
    ssh_clean_pubkey_hash(&hash);
    return out;
}

ssh_key keyFromLine(const QString& line)
{
    const QStringList parts = line.simplified().split(QLatin1Char(' '));
    if (parts.size() < 2)
        return nullptr;
    const ssh_keytypes_e type = ssh_key_type_from_name(parts.at(0).toLatin1().constData());
    if (type == SSH_KEYTYPE_UNKNOWN)
        return nullptr;
    ssh_key key = nullptr;
    if (ssh_pki_import_pubkey_base64(parts.at(1).toLatin1().constData(), type, &key) != SSH_OK)
        return nullptr;
    return key;
}

// The code for a command that did not succeed: the session's (link lost, timeout, ...) when it did
// not run to the end, codes::RemoteCommand when it ran and failed.
QString remoteCode(const ExecResult& r)
{
    return r.error.code.isEmpty() ? QString(codes::RemoteCommand) : r.error.code;
}

QString firstLine(const QByteArray& out)
{
    return QString::fromUtf8(out).trimmed().section(QLatin1Char('\n'), 0, 0).trimmed();
}

} // namespace

QString SshKeys::defaultKeyDir()
{
    return QDir::homePath() + QStringLiteral("/.ssh");
}

QString SshKeys::defaultKeyName()
{
    return QStringLiteral("id_ed25519_traindeck");
}

QString SshKeys::defaultComment()
{
    QString host = QHostInfo::localHostName();
    if (host.isEmpty())
        host = QStringLiteral("localhost");
    return QStringLiteral("traindeck@") + host;
}

Result<GeneratedKey> SshKeys::generateEd25519(const QString& dir, const QString& name,
                                              const std::optional<QByteArray>& passphrase, const QString& comment,
                                              bool overwrite)
{
    using R = Result<GeneratedKey>;
    if (name.isEmpty() || name.contains(QLatin1Char('/')) || name.startsWith(QLatin1Char('.')))
        return R::failure(failure(codes::Key, tr("invalid key file name '%1'").arg(name)));
    if (comment.contains(QLatin1Char('\n')))
        return R::failure(failure(codes::Key, tr("the key comment may not contain a newline")));
    if (passphrase && passphrase->isEmpty()) {
        // A NULL passphrase means "unencrypted"; "" is a passphrase that libssh's bcrypt-pbkdf cannot use.
        // Refused rather than silently writing an unencrypted key.
        return R::failure(failure(codes::Key, tr("an empty passphrase cannot encrypt the key; give a passphrase, or "
                                                 "none for an unencrypted key")));
    }
    const QString keyDir = expandTilde(dir);
    const Status dirReady = ensurePrivateDir(keyDir);
    if (!dirReady)
        return R::failure(dirReady.diagnostics());
    GeneratedKey out;
    out.privateKeyPath = keyDir + QLatin1Char('/') + name;
    out.publicKeyPath = out.privateKeyPath + QStringLiteral(".pub");
    for (const QString& p : {out.privateKeyPath, out.publicKeyPath}) {
        if (QFileInfo(p).exists() || QFileInfo(p).isSymLink()) {
            if (!overwrite)
                return R::failure(
                    failure(codes::Io, tr("%1 exists; choose another name or overwrite it explicitly").arg(p)));
            QFile::remove(p);
        }
    }

    ssh_key key = nullptr;
    if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK || !key)
        return R::failure(failure(codes::Key, tr("cannot generate an ED25519 key")));
    struct KeyGuard {
        ssh_key k;
        ~KeyGuard() { ssh_key_free(k); }
    } guard{key};

    // Exported to memory and written by us: ssh_pki_export_privkey_file would obey the umask.
    char* priv = nullptr;
    if (ssh_pki_export_privkey_base64(key, passphrase ? passphrase->constData() : nullptr, nullptr, nullptr, &priv) !=
            SSH_OK ||
        !priv)
        return R::failure(failure(codes::Key, tr("cannot export the private key")));
    QByteArray privData(priv);
    std::memset(priv, 0, std::strlen(priv));
    ssh_string_free_char(priv);
    if (!privData.endsWith('\n'))
        privData.append('\n');
    char* pub = nullptr;
    if (ssh_pki_export_pubkey_base64(key, &pub) != SSH_OK || !pub)
        return R::failure(failure(codes::Key, tr("cannot export the public key")));
    out.publicKeyLine = QStringLiteral("ssh-ed25519 ") + QString::fromLatin1(pub) +
                        (comment.isEmpty() ? QString() : QLatin1Char(' ') + comment);
    ssh_string_free_char(pub);
    out.fingerprint = fingerprintOf(key);

    const Status written = writePrivateFile(out.privateKeyPath, privData);
    privData.fill('\0');
    if (!written)
        return R::failure(written.diagnostics());
    QSaveFile pubFile(out.publicKeyPath);
    if (!pubFile.open(QIODevice::WriteOnly) || pubFile.write((out.publicKeyLine + QLatin1Char('\n')).toUtf8()) < 0 ||
        !pubFile.commit()) {
        QFile::remove(out.privateKeyPath);
        return R::failure(failure(codes::Io, tr("%1: cannot write: %2").arg(out.publicKeyPath, pubFile.errorString())));
    }
    QFile::setPermissions(out.publicKeyPath,
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    return out;
}

Result<QString> SshKeys::readPublicKeyLine(const QString& path)
{
    QFile f(expandTilde(path));
    if (!f.open(QIODevice::ReadOnly))
        return Result<QString>::failure(failure(codes::Io, tr("%1: cannot read: %2").arg(path, f.errorString())));
    const QByteArray data = f.read(64 * 1024);
    if (data.contains("PRIVATE KEY"))
        return Result<QString>::failure(
            failure(codes::Key, tr("%1: this is a private key; give the .pub file").arg(path)));
    for (const QByteArray& raw : data.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        ssh_key key = keyFromLine(line);
        if (!key)
            break;
        ssh_key_free(key);
        return line;
    }
    return Result<QString>::failure(
        failure(codes::Key,
                tr("%1: not an OpenSSH public key (expected a line such as 'ssh-ed25519 AAAA... comment')").arg(path)));
}

QString SshKeys::fingerprintOfLine(const QString& publicKeyLine)
{
    ssh_key key = keyFromLine(publicKeyLine);
    if (!key)
        return QString();
    const QString fp = fingerprintOf(key);
    ssh_key_free(key);
    return fp;
}

QString SshKeys::keyPart(const QString& publicKeyLine)
{
    return publicKeyLine.simplified().section(QLatin1Char(' '), 0, 1);
}

QString SshKeys::installScript()
{
    return QStringLiteral(
        "umask 077; mkdir -p \"$HOME/.ssh\" || exit 1; f=\"$HOME/.ssh/authorized_keys\"; "
        "IFS= read -r key || [ -n \"$key\" ] || exit 3; "
        "k=$(printf '%s\\n' \"$key\" | cut -d' ' -f1,2); "
        "if [ -f \"$f\" ] && grep -qF -- \"$k\" \"$f\"; then echo TRAINDECK_KEY_PRESENT; exit 0; fi; "
        "if [ -s \"$f\" ] && [ -n \"$(tail -c1 \"$f\")\" ]; then echo >> \"$f\" || exit 1; fi; "
        "printf '%s\\n' \"$key\" >> \"$f\" || exit 1; "
        "if command -v restorecon >/dev/null 2>&1; then restorecon -F \"$HOME/.ssh\" \"$f\" 2>/dev/null; fi; "
        "echo TRAINDECK_KEY_ADDED");
}

QString NodeInstall::message() const
{
    switch (outcome) {
    case Outcome::AlreadyWorked: return SshKeys::tr("key login already works");
    case Outcome::Added: return SshKeys::tr("key added, key login verified");
    case Outcome::WasAuthorized: return SshKeys::tr("key was already authorized, key login verified");
    }
    return QString();
}

SshTarget SshKeys::keyOnlyTarget(SshTarget target, const QString& privateKeyPath)
{
    target.identity = privateKeyPath;
    target.useAgent = false;
    target.useDefaultIdentities = false;
    return target;
}

Result<NodeInstall> SshKeys::installOnNode(const SshTarget& target, const QString& publicKeyLine,
                                           const QString& privateKeyPath, const SshPrompts& prompts,
                                           const CancelToken& cancel)
{
    using R = Result<NodeInstall>;
    if (privateKeyPath.isEmpty() || !QFileInfo::exists(privateKeyPath))
        return R::failure(
            failure(codes::Key, tr("no private key beside the public key (%1) to prove the key login with")
                                    .arg(privateKeyPath.isEmpty() ? tr("none given") : privateKeyPath)));
    // A changed host key is reported with its whole explanation (what happened, how to fix it).
    auto failed = [](const SshSession& s, const Status& opened) {
        Diagnostic e = opened.firstError();
        if (e.code == codes::HostKeyChanged)
            e = failure(e.code, s.hostKey().explanation());
        return R::failure(e);
    };
    {
        SshSession probe(keyOnlyTarget(target, privateKeyPath));
        probe.setPrompts(prompts);
        probe.setCancelToken(cancel);
        const Status opened = probe.open(AuthOptions{true, false, false});
        if (opened)
            return NodeInstall{NodeInstall::Outcome::AlreadyWorked};
        if (opened.errorCode() != codes::Auth)
            return failed(probe, opened);
    }
    // A password asked for and not given says more than "authentication failed".
    bool passwordRefused = false;
    SshPrompts loginPrompts = prompts;
    loginPrompts.secret = [&](const SecretRequest& req) -> std::optional<QByteArray> {
        std::optional<QByteArray> answer = prompts.secret ? prompts.secret(req) : std::nullopt;
        if (!answer && req.kind != SecretKind::KeyPassphrase)
            passwordRefused = true;
        return answer;
    };
    SshSession session(target);
    session.setPrompts(loginPrompts);
    session.setCancelToken(cancel);
    const Status opened = session.open(AuthOptions{true, true, true});
    if (!opened) {
        if (passwordRefused && opened.errorCode() == codes::Auth)
            return R::failure(failure(codes::Auth, tr("the key does not work yet and no password was given")));
        return failed(session, opened);
    }
    const Result<InstallResult> installed = installPublicKey(session, publicKeyLine, privateKeyPath, prompts);
    if (!installed)
        return R::failure(installed.diagnostics());
    if (!installed->keyLoginVerified)
        return R::failure(failure(codes::Auth, tr("key installed, but the key login could not be verified")));
    return NodeInstall{installed->added ? NodeInstall::Outcome::Added : NodeInstall::Outcome::WasAuthorized};
}

Result<InstallResult> SshKeys::installPublicKey(SshSession& session, const QString& publicKeyLine,
                                                const QString& privateKeyPath, const SshPrompts& prompts)
{
    using R = Result<InstallResult>;
    const QString line = publicKeyLine.trimmed();
    if (line.contains(QLatin1Char('\n')) || fingerprintOfLine(line).isEmpty())
        return R::failure(failure(codes::Key, tr("not a valid public key line")));
    ExecOptions opts;
    opts.stdinData = (line + QLatin1Char('\n')).toUtf8();
    opts.timeoutMs = 30000;
    const ExecResult r = session.exec(QStringLiteral("exec sh -c ") + shellQuote(installScript()), opts);
    const QString target = session.target().displayName();
    if (!r.ok())
        return R::failure(
            failure(remoteCode(r), tr("%1: installing the key failed (%2): %3")
                                       .arg(target, r.describe(), QString::fromUtf8(r.stdErr).trimmed())));
    InstallResult result;
    const QByteArray out = r.stdOut;
    if (out.contains("TRAINDECK_KEY_ADDED"))
        result.added = true;
    else if (!out.contains("TRAINDECK_KEY_PRESENT"))
        return R::failure(
            failure(codes::RemoteCommand,
                    tr("%1: unexpected answer while installing the key: %2").arg(target, QString::fromUtf8(out))));
    if (privateKeyPath.isEmpty())
        return result;

    // Proof: a fresh session with only this key.
    SshSession proof(keyOnlyTarget(session.target(), privateKeyPath));
    SshPrompts p = prompts;
    const QString knownFingerprint = session.hostKey().fingerprint;
    p.hostKey = [knownFingerprint](const HostKeyInfo& info) {
        return info.fingerprint == knownFingerprint ? HostKeyDecision::AcceptOnce : HostKeyDecision::Reject;
    };
    proof.setPrompts(p);
    const Status proved = proof.open(AuthOptions{true, false, false});
    if (!proved)
        return R::failure(failure(proved.errorCode(),
                                  tr("%1: the key was installed but logging in with %2 failed: %3\n"
                                     "Check the permissions of ~/.ssh (0700) and ~/.ssh/authorized_keys (0600) on the "
                                     "node, and the server's AuthorizedKeysFile.")
                                      .arg(target, privateKeyPath, proved.firstError().toString())));
    const ExecResult check = proof.exec(QStringLiteral("true"), ExecOptions{});
    result.keyLoginVerified = check.ok();
    if (!result.keyLoginVerified)
        return R::failure(
            failure(remoteCode(check),
                    tr("%1: key login works but running a command failed: %2").arg(target, check.describe())));
    return result;
}

Status SshKeys::checkNodesKeyInstall(const NodesKeyInstall& plan)
{
    const int n = int(plan.targets.size());
    if (n == 0)
        return Status::failure(failure(codes::Input, tr("the profile has no nodes")));
    if (!plan.chosen.isEmpty() && plan.chosen.size() != n)
        return Status::failure(failure(codes::Input, tr("%1 nodes chosen of %2").arg(plan.chosen.size()).arg(n)));
    if (!plan.chosen.isEmpty() && !plan.chosen.contains(true))
        return Status::failure(failure(codes::Input, tr("no node is chosen")));
    if (!plan.headToWorkers)
        return Done{};
    if (plan.head < 0 || plan.head >= n)
        return Status::failure(failure(codes::Input, tr("the profile has no head node")));
    for (int i = 0; i < n; ++i)
        if (!plan.chosen.isEmpty() && !plan.chosen.at(i))
            return Status::failure(
                failure(codes::Input, tr("head -> workers needs every node of the profile; %1 is left out")
                                          .arg(plan.targets.at(i).displayName())));
    return Done{};
}

Status SshKeys::installOnNodes(const NodesKeyInstall& plan, const NodesKeyInstallEvents& events,
                               const CancelToken& cancel)
{
    if (const Status usable = checkNodesKeyInstall(plan); !usable)
        return usable;
    const int n = int(plan.targets.size());
    auto isChosen = [&plan](int i) { return plan.chosen.isEmpty() || plan.chosen.value(i, false); };
    auto promptsFor = [&events](int node) { return events.prompts ? events.prompts(node) : SshPrompts{}; };
    auto started = [&events](int node) {
        if (events.started)
            events.started(node);
    };
    auto finished = [&events](int node, const Result<QString>& outcome) {
        if (events.finished)
            events.finished(node, outcome);
    };
    int failed = 0, installed = 0;
    QString firstFailure; // its code is the whole run's
    auto fail = [&](const Diagnostic& d) {
        if (failed++ == 0)
            firstFailure = d.code;
    };
    for (int i = 0; i < n && !cancel.isCancelled(); ++i) {
        if (!isChosen(i))
            continue;
        started(i);
        const Result<NodeInstall> done =
            installOnNode(plan.targets.at(i), plan.publicKeyLine, plan.privateKeyPath, promptsFor(i), cancel);
        if (done) {
            ++installed;
            finished(i, Result<QString>(done->message()));
        } else {
            fail(done.firstError());
            finished(i, Result<QString>::failure(done.diagnostics()));
        }
    }
    if (cancel.isCancelled())
        return Status::failure(failure(codes::Cancelled, tr("cancelled")));
    if (plan.headToWorkers) {
        const int node = NodesKeyInstallEvents::kHeadToWorkers;
        started(node);
        if (failed > 0) {
            finished(node,
                     Result<QString>::failure(failure(codes::Input, tr("skipped: not every node accepts the key"))));
        } else {
            QList<SshTarget> keyOnly;
            for (const SshTarget& t : plan.targets)
                keyOnly.append(keyOnlyTarget(t, plan.privateKeyPath));
            const Result<QStringList> lines = setupHeadToWorkers(keyOnly, plan.head, promptsFor(node), cancel);
            if (lines) {
                finished(node, Result<QString>(lines->join(QLatin1Char('\n'))));
            } else {
                fail(lines.firstError());
                finished(node, Result<QString>::failure(lines.diagnostics()));
            }
        }
    }
    if (failed > 0)
        return Status::failure(failure(firstFailure, tr("the key is on %1 of %2 node(s); %3 step(s) failed")
                                                         .arg(installed)
                                                         .arg(plan.chosen.isEmpty() ? n : int(plan.chosen.count(true)))
                                                         .arg(failed)));
    return Done{};
}

Result<QStringList> SshKeys::setupHeadToWorkers(const QList<SshTarget>& targets, int head, const SshPrompts& prompts,
                                                const CancelToken& cancel)
{
    using R = Result<QStringList>;
    if (head < 0 || head >= targets.size())
        return R::failure(failure(codes::Resolve, tr("the profile has no head node")));
    std::vector<std::unique_ptr<SshSession>> sessions;
    for (const SshTarget& t : targets) {
        auto s = std::make_unique<SshSession>(t);
        s->setPrompts(prompts);
        s->setCancelToken(cancel);
        const Status opened = s->open(AuthOptions{true, false, false});
        if (!opened)
            return R::failure(
                failure(opened.errorCode(), tr("%1: %2").arg(t.displayName(), opened.firstError().toString())));
        sessions.push_back(std::move(s));
    }
    QList<SshSession*> workers;
    for (int i = 0; i < int(sessions.size()); ++i) {
        if (i != head)
            workers.append(sessions.at(i).get());
    }
    return setupHeadToWorkers(*sessions.at(head), workers);
}

Result<QStringList> SshKeys::setupHeadToWorkers(SshSession& head, const QList<SshSession*>& workers)
{
    using R = Result<QStringList>;
    QStringList log;
    const QString headName = head.target().displayName();
    // 1. A passphrase-less key on the head (mpirun's ssh runs in batch mode).
    const QString keyScript = QStringLiteral(
        "umask 077; mkdir -p \"$HOME/.ssh\" || exit 1; cd \"$HOME/.ssh\" || exit 1; "
        "if [ -f id_ed25519 ] && ssh-keygen -y -P '' -f id_ed25519 >/dev/null 2>&1; then k=id_ed25519; "
        "elif [ ! -e id_ed25519 ]; then ssh-keygen -q -t ed25519 -N '' -C \"traindeck@$(hostname)\" -f id_ed25519 "
        "</dev/null || exit 1; k=id_ed25519; echo TRAINDECK_CREATED; "
        "else k=id_ed25519_traindeck; if [ ! -f $k ]; then ssh-keygen -q -t ed25519 -N '' -C \"traindeck@$(hostname)\" "
        "-f $k </dev/null || exit 1; echo TRAINDECK_CREATED; fi; "
        "if ! grep -qs 'IdentityFile ~/.ssh/id_ed25519_traindeck' config; then "
        "printf '\\n# added by TrainDeck: key for head -> worker logins\\nHost *\\n  IdentityFile "
        "~/.ssh/id_ed25519_traindeck\\n' "
        ">> config; chmod 600 config; echo TRAINDECK_CONFIG; fi; fi; "
        "[ -f $k.pub ] || ssh-keygen -y -f $k > $k.pub || exit 1; echo \"TRAINDECK_KEYFILE $k\"; cat $k.pub");
    ExecResult r = head.exec(QStringLiteral("exec sh -c ") + shellQuote(keyScript), ExecOptions::withTimeout(30000));
    if (!r.ok())
        return R::failure(
            failure(remoteCode(r), tr("%1: cannot create or read the head's key (%2): %3")
                                       .arg(headName, r.describe(), QString::fromUtf8(r.stdErr).trimmed())));
    QString headKey, keyFile;
    for (const QByteArray& raw : r.stdOut.split('\n')) {
        const QString l = QString::fromUtf8(raw).trimmed();
        if (l.startsWith(QLatin1String("TRAINDECK_KEYFILE ")))
            keyFile = l.mid(18);
        else if (l.startsWith(QLatin1String("ssh-")))
            headKey = l;
    }
    if (headKey.isEmpty() || fingerprintOfLine(headKey).isEmpty())
        return R::failure(
            failure(codes::RemoteCommand, tr("%1: the head's public key could not be read").arg(headName)));
    log << (r.stdOut.contains("TRAINDECK_CREATED") ? tr("%1: created ~/.ssh/%2 (%3)") : tr("%1: using ~/.ssh/%2 (%3)"))
               .arg(headName, keyFile, fingerprintOfLine(headKey));
    if (r.stdOut.contains("TRAINDECK_CONFIG"))
        log << tr("%1: added 'IdentityFile ~/.ssh/id_ed25519_traindeck' to ~/.ssh/config (id_ed25519 has a passphrase)")
                   .arg(headName);

    for (SshSession* w : workers) {
        const QString workerName = w->target().displayName();
        // 2. The head's key on the worker.
        const Result<InstallResult> installed = installPublicKey(*w, headKey, QString(), SshPrompts{});
        if (!installed)
            return R::failure(installed.diagnostics());
        log << (installed->added ? tr("%1: authorized the head's key")
                                 : tr("%1: the head's key was already authorized"))
                   .arg(workerName);
        // 3. The worker's host key (as verified from here) in the head's known_hosts.
        HostKeyInfo hk = w->hostKey();
        hk.host = w->target().host;
        const QString name = hk.knownHostsName();
        const QString keyLine = w->hostPublicKeyLine();
        const QString keyB64 = keyLine.section(QLatin1Char(' '), 1, 1);
        if (keyB64.isEmpty())
            return R::failure(failure(codes::HostKey, tr("%1: no verified host key").arg(workerName)));
        const QString khScript =
            QStringLiteral("umask 077; mkdir -p \"$HOME/.ssh\"; f=\"$HOME/.ssh/known_hosts\"; touch \"$f\"; "
                           "found=$(ssh-keygen -F %1 -f \"$f\" 2>/dev/null | grep -v '^#'); "
                           "if printf '%s\\n' \"$found\" | grep -qF -- %2; then echo TRAINDECK_PRESENT; "
                           "elif printf '%s\\n' \"$found\" | grep -q %3; then echo TRAINDECK_CONFLICT; "
                           "else if [ -s \"$f\" ] && [ -n \"$(tail -c1 \"$f\")\" ]; then echo >> \"$f\"; fi; "
                           "printf '%s\\n' %4 >> \"$f\" && echo TRAINDECK_ADDED; fi")
                .arg(shellQuote(name), shellQuote(keyB64), shellQuote(hk.keyType),
                     shellQuote(name + QLatin1Char(' ') + keyLine));
        r = head.exec(QStringLiteral("exec sh -c ") + shellQuote(khScript), ExecOptions::withTimeout(30000));
        if (r.stdOut.contains("TRAINDECK_CONFLICT"))
            return R::failure(
                failure(codes::HostKeyChanged,
                        tr("%1: the head's ~/.ssh/known_hosts holds a different %2 key for %3 than this machine "
                           "verified (%4). This may be an attack or a reinstalled node; check it and remove the "
                           "old line on the head with: ssh-keygen -R '%3'")
                            .arg(headName, hk.keyType, name, hk.fingerprint)));
        if (!r.ok())
            return R::failure(
                failure(remoteCode(r), tr("%1: cannot update ~/.ssh/known_hosts (%2): %3")
                                           .arg(headName, r.describe(), QString::fromUtf8(r.stdErr).trimmed())));
        log << (r.stdOut.contains("TRAINDECK_ADDED") ? tr("%1: added the host key of %2 (%3) to ~/.ssh/known_hosts")
                                                     : tr("%1: the host key of %2 (%3) was already known"))
                   .arg(headName, name, hk.fingerprint);
        // 4. Proof from the head, as mpirun will do it.
        const SshTarget& t = w->target();
        QString cmd = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=10");
        if (t.port > 0)
            cmd += QStringLiteral(" -p %1").arg(t.port);
        if (!t.user.isEmpty())
            cmd += QStringLiteral(" -l ") + shellQuote(t.user);
        cmd += QLatin1Char(' ') + shellQuote(t.host) + QStringLiteral(" true");
        r = head.exec(cmd, ExecOptions::withTimeout(30000));
        if (!r.ok())
            return R::failure(
                failure(remoteCode(r), tr("%1: `%2` still fails (%3): %4")
                                           .arg(headName, cmd, r.describe(), QString::fromUtf8(r.stdErr).trimmed())));
        log << tr("%1: passwordless SSH to %2 works").arg(headName, workerName);
    }
    return log;
}

Status SshKeys::deployFile(SshSession& session, const QString& localPath, const QString& remotePath, int mode)
{
    QFile in(localPath);
    if (!in.open(QIODevice::ReadOnly))
        return Status::failure(failure(codes::Io, tr("%1: cannot read: %2").arg(localPath, in.errorString())));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&in))
        return Status::failure(failure(codes::Io, tr("%1: cannot read").arg(localPath)));
    const QString localSum = QString::fromLatin1(hash.result().toHex());
    in.seek(0);
    // Length and hash are checked on the temporary file before it replaces the target: a cut upload
    // never replaces a working trainer.
    const QString script = verifiedReplaceScript(shellPath(remotePath), mode, in.size(), localSum.toLatin1());
    ExecOptions opts;
    opts.stdinDevice = &in;
    opts.timeoutMs = 600000;
    const ExecResult r = session.exec(QStringLiteral("exec sh -c ") + shellQuote(script), opts);
    if (!r.ok())
        return Status::failure(failure(remoteCode(r), tr("%1: copying %2 to %3 failed (%4): %5")
                                                          .arg(session.target().displayName(), localPath, remotePath,
                                                               r.describe(), QString::fromUtf8(r.stdErr).trimmed())));
    const QString remoteSum = firstLine(r.stdOut).section(QLatin1Char(' '), 1, 1); // "sha256 HASH"
    if (remoteSum != localSum)
        return Status::failure(
            failure(codes::RemoteCommand, tr("%1: %2 arrived damaged (sha256 %3, expected %4)")
                                              .arg(session.target().displayName(), remotePath, remoteSum, localSum)));
    return Done{};
}

} // namespace traindeck::ssh
