#include "triage/compiler_bisect.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "reducers/subprocess.h"

namespace dlfuzz {

std::string BisectionResult::summary() const {
  std::string s = backend;
  if (!subsystem.empty()) s += " / " + subsystem;
  if (bisect_number >= 0) s += fmt::format(" #{}", bisect_number);
  if (!debug_info.empty()) s += " (" + debug_info + ")";
  return s;
}

namespace {
// One field of the dataclass's repr: name='text', name=123 or name=None.
std::string field(const std::string& repr, const std::string& name) {
  std::smatch m;
  std::regex quoted(name + R"(=(['"])(.*?)\1)"), bare(name + R"(=([^,)]*))");
  if (std::regex_search(repr, m, quoted)) return m[2];
  if (std::regex_search(repr, m, bare) && m[1] != "None") return m[1];
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

std::optional<BisectionResult> parse_bisection(const std::string& log) {
  const std::string tag = "Bisection complete: BisectionResult(";
  size_t at = log.rfind(tag);
  if (at == std::string::npos) return std::nullopt;
  size_t end = log.find('\n', at);
  std::string repr = log.substr(at + tag.size(), end == std::string::npos ? std::string::npos : end - at - tag.size());
  BisectionResult r;
  r.backend = field(repr, "backend");
  r.subsystem = field(repr, "subsystem");
  r.debug_info = field(repr, "debug_info");
  std::string n = field(repr, "bisect_number");
  if (!n.empty()) r.bisect_number = std::stoi(n);
  if (r.backend.empty()) return std::nullopt;
  return r;
}

BisectRun run_compiler_bisector(const std::string& python, const std::string& repro_text,
                                const std::vector<std::string>& repro_args, double tolerance,
                                const std::string& workdir) {
  BisectRun run;
  const std::string repro = workdir + "/repro.py", log = workdir + "/bisect.log";
  std::ofstream(repro) << repro_text;
  std::vector<std::string> predicate = {python, repro};
  predicate.insert(predicate.end(), repro_args.begin(), repro_args.end());
  predicate.insert(predicate.end(), {"--fail-above", fmt::format("{}", tolerance)});
  int rc = run_argv_logged(predicate, workdir + "/check.log");
  if (rc != 1) {
    run.error = rc == 0 ? fmt::format("the repro does not show the bug (max abs diff at most {})", tolerance)
                        : fmt::format("the repro did not run (exit {}; see {}/check.log)", rc, workdir);
    run.log = read_file(workdir + "/check.log");
    return run;
  }
  std::vector<std::string> argv = {python, "-m", "torch._inductor.compiler_bisector", "run"};
  argv.insert(argv.end(), predicate.begin(), predicate.end());
  // A cache of its own: when it is done the bisector deletes its whole Inductor
  // cache directory (shutil.rmtree of cache_dir(), torch 2.15), by default
  // /tmp/torchinductor_$USER with the precompiled headers that running Inductor
  // processes (a campaign's workers) still use: every C++ compile of theirs
  // then failed.
  rc = run_argv_logged(argv, log, {"TORCHINDUCTOR_CACHE_DIR=" + workdir + "/inductor-cache"});
  run.log = read_file(log);
  run.result = parse_bisection(run.log);
  if (!run.result) run.error = fmt::format("the bisector gave no result (exit {}; see {})", rc, log);
  return run;
}

}  // namespace dlfuzz
