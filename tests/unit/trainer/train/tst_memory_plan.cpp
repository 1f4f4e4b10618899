// The memory plan (train/memory_plan.h): its parts against counts made by hand for qwen2-small, and how
// each flag moves them; suggestions that fit. Measured peaks are compared in
// tests/bench/trainer/bench_memory_plan.sh (docs/reference/trainer.md, "Memory plan").
#include "train/memory_plan.h"

#include <QTest>

using namespace traindeck::train;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

MemoryPlanInputs small(int64_t seqLen = 1024, int64_t microBatch = 1)
{
    MemoryPlanInputs in;
    in.config = traindeck::model::Qwen2Config::preset("qwen2-small");
    in.seqLen = seqLen;
    in.microBatch = microBatch;
    return in;
}

} // namespace

class TestMemoryPlan : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void stateOfQwen2Small();
    void layersCountedByHand();
    void fusedLossHoldsAChunkNotTheLogits();
    void recomputationKeepsLayerInputs();
    void zeroShardsTheOptimizer();
    void fusedAttentionKeepsNoScores();
    void suggestionsFit();
};

// 41,849,088 parameters (tied): the embedding 151936 x 256, per layer q 256 x 256 + 256, k and v 256 x 128
// + 128, o 256 x 256, the MLP 3 x 256 x 704, two norms of 256; the final norm. 4 bytes each for the
// weights and the gradients, 8 for AdamW's moments.
void TestMemoryPlan::stateOfQwen2Small()
{
    const auto plan = planMemory(small());
    const double P = 151936.0 * 256 + 4 * (65792 + 2 * 32896 + 65536 + 3 * 256 * 704 + 512) + 256;
    QCOMPARE(small().config.parameterCount(), int64_t(P));
    QCOMPARE(plan.parameters, 4 * P);
    QCOMPARE(plan.gradients, 4 * P);
    QCOMPARE(plan.optimizer, 8 * P);
    QCOMPARE(plan.workspace, 344 * kMiB);
    // The total is the state plus the fullest moment, never less than any part on top of the state.
    const double state = plan.parameters + plan.gradients + plan.optimizer + plan.workspace;
    QVERIFY(plan.total >= state + plan.logits);
    QVERIFY(plan.total >= state + plan.activations);
    QCOMPARE(QString::fromStdString(plan.peakMoment), QStringLiteral("loss forward"));
}

// 1024 tokens, hidden 256, kv width 128, intermediate 704, 4 heads: per layer 12 [T,H] + 4 [T,kv] +
// 4 [T,I] fp32 tensors, the scores [4,T,T] fp32 and the mask [T,T] bytes; 4 layers, the embedding's
// output and the final norm's two; backward's temporaries 1.5 x the scores.
void TestMemoryPlan::layersCountedByHand()
{
    const double T = 1024, bth = T * 256, btk = T * 128, bti = T * 704, scores = 4 * T * T;
    const double layer = 4 * (12 * bth + 4 * btk + 4 * bti) + 4 * scores + T * T;
    const double expected = 3 * 4 * bth + 4 * layer + 1.5 * 4 * scores;
    QCOMPARE(planMemory(small()).activations, expected);
    // Twice the micro-batch, twice the activations but the masks (one [T,T] per layer, whatever the batch).
    const auto two = planMemory(small(1024, 2));
    QCOMPARE(two.activations, 2 * expected - 4 * T * T);
}

// Unfused: the [N, V] fp32 logits, their log-softmax and gradients (3 at the peak of backward). Fused:
// the weight's gradient [V, H] fp32, the hidden states' gradient, and a chunk (hidden-size tokens) of
// logits with logsumexp's temporary; backward scales the stored gradients into copies.
void TestMemoryPlan::fusedLossHoldsAChunkNotTheLogits()
{
    auto in = small(128, 4);
    const double N = 4 * 127, V = 151936, H = 256;
    in.fusedLoss = false;
    QCOMPARE(planMemory(in).logits, 3 * 4 * N * V);
    in.fusedLoss = true;
    QCOMPARE(planMemory(in).logits, 4 * V * H + 4 * N * H + 256 * V * 8);
    in.lossChunk = 64;
    QCOMPARE(planMemory(in).logits, 2 * 4 * V * H + 2 * 4 * N * H); // backward's copies now the larger
    QVERIFY(planMemory(in).total < planMemory(small(128, 4)).total);
}

// Recomputation keeps the layers' inputs and rebuilds one layer at a time: far less at the peak, and
// much less than half at 1024 tokens (bench_activations measured 0.38).
void TestMemoryPlan::recomputationKeepsLayerInputs()
{
    auto in = small();
    const auto off = planMemory(in);
    in.recomputeLayers = true;
    const auto on = planMemory(in);
    QVERIFY2(on.activations < 0.5 * off.activations,
             qPrintable(QStringLiteral("%1 of %2").arg(on.activations).arg(off.activations)));
    QVERIFY(on.total < off.total);
    QCOMPARE(on.parameters, off.parameters);
}

void TestMemoryPlan::zeroShardsTheOptimizer()
{
    auto in = small();
    in.worldSize = 4;
    const auto plain = planMemory(in);
    in.zero = 1;
    const auto sharded = planMemory(in);
    QCOMPARE(sharded.optimizer, plain.optimizer / 4);
    QCOMPARE(plain.total - sharded.total, plain.optimizer * 3 / 4);
}

void TestMemoryPlan::fusedAttentionKeepsNoScores()
{
    auto in = small(2048);
    const auto scores = planMemory(in);
    in.attentionKeepsScores = false;
    in.cuda = true;
    const auto fused = planMemory(in);
    QVERIFY(fused.activations < 0.5 * scores.activations);
    QCOMPARE(fused.workspace, 1024 * kMiB);
    QVERIFY(!fused.assumptions.empty());
}

// The 1.5B at 2048 tokens x 4 on an 80 GiB GPU, bf16, unfused: does not fit; every suggestion does.
void TestMemoryPlan::suggestionsFit()
{
    MemoryPlanInputs in;
    in.config = traindeck::model::Qwen2Config::preset("deepseek-r1-distill-qwen-1.5b");
    in.cuda = true;
    in.precision = "bf16";
    in.seqLen = 2048;
    in.microBatch = 4;
    in.worldSize = 8;
    in.fusedLoss = false;
    const double available = 80 * 1024 * kMiB;
    QVERIFY(planMemory(in).total > available);
    const auto suggestions = suggestToFit(in, available);
    QVERIFY(!suggestions.empty());
    for (const auto& s : suggestions)
        QVERIFY2(s.total <= available, s.flags.c_str());
    // Nothing fits in 1 GiB: the weights alone are 6.6 GiB.
    QVERIFY(suggestToFit(in, 1024 * kMiB).empty());
}

QTEST_GUILESS_MAIN(TestMemoryPlan)
#include "tst_memory_plan.moc"
