#include "cluster/clusterprofile.h"

#include "cluster/names.h"
#include "common/paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>
#include <QThread>

#include <cmath>

namespace traindeck::cluster {

QString nodeRoleName(NodeRole role)
{
    return role == NodeRole::Head ? QStringLiteral("head") : QStringLiteral("worker");
}

namespace {

const QString kLocalName = QStringLiteral("local");

// A JSON number without a fraction (of any size: compare it before converting it).
bool isWholeNumber(const QJsonValue& v)
{
    return v.isDouble() && std::floor(v.toDouble()) == v.toDouble();
}

// A whole number that names an integer exactly: beyond 2^53 a double has lost digits already, and
// beyond qint64 converting it is undefined.
bool isExactInteger(const QJsonValue& v)
{
    return isWholeNumber(v) && std::fabs(v.toDouble()) <= 9007199254740992.0;
}

QString nodeKey(int index, const char* key = nullptr)
{
    QString path = QStringLiteral("nodes[%1]").arg(index);
    if (key)
        path += QLatin1Char('.') + QLatin1String(key);
    return path;
}

QString joinKey(const QString& parent, const QString& key)
{
    return parent.isEmpty() ? key : parent + QLatin1Char('.') + key;
}

bool hasControlChars(const QString& s)
{
    for (QChar c : s) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return true;
    }
    return false;
}

// Finds password-like keys and inline private keys anywhere below obj; removes them (Strip) or
// reports them (Reject).
void scanSecrets(QJsonObject& obj, const QString& path, const QString& file, ClusterProfile::Secrets policy,
                 Diagnostics& out)
{
    const QStringList keys = obj.keys();
    for (const QString& key : keys) {
        const QString keyPath = joinKey(path, key);
        QJsonValue value = obj.value(key);
        const bool secret =
            Names::looksLikeSecretKey(key) || (value.isString() && Names::looksLikeSecretValue(value.toString()));
        if (secret) {
            if (policy == ClusterProfile::Secrets::Strip) {
                obj.remove(key);
                out.append(Diagnostic::keyWarning(file, keyPath,
                                                  ClusterProfile::tr("removed: profiles hold no secrets (passwords, "
                                                                     "tokens, keys); use an SSH key or agent")));
            } else {
                out.append(Diagnostic::keyError(file, keyPath,
                                                ClusterProfile::tr("profiles must not hold secrets (passwords, tokens, "
                                                                   "keys); remove it and use an SSH key or agent")));
            }
            continue;
        }
        if (value.isObject()) {
            QJsonObject child = value.toObject();
            scanSecrets(child, keyPath, file, policy, out);
            obj.insert(key, child);
        } else if (value.isArray()) {
            QJsonArray array = value.toArray();
            for (int i = 0; i < array.size(); ++i) {
                const QString itemPath = keyPath + QStringLiteral("[%1]").arg(i);
                if (array.at(i).isObject()) {
                    QJsonObject child = array.at(i).toObject();
                    scanSecrets(child, itemPath, file, policy, out);
                    array.replace(i, child);
                } else if (array.at(i).isString() && Names::looksLikeSecretValue(array.at(i).toString())) {
                    out.append(Diagnostic::keyError(file, itemPath,
                                                    ClusterProfile::tr("profiles must not hold private keys")));
                }
            }
            obj.insert(key, array);
        }
    }
}

struct Reader {
    const QString& file;
    Diagnostics& out;

    void error(const QString& key, const QString& message) { out.append(Diagnostic::keyError(file, key, message)); }

    // Reads an optional string; wrong types are errors, the default stays.
    void string(const QJsonObject& obj, const QString& key, const QString& path, QString& target)
    {
        if (!obj.contains(key) || obj.value(key).isNull())
            return;
        if (!obj.value(key).isString()) {
            error(path, ClusterProfile::tr("expected a string"));
            return;
        }
        target = obj.value(key).toString();
    }

    void integer(const QJsonObject& obj, const QString& key, const QString& path, int min, int max, int& target,
                 bool* present = nullptr)
    {
        if (!obj.contains(key) || obj.value(key).isNull())
            return;
        const QJsonValue v = obj.value(key);
        const double d = v.toDouble();
        if (!isWholeNumber(v) || d < min || d > max) {
            error(path, ClusterProfile::tr("expected an integer %1..%2").arg(min).arg(max));
            return;
        }
        target = int(d);
        if (present)
            *present = true;
    }
};

const QStringList kTopKeys = {
    QStringLiteral("version"),  QStringLiteral("name"),        QStringLiteral("known_hosts"), QStringLiteral("workdir"),
    QStringLiteral("launcher"), QStringLiteral("path_prefix"), QStringLiteral("env"),         QStringLiteral("nodes"),
    QStringLiteral("local"),    QStringLiteral("slurm"),
};
const QStringList kSlurmKeys = {
    QStringLiteral("partition"),     QStringLiteral("account"),        QStringLiteral("time"),
    QStringLiteral("nodes"),         QStringLiteral("tasks_per_node"), QStringLiteral("gpus_per_node"),
    QStringLiteral("cpus_per_task"), QStringLiteral("ranks_via"),      QStringLiteral("signal_seconds"),
};
const QStringList kNodeKeys = {
    QStringLiteral("name"),     QStringLiteral("host"),  QStringLiteral("port"), QStringLiteral("user"),
    QStringLiteral("identity"), QStringLiteral("slots"), QStringLiteral("gpus"), QStringLiteral("role"),
};

QJsonObject withoutKeys(QJsonObject obj, const QStringList& keys)
{
    for (const QString& k : keys)
        obj.remove(k);
    return obj;
}

// (line, column) of a byte offset in UTF-8 text; both 1-based.
QPair<int, int> lineColumnOf(const QByteArray& text, int offset)
{
    int line = 1, column = 1;
    for (int i = 0; i < offset && i < text.size(); ++i) {
        if (text.at(i) == '\n') {
            ++line;
            column = 1;
        } else if ((uchar(text.at(i)) & 0xC0) != 0x80) {
            ++column;
        }
    }
    return {line, column};
}

// One entry of "nodes" (an object): its keys checked and read, the rest kept as extra.
ClusterNode readNode(Reader& r, const QJsonObject& o, int i)
{
    ClusterNode n;
    r.string(o, QStringLiteral("host"), nodeKey(i, "host"), n.host);
    n.name = n.host;
    r.string(o, QStringLiteral("name"), nodeKey(i, "name"), n.name);
    r.integer(o, QStringLiteral("port"), nodeKey(i, "port"), 1, 65535, n.port);
    r.string(o, QStringLiteral("user"), nodeKey(i, "user"), n.user);
    r.string(o, QStringLiteral("identity"), nodeKey(i, "identity"), n.identity);
    r.integer(o, QStringLiteral("gpus"), nodeKey(i, "gpus"), 0, 1024, n.gpus);
    bool hasSlots = false;
    r.integer(o, QStringLiteral("slots"), nodeKey(i, "slots"), 1, ClusterProfile::MaxSlots, n.slots, &hasSlots);
    if (!hasSlots && !o.contains(QStringLiteral("slots")) && n.gpus > 0)
        n.slots = n.gpus;
    if (o.contains(QStringLiteral("role"))) {
        const QString role = o.value(QStringLiteral("role")).toString();
        if (role == QLatin1String("head"))
            n.role = NodeRole::Head;
        else if (role == QLatin1String("worker"))
            n.role = NodeRole::Worker;
        else
            r.error(nodeKey(i, "role"), ClusterProfile::tr("expected \"head\" or \"worker\""));
    }
    if (!o.contains(QStringLiteral("host")))
        r.error(nodeKey(i, "host"), ClusterProfile::tr("missing; every node needs a host name or address"));
    n.extra = withoutKeys(o, kNodeKeys);
    return n;
}

// The optional "slurm" object.
std::optional<SlurmSettings> readSlurm(Reader& r, const QJsonValue& slurm)
{
    if (slurm.isUndefined() || slurm.isNull())
        return std::nullopt;
    if (!slurm.isObject()) {
        r.error(QStringLiteral("slurm"), ClusterProfile::tr("expected an object with at least \"partition\""));
        return std::nullopt;
    }
    const QJsonObject o = slurm.toObject();
    SlurmSettings st;
    r.string(o, QStringLiteral("partition"), QStringLiteral("slurm.partition"), st.partition);
    r.string(o, QStringLiteral("account"), QStringLiteral("slurm.account"), st.account);
    r.string(o, QStringLiteral("time"), QStringLiteral("slurm.time"), st.timeLimit);
    r.integer(o, QStringLiteral("nodes"), QStringLiteral("slurm.nodes"), 1, 100000, st.nodes);
    r.integer(o, QStringLiteral("tasks_per_node"), QStringLiteral("slurm.tasks_per_node"), 1, ClusterProfile::MaxSlots,
              st.tasksPerNode);
    r.integer(o, QStringLiteral("gpus_per_node"), QStringLiteral("slurm.gpus_per_node"), 0, 1024, st.gpusPerNode);
    r.integer(o, QStringLiteral("cpus_per_task"), QStringLiteral("slurm.cpus_per_task"), 1, 4096, st.cpusPerTask);
    r.string(o, QStringLiteral("ranks_via"), QStringLiteral("slurm.ranks_via"), st.ranksVia);
    r.integer(o, QStringLiteral("signal_seconds"), QStringLiteral("slurm.signal_seconds"), 0, 65535, st.signalSeconds);
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!kSlurmKeys.contains(it.key()))
            r.error(QStringLiteral("slurm.") + it.key(),
                    ClusterProfile::tr("unknown key; expected one of %1").arg(kSlurmKeys.join(QStringLiteral(", "))));
    }
    return st;
}

} // namespace

ClusterProfile ClusterProfile::local(int slots)
{
    ClusterProfile p;
    p.name = kLocalName;
    p.isLocal = true;
    p.knownHosts.clear();
    p.workdir = traindeck::paths::dataDir();
    ClusterNode node;
    node.name = QStringLiteral("localhost");
    node.host = QStringLiteral("localhost");
    node.slots = qBound(1, slots > 0 ? slots : QThread::idealThreadCount(), MaxSlots);
    node.role = NodeRole::Head;
    p.nodes.append(node);
    return p;
}

ClusterProfile ClusterProfile::fromHostfile(const Hostfile& hostfile, const QString& name)
{
    ClusterProfile p;
    p.name = name;
    const QList<HostEntry> hosts = hostfile.mergedHosts();
    for (int i = 0; i < hosts.size(); ++i) {
        ClusterNode node;
        node.name = hosts.at(i).host;
        node.host = hosts.at(i).host;
        node.user = hosts.at(i).user;
        node.slots = hosts.at(i).slots.value_or(1);
        node.role = i == 0 ? NodeRole::Head : NodeRole::Worker;
        p.nodes.append(node);
    }
    return p;
}

Result<ClusterProfile> ClusterProfile::fromJson(const QByteArray& json, const QString& fileName, Secrets secrets)
{
    Diagnostics out;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const auto [line, column] = lineColumnOf(json, parseError.offset);
        return Result<ClusterProfile>::failure(
            Diagnostic::error(fileName, line, column, tr("invalid JSON: %1").arg(parseError.errorString())));
    }
    if (!doc.isObject())
        return Result<ClusterProfile>::failure(
            Diagnostic::error(fileName, 1, 1, tr("expected a JSON object with \"version\", \"name\" and \"nodes\"")));

    QJsonObject root = doc.object();
    scanSecrets(root, QString(), fileName, secrets, out);
    Reader r{fileName, out};
    ClusterProfile p;

    if (!root.contains(QStringLiteral("version"))) {
        out.append(Diagnostic::keyWarning(fileName, QStringLiteral("version"),
                                          tr("missing; read as version %1").arg(FormatVersion)));
    } else {
        const QJsonValue v = root.value(QStringLiteral("version"));
        const double d = v.toDouble();
        if (!isWholeNumber(v) || d < 1)
            r.error(QStringLiteral("version"), tr("expected an integer format version (%1)").arg(FormatVersion));
        else if (d > FormatVersion)
            r.error(QStringLiteral("version"),
                    tr("format version %1 is newer than this TrainDeck reads (%2); update TrainDeck")
                        .arg(QString::number(d, 'g', 16),
                             QString::number(FormatVersion))); // no cast: 1e300 fits no integer
    }

    p.name = QFileInfo(fileName).completeBaseName();
    r.string(root, QStringLiteral("name"), QStringLiteral("name"), p.name);
    r.string(root, QStringLiteral("known_hosts"), QStringLiteral("known_hosts"), p.knownHosts);
    r.string(root, QStringLiteral("workdir"), QStringLiteral("workdir"), p.workdir);
    r.string(root, QStringLiteral("launcher"), QStringLiteral("launcher"), p.launcher);
    if (root.contains(QStringLiteral("local"))) {
        if (!root.value(QStringLiteral("local")).isBool())
            r.error(QStringLiteral("local"), tr("expected true or false"));
        else
            p.isLocal = root.value(QStringLiteral("local")).toBool();
    }
    const QJsonValue prefix = root.value(QStringLiteral("path_prefix"));
    if (prefix.isString()) {
        p.pathPrefix = QStringList{prefix.toString()};
    } else if (prefix.isArray()) {
        const QJsonArray a = prefix.toArray();
        for (int i = 0; i < a.size(); ++i) {
            if (!a.at(i).isString())
                r.error(QStringLiteral("path_prefix[%1]").arg(i), tr("expected a string"));
            else
                p.pathPrefix.append(a.at(i).toString());
        }
    } else if (!prefix.isUndefined() && !prefix.isNull()) {
        r.error(QStringLiteral("path_prefix"), tr("expected a directory or a list of directories"));
    }
    const QJsonValue env = root.value(QStringLiteral("env"));
    if (env.isObject()) {
        const QJsonObject e = env.toObject();
        for (auto it = e.begin(); it != e.end(); ++it) {
            const QString key = QStringLiteral("env.") + it.key();
            if (it.value().isString())
                p.env.insert(it.key(), it.value().toString());
            else if (isExactInteger(it.value()))
                p.env.insert(it.key(), QString::number(qint64(it.value().toDouble())));
            else
                r.error(key, tr("expected a string"));
        }
    } else if (!env.isUndefined() && !env.isNull()) {
        r.error(QStringLiteral("env"), tr("expected an object of NAME: value strings"));
    }

    const QJsonValue nodes = root.value(QStringLiteral("nodes"));
    if (nodes.isUndefined()) {
        r.error(QStringLiteral("nodes"), tr("missing; a profile needs at least one node"));
    } else if (!nodes.isArray()) {
        r.error(QStringLiteral("nodes"), tr("expected a list of nodes"));
    } else {
        const QJsonArray a = nodes.toArray();
        for (int i = 0; i < a.size(); ++i) {
            if (!a.at(i).isObject()) {
                r.error(nodeKey(i), tr("expected an object with at least \"host\""));
                continue;
            }
            p.nodes.append(readNode(r, a.at(i).toObject(), i));
        }
    }
    p.slurm = readSlurm(r, root.value(QStringLiteral("slurm")));
    p.extra = withoutKeys(root, kTopKeys);

    // Semantic checks, skipping keys that already failed their type check.
    for (const Diagnostic& d : p.validate(fileName)) {
        bool duplicate = false;
        for (const Diagnostic& e : out)
            duplicate = duplicate || (e.key == d.key && e.isError());
        if (!duplicate)
            out.append(d);
    }
    if (hasErrors(out))
        return Result<ClusterProfile>::failure(out);
    return Result<ClusterProfile>(p, out);
}

Diagnostics ClusterProfile::validate(const QString& fileName) const
{
    Diagnostics out;
    auto error = [&](const QString& key, const QString& message) {
        out.append(Diagnostic::keyError(fileName, key, message));
    };
    const NameCheck nameCheck = Names::checkProfileName(name);
    if (!nameCheck.ok)
        error(QStringLiteral("name"), nameCheck.message);
    if (name == kLocalName && !isLocal)
        error(QStringLiteral("name"), tr("\"local\" is the built-in profile; choose another name"));
    auto checkPath = [&](const QString& key, const QString& value, bool required) {
        if (required && value.trimmed().isEmpty())
            error(key, tr("must not be empty"));
        else if (hasControlChars(value))
            error(key, tr("control characters (such as a newline) are not allowed"));
        else if (value.startsWith(QLatin1Char('-')))
            error(key, tr("must not start with '-'"));
    };
    checkPath(QStringLiteral("known_hosts"), knownHosts, !isLocal);
    checkPath(QStringLiteral("workdir"), workdir, true);
    checkPath(QStringLiteral("launcher"), launcher, true);
    if (launcher.contains(QLatin1Char(' ')) || launcher.contains(QLatin1Char('\t')))
        error(QStringLiteral("launcher"), tr("expected a program name or path without spaces (\"mpirun\")"));
    for (int i = 0; i < pathPrefix.size(); ++i) {
        checkPath(QStringLiteral("path_prefix[%1]").arg(i), pathPrefix.at(i), true);
        if (pathPrefix.at(i).contains(QLatin1Char(':')))
            error(QStringLiteral("path_prefix[%1]").arg(i), tr("one directory per entry; ':' is not allowed"));
    }
    for (auto it = env.begin(); it != env.end(); ++it) {
        const QString key = QStringLiteral("env.") + it.key();
        const NameCheck envName = Names::checkEnvName(it.key());
        if (!envName.ok)
            error(key, envName.message);
        else if (Names::looksLikeSecretKey(it.key()) || Names::looksLikeSecretValue(it.value()))
            error(
                key,
                tr("profiles must not hold secrets (passwords, tokens, keys); remove it and use an SSH key or agent"));
        else if (it.value().contains(QLatin1Char('\n')) || it.value().contains(QChar(0)))
            error(key, tr("control characters (such as a newline) are not allowed"));
    }
    if (nodes.isEmpty())
        error(QStringLiteral("nodes"), tr("a profile needs at least one node"));
    if (slurm) {
        auto slurmWord = [&](const char* key, const QString& value, bool required) {
            const QString k = QStringLiteral("slurm.") + QLatin1String(key);
            if (required && value.trimmed().isEmpty())
                error(k, tr("must not be empty: name the Slurm partition to submit to (sinfo lists them)"));
            else if (!value.isEmpty() &&
                     !QRegularExpression(QStringLiteral("^[A-Za-z0-9_.+-]{1,64}$")).match(value).hasMatch())
                error(k, tr("expected a Slurm name (letters, digits, _ . + -), got '%1'").arg(value));
            else if (value.startsWith(QLatin1Char('-')))
                error(k, tr("must not start with '-'"));
        };
        slurmWord("partition", slurm->partition, true);
        slurmWord("account", slurm->account, false);
        if (!isSlurmTimeLimit(slurm->timeLimit))
            error(QStringLiteral("slurm.time"),
                  tr("expected a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS), got '%1'")
                      .arg(slurm->timeLimit));
        if (slurm->nodes < 1 || slurm->nodes > 100000)
            error(QStringLiteral("slurm.nodes"), tr("expected an integer %1..%2").arg(1).arg(100000));
        if (slurm->tasksPerNode < 1 || slurm->tasksPerNode > MaxSlots)
            error(QStringLiteral("slurm.tasks_per_node"), tr("expected an integer %1..%2").arg(1).arg(MaxSlots));
        if (slurm->gpusPerNode < 0 || slurm->gpusPerNode > 1024)
            error(QStringLiteral("slurm.gpus_per_node"), tr("expected an integer %1..%2").arg(0).arg(1024));
        if (slurm->cpusPerTask < 1 || slurm->cpusPerTask > 4096)
            error(QStringLiteral("slurm.cpus_per_task"), tr("expected an integer %1..%2").arg(1).arg(4096));
        if (!QStringList{QStringLiteral("auto"), QStringLiteral("mpirun"), QStringLiteral("srun")}.contains(
                slurm->ranksVia))
            error(QStringLiteral("slurm.ranks_via"),
                  tr("expected \"auto\", \"mpirun\" or \"srun\", got '%1'").arg(slurm->ranksVia));
        if (slurm->signalSeconds < 0 || slurm->signalSeconds > 65535)
            error(QStringLiteral("slurm.signal_seconds"), tr("expected an integer %1..%2").arg(0).arg(65535));
        if (isLocal)
            error(QStringLiteral("slurm"), tr("the built-in local profile cannot use Slurm"));
        // The run directory (under the workdir) goes into "#SBATCH --output=": sbatch splits directives at
        // blanks, has no quoting there, and expands %u, %x, ... in the path.
        static const QRegularExpression sbatchUnsafe(QStringLiteral("[\\s'\"%\\\\]"));
        if (const QRegularExpressionMatch m = sbatchUnsafe.match(workdir); m.hasMatch())
            error(QStringLiteral("workdir"),
                  tr("'%1' has %2, which a Slurm job script's #SBATCH lines cannot carry (sbatch splits them at "
                     "blanks and expands %); choose a work directory without blanks, quotes, backslashes or %")
                      .arg(workdir, m.captured(0) == QLatin1String("%") ? tr("'%'")
                                    : m.captured(0).at(0).isSpace()     ? tr("a blank")
                                                                        : tr("a quote or backslash")));
    }

    int firstHead = -1;
    QHash<QString, int> names, endpoints;
    for (int i = 0; i < nodes.size(); ++i) {
        const ClusterNode& n = nodes.at(i);
        const NameCheck host = Names::checkHost(n.host);
        if (!host.ok)
            error(nodeKey(i, "host"), host.message);
        if (n.name.isEmpty())
            error(nodeKey(i, "name"), tr("must not be empty"));
        else if (hasControlChars(n.name))
            error(nodeKey(i, "name"), tr("control characters (such as a newline) are not allowed"));
        else if (names.contains(n.name))
            error(nodeKey(i, "name"),
                  tr("'%1' is already the name of nodes[%2]").arg(n.name, QString::number(names.value(n.name))));
        else
            names.insert(n.name, i);
        if (n.port < 1 || n.port > 65535)
            error(nodeKey(i, "port"), tr("expected an integer %1..%2").arg(1).arg(65535));
        if (!n.user.isEmpty()) {
            const NameCheck user = Names::checkUser(n.user);
            if (!user.ok)
                error(nodeKey(i, "user"), user.message);
        }
        checkPath(nodeKey(i, "identity"), n.identity, false);
        if (Names::looksLikeSecretValue(n.identity))
            error(nodeKey(i, "identity"), tr("expected the path of a key file, not the key itself"));
        if (n.slots < 1 || n.slots > MaxSlots)
            error(nodeKey(i, "slots"), tr("expected an integer %1..%2").arg(1).arg(MaxSlots));
        if (n.gpus < 0 || n.gpus > 1024)
            error(nodeKey(i, "gpus"), tr("expected an integer %1..%2").arg(0).arg(1024));
        const QString endpoint = n.host.toLower() + QLatin1Char(':') + QString::number(n.port);
        if (!n.host.isEmpty() && endpoints.contains(endpoint))
            error(nodeKey(i, "host"),
                  tr("%1 port %2 is already nodes[%3]")
                      .arg(n.host, QString::number(n.port), QString::number(endpoints.value(endpoint))));
        else
            endpoints.insert(endpoint, i);
        if (n.role == NodeRole::Head) {
            if (firstHead >= 0)
                error(nodeKey(i, "role"),
                      tr("nodes[%1] is already the head; exactly one node may be \"head\"").arg(firstHead));
            else
                firstHead = i;
        }
        QJsonObject extraCopy = n.extra;
        scanSecrets(extraCopy, nodeKey(i), fileName, Secrets::Reject, out);
    }
    QJsonObject extraCopy = extra;
    scanSecrets(extraCopy, QString(), fileName, Secrets::Reject, out);
    return out;
}

QJsonObject ClusterProfile::toJsonObject() const
{
    QJsonObject root = extra;
    root.insert(QStringLiteral("version"), FormatVersion);
    root.insert(QStringLiteral("name"), name);
    if (isLocal)
        root.insert(QStringLiteral("local"), true);
    root.insert(QStringLiteral("known_hosts"), knownHosts);
    root.insert(QStringLiteral("workdir"), workdir);
    root.insert(QStringLiteral("launcher"), launcher);
    if (!pathPrefix.isEmpty())
        root.insert(QStringLiteral("path_prefix"), QJsonArray::fromStringList(pathPrefix));
    QJsonObject envObject;
    for (auto it = env.begin(); it != env.end(); ++it)
        envObject.insert(it.key(), it.value());
    root.insert(QStringLiteral("env"), envObject);
    QJsonArray nodeArray;
    for (const ClusterNode& n : nodes) {
        QJsonObject o = n.extra;
        o.insert(QStringLiteral("name"), n.name);
        o.insert(QStringLiteral("host"), n.host);
        o.insert(QStringLiteral("port"), n.port);
        if (!n.user.isEmpty())
            o.insert(QStringLiteral("user"), n.user);
        if (!n.identity.isEmpty())
            o.insert(QStringLiteral("identity"), n.identity);
        o.insert(QStringLiteral("slots"), n.slots);
        o.insert(QStringLiteral("gpus"), n.gpus);
        o.insert(QStringLiteral("role"), nodeRoleName(n.role));
        nodeArray.append(o);
    }
    root.insert(QStringLiteral("nodes"), nodeArray);
    if (slurm) {
        QJsonObject o;
        o.insert(QStringLiteral("partition"), slurm->partition);
        if (!slurm->account.isEmpty())
            o.insert(QStringLiteral("account"), slurm->account);
        o.insert(QStringLiteral("time"), slurm->timeLimit);
        o.insert(QStringLiteral("nodes"), slurm->nodes);
        o.insert(QStringLiteral("tasks_per_node"), slurm->tasksPerNode);
        o.insert(QStringLiteral("gpus_per_node"), slurm->gpusPerNode);
        o.insert(QStringLiteral("cpus_per_task"), slurm->cpusPerTask);
        o.insert(QStringLiteral("ranks_via"), slurm->ranksVia);
        o.insert(QStringLiteral("signal_seconds"), slurm->signalSeconds);
        root.insert(QStringLiteral("slurm"), o);
    }
    return root;
}

QByteArray ClusterProfile::toJson() const
{
    return QJsonDocument(toJsonObject()).toJson(QJsonDocument::Indented);
}

int ClusterProfile::headIndex() const
{
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).role == NodeRole::Head)
            return i;
    }
    return nodes.isEmpty() ? -1 : 0;
}

ClusterNode ClusterProfile::head() const
{
    const int i = headIndex();
    return i >= 0 ? nodes.at(i) : ClusterNode{};
}

bool isSlurmTimeLimit(const QString& text)
{
    static const QRegularExpression re(QStringLiteral(
        "^(\\d{1,6}|\\d{1,6}:\\d{1,2}|\\d{1,6}:\\d{1,2}:\\d{1,2}|\\d{1,4}-\\d{1,2}(:\\d{1,2}(:\\d{1,2})?)?)$"));
    return re.match(text).hasMatch() && text != QLatin1String("0");
}

int ClusterProfile::totalSlots() const
{
    if (slurm)
        return slurm->ranks();
    int total = 0;
    for (const ClusterNode& n : nodes)
        total += n.slots;
    return total;
}

Result<Hostfile> ClusterProfile::toHostfile() const
{
    Diagnostics diagnostics = validate(name + QStringLiteral(".json"));
    if (hasErrors(diagnostics))
        return Result<Hostfile>::failure(diagnostics);
    Hostfile hostfile(HostfileFormat::OpenMpi);
    hostfile.appendComment(tr("# Open MPI hostfile from TrainDeck cluster profile '%1'").arg(name));
    const int head = headIndex();
    QList<int> order;
    if (head >= 0)
        order.append(head);
    for (int i = 0; i < nodes.size(); ++i) {
        if (i != head)
            order.append(i);
    }
    for (int i : order) {
        const ClusterNode& n = nodes.at(i);
        HostEntry entry;
        entry.user = isLocal ? QString() : n.user;
        entry.host = n.host;
        entry.slots = n.slots;
        hostfile.appendHost(entry, i == head ? QStringLiteral("# head") : QString());
        if (n.port != 22 && !isLocal) {
            diagnostics.append(Diagnostic::keyWarning(
                name + QStringLiteral(".json"), nodeKey(i, "port"),
                tr("a hostfile carries no SSH port; set \"Port %1\" for %2 in ~/.ssh/config or pass "
                   "--mca plm_rsh_args \"-p %1\" to mpirun")
                    .arg(n.port)
                    .arg(n.host)));
        }
    }
    return Result<Hostfile>(hostfile, diagnostics);
}

QString ClusterProfile::profilesDir()
{
    return traindeck::paths::configDir() + QStringLiteral("/profiles");
}

QString ClusterProfile::pathForName(const QString& name)
{
    return profilesDir() + QLatin1Char('/') + name + QStringLiteral(".json");
}

QStringList ClusterProfile::savedNames()
{
    QStringList names;
    const QStringList files = QDir(profilesDir()).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString& f : files) {
        const QString n = f.chopped(5);
        if (Names::checkProfileName(n).ok && n != kLocalName)
            names.append(n);
    }
    return names;
}

QStringList ClusterProfile::availableNames()
{
    return QStringList{kLocalName} + savedNames();
}

Result<ClusterProfile> ClusterProfile::load(const QString& path, Secrets secrets)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<ClusterProfile>::failure(Diagnostic::error(path, tr("cannot read: %1").arg(file.errorString())));
    if (file.size() > 4 * 1024 * 1024)
        return Result<ClusterProfile>::failure(Diagnostic::error(path, tr("file is larger than 4 MiB; not a profile")));
    return fromJson(file.readAll(), path, secrets);
}

Result<ClusterProfile> ClusterProfile::loadNamed(const QString& name, int localSlots)
{
    if (name == kLocalName)
        return Result<ClusterProfile>(local(localSlots));
    const NameCheck check = Names::checkProfileName(name);
    if (!check.ok)
        return Result<ClusterProfile>::failure(Diagnostic::error(name, check.message));
    const QString path = pathForName(name);
    if (!QFileInfo::exists(path))
        return Result<ClusterProfile>::failure(Diagnostic::error(
            path, tr("no profile '%1' (known: %2)").arg(name, availableNames().join(QStringLiteral(", ")))));
    return load(path);
}

Status ClusterProfile::save(const QString& path) const
{
    const Diagnostics diagnostics = validate(path);
    if (hasErrors(diagnostics))
        return Status::failure(diagnostics);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    file.write(toJson());
    if (!file.commit())
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    return Status(Done{}, diagnostics);
}

Status ClusterProfile::saveNamed() const
{
    if (name == kLocalName)
        return Status::failure(Diagnostic::keyError(QString(), QStringLiteral("name"),
                                                    tr("\"local\" is the built-in profile; choose another name")));
    const NameCheck check = Names::checkProfileName(name);
    if (!check.ok)
        return Status::failure(Diagnostic::keyError(QString(), QStringLiteral("name"), check.message));
    if (!QDir().mkpath(profilesDir()))
        return Status::failure(Diagnostic::error(profilesDir(), tr("cannot create the profiles directory")));
    return save(pathForName(name));
}

Status ClusterProfile::removeNamed(const QString& name)
{
    const NameCheck check = Names::checkProfileName(name);
    if (!check.ok || name == kLocalName)
        return Status::failure(Diagnostic::error(name, tr("cannot remove profile '%1'").arg(name)));
    const QString path = pathForName(name);
    if (!QFile::remove(path))
        return Status::failure(Diagnostic::error(path, tr("cannot remove: no such profile")));
    return Status(Done{});
}

Result<ClusterProfile> ClusterProfile::importFile(const QString& path, const QString& asName, bool overwrite)
{
    Result<ClusterProfile> loaded = load(path, Secrets::Strip);
    if (!loaded)
        return loaded;
    ClusterProfile p = loaded.value();
    Diagnostics diagnostics = loaded.diagnostics();
    if (!asName.isEmpty())
        p.name = asName;
    if (p.name == kLocalName)
        return Result<ClusterProfile>::failure(
            diagnostics +
            Diagnostics{Diagnostic::keyError(path, QStringLiteral("name"),
                                             tr("\"local\" is the built-in profile; import it under another name"))});
    const NameCheck check = Names::checkProfileName(p.name);
    if (!check.ok)
        return Result<ClusterProfile>::failure(
            diagnostics + Diagnostics{Diagnostic::keyError(path, QStringLiteral("name"), check.message)});
    const QString target = pathForName(p.name);
    if (!overwrite && QFileInfo::exists(target))
        return Result<ClusterProfile>::failure(
            diagnostics +
            Diagnostics{Diagnostic::error(
                target, tr("profile '%1' exists already; choose another name or overwrite it").arg(p.name))});
    const Status saved = p.saveNamed();
    if (!saved)
        return Result<ClusterProfile>::failure(diagnostics + saved.diagnostics());
    return Result<ClusterProfile>(p, diagnostics);
}

Status ClusterProfile::exportNamed(const QString& name, const QString& path)
{
    const Result<ClusterProfile> p = loadNamed(name);
    if (!p)
        return Status::failure(p.diagnostics());
    return p.value().save(path);
}

} // namespace traindeck::cluster
