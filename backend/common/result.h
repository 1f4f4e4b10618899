// Results without exceptions, for every backend area: a value, or a list of diagnostics that say
// where (a file with line/column or JSON key, a run directory, a host) and what is wrong, with a
// machine-readable code where code branches on what went wrong. Warnings may accompany a value.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>
#include <utility>

namespace traindeck {

struct Diagnostic {
    Q_DECLARE_TR_FUNCTIONS(traindeck::Diagnostic)

  public:
    enum class Severity { Error, Warning };

    Severity severity = Severity::Error;
    QString file;    // what it is about: a path, a bare file name, "<stdin>", a run directory, a host
    int line = 0;    // 1-based; 0 when the diagnostic is not about a text position
    int column = 0;  // 1-based; 0 when unknown
    QString key;     // JSON key path such as "nodes[1].port"; empty for text positions
    QString message; // translated, without location (unless it names what it is about itself, see codedError)
    // What went wrong, for code that branches on it: "<area>.<what>" such as "ssh.auth" or
    // "ssh.host_key_changed" (each area lists its codes); empty when nobody needs to tell errors apart.
    QString code;
    QString detail; // translated further lines for a person (an explanation, what to do); may be empty

    bool isError() const { return severity == Severity::Error; }
    bool isWarning() const { return severity == Severity::Warning; }

    // "file:line:column: message", "file: key: message"; warnings add "warning: " before the message.
    // Without file, line and key (a message that names its subject itself) just the message. The
    // detail follows on the next lines.
    QString toString() const;

    // About something as a whole (a run directory, a host, a file): "where: message".
    static Diagnostic error(const QString& where, const QString& message);
    static Diagnostic warning(const QString& where, const QString& message);
    static Diagnostic error(const QString& file, int line, int column, const QString& message);
    static Diagnostic warning(const QString& file, int line, int column, const QString& message);
    static Diagnostic keyError(const QString& file, const QString& key, const QString& message);
    static Diagnostic keyWarning(const QString& file, const QString& key, const QString& message);
    // An error with a code whose message names its subject itself ("user@host: authentication
    // failed"), as the ssh area's messages do.
    static Diagnostic codedError(const QString& code, const QString& message, const QString& detail = QString());

    friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

using Diagnostics = QList<Diagnostic>;

bool hasErrors(const Diagnostics& diagnostics);
// One diagnostic per line (its detail on the lines after it), in order.
QString formatDiagnostics(const Diagnostics& diagnostics);

// A value of T or failure. Diagnostics may hold warnings when it holds a value; it always holds at
// least one error when it does not.
template <typename T> class Result {
  public:
    Result(T value, Diagnostics warnings = {}) : m_value(std::move(value)), m_diagnostics(std::move(warnings)) {}

    static Result failure(Diagnostics diagnostics)
    {
        Result r;
        r.m_diagnostics = std::move(diagnostics);
        return r;
    }
    static Result failure(Diagnostic diagnostic) { return failure(Diagnostics{std::move(diagnostic)}); }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return *m_value; }
    T& value() & { return *m_value; }
    T&& value() && { return std::move(*m_value); }
    const T* operator->() const { return &*m_value; }
    T* operator->() { return &*m_value; }

    const Diagnostics& diagnostics() const { return m_diagnostics; }
    Diagnostics errors() const { return filter(Diagnostic::Severity::Error); }
    Diagnostics warnings() const { return filter(Diagnostic::Severity::Warning); }
    // The first error (an empty Diagnostic when it holds a value), and its code: what callers
    // branch on ("ssh.auth", ...).
    Diagnostic firstError() const
    {
        for (const Diagnostic& d : m_diagnostics) {
            if (d.isError())
                return d;
        }
        return Diagnostic{};
    }
    QString errorCode() const { return firstError().code; }
    // All diagnostics, one per line.
    QString errorString() const { return formatDiagnostics(m_diagnostics); }

  private:
    Result() = default;
    Diagnostics filter(Diagnostic::Severity s) const
    {
        Diagnostics out;
        for (const Diagnostic& d : m_diagnostics) {
            if (d.severity == s)
                out.append(d);
        }
        return out;
    }

    std::optional<T> m_value;
    Diagnostics m_diagnostics;
};

// For operations that produce nothing but success or failure.
struct Done {};
using Status = Result<Done>;

} // namespace traindeck

Q_DECLARE_METATYPE(traindeck::Diagnostic)
