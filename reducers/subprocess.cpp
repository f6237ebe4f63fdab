#include "reducers/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>

extern char** environ;

namespace dlfuzz {

namespace {
int spawn_and_wait(const std::vector<std::string>& argv, posix_spawn_file_actions_t& actions,
                   const std::vector<std::string>& env = {}) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // This process's environment, less the names `env` sets, then `env`.
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=') + 1); };  // "NAME="
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const auto& kv : env) replaced |= std::string(*e).rfind(name_of(kv), 0) == 0;
    if (!replaced) envp.push_back(*e);
  }
  for (const auto& kv : env) envp.push_back(const_cast<char*>(kv.c_str()));
  envp.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}
}  // namespace

int run_argv(const std::vector<std::string>& argv, ChildOutput output) {
  if (argv.empty()) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (output == ChildOutput::none) posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (output != ChildOutput::inherit) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  return spawn_and_wait(argv, actions);
}

int run_argv_logged(const std::vector<std::string>& argv, const std::string& log,
                    const std::vector<std::string>& env) {
  if (argv.empty()) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  return spawn_and_wait(argv, actions, env);
}

bool run_user_test(const std::string& cmd, const std::string& path) {
  // "sh" is $0; the path is $1, which the shell never re-parses.
  return run_argv({"/bin/sh", "-c", cmd + " \"$1\"", "sh", path}, ChildOutput::none) == 0;
}

}  // namespace dlfuzz
