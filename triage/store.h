// The bug store: campaigns, programs (by content hash), findings, bugs (one per
// signature) and throughput samples, in one SQLite file (WAL mode). Each
// finding is committed in its own transaction the moment it is recorded, so a
// killed campaign loses nothing it reported. The schema is in README.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "triage/resource_usage.h"
#include "triage/sqlite.h"

namespace dlfuzz {

constexpr int kSchemaVersion = 10;

struct BugRow {
  int64_t id;
  std::string signature, status, title, kind, first_seen, last_seen, example_program;
  int64_t hits;
  std::string reduced_ops;   // sorted op set of the reduced program ("" until reduced)
  int64_t duplicate_of = 0;  // an earlier bug this one is judged the same as (0: none)
  std::string layer;         // the compiler layer of its latest attributed finding ("" if none)
  std::string compiler_pass;  // what `triage bisect` named inside the layer ("" until bisected)
  int64_t split_from = 0;     // the bug whose findings reduced to another op set (triage/bug_split.h)

  // The signature refined by the reduced op set, once there is one (a split
  // bug's signature has it already).
  std::string full_signature() const {
    if (reduced_ops.empty() || signature.find("|ops=") != std::string::npos) return signature;
    return signature + "|ops=" + reduced_ops;
  }
};

// One `triage retest --env` verdict: whether the bug shows on that environment.
struct EnvCheck {
  std::string env, version;
  bool affected = false;
  std::string checked_at;
};
// "affects: build (torch 1.13.0) / not in: build-pip (torch 2.15.0)"; "" when unchecked.
std::string affects_line(const std::vector<EnvCheck>& checks);

// Why the eager reference rejected generated programs: a generator gap (a
// program PyTorch does not define), or a bug of eager itself. No compiled
// runner judges such a program, so this is where eager's own failures show.
struct RejectionRow {
  int64_t id, hits;
  std::string reference, reason, first_seen, last_seen;
  std::string example;  // the text of the first program rejected so
};

class Store {
 public:
  // Opens or creates the store. A corrupt file, a file that is not a dlfuzz
  // store, or one written by a newer schema throws StoreError and is left as is.
  explicit Store(const std::string& path);

  int64_t begin_campaign(const std::string& config_json, const std::string& versions);
  void end_campaign(int64_t campaign, int64_t programs, int64_t findings);
  // One row of the throughput table (every 10 s of a campaign), with what
  // the campaign holds then (triage/resource_usage.h).
  void sample_throughput(int64_t campaign, int64_t programs, int64_t findings, int64_t unique_bugs,
                         const ResourceUsage& usage = {});

  // Stores the program (once per content hash) and returns its hash.
  std::string add_program(const std::string& text, uint64_t seed, int nodes);
  // Records a finding and folds it into its bug; returns the bug id. Returns
  // whether the bug is new through *new_bug.
  int64_t add_finding(int64_t campaign, const std::string& program_hash, const Finding& f, const std::string& versions,
                      bool* new_bug = nullptr);

  // Records that the reference runner rejected a program (text) with reason
  // (its normalized error). The first program of each (reference, reason) is
  // kept as its example; returns the rejection's id.
  int64_t add_rejection(const std::string& reference, const std::string& reason, const std::string& text, uint64_t seed,
                        int nodes);
  std::vector<RejectionRow> rejections();  // most hits first

  // Records bug's reduced program and its op set. A bug whose refined
  // signature minus the runner names (oracle, stage, error text, reduced op
  // set) equals an earlier bug's in the same runner family (ts, ts-nnc and
  // ts-legacy are one) is marked duplicate_of that bug; returns its id or 0.
  int64_t record_reduction(int64_t bug, const std::string& program_hash, const std::string& ops);

  // Which environments a bug shows on (`triage retest --env`): the latest
  // verdict per environment.
  void record_env_check(int64_t bug, const std::string& env, const std::string& version, bool affected);
  std::vector<EnvCheck> env_checks(int64_t bug);
  // The pass `triage bisect` named inside the bug's layer (BugRow::compiler_pass).
  void record_compiler_pass(int64_t bug, const std::string& pass);

  // The evidence of a bug's latest finding that has one (a performance
  // finding's estimates and profiles: oracles/perf_oracle.h); null if none.
  nlohmann::json bug_evidence(int64_t bug);
  // The ladder's verdicts of a bug's latest finding that has them
  // (Finding::ablation); null if none.
  nlohmann::json bug_ablation(int64_t bug);
  // Where the bug's numeric findings start (Finding::first_op_detail): the
  // latest that names an op, else the latest that says why none is named.
  std::string bug_first_divergence(int64_t bug);

  std::vector<BugRow> bugs();
  int64_t count(const std::string& table);
  Database& db() { return *db_; }

  static std::string hash_text(const std::string& text);

 private:
  void migrate();
  nlohmann::json latest_json(int64_t bug, const std::string& column);
  std::unique_ptr<Database> db_;
};

std::string now_utc();  // "2026-11-30T02:03:08Z"

}  // namespace dlfuzz
