#include "runners/executor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "generator/dlf.h"
#include "generator/emit.h"

#ifndef DLFUZZ_SOURCE_DIR
#define DLFUZZ_SOURCE_DIR "."
#endif

namespace dlfuzz {

ExecutorOptions default_executor_options() {
  ExecutorOptions o;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  o.dlfuzz_binary = n > 0 ? std::string(buf, n) : "dlfuzz";
  o.source_dir = DLFUZZ_SOURCE_DIR;
  std::string python = std::getenv("DLFUZZ_PYTHON") ? std::getenv("DLFUZZ_PYTHON") : "";
  if (python.empty() && std::filesystem::exists(o.source_dir + "/.venv/bin/python"))
    python = o.source_dir + "/.venv/bin/python";
  o.python = python;
  o.python_worker = o.source_dir + "/runners/python/worker.py";
  return o;
}

Executor::Executor(ExecutorOptions opt) : opt_(std::move(opt)) {}

int Executor::restarts() const {
  int n = 0;
  for (const auto& [_, w] : workers_) n += w->restarts();
  return n;
}

// One request to the worker of `env` for runners `names` (their names in that
// environment, without @ENV).
std::vector<RunResult> Executor::run_in(const WorkerEnv& env, const Program& p, const std::vector<std::string>& names,
                                        int pairs, const std::string& profile_dir) {
  bool python = env.kind == WorkerKind::python;
  if (env.path.empty()) {
    std::vector<RunResult> out;
    std::string why = python ? "no Python with PyTorch 2.x configured (run scripts/setup.sh, or pass --python)"
                             : "no dlfuzz binary for environment " + env.name;
    for (const auto& n : names) out.push_back(failed_run(n, Stage::setup, why));
    return out;
  }
  WorkerProcess& worker = worker_for(env, names);
  WorkerRequest req;
  req.runners = names;
  req.timed_calls = opt_.timed_calls;
  req.pairs = pairs;
  req.profile_dir = profile_dir;
  if (python) {
    req.python_program = python_worker_program(p);
    req.warmup = std::min(opt_.warmup, 2);  // torch.compile compiles on the first call
  } else {
    req.program = print_program(p);
    req.warmup = opt_.warmup;
    req.backend = opt_.backend;
    req.rank_processes = opt_.rank_processes;
  }
  // A paired request answers once every pair has run: give it the time of
  // all its calls.
  int timeout = opt_.timeout_ms * (pairs > 0 ? 1 + pairs / 10 : 1);
  return worker.run(req, timeout);
}

std::vector<RunResult> Executor::run_paired(const Program& p, const std::vector<std::string>& runners, int pairs,
                                            const std::string& profile_dir) {
  std::vector<std::string> names;
  WorkerEnv env;
  for (size_t i = 0; i < runners.size(); ++i) {
    std::string error;
    auto spec = parse_runner(runners[i], &error);
    WorkerEnv e = spec ? resolve_env(*spec, opt_.env_defaults()) : WorkerEnv{};
    if (spec && i > 0 && (e.kind != env.kind || e.path != env.path))
      error = "paired timing needs runners of one environment: " + runners[0] + " and " + runners[i] + " differ";
    if (!error.empty()) {
      std::vector<RunResult> out;
      for (const auto& r : runners) out.push_back(failed_run(r, Stage::setup, error));
      return out;
    }
    env = e;
    names.push_back(spec->name_in_env());
  }
  auto results = run_in(env, p, names, pairs, profile_dir);
  for (size_t k = 0; k < results.size() && k < runners.size(); ++k) results[k].runner = runners[k];
  return results;
}

namespace {
bool compiles(const std::string& python_runner) { return python_runner.rfind("py-eager", 0) != 0; }
bool uses_inductor(const std::string& python_runner) {
  return python_runner.find("inductor") != std::string::npos || python_runner.rfind("aoti", 0) == 0;
}

// What a Python worker's warm-up must compile for `names`: Inductor (its first
// compile takes 15 s to a minute), Dynamo and AOTAutograd only, or nothing.
std::string warm_kind(const std::vector<std::string>& names) {
  if (std::any_of(names.begin(), names.end(), uses_inductor)) return "inductor";
  return std::any_of(names.begin(), names.end(), compiles) ? "dynamo" : "";
}
}  // namespace

// The worker of `env`, started on first use. A Python worker about to compile
// makes its first compile before any program (warm_compiler in worker.py), so
// that no program's timeout pays for it: only the compilers `names` use, and
// Inductor when a later request first needs it.
WorkerProcess& Executor::worker_for(const WorkerEnv& env, const std::vector<std::string>& names) {
  bool python = env.kind == WorkerKind::python;
  std::string key = std::string(worker_kind_name(env.kind)) + ":" + env.path;
  auto& worker = workers_[key];
  if (!worker) {
    std::vector<std::string> argv =
        python ? std::vector<std::string>{env.path, opt_.python_worker} : std::vector<std::string>{env.path, "worker"};
    worker = std::make_unique<WorkerProcess>(argv, python ? 0 : opt_.memory_mb);
  }
  std::string need = python ? warm_kind(names) : "";
  std::string& done = warmed_[key];
  if (!need.empty() && done != "inductor" && done != need) {
    WorkerRequest warm;
    warm.warm = true;
    warm.runners = names;
    worker->run_frames(warm, 1, opt_.warm_timeout_ms);
    done = need;
  }
  return *worker;
}

void Executor::prefetch(const std::vector<Program>& programs, const std::vector<std::string>& test_runners) {
  // One request per runner list (references first, as evaluate orders them):
  // a runner of one mode only (inductor-freezing: inference) gives inference
  // and training programs different lists, and each list is a batch of its own.
  struct Request {
    WorkerEnv env;
    std::vector<std::string> names;
    nlohmann::json batch = nlohmann::json::array();
    std::vector<std::string> texts;
  };
  std::vector<Request> requests;
  for (const auto& p : programs) {
    if (p.plan.world != 1) continue;
    WorkerEnv env;
    std::vector<std::string> refs, tests;
    for (const auto& t : test_runners) {
      auto spec = parse_runner(t);
      if (!spec || !spec->supports(p)) continue;
      WorkerEnv e = resolve_env(*spec, opt_.env_defaults());
      if (e.kind != WorkerKind::python || e.path.empty() || spec->name_in_env() != t) continue;
      env = e;
      for (const auto& r : {spec->reference(p), spec->fp64_reference(p)})
        if (std::find(refs.begin(), refs.end(), r) == refs.end()) refs.push_back(r);
      tests.push_back(t);
    }
    if (tests.empty()) continue;
    refs.insert(refs.end(), tests.begin(), tests.end());
    auto same = [&](const Request& r) { return r.names == refs && r.env.path == env.path; };
    auto req = std::find_if(requests.begin(), requests.end(), same);
    if (req == requests.end()) {
      req = requests.insert(requests.end(), Request{});
      req->env = env;
      req->names = refs;
    }
    req->batch.push_back(python_worker_program(p));
    req->texts.push_back(print_program(p));
  }
  for (const auto& r : requests) {
    if (r.texts.size() < 2) continue;  // nothing to share: run() runs it
    WorkerRequest req;
    req.runners = r.names;
    req.python_batch = r.batch;
    req.warmup = std::min(opt_.warmup, 2);
    // Results come runner-major as each is known; a batched compiled runner's
    // first one after every program of the batch compiled.
    int timeout_ms = opt_.timeout_ms * static_cast<int>(std::max<size_t>(2, r.texts.size() / 2));
    auto results = worker_for(r.env, r.names).run_frames(req, r.texts.size() * r.names.size(), timeout_ms);
    for (size_t i = 0; i < results.size(); ++i) {
      RunResult& res = results[i];
      res.runner = r.names[i / r.texts.size()];  // runner-major: each runner, then each program
      prefetched_[r.texts[i % r.texts.size()]][res.runner] = std::move(res);
    }
  }
}

bool Executor::prefetched(const Program& p) const { return prefetched_.count(print_program(p)) > 0; }

void Executor::forget(const Program& p) { prefetched_.erase(print_program(p)); }

std::vector<RunResult> Executor::run(const Program& p, const std::vector<std::string>& runners) {
  // Runners grouped by the environment they run in, in order of first use.
  struct Group {
    WorkerEnv env;
    std::vector<std::string> names;
    std::vector<size_t> slots;
  };
  std::vector<Group> groups;
  std::vector<RunResult> out(runners.size());
  auto waiting = prefetched_.empty() ? prefetched_.end() : prefetched_.find(print_program(p));
  for (size_t i = 0; i < runners.size(); ++i) {
    if (waiting != prefetched_.end()) {  // prefetch() ran it: taken once, a rerun runs again
      auto r = waiting->second.find(runners[i]);
      if (r != waiting->second.end()) {
        out[i] = std::move(r->second);
        waiting->second.erase(r);
        continue;
      }
    }
    std::string error;
    auto spec = parse_runner(runners[i], &error);
    if (!spec) {
      out[i] = failed_run(runners[i], Stage::setup, error);
      continue;
    }
    WorkerEnv env = resolve_env(*spec, opt_.env_defaults());
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.env.kind == env.kind && x.env.path == env.path; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{env, {}, {}});
    g->names.push_back(spec->name_in_env());
    g->slots.push_back(i);
  }
  if (waiting != prefetched_.end() && waiting->second.empty()) prefetched_.erase(waiting);
  for (const auto& g : groups) {
    auto results = run_in(g.env, p, g.names);
    for (size_t k = 0; k < g.slots.size(); ++k) {
      RunResult& r = out[g.slots[k]];
      r = k < results.size() ? std::move(results[k]) : failed_run(g.names[k], Stage::setup, "no result");
      r.runner = runners[g.slots[k]];  // the name asked for, @ENV included
    }
  }
  return out;
}

}  // namespace dlfuzz
