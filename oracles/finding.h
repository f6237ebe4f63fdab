// A finding: what an oracle reports when a test result disagrees with its
// reference. The signature is the dedup key of the bug store.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace dlfuzz {

enum class FindingKind { correctness, performance };

struct Finding {
  std::string oracle;       // "numeric", "status", "timing", ...
  std::string ref_runner;   // e.g. "eager"
  std::string test_runner;  // e.g. "ts-nnc"
  std::string stage;        // where the test runner failed or diverged
  std::string detail;       // human-readable: what differed, by how much
  std::string error_text;   // normalized error text for status findings ("" otherwise)
  FindingKind kind = FindingKind::correctness;
  bool flaky = false;  // did not reproduce on rerun
  // What a performance finding rests on (oracles/perf_oracle.h): both
  // estimates, the counters, the profiles of both sides. Null otherwise.
  nlohmann::json evidence = nullptr;
  // Whose bug it is (oracles/layer_ladder.h): the runner table's layer of the
  // test runner, or for a PyTorch 2.x runner the first rung of the ladder
  // Dynamo -> AOTAutograd -> decompositions -> Inductor that shows the same
  // finding. "" when not attributed. Not part of signature() (the reducer
  // judges candidates without the ladder); part of bug_signature().
  std::string layer = "";
  // The ladder's verdict per rung, in order: [{"rung": "eager", "runner":
  // "dynamo-eager", "verdict": "pass"|"fail"|"not run"}, ...]; null when no
  // ladder ran.
  nlohmann::json ablation = nullptr;
  // Where a numeric finding starts (oracles/first_divergence.h): the first
  // node whose value differs, its op ("mul") and a line with its types and
  // the difference; or only the line, saying why no op is named. Part of
  // bug_signature(), not of signature().
  std::string first_op = "";
  std::string first_op_detail = "";

  // oracle|ref|test|stage|normalized error: the same bug hashes the same.
  // What the oracles and the reducer compare.
  std::string signature() const;
  // The bug store's key: signature() refined by the ladder's layer (when the
  // ladder ran) and the first diverging op (when one is named), "...|layer=
  // AOTAutograd|first=frac", so that different bugs under one oracle
  // signature are apart before anything is reduced.
  std::string bug_signature() const;
};

// A stored bug signature without its refinements (layer, first diverging op,
// the op set of a split-off bug): what signature() of a new finding of that
// bug gives (the reducer and `triage retest` compare these).
std::string base_signature(const std::string& bug_signature);

// A signature with what only says "over ranks" taken out: the one-process
// reference's "@1" suffix and an error's "rank N: " prefix. The reducer
// compares these, so that its world pass can bring a finding over ranks down
// to world 1, where the reference is plain eager and no rank is named.
std::string signature_without_ranks(const std::string& signature);

// oracle|stage|error: a signature without its runner names, so the same bug
// seen on another environment (whose runner names carry @ENV) compares equal.
std::string signature_without_runners(const std::string& signature);

// Strip what varies between occurrences of the same error: numbers, hex
// addresses, paths, quoted sizes; keep the first line.
std::string normalize_error(const std::string& text);

}  // namespace dlfuzz
