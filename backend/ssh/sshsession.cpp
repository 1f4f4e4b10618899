#include "ssh/sshsession.h"

#include "cluster/clusterprofile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMutex>
#include <QMutexLocker>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/server.h> // ssh_send_keepalive (client and server)

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace traindeck::ssh {

namespace {

// Appends to known_hosts files are serialised within this process.
QMutex& knownHostsMutex()
{
    static QMutex m;
    return m;
}

QString fromC(const char* s)
{
    return s ? QString::fromUtf8(s) : QString();
}

} // namespace

struct SshSession::Private {
    ssh_session session = nullptr;
    ssh_callbacks_struct callbacks{};
    SshSession* self = nullptr;

    static int authCallback(const char* prompt, char* buf, size_t len, int echo, int, void* userdata)
    {
        auto* p = static_cast<Private*>(userdata);
        if (!p->self->m_prompts.secret || len == 0)
            return -1;
        SecretRequest req;
        req.kind = SecretKind::KeyPassphrase;
        req.target = p->self->m_target.displayName();
        req.prompt = fromC(prompt);
        req.echo = echo != 0;
        std::optional<QByteArray> answer = p->self->m_prompts.secret(req);
        if (!answer)
            return -1;
        const size_t n = std::min(size_t(answer->size()), len - 1);
        std::memcpy(buf, answer->constData(), n);
        buf[n] = '\0';
        answer->fill('\0');
        return 0;
    }
};

// ---- helpers ---------------------------------------------------------------------------------

QString SshTarget::displayName() const
{
    QString s = user.isEmpty() ? host : user + QLatin1Char('@') + host;
    if (port > 0 && port != 22)
        s += QLatin1Char(':') + QString::number(port);
    return s;
}

QString HostKeyInfo::knownHostsName() const
{
    return port == 22 || port == 0 ? host : QStringLiteral("[%1]:%2").arg(host, QString::number(port));
}

QString HostKeyInfo::explanation() const
{
    const QString name = knownHostsName();
    switch (state) {
    case State::Known:
        return QCoreApplication::translate("traindeck::ssh::HostKeyInfo", "The host key of %1 (%2 %3) is known.")
            .arg(name, keyType, fingerprint);
    case State::Unknown:
        return QCoreApplication::translate("traindeck::ssh::HostKeyInfo",
                                           "The authenticity of host %1 cannot be established: it is not in %2.\n"
                                           "Its %3 key fingerprint is %4.\n"
                                           "Compare it with the fingerprint the administrator gives you (on the host: "
                                           "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) before you accept it.")
            .arg(name, knownHostsFile, keyType, fingerprint);
    case State::Changed:
    case State::OtherType:
        return QCoreApplication::translate(
                   "traindeck::ssh::HostKeyInfo",
                   "WARNING: the host key of %1 does not match the one recorded in %2.\n"
                   "Someone could be intercepting the connection (a man-in-the-middle attack), or the host "
                   "was reinstalled and got a new key.\n"
                   "The host now offers a %3 key with fingerprint %4.\n"
                   "TrainDeck refuses to connect. After you have verified the new fingerprint with the "
                   "administrator, remove the old key with:\n"
                   "  ssh-keygen -R '%1' -f '%2'\n"
                   "and connect again to accept the new one.")
            .arg(name, knownHostsFile, keyType, fingerprint);
    case State::Error: break;
    }
    return QCoreApplication::translate("traindeck::ssh::HostKeyInfo",
                                       "The host key of %1 could not be checked against %2.")
        .arg(name, knownHostsFile);
}

QString ExecResult::describe() const
{
    switch (status) {
    case Status::Exited: return tr("exit code %1").arg(exitCode);
    case Status::Signalled:
        return tr("killed by signal %1%2").arg(exitSignal, coreDumped ? tr(" (core dumped)") : QString());
    case Status::TimedOut: return tr("timed out after %1 ms").arg(elapsedMs);
    case Status::Cancelled: return tr("cancelled");
    case Status::Failed: break;
    }
    return error.message.isEmpty() ? tr("failed") : error.message;
}

// ---- SshSession -------------------------------------------------------------------------------

SshSession::SshSession(SshTarget target) : m_target(std::move(target)), d(std::make_unique<Private>())
{
    d->self = this;
}

SshSession::~SshSession()
{
    disconnect();
}

SshTarget SshSession::targetFor(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node)
{
    SshTarget t;
    t.host = node.host;
    t.port = node.port == 22 ? 0 : node.port;
    t.user = node.user;
    t.identity = node.identity;
    t.knownHosts = profile.knownHosts;
    return t;
}

SshTarget SshSession::targetFor(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node,
                                const SshTarget& connection)
{
    SshTarget t = targetFor(profile, node);
    if (!connection.knownHosts.isEmpty())
        t.knownHosts = connection.knownHosts;
    t.globalKnownHosts = connection.globalKnownHosts;
    t.configFile = connection.configFile;
    t.useAgent = connection.useAgent;
    t.useDefaultIdentities = connection.useDefaultIdentities;
    if (t.identity.isEmpty())
        t.identity = connection.identity;
    t.keepaliveIntervalMs = connection.keepaliveIntervalMs;
    t.keepaliveCountMax = connection.keepaliveCountMax;
    t.connectTimeoutMs = connection.connectTimeoutMs;
    return t;
}

void* SshSession::nativeHandle() const
{
    return d->session;
}

bool SshSession::isConnected() const
{
    return d->session && ssh_is_connected(d->session);
}

void SshSession::disconnect()
{
    if (d->session) {
        if (ssh_is_connected(d->session))
            ssh_disconnect(d->session);
        ssh_free(d->session);
        d->session = nullptr;
    }
    m_authenticated = false;
}

Status SshSession::fail(const QString& code, const QString& message, const QString& detail)
{
    return Status::failure(Diagnostic::codedError(code, message, detail));
}

Status SshSession::open(const AuthOptions& options)
{
    const Status connected = connectToHost();
    if (!connected)
        return connected;
    return authenticate(options);
}

Status SshSession::connectToHost()
{
    disconnect();
    m_hostKey = {};
    m_hostKeyLine.clear();
    m_authMethod.clear();
    if (m_cancel.isCancelled())
        return fail(codes::Cancelled, tr("%1: cancelled").arg(m_target.displayName()));
    if (m_target.host.isEmpty() || m_target.host.startsWith(QLatin1Char('-')))
        return fail(codes::Resolve, tr("invalid host name '%1'").arg(m_target.host));

    ssh_session s = ssh_new();
    if (!s)
        return fail(codes::Protocol, tr("%1: cannot create an SSH session").arg(m_target.displayName()));
    d->session = s;
    const QByteArray host = m_target.host.toUtf8();
    ssh_options_set(s, SSH_OPTIONS_HOST, host.constData());

    // ~/.ssh/config first, so that the profile's explicit values override it (as ssh's -p/-l/-i do)...
    if (m_target.configFile == QLatin1String("none")) {
        int no = 0;
        ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
    } else {
        const QByteArray cfg = QFile::encodeName(expandTilde(m_target.configFile));
        if (ssh_options_parse_config(s, m_target.configFile.isEmpty() ? nullptr : cfg.constData()) < 0)
            return fail(codes::Protocol,
                        tr("%1: cannot parse the SSH configuration %2: %3")
                            .arg(m_target.displayName(),
                                 m_target.configFile.isEmpty() ? QStringLiteral("~/.ssh/config") : m_target.configFile,
                                 fromC(ssh_get_error(s))));
    }
    if (m_target.port > 0) {
        const unsigned int port = unsigned(m_target.port);
        ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    }
    if (!m_target.user.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_USER, m_target.user.toUtf8().constData());
    if (!m_target.identity.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_ADD_IDENTITY, QFile::encodeName(expandTilde(m_target.identity)).constData());

    // ...and strict host-key checking forced AFTER the config: "StrictHostKeyChecking no" there would
    // otherwise make libssh trust unknown hosts. The known_hosts file is the profile's.
    int strict = 1;
    ssh_options_set(s, SSH_OPTIONS_STRICTHOSTKEYCHECK, &strict);
    const QString knownHosts =
        expandTilde(m_target.knownHosts.isEmpty() ? QStringLiteral("~/.ssh/known_hosts") : m_target.knownHosts);
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, QFile::encodeName(knownHosts).constData());
    if (!m_target.globalKnownHosts.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
                        QFile::encodeName(expandTilde(m_target.globalKnownHosts)).constData());

    // Both parts of the timeout: libssh adds them, and an unset _USEC keeps an older value.
    const long timeoutSec = qMax(0, m_target.connectTimeoutMs) / 1000;
    const long timeoutUsec = (qMax(0, m_target.connectTimeoutMs) % 1000) * 1000L;
    // Every command is a handful of small packets (channel open, exec, EOF, exit status, close): with
    // Nagle's algorithm each waited for the peer's delayed ACK (40 ms), about 150 ms per command.
    const int noDelay = 1;
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &noDelay);
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeoutSec);
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &timeoutUsec);

    d->callbacks = {};
    d->callbacks.userdata = d.get();
    d->callbacks.auth_function = &Private::authCallback;
    ssh_callbacks_init(&d->callbacks);
    ssh_set_callbacks(s, &d->callbacks);

    char* resolved = nullptr;
    if (ssh_options_get(s, SSH_OPTIONS_HOST, &resolved) == SSH_OK) {
        m_resolvedHost = fromC(resolved);
        ssh_string_free_char(resolved);
    }
    resolved = nullptr;
    if (ssh_options_get(s, SSH_OPTIONS_USER, &resolved) == SSH_OK) {
        m_resolvedUser = fromC(resolved);
        ssh_string_free_char(resolved);
    }
    unsigned int port = 22;
    ssh_options_get_port(s, &port);
    m_resolvedPort = int(port);

    QElapsedTimer timer;
    timer.start();
    if (ssh_connect(s) != SSH_OK) {
        const QString why = fromC(ssh_get_error(s));
        const QString where = tr("%1 (port %2)").arg(m_target.displayName(), QString::number(m_resolvedPort));
        QLatin1String code = codes::Connect;
        if (why.contains(QLatin1String("imeout")) || why.contains(QLatin1String("timed out")) ||
            timer.elapsed() >= m_target.connectTimeoutMs)
            code = codes::Timeout;
        else if (why.contains(QLatin1String("resolve")) || why.contains(QLatin1String("getaddrinfo")))
            code = codes::Resolve;
        disconnect();
        if (code == codes::Timeout)
            return fail(code,
                        tr("%1: no answer within %2 s (%3)")
                            .arg(where, QString::number(m_target.connectTimeoutMs / 1000.0), why),
                        tr("Check that the host is up, that sshd listens on port %1 and that no firewall drops the "
                           "connection.")
                            .arg(m_resolvedPort));
        if (code == codes::Resolve)
            return fail(code, tr("%1: cannot resolve the host name (%2)").arg(where, why),
                        tr("Check the spelling, /etc/hosts or DNS, or use the IP address."));
        return fail(code, tr("%1: cannot connect: %2").arg(where, why),
                    tr("Check that the host is up and that sshd listens on port %1.").arg(m_resolvedPort));
    }
    applyTcpKeepalive();
    const Status hostKey = checkHostKey();
    if (!hostKey)
        disconnect();
    return hostKey;
}

void SshSession::applyTcpKeepalive()
{
    const int fd = ssh_get_fd(d->session);
    if (fd < 0 || m_target.keepaliveIntervalMs <= 0)
        return;
    const int on = 1;
    const int idle = qMax(1, m_target.keepaliveIntervalMs / 1000);
    const int count = qMax(1, m_target.keepaliveCountMax);
    const unsigned int userTimeout = unsigned(m_target.keepaliveIntervalMs) * unsigned(count);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
    // Data (our keepalives included) unacknowledged this long: the kernel drops the connection and
    // the next read fails, so a dead link is detected while a command runs.
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeout, sizeof userTimeout);
}

Status SshSession::checkHostKey()
{
    ssh_session s = d->session;
    m_hostKey.host = m_resolvedHost.isEmpty() ? m_target.host : m_resolvedHost;
    m_hostKey.port = m_resolvedPort;
    m_hostKey.knownHostsFile =
        expandTilde(m_target.knownHosts.isEmpty() ? QStringLiteral("~/.ssh/known_hosts") : m_target.knownHosts);

    ssh_key key = nullptr;
    if (ssh_get_server_publickey(s, &key) != SSH_OK || !key) {
        m_hostKey.state = HostKeyInfo::State::Error;
        return fail(codes::HostKey, tr("%1: the server sent no host key").arg(m_target.displayName()));
    }
    m_hostKey.keyType = fromC(ssh_key_type_to_char(ssh_key_type(key)));
    unsigned char* hash = nullptr;
    size_t hlen = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == SSH_OK) {
        char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
        m_hostKey.fingerprint = fromC(fp);
        ssh_string_free_char(fp);
        ssh_clean_pubkey_hash(&hash);
    }
    char* b64 = nullptr;
    if (ssh_pki_export_pubkey_base64(key, &b64) == SSH_OK) {
        m_hostKeyLine = m_hostKey.keyType + QLatin1Char(' ') + fromC(b64);
        ssh_string_free_char(b64);
    }
    ssh_key_free(key);

    const ssh_known_hosts_e state = ssh_session_is_known_server(s);
    switch (state) {
    case SSH_KNOWN_HOSTS_OK: m_hostKey.state = HostKeyInfo::State::Known; return Done{};
    case SSH_KNOWN_HOSTS_CHANGED:
        m_hostKey.state = HostKeyInfo::State::Changed;
        return fail(
            codes::HostKeyChanged,
            tr("%1: HOST KEY CHANGED, refusing to connect (this may be an attack)").arg(m_hostKey.knownHostsName()),
            m_hostKey.explanation());
    case SSH_KNOWN_HOSTS_OTHER:
        m_hostKey.state = HostKeyInfo::State::OtherType;
        return fail(codes::HostKeyChanged,
                    tr("%1: the host offers a %2 key but another type is recorded, refusing to connect (this may be an "
                       "attack)")
                        .arg(m_hostKey.knownHostsName(), m_hostKey.keyType),
                    m_hostKey.explanation());
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND: break;
    case SSH_KNOWN_HOSTS_ERROR:
    default:
        m_hostKey.state = HostKeyInfo::State::Error;
        return fail(codes::HostKey,
                    tr("%1: cannot check the host key against %2: %3")
                        .arg(m_hostKey.knownHostsName(), m_hostKey.knownHostsFile, fromC(ssh_get_error(s))));
    }

    m_hostKey.state = HostKeyInfo::State::Unknown;
    const HostKeyDecision decision = m_prompts.hostKey ? m_prompts.hostKey(m_hostKey) : HostKeyDecision::Reject;
    if (m_cancel.isCancelled())
        return fail(codes::Cancelled, tr("%1: cancelled").arg(m_target.displayName()));
    if (decision == HostKeyDecision::Reject)
        return fail(codes::HostKeyUnknown,
                    tr("%1: unknown host key %2 %3 was not accepted")
                        .arg(m_hostKey.knownHostsName(), m_hostKey.keyType, m_hostKey.fingerprint),
                    m_hostKey.explanation());
    if (decision == HostKeyDecision::AcceptAndSave) {
        QMutexLocker lock(&knownHostsMutex());
        const QString dir = QFileInfo(m_hostKey.knownHostsFile).absolutePath();
        if (!QFileInfo::exists(dir)) {
            QDir().mkpath(dir);
            QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        if (ssh_session_update_known_hosts(s) != SSH_OK)
            return fail(codes::Io,
                        tr("%1: cannot add the host key to %2: %3")
                            .arg(m_hostKey.knownHostsName(), m_hostKey.knownHostsFile, fromC(ssh_get_error(s))));
    }
    m_hostKey.state = HostKeyInfo::State::Known;
    return Done{};
}

Status SshSession::authenticate(const AuthOptions& options)
{
    m_authenticated = false;
    if (!isConnected())
        return fail(codes::Protocol, tr("%1: not connected").arg(m_target.displayName()));
    ssh_session s = d->session;
    const auto authenticated = [this](const QString& method) -> Status {
        if (!method.isEmpty())
            m_authMethod = method;
        m_authenticated = true;
        return Done{};
    };
    int rc = ssh_userauth_none(s, nullptr);
    if (rc == SSH_AUTH_SUCCESS)
        return authenticated(QStringLiteral("none"));
    if (rc == SSH_AUTH_ERROR)
        return fail(isConnected() ? codes::Protocol : codes::LinkLost,
                    tr("%1: authentication failed: %2").arg(m_target.displayName(), fromC(ssh_get_error(s))));
    const int methods = ssh_userauth_list(s, nullptr);
    QStringList offered;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        offered << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        offered << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        offered << QStringLiteral("password");

    if (options.publicKey && (methods & SSH_AUTH_METHOD_PUBLICKEY) && authPublicKey())
        return authenticated(QString());
    if (m_cancel.isCancelled())
        return fail(codes::Cancelled, tr("%1: cancelled").arg(m_target.displayName()));
    if (options.keyboardInteractive && (methods & SSH_AUTH_METHOD_INTERACTIVE) && authKeyboardInteractive())
        return authenticated(QString());
    if (options.password && (methods & SSH_AUTH_METHOD_PASSWORD) && authPassword())
        return authenticated(QString());
    QStringList tried;
    if (options.publicKey)
        tried << tr("keys (agent: %1, identity: %2)")
                     .arg(m_target.useAgent && qEnvironmentVariableIsSet("SSH_AUTH_SOCK") ? tr("yes") : tr("no"),
                          m_target.identity.isEmpty() ? tr("defaults") : m_target.identity);
    if (options.keyboardInteractive)
        tried << QStringLiteral("keyboard-interactive");
    if (options.password)
        tried << QStringLiteral("password");
    return fail(codes::Auth,
                tr("%1: authentication failed (server offers: %2; tried: %3)")
                    .arg(m_resolvedUser + QLatin1Char('@') + m_target.displayName(),
                         offered.isEmpty() ? tr("nothing") : offered.join(QStringLiteral(", ")),
                         tried.isEmpty() ? tr("nothing") : tried.join(QStringLiteral(", "))),
                tr("Install your public key on the node (traindeck-cli install-key, or ssh-copy-id), or name the "
                   "right private key in the profile's \"identity\"."));
}

bool SshSession::authPublicKey()
{
    ssh_session s = d->session;
    if (m_target.useAgent && qEnvironmentVariableIsSet("SSH_AUTH_SOCK")) {
        if (ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS) {
            m_authMethod = QStringLiteral("agent");
            return true;
        }
    }
    if (!m_target.identity.isEmpty()) {
        const QString path = expandTilde(m_target.identity);
        bool offer = true;
        ssh_key pub = nullptr;
        if (QFileInfo::exists(path + QStringLiteral(".pub")) &&
            ssh_pki_import_pubkey_file(QFile::encodeName(path + QStringLiteral(".pub")).constData(), &pub) == SSH_OK) {
            offer = ssh_userauth_try_publickey(s, nullptr, pub) == SSH_AUTH_SUCCESS;
            ssh_key_free(pub);
        }
        if (offer) {
            ssh_key priv = nullptr;
            if (ssh_pki_import_privkey_file(QFile::encodeName(path).constData(), nullptr, &Private::authCallback,
                                            d.get(), &priv) == SSH_OK) {
                const int rc = ssh_userauth_publickey(s, nullptr, priv);
                ssh_key_free(priv);
                if (rc == SSH_AUTH_SUCCESS) {
                    m_authMethod = QStringLiteral("publickey");
                    return true;
                }
            }
        }
    }
    if (m_target.useDefaultIdentities && isConnected()) {
        if (ssh_userauth_publickey_auto(s, nullptr, nullptr) == SSH_AUTH_SUCCESS) {
            m_authMethod = QStringLiteral("publickey");
            return true;
        }
    }
    return false;
}

bool SshSession::authPassword()
{
    if (!m_prompts.secret)
        return false;
    SecretRequest req;
    req.kind = SecretKind::Password;
    req.target = m_resolvedUser + QLatin1Char('@') + m_target.displayName();
    req.prompt = tr("Password for %1:").arg(req.target);
    std::optional<QByteArray> pw = m_prompts.secret(req);
    if (!pw)
        return false;
    const int rc = ssh_userauth_password(d->session, nullptr, pw->constData());
    pw->fill('\0');
    if (rc == SSH_AUTH_SUCCESS) {
        m_authMethod = QStringLiteral("password");
        return true;
    }
    return false;
}

bool SshSession::authKeyboardInteractive()
{
    if (!m_prompts.secret)
        return false;
    ssh_session s = d->session;
    int rc = ssh_userauth_kbdint(s, nullptr, nullptr);
    for (int round = 0; rc == SSH_AUTH_INFO && round < 10; ++round) {
        const QString instruction = fromC(ssh_userauth_kbdint_getinstruction(s));
        const int n = ssh_userauth_kbdint_getnprompts(s);
        for (int i = 0; i < n; ++i) {
            char echo = 0;
            const char* prompt = ssh_userauth_kbdint_getprompt(s, unsigned(i), &echo);
            SecretRequest req;
            req.kind = SecretKind::KeyboardInteractive;
            req.target = m_resolvedUser + QLatin1Char('@') + m_target.displayName();
            req.prompt = fromC(prompt);
            req.instruction = instruction;
            req.echo = echo != 0;
            std::optional<QByteArray> answer = m_prompts.secret(req);
            if (!answer)
                return false;
            const int set = ssh_userauth_kbdint_setanswer(s, unsigned(i), answer->constData());
            answer->fill('\0');
            if (set < 0)
                return false;
        }
        rc = ssh_userauth_kbdint(s, nullptr, nullptr);
    }
    if (rc == SSH_AUTH_SUCCESS) {
        m_authMethod = QStringLiteral("keyboard-interactive");
        return true;
    }
    return false;
}

} // namespace traindeck::ssh
