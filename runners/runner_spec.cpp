#include "runners/runner_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "generator/hop.h"
#include "generator/op_spec.h"
#include "generator/vmappable.h"

namespace dlfuzz {

namespace {
constexpr WorkerKind native = WorkerKind::native, python = WorkerKind::python;
constexpr RunnerModes any = RunnerModes::any, infer = RunnerModes::infer, train = RunnerModes::train;
constexpr RunnerNeeds none = RunnerNeeds::none, cpu = RunnerNeeds::cpu, dp = RunnerNeeds::dp,
                      exportable = RunnerNeeds::exportable, no_hop = RunnerNeeds::no_hop,
                      vmappable = RunnerNeeds::vmappable, vmappable_tangents = RunnerNeeds::vmappable_tangents;

struct NamedEnv {
  const char* name;
  WorkerKind kind;
  const char* what;
};
// Environments a runner name can select with @NAME (paths work too).
const NamedEnv kNamedEnvs[] = {
    {"venv", python, "the project's .venv (PyTorch 2.x from PyPI), or $DLFUZZ_PYTHON"},
    {"system", python, "/usr/bin/python3: Debian's python3-torch (1.13)"},
    {"build", native, "build/dlfuzz: dlfuzz built against Debian's LibTorch (1.13)"},
    {"build-pip", native, "build-pip/dlfuzz: dlfuzz built against the PyPI wheel's LibTorch"},
};
// Another PyPI release beside .venv: `scripts/setup.sh --torch X` makes
// .venv-X, selected as @venv-X.
constexpr const char* kVersionedVenv = "venv-";
const NamedEnv kVersionedVenvEnv = {kVersionedVenv, python, "another PyPI release (.venv-X)"};

const NamedEnv* find_named_env(const std::string& name) {
  for (const auto& e : kNamedEnvs)
    if (name == e.name) return &e;
  if (name.size() > 5 && name.compare(0, 5, kVersionedVenv) == 0) return &kVersionedVenvEnv;
  return nullptr;
}
}  // namespace

const std::vector<RunnerRow>& runner_table() {
  static const std::vector<RunnerRow> rows = {
#define RUNNER(name, worker, family, ref, ref64, modes, multi_rank, needs, timed, layer, backend, what) \
  {name, worker, family, ref, ref64, modes, multi_rank, needs, timed, layer, backend, what},
#include "runners/Runners.def"
#undef RUNNER
  };
  return rows;
}

const RunnerRow* find_runner_row(const std::string& base) {
  for (const auto& r : runner_table())
    if (base == r.name) return &r;
  return nullptr;
}

bool is_env_name(const std::string& env) {
  return !env.empty() && (env.find('/') != std::string::npos || find_named_env(env));
}

const char* worker_kind_name(WorkerKind k) { return k == WorkerKind::native ? "native" : "python"; }

const char* modes_name(RunnerModes m) {
  return m == RunnerModes::infer ? "infer" : m == RunnerModes::train ? "train" : "any";
}

std::string RunnerSpec::name_in_env() const {
  std::string s = row->name;
  if (!plugin.empty()) s += "+plugin:" + plugin;
  if (one_process) s += "@1";
  if (on_cpu) s += "@cpu";
  return s;
}

std::string RunnerSpec::name() const { return env.empty() ? name_in_env() : name_in_env() + "@" + env; }

namespace {
std::string in_env(std::string base, const RunnerSpec& s, const Program& p) {
  if (s.row->worker == WorkerKind::native && p.plan.has_one_process_reference()) base += "@1";
  return s.env.empty() ? base : base + "@" + s.env;
}
}  // namespace

std::string RunnerSpec::reference(const Program& p) const { return in_env(row->reference, *this, p); }
std::string RunnerSpec::fp64_reference(const Program& p) const { return in_env(row->fp64_reference, *this, p); }

bool RunnerSpec::supports(const Program& p) const {
  if (p.is_training() && row->modes == RunnerModes::infer) return false;
  if (!p.is_training() && row->modes == RunnerModes::train) return false;
  if (p.device == "cuda" && row->needs == RunnerNeeds::cpu) return false;
  if (p.plan.world > 1 && !row->multi_rank) return false;
  if (row->needs == RunnerNeeds::dp) return p.plan.data_parallel();
  // An `if` node branches on a tensor's value (the generator's only branch):
  // torch.export takes one spelled as torch.cond (generator/hop.h). A node
  // with count=N has a data-dependent size (nonzero, masked_select, a mask
  // index): an unbacked size in export, which fails where an op guards on it
  // (a stop-53 campaign: 12 of 19 bugs, "GuardOnDataDependentSymNode").
  if (row->needs == RunnerNeeds::exportable)
    return !any_node(p.body, [](const Node& n) { return (n.op == "if" && !is_hop(n)) || n.arg("count") != nullptr; });
  // A higher-order op (flex_attention), or control flow spelled as torch.cond
  // or scan (generator/hop.h).
  if (row->needs == RunnerNeeds::no_hop)
    return !any_node(p.body, [](const Node& n) {
      const OpSpec* s = find_op(n.op);
      return (s && s->aten.rfind("higher_order::", 0) == 0) || is_hop(n);
    });
  if (row->needs == RunnerNeeds::vmappable) return why_not_vmappable(p).empty();
  if (row->needs == RunnerNeeds::vmappable_tangents) return why_not_vmappable_tangents(p).empty();
  return true;
}

std::optional<RunnerSpec> parse_runner(const std::string& name, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<RunnerSpec> {
    if (error) *error = why;
    return std::nullopt;
  };
  RunnerSpec s;
  std::string rest = name;
  // Suffixes from the end, each at most once; a plugin path may not hold '@'.
  for (size_t at; (at = rest.rfind('@')) != std::string::npos; rest.resize(at)) {
    std::string x = rest.substr(at + 1);
    if (x == "1" && !s.one_process) {
      s.one_process = true;
    } else if (x == "cpu" && !s.on_cpu) {
      s.on_cpu = true;
    } else if (s.env.empty() && is_env_name(x)) {
      s.env = x;
    } else {
      return fail(
          fmt::format("'{}': '@{}' is not a suffix (@1, @cpu, or an environment: a path or one of "
                      "venv, venv-VERSION, system, build, build-pip)",
                      name, x));
    }
  }
  if (size_t at = rest.find("+plugin:"); at != std::string::npos) {
    s.plugin = rest.substr(at + 8);
    rest.resize(at);
    if (s.plugin.empty()) return fail(fmt::format("'{}': +plugin: needs a path", name));
  }
  s.row = find_runner_row(rest);
  if (!s.row) return fail(fmt::format("unknown runner '{}'", rest));
  if (!s.plugin.empty() && std::string(s.row->family) != "ts")
    return fail(fmt::format("a plugin's passes run under a TorchScript runner (ts, ts-nnc, ts-legacy), not {}", rest));
  if (const NamedEnv* e = find_named_env(s.env); e && e->kind != s.row->worker)
    return fail(fmt::format("'{}': {} is a {} environment, {} runs in a {} worker", name, s.env,
                            worker_kind_name(e->kind), rest, worker_kind_name(s.row->worker)));
  return s;
}

RunnerSpec runner_spec(const std::string& name) {
  std::string error;
  auto s = parse_runner(name, &error);
  if (!s) throw std::invalid_argument(error);
  return *s;
}

std::vector<std::string> cross_device_references(const Program& p) {
  if (p.device != "cuda" || p.plan.world > 1) return {};
  return {"eager@cpu", "eager64@cpu"};
}

std::vector<WorkerEnv> named_envs(const EnvDefaults& d) {
  std::vector<WorkerEnv> v;
  for (const auto& e : kNamedEnvs) v.push_back(resolve_env(RunnerSpec{nullptr, "", false, false, e.name}, d));
  std::error_code ec;
  std::vector<std::string> versioned;
  for (const auto& entry : std::filesystem::directory_iterator(d.source_dir, ec)) {
    std::string dir = entry.path().filename().string();
    if (dir.rfind(".venv-", 0) == 0 && std::filesystem::exists(entry.path() / "bin/python"))
      versioned.push_back(dir.substr(1));
  }
  std::sort(versioned.begin(), versioned.end());
  for (const auto& name : versioned) v.push_back(resolve_env(RunnerSpec{nullptr, "", false, false, name}, d));
  return v;
}

WorkerEnv resolve_env(const RunnerSpec& spec, const EnvDefaults& d) {
  WorkerEnv e;
  e.name = spec.env;
  const NamedEnv* named = find_named_env(spec.env);
  e.kind = named ? named->kind : spec.row->worker;
  if (spec.env.empty()) {
    e.path = e.kind == WorkerKind::native ? d.dlfuzz_binary : d.python;
  } else if (!named) {
    e.path = spec.env;  // a path given with the name
  } else if (spec.env == "venv") {
    e.path = d.python;
  } else if (spec.env == "system") {
    e.path = "/usr/bin/python3";
  } else if (spec.env == "build") {
    e.path = d.source_dir + "/build/dlfuzz";
  } else if (spec.env == "build-pip") {
    e.path = d.source_dir + "/build-pip/dlfuzz";
  } else if (named == &kVersionedVenvEnv) {
    e.path = d.source_dir + "/." + spec.env + "/bin/python";
  }
  return e;
}

nlohmann::json to_json(const RunnerRow& r) {
  const char* needs = r.needs == RunnerNeeds::cpu                  ? "cpu"
                      : r.needs == RunnerNeeds::dp                 ? "dp"
                      : r.needs == RunnerNeeds::exportable         ? "exportable"
                      : r.needs == RunnerNeeds::no_hop             ? "no_hop"
                      : r.needs == RunnerNeeds::vmappable          ? "vmappable"
                      : r.needs == RunnerNeeds::vmappable_tangents ? "vmappable_tangents"
                                                                   : "none";
  return {{"name", r.name},
          {"worker", worker_kind_name(r.worker)},
          {"family", r.family},
          {"reference", r.reference},
          {"fp64_reference", r.fp64_reference},
          {"modes", modes_name(r.modes)},
          {"multi_rank", r.multi_rank},
          {"needs", needs},
          {"timed", r.timed},
          {"layer", r.layer},
          {"repro_backend", r.repro_backend},
          {"what", r.what}};
}

}  // namespace dlfuzz
