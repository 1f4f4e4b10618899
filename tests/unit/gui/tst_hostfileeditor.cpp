#include "hostfileeditor.h"

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

using namespace traindeck;
using namespace traindeck::gui;
using cluster::HostfileFormat;

class TestHostfileEditor : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void validation_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("errorLine"); // line of the first error (0: none)
        QTest::addColumn<int>("hosts");
        QTest::addRow("openmpi ok") << int(HostfileFormat::OpenMpi)
                                    << QStringLiteral("# lab\nnode1 slots=8\nnode2 slots=8\n") << true << 0 << 2;
        QTest::addRow("openmpi bad slots")
            << int(HostfileFormat::OpenMpi) << QStringLiteral("node1 slots=8\nnode2 slots=x\n") << false << 2 << 0;
        QTest::addRow("openmpi bad host")
            << int(HostfileFormat::OpenMpi) << QStringLiteral("node1\n-bad slots=2\n") << false << 2 << 0;
        QTest::addRow("deepspeed needs slots")
            << int(HostfileFormat::DeepSpeed) << QStringLiteral("worker-1 slots=4\nworker-2\n") << false << 2 << 0;
        QTest::addRow("deepspeed ok") << int(HostfileFormat::DeepSpeed)
                                      << QStringLiteral("worker-1 slots=4\nworker-2 slots=4\n") << true << 0 << 2;
        QTest::addRow("mpich ok") << int(HostfileFormat::Mpich) << QStringLiteral("a:2\nb:2\n") << true << 0 << 2;
        QTest::addRow("mpich bad count") << int(HostfileFormat::Mpich) << QStringLiteral("a:2\nb:zero\n") << false << 2
                                         << 0;
        QTest::addRow("empty") << int(HostfileFormat::OpenMpi) << QString() << false << 1 << 0;
    }
    void validation()
    {
        QFETCH(int, format);
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(int, errorLine);
        QFETCH(int, hosts);
        HostfileEditor editor;
        editor.setFormat(HostfileFormat(format));
        QSignalSpy spy(&editor, &HostfileEditor::validated);
        editor.textEdit()->setPlainText(text);
        // Validation is debounced: nothing yet, then once.
        QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, 2000);
        QCOMPARE(spy.at(0).at(0).toBool(), valid);
        QCOMPARE(editor.hostfile().has_value(), valid);
        if (valid) {
            QCOMPARE(editor.hostfile()->mergedHosts().size(), hosts);
            QVERIFY(editor.summaryLabel()->text().startsWith(QStringLiteral("Valid")));
        } else {
            QVERIFY(!editor.diagnostics().isEmpty());
            QCOMPARE(editor.diagnostics().first().line, errorLine);
            QVERIFY(editor.diagnosticsList()->count() >= 1);
            QVERIFY(editor.diagnosticsList()->item(0)->text().contains(editor.diagnostics().first().message));
        }
    }
    void errorIsUnderlinedAndJumpable()
    {
        HostfileEditor editor;
        editor.setText(QStringLiteral("node1 slots=8\nnode2 slots=x\n"));
        QVERIFY(!editor.hostfile());
        const auto d = editor.diagnostics().first();
        // The highlighter put a wavy underline on the error's line.
        const QTextBlock block = editor.textEdit()->document()->findBlockByNumber(d.line - 1);
        bool wavy = false;
        for (const QTextLayout::FormatRange& r : block.layout()->formats())
            wavy = wavy || r.format.underlineStyle() == QTextCharFormat::WaveUnderline;
        QVERIFY(wavy);
        // Activating the problem moves the cursor there.
        editor.jumpTo(0);
        QCOMPARE(editor.textEdit()->textCursor().blockNumber(), d.line - 1);
        QCOMPARE(editor.textEdit()->textCursor().positionInBlock(), d.column - 1);
        // Fixing the text clears the problems.
        editor.setText(QStringLiteral("node1 slots=8\nnode2 slots=4\n"));
        QVERIFY(editor.hostfile());
        QCOMPARE(editor.diagnosticsList()->count(), 0);
    }
    void formatChangeConverts()
    {
        HostfileEditor editor;
        editor.setText(QStringLiteral("node1 slots=8\nnode2 slots=4\n"));
        editor.setFormat(HostfileFormat::Mpich);
        QCOMPARE(editor.format(), HostfileFormat::Mpich);
        QVERIFY(editor.text().contains(QStringLiteral("node1:8")));
        QVERIFY(editor.hostfile());
        editor.setFormat(HostfileFormat::DeepSpeed);
        QVERIFY(editor.text().contains(QStringLiteral("node2 slots=4")));
    }
    void importExport()
    {
        QTemporaryDir dir;
        const QString in = dir.filePath(QStringLiteral("ds"));
        QFile f(in);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("worker-1 slots=2\nworker-2 slots=2\n");
        f.close();
        HostfileEditor editor;
        QVERIFY(editor.importFile(in, HostfileFormat::DeepSpeed));
        const Status missing = editor.importFile(dir.filePath(QStringLiteral("missing")), HostfileFormat::OpenMpi);
        QVERIFY(!missing);
        QCOMPARE(missing.firstError().file, dir.filePath(QStringLiteral("missing")));
        QCOMPARE(editor.format(), HostfileFormat::DeepSpeed);
        QVERIFY(editor.hostfile());
        const QString out = dir.filePath(QStringLiteral("mpich"));
        const Status exported = editor.exportFile(out, HostfileFormat::Mpich);
        QVERIFY2(exported, qPrintable(exported.errorString()));
        QFile g(out);
        QVERIFY(g.open(QIODevice::ReadOnly));
        const QByteArray text = g.readAll();
        QVERIFY(text.contains("worker-1:2"));
        QVERIFY(text.contains("worker-2:2"));
        // An invalid hostfile is not exported.
        editor.setText(QStringLiteral("worker-1 slots=-3\n"));
        const Status invalid = editor.exportFile(out, HostfileFormat::OpenMpi);
        QVERIFY(!invalid);
        QVERIFY2(invalid.errorString().contains(QStringLiteral("Fix the errors")), qPrintable(invalid.errorString()));
    }
};

QTEST_MAIN(TestHostfileEditor)
#include "tst_hostfileeditor.moc"
