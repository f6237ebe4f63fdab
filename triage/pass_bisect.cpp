#include "triage/pass_bisect.h"

#include <fmt/format.h>
#include <stdlib.h>

#include "generator/emit.h"
#include "runners/runner_spec.h"
#include "triage/compiler_bisect.h"
#include "triage/nnc_bisect.h"

namespace dlfuzz {

namespace {
bool is_nnc(const RunnerSpec& spec) { return std::string(spec.row->name) == "ts-nnc" && spec.plugin.empty(); }

bool is_torch_compile(const RunnerSpec& spec) {
  const std::string family = spec.family();
  return family == "inductor" || family == "aot" || family == "dynamo";
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < s.size()) {
    size_t space = s.find(' ', start);
    if (space == std::string::npos) space = s.size();
    if (space > start) words.push_back(s.substr(start, space - start));
    start = space + 1;
  }
  return words;
}
}  // namespace

std::string why_not_bisectable(const std::string& test_runner, const std::string& oracle) {
  auto spec = parse_runner(test_runner);
  if (!spec || (!is_nnc(*spec) && !is_torch_compile(*spec)))
    return fmt::format("runner {} is neither a torch.compile runner nor ts-nnc", test_runner);
  if (oracle != "numeric" && oracle != "status")
    return fmt::format("a '{}' finding: the bisectors check values and errors only", oracle);
  return "";
}

PassBisection bisect_pass(const ExecutorOptions& eo, const Program& p, const std::string& test_runner,
                          const std::string& signature, double fail_above) {
  PassBisection out;
  auto spec = parse_runner(test_runner);
  if (!spec) return {"", "unknown runner " + test_runner};
  if (is_nnc(*spec)) {
    NncBisection b = bisect_nnc(eo, p, test_runner, signature);
    if (b.bisected) out.pass = b.summary();
    else out.error = b.error;
    return out;
  }
  if (eo.python.empty()) return {"", "no Python with PyTorch 2.x (.venv, or DLFUZZ_PYTHON)"};
  std::vector<std::string> args = {"--backend"};
  for (const auto& word : split_words(spec->row->repro_backend)) args.push_back(word);
  char dir[] = "/tmp/dlfuzz-bisect-XXXXXX";
  if (!mkdtemp(dir)) return {"", "cannot make a directory under /tmp"};
  BisectRun run = run_compiler_bisector(eo.python, emit_python(p), args, fail_above, dir);
  if (run.result) out.pass = run.result->summary();
  else out.error = run.error;
  return out;
}

}  // namespace dlfuzz
