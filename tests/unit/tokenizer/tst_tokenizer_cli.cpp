// `traindeck-trainer tokenize …` as a process: output format, stdin/file input, --special, --stats,
// --threads, --decode, and exit code 2 with a message naming the file and fault for bad input.
// The executable is the build's traindeck-trainer (TRAINDECK_TRAINER, test_paths.h).
#include <QTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <filesystem>

#include "reference_runner.h"
#include "test_corpus.h"
#include "test_paths.h"
#include "tokenizer/bpe_tokenizer.h"

using namespace traindeck::tok;
namespace T = traindeck::tok::testing;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run runTool(const QStringList& args, const QByteArray& stdinData = {})
{
    QProcess p;
    p.start(QString::fromUtf8(TRAINDECK_TRAINER), QStringList{"tokenize"} + args);
    Run r;
    if (!p.waitForStarted(10000)) {
        r.err = QByteArray("could not start ") + TRAINDECK_TRAINER;
        return r;
    }
    if (!stdinData.isEmpty())
        p.write(stdinData);
    p.closeWriteChannel();
    if (!p.waitForFinished(120000)) {
        p.kill();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QByteArray idsLine(const std::vector<int32_t>& ids)
{
    QByteArray s;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i)
            s += ' ';
        s += QByteArray::number(ids[i]);
    }
    return s + '\n';
}

} // namespace

class TestTokenizerCli : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string text_; // a mixed, NFC-clean input of ~200 KB
    QString textFile_, qwen_, tiny_, distill_;
    std::unique_ptr<BpeTokenizer> qwenTok_;

    QString file(const QString& name) const { return tmp_.path() + "/" + name; }

  private Q_SLOTS:
    void initTestCase();
    void encodesFileLikeTheLibrary();
    void readsStdin();
    void threadsGiveSameIds();
    void specialAddsDistillBos();
    void statsLine();
    void decodeRoundTrip();
    void replaceInvalid();
    void help();
    void badInputExitsWith2_data();
    void badInputExitsWith2();
};

void TestTokenizerCli::initTestCase()
{
    QVERIFY(tmp_.isValid());
    QVERIFY2(std::filesystem::exists(TRAINDECK_TRAINER),
             qPrintable(QStringLiteral("tokenize executable not built: %1").arg(QString::fromUtf8(TRAINDECK_TRAINER))));
    QVERIFY2(std::filesystem::exists(T::qwenTokenizerPath()),
             ("Qwen tokenizer.json missing: " + T::qwenTokenizerPath() + "; run scripts/setup-deps.sh").c_str());
    qwen_ = QString::fromStdString(T::qwenTokenizerPath());
    tiny_ = QString::fromStdString(T::tinyFixturePath());
    qwenTok_ = BpeTokenizer::load(T::qwenTokenizerPath());
    for (const auto& d : T::makeCorpus(200 << 10, 7))
        text_ += d + "\n";
    text_ = qwenTok_->decode(qwenTok_->encode(text_)); // NFC, so decode(encode(x)) == x below
    textFile_ = file("input.txt");
    T::writeFile(textFile_.toStdString(), text_);
    T::writeDistillFixture(T::qwenTokenizerPath(), file("distill").toStdString(), true);
    distill_ = file("distill/tokenizer.json");
}

void TestTokenizerCli::encodesFileLikeTheLibrary()
{
    const Run r = runTool({"--tokenizer", qwen_, "--input", textFile_});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    QVERIFY(r.out == idsLine(qwenTok_->encode(text_)));
    // Added tokens written in the text are matched without --special.
    T::writeFile(file("chat.txt").toStdString(), "<|im_start|>user\nhi<|im_end|>");
    const Run c = runTool({"--tokenizer", qwen_, "--input", file("chat.txt")});
    QCOMPARE(c.exitCode, 0);
    QVERIFY(c.out.startsWith("151644 "));
    QVERIFY(c.out.endsWith(" 151645\n"));
}

void TestTokenizerCli::readsStdin()
{
    const QByteArray in = QByteArray::fromStdString(text_.substr(0, 20000));
    const Run r = runTool({"--tokenizer=" + qwen_}, in);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out == idsLine(qwenTok_->encode(in.toStdString())));
    const Run empty = runTool({"--tokenizer", qwen_});
    QCOMPARE(empty.exitCode, 0);
    QCOMPARE(empty.out, QByteArray("\n"));
}

void TestTokenizerCli::threadsGiveSameIds()
{
    const Run one = runTool({"--tokenizer", qwen_, "--input", textFile_, "--threads", "1"});
    const Run two = runTool({"--tokenizer", qwen_, "--input", textFile_, "--threads", "2"});
    const Run all = runTool({"--tokenizer", qwen_, "--input", textFile_, "--threads", "0"});
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(two.exitCode, 0);
    QCOMPARE(all.exitCode, 0);
    QVERIFY(one.out == two.out);
    QVERIFY(one.out == all.out);
}

void TestTokenizerCli::specialAddsDistillBos()
{
    T::writeFile(file("hello.txt").toStdString(), "Hello<think>x</think>");
    const Run plain = runTool({"--tokenizer", distill_, "--input", file("hello.txt")});
    const Run special = runTool({"--tokenizer", distill_, "--input", file("hello.txt"), "--special"});
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(special.exitCode, 0);
    QCOMPARE(special.out, "151646 " + plain.out);
    QVERIFY(plain.out.contains(" 151648 ") && plain.out.endsWith(" 151649\n"));
    // Qwen's own file has no template: --special changes nothing.
    const Run q1 = runTool({"--tokenizer", qwen_, "--input", file("hello.txt")});
    const Run q2 = runTool({"--tokenizer", qwen_, "--input", file("hello.txt"), "--special"});
    QCOMPARE(q1.out, q2.out);
}

void TestTokenizerCli::statsLine()
{
    const Run r = runTool({"--tokenizer", qwen_, "--input", textFile_, "--stats", "--threads", "2"});
    QCOMPARE(r.exitCode, 0);
    const QList<QByteArray> lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(lines[0], &pe);
    QVERIFY2(doc.isObject(), lines[0].constData());
    const QJsonObject o = doc.object();
    QCOMPARE(o.keys(), (QStringList{"bytes", "seconds", "threads", "tokens"}));
    QCOMPARE(o["bytes"].toInteger(), static_cast<qint64>(text_.size()));
    QCOMPARE(o["tokens"].toInteger(), static_cast<qint64>(r.out.trimmed().split(' ').size()));
    QCOMPARE(o["threads"].toInt(), 2);
    QVERIFY(o["seconds"].toDouble() > 0 && o["seconds"].toDouble() < 60);
}

void TestTokenizerCli::decodeRoundTrip()
{
    const Run enc = runTool({"--tokenizer", qwen_, "--input", textFile_});
    QCOMPARE(enc.exitCode, 0);
    T::writeFile(file("ids.txt").toStdString(), enc.out.toStdString());
    const Run dec = runTool({"--tokenizer", qwen_, "--decode", "--input", file("ids.txt")});
    QCOMPARE(dec.exitCode, 0);
    QVERIFY(dec.out == QByteArray::fromStdString(text_));
    // Ids on stdin, any white space between them; --skip-special drops special tokens.
    const Run d2 = runTool({"--tokenizer", distill_, "--decode", "--skip-special"}, "151646\t9707\n 1879 \n151643");
    QCOMPARE(d2.exitCode, 0);
    QCOMPARE(d2.out, QByteArray("Hello world"));
    const Run d3 = runTool({"--tokenizer", distill_, "--decode"}, "151646 9707");
    QCOMPARE(d3.out, QByteArray("<｜begin▁of▁sentence｜>Hello"));
}

void TestTokenizerCli::replaceInvalid()
{
    const QByteArray bad("ab\xFF"
                         "cd");
    const Run r = runTool({"--tokenizer", qwen_, "--replace-invalid"}, bad);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out == idsLine(qwenTok_->encode("ab\xEF\xBF\xBD"
                                              "cd")));
}

void TestTokenizerCli::help()
{
    const Run r = runTool({"--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("--tokenizer"));
}

void TestTokenizerCli::badInputExitsWith2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QStringList>("expected"); // substrings of stderr
    const QString tiny = QString::fromStdString(T::tinyFixturePath());
    const QString missing = tmp_.path() + "/no-such-dir/tokenizer.json";
    T::writeFile(file("broken.json").toStdString(), "{ \"model\": [");
    T::writeFile(file("bad-utf8.txt").toStdString(), "abc\xC3(");
    QTest::newRow("no tokenizer") << QStringList{} << QByteArray() << QStringList{"--tokenizer"};
    QTest::newRow("unknown flag") << QStringList{"--tokenizer", tiny, "--bogus"} << QByteArray()
                                  << QStringList{"unknown option '--bogus'"};
    QTest::newRow("flag without value") << QStringList{"--tokenizer"} << QByteArray() << QStringList{"needs a value"};
    QTest::newRow("missing tokenizer") << QStringList{"--tokenizer", missing} << QByteArray()
                                       << QStringList{missing, "cannot open", "No such file"};
    QTest::newRow("invalid tokenizer.json") << QStringList{"--tokenizer", file("broken.json")} << QByteArray()
                                            << QStringList{file("broken.json"), "not valid JSON"};
    QTest::newRow("missing input") << QStringList{"--tokenizer", tiny, "--input", file("nope.txt")} << QByteArray()
                                   << QStringList{file("nope.txt"), "cannot open"};
    QTest::newRow("bad threads") << QStringList{"--tokenizer", tiny, "--threads", "two"} << QByteArray()
                                 << QStringList{"--threads", "'two'"};
    QTest::newRow("invalid UTF-8 file") << QStringList{"--tokenizer", tiny, "--input", file("bad-utf8.txt")}
                                        << QByteArray() << QStringList{file("bad-utf8.txt"), "byte offset 3"};
    QTest::newRow("invalid UTF-8 stdin") << QStringList{"--tokenizer", tiny} << QByteArray("ok\x80")
                                         << QStringList{"standard input", "byte offset 2"};
    QTest::newRow("decode non-number") << QStringList{"--tokenizer", tiny, "--decode"} << QByteArray("12 abc")
                                       << QStringList{"'abc'", "byte offset 3"};
    QTest::newRow("decode unknown id") << QStringList{"--tokenizer", tiny, "--decode"} << QByteArray("1 99999999")
                                       << QStringList{"99999999", "not in the vocabulary"};
}

void TestTokenizerCli::badInputExitsWith2()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, input);
    QFETCH(QStringList, expected);
    const Run r = runTool(args, input);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1); // one clear line
    for (const QString& e : expected)
        QVERIFY2(r.err.contains(e.toUtf8()), r.err.constData());
}

QTEST_GUILESS_MAIN(TestTokenizerCli)
#include "tst_tokenizer_cli.moc"
