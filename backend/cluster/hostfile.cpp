#include "cluster/hostfile.h"

#include "cluster/names.h"

#include <QFile>
#include <QHash>
#include <QSaveFile>
#include <QSet>

#include <limits>

namespace traindeck::cluster {

std::optional<HostfileFormat> hostfileFormatFromName(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("openmpi") || n == QLatin1String("ompi") || n == QLatin1String("open-mpi"))
        return HostfileFormat::OpenMpi;
    if (n == QLatin1String("deepspeed") || n == QLatin1String("ds"))
        return HostfileFormat::DeepSpeed;
    if (n == QLatin1String("mpich") || n == QLatin1String("hydra"))
        return HostfileFormat::Mpich;
    return std::nullopt;
}

QString hostfileFormatName(HostfileFormat format)
{
    switch (format) {
    case HostfileFormat::OpenMpi: return QStringLiteral("openmpi");
    case HostfileFormat::DeepSpeed: return QStringLiteral("deepspeed");
    case HostfileFormat::Mpich: return QStringLiteral("mpich");
    }
    return {};
}

static QString displayFormat(HostfileFormat format)
{
    switch (format) {
    case HostfileFormat::OpenMpi: return QStringLiteral("Open MPI");
    case HostfileFormat::DeepSpeed: return QStringLiteral("DeepSpeed");
    case HostfileFormat::Mpich: return QStringLiteral("MPICH");
    }
    return {};
}

namespace {

enum class Attr { Slots, MaxSlots, Unknown };

Attr attributeOf(const QString& key, HostfileFormat format)
{
    if (format == HostfileFormat::DeepSpeed)
        return key == QLatin1String("slots") ? Attr::Slots : Attr::Unknown;
    // The spellings Open MPI's hostfile lexer accepts.
    static const QStringList slotsNames = {QStringLiteral("slots"), QStringLiteral("slot"), QStringLiteral("count"),
                                           QStringLiteral("cpu")};
    static const QStringList maxNames = {
        QStringLiteral("max_slots"), QStringLiteral("max-slots"), QStringLiteral("max_slot"),
        QStringLiteral("max-slot"),  QStringLiteral("slots_max"), QStringLiteral("slots-max"),
        QStringLiteral("slot_max"),  QStringLiteral("slot-max"),
    };
    const QString k = key.toLower();
    if (slotsNames.contains(k))
        return Attr::Slots;
    if (maxNames.contains(k))
        return Attr::MaxSlots;
    return Attr::Unknown;
}

bool isBlank(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t');
}

// Parses a count 1..MaxSlots written in ASCII digits.
std::optional<int> parseCount(const QString& text)
{
    if (text.isEmpty() || text.size() > 9)
        return std::nullopt;
    int value = 0;
    for (QChar c : text) {
        if (c.unicode() < u'0' || c.unicode() > u'9')
            return std::nullopt;
        value = value * 10 + (c.unicode() - u'0');
    }
    if (value < 1 || value > Hostfile::MaxSlots)
        return std::nullopt;
    return value;
}

QString countError(const QString& what, const QString& got)
{
    return Hostfile::tr("%1: expected an integer 1..%2, got '%3'").arg(what, QString::number(Hostfile::MaxSlots), got);
}

// The user and host of an entry checked for format; returns the message and sets column, or "".
QString entryNameError(const HostEntry& e, HostfileFormat format, int userColumn, int& column)
{
    const int hostColumn = e.user.isEmpty() ? userColumn : userColumn + int(e.user.size()) + 1;
    if (format != HostfileFormat::OpenMpi && !e.user.isEmpty()) {
        column = userColumn;
        return Hostfile::tr("%1 hostfiles have no user@ part; set the user in ~/.ssh/config or the cluster profile")
            .arg(displayFormat(format));
    }
    if (!e.user.isEmpty()) {
        const NameCheck user = Names::checkUser(e.user);
        if (!user.ok) {
            column = userColumn + user.offset;
            return user.message;
        }
    }
    const NameCheck host = Names::checkHost(e.host, format != HostfileFormat::Mpich);
    if (!host.ok) {
        column = hostColumn + host.offset;
        return host.message;
    }
    return {};
}

struct LineParser {
    HostfileFormat format;
    const QString& fileName;
    int lineNumber;
    Diagnostics& diagnostics;
    bool failed = false;

    void error(int column, const QString& message)
    {
        diagnostics.append(Diagnostic::error(fileName, lineNumber, column, message));
        failed = true;
    }

    // content: the line without its comment. Fills line.entry and positions.
    void parseHost(const QString& content, HostfileLine& line)
    {
        int i = 0;
        const int n = int(content.size());
        while (i < n && isBlank(content.at(i)))
            ++i;
        const int hostStart = i;
        while (i < n && !isBlank(content.at(i)) && content.at(i) != QLatin1Char('='))
            ++i;
        QString token = content.mid(hostStart, i - hostStart);
        const bool equalsFollows = i < n && content.at(i) == QLatin1Char('=');
        line.hostColumn = hostStart + 1;
        if (format == HostfileFormat::Mpich) {
            const int colon = int(token.indexOf(QLatin1Char(':')));
            if (colon >= 0) {
                const QString count = token.mid(colon + 1);
                token = token.left(colon);
                line.slotsColumn = hostStart + colon + 2;
                if (count.contains(QLatin1Char(':'))) {
                    error(line.slotsColumn + int(count.indexOf(QLatin1Char(':'))),
                          Hostfile::tr("unexpected ':' after the process count (expected 'host:N')"));
                    return;
                }
                const std::optional<int> value = parseCount(count);
                if (!value) {
                    error(line.slotsColumn, countError(Hostfile::tr("process count"), count));
                    return;
                }
                line.entry.slots = value;
            }
        }
        const int at = int(token.indexOf(QLatin1Char('@')));
        if (at >= 0) {
            line.entry.user = token.left(at);
            line.entry.host = token.mid(at + 1);
            if (line.entry.user.isEmpty()) {
                error(hostStart + 1, Hostfile::tr("empty user name before '@'"));
                return;
            }
        } else {
            line.entry.host = token;
        }
        // A bad name is the most useful thing to say about a line, so it comes first.
        if (!token.isEmpty()) {
            int column = 0;
            const QString message = entryNameError(line.entry, format, line.hostColumn, column);
            if (!message.isEmpty()) {
                error(column, message);
                return;
            }
        }
        if (equalsFollows) {
            // "slots=4" with no host before it.
            error(hostStart + 1,
                  Hostfile::tr("expected a host name before '%1'").arg(content.mid(hostStart).trimmed()));
            return;
        }

        bool sawSlots = false, sawMax = false;
        while (true) {
            while (i < n && isBlank(content.at(i)))
                ++i;
            if (i >= n)
                break;
            const int keyStart = i;
            if (format == HostfileFormat::Mpich) {
                error(keyStart + 1, Hostfile::tr("unexpected '%1' after the host (MPICH lines are 'host' or 'host:N')")
                                        .arg(content.mid(keyStart).trimmed()));
                return;
            }
            while (i < n && !isBlank(content.at(i)) && content.at(i) != QLatin1Char('='))
                ++i;
            const QString key = content.mid(keyStart, i - keyStart);
            const int afterKey = i;
            while (i < n && isBlank(content.at(i)))
                ++i;
            if (key.isEmpty() || i >= n || content.at(i) != QLatin1Char('=')) {
                if (key.isEmpty())
                    error(keyStart + 1, Hostfile::tr("unexpected '='"));
                else if (format == HostfileFormat::DeepSpeed && attributeOf(key, format) == Attr::Unknown)
                    error(keyStart + 1, Hostfile::tr("unexpected '%1' (DeepSpeed lines are 'host slots=N')").arg(key));
                else
                    error(keyStart + 1, Hostfile::tr("expected '=' after '%1'").arg(key));
                return;
            }
            if (format == HostfileFormat::DeepSpeed && i != afterKey) {
                error(afterKey + 1, Hostfile::tr("no spaces allowed around '=' in DeepSpeed hostfiles"));
                return;
            }
            ++i; // '='
            const int equalsEnd = i;
            while (i < n && isBlank(content.at(i)))
                ++i;
            if (format == HostfileFormat::DeepSpeed && i != equalsEnd) {
                error(equalsEnd + 1, Hostfile::tr("no spaces allowed around '=' in DeepSpeed hostfiles"));
                return;
            }
            const int valueStart = i;
            while (i < n && !isBlank(content.at(i)))
                ++i;
            const QString value = content.mid(valueStart, i - valueStart);
            const Attr attr = attributeOf(key, format);
            if (attr == Attr::Unknown) {
                error(keyStart + 1,
                      format == HostfileFormat::DeepSpeed
                          ? Hostfile::tr("unknown attribute '%1' (DeepSpeed knows only slots=)").arg(key)
                          : Hostfile::tr("unknown attribute '%1' (expected slots= or max_slots=)").arg(key));
                return;
            }
            if ((attr == Attr::Slots && sawSlots) || (attr == Attr::MaxSlots && sawMax)) {
                error(keyStart + 1, Hostfile::tr("'%1' given twice on one line").arg(key));
                return;
            }
            if (value.isEmpty()) {
                error(valueStart + 1, Hostfile::tr("missing value after '%1='").arg(key));
                return;
            }
            if (value.contains(QLatin1Char('='))) {
                error(valueStart + 1 + int(value.indexOf(QLatin1Char('='))),
                      Hostfile::tr("unexpected '=' in '%1'").arg(value));
                return;
            }
            const std::optional<int> count = parseCount(value);
            if (!count) {
                error(valueStart + 1, countError(key, value));
                return;
            }
            if (attr == Attr::Slots) {
                sawSlots = true;
                line.entry.slots = count;
                line.slotsColumn = valueStart + 1;
            } else {
                sawMax = true;
                line.entry.maxSlots = count;
                line.maxSlotsColumn = valueStart + 1;
            }
        }
    }
};

} // namespace

Result<Hostfile> Hostfile::parse(const QString& text, HostfileFormat format, const QString& fileName)
{
    Hostfile hostfile(format);
    Diagnostics diagnostics;
    QList<int> badLines;
    QStringList rawLines = text.split(QLatin1Char('\n'));
    if (!rawLines.isEmpty() && rawLines.last().isEmpty())
        rawLines.removeLast();
    for (int index = 0; index < rawLines.size(); ++index) {
        QString raw = rawLines.at(index);
        if (raw.endsWith(QLatin1Char('\r')))
            raw.chop(1);
        HostfileLine line;
        line.text = raw;
        LineParser parser{format, fileName, index + 1, diagnostics};
        const QString trimmed = raw.trimmed();
        int control = -1;
        for (int c = 0; c < raw.size(); ++c) {
            const char16_t u = raw.at(c).unicode();
            if ((u < 0x20 && u != u'\t') || u == 0x7f || u == 0xfffd) {
                control = c;
                break;
            }
        }
        if (trimmed.isEmpty()) {
            line.kind = HostfileLine::Kind::Blank;
        } else if (trimmed.startsWith(QLatin1Char('#'))) {
            line.kind = HostfileLine::Kind::Comment;
        } else {
            line.kind = HostfileLine::Kind::Host;
            const int hash = int(raw.indexOf(QLatin1Char('#')));
            const QString content = hash >= 0 ? raw.left(hash) : raw;
            line.comment = hash >= 0 ? raw.mid(hash) : QString();
            if (control >= 0 && (hash < 0 || control < hash)) {
                parser.error(control + 1, raw.at(control).unicode() == 0xfffd
                                              ? tr("invalid UTF-8 in the line")
                                              : tr("control character U+%1 in the line")
                                                    .arg(raw.at(control).unicode(), 4, 16, QLatin1Char('0')));
            } else {
                parser.parseHost(content, line);
            }
            line.parsed = true;
            line.parsedEntry = line.entry;
            line.parsedComment = line.comment;
            if (parser.failed)
                badLines.append(index);
        }
        hostfile.m_lines.append(line);
    }
    diagnostics += hostfile.validateLines(format, fileName, badLines);
    if (hasErrors(diagnostics))
        return Result<Hostfile>::failure(diagnostics);
    return Result<Hostfile>(std::move(hostfile), diagnostics);
}

Result<Hostfile> Hostfile::load(const QString& path, HostfileFormat format)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<Hostfile>::failure(Diagnostic::error(path, tr("cannot read: %1").arg(file.errorString())));
    const QByteArray bytes = file.readAll();
    if (bytes.size() > 16 * 1024 * 1024)
        return Result<Hostfile>::failure(Diagnostic::error(path, tr("file is larger than 16 MiB; not a hostfile")));
    return parse(QString::fromUtf8(bytes), format, path);
}

Diagnostics Hostfile::validate(const QString& fileName) const
{
    return validateLines(m_format, fileName, {});
}

Diagnostics Hostfile::validateLines(HostfileFormat format, const QString& fileName, const QList<int>& skipLines) const
{
    Diagnostics out;
    auto error = [&](int line, int column, const QString& message) {
        out.append(Diagnostic::error(fileName, line, column, message));
    };
    struct Seen {
        int lineNumber;
        QString user;
    };
    QHash<QString, Seen> seen;
    // Repeated lines add up, and so does the job: the sums are bounded (in 64 bits) long before an
    // int would overflow.
    QHash<QString, qint64> slotSums, maxSlotSums;
    QSet<QString> sumReported;
    qint64 totalSlots = 0;
    bool totalReported = false;
    int hosts = 0;
    for (int index = 0; index < m_lines.size(); ++index) {
        const HostfileLine& line = m_lines.at(index);
        if (!line.isHost())
            continue;
        ++hosts;
        if (skipLines.contains(index))
            continue;
        const int lineNumber = index + 1;
        const HostEntry& e = line.entry;
        const int userColumn = qMax(line.hostColumn, 1);
        const int hostColumn = e.user.isEmpty() ? userColumn : userColumn + int(e.user.size()) + 1;
        int nameColumn = 0;
        const QString nameError = entryNameError(e, format, userColumn, nameColumn);
        if (!nameError.isEmpty()) {
            error(lineNumber, nameColumn, nameError);
            continue;
        }
        const int slotsColumn = line.slotsColumn > 0 ? line.slotsColumn : hostColumn;
        const int maxColumn = line.maxSlotsColumn > 0 ? line.maxSlotsColumn : hostColumn;
        if (e.slots && (*e.slots < 1 || *e.slots > MaxSlots)) {
            error(lineNumber, slotsColumn, countError(QStringLiteral("slots"), QString::number(*e.slots)));
            continue;
        }
        if (e.maxSlots && (*e.maxSlots < 1 || *e.maxSlots > MaxSlots)) {
            error(lineNumber, maxColumn, countError(QStringLiteral("max_slots"), QString::number(*e.maxSlots)));
            continue;
        }
        if (format == HostfileFormat::DeepSpeed && !e.slots) {
            error(lineNumber, hostColumn + int(e.host.size()),
                  tr("missing 'slots=N' after '%1' (DeepSpeed needs a count on every line)").arg(e.host));
            continue;
        }
        if (format != HostfileFormat::OpenMpi && e.maxSlots) {
            error(lineNumber, maxColumn, tr("%1 hostfiles have no max_slots").arg(displayFormat(format)));
            continue;
        }
        if (e.slots && e.maxSlots && *e.maxSlots < *e.slots) {
            error(lineNumber, maxColumn, tr("max_slots (%1) is less than slots (%2)").arg(*e.maxSlots).arg(*e.slots));
            continue;
        }
        const QString key = e.host.toLower();
        qint64& hostSlots = slotSums[key];
        hostSlots += e.slots.value_or(1);
        qint64& hostMaxSlots = maxSlotSums[key];
        hostMaxSlots += e.maxSlots.value_or(0);
        totalSlots += e.slots.value_or(1);
        if ((hostSlots > MaxSlots || hostMaxSlots > MaxSlots) && !sumReported.contains(key)) {
            sumReported.insert(key);
            const bool max = hostSlots <= MaxSlots;
            error(lineNumber, max ? maxColumn : slotsColumn,
                  tr("host '%1' adds up to %2 %3 over its lines; at most %4 per host")
                      .arg(e.host, QString::number(max ? hostMaxSlots : hostSlots),
                           max ? QStringLiteral("max_slots") : QStringLiteral("slots"), QString::number(MaxSlots)));
        }
        if (totalSlots > MaxTotalSlots && !totalReported) {
            totalReported = true;
            error(lineNumber, slotsColumn,
                  tr("the hosts add up to more than %1 slots at this line; at most %1 in one hostfile")
                      .arg(MaxTotalSlots));
        }
        const auto previous = seen.constFind(key);
        if (previous == seen.constEnd()) {
            seen.insert(key, Seen{lineNumber, e.user});
            continue;
        }
        if (format == HostfileFormat::DeepSpeed) {
            error(lineNumber, hostColumn,
                  tr("host '%1' is already listed on line %2; DeepSpeed allows each host once (add the slots up on one "
                     "line)")
                      .arg(e.host, QString::number(previous->lineNumber)));
        } else if (previous->user != e.user) {
            error(lineNumber, userColumn,
                  tr("host '%1' is listed on line %2 as '%3' and here as '%4'; use one user per host")
                      .arg(e.host, QString::number(previous->lineNumber),
                           previous->user.isEmpty() ? e.host : previous->user + QLatin1Char('@') + e.host,
                           e.userAtHost()));
        } else {
            out.append(
                Diagnostic::warning(fileName, lineNumber, hostColumn,
                                    tr("host '%1' is also listed on line %2; %3 adds up the slots of repeated lines")
                                        .arg(e.host, QString::number(previous->lineNumber), displayFormat(format))));
        }
    }
    if (hosts == 0)
        out.append(Diagnostic::error(fileName, 1, 1, tr("no hosts in the hostfile")));
    return out;
}

QString Hostfile::hostLineText(const HostEntry& e, HostfileFormat format)
{
    switch (format) {
    case HostfileFormat::OpenMpi: {
        QString s = e.userAtHost();
        if (e.slots)
            s += QStringLiteral(" slots=%1").arg(*e.slots);
        if (e.maxSlots)
            s += QStringLiteral(" max_slots=%1").arg(*e.maxSlots);
        return s;
    }
    case HostfileFormat::DeepSpeed:
        return QStringLiteral("%1 slots=%2").arg(e.host, QString::number(e.slots.value_or(1)));
    case HostfileFormat::Mpich:
        return e.slots ? QStringLiteral("%1:%2").arg(e.host, QString::number(*e.slots)) : e.host;
    }
    return {};
}

QString Hostfile::toText() const
{
    QString out;
    for (const HostfileLine& line : m_lines) {
        if (!line.isHost()) {
            out += line.text;
        } else if (!line.isModified() && !line.text.isEmpty()) {
            out += line.text;
        } else {
            out += hostLineText(line.entry, m_format);
            if (!line.comment.isEmpty())
                out += QLatin1Char(' ') + line.comment;
        }
        out += QLatin1Char('\n');
    }
    return out;
}

Result<QString> Hostfile::convert(HostfileFormat target, const QString& fileName) const
{
    Diagnostics diagnostics = validate(fileName);
    if (hasErrors(diagnostics))
        return Result<QString>::failure(diagnostics);
    if (target == m_format)
        return Result<QString>(toText(), diagnostics);

    // Which line a repeated host merges into (DeepSpeed only) and the merged counts.
    QHash<QString, int> firstLine;
    QHash<int, int> mergedSlots;
    QList<int> dropped;
    if (target == HostfileFormat::DeepSpeed) {
        for (int index = 0; index < m_lines.size(); ++index) {
            const HostfileLine& line = m_lines.at(index);
            if (!line.isHost())
                continue;
            const QString key = line.entry.host.toLower();
            const int slots = line.entry.slots.value_or(1);
            if (!line.entry.slots) {
                diagnostics.append(Diagnostic::warning(
                    fileName, index + 1, qMax(line.hostColumn, 1),
                    tr("no slots for '%1'; wrote slots=1 (Open MPI would use the core count)").arg(line.entry.host)));
            }
            const auto first = firstLine.constFind(key);
            if (first == firstLine.constEnd()) {
                firstLine.insert(key, index);
                mergedSlots.insert(index, slots);
            } else {
                mergedSlots[*first] += slots;
                dropped.append(index);
                diagnostics.append(
                    Diagnostic::warning(fileName, index + 1, qMax(line.hostColumn, 1),
                                        tr("repeated host '%1' merged into line %2 (DeepSpeed allows each host once)")
                                            .arg(line.entry.host, QString::number(*first + 1))));
            }
        }
    }

    Diagnostics errors;
    QString out;
    for (int index = 0; index < m_lines.size(); ++index) {
        const HostfileLine& line = m_lines.at(index);
        if (!line.isHost()) {
            out += line.text + QLatin1Char('\n');
            continue;
        }
        if (dropped.contains(index))
            continue;
        HostEntry e = line.entry;
        const int column = qMax(line.hostColumn, 1);
        if (target != HostfileFormat::OpenMpi && !e.user.isEmpty()) {
            diagnostics.append(
                Diagnostic::warning(fileName, index + 1, column,
                                    tr("user '%1' dropped: %2 hostfiles have no user; set it in ~/.ssh/config")
                                        .arg(e.user, displayFormat(target))));
            e.user.clear();
        }
        if (target != HostfileFormat::OpenMpi && e.maxSlots) {
            diagnostics.append(Diagnostic::warning(fileName, index + 1, column,
                                                   tr("max_slots=%1 dropped: %2 hostfiles have no max_slots")
                                                       .arg(*e.maxSlots)
                                                       .arg(displayFormat(target))));
            e.maxSlots.reset();
        }
        if (target == HostfileFormat::Mpich && e.host.contains(QLatin1Char(':'))) {
            errors.append(Diagnostic::error(
                fileName, index + 1, column,
                tr("IPv6 address '%1' cannot be written in an MPICH hostfile; use a host name").arg(e.host)));
            continue;
        }
        if (target == HostfileFormat::DeepSpeed)
            e.slots = mergedSlots.value(index, e.slots.value_or(1));
        out += hostLineText(e, target);
        if (!line.comment.isEmpty())
            out += QLatin1Char(' ') + line.comment;
        out += QLatin1Char('\n');
    }
    if (!errors.isEmpty())
        return Result<QString>::failure(errors + diagnostics);
    return Result<QString>(out, diagnostics);
}

Status Hostfile::save(const QString& path) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    file.write(toText().toUtf8());
    if (!file.commit())
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    return Status(Done{});
}

int Hostfile::hostCount() const
{
    int n = 0;
    for (const HostfileLine& line : m_lines)
        n += line.isHost() ? 1 : 0;
    return n;
}

QList<HostEntry> Hostfile::hosts() const
{
    QList<HostEntry> out;
    for (const HostfileLine& line : m_lines) {
        if (line.isHost())
            out.append(line.entry);
    }
    return out;
}

int Hostfile::lineIndexOfHost(int row) const
{
    for (int index = 0; index < m_lines.size(); ++index) {
        if (m_lines.at(index).isHost() && row-- == 0)
            return index;
    }
    return -1;
}

HostEntry Hostfile::host(int row) const
{
    const int index = lineIndexOfHost(row);
    return index >= 0 ? m_lines.at(index).entry : HostEntry{};
}

QString Hostfile::hostComment(int row) const
{
    const int index = lineIndexOfHost(row);
    return index >= 0 ? m_lines.at(index).comment : QString();
}

void Hostfile::setHost(int row, const HostEntry& entry)
{
    const int index = lineIndexOfHost(row);
    if (index >= 0)
        m_lines[index].entry = entry;
}

QString Hostfile::normalizedComment(const QString& comment)
{
    const QString c = comment.trimmed();
    if (c.isEmpty() || c.startsWith(QLatin1Char('#')))
        return c;
    return QStringLiteral("# ") + c;
}

void Hostfile::setHostComment(int row, const QString& comment)
{
    const int index = lineIndexOfHost(row);
    if (index >= 0)
        m_lines[index].comment = normalizedComment(QString(comment).replace(QLatin1Char('\n'), QLatin1Char(' ')));
}

void Hostfile::insertHost(int row, const HostEntry& entry, const QString& comment)
{
    HostfileLine line;
    line.kind = HostfileLine::Kind::Host;
    line.entry = entry;
    line.comment = normalizedComment(QString(comment).replace(QLatin1Char('\n'), QLatin1Char(' ')));
    const int index = row >= hostCount() ? int(m_lines.size()) : lineIndexOfHost(row);
    m_lines.insert(index < 0 ? m_lines.size() : index, line);
}

void Hostfile::appendHost(const HostEntry& entry, const QString& comment)
{
    insertHost(hostCount(), entry, comment);
}

void Hostfile::removeHost(int row)
{
    const int index = lineIndexOfHost(row);
    if (index >= 0)
        m_lines.removeAt(index);
}

void Hostfile::appendComment(const QString& text)
{
    HostfileLine line;
    line.kind = HostfileLine::Kind::Comment;
    QString c = QString(text).replace(QLatin1Char('\n'), QLatin1Char(' '));
    line.text = c.trimmed().startsWith(QLatin1Char('#')) ? c : QStringLiteral("# ") + c;
    m_lines.append(line);
}

void Hostfile::appendBlank()
{
    m_lines.append(HostfileLine{});
}

QList<HostEntry> Hostfile::mergedHosts() const
{
    QList<HostEntry> out;
    QHash<QString, int> where;
    for (const HostEntry& e : hosts()) {
        const QString key = e.host.toLower();
        const auto it = where.constFind(key);
        if (it == where.constEnd()) {
            where.insert(key, int(out.size()));
            out.append(e);
            continue;
        }
        HostEntry& m = out[*it];
        // Saturating: a model edited in code need not have been validated.
        const auto add = [](int a, int b) { return int(qMin<qint64>(qint64(a) + b, std::numeric_limits<int>::max())); };
        if (m.slots || e.slots)
            m.slots = add(m.slots.value_or(1), e.slots.value_or(1));
        if (m.maxSlots && e.maxSlots)
            m.maxSlots = add(*m.maxSlots, *e.maxSlots);
        else
            m.maxSlots.reset();
    }
    return out;
}

int Hostfile::totalSlots(int slotsWhenUnset) const
{
    qint64 total = 0;
    for (const HostEntry& e : hosts())
        total = qMin<qint64>(total + e.slots.value_or(slotsWhenUnset), std::numeric_limits<int>::max());
    return int(total);
}

} // namespace traindeck::cluster
