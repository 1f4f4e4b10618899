// Hostfile parsing, validation (file:line:column), write-back and conversion.
#include "cluster/hostfile.h"
#include "test_paths.h"

#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::cluster;
using traindeck::Diagnostics;
using traindeck::Result;

Q_DECLARE_METATYPE(traindeck::cluster::HostfileFormat)

class TestHostfile : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void validFiles_data();
    void validFiles();
    void invalidFiles_data();
    void invalidFiles();
    void roundTripVerbatim_data();
    void roundTripVerbatim();
    void convert_data();
    void convert();
    void repeatedHostsWarn();
    void editsKeepComments();
    void editedModelValidates();
    void mergedHostsAndTotals();
    void sumsDoNotOverflow();
    void ipv6NotInMpich();
    void formatNames();
    void loadFixtureFiles();
    void loadMissingFile();
};

static const HostfileFormat OMPI = HostfileFormat::OpenMpi;
static const HostfileFormat DS = HostfileFormat::DeepSpeed;
static const HostfileFormat MPICH = HostfileFormat::Mpich;

void TestHostfile::validFiles_data()
{
    QTest::addColumn<HostfileFormat>("format");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expectedHosts"); // "user@host:slots:max" joined by ','; '-' = unset
    QTest::addColumn<int>("warnings");

    QTest::addRow("ompi single host") << OMPI << "node1\n"
                                      << "node1:-:-" << 0;
    QTest::addRow("ompi slots") << OMPI << "node1 slots=4\n"
                                << "node1:4:-" << 0;
    QTest::addRow("ompi slots and max") << OMPI << "node1 slots=4 max_slots=8\n"
                                        << "node1:4:8" << 0;
    QTest::addRow("ompi max-slots spelling") << OMPI << "node1 slots=2 max-slots=2\n"
                                             << "node1:2:2" << 0;
    QTest::addRow("ompi count alias") << OMPI << "node1 count=3\n"
                                      << "node1:3:-" << 0;
    QTest::addRow("ompi spaces around =") << OMPI << "node1 slots = 4\n"
                                          << "node1:4:-" << 0;
    QTest::addRow("ompi tabs") << OMPI << "\tnode1\tslots=4\t\n"
                               << "node1:4:-" << 0;
    QTest::addRow("ompi user@host") << OMPI << "alice@node1 slots=2\n"
                                    << "alice@node1:2:-" << 0;
    QTest::addRow("ompi comments and blanks") << OMPI << "# cluster\n\n  # indented\nn1 slots=1\n\n"
                                              << "n1:1:-" << 0;
    QTest::addRow("ompi trailing comment") << OMPI << "n1 slots=2 # fast node\n"
                                           << "n1:2:-" << 0;
    QTest::addRow("ompi comment right after host") << OMPI << "n1#note\n"
                                                   << "n1:-:-" << 0;
    QTest::addRow("ompi ipv4") << OMPI << "10.0.0.1 slots=8\n"
                               << "10.0.0.1:8:-" << 0;
    QTest::addRow("ompi ipv6") << OMPI << "fe80::1 slots=1\n"
                               << "fe80::1:1:-" << 0;
    QTest::addRow("ompi fqdn") << OMPI << "gpu-01.lab.example.org slots=8\n"
                               << "gpu-01.lab.example.org:8:-" << 0;
    QTest::addRow("ompi crlf") << OMPI << "n1 slots=2\r\nn2 slots=2\r\n"
                               << "n1:2:-,n2:2:-" << 0;
    QTest::addRow("ompi no final newline") << OMPI << "n1 slots=2\nn2"
                                           << "n1:2:-,n2:-:-" << 0;
    QTest::addRow("ompi repeated host warns") << OMPI << "n1 slots=2\nn2\nn1 slots=4\n"
                                              << "n1:2:-,n2:-:-,n1:4:-" << 1;
    QTest::addRow("ompi repeated host case-insensitive") << OMPI << "N1\nn1\n"
                                                         << "N1:-:-,n1:-:-" << 1;
    QTest::addRow("ompi max slots huge") << OMPI << "n1 slots=1 max_slots=100000\n"
                                         << "n1:1:100000" << 0;
    QTest::addRow("ompi leading zeros") << OMPI << "n1 slots=08\n"
                                        << "n1:8:-" << 0;
    QTest::addRow("ds basic") << DS << "worker-1 slots=4\nworker-2 slots=4\n"
                              << "worker-1:4:-,worker-2:4:-" << 0;
    QTest::addRow("ds comments") << DS << "# gpus\nw1 slots=8 # a100\n\n"
                                 << "w1:8:-" << 0;
    QTest::addRow("mpich host only") << MPICH << "n1\nn2\n"
                                     << "n1:-:-,n2:-:-" << 0;
    QTest::addRow("mpich counts") << MPICH << "n1:4\nn2:2 # small\n"
                                  << "n1:4:-,n2:2:-" << 0;
    QTest::addRow("mpich repeated warns") << MPICH << "n1:2\nn1:2\n"
                                          << "n1:2:-,n1:2:-" << 1;
}

static QString describe(const QList<HostEntry>& hosts)
{
    QStringList parts;
    for (const HostEntry& e : hosts) {
        parts.append(QStringLiteral("%1:%2:%3")
                         .arg(e.userAtHost(), e.slots ? QString::number(*e.slots) : QStringLiteral("-"),
                              e.maxSlots ? QString::number(*e.maxSlots) : QStringLiteral("-")));
    }
    return parts.join(QLatin1Char(','));
}

void TestHostfile::validFiles()
{
    QFETCH(HostfileFormat, format);
    QFETCH(QString, text);
    QFETCH(QString, expectedHosts);
    QFETCH(int, warnings);
    const Result<Hostfile> r = Hostfile::parse(text, format, QStringLiteral("h.txt"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QCOMPARE(describe(r->hosts()), expectedHosts);
    QCOMPARE(r.warnings().size(), warnings);
    QVERIFY(r->validate(QStringLiteral("h.txt")).size() == warnings);
}

void TestHostfile::invalidFiles_data()
{
    QTest::addColumn<HostfileFormat>("format");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // the first error, exactly; '*' at the end: prefix match

    QTest::addRow("empty file") << OMPI << ""
                                << "h.txt:1:1: no hosts in the hostfile";
    QTest::addRow("only comments") << OMPI << "# nothing\n\n"
                                   << "h.txt:1:1: no hosts in the hostfile";
    QTest::addRow("slots not a number") << OMPI << "n1 slots=four\n"
                                        << "h.txt:1:10: slots: expected an integer 1..100000, got 'four'";
    QTest::addRow("slots zero") << OMPI << "n1 slots=0\n"
                                << "h.txt:1:10: slots: expected an integer 1..100000, got '0'";
    QTest::addRow("slots negative") << OMPI << "n1 slots=-2\n"
                                    << "h.txt:1:10: slots: expected an integer 1..100000, got '-2'";
    QTest::addRow("slots overflow") << OMPI << "n1 slots=99999999999\n"
                                    << "h.txt:1:10: slots: expected an integer 1..100000, got '99999999999'";
    QTest::addRow("slots float") << OMPI << "n1 slots=1.5\n"
                                 << "h.txt:1:10: slots: expected an integer 1..100000, got '1.5'";
    QTest::addRow("slots empty") << OMPI << "n1 slots=\n"
                                 << "h.txt:1:10: missing value after 'slots='";
    QTest::addRow("max below slots") << OMPI << "n1 slots=4 max_slots=2\n"
                                     << "h.txt:1:22: max_slots (2) is less than slots (4)";
    QTest::addRow("slots twice") << OMPI << "n1 slots=1 slots=2\n"
                                 << "h.txt:1:12: 'slots' given twice on one line";
    QTest::addRow("unknown attribute") << OMPI << "n1 gpus=4\n"
                                       << "h.txt:1:4: unknown attribute 'gpus' (expected slots= or max_slots=)";
    QTest::addRow("missing equals") << OMPI << "n1 slots 4\n"
                                    << "h.txt:1:4: expected '=' after 'slots'";
    QTest::addRow("no host before attribute") << OMPI << "slots=4\n"
                                              << "h.txt:1:1: expected a host name before 'slots=4'";
    QTest::addRow("host starts with dash")
        << OMPI << "-oProxyCommand=x\n"
        << "h.txt:1:1: host name '-oProxyCommand' starts with '-'; it would be read as an option";
    QTest::addRow("hostile host before syntax error") << OMPI << "$(touch x) slots=1\n"
                                                      << "h.txt:1:1: invalid character '$' in host name '$(touch'";
    QTest::addRow("host dash option") << OMPI << "n1\n--help slots=1\n"
                                      << "h.txt:2:1: host name '--help' starts with '-'; it would be read as an option";
    QTest::addRow("underscore in host") << OMPI << "gpu_01\n"
                                        << "h.txt:1:4: invalid character '_' in host name 'gpu_01'";
    QTest::addRow("semicolon in host") << OMPI << "n1;rm\n"
                                       << "h.txt:1:3: invalid character ';' in host name 'n1;rm'";
    QTest::addRow("command substitution") << OMPI << "$(reboot)\n"
                                          << "h.txt:1:1: invalid character '$' in host name '$(reboot)'";
    QTest::addRow("quote in host") << OMPI << "n1'x\n"
                                   << "h.txt:1:3: invalid character ''' in host name 'n1'x'";
    QTest::addRow("label ends with dash") << OMPI << "n1-.lab\n"
                                          << "h.txt:1:3: a label of host name 'n1-.lab' ends with '-'";
    QTest::addRow("empty label") << OMPI << "n1..lab\n"
                                 << "h.txt:1:4: empty label in host name 'n1..lab'";
    QTest::addRow("bad ipv4") << OMPI << "10.0.0.256\n"
                              << "h.txt:1:1: '10.0.0.256' is not a valid IPv4 address";
    QTest::addRow("bad ipv6") << OMPI << "fe80:::1::2\n"
                              << "h.txt:1:1: 'fe80:::1::2' is not a valid IPv6 address";
    QTest::addRow("non-ascii host") << OMPI << QStringLiteral("n\u00e9ud\n")
                                    << QStringLiteral("h.txt:1:2: invalid character '\u00e9' in host name 'n\u00e9ud'");
    QTest::addRow("control character") << OMPI << "n1\x01\n"
                                       << "h.txt:1:3: control character U+0001 in the line";
    QTest::addRow("empty user") << OMPI << "@n1\n"
                                << "h.txt:1:1: empty user name before '@'";
    QTest::addRow("bad user") << OMPI << "al ice@n1\n"
                              << "h.txt:1:4: expected '=' after 'ice@n1'";
    QTest::addRow("user with dash") << OMPI << "-x@n1\n"
                                    << "h.txt:1:1: user name '-x' starts with '-'; it would be read as an option";
    QTest::addRow("user with semicolon") << OMPI << "a;b@n1\n"
                                         << "h.txt:1:2: invalid character ';' in user name 'a;b'";
    QTest::addRow("conflicting users")
        << OMPI << "alice@n1\nbob@n1\n"
        << "h.txt:2:1: host 'n1' is listed on line 1 as 'alice@n1' and here as 'bob@n1'; use one user per host";
    QTest::addRow("error on later line") << OMPI << "# c\nn1 slots=2\n\nn2 slots=x\n"
                                         << "h.txt:4:10: slots: expected an integer 1..100000, got 'x'";
    // Sums bounded before they overflow an int (repeated lines add up).
    QTest::addRow("repeated host past the limit")
        << OMPI << "n1 slots=60000\nn1 slots=60000\n"
        << "h.txt:2:10: host 'n1' adds up to 120000 slots over its lines; at most 100000 per host";
    QTest::addRow("repeated host max_slots past the limit")
        << OMPI << "n1 slots=1 max_slots=60000\nn1 slots=1 max_slots=60000\n"
        << "h.txt:2:22: host 'n1' adds up to 120000 max_slots over its lines; at most 100000 per host";
    QTest::addRow("mpich repeated host past the limit") << MPICH << "n1:100000\nN1:1\n"
                                                        << "h.txt:2:*";
    QTest::addRow("total past the limit")
        << OMPI
        << "n0 slots=100000\nn1 slots=100000\nn2 slots=100000\nn3 slots=100000\nn4 slots=100000\n"
           "n5 slots=100000\nn6 slots=100000\nn7 slots=100000\nn8 slots=100000\nn9 slots=100000\nn10 slots=1\n"
        << "h.txt:11:11: the hosts add up to more than 1000000 slots at this line; at most 1000000 in one hostfile";
    QTest::addRow("ds duplicate")
        << DS << "w1 slots=2\nw2 slots=2\nw1 slots=2\n"
        << "h.txt:3:1: host 'w1' is already listed on line 1; DeepSpeed allows each host once*";
    QTest::addRow("ds missing slots")
        << DS << "w1\n"
        << "h.txt:1:3: missing 'slots=N' after 'w1' (DeepSpeed needs a count on every line)";
    QTest::addRow("ds max_slots") << DS << "w1 slots=2 max_slots=4\n"
                                  << "h.txt:1:12: unknown attribute 'max_slots' (DeepSpeed knows only slots=)";
    QTest::addRow("ds user") << DS << "bob@w1 slots=2\n"
                             << "h.txt:1:1: DeepSpeed hostfiles have no user@ part*";
    QTest::addRow("ds spaces around =") << DS << "w1 slots = 2\n"
                                        << "h.txt:1:9: no spaces allowed around '=' in DeepSpeed hostfiles";
    QTest::addRow("ds bad count") << DS << "w1 slots=abc\n"
                                  << "h.txt:1:10: slots: expected an integer 1..100000, got 'abc'";
    QTest::addRow("ds count alias refused") << DS << "w1 count=2\n"
                                            << "h.txt:1:4: unknown attribute 'count' (DeepSpeed knows only slots=)";
    QTest::addRow("mpich bad count") << MPICH << "n1:x\n"
                                     << "h.txt:1:4: process count: expected an integer 1..100000, got 'x'";
    QTest::addRow("mpich zero") << MPICH << "n1:0\n"
                                << "h.txt:1:4: process count: expected an integer 1..100000, got '0'";
    QTest::addRow("mpich extra colon") << MPICH << "n1:2:ib0\n"
                                       << "h.txt:1:5: unexpected ':' after the process count (expected 'host:N')";
    QTest::addRow("mpich attribute") << MPICH << "n1 slots=2\n"
                                     << "h.txt:1:4: unexpected 'slots=2' after the host*";
    QTest::addRow("mpich user") << MPICH << "bob@n1:2\n"
                                << "h.txt:1:1: MPICH hostfiles have no user@ part*";
    QTest::addRow("mpich dash host") << MPICH << "-n1:2\n"
                                     << "h.txt:1:1: host name '-n1' starts with '-'; it would be read as an option";
}

void TestHostfile::invalidFiles()
{
    QFETCH(HostfileFormat, format);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const Result<Hostfile> r = Hostfile::parse(text, format, QStringLiteral("h.txt"));
    QVERIFY(!r.ok());
    QVERIFY(!r.errors().isEmpty());
    const QString first = r.errors().first().toString();
    if (expected.endsWith(QLatin1Char('*')))
        QVERIFY2(first.startsWith(expected.chopped(1)), qPrintable(first));
    else
        QCOMPARE(first, expected);
}

void TestHostfile::roundTripVerbatim_data()
{
    QTest::addColumn<HostfileFormat>("format");
    QTest::addColumn<QString>("text");
    QTest::addRow("ompi mixed") << OMPI
                                << "# lab cluster\n\nalice@n1   slots=4 max_slots=8   # head\n  n2 slots = 2\n# end\n";
    QTest::addRow("ompi repeated") << OMPI << "n1 slots=2\nn1 slots=2\n";
    QTest::addRow("ds") << DS << "# ds\nw1 slots=8\nw2 slots=8 # spare\n";
    QTest::addRow("mpich") << MPICH << "n1:4\n\n# c\nn2\n";
}

void TestHostfile::roundTripVerbatim()
{
    QFETCH(HostfileFormat, format);
    QFETCH(QString, text);
    const Result<Hostfile> r = Hostfile::parse(text, format);
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QCOMPARE(r->toText(), text);
    const Result<QString> same = r->convert(format);
    QVERIFY(same.ok());
    QCOMPARE(same.value(), text);
}

void TestHostfile::convert_data()
{
    QTest::addColumn<HostfileFormat>("from");
    QTest::addColumn<HostfileFormat>("to");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("output");
    QTest::addColumn<int>("warnings");

    QTest::addRow("ompi to ds") << OMPI << DS << "# c\nn1 slots=4\nn2 slots=2 # x\n"
                                << "# c\nn1 slots=4\nn2 slots=2 # x\n"
                                << 0;
    QTest::addRow("ompi to ds merges repeats") << OMPI << DS << "n1 slots=2\nn2 slots=1\nn1 slots=3\n"
                                               << "n1 slots=5\nn2 slots=1\n"
                                               << 2;
    QTest::addRow("ompi to ds no slots") << OMPI << DS << "n1\n"
                                         << "n1 slots=1\n"
                                         << 1;
    QTest::addRow("ompi to ds drops user and max") << OMPI << DS << "bob@n1 slots=2 max_slots=4\n"
                                                   << "n1 slots=2\n"
                                                   << 2;
    QTest::addRow("ompi to mpich") << OMPI << MPICH << "n1 slots=4\nn2\n"
                                   << "n1:4\nn2\n"
                                   << 0;
    QTest::addRow("ds to ompi") << DS << OMPI << "w1 slots=8\n# x\nw2 slots=8\n"
                                << "w1 slots=8\n# x\nw2 slots=8\n"
                                << 0;
    QTest::addRow("ds to mpich") << DS << MPICH << "w1 slots=8\n"
                                 << "w1:8\n"
                                 << 0;
    QTest::addRow("mpich to ompi") << MPICH << OMPI << "n1:2\nn2\n"
                                   << "n1 slots=2\nn2\n"
                                   << 0;
    QTest::addRow("mpich to ds repeats") << MPICH << DS << "n1:2\nn1:2\n"
                                         << "n1 slots=4\n"
                                         << 2;
}

void TestHostfile::convert()
{
    QFETCH(HostfileFormat, from);
    QFETCH(HostfileFormat, to);
    QFETCH(QString, input);
    QFETCH(QString, output);
    QFETCH(int, warnings);
    const Result<Hostfile> r = Hostfile::parse(input, from);
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const Result<QString> converted = r->convert(to);
    QVERIFY2(converted.ok(), qPrintable(converted.errorString()));
    QCOMPARE(converted.value(), output);
    // Repeated-host warnings from validation count too.
    QCOMPARE(converted.warnings().size(), warnings);
    // The output parses in the target syntax.
    QVERIFY(Hostfile::parse(converted.value(), to).ok());
}

void TestHostfile::repeatedHostsWarn()
{
    const Result<Hostfile> r = Hostfile::parse(QStringLiteral("n1 slots=2\nn1 slots=4\n"), OMPI, QStringLiteral("h"));
    QVERIFY(r.ok());
    QCOMPARE(r.warnings().size(), 1);
    QCOMPARE(r.warnings().first().toString(),
             QStringLiteral(
                 "h:2:1: warning: host 'n1' is also listed on line 1; Open MPI adds up the slots of repeated lines"));
    QCOMPARE(r->totalSlots(), 6);
    QCOMPARE(r->mergedHosts().size(), 1);
    QCOMPARE(r->mergedHosts().first().slots, std::optional<int>(6));
}

void TestHostfile::editsKeepComments()
{
    Result<Hostfile> r = Hostfile::parse(QStringLiteral("# top\nn1   slots=2  # one\n\n# mid\nn2 slots=2\n"), OMPI);
    QVERIFY(r.ok());
    Hostfile h = r.value();
    HostEntry e = h.host(1);
    e.slots = 8;
    h.setHost(1, e);
    h.appendHost(HostEntry{QStringLiteral("carol"), QStringLiteral("n3"), 1, std::nullopt}, QStringLiteral("new"));
    h.insertHost(0, HostEntry{QString(), QStringLiteral("n0"), std::nullopt, std::nullopt});
    QCOMPARE(h.toText(),
             QStringLiteral("# top\nn0\nn1   slots=2  # one\n\n# mid\nn2 slots=8\ncarol@n3 slots=1 # new\n"));
    h.removeHost(1);
    QCOMPARE(h.toText(), QStringLiteral("# top\nn0\n\n# mid\nn2 slots=8\ncarol@n3 slots=1 # new\n"));
    h.setHostComment(0, QStringLiteral("first"));
    QCOMPARE(h.hostComment(0), QStringLiteral("# first"));
    QCOMPARE(h.hostCount(), 3);
}

void TestHostfile::editedModelValidates()
{
    Hostfile h(DS);
    h.appendComment(QStringLiteral("built in code"));
    h.appendHost(HostEntry{QString(), QStringLiteral("w1"), 2, std::nullopt});
    h.appendHost(HostEntry{QString(), QStringLiteral("w1"), 2, std::nullopt});
    const Diagnostics d = h.validate(QStringLiteral("x"));
    QCOMPARE(d.size(), 1);
    QVERIFY(d.first().toString().startsWith(QStringLiteral("x:3:1: host 'w1' is already listed on line 2")));
    h.setHost(1, HostEntry{QString(), QStringLiteral("w2"), 0, std::nullopt});
    QVERIFY(hasErrors(h.validate()));
    h.setHost(1, HostEntry{QString(), QStringLiteral("w2"), 3, std::nullopt});
    QVERIFY(h.validate().isEmpty());
    QCOMPARE(h.toText(), QStringLiteral("# built in code\nw1 slots=2\nw2 slots=3\n"));
}

void TestHostfile::mergedHostsAndTotals()
{
    const Result<Hostfile> r =
        Hostfile::parse(QStringLiteral("n1 slots=2 max_slots=4\nn2\nn1 slots=1 max_slots=1\nN2 slots=3\n"), OMPI);
    QVERIFY(r.ok());
    const QList<HostEntry> merged = r->mergedHosts();
    QCOMPARE(merged.size(), 2);
    QCOMPARE(merged.at(0).slots, std::optional<int>(3));
    QCOMPARE(merged.at(0).maxSlots, std::optional<int>(5));
    QCOMPARE(merged.at(1).slots, std::optional<int>(4)); // unset counts 1
    QCOMPARE(r->totalSlots(), 7);
    QCOMPARE(r->totalSlots(8), 14);
}

// A model built in code is not validated: its sums saturate instead of overflowing, and validate()
// reports them.
void TestHostfile::sumsDoNotOverflow()
{
    Hostfile h;
    for (int i = 0; i < 25000; ++i)
        h.appendHost(HostEntry{QString(), QStringLiteral("n%1").arg(i), 100000, std::nullopt});
    QCOMPARE(h.totalSlots(), std::numeric_limits<int>::max());
    const Diagnostics d = h.validate(QStringLiteral("h.txt"));
    QVERIFY(!d.isEmpty());
    QCOMPARE(d.first().toString(),
             QStringLiteral("h.txt:11:1: the hosts add up to more than 1000000 slots at this line; at most 1000000 "
                            "in one hostfile"));

    Hostfile twice;
    twice.appendHost(HostEntry{QString(), QStringLiteral("n1"), 2000000000, 2000000000});
    twice.appendHost(HostEntry{QString(), QStringLiteral("n1"), 2000000000, 2000000000});
    const QList<HostEntry> merged = twice.mergedHosts();
    QCOMPARE(merged.size(), qsizetype(1));
    QCOMPARE(*merged.first().slots, std::numeric_limits<int>::max());
    QCOMPARE(*merged.first().maxSlots, std::numeric_limits<int>::max());
}

void TestHostfile::ipv6NotInMpich()
{
    const Result<Hostfile> r = Hostfile::parse(QStringLiteral("fe80::1 slots=2\n"), OMPI);
    QVERIFY(r.ok());
    const Result<QString> c = r->convert(MPICH, QStringLiteral("h"));
    QVERIFY(!c.ok());
    QVERIFY(c.errorString().contains(QStringLiteral("h:1:1: IPv6 address 'fe80::1' cannot be written")));
}

void TestHostfile::formatNames()
{
    QCOMPARE(hostfileFormatFromName(QStringLiteral("OpenMPI")), std::optional<HostfileFormat>(OMPI));
    QCOMPARE(hostfileFormatFromName(QStringLiteral("deepspeed")), std::optional<HostfileFormat>(DS));
    QCOMPARE(hostfileFormatFromName(QStringLiteral("hydra")), std::optional<HostfileFormat>(MPICH));
    QVERIFY(!hostfileFormatFromName(QStringLiteral("slurm")));
    for (HostfileFormat f : {OMPI, DS, MPICH})
        QCOMPARE(hostfileFormatFromName(hostfileFormatName(f)), std::optional<HostfileFormat>(f));
}

void TestHostfile::loadFixtureFiles()
{
    const QString dir = QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/cluster/");
    const Result<Hostfile> ompi = Hostfile::load(dir + QStringLiteral("lab.openmpi"), OMPI);
    QVERIFY2(ompi.ok(), qPrintable(ompi.errorString()));
    QCOMPARE(ompi->hostCount(), 4);
    const Result<Hostfile> bad = Hostfile::load(dir + QStringLiteral("bad.openmpi"), OMPI);
    QVERIFY(!bad.ok());
    QVERIFY(bad.errors().first().toString().startsWith(dir + QStringLiteral("bad.openmpi:")));

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    QVERIFY(ompi->save(tmp.filePath(QStringLiteral("copy"))).ok());
    QFile original(dir + QStringLiteral("lab.openmpi")), copy(tmp.filePath(QStringLiteral("copy")));
    QVERIFY(original.open(QIODevice::ReadOnly) && copy.open(QIODevice::ReadOnly));
    QCOMPARE(copy.readAll(), original.readAll());
}

void TestHostfile::loadMissingFile()
{
    const Result<Hostfile> r = Hostfile::load(QStringLiteral("/nonexistent/hosts"), OMPI);
    QVERIFY(!r.ok());
    QVERIFY(r.errorString().startsWith(QStringLiteral("/nonexistent/hosts: cannot read")));
}

QTEST_GUILESS_MAIN(TestHostfile)
#include "tst_hostfile.moc"
