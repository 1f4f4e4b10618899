// Hostfiles in the syntaxes of Open MPI, DeepSpeed and MPICH (Hydra), parsed into one model that
// keeps comments, blank lines and order, validated with file:line:column diagnostics, written back
// (unchanged host lines verbatim) and converted between the formats. docs/reference/cluster-profiles.md has the rules.
#pragma once

#include "common/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace traindeck::cluster {

enum class HostfileFormat {
    OpenMpi,   // "[user@]host [slots=N] [max_slots=M]  # comment"; repeated hosts add their slots
    DeepSpeed, // "host slots=N"; slots required, each host once
    Mpich,     // "host[:N]" (Hydra machine file); repeated hosts add their counts
};

// "openmpi", "deepspeed", "mpich" (case-insensitive; "ompi", "ds", "hydra" also accepted).
std::optional<HostfileFormat> hostfileFormatFromName(const QString& name);
QString hostfileFormatName(HostfileFormat format);

struct HostEntry {
    QString user;                // empty: the SSH default
    QString host;                // host name, IPv4 or IPv6 address
    std::optional<int> slots;    // unset: the launcher's default (Open MPI: core count; MPICH: 1)
    std::optional<int> maxSlots; // Open MPI only

    QString userAtHost() const { return user.isEmpty() ? host : user + QLatin1Char('@') + host; }
    friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

struct HostfileLine {
    enum class Kind { Blank, Comment, Host };

    Kind kind = Kind::Blank;
    QString text;    // Blank/Comment: the whole line. Host: the line as read (empty when built in code)
    HostEntry entry; // Host only
    QString comment; // Host only: trailing comment including '#', empty if none

    // Where the parts were read (1-based columns; 0 when the line was built in code).
    int hostColumn = 0;
    int slotsColumn = 0;
    int maxSlotsColumn = 0;
    // The entry and comment as read: an unchanged host line is written back verbatim.
    HostEntry parsedEntry;
    QString parsedComment;
    bool parsed = false;

    bool isHost() const { return kind == Kind::Host; }
    bool isModified() const { return !parsed || entry != parsedEntry || comment != parsedComment; }
};

class Hostfile {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::Hostfile)

  public:
    static constexpr int MaxSlots = 100000;       // per line, and per host over repeated lines
    static constexpr int MaxTotalSlots = 1000000; // over the whole file

    explicit Hostfile(HostfileFormat format = HostfileFormat::OpenMpi) : m_format(format) {}

    // Parses text in the given syntax. Fails with every syntax and validation error (file:line:column);
    // warnings (e.g. a repeated Open MPI host) come with the value. fileName is used in diagnostics only.
    static Result<Hostfile> parse(const QString& text, HostfileFormat format,
                                  const QString& fileName = QStringLiteral("<input>"));
    // Reads a file (UTF-8) and parses it; diagnostics name the path as given.
    static Result<Hostfile> load(const QString& path, HostfileFormat format);

    HostfileFormat format() const { return m_format; }
    void setFormat(HostfileFormat format) { m_format = format; }

    // Checks the model as a file of format() (after edits in code or in the GUI). Line numbers are
    // positions in lines() + 1.
    Diagnostics validate(const QString& fileName = QStringLiteral("<input>")) const;

    // Text in format(), unchanged host lines verbatim, comments and order kept. No checks.
    QString toText() const;
    // Text in another format. Fails when the model is invalid or the target cannot express it (an
    // IPv6 address in MPICH); warns about what is lost or merged (users, max_slots, repeated hosts in
    // DeepSpeed, a made-up slots=1 where DeepSpeed needs a count).
    Result<QString> convert(HostfileFormat target, const QString& fileName = QStringLiteral("<input>")) const;
    // Writes toText() atomically.
    Status save(const QString& path) const;

    const QList<HostfileLine>& lines() const { return m_lines; }

    // Host rows, in file order (blank and comment lines skipped).
    int hostCount() const;
    QList<HostEntry> hosts() const;
    HostEntry host(int row) const;
    QString hostComment(int row) const;
    int lineIndexOfHost(int row) const; // index into lines()
    void setHost(int row, const HostEntry& entry);
    void setHostComment(int row, const QString& comment); // "" removes; '#' is added when missing
    void insertHost(int row, const HostEntry& entry, const QString& comment = {}); // row == hostCount() appends
    void appendHost(const HostEntry& entry, const QString& comment = {});
    void removeHost(int row);
    void appendComment(const QString& text); // '#' is added when missing
    void appendBlank();

    // Hosts with repeated lines merged (case-insensitive names), in order of first appearance. Slots
    // add up, an unset count counting 1; the result is unset only when all were unset. max_slots is
    // kept (added up) only when every line of the host has one.
    QList<HostEntry> mergedHosts() const;
    // Sum of slots, unset counting as slotsWhenUnset (capped at INT_MAX for a model that was not validated).
    int totalSlots(int slotsWhenUnset = 1) const;

  private:
    static QString normalizedComment(const QString& comment);
    Diagnostics validateLines(HostfileFormat format, const QString& fileName, const QList<int>& skipLines) const;
    static QString hostLineText(const HostEntry& entry, HostfileFormat format);

    HostfileFormat m_format;
    QList<HostfileLine> m_lines;
};

} // namespace traindeck::cluster
