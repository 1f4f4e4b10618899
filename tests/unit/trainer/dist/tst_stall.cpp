// The stall inspector: its verdicts on boards of rank positions, its thread in a single process, and
// under a real `mpirun -np 2` a rank stopped before the allreduce, inside it, silenced by SIGSTOP, and
// a stall that reaches --stall-abort.
#include "dist/communicator.h"
#include "dist/stall.h"
#include "testsupport.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QFloat16> // QTest declares qfloat16 only; nlohmann::json asks whether it converts
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <csignal>
#include <map>
#include <mutex>

using namespace traindeck::dist;

namespace {

RankProgress rankAt(int64_t step, Phase phase, double inPhaseS, double silentS = 0, double usualS = 0)
{
    return RankProgress{step, phase, inPhaseS, silentS, usualS};
}

std::vector<int> ranks(std::initializer_list<int> r)
{
    return std::vector<int>(r);
}

// The trainer processes whose command line names `out`, by rank.
std::map<int, pid_t> trainerProcesses(const QString& out)
{
    std::map<int, pid_t> found;
    QDirIterator proc("/proc", QDir::Dirs | QDir::NoDotAndDotDot);
    while (proc.hasNext()) {
        const QString p = proc.next();
        const QByteArray cmd = testsupport::readFile(p + "/cmdline");
        if (!cmd.startsWith(testsupport::trainerExe().toUtf8()) || !cmd.contains(out.toUtf8()))
            continue;
        for (const QByteArray& var : testsupport::readFile(p + "/environ").split('\0'))
            if (var.startsWith("OMPI_COMM_WORLD_RANK="))
                found[var.mid(21).toInt()] = pid_t(QFileInfo(p).fileName().toInt());
    }
    return found;
}

std::vector<nlohmann::json> stallWarnings(const QString& path)
{
    std::vector<nlohmann::json> out;
    for (auto& r : testsupport::records(path))
        if (r["type"] == "warning" && r.value("code", "") == "stall")
            out.push_back(r);
    return out;
}

} // namespace

class TestStall : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void quietBoardIsNoStall();
    void rankBehindTheAllreduceIsNamed();
    void everyRankInsideTheCollectiveIsCommunication();
    void silentRankComesFirst();
    void rankPastASynchronizingCollectiveMeansStaleReport();
    void gatherLetsItsSendersGoOn();
    void slowCheckpointWriteNamesRankZero();
    void longPhaseWithoutCollectiveNeedsThreeTimesItsUsualTime();
    void rankInACollectiveDefersTheVerdict();
    void descriptionNamesRanksHostsAndPhases();
    void inspectorThreadReportsOnceAndAborts();
    void rankStoppedBeforeTheAllreduce();
    void rankStoppedInsideTheAllreduce();
    void silencedRankIsNamed();
    void stallAbortEndsTheJob();
    void badInjectStallIsRefused();

  private:
    // Starts `mpirun -np 2` on the micro model; the caller waits.
    QStringList trainArgs(const QString& out, const QStringList& extra) const;
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestStall::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 5, "a rank that stops holds every other rank up.");
    model_ = micro.model;
    data_ = micro.data;
}

void TestStall::quietBoardIsNoStall()
{
    const auto v = judgeStall({rankAt(3, Phase::Forward, 0.5), rankAt(3, Phase::Allreduce, 0.4)}, 2);
    QCOMPARE(int(v.kind), int(StallCase::None));
    QVERIFY(v.culprits.empty());
}

void TestStall::rankBehindTheAllreduceIsNamed()
{
    const auto v = judgeStall({rankAt(3, Phase::Allreduce, 4), rankAt(3, Phase::Data, 5),
                               rankAt(3, Phase::Allreduce, 3.5), rankAt(3, Phase::Allreduce, 3.2)},
                              3);
    QCOMPARE(int(v.kind), int(StallCase::BeforeCollective));
    QCOMPARE(v.culprits, ranks({1}));
    QCOMPARE(v.waiting, ranks({0, 2, 3}));
    QCOMPARE(v.step, int64_t(3));
    QCOMPARE(int(v.phase), int(Phase::Allreduce));
    QCOMPARE(v.waitedS, 4.0);
}

void TestStall::everyRankInsideTheCollectiveIsCommunication()
{
    const auto v = judgeStall({rankAt(7, Phase::Allreduce, 9), rankAt(7, Phase::Allreduce, 8.5)}, 3);
    QCOMPARE(int(v.kind), int(StallCase::InCollective));
    QCOMPARE(v.culprits, ranks({0, 1}));
    QVERIFY(v.waiting.empty());
    QCOMPARE(v.step, int64_t(7));
}

void TestStall::silentRankComesFirst()
{
    const auto v = judgeStall({rankAt(4, Phase::Allreduce, 10), rankAt(4, Phase::Backward, 11, /*silent*/ 10.5),
                               rankAt(4, Phase::Allreduce, 9)},
                              3);
    QCOMPARE(int(v.kind), int(StallCase::NoHeartbeat));
    QCOMPARE(v.culprits, ranks({1}));
    QCOMPARE(v.waiting, ranks({0, 2}));
    QCOMPARE(int(v.phase), int(Phase::Backward));
    QCOMPARE(v.waitedS, 10.5);
}

void TestStall::rankPastASynchronizingCollectiveMeansStaleReport()
{
    // Rank 1's last report still says allreduce of step 3; rank 0 is already in step 4: it completed.
    const auto v = judgeStall({rankAt(4, Phase::Forward, 0.1), rankAt(3, Phase::Allreduce, 6)}, 3);
    QCOMPARE(int(v.kind), int(StallCase::None));
    // Rank 1's last report still says data loading; rank 0 already left the allreduce that needed it.
    QCOMPARE(int(judgeStall({rankAt(3, Phase::Optimizer, 0.1), rankAt(3, Phase::Data, 8)}, 3).kind),
             int(StallCase::None));
}

void TestStall::gatherLetsItsSendersGoOn()
{
    // Rank 0 gathers step 5's figures; rank 1 sent its share and waits in step 6's allreduce; rank 2 never
    // finished step 5's optimizer step.
    const auto v =
        judgeStall({rankAt(5, Phase::Report, 8), rankAt(6, Phase::Allreduce, 6), rankAt(5, Phase::Optimizer, 8.1)}, 3);
    QCOMPARE(int(v.kind), int(StallCase::BeforeCollective));
    QCOMPARE(v.culprits, ranks({2}));
    QCOMPARE(v.waiting, ranks({0}));
    QCOMPARE(int(v.phase), int(Phase::Report));
}

void TestStall::slowCheckpointWriteNamesRankZero()
{
    const auto v = judgeStall({rankAt(100, Phase::CheckpointWrite, 70), rankAt(100, Phase::CheckpointWait, 70),
                               rankAt(100, Phase::CheckpointWait, 70)},
                              60);
    QCOMPARE(int(v.kind), int(StallCase::BeforeCollective));
    QCOMPARE(v.culprits, ranks({0}));
    QCOMPARE(v.waiting, ranks({1, 2}));
}

void TestStall::longPhaseWithoutCollectiveNeedsThreeTimesItsUsualTime()
{
    // One process whose forward pass usually takes 30 s: 70 s is not yet a stall at --stall-warning 60.
    QCOMPARE(int(judgeStall({rankAt(2, Phase::Forward, 70, 0, 30)}, 60).kind), int(StallCase::None));
    const auto v = judgeStall({rankAt(2, Phase::Forward, 95, 0, 30)}, 60);
    QCOMPARE(int(v.kind), int(StallCase::BeforeCollective));
    QCOMPARE(v.culprits, ranks({0}));
    QVERIFY(v.waiting.empty());
    // Every rank stuck in data loading at once (a hung shared file system).
    const auto all = judgeStall({rankAt(9, Phase::Data, 61, 0, 0.2), rankAt(9, Phase::Data, 62, 0, 0.2)}, 60);
    QCOMPARE(int(all.kind), int(StallCase::BeforeCollective));
    QCOMPARE(all.culprits, ranks({0, 1}));
}

void TestStall::rankInACollectiveDefersTheVerdict()
{
    // Rank 0 just entered the allreduce: the stall will show there, with the right ranks named.
    QCOMPARE(int(judgeStall({rankAt(3, Phase::Allreduce, 1), rankAt(3, Phase::Data, 5)}, 3).kind),
             int(StallCase::None));
}

void TestStall::descriptionNamesRanksHostsAndPhases()
{
    const std::vector<RankProgress> board = {rankAt(3, Phase::Allreduce, 61), rankAt(3, Phase::Data, 62),
                                             rankAt(3, Phase::Allreduce, 60.5)};
    const auto v = judgeStall(board, 60);
    const std::string text = describeStall(v, board, {"node-a", "node-b", "node-c"});
    QVERIFY2(text.find("rank 1 (node-b) has not reached the gradient allreduce of step 3") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("ranks 0 (node-a) and 2 (node-c) have waited in for 61 s") != std::string::npos, text.c_str());
    QVERIFY2(text.find("rank 1 is in data loading of step 3") != std::string::npos, text.c_str());
    QVERIFY2(text.find("not communication") != std::string::npos, text.c_str());

    const std::vector<RankProgress> inside = {rankAt(8, Phase::Allreduce, 70), rankAt(8, Phase::Allreduce, 70)};
    const std::string comm = describeStall(judgeStall(inside, 60), inside, {"a", "b"});
    QVERIFY2(comm.find("every rank entered the gradient allreduce of step 8 and none finished it for 70 s") !=
                 std::string::npos,
             comm.c_str());
    const std::vector<RankProgress> silent = {rankAt(8, Phase::Allreduce, 70), rankAt(8, Phase::Backward, 70, 65)};
    const std::string gone = describeStall(judgeStall(silent, 60), silent, {"a", "b"});
    QVERIFY2(gone.find("no word from rank 1 (b) for 65 s (last seen in the backward pass of step 8)") !=
                 std::string::npos,
             gone.c_str());

    // 1,024 ranks, 8 per host: one host's ranks never entered the allreduce. Named by host and range, what
    // they do said once, the 1,016 waiting ranks counted, not listed.
    std::vector<RankProgress> big(1024, rankAt(120, Phase::Allreduce, 61));
    std::vector<std::string> hosts;
    for (int r = 0; r < 1024; ++r)
        hosts.push_back("tb-node" + std::to_string(r / 8 + 1));
    for (int r = 40; r < 48; ++r)
        big[size_t(r)] = rankAt(120, Phase::Data, 62);
    const StallVerdict bv = judgeStall(big, 60);
    QCOMPARE(int(bv.culprits.size()), 8);
    const std::string many = describeStall(bv, big, hosts);
    QVERIFY2(
        many.find("ranks 40\u201347 (tb-node6) have not reached the gradient allreduce of step 120, which 1016 "
                  "ranks on 127 hosts (0\u20137 (tb-node1), 8\u201315 (tb-node2), \u2026) have waited in for 61 s") !=
            std::string::npos,
        many.c_str());
    QVERIFY2(many.find("ranks 40\u201347 (tb-node6) are in data loading of step 120 (stuck before") !=
                 std::string::npos,
             many.c_str());
    QVERIFY2(many.size() < 400, many.c_str()); // one line a person reads
    // Two hosts' ranks, one of them split: ranges per host.
    for (int r : {3, 5, 6})
        big[size_t(r)] = rankAt(120, Phase::Forward, 62);
    const std::string two = describeStall(judgeStall(big, 60), big, hosts);
    QVERIFY2(two.find("ranks 3, 5, 6 (tb-node1) and 40\u201347 (tb-node6) have not reached") != std::string::npos,
             two.c_str());
    QVERIFY2(two.find("ranks 3, 5, 6 (tb-node1) are in the forward pass of step 120 and ranks 40\u201347 (tb-node6) "
                      "are in data loading of step 120") != std::string::npos,
             two.c_str());
}

void TestStall::inspectorThreadReportsOnceAndAborts()
{
    int argc = 0;
    char** argv = nullptr;
    auto comm = makeCommunicator(&argc, &argv); // one process: rank 0 inspects itself
    std::mutex m;
    std::vector<std::pair<StallVerdict, bool>> reports;
    StallInspector inspector(*comm, {0.2, 0.6}, {"here"},
                             [&](const StallVerdict& v, const std::vector<RankProgress>&, bool abort) {
                                 std::lock_guard<std::mutex> lock(m);
                                 reports.emplace_back(v, abort);
                             });
    inspector.enter(1, Phase::Data);
    QTest::qWait(100);
    inspector.enter(1, Phase::Forward); // moving: no stall
    QTest::qWait(100);
    {
        std::lock_guard<std::mutex> lock(m);
        QVERIFY(reports.empty());
    }
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 std::lock_guard<std::mutex> lock(m);
                                 return reports.size() >= 2;
                             }()),
                             5000);
    inspector.finish();
    std::lock_guard<std::mutex> lock(m);
    QCOMPARE(reports.size(), size_t(2)); // one warning for the stall, one abort; nothing repeated
    QVERIFY(!reports[0].second);
    QCOMPARE(int(reports[0].first.kind), int(StallCase::BeforeCollective));
    QCOMPARE(reports[0].first.culprits, ranks({0}));
    QCOMPARE(int(reports[0].first.phase), int(Phase::Forward));
    QVERIFY(reports[1].second);
    QVERIFY(reports[1].first.waitedS >= 0.6);
}

QStringList TestStall::trainArgs(const QString& out, const QStringList& extra) const
{
    return QStringList{"-np",
                       "2",
                       "--bind-to",
                       "none",
                       "--oversubscribe",
                       testsupport::trainerExe(),
                       "train",
                       "--model",
                       model_,
                       "--data",
                       data_,
                       "--micro-batch",
                       "2",
                       "--seq-len",
                       "32",
                       "--threads",
                       "1",
                       "--warmup",
                       "1",
                       "--out",
                       out,
                       "--metrics-out",
                       out + "/metrics.jsonl"} +
           extra;
}

void TestStall::rankStoppedBeforeTheAllreduce()
{
    const QString out = dir_.path() + "/before";
    const auto r = testsupport::run(
        "mpirun", trainArgs(out, {"--max-steps", "6", "--stall-warning", "2", "--inject-stall", "1:3:7"}), 120000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto warnings = stallWarnings(out + "/metrics.jsonl");
    QVERIFY2(!warnings.empty(), r.err.constData());
    // The warning that counts: the one naming where the job waits.
    const auto& w = warnings.back();
    const auto& s = w["stall"];
    QCOMPARE(QString::fromStdString(s["case"]), QStringLiteral("before_collective"));
    QCOMPARE(s["step"].get<int>(), 3);
    QCOMPARE(QString::fromStdString(s["phase"]), QStringLiteral("allreduce"));
    QCOMPARE(w["rank"].get<int>(), 1);
    QCOMPARE(s["ranks"].size(), size_t(1));
    QCOMPARE(s["ranks"][0]["rank"].get<int>(), 1);
    QCOMPARE(QString::fromStdString(s["ranks"][0]["phase"]), QStringLiteral("data"));
    QCOMPARE(s["waiting"], nlohmann::json::array({0}));
    QVERIFY(s["waited_s"].get<double>() >= 2.0);
    QVERIFY2(r.err.contains("stall: rank 1"), r.err.constData());
    // No warning named rank 0, the rank that only waited.
    for (const auto& x : warnings)
        QVERIFY2(x["rank"].get<int>() == 1, x.dump().c_str());
    QCOMPARE(QString::fromStdString(testsupport::records(out + "/metrics.jsonl").back()["status"]),
             QStringLiteral("finished"));
}

void TestStall::rankStoppedInsideTheAllreduce()
{
    // The injected stall sits after the rank marked itself as inside the collective: to the inspector that is
    // a collective every rank entered and none finished (what a dead link looks like).
    const QString out = dir_.path() + "/inside";
    const auto r = testsupport::run(
        "mpirun", trainArgs(out, {"--max-steps", "5", "--stall-warning", "2", "--inject-stall", "0:2:6:allreduce"}),
        120000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto warnings = stallWarnings(out + "/metrics.jsonl");
    QVERIFY2(warnings.size() == 1, r.err.constData());
    const auto& s = warnings[0]["stall"];
    QCOMPARE(QString::fromStdString(s["case"]), QStringLiteral("in_collective"));
    QCOMPARE(s["step"].get<int>(), 2);
    QCOMPARE(s["ranks"].size(), size_t(2));
}

void TestStall::silencedRankIsNamed()
{
    const QString out = dir_.path() + "/silenced";
    QProcess mpirun;
    mpirun.setProcessChannelMode(QProcess::MergedChannels);
    mpirun.start("mpirun", trainArgs(out, {"--max-steps", "1000000", "--stall-warning", "2", "--log-every", "1000"}));
    QVERIFY(mpirun.waitForStarted());
    // Rank 1's process, once the job trains.
    std::map<int, pid_t> trainers;
    QElapsedTimer t;
    t.start();
    while (trainers.size() < 2 && t.elapsed() < 60000) {
        QTest::qWait(200);
        if (testsupport::readFile(out + "/metrics.jsonl").contains("\"type\":\"step\""))
            trainers = trainerProcesses(out);
    }
    const pid_t rank1 = trainers.count(1) ? trainers[1] : 0;
    QVERIFY2(rank1 > 0, "rank 1's process was not found");
    QCOMPARE(::kill(rank1, SIGSTOP), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!stallWarnings(out + "/metrics.jsonl").empty(), 30000);
    ::kill(rank1, SIGCONT);
    const auto w = stallWarnings(out + "/metrics.jsonl").front();
    mpirun.terminate(); // mpirun ends its ranks
    if (!mpirun.waitForFinished(15000))
        mpirun.kill();
    mpirun.waitForFinished(5000);
    for (const auto& [rank, pid] : trainerProcesses(out))
        ::kill(pid, SIGKILL);
    QCOMPARE(QString::fromStdString(w["stall"]["case"]), QStringLiteral("no_heartbeat"));
    QCOMPARE(w["rank"].get<int>(), 1);
    QVERIFY2(QString::fromStdString(w["message"]).contains("no word from rank 1"), w.dump().c_str());
}

void TestStall::stallAbortEndsTheJob()
{
    const QString out = dir_.path() + "/abort";
    QElapsedTimer t;
    t.start();
    const auto r = testsupport::run(
        "mpirun",
        trainArgs(out, {"--max-steps", "6", "--stall-warning", "2", "--stall-abort", "4", "--inject-stall", "1:2:600"}),
        120000);
    QVERIFY2(r.finished, "the job hung");
    QVERIFY2(r.exitCode != 0, r.err.constData());
    QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed())));
    const auto all = testsupport::records(out + "/metrics.jsonl");
    bool error = false;
    for (const auto& x : all)
        if (x["type"] == "error") {
            error = true;
            QCOMPARE(x["rank"].get<int>(), 1);
            QVERIFY2(x["message"].get<std::string>().find("aborted after --stall-abort 4 s") != std::string::npos,
                     x.dump().c_str());
        }
    QVERIFY(error);
    QCOMPARE(QString::fromStdString(all.back()["type"]), QStringLiteral("done"));
    QCOMPARE(QString::fromStdString(all.back()["status"]), QStringLiteral("failed"));
}

void TestStall::badInjectStallIsRefused()
{
    for (const QString& bad :
         {QStringLiteral("1:3"), QStringLiteral("1:0:5"), QStringLiteral("x:3:5"), QStringLiteral("1:3:5:comm")}) {
        const auto r = testsupport::run(testsupport::trainerExe(), {"train", "--preset", "qwen2-tiny", "--data", data_,
                                                                    "--max-steps", "1", "--inject-stall", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--inject-stall"), r.err.constData());
    }
    const auto r =
        testsupport::run(testsupport::trainerExe(), {"train", "--preset", "qwen2-tiny", "--data", data_, "--max-steps",
                                                     "1", "--stall-warning", "10", "--stall-abort", "5"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--stall-abort must not be shorter than --stall-warning"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestStall)
#include "tst_stall.moc"
