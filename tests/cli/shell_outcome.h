// Running a shell command from a CLI test: its exit code and its stdout and
// stderr together. Shared by the tests under tests/cli.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace dlfuzz::test {

struct Outcome {
  int code;
  std::string out;
};

inline Outcome shell(const std::string& command) {
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace dlfuzz::test
