#include "runners/executor.h"

#include <algorithm>

#include "generator/dlf.h"
#include "generator/emit.h"

namespace dlfuzz {

const std::vector<std::string>& python_runner_names() {
  static const std::vector<std::string> names = {"py-eager", "py-eager64", "inductor", "inductor-dynamic",
                                                 "aot-eager", "aoti"};
  return names;
}

bool is_python_runner(const std::string& name) {
  const auto& n = python_runner_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

std::string reference_of(const std::string& runner, const Program& p) {
  if (is_python_runner(runner)) return "py-eager";
  return p.plan.has_one_process_reference() ? "eager@1" : "eager";
}
std::string fp64_reference_of(const std::string& runner, const Program& p) {
  if (is_python_runner(runner)) return "py-eager64";
  return p.plan.has_one_process_reference() ? "eager64@1" : "eager64";
}

std::vector<std::string> cross_device_references(const Program& p) {
  if (p.device != "cuda" || p.plan.world > 1) return {};
  return {"eager@cpu", "eager64@cpu"};
}

bool runner_supports(const std::string& runner, const Program& p) {
  if (p.is_training() && (runner == "frozen" || runner == "static" || runner == "aoti")) return false;
  if (p.device == "cuda" && runner == "static") return false;  // Static Runtime is CPU only
  // Python runners run every rank as a process (runners/python/worker.py); AOTInductor's
  // exported program has no collectives to call.
  if (p.plan.world > 1 && runner == "aoti") return false;
  if (runner.rfind("fault-dist-", 0) == 0) return p.plan.data_parallel();
  return true;
}

Executor::Executor(ExecutorOptions opt) : opt_(std::move(opt)) {}

int Executor::restarts() const {
  return (native_ ? native_->restarts() : 0) + (python_ ? python_->restarts() : 0);
}

std::vector<RunResult> Executor::run(const Program& p, const std::vector<std::string>& runners) {
  std::vector<std::string> native, python;
  for (const auto& r : runners) (is_python_runner(r) ? python : native).push_back(r);
  std::vector<RunResult> native_results, python_results;
  if (!native.empty()) {
    if (!native_) native_ = std::make_unique<WorkerProcess>(std::vector<std::string>{opt_.dlfuzz_binary, "worker"}, opt_.memory_mb);
    WorkerRequest req;
    req.program = print_program(p);
    req.runners = native;
    req.warmup = opt_.warmup;
    req.backend = opt_.backend;
    req.rank_processes = opt_.rank_processes;
    native_results = native_->run(req, opt_.timeout_ms);
  }
  if (!python.empty()) {
    if (opt_.python.empty()) {
      for (const auto& r : python) {
        python_results.push_back(failed_run(
            r, Stage::setup, "no Python with PyTorch 2.x configured (run scripts/setup.sh, or pass --python)"));
      }
    } else {
      if (!python_)
        python_ = std::make_unique<WorkerProcess>(std::vector<std::string>{opt_.python, opt_.python_worker}, 0);
      WorkerRequest req;
      req.python_program = python_worker_program(p);
      req.runners = python;
      req.warmup = std::min(opt_.warmup, 2);  // torch.compile compiles on the first call
      python_results = python_->run(req, opt_.timeout_ms);
    }
  }
  // Back in the order asked for.
  std::vector<RunResult> out;
  size_t ni = 0, pi = 0;
  for (const auto& r : runners) out.push_back(is_python_runner(r) ? python_results.at(pi++) : native_results.at(ni++));
  return out;
}

}  // namespace dlfuzz
