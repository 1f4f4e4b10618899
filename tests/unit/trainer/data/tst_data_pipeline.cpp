// Inputs (JSONL, text, directories), the token cache (built once, reused, invalidated on change), the
// pack and pad batch modes, and bad input that names the file and line.
#include "data/corpus.h"
#include "data/dataset.h"
#include "data/token_cache.h"
#include "testsupport.h"
#include "tokenizer/tokenizer.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <thread>

using namespace traindeck::data;

namespace {
TokenCacheOptions options(const QTemporaryDir& dir, const QString& data)
{
    TokenCacheOptions o;
    o.dataPath = data.toStdString();
    o.cacheRoot = (dir.path() + "/cache").toStdString();
    o.verbose = false;
    o.threads = 2;
    return o;
}
} // namespace

class TestDataPipeline : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void badInput_data();
    void badInput();
    void textDirectory();
    void cacheIsReusedAndInvalidated();
    void damagedCache_data();
    void damagedCache();
    void qwenTokenizedCache();
    void packMode();
    void padMode();
    void tooLittleData();
};

void TestDataPipeline::badInput_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("message");
    QTest::addRow("invalid JSON on line 3")
        << QByteArray("{\"text\":\"a\"}\n{\"text\":\"b\"}\n{\"text\": oops}\n") << "c.jsonl:3: invalid JSON";
    QTest::addRow("number that overflows on line 2")
        << QByteArray("{\"text\":\"a\"}\n{\"text\":\"b\",\"score\":1e999}\n") << "c.jsonl:2: invalid JSON";
    QTest::addRow("not an object") << QByteArray("[1,2]\n") << "c.jsonl:1: expected a JSON object";
    QTest::addRow("missing field") << QByteArray("{\"text\":\"a\"}\n{\"body\":\"b\"}\n")
                                   << "c.jsonl:2: no \"text\" field";
    QTest::addRow("field not a string") << QByteArray("{\"text\":42}\n") << "c.jsonl:1: field \"text\" is not a string";
    QTest::addRow("invalid UTF-8 on line 2")
        << QByteArray("{\"text\":\"ok\"}\n{\"text\":\"bad \xff\xfe\"}\n") << "c.jsonl:2: invalid UTF-8";
    QTest::addRow("truncated UTF-8") << QByteArray("{\"text\":\"\xe4\xb8\"}\n") << "c.jsonl:1: invalid UTF-8";
    QTest::addRow("only blank lines") << QByteArray("\n  \n\n") << "no documents";
    QTest::addRow("only empty texts") << QByteArray("{\"text\":\"\"}\n") << "no documents";
}

void TestDataPipeline::badInput()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, message);
    QTemporaryDir dir;
    testsupport::writeFile(dir.path() + "/c.jsonl", contents);
    try {
        TokenCache::buildOrLoad(options(dir, dir.path() + "/c.jsonl"), nullptr);
        QFAIL("bad input accepted");
    } catch (const traindeck::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestDataPipeline::textDirectory()
{
    QTemporaryDir dir;
    QDir().mkpath(dir.path() + "/data/sub");
    testsupport::writeFile(dir.path() + "/data/a.txt", "first document");
    testsupport::writeFile(dir.path() + "/data/sub/b.txt", "second");
    testsupport::writeFile(dir.path() + "/data/ignored.bin", "\xff\xff");
    testsupport::writeFile(dir.path() + "/data/c.jsonl", "{\"text\":\"third\"}\n{\"text\":\"fourth\"}\n");
    auto cache = TokenCache::buildOrLoad(options(dir, dir.path() + "/data"), nullptr);
    QCOMPARE(cache->numDocs(), size_t(4));
    // Byte ids with EOS (256) after every document.
    QCOMPARE(cache->tokens().size(), size_t(14 + 1 + 5 + 1 + 6 + 1 + 6 + 1));
    QCOMPARE(cache->tokens()[14], uint32_t(256));
    QVERIFY_THROWS_EXCEPTION(traindeck::InputError, listSources((dir.path() + "/nope").toStdString()));
}

void TestDataPipeline::cacheIsReusedAndInvalidated()
{
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    testsupport::writeFile(data, "{\"text\":\"hello world\"}\n");
    auto first = TokenCache::buildOrLoad(options(dir, data), nullptr);
    QVERIFY(first->builtNow());
    auto second = TokenCache::buildOrLoad(options(dir, data), nullptr);
    QVERIFY(!second->builtNow());
    QCOMPARE(second->directory(), first->directory());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    testsupport::writeFile(data, "{\"text\":\"hello there world\"}\n");
    auto third = TokenCache::buildOrLoad(options(dir, data), nullptr);
    QVERIFY(third->builtNow());
    QCOMPARE(third->tokens().size(), size_t(18));
    auto otherField = options(dir, data);
    otherField.textField = "body";
    QVERIFY_THROWS_EXCEPTION(traindeck::InputError, TokenCache::buildOrLoad(otherField, nullptr));
}

void TestDataPipeline::damagedCache_data()
{
    QTest::addColumn<QList<quint64>>("offsets"); // docs.bin as written over the valid cache
    QTest::addColumn<int>("tokensBytes");        // tokens.bin cut to this size (-1: as built, 36 bytes)
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");

    // The valid cache: "ab", "cde", "f" as bytes, EOS after each: offsets 0 3 7 9, 9 tokens.
    QTest::addRow("offsets fall") << QList<quint64>{0, 7, 3, 9} << -1 << "docs.bin"
                                  << "token cache is damaged (offset 2 is 3 after 7, with 9 tokens in tokens.bin)";
    QTest::addRow("offset beyond the tokens")
        << QList<quint64>{0, 3, 1000000, 9} << -1 << "docs.bin"
        << "token cache is damaged (offset 2 is 1000000 after 3, with 9 tokens in tokens.bin)";
    QTest::addRow("repeated offset") << QList<quint64>{0, 3, 3, 9} << -1 << "docs.bin"
                                     << "offset 2 is 3 after 3";
    QTest::addRow("first offset not 0") << QList<quint64>{2, 3, 7, 9} << -1 << "docs.bin"
                                        << "token cache is damaged (the first document starts at 2, not 0)";
    QTest::addRow("ends before the tokens")
        << QList<quint64>{0, 3, 7} << -1 << "docs.bin"
        << "token cache is damaged (the documents end at token 7 but tokens.bin holds 9)";
    QTest::addRow("one offset") << QList<quint64>{0} << -1 << "docs.bin"
                                << "token cache is damaged (8 bytes is not a list of document offsets)";
    QTest::addRow("tokens.bin cut in a token") << QList<quint64>{0, 3, 7, 9} << 34 << "tokens.bin"
                                               << "token cache is damaged (34 bytes is not a whole number of tokens)";
    QTest::addRow("tokens.bin cut between tokens") << QList<quint64>{0, 3, 7, 9} << 32 << "docs.bin"
                                                   << "offset 3 is 9 after 7, with 8 tokens";
}

// A damaged cache (a full disk, a copy cut short) fails on load naming the file, instead of reading out
// of bounds through its offsets.
void TestDataPipeline::damagedCache()
{
    QFETCH(QList<quint64>, offsets);
    QFETCH(int, tokensBytes);
    QFETCH(QString, file);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    testsupport::writeFile(data, "{\"text\":\"ab\"}\n{\"text\":\"cde\"}\n{\"text\":\"f\"}\n");
    const auto built = TokenCache::buildOrLoad(options(dir, data), nullptr);
    QCOMPARE(built->tokens().size(), size_t(9));
    const QString cacheDir = QString::fromStdString(built->directory());
    testsupport::writeFile(cacheDir + "/docs.bin", QByteArray(reinterpret_cast<const char*>(offsets.constData()),
                                                              offsets.size() * qsizetype(sizeof(quint64))));
    if (tokensBytes >= 0)
        std::filesystem::resize_file((cacheDir + "/tokens.bin").toStdString(), static_cast<uintmax_t>(tokensBytes));
    try {
        TokenCache::buildOrLoad(options(dir, data), nullptr);
        QFAIL("a damaged token cache was loaded");
    } catch (const traindeck::InputError& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(m.startsWith(cacheDir + "/" + file + ": "), e.what());
        QVERIFY2(m.contains(message), e.what());
        QVERIFY2(m.contains("delete the directory " + cacheDir), e.what());
    }
}

void TestDataPipeline::qwenTokenizedCache()
{
    const QString tokPath = testsupport::qwenTokenizerJson();
    if (!QFile::exists(tokPath))
        QFAIL("Qwen tokenizer.json missing: run scripts/setup-deps.sh");
    auto tokenizer = traindeck::tok::Tokenizer::fromFile(tokPath.toStdString());
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    const std::vector<std::string> texts = {"Hello, world! It's 2024.", "中文文本 and code: int main() {}",
                                            "emoji 🚀 ok"};
    QByteArray jsonl;
    for (const auto& t : texts)
        jsonl += QByteArray::fromStdString(nlohmann::json{{"text", t}}.dump()) + "\n";
    testsupport::writeFile(data, jsonl);
    auto cache = TokenCache::buildOrLoad(options(dir, data), tokenizer.get());
    QCOMPARE(cache->numDocs(), texts.size());
    QCOMPARE(cache->eosId(), uint32_t(*tokenizer->eosId()));
    std::vector<uint32_t> expected;
    for (const auto& t : texts) {
        for (int32_t id : tokenizer->encode(t))
            expected.push_back(static_cast<uint32_t>(id));
        expected.push_back(cache->eosId());
    }
    QCOMPARE(std::vector<uint32_t>(cache->tokens().begin(), cache->tokens().end()), expected);
}

void TestDataPipeline::packMode()
{
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    testsupport::writeFile(data, "{\"text\":\"abcdefghij\"}\n{\"text\":\"klmnop\"}\n");
    auto cache = TokenCache::buildOrLoad(options(dir, data), nullptr);
    TokenDataset ds(cache, BatchMode::Pack, 8);
    QCOMPARE(ds.size(), int64_t(2)); // 18 tokens -> 2 blocks of 8
    std::vector<int64_t> ids(8), labels(8);
    ds.sample(1, ids.data(), labels.data());
    QCOMPARE(ids, (std::vector<int64_t>{'i', 'j', 256, 'k', 'l', 'm', 'n', 'o'}));
    QCOMPARE(labels, ids);
}

void TestDataPipeline::padMode()
{
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    testsupport::writeFile(data, "{\"text\":\"abc\"}\n{\"text\":\"0123456789\"}\n");
    auto cache = TokenCache::buildOrLoad(options(dir, data), nullptr);
    TokenDataset ds(cache, BatchMode::Pad, 6);
    QCOMPARE(ds.size(), int64_t(2));
    std::vector<int64_t> ids(6), labels(6);
    ds.sample(0, ids.data(), labels.data());
    QCOMPARE(ids, (std::vector<int64_t>{'a', 'b', 'c', 256, 256, 256}));
    QCOMPARE(labels, (std::vector<int64_t>{'a', 'b', 'c', -100, -100, -100}));
    ds.sample(1, ids.data(), labels.data()); // truncated to max_length
    QCOMPARE(ids, (std::vector<int64_t>{'0', '1', '2', '3', '4', '5'}));
}

void TestDataPipeline::tooLittleData()
{
    QTemporaryDir dir;
    const QString data = dir.path() + "/c.jsonl";
    testsupport::writeFile(data, "{\"text\":\"abc\"}\n");
    auto cache = TokenCache::buildOrLoad(options(dir, data), nullptr);
    try {
        TokenDataset ds(cache, BatchMode::Pack, 128);
        QFAIL("accepted");
    } catch (const traindeck::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("fewer than one sequence"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestDataPipeline)
#include "tst_data_pipeline.moc"
