#include "reducers/pass.h"

#include <fmt/format.h>

namespace dlfuzz::reduce {

#define REDUCER_PASS(name, help, fn) void fn(Oracle& o, Program& p);
#include "reducers/passes/Passes.def"
#undef REDUCER_PASS

const std::vector<ReducerPass>& reducer_passes() {
  static const std::vector<ReducerPass> passes = {
#define REDUCER_PASS(name, help, fn) {name, help, fn},
#include "reducers/passes/Passes.def"
#undef REDUCER_PASS
  };
  return passes;
}

const ReducerPass* find_reducer_pass(const std::string& name) {
  for (const auto& p : reducer_passes())
    if (name == p.name) return &p;
  return nullptr;
}

std::string reducer_passes_help() {
  std::string out;
  for (const auto& p : reducer_passes()) out += fmt::format("  {:<14} {}\n", p.name, p.help);
  return out;
}

}  // namespace dlfuzz::reduce
