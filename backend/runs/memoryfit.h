// Before a launch: the trainer's memory plan for a spec (`traindeck-trainer plan`, per rank) against the
// memory the profile's nodes had at their last checks (cluster/savednodememory.h): whether it fits and,
// when not, the flags that would make it. The Launch page and `traindeck-cli launch --dry-run` show it;
// a launch that does not fit is warned about, not refused (the plan is an estimate).
#pragma once

#include "cluster/clusterprofile.h"
#include "cluster/savednodememory.h"
#include "common/result.h"
#include "launch/jobspec.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

namespace traindeck::runs {

// What one rank may use: a GPU's memory on GPU nodes, else the node's RAM shared by its ranks; the
// smallest over the nodes, and which node that is.
struct RankMemory {
    bool gpu = false;
    double availableMiB = 0;
    QString node;  // the node that sets it
    QString basis; // translated: "RAM of node2 (62.8 GiB) / 4 ranks"
};

struct MemoryFit {
    Q_DECLARE_TR_FUNCTIONS(traindeck::runs::MemoryFit)

  public:
    int ranks = 0;
    double totalMiB = 0;              // the plan's total per rank
    QString planText;                 // the plan as the trainer prints it
    std::optional<RankMemory> memory; // unset: the profile's nodes were not checked
    QString checkedAt;                // when they were, local time
    bool fits = true;                 // true when not compared
    QStringList suggestions;          // flags that would fit, with their totals

    // One translated line for a launch: what fits or does not, or why there was nothing to compare with.
    QString verdict() const;
};

// The ranks of a spec on a profile (spec.ranks, else the profile's slots or Slurm's tasks).
int ranksOf(const launch::JobSpec& spec, const cluster::ClusterProfile& profile);

// Pure: what a rank may use on the profile's nodes by the saved record (wantGpu: the ranks use GPUs).
// Unset when no node of the profile is in the record.
std::optional<RankMemory> rankMemory(const cluster::ClusterProfile& profile, const cluster::SavedNodeMemory& saved,
                                     int ranks, bool wantGpu);

// Runs `trainer plan --json` with the spec's flags (a process of a second or so: not on the GUI thread).
// Fails with the trainer's own message when it cannot plan (e.g. a --model directory only the nodes have).
Result<MemoryFit> planMemoryFit(const launch::JobSpec& spec, const cluster::ClusterProfile& profile,
                                const QString& trainer);

} // namespace traindeck::runs
