// TRAINDECK_CHECKED (dist/checked_call.h): the one macro every MPI, NCCL and CUDA call goes through hands
// its checker the result, the called function's name, the file and the line.
#include "dist/checked_call.h"

#include <QTest>

#include <string>

namespace {

struct Checked {
    int rc = -1;
    std::string call, file;
    int line = 0;
};

Checked last;

void recordingChecker(int rc, std::string_view call, const char* file, int line)
{
    last = {rc, std::string(call), file, line};
}

int fakeLibraryCall(int a, int b)
{
    return a + b;
}

} // namespace

class TestCheckedCall : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void passesResultNameFileAndLine()
    {
        const int line = __LINE__ + 1;
        TRAINDECK_CHECKED(recordingChecker, fakeLibraryCall(2, (3)));
        QCOMPARE(last.rc, 5);
        QCOMPARE(QString::fromStdString(last.call), QStringLiteral("fakeLibraryCall"));
        QVERIFY2(last.file.ends_with("tst_checked_call.cpp"), last.file.c_str());
        QCOMPARE(last.line, line);
    }

    void calledFunctionIsTheTextBeforeTheParenthesis()
    {
        static_assert(traindeck::dist::calledFunction("MPI_Bcast(t.data_ptr(), n, MPI_BYTE, 0, comm)") == "MPI_Bcast");
        static_assert(traindeck::dist::calledFunction("rc") == "rc"); // a result checked after the call
        QVERIFY(true);
    }
};

QTEST_GUILESS_MAIN(TestCheckedCall)
#include "tst_checked_call.moc"
