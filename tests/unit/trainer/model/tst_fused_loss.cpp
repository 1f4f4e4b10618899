// The fused, chunked output layer + cross-entropy (model/fused_loss.h) against the unfused one
// (F::cross_entropy over the whole logits): the loss and its gradients with respect to the hidden states
// and the weight, at shapes with a partial last chunk, a chunk larger than the tokens, ignored labels;
// every label ignored; the model's loss through --fused-loss, tied and untied.
#include "model/fused_loss.h"
#include "model/qwen2.h"
#include "testsupport.h"
#include "train/device.h"
#include "train/options.h"

#include <QTest>
#include <torch/torch.h>

using namespace traindeck::model;
namespace F = torch::nn::functional;

namespace {

// fp32 tolerance: chunking changes only the order of the sums (the loss's sum over tokens, the weight
// gradient's sum over chunks), so differences stay at float rounding of the largest value.
constexpr double kRelativeTolerance = 1e-5;

// max|a - b| relative to max|b|, 0 for two zero tensors.
double relativeDifference(const torch::Tensor& a, const torch::Tensor& b)
{
    const double scale = b.abs().max().item<double>();
    const double diff = (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
    return scale == 0 ? diff : diff / scale;
}

struct LossAndGrads {
    double loss = 0;
    torch::Tensor gradHidden, gradWeight;
};

// The loss times gradScale (as the trainer scales it before backward), and the gradients.
LossAndGrads evaluate(const torch::Tensor& hidden0, const torch::Tensor& weight0, const torch::Tensor& targets,
                      int64_t chunk, bool fused, double gradScale = 2.5)
{
    auto hidden = hidden0.detach().clone().set_requires_grad(true);
    auto weight = weight0.detach().clone().set_requires_grad(true);
    auto loss = fused ? fusedLinearCrossEntropy(hidden, weight, targets, chunk)
                      : F::cross_entropy(torch::matmul(hidden, weight.t()).to(torch::kFloat32), targets,
                                         F::CrossEntropyFuncOptions().ignore_index(kIgnoreIndex));
    (loss * gradScale).backward();
    return {loss.item<double>(), hidden.grad(), weight.grad()};
}

} // namespace

class TestFusedLoss : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void automaticChunk();
    void matchesUnfused_data();
    void matchesUnfused();
    void matchesUnfusedUnderBf16Autocast();
    void everyLabelIgnored();
    void withoutGradientsSameLoss();
    void modelLossThroughFlag_data();
    void modelLossThroughFlag();
    void flagsValidated();
};

void TestFusedLoss::automaticChunk()
{
    QCOMPARE(automaticLossChunk(256), int64_t(256)); // qwen2-small: 508 tokens in chunks of 256 and 252
    QCOMPARE(automaticLossChunk(1536), int64_t(1536));
    QCOMPARE(automaticLossChunk(0), int64_t(1)); // never 0
}

void TestFusedLoss::matchesUnfused_data()
{
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<bool>("someIgnored");
    QTest::addRow("partial last chunk (37 = 4 x 8 + 5)") << 37 << 300 << 24 << 8 << false;
    QTest::addRow("chunk larger than the tokens") << 10 << 300 << 24 << 64 << false;
    QTest::addRow("chunks of one token") << 7 << 50 << 16 << 1 << false;
    QTest::addRow("chunk equal to the tokens") << 16 << 300 << 24 << 16 << false;
    QTest::addRow("ignored labels, one chunk all ignored") << 37 << 300 << 24 << 8 << true;
    // 0: automaticLossChunk(hidden 24) = 24 tokens, so 150 tokens make 6 full chunks and a partial one.
    QTest::addRow("automatic chunk, partial last") << 150 << 4096 << 24 << 0 << true;
}

void TestFusedLoss::matchesUnfused()
{
    QFETCH(int, tokens);
    QFETCH(int, vocab);
    QFETCH(int, hidden);
    QFETCH(int, chunk);
    QFETCH(bool, someIgnored);
    torch::manual_seed(tokens * 1000 + chunk);
    const auto h = torch::randn({tokens, hidden});
    const auto w = torch::randn({vocab, hidden}) * 0.3;
    auto targets = torch::randint(0, vocab, {tokens}, torch::kInt64);
    if (someIgnored) {
        targets.index_put_({torch::randint(0, 4, {tokens}, torch::kInt64) == 0}, kIgnoreIndex);
        targets.narrow(0, 8, 8).fill_(kIgnoreIndex); // the second chunk of 8 entirely
    }
    const auto fused = evaluate(h, w, targets, chunk, true);
    const auto reference = evaluate(h, w, targets, chunk, false);
    QVERIFY(std::isfinite(reference.loss));
    QVERIFY2(std::abs(fused.loss - reference.loss) <= kRelativeTolerance * std::abs(reference.loss),
             qPrintable(QStringLiteral("loss %1 vs %2").arg(fused.loss, 0, 'g', 10).arg(reference.loss, 0, 'g', 10)));
    const double dh = relativeDifference(fused.gradHidden, reference.gradHidden);
    const double dw = relativeDifference(fused.gradWeight, reference.gradWeight);
    qInfo("loss %.3g, grad hidden %.3g, grad weight %.3g (relative)",
          std::abs(fused.loss - reference.loss) / reference.loss, dh, dw);
    QVERIFY2(dh <= kRelativeTolerance, qPrintable(QStringLiteral("grad hidden differs by %1").arg(dh)));
    QVERIFY2(dw <= kRelativeTolerance, qPrintable(QStringLiteral("grad weight differs by %1").arg(dw)));
    if (someIgnored) // an ignored token's hidden state gets no gradient
        QCOMPARE(fused.gradHidden.narrow(0, 8, 8).abs().max().item<double>(), 0.0);
}

// As the trainer's --precision bf16 runs it on a CPU: the logits' matmul in bf16, the loss in fp32. Both
// paths round the same bf16 logits; their gradients' bf16 matmuls differ in the order of the sums, so the
// bound is about 2.5 bf16 rounding steps (2^-8) of the largest gradient.
void TestFusedLoss::matchesUnfusedUnderBf16Autocast()
{
    torch::manual_seed(5);
    const auto h = torch::randn({37, 24});
    const auto w = torch::randn({300, 24}) * 0.3;
    const auto targets = torch::randint(0, 300, {37}, torch::kInt64);
    LossAndGrads fused, reference;
    {
        traindeck::train::AutocastScope autocast(torch::Device(torch::kCPU), "bf16");
        fused = evaluate(h, w, targets, 8, true);
        reference = evaluate(h, w, targets, 8, false);
    }
    QVERIFY2(std::abs(fused.loss - reference.loss) <= 1e-5 * std::abs(reference.loss),
             qPrintable(QStringLiteral("loss %1 vs %2").arg(fused.loss).arg(reference.loss)));
    QCOMPARE(fused.gradWeight.scalar_type(), torch::kFloat32);
    const double dh = relativeDifference(fused.gradHidden, reference.gradHidden);
    const double dw = relativeDifference(fused.gradWeight, reference.gradWeight);
    qInfo("loss %.3g, grad hidden %.3g, grad weight %.3g (relative)",
          std::abs(fused.loss - reference.loss) / reference.loss, dh, dw);
    QVERIFY2(dh <= 1e-2, qPrintable(QStringLiteral("grad hidden differs by %1").arg(dh)));
    QVERIFY2(dw <= 1e-2, qPrintable(QStringLiteral("grad weight differs by %1").arg(dw)));
}

// The documented difference: the unfused mean over no label is 0/0 (NaN); the fused loss is 0 with zero
// gradients, so a batch of padding alone leaves the parameters alone.
void TestFusedLoss::everyLabelIgnored()
{
    torch::manual_seed(2);
    const auto h = torch::randn({12, 16});
    const auto w = torch::randn({100, 16});
    const auto targets = torch::full({12}, kIgnoreIndex, torch::kInt64);
    const auto fused = evaluate(h, w, targets, 5, true);
    QCOMPARE(fused.loss, 0.0);
    QCOMPARE(fused.gradHidden.abs().max().item<double>(), 0.0);
    QCOMPARE(fused.gradWeight.abs().max().item<double>(), 0.0);
    QVERIFY(std::isnan(evaluate(h, w, targets, 5, false).loss));
}

void TestFusedLoss::withoutGradientsSameLoss()
{
    torch::manual_seed(4);
    const auto h = torch::randn({37, 24});
    const auto w = torch::randn({300, 24});
    const auto targets = torch::randint(0, 300, {37}, torch::kInt64);
    const double withGradients =
        fusedLinearCrossEntropy(h.clone().set_requires_grad(true), w, targets, 8).item<double>();
    torch::NoGradGuard noGrad;
    const auto loss = fusedLinearCrossEntropy(h.clone().set_requires_grad(true), w, targets, 8);
    QVERIFY(!loss.requires_grad());
    QCOMPARE(loss.item<double>(), withGradients);
}

void TestFusedLoss::modelLossThroughFlag_data()
{
    QTest::addColumn<bool>("tied");
    QTest::addRow("untied lm_head") << false;
    QTest::addRow("tied to embed_tokens") << true;
}

// The micro model's loss and every parameter's gradient, --fused-loss on (chunks of 7 of the 30 shifted
// positions) against off; a tied head's weight is the embedding, which gets both gradients.
void TestFusedLoss::modelLossThroughFlag()
{
    QFETCH(bool, tied);
    const std::vector<std::string> common = {"--preset", "qwen2-tiny", "--data", "unused.jsonl", "--max-steps", "1"};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), common.begin(), common.end());
        return traindeck::train::parseTrainOptions(extra);
    };
    const auto fusedOptions = with({"--fused-loss", "on", "--loss-chunk", "7"});
    const auto unfusedOptions = with({"--fused-loss", "off"});
    QVERIFY(fusedOptions.fusedLoss && !unfusedOptions.fusedLoss);

    torch::manual_seed(9);
    Qwen2ForCausalLM m(testsupport::microConfig(tied));
    const auto ids = torch::randint(0, 512, {2, 16}, torch::kInt64);
    auto labels = ids.clone();
    labels.narrow(1, 10, 6).select(0, 1).fill_(kIgnoreIndex); // padding at the end of the second sequence
    auto lossAndGrads = [&](const traindeck::train::TrainOptions& o) {
        m->zero_grad();
        auto loss = m->loss(ids, labels, {o.fusedLoss, o.lossChunk});
        loss.backward();
        std::map<std::string, torch::Tensor> grads;
        for (const auto& p : m->named_parameters())
            grads[p.key()] = p.value().grad().clone();
        return std::make_pair(loss.item<double>(), grads);
    };
    const auto [fusedLoss, fusedGrads] = lossAndGrads(fusedOptions);
    const auto [loss, grads] = lossAndGrads(unfusedOptions);
    QVERIFY2(std::abs(fusedLoss - loss) <= kRelativeTolerance * loss,
             qPrintable(QStringLiteral("loss %1 vs %2").arg(fusedLoss).arg(loss)));
    QCOMPARE(fusedGrads.count("lm_head.weight"), size_t(tied ? 0 : 1));
    double worst = 0;
    for (const auto& [name, grad] : grads) {
        const double d = relativeDifference(fusedGrads.at(name), grad);
        worst = std::max(worst, d);
        QVERIFY2(d <= kRelativeTolerance,
                 qPrintable(QStringLiteral("%1 differs by %2").arg(QString::fromStdString(name)).arg(d)));
    }
    qInfo("loss %.3g, worst parameter gradient %.3g (relative)", std::abs(fusedLoss - loss) / loss, worst);
}

void TestFusedLoss::flagsValidated()
{
    const std::vector<std::string> common = {"--preset", "qwen2-tiny", "--data", "unused.jsonl", "--max-steps", "1"};
    auto parse = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), common.begin(), common.end());
        return traindeck::train::parseTrainOptions(extra);
    };
    const auto defaults = parse({});
    QVERIFY(defaults.fusedLoss); // measured no slower and smaller on qwen2-small (docs/reference/trainer.md)
    QCOMPARE(defaults.lossChunk, int64_t(0));
    QCOMPARE(parse({"--loss-chunk", "64"}).lossChunk, int64_t(64));
    auto rejected = [&](std::vector<std::string> extra, const char* flag) {
        try {
            parse(extra);
        } catch (const traindeck::InputError& e) {
            return std::string(e.what()).find(flag) != std::string::npos;
        }
        return false;
    };
    QVERIFY(rejected({"--fused-loss", "yes"}, "--fused-loss"));
    QVERIFY(rejected({"--loss-chunk", "-1"}, "--loss-chunk"));
    QVERIFY(rejected({"--loss-chunk", "many"}, "--loss-chunk"));
}

QTEST_GUILESS_MAIN(TestFusedLoss)
#include "tst_fused_loss.moc"
