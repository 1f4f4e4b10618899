// The Qwen2 model: structure and names, shapes, causality, RoPE against its closed form, that a tiny
// model can overfit a tiny batch, and --recompute layers (the same bits, less memory between forward and
// backward).
#include "model/qwen2.h"
#include "model/recompute.h"
#include "testsupport.h"
#include "train/adamw.h"
#include "train/device.h"

#include <QTest>
#include <torch/torch.h>

#include <cmath>
#include <malloc.h>
#include <map>

using namespace traindeck::model;

class TestQwen2Model : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void parameterNamesAndCount_data();
    void parameterNamesAndCount();
    void distillParameterCount();
    void forwardShapes();
    void tiedHeadSharesEmbedding();
    void causality();
    void ropeMatchesClosedForm();
    void ropeIsRelative();
    void overfitsTinyBatch();
    void fusedAdamWMatchesOpByOp();
    void recomputedLayersChangeNoBit_data();
    void recomputedLayersChangeNoBit();
    void recomputedLayersKeepLessMemory();
    void invalidConfigRejected_data();
    void invalidConfigRejected();
};

void TestQwen2Model::parameterNamesAndCount_data()
{
    QTest::addColumn<QString>("which");
    QTest::addRow("micro untied") << "micro";
    QTest::addRow("micro tied") << "micro-tied";
    QTest::addRow("preset qwen2-tiny") << "qwen2-tiny";
    QTest::addRow("preset qwen2-small") << "qwen2-small";
}

void TestQwen2Model::parameterNamesAndCount()
{
    QFETCH(QString, which);
    Qwen2Config c = which == "micro"        ? testsupport::microConfig(false)
                    : which == "micro-tied" ? testsupport::microConfig(true)
                                            : Qwen2Config::preset(which.toStdString());
    Qwen2ForCausalLM m(c);
    int64_t total = 0;
    std::vector<std::string> names;
    for (const auto& p : m->named_parameters()) {
        total += p.value().numel();
        names.push_back(p.key());
    }
    QCOMPARE(total, c.parameterCount());
    auto expected = expectedParameters(c);
    QCOMPARE(names.size(), expected.size());
    std::sort(names.begin(), names.end());
    std::vector<std::string> expectedNames;
    for (auto& [n, shape] : expected) {
        expectedNames.push_back(n);
        QVERIFY2(m->named_parameters().find(n) != nullptr, n.c_str());
        QCOMPARE(m->named_parameters()[n].sizes().vec(), shape);
    }
    std::sort(expectedNames.begin(), expectedNames.end());
    QCOMPARE(names, expectedNames);
    QVERIFY(m->named_parameters().find("model.layers.0.self_attn.q_proj.bias") != nullptr);
    QVERIFY(m->named_parameters().find("model.layers.0.self_attn.o_proj.bias") == nullptr);
    QCOMPARE(m->named_parameters().find("lm_head.weight") != nullptr, !c.tie_word_embeddings);
}

void TestQwen2Model::distillParameterCount()
{
    const auto c = Qwen2Config::preset("deepseek-r1-distill-qwen-1.5b");
    QCOMPARE(c.parameterCount(), int64_t(1777088000));
    QCOMPARE(c.hidden_size, int64_t(1536));
    QCOMPARE(c.num_hidden_layers, int64_t(28));
    QCOMPARE(c.num_key_value_heads, int64_t(2));
    QCOMPARE(c.vocab_size, int64_t(151936));
    QVERIFY(!c.tie_word_embeddings);
}

void TestQwen2Model::forwardShapes()
{
    torch::manual_seed(1);
    Qwen2ForCausalLM m(testsupport::microConfig());
    auto ids = torch::randint(0, 512, {3, 17}, torch::kInt64);
    auto logits = m->forward(ids);
    QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{3, 17, 512}));
    QCOMPARE(logits.scalar_type(), torch::kFloat32);
    QVERIFY(torch::isfinite(logits).all().item<bool>());
    auto loss = causalLmLoss(logits, ids);
    QCOMPARE(loss.dim(), int64_t(0));
    // An untrained model is close to uniform: loss near ln(vocab).
    QVERIFY(std::abs(loss.item<double>() - std::log(512.0)) < 0.5);
    // The training path (lm_head on positions 0..T-2 only) computes the same loss.
    QVERIFY(std::abs(m->loss(ids, ids).item<double>() - loss.item<double>()) < 1e-5);
}

void TestQwen2Model::tiedHeadSharesEmbedding()
{
    Qwen2ForCausalLM m(testsupport::microConfig(true));
    QVERIFY(m->lmHeadWeight().is_same(m->model->embed_tokens->weight));
}

void TestQwen2Model::causality()
{
    torch::manual_seed(2);
    Qwen2ForCausalLM m(testsupport::microConfig());
    torch::NoGradGuard ng;
    auto ids = torch::randint(0, 512, {2, 24}, torch::kInt64);
    auto base = m->forward(ids);
    for (int64_t t : {0, 5, 23}) {
        auto changed = ids.clone();
        changed.index_put_({torch::indexing::Slice(), t}, (ids.index({torch::indexing::Slice(), t}) + 7) % 512);
        auto out = m->forward(changed);
        if (t > 0)
            QVERIFY(torch::allclose(out.narrow(1, 0, t), base.narrow(1, 0, t), 0, 1e-6));
        // The changed position itself (and what follows) must see the change.
        QVERIFY(!torch::allclose(out.narrow(1, t, 1), base.narrow(1, t, 1), 0, 1e-6));
    }
}

void TestQwen2Model::ropeMatchesClosedForm()
{
    const int64_t T = 9, D = 8;
    const double theta = 10000.0;
    auto x = torch::randn({1, 2, T, D}, torch::kFloat64);
    auto rope = ropeTables(T, D, theta, torch::kCPU);
    auto y = applyRope(x, {rope.cos.to(torch::kFloat64), rope.sin.to(torch::kFloat64)});
    auto xa = x.accessor<double, 4>();
    auto ya = y.accessor<double, 4>();
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t p = 0; p < T; ++p)
            for (int64_t i = 0; i < D / 2; ++i) {
                const double angle = p * std::pow(theta, -2.0 * i / D);
                const double a = xa[0][h][p][i], b = xa[0][h][p][i + D / 2];
                QVERIFY(std::abs(ya[0][h][p][i] - (a * std::cos(angle) - b * std::sin(angle))) < 1e-5);
                QVERIFY(std::abs(ya[0][h][p][i + D / 2] - (b * std::cos(angle) + a * std::sin(angle))) < 1e-5);
            }
}

void TestQwen2Model::ropeIsRelative()
{
    // <R(m) q, R(n) k> depends only on m - n.
    const int64_t T = 40, D = 16;
    auto rope = ropeTables(T, D, 10000.0, torch::kCPU);
    auto q = torch::randn({D}), k = torch::randn({D});
    auto rotated = [&](const torch::Tensor& v, int64_t pos) {
        auto x = v.expand({1, 1, T, D}).contiguous();
        return applyRope(x, rope)[0][0][pos];
    };
    const double d1 = torch::dot(rotated(q, 10), rotated(k, 3)).item<double>();
    const double d2 = torch::dot(rotated(q, 37), rotated(k, 30)).item<double>();
    QVERIFY(std::abs(d1 - d2) < 1e-4);
}

void TestQwen2Model::overfitsTinyBatch()
{
    torch::manual_seed(3);
    Qwen2ForCausalLM m(testsupport::microConfig());
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& p : m->named_parameters())
        named.emplace_back(p.key(), p.value());
    traindeck::train::AdamW opt(named);
    auto ids = torch::randint(0, 512, {2, 16}, torch::kInt64);
    double first = 0, last = 0;
    for (int step = 0; step < 150; ++step) {
        auto loss = causalLmLoss(m->forward(ids), ids);
        if (step == 0)
            first = loss.item<double>();
        last = loss.item<double>();
        loss.backward();
        opt.step(1e-2, 0.0);
        opt.zeroGrad();
    }
    qInfo("loss %.4f -> %.4f", first, last);
    QVERIFY2(last < 0.1 * first, qPrintable(QStringLiteral("loss fell only from %1 to %2").arg(first).arg(last)));
}

// The fused single-pass CPU update computes what the op-by-op update (the path CUDA tensors take) computes:
// same parameters and optimizer state after several steps with weight decay, to float rounding.
void TestQwen2Model::fusedAdamWMatchesOpByOp()
{
    torch::manual_seed(11);
    const std::vector<std::vector<int64_t>> shapes = {{300, 70}, {70}, {100003}}; // odd sizes: vector tails
    std::vector<std::pair<std::string, torch::Tensor>> a, b;
    std::vector<torch::Tensor> initial;
    for (size_t i = 0; i < shapes.size(); ++i) {
        auto p = torch::randn(shapes[i]);
        initial.push_back(p.clone());
        a.emplace_back("p" + std::to_string(i), p.clone().set_requires_grad(true));
        b.emplace_back("p" + std::to_string(i), p.clone().set_requires_grad(true));
    }
    traindeck::train::AdamW fused(a), reference(b);
    reference.setFused(false);
    for (int step = 0; step < 6; ++step) {
        for (size_t i = 0; i < shapes.size(); ++i) {
            auto g = torch::randn(shapes[i]) * (step + 1);
            a[i].second.mutable_grad() = g.clone();
            b[i].second.mutable_grad() = g.clone();
        }
        fused.step(1e-2, 0.1);
        reference.step(1e-2, 0.1);
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
        const auto& fa = fused.params()[i];
        const auto& rb = reference.params()[i];
        for (auto [x, y] :
             {std::pair{fa.param, rb.param}, std::pair{fa.expAvg, rb.expAvg}, std::pair{fa.expAvgSq, rb.expAvgSq}}) {
            const double diff = (x - y).abs().max().item<double>() / std::max(1e-12, y.abs().max().item<double>());
            QVERIFY2(diff < 1e-6,
                     qPrintable(
                         QStringLiteral("%1: relative difference %2").arg(QString::fromStdString(fa.name)).arg(diff)));
        }
        // The update really moved the parameters (a kernel that did nothing would fail here).
        QVERIFY((fa.param - initial[i]).abs().max().item<double>() > 1e-3);
    }
}

void TestQwen2Model::invalidConfigRejected_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::addRow("missing hidden_size")
        << R"({"vocab_size":10,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":1})"
        << "hidden_size";
    QTest::addRow("heads do not divide")
        << R"({"vocab_size":10,"hidden_size":10,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":3})"
        << "divisible";
    QTest::addRow("kv heads do not divide")
        << R"({"vocab_size":10,"hidden_size":12,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":6,"num_key_value_heads":4})"
        << "multiple";
    QTest::addRow("wrong type")
        << R"({"vocab_size":"many","hidden_size":8,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":2})"
        << "vocab_size";
    QTest::addRow("fraction for an integer")
        << R"({"vocab_size":10,"hidden_size":8.5,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":2})"
        << "\"hidden_size\" must be an integer within range, got 8.5";
    QTest::addRow("integer beyond range") // found by tests/fuzz/fuzz_model_config
        << R"({"vocab_size":10,"hidden_size":8.2e60,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":2})"
        << "\"hidden_size\" must be an integer within range";
    QTest::addRow("negative")
        << R"({"vocab_size":10,"hidden_size":8,"intermediate_size":-4,"num_hidden_layers":1,"num_attention_heads":2})"
        << "intermediate_size";
    QTest::addRow("other model type")
        << R"({"model_type":"llama","vocab_size":10,"hidden_size":8,"intermediate_size":4,"num_hidden_layers":1,"num_attention_heads":2})"
        << "qwen2";
}

void TestQwen2Model::invalidConfigRejected()
{
    QFETCH(QString, json);
    QFETCH(QString, message);
    try {
        Qwen2Config::fromJson(nlohmann::ordered_json::parse(json.toStdString()), "cfg.json");
        QFAIL("accepted an invalid config");
    } catch (const traindeck::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).startsWith("cfg.json"), e.what());
    }
}

void TestQwen2Model::recomputedLayersChangeNoBit_data()
{
    QTest::addColumn<bool>("tied");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<bool>("fusedLoss");
    QTest::addRow("fp32, untied, fused loss") << false << "fp32" << true;
    QTest::addRow("fp32, tied, unfused loss") << true << "fp32" << false;
    // Autocast is thread-local and backward runs on the engine's thread: the recomputation replays it.
    QTest::addRow("bf16 autocast, untied, fused loss") << false << "bf16" << true;
}

// The same operations on the same values: the loss and every parameter's gradient are bit for bit the
// same with each decoder layer's activations recomputed in backward (on the CPU, where kernels are
// deterministic). And the layers really were recomputed: their outputs hang on the recomputation's node.
void TestQwen2Model::recomputedLayersChangeNoBit()
{
    QFETCH(bool, tied);
    QFETCH(QString, precision);
    QFETCH(bool, fusedLoss);
    torch::manual_seed(21);
    Qwen2ForCausalLM m(testsupport::microConfig(tied));
    const auto ids = torch::randint(0, 512, {2, 24}, torch::kInt64);
    auto labels = ids.clone();
    labels.narrow(1, 18, 6).select(0, 0).fill_(-100);
    auto lossAndGrads = [&](bool recompute) {
        m->zero_grad();
        m->model->setRecomputeLayers(recompute);
        torch::Tensor loss;
        {
            traindeck::train::AutocastScope autocast(torch::kCPU, precision.toStdString());
            loss = m->loss(ids, labels, {fusedLoss, 5});
        }
        (loss * 3.0).backward();
        std::map<std::string, torch::Tensor> grads;
        for (const auto& p : m->named_parameters())
            grads[p.key()] = p.value().grad().clone();
        return std::make_pair(loss.item<double>(), grads);
    };
    const auto [plainLoss, plainGrads] = lossAndGrads(false);
    const auto [loss, grads] = lossAndGrads(true);
    QCOMPARE(loss, plainLoss);
    QCOMPARE(grads.size(), plainGrads.size());
    for (const auto& [name, grad] : grads) {
        QVERIFY2(grad.defined() && grad.abs().sum().item<double>() > 0, name.c_str()); // every layer got its share
        QVERIFY2(torch::equal(grad, plainGrads.at(name)), name.c_str());
    }

    const auto hidden = m->model->embed_tokens->forward(ids).detach().requires_grad_(true);
    const auto rope = ropeTables(24, m->config().headDim(), m->config().rope_theta, torch::kCPU);
    auto* layer = m->model->layers->ptr(0)->as<Qwen2DecoderLayer>();
    const auto recomputed = recomputedLayer(*layer, hidden, rope);
    QVERIFY(recomputed.grad_fn());
    QVERIFY2(recomputed.grad_fn()->name().find("RecomputedLayerFunction") != std::string::npos,
             recomputed.grad_fn()->name().c_str());
    QVERIFY(torch::equal(recomputed, layer->forward(hidden, rope)));
}

// Between forward and backward only each layer's input stays alive with --recompute layers: the bytes the
// autograd graph holds (glibc's count of live heap and mmapped blocks after the forward, less before it)
// fall to under a quarter of what the same forward keeps without it.
void TestQwen2Model::recomputedLayersKeepLessMemory()
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("the sanitizer's allocator replaces glibc's, whose counts (mallinfo2) this reads stay at zero");
#endif
    nlohmann::ordered_json j = {{"model_type", "qwen2"},       {"vocab_size", 256},       {"hidden_size", 64},
                                {"intermediate_size", 256},    {"num_hidden_layers", 4},  {"num_attention_heads", 4},
                                {"num_key_value_heads", 2},    {"rope_theta", 10000.0},   {"rms_norm_eps", 1e-6},
                                {"tie_word_embeddings", true}, {"torch_dtype", "float32"}};
    torch::manual_seed(5);
    Qwen2ForCausalLM m(Qwen2Config::fromJson(j, "memory"));
    const auto ids = torch::randint(0, 256, {2, 256}, torch::kInt64);
    auto liveBytes = [] {
        const auto info = mallinfo2();
        return static_cast<double>(info.uordblks + info.hblkhd);
    };
    auto heldByTheGraph = [&](bool recompute) {
        m->zero_grad();
        m->model->setRecomputeLayers(recompute);
        const double before = liveBytes();
        auto loss = m->loss(ids, ids, {true, 64});
        const double held = liveBytes() - before;
        loss.backward(); // and the graph is freed
        return held;
    };
    heldByTheGraph(false); // the gradients' own buffers exist from here on, in both measurements
    const double plain = heldByTheGraph(false);
    const double recomputed = heldByTheGraph(true);
    qInfo("held between forward and backward: %.2f MiB plain, %.2f MiB recomputed", plain / 1048576,
          recomputed / 1048576);
    QVERIFY2(plain > 4 * 1048576, qPrintable(QString::number(plain)));
    QVERIFY2(recomputed < 0.25 * plain, qPrintable(QStringLiteral("%1 of %2").arg(recomputed).arg(plain)));
}

QTEST_GUILESS_MAIN(TestQwen2Model)
#include "tst_qwen2_model.moc"
