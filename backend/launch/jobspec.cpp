#include "launch/jobspec.h"

#include "common/paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QRegularExpression>

#include <cmath>

namespace traindeck::launch {

namespace {
bool isEnvName(const QString& s)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return re.match(s).hasMatch();
}

const QStringList& pathFlags()
{
    static const QStringList f{QStringLiteral("data"),   QStringLiteral("tokenizer"), QStringLiteral("model"),
                               QStringLiteral("config"), QStringLiteral("cache-dir"), QStringLiteral("resume")};
    return f;
}
} // namespace

// Keep in step with trainer/train/options.cpp (tst_jobspec compares it with `traindeck-trainer train --help`).
const QStringList& JobSpec::knownTrainerFlags()
{
    static const QStringList f = [] {
        QStringList l;
        for (const char* n : {"model",
                              "preset",
                              "tokenizer",
                              "data",
                              "text-field",
                              "batch-mode",
                              "cache-dir",
                              "seq-len",
                              "micro-batch",
                              "grad-accum",
                              "lr",
                              "min-lr",
                              "warmup",
                              "max-steps",
                              "epochs",
                              "weight-decay",
                              "clip",
                              "seed",
                              "init-std",
                              "precision",
                              "device",
                              "compression",
                              "bucket-mb",
                              "comm",
                              "collective-timeout",
                              "overlap",
                              "zero",
                              "fused-loss",
                              "loss-chunk",
                              "recompute",
                              "scale-lr",
                              "checkpoint-every",
                              "keep",
                              "out",
                              "resume",
                              "metrics-out",
                              "metrics-stdout",
                              "threads",
                              "log-every",
                              "prefetch",
                              "balance",
                              "balance-every",
                              "balance-shares",
                              "stall-warning",
                              "stall-abort",
                              "inject-stall",
                              "inject-delay",
                              "inject-slowdown",
                              "inject-exit",
                              "inject-nan",
                              "init-seed-per-rank",
                              "verify-sync",
                              "run-id",
                              "config"})
            l.append(QString::fromLatin1(n));
        return l;
    }();
    return f;
}

const QStringList& JobSpec::reservedTrainerFlags()
{
    static const QStringList f{QStringLiteral("out"), QStringLiteral("metrics-out"), QStringLiteral("run-id")};
    return f;
}

Result<JobSpec> JobSpec::fromJson(const QByteArray& json, const QString& fileName)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        // Line/column of the offset, for a person.
        int line = 1, col = 1;
        for (int i = 0; i < pe.offset && i < json.size(); ++i) {
            if (json[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        return Result<JobSpec>::failure(
            Diagnostic::error(fileName, line, col, tr("invalid JSON: %1").arg(pe.errorString())));
    }
    if (!doc.isObject())
        return Result<JobSpec>::failure(Diagnostic::error(fileName, 1, 1, tr("expected a JSON object")));
    const QJsonObject o = doc.object();
    Diagnostics d;
    auto err = [&](const QString& key, const QString& msg) { d.append(Diagnostic::keyError(fileName, key, msg)); };
    JobSpec s;
    static const QStringList known{QStringLiteral("version"), QStringLiteral("name"), QStringLiteral("profile"),
                                   QStringLiteral("ranks"),   QStringLiteral("env"),  QStringLiteral("mpi"),
                                   QStringLiteral("trainer")};
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!known.contains(it.key()))
            err(it.key(), tr("unknown key (expected one of %1)").arg(known.join(QStringLiteral(", "))));
    }
    auto intOf = [&](const QString& key, const QJsonValue& v, int lo, int hi, int* out) {
        const double x = v.toDouble(std::nan(""));
        if (!v.isDouble() || std::floor(x) != x || x < lo || x > hi) {
            err(key, tr("expected an integer %1..%2").arg(lo).arg(hi));
            return;
        }
        *out = int(x);
    };
    if (!o.contains(QStringLiteral("version")))
        err(QStringLiteral("version"), tr("missing (expected %1)").arg(FormatVersion));
    else
        intOf(QStringLiteral("version"), o.value(QStringLiteral("version")), FormatVersion, FormatVersion, &s.version);
    const QJsonValue name = o.value(QStringLiteral("name"));
    if (!name.isString() || name.toString().trimmed().isEmpty())
        err(QStringLiteral("name"), tr("expected a non-empty string"));
    else
        s.name = name.toString();
    if (o.contains(QStringLiteral("profile"))) {
        const QJsonValue p = o.value(QStringLiteral("profile"));
        if (!p.isString() || p.toString().isEmpty())
            err(QStringLiteral("profile"), tr("expected a profile name or file"));
        else
            s.profile = p.toString();
    }
    if (o.contains(QStringLiteral("ranks")))
        intOf(QStringLiteral("ranks"), o.value(QStringLiteral("ranks")), 1, MaxRanks, &s.ranks);
    if (o.contains(QStringLiteral("env"))) {
        const QJsonValue e = o.value(QStringLiteral("env"));
        if (!e.isObject()) {
            err(QStringLiteral("env"), tr("expected an object of NAME: \"value\""));
        } else {
            const QJsonObject eo = e.toObject();
            for (auto it = eo.begin(); it != eo.end(); ++it) {
                const QString key = QStringLiteral("env.") + it.key();
                if (!isEnvName(it.key()))
                    err(key,
                        tr("not a valid environment variable name (letters, digits, _; not starting with a digit)"));
                else if (!it.value().isString())
                    err(key, tr("expected a string"));
                else
                    s.env.insert(it.key(), it.value().toString());
            }
        }
    }
    if (o.contains(QStringLiteral("mpi"))) {
        const QJsonValue m = o.value(QStringLiteral("mpi"));
        if (!m.isObject()) {
            err(QStringLiteral("mpi"), tr("expected an object"));
        } else {
            const QJsonObject mo = m.toObject();
            for (auto it = mo.begin(); it != mo.end(); ++it) {
                const QString key = QStringLiteral("mpi.") + it.key();
                if (it.key() == QLatin1String("btl_tcp_if_include") ||
                    it.key() == QLatin1String("oob_tcp_if_include")) {
                    if (!it.value().isString() || it.value().toString().isEmpty())
                        err(key, tr("expected an interface name or subnet list, e.g. \"eth0\" or \"10.0.0.0/24\""));
                    else
                        (it.key().startsWith(QLatin1String("btl")) ? s.btlTcpIfInclude : s.oobTcpIfInclude) =
                            it.value().toString();
                } else if (it.key() == QLatin1String("args")) {
                    const QJsonArray a = it.value().toArray();
                    if (!it.value().isArray())
                        err(key, tr("expected an array of strings"));
                    for (int i = 0; i < a.size(); ++i) {
                        if (!a[i].isString())
                            err(QStringLiteral("%1[%2]").arg(key).arg(i), tr("expected a string"));
                        else
                            s.mpiArgs.append(a[i].toString());
                    }
                } else {
                    err(key, tr("unknown key (expected btl_tcp_if_include, oob_tcp_if_include or args)"));
                }
            }
        }
    }
    const QJsonValue t = o.value(QStringLiteral("trainer"));
    if (!t.isObject())
        err(QStringLiteral("trainer"), tr("expected an object of trainer flags without dashes"));
    else
        s.trainer = t.toObject();
    // Checks shared with code-built specs (trainer flags, names).
    if (!hasErrors(d)) {
        for (const Diagnostic& x : s.validate(fileName))
            d.append(x);
    }
    if (hasErrors(d))
        return Result<JobSpec>::failure(d);
    return Result<JobSpec>(s, d);
}

Result<JobSpec> JobSpec::load(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Result<JobSpec>::failure(Diagnostic::error(path, tr("cannot read: %1").arg(f.errorString())));
    return fromJson(f.readAll(), path);
}

Result<JobSpec> JobSpec::builtin(const QString& name)
{
    const QString path = QStringLiteral(":/traindeck/specs/%1.json").arg(name);
    if (!QFileInfo::exists(path))
        return Result<JobSpec>::failure(Diagnostic::keyError(name, QString(), tr("no built-in job spec of this name")));
    Result<JobSpec> spec = load(path);
    if (spec)
        spec.value().resolvePaths(paths::cacheDir());
    return spec;
}

Diagnostics JobSpec::validate(const QString& fileName) const
{
    Diagnostics d;
    auto err = [&](const QString& key, const QString& msg) { d.append(Diagnostic::keyError(fileName, key, msg)); };
    if (version != FormatVersion)
        err(QStringLiteral("version"), tr("unsupported version %1 (expected %2)").arg(version).arg(FormatVersion));
    if (name.trimmed().isEmpty())
        err(QStringLiteral("name"), tr("expected a non-empty string"));
    else if (name.size() > 200)
        err(QStringLiteral("name"), tr("longer than 200 characters"));
    if (ranks < 0 || ranks > MaxRanks)
        err(QStringLiteral("ranks"), tr("expected an integer 1..%1").arg(MaxRanks));
    for (auto it = env.begin(); it != env.end(); ++it) {
        if (!isEnvName(it.key()))
            err(QStringLiteral("env.") + it.key(), tr("not a valid environment variable name"));
    }
    static const QRegularExpression flagRe(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    for (auto it = trainer.begin(); it != trainer.end(); ++it) {
        const QString key = QStringLiteral("trainer.") + it.key();
        if (!flagRe.match(it.key()).hasMatch()) {
            err(key, tr("not a trainer flag name (write flags without the leading dashes, e.g. \"max-steps\")"));
            continue;
        }
        if (reservedTrainerFlags().contains(it.key())) {
            err(key, tr("set by the launcher (the run directory's out/, metrics.jsonl and run id); remove it"));
            continue;
        }
        if (!knownTrainerFlags().contains(it.key())) {
            err(key, tr("unknown trainer flag (see traindeck-trainer train --help)"));
            continue;
        }
        const QJsonValue v = it.value();
        if (v.isDouble()) {
            if (!std::isfinite(v.toDouble()))
                err(key, tr("expected a finite number"));
        } else if (v.isString()) {
            if (v.toString().contains(QChar(0)))
                err(key, tr("contains a NUL character"));
        } else if (!v.isBool()) {
            err(key, tr("expected a string, number or boolean"));
        }
    }
    return d;
}

void JobSpec::resolvePaths(const QString& baseDir)
{
    const QDir base(baseDir);
    for (const QString& k : pathFlags()) {
        const QJsonValue v = trainer.value(k);
        if (!v.isString())
            continue;
        const QString p = v.toString();
        if (p.isEmpty() || (k == QLatin1String("resume") && p == QLatin1String("latest")) || QDir::isAbsolutePath(p))
            continue;
        if (p.startsWith(QLatin1String("~/"))) {
            trainer.insert(k, QDir::homePath() + p.mid(1));
            continue;
        }
        trainer.insert(k, QDir::cleanPath(base.absoluteFilePath(p)));
    }
}

QStringList JobSpec::trainerArgs() const
{
    QStringList a;
    // Model first, then the rest alphabetically (QJsonObject keeps keys sorted): stable and readable.
    QStringList keys = trainer.keys();
    for (const char* first : {"preset", "model", "config"}) {
        const QString k = QString::fromLatin1(first);
        if (keys.removeOne(k))
            keys.prepend(k);
    }
    for (const QString& k : keys) {
        const QJsonValue v = trainer.value(k);
        const QString flag = QStringLiteral("--") + k;
        if (v.isBool()) {
            if (v.toBool())
                a.append(flag);
        } else if (v.isDouble()) {
            const double x = v.toDouble();
            const bool integral = std::floor(x) == x && std::fabs(x) < 9.0e15;
            a.append(flag + QLatin1Char('=') +
                     (integral ? QString::number(qint64(x)) : QString::number(x, 'g', QLocale::FloatingPointShortest)));
        } else {
            a.append(flag + QLatin1Char('=') + v.toString());
        }
    }
    return a;
}

QJsonObject JobSpec::toJsonObject() const
{
    QJsonObject o;
    o.insert(QStringLiteral("version"), version);
    o.insert(QStringLiteral("name"), name);
    o.insert(QStringLiteral("profile"), profile);
    if (ranks > 0)
        o.insert(QStringLiteral("ranks"), ranks);
    QJsonObject e;
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    o.insert(QStringLiteral("env"), e);
    QJsonObject m;
    if (!btlTcpIfInclude.isEmpty())
        m.insert(QStringLiteral("btl_tcp_if_include"), btlTcpIfInclude);
    if (!oobTcpIfInclude.isEmpty())
        m.insert(QStringLiteral("oob_tcp_if_include"), oobTcpIfInclude);
    if (!mpiArgs.isEmpty())
        m.insert(QStringLiteral("args"), QJsonArray::fromStringList(mpiArgs));
    if (!m.isEmpty())
        o.insert(QStringLiteral("mpi"), m);
    o.insert(QStringLiteral("trainer"), trainer);
    return o;
}

QByteArray JobSpec::toJson() const
{
    return QJsonDocument(toJsonObject()).toJson(QJsonDocument::Indented);
}

} // namespace traindeck::launch
