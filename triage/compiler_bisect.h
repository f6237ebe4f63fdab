// Which pass inside torch.compile a bug is in: PyTorch's own CompilerBisector
// (torch._inductor.compiler_bisector) run on the bug's emitted repro, whose
// --fail-above flag makes it a predicate (exit 1 while the bug shows). It
// climbs eager -> aot_eager -> aot_eager_decomp_partition -> inductor, then
// turns Inductor's subsystems off one by one (pre/joint/post-grad passes,
// fallback_random, lowerings, ...) and bisects the one that fixes it down to
// the application number: e.g. inductor / lowerings #1 (var_mean).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dlfuzz {

struct BisectionResult {
  std::string backend;     // the first torch.compile backend the bug shows in
  std::string subsystem;   // the subsystem whose switch-off fixes it ("" if none)
  int bisect_number = -1;  // its application that breaks things (-1 if none)
  std::string debug_info;  // what that application was ("var_mean")

  // "inductor / lowerings #1 (var_mean)", "aot_eager".
  std::string summary() const;
};

// The bisector's "Bisection complete: BisectionResult(...)" line, parsed; the
// last one in `log`, nullopt if it has none.
std::optional<BisectionResult> parse_bisection(const std::string& log);

struct BisectRun {
  std::optional<BisectionResult> result;
  std::string error;  // why there is no result ("" with one)
  std::string log;    // the bisector's output
};

// Runs `python -m torch._inductor.compiler_bisector run python REPRO
// REPRO_ARGS... --fail-above TOL` in `workdir` (the repro is written there).
// It first checks that the repro fails under the full compiler: a predicate
// that never fails would make the bisector blame eager.
BisectRun run_compiler_bisector(const std::string& python, const std::string& repro_text,
                                const std::vector<std::string>& repro_args, double tolerance,
                                const std::string& workdir);

}  // namespace dlfuzz
