// GGUF writer/reader round trip, tensor-name mapping and the vocabulary built from Qwen's tokenizer.json.
#include "export/gguf_vocab.h"
#include "export/gguf_writer.h"
#include "export/tensor_names.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <fstream>

using namespace traindeck::exporter;

namespace {

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestGgufWriter : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void tensorNames_data()
    {
        QTest::addColumn<QString>("hf");
        QTest::addColumn<QString>("gguf");
        QTest::addRow("embed") << "model.embed_tokens.weight"
                               << "token_embd.weight";
        QTest::addRow("norm") << "model.norm.weight"
                              << "output_norm.weight";
        QTest::addRow("lm_head") << "lm_head.weight"
                                 << "output.weight";
        QTest::addRow("q") << "model.layers.0.self_attn.q_proj.weight"
                           << "blk.0.attn_q.weight";
        QTest::addRow("q bias") << "model.layers.0.self_attn.q_proj.bias"
                                << "blk.0.attn_q.bias";
        QTest::addRow("k") << "model.layers.11.self_attn.k_proj.weight"
                           << "blk.11.attn_k.weight";
        QTest::addRow("k bias") << "model.layers.11.self_attn.k_proj.bias"
                                << "blk.11.attn_k.bias";
        QTest::addRow("v") << "model.layers.27.self_attn.v_proj.weight"
                           << "blk.27.attn_v.weight";
        QTest::addRow("v bias") << "model.layers.27.self_attn.v_proj.bias"
                                << "blk.27.attn_v.bias";
        QTest::addRow("o") << "model.layers.3.self_attn.o_proj.weight"
                           << "blk.3.attn_output.weight";
        QTest::addRow("gate") << "model.layers.3.mlp.gate_proj.weight"
                              << "blk.3.ffn_gate.weight";
        QTest::addRow("up") << "model.layers.3.mlp.up_proj.weight"
                            << "blk.3.ffn_up.weight";
        QTest::addRow("down") << "model.layers.3.mlp.down_proj.weight"
                              << "blk.3.ffn_down.weight";
        QTest::addRow("attn norm") << "model.layers.3.input_layernorm.weight"
                                   << "blk.3.attn_norm.weight";
        QTest::addRow("ffn norm") << "model.layers.3.post_attention_layernorm.weight"
                                  << "blk.3.ffn_norm.weight";
        QTest::addRow("o bias (not qwen2)") << "model.layers.3.self_attn.o_proj.bias"
                                            << "";
        QTest::addRow("rotary buffer") << "model.layers.3.self_attn.rotary_emb.inv_freq"
                                       << "";
        QTest::addRow("no layer number") << "model.layers.x.mlp.up_proj.weight"
                                         << "";
        QTest::addRow("leading zero") << "model.layers.03.mlp.up_proj.weight"
                                      << "";
        QTest::addRow("other") << "transformer.wte.weight"
                               << "";
    }
    void tensorNames()
    {
        QFETCH(QString, hf);
        QFETCH(QString, gguf);
        const auto got = ggufTensorName(hf.toStdString());
        QCOMPARE(QString::fromStdString(got.value_or("")), gguf);
    }

    void roundTrip()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.gguf").toStdString();
        std::ofstream out(path, std::ios::binary);
        GgufWriter w([&out](const void* d, size_t n) {
            out.write(static_cast<const char*>(d), static_cast<std::streamsize>(n));
        });
        w.addString("general.architecture", "qwen2");
        w.addUint32("a.u32", 4096);
        w.addInt32("a.i32", -7);
        w.addUint64("a.u64", uint64_t(1) << 40);
        w.addFloat32("a.f32", 1e-6f);
        w.addBool("a.bool", true);
        w.addStringArray("a.strings", {"", "Ġthe", "中文", "<|im_end|>"});
        w.addInt32Array("a.ints", {1, 3, 4, 5});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, w.addUint32("a.u32", 1));
        // Sizes that are not multiples of the alignment, to exercise the padding.
        const size_t t0 = w.addTensor("f32.odd", {3, 5}, GgmlType::F32);    // 60 bytes
        const size_t t1 = w.addTensor("f16.odd", {7}, GgmlType::F16);       // 14 bytes
        const size_t t2 = w.addTensor("bf16.mat", {16, 2}, GgmlType::BF16); // 64 bytes
        QCOMPARE(w.tensorBytes(t0), uint64_t(60));
        QCOMPARE(w.tensorBytes(t1), uint64_t(14));
        QCOMPARE(w.tensorBytes(t2), uint64_t(64));
        w.writeHeader();
        QCOMPARE(w.headerBytes() % 32, uint64_t(0));
        std::vector<float> a(15);
        for (size_t i = 0; i < a.size(); ++i)
            a[i] = float(i) + 0.5f;
        w.writeTensorData(a.data(), 20); // in two pieces
        w.writeTensorData(reinterpret_cast<const char*>(a.data()) + 20, 40);
        std::vector<uint16_t> b(7, 0x3c00), c(32, 0x3f80);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, w.writeTensorData(b.data(), 16)); // more than 14 bytes
        w.writeTensorData(b.data(), 14);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, w.finish()); // bf16.mat missing
        w.writeTensorData(c.data(), 64);
        w.finish();
        out.close();

        const auto info = GgufInfo::read(path);
        QCOMPARE(info.version, 3u);
        QCOMPARE(info.fileSize, w.totalBytes());
        QCOMPARE(info.dataOffset, w.headerBytes());
        QCOMPARE(info.keyOrder.front(), std::string("general.architecture"));
        QCOMPARE(std::get<std::string>(info.metadata.at("general.architecture")), std::string("qwen2"));
        QCOMPARE(std::get<uint64_t>(info.metadata.at("a.u32")), uint64_t(4096));
        QVERIFY(info.metadataTypes.at("a.u32") == GgufValueType::Uint32);
        QCOMPARE(std::get<int64_t>(info.metadata.at("a.i32")), int64_t(-7));
        QCOMPARE(std::get<uint64_t>(info.metadata.at("a.u64")), uint64_t(1) << 40);
        QCOMPARE(std::get<double>(info.metadata.at("a.f32")), double(1e-6f));
        QCOMPARE(std::get<bool>(info.metadata.at("a.bool")), true);
        const auto strings = std::get<std::vector<std::string>>(info.metadata.at("a.strings"));
        QCOMPARE(strings.size(), size_t(4));
        QCOMPARE(strings[2], std::string("中文"));
        QCOMPARE(std::get<std::vector<int64_t>>(info.metadata.at("a.ints")), (std::vector<int64_t>{1, 3, 4, 5}));
        QVERIFY(info.metadataTypes.at("a.ints") == GgufValueType::Int32);
        QCOMPARE(info.tensors.size(), size_t(3));
        QCOMPARE(info.tensors[0].ne, (std::vector<uint64_t>{3, 5}));
        QCOMPARE(info.tensors[0].offset, uint64_t(0));
        QCOMPARE(info.tensors[1].offset, uint64_t(64));
        QCOMPARE(info.tensors[2].offset, uint64_t(96));
        QCOMPARE(info.tensors[2].type, 30u);
        const std::string bytes = fileBytes(path);
        QCOMPARE(std::memcmp(bytes.data() + info.dataOffset, a.data(), 60), 0);
        QCOMPARE(std::memcmp(bytes.data() + info.dataOffset + 64, b.data(), 14), 0);
        QCOMPARE(std::memcmp(bytes.data() + info.dataOffset + 96, c.data(), 64), 0);
        QCOMPARE(bytes.substr(0, 4), std::string("GGUF"));

        // A truncated copy is refused.
        const std::string cut = dir.filePath("cut.gguf").toStdString();
        std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 40));
        QVERIFY_THROWS_EXCEPTION(traindeck::InputError, GgufInfo::read(cut));
        std::ofstream(cut, std::ios::binary).write("GGUF\x02\0\0\0", 8);
        QVERIFY_THROWS_EXCEPTION(traindeck::InputError, GgufInfo::read(cut));
    }

    void qwenVocabulary()
    {
        const std::string tok = testsupport::qwenTokenizerJson().toStdString();
        if (!QFile::exists(QString::fromStdString(tok)))
            QFAIL(qPrintable("Qwen's tokenizer.json is missing (" + QString::fromStdString(tok) +
                             "); run scripts/setup-deps.sh"));
        const auto v = loadGgufVocab(tok, 151936, 151643, 151643);
        QCOMPARE(v.tokens.size(), size_t(151936));
        QCOMPARE(v.types.size(), size_t(151936));
        QCOMPARE(v.tokenizerSize, 151669);
        QCOMPARE(v.padded, 151936 - 151669);
        QCOMPARE(v.merges.size(), size_t(151387));
        QCOMPARE(v.merges.front(), std::string("Ġ Ġ"));
        QCOMPARE(v.tokens[0], std::string("!"));
        QCOMPARE(v.tokens[151643], std::string("<|endoftext|>"));
        QCOMPARE(v.tokens[151935], std::string("[PAD151935]"));
        QCOMPARE(v.types[0], int32_t(TokenType::Normal));
        QCOMPARE(v.types[151643], int32_t(TokenType::Control));
        QCOMPARE(v.types[151659], int32_t(TokenType::Control));     // <|fim_prefix|>: not special, looks it
        QCOMPARE(v.types[151667], int32_t(TokenType::UserDefined)); // <think>
        QCOMPARE(v.types[151700], int32_t(TokenType::Unused));
        QCOMPARE(v.eos.value_or(-1), 151645); // tokenizer_config.json: <|im_end|>
        QCOMPARE(v.pad.value_or(-1), 151643);
        QCOMPARE(v.bos.value_or(-1), 151643); // from config.json (the tokenizer has none)
        QVERIFY(!v.addBos);
        QVERIFY(!v.chatTemplate.empty());
        // A vocabulary smaller than the tokenizer is a mismatch.
        QVERIFY_THROWS_EXCEPTION(traindeck::InputError, loadGgufVocab(tok, 151000, -1, -1));
    }
};

QTEST_GUILESS_MAIN(TestGgufWriter)
#include "tst_gguf_writer.moc"
