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
};

ProgramSummary summarize(const Program& p);
// The sorted, comma-separated set of ops ("none" if there are none), "+train"
// for a training program:
// what refines a bug's signature once its program is reduced.
std::string op_set(const Program& p);
nlohmann::json to_json(const ProgramSummary& s);

}  // namespace dlfuzz
