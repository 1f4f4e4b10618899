// The NCCL communicator without a GPU: the library it was linked with (ncclGetVersion against the
// installed nccl.h), the --comm choice, the GPU each rank takes, the collective watchdog's rules, the
// checked failure when there is no CUDA device, and the trainer refusing --comm nccl on the CPU, also
// under a real mpirun (exit 2 on every rank, no hang). What needs a GPU runs in tests/device/check-gpu.sh.
#include "dist/collective_watchdog.h"
#include "dist/communicator.h"
#include "dist/nccl_communicator.h"
#include "testsupport.h"
#include "util/gpu.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <chrono>
#include <unistd.h>

using namespace traindeck;
using testsupport::ProcessResult;
using testsupport::trainMicro;

namespace {

std::string hostName()
{
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

} // namespace

class TestNccl : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void linkedLibraryVersion();
    void backendChoice();
    void gpuPerRank();
    void watchdogReturnsWhenFinished();
    void watchdogAbortsOnAsyncError();
    void watchdogAbortsOnTimeout();
    void communicatorNeedsACudaDevice();
    void trainerRefusesNcclOnTheCpu_data();
    void trainerRefusesNcclOnTheCpu();
    void autoPicksMpiOnTheCpu();

  private:
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestNccl::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 31, "the gradients cross the wire once per bucket.");
    model_ = micro.model;
    data_ = micro.data;
}

void TestNccl::linkedLibraryVersion()
{
    // Where the CUDA toolkit has NCCL (the project's machines: /usr/local/cuda), CMake must have built
    // the communicator, and ncclGetVersion must report the version of the header it was built against.
    QFile header(QStringLiteral("/usr/local/cuda/include/nccl.h"));
    if (!header.open(QIODevice::ReadOnly)) {
        QVERIFY(!dist::ncclBuilt());
        QCOMPARE(dist::ncclLibraryVersion(), std::string("none (built without NCCL)"));
        QSKIP("no /usr/local/cuda/include/nccl.h: this build has no NCCL communicator");
    }
    QVERIFY2(dist::ncclBuilt(), "nccl.h is installed, but CMake did not build the NCCL communicator");
    const QString text = QString::fromUtf8(header.readAll());
    auto field = [&](const char* name) {
        const auto m = QRegularExpression(QStringLiteral("#define %1 (\\d+)").arg(QLatin1String(name))).match(text);
        return m.hasMatch() ? m.captured(1) : QString();
    };
    const QString expected = field("NCCL_MAJOR") + u'.' + field("NCCL_MINOR") + u'.' + field("NCCL_PATCH");
    QCOMPARE(QString::fromStdString(dist::ncclLibraryVersion()), expected);

    // The trainer reports it too.
    const ProcessResult r = testsupport::run(testsupport::trainerExe(), {"self-check"});
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(QString::fromStdString(j.at("nccl").get<std::string>()), expected);
    QCOMPARE(j.at("nccl_communicator").get<bool>(), true);
}

void TestNccl::backendChoice()
{
    using dist::CommBackend;
    QCOMPARE(dist::parseCommBackend("auto"), CommBackend::Auto);
    QCOMPARE(dist::parseCommBackend("mpi"), CommBackend::Mpi);
    QCOMPARE(dist::parseCommBackend("nccl"), CommBackend::Nccl);
    QVERIFY_THROWS_EXCEPTION(InputError, dist::parseCommBackend("gloo"));
    QCOMPARE(dist::chooseCommBackend(CommBackend::Auto, false), CommBackend::Mpi);
    QCOMPARE(dist::chooseCommBackend(CommBackend::Mpi, true), CommBackend::Mpi);
    QCOMPARE(dist::chooseCommBackend(CommBackend::Auto, true),
             dist::ncclBuilt() ? CommBackend::Nccl : CommBackend::Mpi);
    try {
        dist::chooseCommBackend(CommBackend::Nccl, false);
        QFAIL("--comm nccl on the CPU was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("needs a CUDA device") != std::string::npos, e.what());
    }
    if (dist::ncclBuilt())
        QCOMPARE(dist::chooseCommBackend(CommBackend::Nccl, true), CommBackend::Nccl);
}

void TestNccl::gpuPerRank()
{
    // Ranks 0 and 2 on node-a, 1 and 3 on node-b: each takes its position among its host's ranks.
    const std::vector<std::string> hosts{"node-a", "node-b", "node-a", "node-b"};
    QCOMPARE(dist::localGpuIndex(hosts, 0, 2), 0);
    QCOMPARE(dist::localGpuIndex(hosts, 1, 2), 0);
    QCOMPARE(dist::localGpuIndex(hosts, 2, 2), 1);
    QCOMPARE(dist::localGpuIndex(hosts, 3, 8), 1);
    try {
        dist::localGpuIndex({"node-a", "node-a", "node-a"}, 2, 2);
        QFAIL("three ranks on a host with two GPUs were accepted");
    } catch (const RuntimeFailure& e) {
        const std::string m = e.what();
        QVERIFY2(m.starts_with("rank 2 on node-a: 3 ranks on this host share 2 GPU(s)"), m.c_str());
    }
    QVERIFY_THROWS_EXCEPTION(RuntimeFailure, dist::localGpuIndex({"node-a"}, 0, 0));
}

void TestNccl::watchdogReturnsWhenFinished()
{
    int polls = 0, aborts = 0;
    dist::CollectiveWait w;
    w.who = "rank 0 on node-a";
    w.what = "ncclAllReduce of 1.0 MiB";
    w.timeoutS = 5;
    w.finished = [&] { return ++polls >= 20; };
    w.error = [] { return std::optional<std::string>(); };
    w.abort = [&] { ++aborts; };
    dist::waitForCollective(w);
    QCOMPARE(polls, 20);
    QCOMPARE(aborts, 0);
}

void TestNccl::watchdogAbortsOnAsyncError()
{
    int polls = 0, aborts = 0;
    dist::CollectiveWait w;
    w.who = "rank 1 on node-b";
    w.what = "ncclAllReduce of 6.0 MiB";
    w.timeoutS = 0; // no limit: the error alone must end the wait
    w.finished = [&] {
        ++polls;
        return false;
    };
    w.error = [&] {
        return polls >= 3 ? std::optional<std::string>("remote process exited or there was a network error")
                          : std::nullopt;
    };
    w.abort = [&] { ++aborts; };
    try {
        dist::waitForCollective(w);
        QFAIL("the wait ended without an error");
    } catch (const RuntimeFailure& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("rank 1 on node-b: ncclAllReduce of 6.0 MiB failed: remote process "
                             "exited or there was a network error; the communicator was aborted"));
    }
    QCOMPARE(aborts, 1);
    QCOMPARE(polls, 3);
}

void TestNccl::watchdogAbortsOnTimeout()
{
    int aborts = 0;
    dist::CollectiveWait w;
    w.who = "rank 3 on node-b";
    w.what = "reduce-scatter of 2.0 MiB";
    w.timeoutS = 0.2;
    w.finished = [] { return false; };
    w.error = [] { return std::optional<std::string>(); };
    w.abort = [&] { ++aborts; };
    const auto start = std::chrono::steady_clock::now();
    try {
        dist::waitForCollective(w);
        QFAIL("a collective that never finishes was waited for without a limit");
    } catch (const RuntimeFailure& e) {
        QCOMPARE(std::string(e.what()), std::string("rank 3 on node-b: reduce-scatter of 2.0 MiB did not finish within "
                                                    "0.2 s (--collective-timeout); the communicator was aborted"));
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(waited >= 0.2 && waited < 2.0, qPrintable(QString::number(waited)));
    QCOMPARE(aborts, 1);
}

void TestNccl::communicatorNeedsACudaDevice()
{
    if (!dist::ncclBuilt())
        QSKIP("built without NCCL");
    if (!util::cudaDevices().empty())
        QSKIP("this machine has a CUDA device: tests/device/check-gpu.sh runs the communicator there");
    // Every CUDA call is checked, and its failure names the rank, host, call and source line.
    auto control = dist::makeCommunicator(nullptr, nullptr);
    try {
        dist::makeNcclCommunicator(*control, 0, 10);
        QFAIL("an NCCL communicator was made without a CUDA device");
    } catch (const RuntimeFailure& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(m.startsWith(QString::fromStdString("rank 0 on " + hostName() + ": cudaGetDeviceCount failed (")),
                 qPrintable(m));
        QVERIFY2(m.contains(QRegularExpression(QStringLiteral("nccl_communicator\\.cpp:\\d+\\): \\S"))), qPrintable(m));
    }
}

void TestNccl::trainerRefusesNcclOnTheCpu_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("nccl on the cpu") << 0 << QStringList{"--comm", "nccl", "--device", "cpu"}
                                     << (dist::ncclBuilt() ? "--comm nccl needs a CUDA device" : "built without NCCL");
    QTest::newRow("nccl on the cpu, 2 ranks")
        << 2 << QStringList{"--comm", "nccl", "--device", "cpu"}
        << (dist::ncclBuilt() ? "--comm nccl needs a CUDA device" : "built without NCCL");
    QTest::newRow("unknown library") << 0 << QStringList{"--comm", "gloo"}
                                     << "--comm must be auto, mpi or nccl, got \"gloo\"";
    QTest::newRow("negative timeout") << 0 << QStringList{"--collective-timeout", "-1"}
                                      << "--collective-timeout must be between 0 and 604800 seconds";
}

void TestNccl::trainerRefusesNcclOnTheCpu()
{
    QFETCH(int, ranks);
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString out = dir_.filePath(QStringLiteral("refused-%1").arg(QTest::currentDataTag()).replace(u' ', u'-'));
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = trainMicro(
        ranks, QStringList{"--model", model_, "--data", data_, "--max-steps", "2", "--out", out} + args, 60000);
    QVERIFY2(r.finished, "the trainer hung");
    QVERIFY2(std::chrono::steady_clock::now() - start < std::chrono::seconds(50), "the refusal took too long");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    if (ranks > 1) // every rank says who it is
        QVERIFY2(r.err.contains(QByteArray("rank 1 on ")), r.err.constData());
}

void TestNccl::autoPicksMpiOnTheCpu()
{
    const QString out = dir_.filePath(QStringLiteral("auto"));
    const ProcessResult r = trainMicro(2, {"--model", model_, "--data", data_, "--max-steps", "2", "--out", out,
                                           "--metrics-out", out + "/metrics.jsonl", "--micro-batch", "2"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto hello = testsupport::records(out + "/metrics.jsonl", "hello");
    QCOMPARE(hello.size(), size_t(1));
    QCOMPARE(hello[0]["hparams"]["comm"].get<std::string>(), std::string("mpi"));
    QVERIFY(hello[0]["versions"]["nccl"].is_null());
}

QTEST_GUILESS_MAIN(TestNccl)
#include "tst_nccl.moc"
