// Eager execution through ATen: `eager` in the program's dtypes, `eager64` with
// every float tensor in float64 (the reference numerics are arbitrated against).
// Training programs run forward, backward and an optimizer step `steps` times.
#include "runners/eager_runner.h"

#include <torch/autograd.h>

#include <chrono>

#include "generator/op_spec.h"
#include "runners/distributed/collectives.h"
#include "runners/op_caller.h"
#include "runners/program_driver.h"
#include "runners/shared_setting.h"

namespace dlfuzz {

namespace {

class Interpreter {
 public:
  Interpreter(const Program& p, bool fp64, OpCaller& caller)
      : p_(p), fp64_(fp64), env_(p.values.size()), caller_(caller) {}

  void bind(int id, const at::Tensor& t) { env_.at(id) = t; }
  const at::Tensor& value(int id) const { return env_.at(id); }

  void block(const Block& b) {
    for (const auto& n : b.nodes) node(n);
  }

 private:
  void node(const Node& n) {
    if (n.op == "loop") {
      const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
      std::vector<at::Tensor> cur;
      for (int id : carry) cur.push_back(value(id));
      const Block& body = n.blocks[0];
      for (int64_t i = 0; i < std::get<int64_t>(n.arg("n")->value); ++i) {
        for (size_t k = 0; k < cur.size(); ++k) bind(body.params[k], cur[k]);
        block(body);
        for (size_t k = 0; k < cur.size(); ++k) cur[k] = value(body.yields[k]);
      }
      for (size_t k = 0; k < cur.size(); ++k) bind(n.outputs[k], cur[k]);
      return;
    }
    if (n.op == "checkpoint") {  // recomputation is autograd's: here the body runs once, in place
      const auto& inputs = std::get<ValueList>(n.arg("inputs")->value).ids;
      const Block& body = n.blocks[0];
      for (size_t k = 0; k < inputs.size(); ++k) bind(body.params[k], value(inputs[k]));
      block(body);
      for (size_t k = 0; k < n.outputs.size(); ++k) bind(n.outputs[k], value(body.yields[k]));
      return;
    }
    if (n.op == "if") {
      bool cond = value(std::get<ValueRef>(n.arg("cond")->value).id).item<bool>();
      const Block& b = n.blocks[cond ? 0 : 1];
      block(b);
      for (size_t k = 0; k < b.yields.size(); ++k) bind(n.outputs[k], value(b.yields[k]));
      return;
    }
    const OpSpec* spec = find_op(n.op);
    if (!spec) throw std::runtime_error("unknown op " + n.op);
    if (is_collective(*spec)) {  // on this thread's rank (the identity at world 1)
      bind(n.outputs[0], run_collective(n, value(std::get<ValueRef>(n.arg("self")->value).id)));
      return;
    }
    auto outs = caller_.call(
        spec->aten, n, [this](int id) { return value(id); }, fp64_);
    for (size_t k = 0; k < outs.size(); ++k) bind(n.outputs[k], outs[k]);
  }

  const Program& p_;
  bool fp64_;
  std::vector<at::Tensor> env_;
  OpCaller& caller_;
};

}  // namespace

EagerRunner::EagerRunner(bool fp64, double slowdown) : fp64_(fp64), slowdown_(slowdown) {}

std::string EagerRunner::name() const { return fp64_ ? "eager64" : "eager"; }

namespace {
// In the float64 reference, integer->float promotions (sin of an int tensor,
// true division) must give float64 too: make it the default dtype for the run.
caffe2::TypeMeta read_default_dtype() { return c10::get_default_dtype(); }
void write_default_dtype(const caffe2::TypeMeta& t) { c10::set_default_dtype(t); }
SharedSetting<caffe2::TypeMeta> default_dtype(read_default_dtype, write_default_dtype);

class DefaultDtypeGuard {
 public:
  explicit DefaultDtypeGuard(bool fp64) : fp64_(fp64) {
    if (fp64_) default_dtype.enter(caffe2::TypeMeta::Make<double>());
  }
  ~DefaultDtypeGuard() {
    if (fp64_) default_dtype.leave();
  }

 private:
  bool fp64_;
};
}  // namespace

RunResult EagerRunner::run(const Program& p, const RunConfig& cfg) {
  DefaultDtypeGuard dtype_guard(fp64_);
  DriveOptions opt;
  opt.fp64 = fp64_;
  opt.timed_calls = cfg.timed_calls;
  opt.profile_dir = cfg.profile_dir;
  opt.slowdown = slowdown_;
  return drive_program(p, name(), opt, [&](const std::vector<at::Tensor>& inputs) {
    Interpreter interp(p, fp64_, caller_);
    for (size_t i = 0; i < p.inputs.size(); ++i) interp.bind(p.inputs[i].value, inputs[i]);
    interp.block(p.body);
    std::vector<at::Tensor> outs;
    for (int y : p.body.yields) outs.push_back(interp.value(y));
    if (!p.train) return outs;
    outs.push_back(interp.value(p.train->loss));
    return outs;
  });
}

}  // namespace dlfuzz
