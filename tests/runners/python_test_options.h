// What the tests that run the Python worker share: the project's .venv
// interpreter, whether it imports a module, and executor options for it.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "tests/parse_program.h"

namespace dlfuzz::test {

inline const std::string kPython = std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python";

// Whether .venv's Python imports `module` (e.g. "torch.distributed").
inline bool venv_imports(const std::string& module) {
  return std::filesystem::exists(kPython) &&
         std::system((kPython + " -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

inline ExecutorOptions python_options() {
  ExecutorOptions o;
  o.dlfuzz_binary = DLFUZZ_BINARY;
  o.python = kPython;
  o.python_worker = std::string(DLFUZZ_SOURCE_DIR) + "/runners/python/worker.py";
  o.timeout_ms = 120000;  // torch.compile on a loaded machine
  o.warmup = 1;
  return o;
}

// The findings of `runners` on the program `text`, without recheck, in a
// fresh executor of the Python worker.
inline std::vector<Finding> python_findings(const std::string& text, const std::vector<std::string>& runners) {
  Executor ex(python_options());
  return evaluate(ex, parse(text), runners, /*recheck=*/false).findings;
}

}  // namespace dlfuzz::test
