// What a runner name means, parsed once: its row of the runner table
// (runners/Runners.def) and the suffixes it carries. No LibTorch: the
// executor, the oracles' evaluation, the store and the reports read it.
//
//   BASE[+plugin:PATH][@1][@cpu][@ENV]
//     +plugin:PATH  BASE (a TorchScript runner) with a plugin's graph passes
//     @1            the one-process reference of a training plan over ranks
//     @cpu          the program moved to the CPU (cross-device reference)
//     @ENV          run in another environment: a named one (`dlfuzz runners`
//                   lists them) or a path to a Python interpreter (python
//                   rows) or to a dlfuzz binary (native rows)
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generator/program.h"

namespace dlfuzz {

enum class WorkerKind { native, python };
enum class RunnerModes { any, infer, train };
enum class RunnerNeeds { none, cpu, dp, exportable, no_hop, vmappable, vmappable_tangents };

struct RunnerRow {
  const char* name;
  WorkerKind worker;
  const char* family;
  const char* reference;
  const char* fp64_reference;
  RunnerModes modes;
  bool multi_rank;
  RunnerNeeds needs;
  bool timed;  // the timing oracle compares it with its reference
  const char* layer;
  const char* repro_backend;
  const char* what;
};

const std::vector<RunnerRow>& runner_table();
const RunnerRow* find_runner_row(const std::string& base);

// Where a worker runs: a named environment or a path.
struct WorkerEnv {
  std::string name;  // "" for the default one of its kind
  WorkerKind kind = WorkerKind::native;
  std::string path;  // dlfuzz binary or Python interpreter; "" = not configured
};

struct RunnerSpec {
  const RunnerRow* row = nullptr;
  std::string plugin;        // +plugin:PATH
  bool one_process = false;  // @1
  bool on_cpu = false;       // @cpu
  std::string env;           // @ENV ("" = default)

  // The canonical name: BASE[+plugin:PATH][@1][@cpu][@ENV].
  std::string name() const;
  // The name a worker of this environment is asked for (without @ENV).
  std::string name_in_env() const;
  WorkerKind worker() const { return row->worker; }
  std::string family() const { return row->family; }
  // The reference runners a test runner is compared with: eager and its
  // float64 twin from the same PyTorch (the same environment). For a native
  // runner under a training plan over several ranks, their one-process runs
  // (@1): the distributed-equivalence oracle. Python runners: py-eager over
  // the same ranks.
  std::string reference(const Program& p) const;
  std::string fp64_reference(const Program& p) const;
  // False where the path does not apply to p (freezing a training program,
  // AOTInductor over ranks, Static Runtime on cuda, sync faults without dp).
  bool supports(const Program& p) const;
};

// nullopt for an unknown base or a malformed suffix; `error` says why.
std::optional<RunnerSpec> parse_runner(const std::string& name, std::string* error = nullptr);
// parse_runner that throws std::invalid_argument.
RunnerSpec runner_spec(const std::string& name);

// For a program on cuda, the cross-device references: CPU eager and its
// float64 twin ("eager@cpu", "eager64@cpu"), which every GPU path, CUDA eager
// included, is compared with where its own references see nothing wrong.
// Empty for CPU programs and for programs over several ranks.
std::vector<std::string> cross_device_references(const Program& p);

// The named environments: "venv" (the project's .venv, or $DLFUZZ_PYTHON),
// "venv-X" (.venv-X: another PyPI release, `scripts/setup.sh --torch X`),
// "system" (/usr/bin/python3: Debian's torch 1.13), "build" and "build-pip"
// (dlfuzz built against Debian's LibTorch and the wheel's); `defaults` gives
// the default paths.
struct EnvDefaults {
  std::string dlfuzz_binary;  // this binary
  std::string python;         // "" when no Python with PyTorch 2.x is configured
  std::string source_dir;
};
std::vector<WorkerEnv> named_envs(const EnvDefaults& defaults);
// Whether `env` can follow a runner name as @ENV: a named environment or a path.
bool is_env_name(const std::string& env);
// The environment a spec runs in; path "" when it is not configured.
WorkerEnv resolve_env(const RunnerSpec& spec, const EnvDefaults& defaults);

// One row as JSON (for `dlfuzz runners --json`).
nlohmann::json to_json(const RunnerRow& row);
const char* modes_name(RunnerModes m);
const char* worker_kind_name(WorkerKind k);

}  // namespace dlfuzz
