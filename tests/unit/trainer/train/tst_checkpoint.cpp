// Checkpoint saving when things go wrong: leftovers of interrupted saves are cleaned up, re-saving the
// step `latest` names replaces it without a moment where it is missing, pruning never removes what
// `latest` names, and failed fsync/close/rename calls fail the save with an error naming the path.
#include "model/hf_checkpoint.h"
#include "testsupport.h"
#include "train/checkpoint.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace traindeck;
using traindeck::util::FileOp;

namespace {

struct Setup {
    model::Qwen2ForCausalLM net{testsupport::microConfig()};
    std::unique_ptr<train::AdamW> optimizer;
    Setup()
    {
        std::vector<std::pair<std::string, torch::Tensor>> named;
        for (const auto& item : net->named_parameters())
            named.emplace_back(item.key(), item.value());
        optimizer = std::make_unique<train::AdamW>(named);
    }
    // Every parameter set to `value`, so a checkpoint's content tells which save wrote it.
    void fill(float value)
    {
        torch::NoGradGuard noGrad;
        for (auto& p : net->parameters())
            p.fill_(value);
    }
    train::CheckpointResult save(const std::string& out, int64_t step, int64_t keep = 3)
    {
        return train::saveCheckpoint(out, step, net, *optimizer, nlohmann::json{{"step", step}}, {}, keep);
    }
};

// The value every parameter of the checkpoint directory holds (see Setup::fill).
float savedValue(const std::string& dir)
{
    auto net = model::loadPretrained(dir);
    return net->parameters().front().flatten()[0].item<float>();
}

QStringList entries(const std::string& dir)
{
    QStringList out;
    for (const auto& e : fs::directory_iterator(dir))
        out << QString::fromStdString(e.path().filename().string());
    out.sort();
    return out;
}

// Installs a fault hook for the scope.
struct FaultHook {
    explicit FaultHook(std::function<int(FileOp, const std::string&)> hook)
    {
        util::setFileFaultHookForTesting(std::move(hook));
    }
    ~FaultHook() { util::setFileFaultHookForTesting({}); }
};

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void staleTemporaryDirectoriesRemoved();
    void failedSyncFailsTheSave_data();
    void failedSyncFailsTheSave();
    void resaveLatestReplacesIt();
    void resaveLatestFailureKeepsTheOld();
    void interruptedReplaceIsRepaired();
    void pruneNeverRemovesLatest();
};

void TestCheckpoint::staleTemporaryDirectoriesRemoved()
{
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    const fs::path root = fs::path(out) / "checkpoints";
    for (const char* stale : {".tmp-step-00000003-4242", ".tmp-step-00000001-77"}) {
        fs::create_directories(root / stale);
        testsupport::writeFile(QString::fromStdString((root / stale / "model.safetensors").string()), "partial");
    }
    Setup s;
    s.save(out, 1);
    QCOMPARE(entries(root.string()), (QStringList{"latest", "step-00000001"}));
}

void TestCheckpoint::failedSyncFailsTheSave_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<QString>("name"); // how the name of the file or directory the failing call is made on starts
    QTest::addColumn<QString>("message");

    QTest::addRow("fsync of model.safetensors") << int(FileOp::Fsync) << "model.safetensors.tmp."
                                                << "fsync failed: Input/output error";
    QTest::addRow("close of optimizer.safetensors") << int(FileOp::Close) << "optimizer.safetensors.tmp."
                                                    << "close failed: Input/output error";
    QTest::addRow("fsync of the checkpoint directory") << int(FileOp::Fsync) << ".tmp-step-"
                                                       << "fsync of the directory failed: Input/output error";
    QTest::addRow("close of the checkpoint directory") << int(FileOp::Close) << ".tmp-step-"
                                                       << "close of the directory failed: Input/output error";
    QTest::addRow("fsync of checkpoints/") << int(FileOp::Fsync) << "checkpoints"
                                           << "fsync of the directory failed: Input/output error";
}

void TestCheckpoint::failedSyncFailsTheSave()
{
    QFETCH(int, op);
    QFETCH(QString, name);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    Setup s;
    std::string failedOn;
    try {
        FaultHook hook([&](FileOp o, const std::string& path) {
            if (int(o) != op || !failedOn.empty() ||
                fs::path(path).filename().string().rfind(name.toStdString(), 0) != 0)
                return 0;
            failedOn = path;
            return EIO;
        });
        s.save(out, 7);
        QFAIL("the save succeeded although a sync call failed");
    } catch (const RuntimeFailure& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(!failedOn.empty(), e.what());
        QVERIFY2(m.contains(QString::fromStdString(failedOn)), e.what());
        QVERIFY2(m.contains(message), e.what());
        QVERIFY2(m.startsWith(QStringLiteral("checkpoint ") + dir.path() + "/checkpoints/step-00000007 was not saved"),
                 e.what());
    }
    // Nothing half-written is left, and nothing names a checkpoint that is not there.
    const QStringList left = entries(out + "/checkpoints");
    QVERIFY2(left.filter(QStringLiteral(".tmp")).isEmpty(), qPrintable(left.join(' ')));
    if (left.contains(QStringLiteral("latest")))
        QVERIFY(fs::exists(train::resolveCheckpoint(out, "latest")));
}

void TestCheckpoint::resaveLatestReplacesIt()
{
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    Setup s;
    s.fill(0.25f);
    s.save(out, 2);
    s.fill(0.5f);
    s.save(out, 2); // a resumed run saves the same step again
    const std::string latest = train::resolveCheckpoint(out, "latest");
    QCOMPARE(savedValue(latest), 0.5f);
    QCOMPARE(entries(out + "/checkpoints"), (QStringList{"latest", "step-00000002"}));
}

// The new directory cannot be moved in: the checkpoint `latest` names stays whole and unchanged.
void TestCheckpoint::resaveLatestFailureKeepsTheOld()
{
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    Setup s;
    s.fill(0.25f);
    s.save(out, 2);
    s.fill(0.5f);
    const std::string final = out + "/checkpoints/step-00000002";
    {
        FaultHook hook(
            [&](FileOp o, const std::string& path) { return o == FileOp::Rename && path == final ? EIO : 0; });
        QVERIFY_THROWS_EXCEPTION(RuntimeFailure, s.save(out, 2));
    }
    const std::string latest = train::resolveCheckpoint(out, "latest");
    QCOMPARE(QString::fromStdString(latest), QString::fromStdString(final));
    QCOMPARE(savedValue(latest), 0.25f);
    QCOMPARE(entries(out + "/checkpoints"), (QStringList{"latest", "step-00000002"}));
}

// A crash between "old aside" and "new in" (file systems without an atomic exchange) left the step
// directory missing and the old one aside: the next save puts it back before anything else.
void TestCheckpoint::interruptedReplaceIsRepaired()
{
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    Setup s;
    s.fill(0.25f);
    s.save(out, 2);
    const fs::path root = fs::path(out) / "checkpoints";
    fs::rename(root / "step-00000002", root / ".step-00000002.old-999");
    s.fill(0.5f);
    s.save(out, 3, 5);
    QCOMPARE(entries(root.string()), (QStringList{"latest", "step-00000002", "step-00000003"}));
    QCOMPARE(savedValue((root / "step-00000002").string()), 0.25f);
}

// After a resume from step 5 while step 10 exists, the save of step 6 is `latest`: with --keep 1 it
// must survive the pruning although step 10 sorts after it.
void TestCheckpoint::pruneNeverRemovesLatest()
{
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    Setup s;
    s.save(out, 5, 2);
    s.save(out, 10, 2);
    s.fill(0.75f);
    const auto r = s.save(out, 6, 1);
    QCOMPARE(QString::fromStdString(r.path), QStringLiteral("checkpoints/step-00000006"));
    const std::string latest = train::resolveCheckpoint(out, "latest");
    QCOMPARE(QString::fromStdString(fs::path(latest).filename().string()), QStringLiteral("step-00000006"));
    QCOMPARE(savedValue(latest), 0.75f);
    QVERIFY(!fs::exists(fs::path(out) / "checkpoints" / "step-00000005"));
}

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
