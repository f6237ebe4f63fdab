#include "cli/python_env_check.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reducers/subprocess.h"

namespace dlfuzz::cli {

nlohmann::json check_python_env(const ExecutorOptions& eo) {
  namespace fs = std::filesystem;
  fs::path script = fs::path(eo.python_worker).parent_path() / "env_check.py";
  if (eo.python.empty() || !fs::exists(script)) return {{"error", "no Python or no " + script.string()}};
  fs::path log = fs::temp_directory_path() / ("dlfuzz-env-check-" + std::to_string(getpid()) + ".log");
  int rc = run_argv_logged({eo.python, script.string()}, log.string());
  std::ifstream in(log);
  std::string line, json_line, last;
  while (std::getline(in, line)) {  // torch's own warnings go to stderr, the answer is one JSON line
    if (!line.empty() && line[0] == '{') json_line = line;
    if (!line.empty()) last = line;
  }
  std::error_code ec;
  fs::remove(log, ec);
  if (rc != 0 || json_line.empty())
    return {{"error", script.string() + " exited " + std::to_string(rc) + (last.empty() ? "" : ": " + last)}};
  try {
    return nlohmann::json::parse(json_line);
  } catch (const std::exception& e) {
    return {{"error", std::string("unreadable answer of ") + script.string() + ": " + e.what()}};
  }
}

}  // namespace dlfuzz::cli
