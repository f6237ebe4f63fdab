// Running child processes without a shell between dlfuzz and them: an
// argument vector goes to posix_spawnp as is, so a path with spaces, quotes
// or `$(...)` in it stays one path.
#pragma once
#include <string>
#include <vector>

namespace dlfuzz {

// Which of the child's outputs go to /dev/null instead of dlfuzz's own.
enum class ChildOutput { inherit, no_stderr, none };

// Runs argv[0] (looked up in PATH) with argv, waits, and returns its exit
// status; 128 + N when signal N ended it, -1 when it could not start.
int run_argv(const std::vector<std::string>& argv, ChildOutput output);
// The same with the child's stdout and stderr written to the file `log`, and
// `env` ("NAME=value") added to (or overriding) its environment.
int run_argv_logged(const std::vector<std::string>& argv, const std::string& log,
                    const std::vector<std::string>& env = {});

// The reducer's `--test CMD`: the user's command is run by /bin/sh exactly as
// written (pipes, quotes and variables are the user's to use), with the
// candidate's path given to it as one more argument ("$1" inside CMD's
// shell; appended as `CMD "$1"`), never spliced into the command's text.
// True when it exits 0.
bool run_user_test(const std::string& cmd, const std::string& path);

}  // namespace dlfuzz
