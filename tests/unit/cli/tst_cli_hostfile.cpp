// Runs the built traindeck-cli: `hostfile check` and `hostfile convert` on good, bad and hostile input
// (file names with spaces, quotes, ';', '$()', newlines or a leading '-'; hostile host names inside).
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class TestCliHostfile : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void run_data();
    void run();
    void errorsAreFileLineColumn();
    void convertToFile();
    void convertRoundTrip_data();
    void convertRoundTrip();

  private:
    struct Outcome {
        int exitCode = -1;
        QString out, err;
    };
    Outcome cli(const QStringList& args, const QByteArray& input = QByteArray());
    QString write(const QString& name, const QByteArray& content);

    QTemporaryDir m_dir;
};

static const QByteArray kGood = "# lab\nalice@n1 slots=4 # head\nn2 slots=2\n";

void TestCliHostfile::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QFile::exists(QString::fromUtf8(TRAINDECK_CLI)));
    write(QStringLiteral("good.hosts"), kGood);
    write(QStringLiteral("with space.hosts"), kGood);
    write(QStringLiteral("quote'\"d.hosts"), kGood);
    write(QStringLiteral("semi;colon.hosts"), kGood);
    write(QStringLiteral("$(touch pwned).hosts"), kGood);
    write(QStringLiteral("new\nline.hosts"), kGood);
    write(QStringLiteral("-dash.hosts"), kGood);
    write(QStringLiteral("bad-number.hosts"), "n1 slots=four\n");
    write(QStringLiteral("inject.hosts"), "n1\n$(touch pwned) slots=1\nn2;reboot\n-oProxyCommand=sh slots=1\n");
    write(QStringLiteral("ds-dup.hosts"), "w1 slots=2\nw1 slots=2\n");
    write(QStringLiteral("repeat.hosts"), "n1 slots=2\nn1 slots=2\n");
    write(QStringLiteral("empty.hosts"), "");
    write(QStringLiteral("binary.hosts"), QByteArray("n1\0\xff\xfe", 5));
}

QString TestCliHostfile::write(const QString& name, const QByteArray& content)
{
    QFile f(m_dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(f.fileName()));
    f.write(content);
    return f.fileName();
}

TestCliHostfile::Outcome TestCliHostfile::cli(const QStringList& args, const QByteArray& input)
{
    QProcess p;
    p.setWorkingDirectory(m_dir.path());
    p.start(QString::fromUtf8(TRAINDECK_CLI), QStringList{QStringLiteral("hostfile")} + args);
    if (!p.waitForStarted(10000))
        return {};
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return Outcome{p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                   QString::fromUtf8(p.readAllStandardError())};
}

void TestCliHostfile::run_data()
{
    QTest::addColumn<QStringList>("args"); // relative file names: the working directory is the temp dir
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("outContains");
    QTest::addColumn<QString>("errContains");
    auto args = [](std::initializer_list<const char*> list) {
        QStringList out;
        for (const char* a : list)
            out.append(QString::fromUtf8(a));
        return out;
    };

    QTest::addRow("check good") << args({"check", "good.hosts"}) << QByteArray() << 0
                                << "good.hosts: valid openmpi hostfile, 2 host(s), 6 slot(s)"
                                << "";
    QTest::addRow("check space in name") << args({"check", "with space.hosts"}) << QByteArray() << 0
                                         << "with space.hosts: valid"
                                         << "";
    QTest::addRow("check quotes in name")
        << args({"check", "quote'\"d.hosts"}) << QByteArray() << 0 << "quote'\"d.hosts: valid"
        << "";
    QTest::addRow("check semicolon in name")
        << args({"check", "semi;colon.hosts"}) << QByteArray() << 0 << "semi;colon.hosts: valid"
        << "";
    QTest::addRow("check subst in name") << args({"check", "$(touch pwned).hosts"}) << QByteArray() << 0
                                         << "$(touch pwned).hosts: valid"
                                         << "";
    QTest::addRow("check newline in name")
        << args({"check", "new\nline.hosts"}) << QByteArray() << 0 << "line.hosts: valid"
        << "";
    QTest::addRow("check dash name after --")
        << args({"check", "--", "-dash.hosts"}) << QByteArray() << 0 << "-dash.hosts: valid"
        << "";
    QTest::addRow("check dash name as option") << args({"check", "-dash.hosts"}) << QByteArray() << 2 << ""
                                               << "Unknown option";
    QTest::addRow("check stdin") << args({"check", "-"}) << kGood << 0 << "<stdin>: valid openmpi hostfile"
                                 << "";
    QTest::addRow("check stdin bad") << args({"check", "-"}) << QByteArray("n1 slots=x\n") << 2 << ""
                                     << "<stdin>:1:10: slots: expected an integer 1..100000, got 'x'";
    QTest::addRow("check bad number") << args({"check", "bad-number.hosts"}) << QByteArray() << 2 << ""
                                      << "bad-number.hosts:1:10: slots: expected an integer 1..100000, got 'four'";
    QTest::addRow("check injection") << args({"check", "inject.hosts"}) << QByteArray() << 2 << ""
                                     << "inject.hosts:2:1: invalid character '$' in host name '$(touch'";
    QTest::addRow("check injection semicolon") << args({"check", "inject.hosts"}) << QByteArray() << 2 << ""
                                               << "inject.hosts:3:3: invalid character ';' in host name 'n2;reboot'";
    QTest::addRow("check empty") << args({"check", "empty.hosts"}) << QByteArray() << 2 << ""
                                 << "empty.hosts:1:1: no hosts in the hostfile";
    QTest::addRow("check binary") << args({"check", "binary.hosts"}) << QByteArray() << 2 << ""
                                  << "binary.hosts:1:3: control character U+0000";
    QTest::addRow("check missing") << args({"check", "nope.hosts"}) << QByteArray() << 2 << ""
                                   << "nope.hosts: cannot read";
    QTest::addRow("check repeat warns") << args({"check", "repeat.hosts"}) << QByteArray() << 0
                                        << "1 host(s), 4 slot(s)"
                                        << "repeat.hosts:2:1: warning: host 'n1' is also listed on line 1";
    QTest::addRow("check ds duplicate") << args({"check", "--format", "deepspeed", "ds-dup.hosts"}) << QByteArray() << 2
                                        << ""
                                        << "ds-dup.hosts:2:1: host 'w1' is already listed on line 1";
    QTest::addRow("check mpich format") << args({"check", "--format=mpich", "-"}) << QByteArray("n1:2\nn2\n") << 0
                                        << "valid mpich hostfile, 2 host(s), 3 slot(s)"
                                        << "";
    QTest::addRow("check bad format") << args({"check", "--format", "slurm", "good.hosts"}) << QByteArray() << 2 << ""
                                      << "unknown format 'slurm'";
    QTest::addRow("check two files") << args({"check", "good.hosts", "good.hosts"}) << QByteArray() << 2 << ""
                                     << "expected exactly one FILE";
    QTest::addRow("check no file") << args({"check"}) << QByteArray() << 2 << ""
                                   << "expected exactly one FILE";
    QTest::addRow("no subcommand") << args({}) << QByteArray() << 2 << ""
                                   << "usage: traindeck-cli hostfile";
    QTest::addRow("unknown subcommand") << args({"frobnicate"}) << QByteArray() << 2 << ""
                                        << "unknown subcommand 'frobnicate'";
    QTest::addRow("help") << args({"--help"}) << QByteArray() << 0 << "usage: traindeck-cli hostfile"
                          << "";
    QTest::addRow("convert to deepspeed") << args({"convert", "--from", "openmpi", "--to", "deepspeed", "good.hosts"})
                                          << QByteArray() << 0 << "# lab\nn1 slots=4 # head\nn2 slots=2\n"
                                          << "good.hosts:2:1: warning: user 'alice' dropped";
    QTest::addRow("convert to mpich stdin")
        << args({"convert", "--from=openmpi", "--to=mpich", "-"}) << kGood << 0 << "n1:4 # head\nn2:2\n"
        << "";
    QTest::addRow("convert repeat merges")
        << args({"convert", "--from", "openmpi", "--to", "deepspeed", "repeat.hosts"}) << QByteArray() << 0
        << "n1 slots=4\n"
        << "merged into line 1";
    QTest::addRow("convert bad input") << args({"convert", "--from", "openmpi", "--to", "mpich", "inject.hosts"})
                                       << QByteArray() << 2 << ""
                                       << "inject.hosts:2:1:";
    QTest::addRow("convert ds duplicate")
        << args({"convert", "--from", "deepspeed", "--to", "openmpi", "ds-dup.hosts"}) << QByteArray() << 2 << ""
        << "ds-dup.hosts:2:1:";
    QTest::addRow("convert missing to") << args({"convert", "--from", "openmpi", "good.hosts"}) << QByteArray() << 2
                                        << ""
                                        << "--to is required";
    QTest::addRow("convert bad from") << args({"convert", "--from", "pbs", "--to", "mpich", "good.hosts"})
                                      << QByteArray() << 2 << ""
                                      << "unknown format 'pbs'";
    QTest::addRow("convert unknown option")
        << args({"convert", "--from", "openmpi", "--to", "mpich", "--frob", "good.hosts"}) << QByteArray() << 2 << ""
        << "Unknown option 'frob'";
    QTest::addRow("convert ipv6 to mpich")
        << args({"convert", "--from", "openmpi", "--to", "mpich", "-"}) << QByteArray("fe80::1 slots=2\n") << 2 << ""
        << "<stdin>:1:1: IPv6 address 'fe80::1' cannot be written";
    QTest::addRow("convert unwritable out")
        << args({"convert", "--from", "openmpi", "--to", "mpich", "--out", "/nonexistent/dir/x", "good.hosts"})
        << QByteArray() << 1 << ""
        << "/nonexistent/dir/x: cannot write";
}

void TestCliHostfile::run()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, input);
    QFETCH(int, exitCode);
    QFETCH(QString, outContains);
    QFETCH(QString, errContains);
    const Outcome o = cli(args, input);
    QVERIFY2(o.exitCode == exitCode,
             qPrintable(QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(o.exitCode).arg(o.out, o.err)));
    QVERIFY2(o.out.contains(outContains), qPrintable(o.out));
    QVERIFY2(o.err.contains(errContains), qPrintable(o.err));
    if (exitCode == 2 && args.value(0) == QLatin1String("convert"))
        QVERIFY2(o.out.isEmpty(), qPrintable(o.out)); // nothing half-converted on stdout
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("pwned"))));
}

void TestCliHostfile::errorsAreFileLineColumn()
{
    const Outcome o = cli({QStringLiteral("check"), QStringLiteral("inject.hosts")});
    QCOMPARE(o.exitCode, 2);
    QVERIFY(o.out.isEmpty());
    const QStringList lines = o.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    static const QRegularExpression form(QStringLiteral("^inject\\.hosts:\\d+:\\d+: \\S.*$"));
    for (const QString& line : lines)
        QVERIFY2(form.match(line).hasMatch(), qPrintable(line));
    QVERIFY(lines.at(2).startsWith(
        QStringLiteral("inject.hosts:4:1: host name '-oProxyCommand' starts with '-'; it would be read as an option")));

    const QString fixture =
        QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/cluster/bad.openmpi");
    const Outcome bad = cli({QStringLiteral("check"), fixture});
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(bad.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 4);
    QVERIFY(bad.err.startsWith(fixture + QStringLiteral(":2:14: slots: expected an integer")));
}

void TestCliHostfile::convertToFile()
{
    const QString out = m_dir.filePath(QStringLiteral("out dir; $(x)"));
    QVERIFY(QDir().mkpath(out));
    const QString target = out + QStringLiteral("/converted 'file'.txt");
    const Outcome o =
        cli({QStringLiteral("convert"), QStringLiteral("--from"), QStringLiteral("openmpi"), QStringLiteral("--to"),
             QStringLiteral("mpich"), QStringLiteral("--out"), target, QStringLiteral("good.hosts")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.out.isEmpty());
    QFile f(target);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("# lab\nn1:4 # head\nn2:2\n"));
}

void TestCliHostfile::convertRoundTrip_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("format");
    QTest::addRow("openmpi") << "lab.openmpi"
                             << "openmpi";
    QTest::addRow("deepspeed") << "lab.deepspeed"
                               << "deepspeed";
    QTest::addRow("mpich") << "lab.mpich"
                           << "mpich";
}

void TestCliHostfile::convertRoundTrip()
{
    QFETCH(QString, fixture);
    QFETCH(QString, format);
    const QString path = QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/cluster/") + fixture;
    for (const char* other : {"openmpi", "deepspeed", "mpich"}) {
        const Outcome there = cli({QStringLiteral("convert"), QStringLiteral("--from"), format, QStringLiteral("--to"),
                                   QString::fromLatin1(other), path});
        QVERIFY2(there.exitCode == 0, qPrintable(there.err));
        const Outcome check =
            cli({QStringLiteral("check"), QStringLiteral("--format"), QString::fromLatin1(other), QStringLiteral("-")},
                there.out.toUtf8());
        QVERIFY2(check.exitCode == 0, qPrintable(check.err + there.out));
    }
}

QTEST_GUILESS_MAIN(TestCliHostfile)
#include "tst_cli_hostfile.moc"
