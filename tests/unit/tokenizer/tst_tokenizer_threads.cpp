// The tokenizer's threads: encodeBatch's worker pool and the encoder-state pool that concurrent callers
// share. Small enough to run under ThreadSanitizer (label `threaded`, scripts/sanitize.sh); the full
// tst_tokenizer, with its node references on a 1 MiB corpus, is not.
#include <QTest>

#include <thread>

#include "reference_runner.h"
#include "test_corpus.h"
#include "tokenizer/bpe_tokenizer.h"

using namespace traindeck::tok;
namespace T = traindeck::tok::testing;

class TestTokenizerThreads : public QObject {
    Q_OBJECT

    std::unique_ptr<BpeTokenizer> qwen_;
    std::vector<std::string> docs_;
    std::string big_; // long enough that encodeBatch cuts it into chunks (64 KiB at least each)

  private Q_SLOTS:
    void initTestCase();
    void chunkedBatchMatchesSerialEncode();
    void concurrentCallersShareOneTokenizer();
    void errorInOneChunkStopsTheOthers();
};

void TestTokenizerThreads::initTestCase()
{
    try {
        qwen_ = BpeTokenizer::load(T::qwenTokenizerPath());
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    docs_ = T::makeCorpus(256 << 10);
    while (big_.size() < (512u << 10))
        for (const auto& d : docs_)
            big_ += d + "\n";
}

void TestTokenizerThreads::chunkedBatchMatchesSerialEncode()
{
    const auto serial = qwen_->encode(big_);
    const auto self = std::this_thread::get_id();
    bool otherThread = false;
    size_t lastDone = 0, calls = 0;
    bool monotonic = true;
    const auto progress = [&](size_t done, size_t) {
        otherThread = otherThread || std::this_thread::get_id() != self;
        monotonic = monotonic && done >= lastDone;
        lastDone = done;
        ++calls;
    };
    std::vector<std::string_view> batch = {big_};
    size_t totalBytes = big_.size();
    for (const auto& d : docs_) {
        batch.emplace_back(d);
        totalBytes += d.size();
    }
    const auto ids = qwen_->encodeBatch(batch, 4, false, progress);
    QCOMPARE(ids.size(), batch.size());
    QVERIFY2(ids[0] == serial, "the chunked document differs from encode()");
    for (size_t i = 0; i < docs_.size(); ++i)
        QVERIFY2(ids[i + 1] == qwen_->encode(docs_[i]), ("document " + std::to_string(i) + " differs").c_str());
    QVERIFY2(!otherThread, "progress was called from a worker thread");
    QVERIFY(monotonic);
    QVERIFY(calls >= 1);
    QCOMPARE(lastDone, totalBytes);
}

void TestTokenizerThreads::concurrentCallersShareOneTokenizer()
{
    // Several callers at once on one const tokenizer (the token cache's builder and a second one, say):
    // they take encoder states from one pool and must each get the serial result.
    std::vector<std::vector<int32_t>> serial;
    for (const auto& d : docs_)
        serial.push_back(qwen_->encode(d));
    const auto serialBig = qwen_->encode(big_);
    constexpr int kCallers = 4;
    std::vector<int> wrong(kCallers, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c)
        callers.emplace_back([&, c] {
            for (size_t i = static_cast<size_t>(c); i < docs_.size(); i += kCallers)
                if (qwen_->encode(docs_[i]) != serial[i])
                    ++wrong[c];
            if (qwen_->encodeBatch({std::string_view(big_)}, 2)[0] != serialBig)
                ++wrong[c];
        });
    for (auto& t : callers)
        t.join();
    for (int c = 0; c < kCallers; ++c)
        QVERIFY2(wrong[c] == 0, ("caller " + std::to_string(c) + " got different ids").c_str());
}

void TestTokenizerThreads::errorInOneChunkStopsTheOthers()
{
    // A bad byte in the first chunk, in the last one, and in a later document: the workers stop, the
    // error names the document and the offset from its start.
    for (const size_t at : {size_t{10}, big_.size() - 100}) {
        std::string bad = big_;
        bad[at] = '\xFF';
        try {
            (void)qwen_->encodeBatch({std::string_view(bad)}, 4);
            QFAIL("no TokenizerError");
        } catch (const TokenizerError& e) {
            QVERIFY2(std::string(e.what()).find("document 0") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("byte offset " + std::to_string(at)) != std::string::npos, e.what());
        }
    }
    std::vector<std::string_view> batch = {big_, "fine", "bad \xFF here", big_};
    try {
        (void)qwen_->encodeBatch(batch, 3);
        QFAIL("no TokenizerError");
    } catch (const TokenizerError& e) {
        QVERIFY2(std::string(e.what()).find("document 2") != std::string::npos, e.what());
    }
    // The tokenizer is still usable afterwards: every worker gave its encoder state back or dropped it.
    QCOMPARE(qwen_->encodeBatch({std::string_view(big_)}, 4)[0], qwen_->encode(big_));
}

QTEST_APPLESS_MAIN(TestTokenizerThreads)
#include "tst_tokenizer_threads.moc"
