// `dlfuzz gate`: may a candidate optimization land? The same generated
// programs run through the baseline runner and the candidate (a runner, or the
// baseline plus a plugin's graph passes); a finding of the candidate that the
// baseline does not show is new. New findings are stored, reduced and
// reported; run times are compared program by program. Exit 0: no new
// findings and no performance regression; 1: either; 2: usage error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generator/gen_policy.h"

namespace dlfuzz {

struct GateOptions {
  std::string baseline;   // a runner, e.g. ts-nnc
  std::string candidate;  // a runner, or plugin:PATH.so (the baseline with the plugin's passes)
  double seconds = 300;   // budget (unless programs > 0)
  int64_t programs = 0;
  uint64_t seed = 1;
  std::vector<int> worlds = {1};
  double threshold = 0.10;  // a slowdown above 10% (and significant) is a regression
  bool keep_going = false;  // by default the gate stops at its first new finding
  int timeout_ms = 30000;
  double reduce_seconds = 60;           // per new finding
  std::string db = "gate.db";           // new findings
  std::string out_dir = "gate-report";  // reduced programs and Markdown reports
  std::string junit;                    // JUnit XML file ("" = none)
  GenPolicy policy;                     // --policy / --ops: focus on what the change touches
};

int run_gate(const GateOptions& opt);

}  // namespace dlfuzz
