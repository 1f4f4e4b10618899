// The cross-node matrix: the comparable value of each check on every node, and the differences that
// matter.
#include "checks/nodecheck.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace traindeck::checks {

void buildMatrix(CheckReport& report)
{
    struct Row {
        const char* id;
        const char* title;
        CheckStatus severity;
        const char* remedy;
    };
    static const Row rows[] = {
        {"os", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Operating system"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Different systems may ship different library versions.")},
        {"gpu", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "GPUs and driver"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Different GPUs or drivers: the slowest node sets the pace; use the same driver everywhere.")},
        {"cuda", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "CUDA"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Use the same CUDA version on every node.")},
        {"nccl", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "NCCL"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Different NCCL versions can hang or fail in collectives; install the same one everywhere.")},
        {"mpi", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Open MPI"), CheckStatus::Fail,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Open MPI must be the same version on every node; install the head's version on all nodes.")},
        {"trainer", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "traindeck-trainer"), CheckStatus::Fail,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker",
                           "Every node must run the same traindeck-trainer version: deploy the head's binary to the "
                           "nodes that differ.")},
        {"network", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "NCCL_SOCKET_IFNAME"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker",
                           "The interfaces have different names: set NCCL_SOCKET_IFNAME in the profile's env to a "
                           "common prefix or a comma-separated list.")},
    };
    report.matrix.clear();
    if (report.nodes.size() < 2)
        return;
    int headIdx = 0;
    for (int i = 0; i < report.nodes.size(); ++i) {
        if (report.nodes.at(i).isHead)
            headIdx = i;
    }
    for (const Row& row : rows) {
        MatrixRow m;
        m.id = QString::fromLatin1(row.id);
        m.title = QCoreApplication::translate("traindeck::checks::NodeChecker", row.title);
        QSet<QString> distinct;
        for (const NodeReport& n : report.nodes) {
            const CheckResult* r = n.find(m.id);
            const QString v = r ? r->value : QString();
            m.values << v;
            if (!v.isEmpty())
                distinct.insert(v);
        }
        m.differs = distinct.size() > 1;
        m.severity = row.severity;
        if (m.differs) {
            m.remedy = QCoreApplication::translate("traindeck::checks::NodeChecker", row.remedy);
            // The nodes that differ from the head get the finding on their own result too. A Slurm login
            // node runs no environment checks: there the first compute node is the reference.
            QString reference = m.values.value(headIdx);
            int referenceIdx = headIdx;
            for (int i = 0; reference.isEmpty() && i < m.values.size(); ++i) {
                reference = m.values.at(i);
                referenceIdx = i;
            }
            for (int i = 0; i < report.nodes.size(); ++i) {
                if (reference.isEmpty() || m.values.at(i).isEmpty() || m.values.at(i) == reference)
                    continue;
                for (CheckResult& r : report.nodes[i].results) {
                    if (r.id != m.id)
                        continue;
                    if (row.severity == CheckStatus::Fail || r.status == CheckStatus::Pass)
                        r.status = row.severity;
                    r.summary += referenceIdx == headIdx ? QCoreApplication::translate("traindeck::checks::NodeChecker",
                                                                                       "; differs from the head (%1)")
                                                               .arg(reference)
                                                         : QCoreApplication::translate("traindeck::checks::NodeChecker",
                                                                                       "; differs from %1 (%2)")
                                                               .arg(report.nodes.at(referenceIdx).node, reference);
                    r.remedy = (r.remedy.isEmpty() ? QString() : r.remedy + QLatin1Char('\n')) + m.remedy;
                }
            }
        }
        report.matrix.append(m);
    }
}

QList<QList<int>> agreeingNodeGroups(const CheckReport& report)
{
    // A node's signature: every check's id and status, then its value in each matrix row.
    QHash<QString, int> groupOf;
    QList<QList<int>> groups;
    for (int i = 0; i < report.nodes.size(); ++i) {
        QStringList signature;
        for (const CheckResult& r : report.nodes.at(i).results)
            signature << r.id + QLatin1Char('=') + checkStatusName(r.status);
        for (const MatrixRow& m : report.matrix)
            signature << m.id + QLatin1Char(':') + m.values.value(i);
        const QString key = signature.join(QChar(0x1f));
        const auto it = groupOf.constFind(key);
        if (it == groupOf.constEnd()) {
            groupOf.insert(key, int(groups.size()));
            groups.append(QList<int>{i});
        } else {
            groups[*it].append(i);
        }
    }
    // The largest group first (the earliest of equal size), the rest in node order.
    const auto largest = std::max_element(groups.begin(), groups.end(),
                                          [](const QList<int>& a, const QList<int>& b) { return a.size() < b.size(); });
    if (largest != groups.end())
        std::rotate(groups.begin(), largest, largest + 1);
    return groups;
}

} // namespace traindeck::checks
