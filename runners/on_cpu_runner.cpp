#include "runners/on_cpu_runner.h"

namespace dlfuzz {

namespace {
class OnCpuRunner : public Runner {
 public:
  OnCpuRunner(std::string name, std::unique_ptr<Runner> base) : name_(std::move(name)), base_(std::move(base)) {}
  std::string name() const override { return name_; }
  RunResult run(const Program& p, const RunConfig& cfg) override {
    Program on_cpu = p;
    on_cpu.device = "cpu";
    RunResult r = base_->run(on_cpu, cfg);
    r.runner = name_;
    return r;
  }

 private:
  std::string name_;
  std::unique_ptr<Runner> base_;
};
}  // namespace

std::unique_ptr<Runner> make_on_cpu_runner(const std::string& name, std::unique_ptr<Runner> base) {
  return base ? std::make_unique<OnCpuRunner>(name, std::move(base)) : nullptr;
}

}  // namespace dlfuzz
