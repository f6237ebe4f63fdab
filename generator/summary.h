// What `dlfuzz inspect` reports about a program, computed without LibTorch.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "generator/program.h"

namespace dlfuzz {

struct ProgramSummary {
  int nodes = 0;
  std::map<std::string, int> ops;  // op histogram
  bool training = false;
  bool control_flow = false;
  bool inplace = false;
  bool inplace_on_view = false;  // an in-place op writes through a view
  int world = 1;
  int inputs = 0, params = 0;
  bool special_values = false;  // a `special` input or a special number argument
  bool written_values = false;  // an `ints` or `decimals` input
  std::string not_vmappable;    // why vmap runners skip it (generator/vmappable.h); empty: they run it
  std::string not_jacfwd;       // why jacfwd skips it (why_not_vmappable_tangents); empty: it runs it
};

// NaN, +-Inf, -0.0, a nonzero number below 1e-20 in magnitude (denormals and
// their neighbours) or one of 65504 (f16's largest) and above.
bool is_special_number(double d);

ProgramSummary summarize(const Program& p);
// The sorted, comma-separated set of ops ("none" if there are none), "+train"
// for a training program:
// what refines a bug's signature once its program is reduced.
std::string op_set(const Program& p);
nlohmann::json to_json(const ProgramSummary& s);

}  // namespace dlfuzz
