#include "runners/fault_runners.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "runners/eager_runner.h"

namespace dlfuzz {

namespace {
// fault-wrong-value's change to a finite value: v * 2 + 1, or v / 2 where that
// would be v itself (-1) or overflow (what the oracles read as rounding at the
// limit), or 1 for 0.
template <typename T>
T wrong_value(T v) {
  T w = v * 2 + 1;
  if (std::isfinite(w) && w != v) return w;
  return v == 0 ? T(1) : v / 2;
}

// That change to the first finite element of t, read as T; false where t has
// none.
template <typename T>
bool wrong_first_finite_as(HostTensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    T v;
    std::memcpy(&v, t.bytes.data() + sizeof(T) * i, sizeof(T));
    if (!std::isfinite(v)) continue;
    v = wrong_value(v);
    std::memcpy(t.bytes.data() + sizeof(T) * i, &v, sizeof(T));
    return true;
  }
  return false;
}

// f32 and f64 outputs; others are left alone.
bool wrong_first_finite(HostTensor& t) {
  if (t.dtype == DType::f32) return wrong_first_finite_as<float>(t);
  if (t.dtype == DType::f64) return wrong_first_finite_as<double>(t);
  return false;
}

class FaultRunner : public Runner {
 public:
  explicit FaultRunner(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

  RunResult run(const Program& p, const RunConfig& cfg) override {
    if (name_ == "fault-compile-error") {
      RunResult r;
      r.runner = name_;
      r.status = RunStatus::exception;
      r.stage = Stage::compile;
      r.error = "planted compile error: unsupported node kind";
      return r;
    }
    if (name_ == "fault-segv") {
      volatile int* null = nullptr;
      *null = 1;
    }
    if (name_ == "fault-hang")
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (name_ == "fault-oom") {
      // Reserved, not touched: the worker's RLIMIT_DATA stops it in milliseconds.
      std::vector<std::unique_ptr<char[]>> hog;
      for (;;) hog.emplace_back(new char[size_t(256) << 20]);
    }
    double slowdown = name_ == "fault-slow-20" ? 0.2 : name_ == "fault-slow-50" ? 0.5 : 0;
    RunResult r = EagerRunner(false, slowdown).run(p, cfg);
    r.runner = name_;
    for (auto& t : r.outputs) {
      if (!t.defined || t.numel() == 0 || !is_float(t.dtype)) continue;
      // The first finite element of the first float output that has one: a
      // large, unmistakable change (a NaN or an infinity would keep its value).
      if (name_ == "fault-wrong-value" && wrong_first_finite(t)) break;
      if (name_ == "fault-reorder" && t.dtype == DType::f32) {
        // One ulp of noise per element, as a different reduction order gives.
        for (int64_t i = 0; i < t.numel(); ++i) {
          float v;
          std::memcpy(&v, t.bytes.data() + 4 * i, 4);
          if (std::isfinite(v) && v != 0) v = std::nextafter(v, i % 2 ? INFINITY : -INFINITY);
          std::memcpy(t.bytes.data() + 4 * i, &v, 4);
        }
      }
    }
    return r;
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Runner> make_fault_runner(const std::string& name) {
  for (const char* n : {"fault-wrong-value", "fault-compile-error", "fault-segv", "fault-hang", "fault-oom",
                        "fault-reorder", "fault-slow-20", "fault-slow-50"})
    if (name == n) return std::make_unique<FaultRunner>(name);
  return nullptr;
}

}  // namespace dlfuzz
