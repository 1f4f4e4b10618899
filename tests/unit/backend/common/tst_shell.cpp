// verifiedReplaceScript (common/shell.h), the upload every SSH file write and deploy use, run through
// /bin/sh as the head node runs it: the file is replaced only by bytes of the announced length and
// hash; an upload cut short (the connection dropped: the input just ends) or damaged leaves the old
// file and no temporary file behind (issue #17, 5).
#include "common/shell.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace traindeck;

class TestShell : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    struct Outcome {
        int exitCode = -1;
        QByteArray out, err;
    };
    static Outcome upload(const QString& path, const QByteArray& sent, const QByteArray& arrived, int mode = 0640)
    {
        const QByteArray hash = QCryptographicHash::hash(sent, QCryptographicHash::Sha256).toHex();
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"),
                 {QStringLiteral("-c"), verifiedReplaceScript(shellQuote(path), mode, sent.size(), hash)});
        if (!sh.waitForStarted(10000))
            return {};
        sh.write(arrived);
        sh.closeWriteChannel(); // the end of the input, as when a connection drops
        if (!sh.waitForFinished(30000))
            return {};
        return {sh.exitCode(), sh.readAllStandardOutput(), sh.readAllStandardError()};
    }
    static QByteArray contents(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }
    static int modeOf(const QString& path)
    {
        struct stat st {};
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 07777) : -1;
    }
    QStringList leftovers() const
    {
        return QDir(m_tmp.path()).entryList({QStringLiteral("*traindeck-tmp*")}, QDir::Files | QDir::Hidden);
    }

  private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void replacesWithWhatWasSent()
    {
        const QString path = m_tmp.filePath(QStringLiteral("new dir/it's a file"));
        QByteArray data("binary\0data\n", 12);
        data += QByteArray(300000, 'x');
        const Outcome r = upload(path, data, data, 0750);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(contents(path), data);
        QCOMPARE(modeOf(path), 0750);
        QVERIFY(r.out.startsWith("sha256 " + QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex()));
        // An empty file is a file too.
        QCOMPARE(upload(path, QByteArray(), QByteArray()).exitCode, 0);
        QCOMPARE(contents(path), QByteArray());
    }

    void cutUploadKeepsTheWorkingFile()
    {
        const QString path = m_tmp.filePath(QStringLiteral("traindeck-trainer"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("the working build\n");
        f.close();
        QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QByteArray build(100000, 'b');
        const Outcome r = upload(path, build, build.left(4096), 0755);
        QCOMPARE(r.exitCode, kUploadDamaged);
        QVERIFY2(r.err.contains("4096 of 100000 bytes"), r.err.constData());
        QCOMPARE(contents(path), QByteArray("the working build\n"));
        QCOMPARE(modeOf(path), 0700);
        QCOMPARE(leftovers(), QStringList());
    }

    void damagedUploadKeepsTheWorkingFile()
    {
        const QString path = m_tmp.filePath(QStringLiteral("authorized"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("old\n");
        f.close();
        QByteArray damaged("new!\n");
        const Outcome r = upload(path, QByteArray("new.\n"), damaged);
        QCOMPARE(r.exitCode, kUploadDamaged);
        QVERIFY2(r.err.contains("sha256"), r.err.constData());
        QCOMPARE(contents(path), QByteArray("old\n"));
        QCOMPARE(leftovers(), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestShell)
#include "tst_shell.moc"
