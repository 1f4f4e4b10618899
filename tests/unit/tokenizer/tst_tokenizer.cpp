// The Qwen2 tokenizer against references no one here wrote: @lenml/tokenizers (transformers.js) and
// tiktoken (WASM) loaded with Qwen's ranks, both run under node at test time on a generated corpus.
#include <QTest>

#include <QTemporaryDir>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "reference_runner.h"
#include "test_corpus.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/unicode_text.h"

using namespace traindeck::tok;
namespace T = traindeck::tok::testing;

namespace {

std::string printable(const std::string& s, size_t max = 60)
{
    std::string out;
    for (unsigned char c : s.substr(0, max)) {
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20)
            out += "\\x" + std::to_string(c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

std::string idsText(const std::vector<int32_t>& v, size_t from, size_t n)
{
    std::string s;
    for (size_t i = from; i < std::min(v.size(), from + n); ++i)
        s += std::to_string(v[i]) + " ";
    return s;
}

// Empty when equal; otherwise where and how the ids differ.
std::string difference(const std::vector<int32_t>& ours, const std::vector<int32_t>& ref, const std::string& doc,
                       const std::string& what)
{
    if (ours == ref)
        return {};
    size_t k = 0;
    while (k < ours.size() && k < ref.size() && ours[k] == ref[k])
        ++k;
    const size_t from = k > 3 ? k - 3 : 0;
    return what + ": ids differ at index " + std::to_string(k) + " (ours " + std::to_string(ours.size()) +
           " ids, reference " + std::to_string(ref.size()) + "): ours [" + idsText(ours, from, 8) + "] reference [" +
           idsText(ref, from, 8) + "] in \"" + printable(doc) + "\"";
}

std::vector<std::string_view> views(const std::vector<std::string>& docs)
{
    return std::vector<std::string_view>(docs.begin(), docs.end());
}

int32_t idOfByte(const BpeTokenizer& t, unsigned char b)
{
    for (int32_t id = 0; id < t.vocabSize(); ++id)
        if (t.tokenBytes(id) == std::string_view(reinterpret_cast<const char*>(&b), 1))
            return id;
    return -1;
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::unique_ptr<BpeTokenizer> qwen_, distill_, distillNoConfig_;
    std::vector<std::string> corpus_, edge_, addedTexts_, distillTexts_, lossyInputs_, tinyTexts_;
    std::vector<T::RefResult> ref_;
    enum Job { CorpusJob, EdgeJob, AddedJob, DistillJob, DistillSpecialJob, LossyJob, TinyJob };

    std::string dir(const std::string& name) const { return tmp_.path().toStdString() + "/" + name; }

  private Q_SLOTS:
    void initTestCase();
    void qwenVocabularyAndSpecialIds();
    void splitPieces_data();
    void splitPieces();
    void edgeCasesMatchReferences();
    void corpusMatchesReferences();
    void decodeOfEncodeIsNfc();
    void addedTokensInTextMatchReference();
    void mergesAsStringsOrPairsGiveSameIds();
    void distillVariant();
    void tinyFixtureStripsAroundAddedTokens();
    void distillWithoutConfigFallsBack();
    void invalidUtf8IsRejectedWithOffset_data();
    void invalidUtf8IsRejectedWithOffset();
    void invalidUtf8InBatchNamesDocument();
    void replacementMatchesTextDecoder();
    void batchProgressAndChunking();
    void loadErrorsNameFileAndFault_data();
    void loadErrorsNameFileAndFault();
    void decodeUnknownIdAndSplitCharacters();
    void randomInputNeverCrashes();
};

void TestTokenizer::initTestCase()
{
    QVERIFY(tmp_.isValid());
    const std::string problem = T::referencesProblem();
    QVERIFY2(problem.empty(), problem.c_str());

    corpus_ = T::makeCorpus(1 << 20);
    edge_ = T::edgeCases();
    addedTexts_ = {
        "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n",
        "<|endoftext|><|endoftext|>",
        "a<|im_start|>b",
        " <|im_end|> ",
        "<|im_start|",
        "<<|im_start|>>",
        "<think>reasoning</think>answer",
        "<tool_call>{\"name\": \"f\"}</tool_call>\n",
        "你好<|endoftext|>世界",
        "<|im_end|>\u0301 e<|im_end|>\u0301",
        "e\u0301<|endoftext|>e\u0301",
        "don't<|im_start|>'s",
        "<|vision_start|><|image_pad|><|vision_end|>",
        "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>",
    };
    distillTexts_ = {
        "",
        "plain text, nothing special",
        "<｜begin▁of▁sentence｜><｜User｜>1+1=?<｜Assistant｜><think>\nOK\n</think>\n\n2<｜end▁of▁sentence｜>",
        "<|EOT|>",
        "<｜User｜>你好<｜Assistant｜>",
        "<|im_start|>is not a token here<|im_end|>",
        "<think></think><|quad_start|><|file_sep|>",
        "<｜User｜",
    };
    // The tiny fixture's <tool> has lstrip and rstrip: it absorbs the white space around it.
    tinyTexts_ = {"a <tool> b",       "a<tool>b",         "  <tool>  ", "\n<tool>\n x", "<bos>hello<eos> the world",
                  "x <tool><tool> y", "你好 <tool>\t你好"};
    lossyInputs_ = {"ab\x80"
                    "cd",
                    "abc\xC3",
                    "\xC0\xAF",
                    "x\xE0\x80\xAF",
                    "ok \xED\xA0\x80",
                    "\xF4\x90\x80\x80",
                    "\xF5\x80\x80\x80",
                    "\xF0\x9F\x98"
                    "x",
                    "\xE2\x82"
                    "y\xE2",
                    "\xFF\xFE",
                    "fine \xE4\xBD\xA0"};

    T::writeDistillFixture(T::qwenTokenizerPath(), dir("distill"), true);
    T::writeDistillFixture(T::qwenTokenizerPath(), dir("distill-noconfig"), false);

    const auto job = [](std::string tokenizer, std::string config, std::vector<std::string> docs,
                        std::vector<std::string> engines, bool special = false) {
        T::RefJob j;
        j.tokenizer = std::move(tokenizer);
        j.config = std::move(config);
        j.docs = std::move(docs);
        j.engines = std::move(engines);
        j.addSpecialTokens = special;
        return j;
    };
    const std::string qwen = T::qwenTokenizerPath();
    const std::string distill = dir("distill/tokenizer.json"), distillConfig = dir("distill/tokenizer_config.json");
    std::vector<T::RefJob> jobs(7);
    jobs[CorpusJob] = job(qwen, "", corpus_, {"lenml", "tiktoken", "nfc"});
    jobs[EdgeJob] = job(qwen, "", edge_, {"lenml", "tiktoken", "nfc"});
    jobs[AddedJob] = job(qwen, "", addedTexts_, {"lenml"});
    jobs[DistillJob] = job(distill, distillConfig, distillTexts_, {"lenml"});
    jobs[DistillSpecialJob] = job(distill, distillConfig, distillTexts_, {"lenml"}, true);
    jobs[LossyJob] = job(qwen, "", {}, {});
    jobs[LossyJob].lossy = lossyInputs_;
    jobs[TinyJob] = job(T::tinyFixturePath(), "", tinyTexts_, {"lenml"}, true);
    QElapsedTimer timer;
    timer.start();
    try {
        ref_ = T::runReference(jobs, tmp_.path().toStdString());
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    qInfo("references: %lld ms (lenml %.2f s, tiktoken %.2f s on the corpus)", static_cast<long long>(timer.elapsed()),
          ref_[CorpusJob].lenmlSeconds, ref_[CorpusJob].tiktokenSeconds);

    try {
        qwen_ = BpeTokenizer::load(T::qwenTokenizerPath());
        distill_ = BpeTokenizer::load(dir("distill/tokenizer.json"));
        distillNoConfig_ = BpeTokenizer::load(dir("distill-noconfig/tokenizer.json"));
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
}

void TestTokenizer::qwenVocabularyAndSpecialIds()
{
    // 151,643 vocabulary entries + 26 added tokens (151643…151668).
    QCOMPARE(qwen_->vocabSize(), 151669);
    QCOMPARE(qwen_->addedTokens().size(), size_t{26});
    QCOMPARE(qwen_->tokenToId("<|endoftext|>"), std::optional<int32_t>(151643));
    QCOMPARE(qwen_->tokenToId("<think>"), std::optional<int32_t>(151667));
    QCOMPARE(qwen_->tokenToId("Ġworld"), std::optional<int32_t>(1879));
    QCOMPARE(qwen_->tokenToId("no such token"), std::nullopt);
    // tokenizer_config.json of the package: eos "<|im_end|>", pad "<|endoftext|>", bos null.
    QCOMPARE(qwen_->eosId(), std::optional<int32_t>(151645));
    QCOMPARE(qwen_->padId(), std::optional<int32_t>(151643));
    QCOMPARE(qwen_->bosId(), std::nullopt);
    QVERIFY(qwen_->templatePrefix().empty());
    QCOMPARE(qwen_->encode("Hello world", true), qwen_->encode("Hello world", false));

    const auto again = Tokenizer::fromFile(T::qwenTokenizerPath());
    QCOMPARE(again->fingerprint(), qwen_->fingerprint());
    QVERIFY(distill_->fingerprint() != qwen_->fingerprint());
    QVERIFY(distill_->fingerprint() != distillNoConfig_->fingerprint());
}

void TestTokenizer::splitPieces_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("pieces");
    QTest::newRow("words") << "Hello world" << QStringList{"Hello", " world"};
    QTest::newRow("contraction") << "don't DON'T" << QStringList{"don", "'t", " DON", "'T"};
    QTest::newRow("contraction first") << "'sgood" << QStringList{"'s", "good"};
    QTest::newRow("spaces before word") << "  hi" << QStringList{" ", " hi"};
    QTest::newRow("newlines") << "a  \n\n b" << QStringList{"a", "  \n\n", " b"};
    QTest::newRow("trailing spaces") << "x   " << QStringList{"x", "   "};
    QTest::newRow("digits one by one") << "123" << QStringList{"1", "2", "3"};
    QTest::newRow("punctuation with newlines") << " !!!\n\nx" << QStringList{" !!!\n\n", "x"};
    QTest::newRow("tab joins word") << "\tfoo" << QStringList{"\tfoo"};
    QTest::newRow("symbol joins word") << "$hello" << QStringList{"$hello"};
    // The full-width comma is the optional prefix of the following letters.
    QTest::newRow("chinese") << QString::fromUtf8("你好，世界。")
                             << QStringList{QString::fromUtf8("你好"), QString::fromUtf8("，世界"),
                                            QString::fromUtf8("。")};
    QTest::newRow("space run then punctuation") << "a   !" << QStringList{"a", "  ", " !"};
    QTest::newRow("single space before digit") << "a 1" << QStringList{"a", " ", "1"};
    QTest::newRow("crlf") << "a\r\n\r\nb" << QStringList{"a", "\r\n\r\n", "b"};
}

void TestTokenizer::splitPieces()
{
    QFETCH(QString, text);
    QFETCH(QStringList, pieces);
    const std::string utf8 = text.toStdString();
    QStringList got;
    for (const auto p : BpeTokenizer::splitPieces(utf8))
        got << QString::fromUtf8(p.data(), static_cast<qsizetype>(p.size()));
    QCOMPARE(got, pieces);
}

void TestTokenizer::edgeCasesMatchReferences()
{
    const T::RefResult& r = ref_[EdgeJob];
    QCOMPARE(r.lenml.size(), edge_.size());
    QCOMPARE(r.tiktoken.size(), edge_.size());
    for (size_t i = 0; i < edge_.size(); ++i) {
        const auto ours = qwen_->encode(edge_[i]);
        std::string d =
            difference(ours, r.lenml[i], edge_[i], "edge case " + std::to_string(i) + " vs @lenml/tokenizers");
        QVERIFY2(d.empty(), d.c_str());
        d = difference(ours, r.tiktoken[i], edge_[i], "edge case " + std::to_string(i) + " vs tiktoken");
        QVERIFY2(d.empty(), d.c_str());
    }
}

void TestTokenizer::corpusMatchesReferences()
{
    size_t bytes = 0;
    for (const auto& d : corpus_)
        bytes += d.size();
    QVERIFY(bytes >= (1u << 20));
    const T::RefResult& r = ref_[CorpusJob];
    QCOMPARE(r.lenml.size(), corpus_.size());
    QCOMPARE(r.tiktoken.size(), corpus_.size());

    const auto ours = qwen_->encodeBatch(views(corpus_), 2);
    size_t tokens = 0;
    for (size_t i = 0; i < corpus_.size(); ++i) {
        tokens += ours[i].size();
        std::string d =
            difference(ours[i], r.lenml[i], corpus_[i], "document " + std::to_string(i) + " vs @lenml/tokenizers");
        QVERIFY2(d.empty(), d.c_str());
        d = difference(ours[i], r.tiktoken[i], corpus_[i], "document " + std::to_string(i) + " vs tiktoken");
        QVERIFY2(d.empty(), d.c_str());
    }
    qInfo("%zu documents, %zu bytes, %zu tokens identical to both references", corpus_.size(), bytes, tokens);
    // Single-document encode agrees with the batch.
    for (size_t i = 0; i < std::min<size_t>(corpus_.size(), 40); ++i)
        QCOMPARE(qwen_->encode(corpus_[i]), ours[i]);
}

void TestTokenizer::decodeOfEncodeIsNfc()
{
    const auto check = [&](const std::vector<std::string>& docs, const T::RefResult& r, const char* what) {
        QCOMPARE(r.nfc.size(), docs.size());
        for (size_t i = 0; i < docs.size(); ++i) {
            const std::string decoded = qwen_->decode(qwen_->encode(docs[i]));
            QVERIFY2(decoded == r.nfc[i], (std::string(what) + " " + std::to_string(i) +
                                           ": decode(encode(x)) != NFC(x) for \"" + printable(docs[i]) + "\"")
                                              .c_str());
            // utf8proc's NFC agrees with ICU's, and the quick check never misses a change.
            QVERIFY(unicode::toNfc(docs[i]) == r.nfc[i]);
            if (!unicode::mayNeedNfc(docs[i]))
                QVERIFY(docs[i] == r.nfc[i]);
        }
    };
    check(corpus_, ref_[CorpusJob], "document");
    check(edge_, ref_[EdgeJob], "edge case");
}

void TestTokenizer::addedTokensInTextMatchReference()
{
    const T::RefResult& r = ref_[AddedJob];
    QCOMPARE(r.lenml.size(), addedTexts_.size());
    for (size_t i = 0; i < addedTexts_.size(); ++i) {
        const std::string d = difference(qwen_->encode(addedTexts_[i]), r.lenml[i], addedTexts_[i], "added-token text");
        QVERIFY2(d.empty(), d.c_str());
    }
    // The chat markers come out as single ids.
    const auto ids = qwen_->encode("<|im_start|>user\nHi<|im_end|>");
    QCOMPARE(ids.front(), 151644);
    QCOMPARE(ids.back(), 151645);
}

void TestTokenizer::mergesAsStringsOrPairsGiveSameIds()
{
    // Qwen's file has ["a","b"] pairs; the same merges as "a b" strings must give the same ids.
    const std::string path = dir("string-merges/tokenizer.json");
    std::filesystem::create_directories(dir("string-merges"));
    T::writeWithStringMerges(T::qwenTokenizerPath(), path);
    const auto strings = BpeTokenizer::load(path);
    QCOMPARE(strings->vocabSize(), qwen_->vocabSize());
    const std::vector<std::string> some(corpus_.begin(), corpus_.begin() + std::min<size_t>(corpus_.size(), 60));
    QCOMPARE(strings->encodeBatch(views(some), 2), qwen_->encodeBatch(views(some), 2));
    for (const auto& e : edge_)
        QCOMPARE(strings->encode(e), qwen_->encode(e));
}

void TestTokenizer::distillVariant()
{
    QCOMPARE(distill_->vocabSize(), 151665);
    QCOMPARE(distill_->bosId(), std::optional<int32_t>(151646));
    QCOMPARE(distill_->eosId(), std::optional<int32_t>(151643));
    QCOMPARE(distill_->padId(), std::optional<int32_t>(151643));
    QCOMPARE(distill_->templatePrefix(), std::vector<int32_t>{151646});
    QCOMPARE(distill_->tokenToId("<｜User｜>"), std::optional<int32_t>(151644));
    QCOMPARE(distill_->tokenToId("<|im_start|>"), std::nullopt);

    const T::RefResult& plain = ref_[DistillJob];
    const T::RefResult& special = ref_[DistillSpecialJob];
    for (size_t i = 0; i < distillTexts_.size(); ++i) {
        std::string d = difference(distill_->encode(distillTexts_[i], false), plain.lenml[i], distillTexts_[i],
                                   "distill without special tokens");
        QVERIFY2(d.empty(), d.c_str());
        d = difference(distill_->encode(distillTexts_[i], true), special.lenml[i], distillTexts_[i],
                       "distill with special tokens");
        QVERIFY2(d.empty(), d.c_str());
    }
    QCOMPARE(distill_->encode("", true), std::vector<int32_t>{151646});

    // Batch applies the template per document.
    const std::vector<std::string> docs = {"a", "", "<think>b</think>"};
    const auto batch = distill_->encodeBatch(views(docs), 2, true);
    for (size_t i = 0; i < docs.size(); ++i)
        QCOMPARE(batch[i], distill_->encode(docs[i], true));

    // Decoding: special tokens (bos/eos) can be skipped; <think> is not special.
    const std::string text = "<｜User｜>hi<think>x</think><｜end▁of▁sentence｜>";
    const auto ids = distill_->encode(text, true);
    QCOMPARE(distill_->decode(ids), "<｜begin▁of▁sentence｜>" + text);
    QCOMPARE(distill_->decode(ids, true), std::string("<｜User｜>hi<think>x</think>"));
}

void TestTokenizer::tinyFixtureStripsAroundAddedTokens()
{
    const auto tiny = BpeTokenizer::load(T::tinyFixturePath());
    const T::RefResult& r = ref_[TinyJob];
    for (size_t i = 0; i < tinyTexts_.size(); ++i) {
        const std::string d = difference(tiny->encode(tinyTexts_[i], true), r.lenml[i], tinyTexts_[i], "tiny fixture");
        QVERIFY2(d.empty(), d.c_str());
    }
}

void TestTokenizer::distillWithoutConfigFallsBack()
{
    // bos from the post-processor template; eos would be <|endoftext|>, which the distill lacks.
    QCOMPARE(distillNoConfig_->bosId(), std::optional<int32_t>(151646));
    QCOMPARE(distillNoConfig_->eosId(), std::nullopt);
    QCOMPARE(distillNoConfig_->padId(), std::nullopt);
    for (const auto& t : distillTexts_)
        QCOMPARE(distillNoConfig_->encode(t, true), distill_->encode(t, true));

    // The tiny fixture has neither config nor <|endoftext|> either.
    const auto tiny = BpeTokenizer::load(T::tinyFixturePath());
    QCOMPARE(tiny->bosId(), tiny->tokenToId("<bos>"));
    QCOMPARE(tiny->eosId(), std::nullopt);
}

void TestTokenizer::invalidUtf8IsRejectedWithOffset_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("offset");
    QTest::newRow("stray continuation") << QByteArray("ab\x80"
                                                      "cd")
                                        << 2;
    QTest::newRow("truncated at end") << QByteArray("abc\xC3") << 3;
    QTest::newRow("overlong 2-byte") << QByteArray("\xC0\xAF") << 0;
    QTest::newRow("overlong 3-byte") << QByteArray("x\xE0\x80\xAF") << 1;
    QTest::newRow("surrogate") << QByteArray("ok \xED\xA0\x80") << 3;
    QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << 0;
    QTest::newRow("F5 lead") << QByteArray("\xF5\x80\x80\x80") << 0;
    QTest::newRow("truncated 4-byte") << QByteArray("\xF0\x9F\x98") << 0;
    QTest::newRow("after multibyte") << QByteArray("é\xFF") << 2;
    QTest::newRow("inside added token text") << QByteArray("<|im_start|>\xFE<|im_end|>") << 12;
}

void TestTokenizer::invalidUtf8IsRejectedWithOffset()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, offset);
    const std::string s = bytes.toStdString();
    QCOMPARE(unicode::findInvalidUtf8(s), static_cast<size_t>(offset));
    try {
        (void)qwen_->encode(s);
        QFAIL("no TokenizerError");
    } catch (const TokenizerError& e) {
        const std::string want = "byte offset " + std::to_string(offset);
        QVERIFY2(std::string(e.what()).find(want) != std::string::npos, e.what());
    }
}

void TestTokenizer::invalidUtf8InBatchNamesDocument()
{
    const std::vector<std::string> docs = {"fine", "also fine", "bad \xFF here"};
    for (int threads : {1, 3}) {
        try {
            (void)qwen_->encodeBatch(views(docs), threads);
            QFAIL("no TokenizerError");
        } catch (const TokenizerError& e) {
            QVERIFY2(std::string(e.what()).find("document 2") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("byte offset 4") != std::string::npos, e.what());
        }
    }
    // In a long document that is cut into chunks, the offset is still from the document's start.
    std::string big;
    while (big.size() < (3u << 20))
        for (const auto& d : corpus_)
            big += d + "\n";
    const size_t at = big.size() - 1000;
    big[at] = '\xFF';
    try {
        (void)qwen_->encodeBatch({std::string_view(big)}, 4);
        QFAIL("no TokenizerError");
    } catch (const TokenizerError& e) {
        QVERIFY2(std::string(e.what()).find("byte offset " + std::to_string(at)) != std::string::npos, e.what());
    }
}

void TestTokenizer::replacementMatchesTextDecoder()
{
    const T::RefResult& r = ref_[LossyJob];
    QCOMPARE(r.lossy.size(), lossyInputs_.size());
    for (size_t i = 0; i < lossyInputs_.size(); ++i) {
        const std::string ours = unicode::replaceInvalidUtf8(lossyInputs_[i]);
        QVERIFY2(ours == r.lossy[i], ("replacement differs from TextDecoder for input " + std::to_string(i)).c_str());
        QCOMPARE(unicode::findInvalidUtf8(ours), unicode::npos);
    }
}

void TestTokenizer::batchProgressAndChunking()
{
    // A long document (cut into chunks internally) gives the same ids on 1 and 4 threads as encode().
    std::string big;
    while (big.size() < (3u << 20))
        for (const auto& d : corpus_)
            big += d + "\n";
    const auto single = qwen_->encode(big);
    std::vector<std::pair<size_t, size_t>> calls;
    bool otherThread = false;
    const auto self = std::this_thread::get_id();
    const auto progress = [&](size_t done, size_t total) {
        calls.emplace_back(done, total);
        if (std::this_thread::get_id() != self)
            otherThread = true;
    };
    for (int threads : {1, 4}) {
        calls.clear();
        const auto batch = qwen_->encodeBatch({std::string_view(big)}, threads, false, progress);
        QCOMPARE(batch.size(), size_t{1});
        QVERIFY2(batch[0] == single, ("chunked encoding differs on " + std::to_string(threads) + " threads").c_str());
        QVERIFY(!otherThread);
        QVERIFY(calls.size() >= 2);
        QCOMPARE(calls.back(), std::make_pair(big.size(), big.size()));
        for (size_t i = 1; i < calls.size(); ++i)
            QVERIFY(calls[i].first >= calls[i - 1].first);
    }
    // Many documents, more threads than documents, empty documents.
    const std::vector<std::string> docs = {"", "x", corpus_[0], "", corpus_[1]};
    const auto many = qwen_->encodeBatch(views(docs), 16);
    for (size_t i = 0; i < docs.size(); ++i)
        QCOMPARE(many[i], qwen_->encode(docs[i]));
    QVERIFY(qwen_->encodeBatch({}, 4).empty());
    // With the distill's template the BOS comes once per document, not once per chunk.
    const auto withBos = distill_->encodeBatch({std::string_view(big)}, 4, true);
    QCOMPARE(withBos[0].size(), single.size() + 1);
    QCOMPARE(withBos[0].front(), 151646);
}

void TestTokenizer::loadErrorsNameFileAndFault_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("content"); // empty: no file at all
    QTest::addColumn<QString>("config");  // tokenizer_config.json beside it, when not empty
    QTest::addColumn<QString>("fault");
    const QString tiny = QString::fromStdString(T::readFile(T::tinyFixturePath()));
    QTest::newRow("missing file") << "missing" << QString() << QString() << "cannot open";
    QTest::newRow("not json") << "notjson"
                              << "{ \"model\": " << QString() << "not valid JSON";
    QTest::newRow("not an object") << "array"
                                   << "[1, 2]" << QString() << "not a tokenizer.json";
    QTest::newRow("no model") << "nomodel"
                              << "{\"version\": \"1.0\"}" << QString() << "no \"model\"";
    QTest::newRow("wordpiece") << "wordpiece"
                               << "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}" << QString()
                               << "model type 'WordPiece' is not supported";
    QString badMerge = tiny;
    badMerge.replace("\"Ġ t\"", "\"Ġ t x\"");
    QTest::newRow("bad merge") << "badmerge" << badMerge << QString() << "merge #1";
    QString unknownMerge = tiny;
    unknownMerge.replace("\"Ġ t\"", "\"Ġ zz\"");
    QTest::newRow("merge of unknown token") << "unknownmerge" << unknownMerge << QString() << "not in the vocabulary";
    QString otherPre = tiny;
    otherPre.replace("\"type\":\"Split\"", "\"type\":\"Whitespace\"");
    QTest::newRow("unsupported pre-tokenizer") << "pre" << otherPre << QString() << "pre_tokenizer";
    QString otherNorm = tiny;
    otherNorm.replace("{\"type\":\"NFC\"}", "{\"type\":\"NFKC\"}");
    QTest::newRow("unsupported normalizer") << "norm" << otherNorm << QString() << "normalizer 'NFKC'";
    QTest::newRow("bad config") << "badcfg" << tiny << "{ nope"
                                << "tokenizer_config.json: not valid JSON";
    QTest::newRow("unknown eos") << "eos" << tiny << "{\"eos_token\": \"<nope>\"}"
                                 << "eos_token '<nope>'";
    QTest::newRow("eos of wrong type") << "eostype" << tiny << "{\"eos_token\": 5}"
                                       << "eos_token is neither";

    // Untrusted files that would exhaust memory (tables sized by the largest id) or the stack (the
    // walks of nested Sequences).
    QString hugeId = tiny;
    hugeId.replace(QStringLiteral("\"\u0101\":1,"), QStringLiteral("\"\u0101\":2000000000,"));
    QTest::newRow("huge vocab id") << "hugeid" << hugeId << QString()
                                   << "model.vocab[\"\u0101\"] has id 2000000000, far beyond the others (ids must be "
                                      "below 66126 for the 295 tokens of this file)";
    QString hugeAdded = tiny;
    hugeAdded.replace("{\"id\":294,", "{\"id\":1500000000,");
    QTest::newRow("huge added token id") << "hugeadded" << hugeAdded << QString()
                                         << "added token \"<tool>\" has id 1500000000, far beyond the others";
    const auto nest = [](const QString& open, const QString& inner, int depth) {
        return open.repeated(depth) + inner + QStringLiteral("]}").repeated(depth);
    };
    const auto replaceValue = [&tiny](const QString& key, const QString& nextKey, const QString& value) {
        const qsizetype from = tiny.indexOf(key) + key.size(), to = tiny.indexOf(nextKey);
        return QString(tiny).replace(from, to - from, value);
    };
    const QString tooDeep = QStringLiteral("line 1: nested more than 64 levels deep");
    QTest::newRow("deeply nested normalizer")
        << "deepnorm"
        << replaceValue("\"normalizer\":", ",\"pre_tokenizer\":",
                        nest("{\"type\":\"Sequence\",\"normalizers\":[", "{\"type\":\"NFC\"}", 200000))
        << QString() << tooDeep;
    QTest::newRow("deeply nested pre-tokenizer")
        << "deeppre"
        << replaceValue("\"pre_tokenizer\":", ",\"post_processor\":",
                        nest("{\"type\":\"Sequence\",\"pretokenizers\":[", "{\"type\":\"ByteLevel\"}", 200000))
        << QString() << tooDeep;
    QTest::newRow("deeply nested post-processor")
        << "deeppost"
        << replaceValue("\"post_processor\":", ",\"decoder\":",
                        nest("{\"type\":\"Sequence\",\"processors\":[", "{\"type\":\"ByteLevel\"}", 200000))
        << QString() << tooDeep;
    // Brackets inside strings do not count; the line is the one where the limit is crossed.
    QTest::newRow("deep arrays on line 3")
        << "deeparrays"
        << "{\n\"x\": \"[[[\\\"[\",\n\"y\": " + QString("[").repeated(65) + "1" + QString("]").repeated(65) + "}"
        << QString() << "line 3: nested more than 64 levels deep";
}

void TestTokenizer::loadErrorsNameFileAndFault()
{
    QFETCH(QString, name);
    QFETCH(QString, content);
    QFETCH(QString, config);
    QFETCH(QString, fault);
    const std::string d = dir("errors-" + name.toStdString());
    std::filesystem::create_directories(d);
    const std::string path = d + "/tokenizer.json";
    if (!content.isEmpty())
        T::writeFile(path, content.toStdString());
    if (!config.isEmpty())
        T::writeFile(d + "/tokenizer_config.json", config.toStdString());
    try {
        (void)Tokenizer::fromFile(path);
        QFAIL("no TokenizerError");
    } catch (const TokenizerError& e) {
        const std::string msg = e.what();
        QVERIFY2(msg.find(d + "/") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(fault.toStdString()) != std::string::npos, msg.c_str());
    }
}

void TestTokenizer::decodeUnknownIdAndSplitCharacters()
{
    try {
        (void)qwen_->decode(std::vector<int32_t>{9707, 999999});
        QFAIL("no TokenizerError");
    } catch (const TokenizerError& e) {
        QVERIFY2(std::string(e.what()).find("999999") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(TokenizerError, qwen_->decode(std::vector<int32_t>{-1}));
    // "你" is E4 BD A0; byte tokens decode to it together, and to U+FFFD when cut.
    const int32_t e4 = idOfByte(*qwen_, 0xE4), bd = idOfByte(*qwen_, 0xBD), a0 = idOfByte(*qwen_, 0xA0);
    QVERIFY(e4 >= 0 && bd >= 0 && a0 >= 0);
    QCOMPARE(qwen_->decode(std::vector<int32_t>{e4, bd, a0}), std::string("你"));
    QCOMPARE(qwen_->decode(std::vector<int32_t>{e4, bd}), std::string("\xEF\xBF\xBD"));
    QCOMPARE(qwen_->decode(std::vector<int32_t>{}), std::string());
}

void TestTokenizer::randomInputNeverCrashes()
{
    // Arbitrary bytes: either a TokenizerError naming the first bad byte or ids; the repaired text
    // always encodes, and decode(encode(x)) == NFC(x). Random code points (marks, jamo, controls,
    // non-BMP) exercise the NFC quick check against utf8proc's full NFC.
    uint64_t state = 12345;
    const auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(state >> 33);
    };
    for (int round = 0; round < 3000; ++round) {
        std::string s;
        const size_t len = next() % 64;
        if (round % 2 == 0) {
            for (size_t i = 0; i < len; ++i)
                s.push_back(static_cast<char>(next() & 0xFF));
        } else {
            static const uint32_t bases[] = {0x20,   0x300,   0x1100, 0x1161, 0x11A8, 0xAC00,
                                             0x4E00, 0x1F600, 0x0E00, 0x0900, 0x2000, 0x3000};
            for (size_t i = 0; i < len; ++i) {
                uint32_t cp = bases[next() % 12] + next() % 0x80;
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    cp = 'x';
                unicode::appendUtf8(cp, s);
            }
        }
        const size_t bad = unicode::findInvalidUtf8(s);
        try {
            (void)qwen_->encode(s);
            QCOMPARE(bad, unicode::npos);
        } catch (const TokenizerError& e) {
            QVERIFY2(std::string(e.what()).find("byte offset " + std::to_string(bad)) != std::string::npos, e.what());
        }
        const std::string repaired = unicode::replaceInvalidUtf8(s);
        const std::string decoded = qwen_->decode(qwen_->encode(repaired));
        QVERIFY2(decoded == unicode::toNfc(repaired), ("round " + std::to_string(round)).c_str());
    }
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
