// Dynamic load balancing on this machine: --balance off against --balance auto, interleaved, with one rank
// slower per sample (--inject-slowdown RANK:FACTOR: its forward and backward take FACTOR times as long, so
// its delay shrinks when it gets fewer samples, as a slower node's would) and with all ranks equal.
// Every repetition runs each configuration once in the order (slow, off), (slow, auto), (equal, off),
// (equal, auto), so a slower minute of this shared machine falls on both modes alike.
//
// --quota PCT: every rank runs in a CPU cgroup of its own (cgroup v2 cpu.max, else v1's cpu.cfs_quota_us)
// with PCT % of one CPU, the slower one with PCT / FACTOR % instead of --inject-slowdown: a node that is
// slower per sample because it has less CPU, as `scripts/testbed.sh throttle` makes one. With the quotas
// adding up to less than the machine, a rank's speed is its quota's and not what the others leave it: the
// MPI ranks that poll while they wait for an allreduce burn their own quota, not a neighbour's core.
// Needs root (it writes under /sys/fs/cgroup); the cgroups are removed after each run (a benchmark killed
// midway leaves them, empty once its ranks are gone: the next run takes them over and removes them).
//
// --together on (with --quota): the off and auto runs of a configuration run at the same time, each rank in a
// cgroup of its own (give each rank half the quota you would give it alone), so that both see the same
// minutes of this shared machine: identical runs minutes apart differ by up to 12 % here.
//
// Per run: the median over the measured steps (those after two balancing windows) of per-step tokens/s,
// the median step, the step the first new split took effect, and how many times the split changed after
// the second window (a split that oscillates changes there). Per configuration: the median of the runs
// and their range; the verdict is auto/off per repetition (the pair ran back to back), its median and range.
//   bench_balance [--ranks 2] [--factor 1.5] [--reps 3] [--steps 30] [--every 5] [--micro-batch 16]
//                 [--seq-len 32] [--quota PCT] [--together on] [--data FILE]
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Settings {
    int ranks = 2, reps = 3, steps = 30, every = 5, microBatch = 16, seqLen = 32;
    double factor = 1.5;
    double quota = 0;      // % of one CPU per rank (0: no cgroups, --inject-slowdown)
    bool together = false; // off and auto at the same time (--together)
    std::string data = std::string(TRAINDECK_CACHE_DIR) + "/demo/corpus.jsonl";
};

struct RunResult {
    double tokensPerS = 0, stepMs = 0;
    int firstRebalance = 0; // the first step with a new split (0: none)
    int changesAfterWindows = 0;
    std::vector<int64_t> lastShares;
};

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string quote(const std::string& s)
{
    return "'" + s + "'";
}

std::string joined(const std::vector<int64_t>& v)
{
    std::string text;
    for (size_t i = 0; i < v.size(); ++i)
        text += (i ? "/" : "") + std::to_string(v[i]);
    return text;
}

RunResult readRun(const std::string& metrics, int measuredFrom, int windowsEnd)
{
    RunResult r;
    std::vector<double> tokensPerS, stepMs;
    std::vector<int64_t> previous;
    std::ifstream in(metrics);
    for (std::string line; std::getline(in, line);) {
        const auto j = nlohmann::json::parse(line);
        if (j["type"] != "step")
            continue;
        const int step = j["step"].get<int>();
        const auto shares = j["samples"].get<std::vector<int64_t>>();
        if (!previous.empty() && shares != previous) {
            if (r.firstRebalance == 0)
                r.firstRebalance = step;
            if (step > windowsEnd)
                ++r.changesAfterWindows;
        }
        previous = shares;
        if (step < measuredFrom)
            continue;
        const double ms = j["step_ms"][0].get<double>();
        stepMs.push_back(ms);
        tokensPerS.push_back(j["tokens"].get<double>() / (ms / 1000.0));
    }
    r.tokensPerS = median(tokensPerS);
    r.stepMs = median(stepMs);
    r.lastShares = previous;
    return r;
}

// The CPU cgroups of one run: `rankK` under a folder of the hierarchy that has the cpu controller.
class RankCgroups {
  public:
    // Quotas in % of one CPU, by rank, for the job `job` (a folder of its own: two jobs can run at once).
    // Exits with 2 where this machine has no writable cpu controller.
    RankCgroups(const std::vector<double>& quotas, const std::string& job)
    {
        if (std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers"); controllers) {
            std::string list;
            std::getline(controllers, list);
            v2_ = (" " + list + " ").find(" cpu ") != std::string::npos;
        }
        const fs::path root = v2_ ? "/sys/fs/cgroup" : "/sys/fs/cgroup/cpu";
        if (!v2_ && !fs::exists(root / "cpu.cfs_quota_us"))
            fail("this machine has no cgroup with the cpu controller (v2 cpu.max or v1 cpu)");
        parent_ = root / "traindeck-bench-balance";
        dir_ = parent_ / job;
        if (v2_)
            write(root / "cgroup.subtree_control", "+cpu");
        fs::create_directories(dir_);
        if (v2_) {
            write(parent_ / "cgroup.subtree_control", "+cpu");
            write(dir_ / "cgroup.subtree_control", "+cpu");
        }
        constexpr long kPeriodUs = 10000; // 10 ms: a step of a second is throttled in a hundred slices
        for (size_t k = 0; k < quotas.size(); ++k) {
            const fs::path cg = dir_ / ("rank" + std::to_string(k));
            fs::create_directories(cg);
            const long quotaUs = std::lround(quotas[k] / 100.0 * kPeriodUs);
            if (v2_) {
                write(cg / "cpu.max", std::to_string(quotaUs) + " " + std::to_string(kPeriodUs));
            } else {
                write(cg / "cpu.cfs_period_us", std::to_string(kPeriodUs));
                write(cg / "cpu.cfs_quota_us", std::to_string(quotaUs));
            }
        }
    }
    ~RankCgroups()
    {
        // The ranks have ended; an empty cgroup is removed with rmdir (its files go with it).
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir_, ec))
            if (entry.is_directory())
                ::rmdir(entry.path().c_str());
        ::rmdir(dir_.c_str());
        ::rmdir(parent_.c_str()); // fails while the other job's folder is there
    }
    RankCgroups(const RankCgroups&) = delete;
    RankCgroups& operator=(const RankCgroups&) = delete;

    // A command that puts the process into its rank's cgroup, then runs the rest of its arguments.
    std::string enter() const
    {
        return "sh -c " +
               quote("echo $$ > " + dir_.string() + "/rank$OMPI_COMM_WORLD_RANK/cgroup.procs && exec \"$@\"") +
               " rank-in-cgroup ";
    }

  private:
    static void fail(const std::string& why)
    {
        std::fprintf(stderr, "bench_balance: --quota: %s\n", why.c_str());
        std::exit(2);
    }
    static void write(const fs::path& file, const std::string& value)
    {
        std::ofstream out(file);
        out << value << std::flush;
        if (!out)
            fail("cannot write '" + value + "' to " + file.string() + " (root needed)");
    }

    bool v2_ = false;
    fs::path parent_, dir_;
};

// One training job of the benchmark: its command line (with its cgroups under --quota) and its metrics.
struct Job {
    std::string out, metrics, cmd;
    std::unique_ptr<RankCgroups> cgroups;
};

Job job(const Settings& s, const std::string& work, const std::string& label, double factor, const std::string& mode)
{
    Job j;
    j.out = work + "/" + label;
    j.metrics = j.out + ".jsonl";
    fs::remove_all(j.out);
    fs::remove(j.metrics);
    if (s.quota > 0) {
        std::vector<double> quotas(size_t(s.ranks), s.quota);
        quotas.back() = s.quota / factor;
        j.cgroups = std::make_unique<RankCgroups>(quotas, label);
    }
    j.cmd = "mpirun -np " + std::to_string(s.ranks) + " --bind-to none --oversubscribe " +
            (j.cgroups ? j.cgroups->enter() : std::string()) + quote(TRAINDECK_TRAINER) +
            " train --preset qwen2-tiny --data " + quote(s.data) + " --max-steps " + std::to_string(s.steps) +
            " --seq-len " + std::to_string(s.seqLen) + " --micro-batch " + std::to_string(s.microBatch) +
            " --threads 1 --out " + quote(j.out) + " --metrics-out " + quote(j.metrics) +
            " --log-every 1000 --checkpoint-every 0 --balance " + mode + " --balance-every " + std::to_string(s.every);
    if (factor > 1 && !j.cgroups)
        j.cmd += " --inject-slowdown " + std::to_string(s.ranks - 1) + ":" + std::to_string(factor);
    j.cmd += " >/dev/null 2>&1";
    return j;
}

// Runs the jobs at the same time (one: alone) and reads their results.
std::vector<RunResult> run(const Settings& s, std::vector<Job>& jobs)
{
    std::string script;
    for (size_t i = 0; i < jobs.size(); ++i)
        script += "{ " + jobs[i].cmd + "; } & p" + std::to_string(i) + "=$!; ";
    script += "ok=0; ";
    for (size_t i = 0; i < jobs.size(); ++i)
        script += "wait $p" + std::to_string(i) + " || ok=1; ";
    script += "exit $ok";
    if (std::system(script.c_str()) != 0) {
        std::fprintf(stderr, "bench_balance: the trainer failed: %s\n", script.c_str());
        jobs.clear(); // std::exit does not unwind: remove the cgroups first
        std::exit(1);
    }
    const int windowsEnd = 2 * s.every + 1; // a decision at step k takes effect at step k + 1
    std::vector<RunResult> results;
    for (Job& j : jobs) {
        results.push_back(readRun(j.metrics, windowsEnd + 1, windowsEnd));
        fs::remove_all(j.out);
        j.cgroups.reset();
    }
    return results;
}

bool parse(int argc, char** argv, Settings& s)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--ranks")
            s.ranks = std::atoi(v.c_str());
        else if (a == "--factor")
            s.factor = std::atof(v.c_str());
        else if (a == "--reps")
            s.reps = std::atoi(v.c_str());
        else if (a == "--steps")
            s.steps = std::atoi(v.c_str());
        else if (a == "--every")
            s.every = std::atoi(v.c_str());
        else if (a == "--micro-batch")
            s.microBatch = std::atoi(v.c_str());
        else if (a == "--seq-len")
            s.seqLen = std::atoi(v.c_str());
        else if (a == "--quota")
            s.quota = std::atof(v.c_str());
        else if (a == "--together")
            s.together = v == "on";
        else if (a == "--data")
            s.data = v;
        else
            return false;
    }
    return argc % 2 == 1 && (!s.together || s.quota > 0) && s.ranks >= 2 && s.factor >= 1 && s.reps >= 1 &&
           s.every >= 1 && s.steps > 2 * s.every + 2 && s.quota >= 0 && s.quota <= 100 && s.microBatch >= 1 &&
           s.seqLen >= 2;
}

std::string range(const std::vector<double>& v, const char* format)
{
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    char text[64];
    std::snprintf(text, sizeof text, format, *lo, *hi);
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    Settings s;
    if (!parse(argc, argv, s)) {
        std::fprintf(stderr, "usage: bench_balance [--ranks N>=2] [--factor F>=1] [--reps N] [--steps N] [--every N] "
                             "[--micro-batch N] [--seq-len N] [--quota PCT<=100] [--together on|off] [--data FILE]\n");
        return 2;
    }
    // mpirun refuses root unless told (the tests set the same in their environment).
    if (::geteuid() == 0) {
        ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    const std::string work = (fs::temp_directory_path() / "traindeck-bench-balance").string();
    fs::create_directories(work);
    char how[128];
    if (s.quota > 0)
        std::snprintf(how, sizeof how, "a CPU quota of %.1f %% against the others' %.1f %% of one CPU",
                      s.quota / s.factor, s.quota);
    else
        std::snprintf(how, sizeof how, "--inject-slowdown");
    std::printf("%d ranks x 1 thread, qwen2-tiny, seq-len %d, micro-batch %d per rank (%d per step), --balance-every "
                "%d, %d steps, measured over steps %d-%d; rank %d slowed %.2fx per sample (%s); "
                "%d repetitions, %s\n\n",
                s.ranks, s.seqLen, s.microBatch, s.microBatch * s.ranks, s.every, s.steps, 2 * s.every + 2, s.steps,
                s.ranks - 1, s.factor, how, s.reps,
                s.together ? "off and auto of each configuration at the same time" : "interleaved");
    std::printf(
        "| rep | ranks | balance | tokens/s (median step) | median step ms | first new split at step | "
        "split changes after step %d | samples per rank (last) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
        2 * s.every + 1);
    const std::vector<std::pair<std::string, double>> configs = {{"one slower", s.factor}, {"equal", 1.0}};
    std::map<std::string, std::vector<RunResult>> results; // "config/mode"
    auto report = [&](int rep, const std::string& config, const std::string& mode, const RunResult& r) {
        results[config + "/" + mode].push_back(r);
        std::printf("| %d | %s | %s | %.0f | %.0f | %s | %d | %s |\n", rep, config.c_str(), mode.c_str(), r.tokensPerS,
                    r.stepMs, r.firstRebalance ? std::to_string(r.firstRebalance).c_str() : "-", r.changesAfterWindows,
                    joined(r.lastShares).c_str());
        std::fflush(stdout);
    };
    for (int rep = 1; rep <= s.reps; ++rep)
        for (const auto& [config, factor] : configs) {
            if (s.together) {
                std::vector<Job> jobs;
                jobs.push_back(job(s, work, "off", factor, "off"));
                jobs.push_back(job(s, work, "auto", factor, "auto"));
                const std::vector<RunResult> r = run(s, jobs);
                report(rep, config, "off", r[0]);
                report(rep, config, "auto", r[1]);
                continue;
            }
            for (const std::string mode : {"off", "auto"}) {
                std::vector<Job> jobs;
                jobs.push_back(job(s, work, mode, factor, mode));
                report(rep, config, mode, run(s, jobs)[0]);
            }
        }
    std::printf("\n| ranks | balance | tokens/s, median of runs [range] | median step ms [range] |\n| --- | --- | --- "
                "| --- |\n");
    for (const auto& [config, factor] : configs)
        for (const std::string mode : {"off", "auto"}) {
            std::vector<double> tps, ms;
            for (const auto& r : results[config + "/" + mode]) {
                tps.push_back(r.tokensPerS);
                ms.push_back(r.stepMs);
            }
            std::printf("| %s | %s | %.0f %s | %.0f %s |\n", config.c_str(), mode.c_str(), median(tps),
                        range(tps, "[%.0f-%.0f]").c_str(), median(ms), range(ms, "[%.0f-%.0f]").c_str());
        }
    std::printf("\n| ranks | auto / off tokens/s per repetition | median [range] |\n| --- | --- | --- |\n");
    for (const auto& [config, factor] : configs) {
        std::vector<double> ratios;
        std::string each;
        for (int i = 0; i < s.reps; ++i) {
            const double ratio = results[config + "/auto"][size_t(i)].tokensPerS /
                                 std::max(1e-9, results[config + "/off"][size_t(i)].tokensPerS);
            ratios.push_back(ratio);
            char text[32];
            std::snprintf(text, sizeof text, "%s%.3f", i ? ", " : "", ratio);
            each += text;
        }
        std::printf("| %s | %s | %.3f %s |\n", config.c_str(), each.c_str(), median(ratios),
                    range(ratios, "[%.3f-%.3f]").c_str());
    }
    fs::remove_all(work);
    return 0;
}
