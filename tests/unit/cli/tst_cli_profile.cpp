// Runs the built traindeck-cli: `profile list|show|check|import|export|hostfile` against a private
// $XDG_CONFIG_HOME, on good, bad, secret-bearing and hostile input.
#include "test_paths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliProfile : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void sequence_data();
    void sequence();
    void exportedFileLoads();

  private:
    struct Outcome {
        int exitCode = -1;
        QString out, err;
    };
    Outcome cli(const QStringList& args);

    QTemporaryDir m_config;
    QTemporaryDir m_work;
};

static QString fixture(const char* name)
{
    return QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/cluster/") +
           QString::fromLatin1(name);
}

void TestCliProfile::initTestCase()
{
    QVERIFY(m_config.isValid() && m_work.isValid());
    QVERIFY(QFile::exists(QString::fromUtf8(TRAINDECK_CLI)));
}

TestCliProfile::Outcome TestCliProfile::cli(const QStringList& args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_config.path());
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(m_work.path());
    p.start(QString::fromUtf8(TRAINDECK_CLI), QStringList{QStringLiteral("profile")} + args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return Outcome{p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                   QString::fromUtf8(p.readAllStandardError())};
}

// Rows run in order against one config directory: later rows see what earlier rows imported.
void TestCliProfile::sequence_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("outContains");
    QTest::addColumn<QString>("errContains");
    QTest::addColumn<QString>("outLacks");
    auto a = [](std::initializer_list<QString> list) { return QStringList(list); };
    const QString S = QString();

    QTest::addRow("list empty") << a({QStringLiteral("list")}) << 0 << "local\n" << S << "lab";
    QTest::addRow("show local") << a({QStringLiteral("show"), QStringLiteral("local"), QStringLiteral("--slots"),
                                      QStringLiteral("3")})
                                << 0 << "\"slots\": 3" << S << "password";
    QTest::addRow("show bad slots") << a({QStringLiteral("show"), QStringLiteral("local"), QStringLiteral("--slots"),
                                          QStringLiteral("0")})
                                    << 2 << S << "--slots: expected an integer 1..100000" << S;
    QTest::addRow("check good") << a({QStringLiteral("check"), fixture("lab.json")}) << 0
                                << "valid profile 'lab', 2 node(s), 8 slot(s), head n1" << S << S;
    QTest::addRow("check bad") << a({QStringLiteral("check"), fixture("bad.json")}) << 2 << S
                               << fixture("bad.json") + QStringLiteral(": nodes[1].port: expected an integer 1..65535")
                               << S;
    QTest::addRow("check bad host") << a({QStringLiteral("check"), fixture("bad.json")}) << 2 << S
                                    << ": nodes[2].host: invalid character '_' in host name 'gpu_03'" << S;
    QTest::addRow("check two heads") << a({QStringLiteral("check"), fixture("bad.json")}) << 2 << S
                                     << ": nodes[2].role: nodes[0] is already the head" << S;
    QTest::addRow("check secret") << a({QStringLiteral("check"), fixture("secret.json")}) << 2 << S
                                  << ": env.HF_TOKEN: profiles must not hold secrets" << S;
    QTest::addRow("check missing") << a({QStringLiteral("check"), QStringLiteral("missing.json")}) << 2 << S
                                   << "missing.json: cannot read" << S;
    QTest::addRow("import lab") << a({QStringLiteral("import"), fixture("lab.json")}) << 0 << "imported profile 'lab'"
                                << S << S;
    QTest::addRow("import lab again") << a({QStringLiteral("import"), fixture("lab.json")}) << 2 << S
                                      << "profile 'lab' exists already" << S;
    QTest::addRow("import lab force") << a({QStringLiteral("import"), fixture("lab.json"), QStringLiteral("--force")})
                                      << 0 << "imported" << S << S;
    QTest::addRow("import secret strips")
        << a({QStringLiteral("import"), fixture("secret.json")}) << 0 << "imported profile 'shared'"
        << "nodes[0].password: warning: removed" << S;
    QTest::addRow("import bad") << a({QStringLiteral("import"), fixture("bad.json")}) << 2 << S << "nodes[1].port" << S;
    QTest::addRow("import as local") << a({QStringLiteral("import"), fixture("lab.json"), QStringLiteral("--name"),
                                           QStringLiteral("local")})
                                     << 2 << S << "\"local\" is the built-in profile" << S;
    QTest::addRow("import hostile name") << a({QStringLiteral("import"), fixture("lab.json"), QStringLiteral("--name"),
                                               QStringLiteral("$(id);x")})
                                         << 2 << S << "invalid character '$' in profile name" << S;
    QTest::addRow("import traversal name")
        << a({QStringLiteral("import"), fixture("lab.json"), QStringLiteral("--name"), QStringLiteral("../../x")}) << 2
        << S << "invalid character '.' in profile name" << S;
    QTest::addRow("list after import") << a({QStringLiteral("list")}) << 0 << "local\nlab\nshared\n" << S << S;
    QTest::addRow("show stripped") << a({QStringLiteral("show"), QStringLiteral("shared")}) << 0
                                   << "TOKENIZERS_PARALLELISM" << S << "hunter2";
    QTest::addRow("show stripped token") << a({QStringLiteral("show"), QStringLiteral("shared")}) << 0
                                         << "\"user\": \"bob\"" << S << "hf_do_not_store";
    QTest::addRow("show keeps unknown keys")
        << a({QStringLiteral("show"), QStringLiteral("lab")}) << 0 << "\"rack\": \"b7\"" << S << S;
    QTest::addRow("hostfile lab") << a({QStringLiteral("hostfile"), QStringLiteral("lab")}) << 0
                                  << "alice@10.0.0.1 slots=4 # head\nalice@gpu-02.lab slots=4\n"
                                  << S << S;
    QTest::addRow("hostfile lab deepspeed") << a({QStringLiteral("hostfile"), QStringLiteral("lab"),
                                                  QStringLiteral("--format"), QStringLiteral("deepspeed")})
                                            << 0 << "10.0.0.1 slots=4 # head\ngpu-02.lab slots=4\n"
                                            << "user 'alice' dropped" << S;
    QTest::addRow("hostfile local") << a({QStringLiteral("hostfile"), QStringLiteral("local"),
                                          QStringLiteral("--slots"), QStringLiteral("2")})
                                    << 0 << "localhost slots=2" << S << S;
    QTest::addRow("show missing") << a({QStringLiteral("show"), QStringLiteral("nope")}) << 2 << S
                                  << "no profile 'nope' (known: local, lab, shared)" << S;
    QTest::addRow("show hostile") << a({QStringLiteral("show"), QStringLiteral("$(touch pwned)")}) << 2 << S
                                  << "invalid character '$'" << S;
    QTest::addRow("show dash") << a({QStringLiteral("show"), QStringLiteral("-x")}) << 2 << S << "Unknown option 'x'"
                               << S;
    QTest::addRow("show dash after --") << a({QStringLiteral("show"), QStringLiteral("--"), QStringLiteral("-x")}) << 2
                                        << S << "invalid character '-' in profile name" << S;
    QTest::addRow("export stdout") << a({QStringLiteral("export"), QStringLiteral("lab")}) << 0
                                   << "\"NCCL_SOCKET_IFNAME\": \"eth0\"" << S << S;
    QTest::addRow("export unwritable") << a({QStringLiteral("export"), QStringLiteral("lab"), QStringLiteral("--out"),
                                             QStringLiteral("/nonexistent/x/y.json")})
                                       << 1 << S << "/nonexistent/x/y.json: cannot" << S;
    QTest::addRow("list takes no args") << a({QStringLiteral("list"), QStringLiteral("x")}) << 2 << S
                                        << "takes no arguments" << S;
    QTest::addRow("unknown subcommand") << a({QStringLiteral("rm")}) << 2 << S << "unknown subcommand 'rm'" << S;
    QTest::addRow("no subcommand") << a({}) << 2 << S << "usage: traindeck-cli profile" << S;
}

void TestCliProfile::sequence()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, outContains);
    QFETCH(QString, errContains);
    QFETCH(QString, outLacks);
    const Outcome o = cli(args);
    QVERIFY2(o.exitCode == exitCode,
             qPrintable(QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(o.exitCode).arg(o.out, o.err)));
    QVERIFY2(o.out.contains(outContains), qPrintable(o.out));
    QVERIFY2(o.err.contains(errContains), qPrintable(o.err));
    if (!outLacks.isEmpty())
        QVERIFY2(!o.out.contains(outLacks), qPrintable(o.out));
    QVERIFY(!QFile::exists(m_work.filePath(QStringLiteral("pwned"))));
}

void TestCliProfile::exportedFileLoads()
{
    const QString target = m_work.filePath(QStringLiteral("exported lab; $(x).json"));
    Outcome o = cli({QStringLiteral("export"), QStringLiteral("lab"), QStringLiteral("--out"), target});
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    o = cli({QStringLiteral("check"), target});
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    QVERIFY(o.out.contains(QStringLiteral("valid profile 'lab'")));
}

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
