// Eager execution through ATen: `eager` in the program's dtypes, `eager64` with
// every float tensor in float64 (the reference numerics are arbitrated against).
// Training programs run forward, backward and an optimizer step `steps` times.
#include <torch/optim.h>
#include <torch/torch.h>

#include <chrono>

#include "generator/op_spec.h"
#include "runners/aten_types.h"
#include "runners/eager_runner.h"
#include "runners/input_builder.h"
#include "runners/op_caller.h"

namespace dlfuzz {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Collectives on one rank: every one of them is the identity.
at::Tensor collective_world1(const Node& n, const at::Tensor& x) { return x.clone(); }

class Interpreter {
 public:
  Interpreter(const Program& p, bool fp64) : p_(p), fp64_(fp64), env_(p.values.size()) {}

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
    if (n.op == "if") {
      bool cond = value(std::get<ValueRef>(n.arg("cond")->value).id).item<bool>();
      const Block& b = n.blocks[cond ? 0 : 1];
      block(b);
      for (size_t k = 0; k < b.yields.size(); ++k) bind(n.outputs[k], value(b.yields[k]));
      return;
    }
    const OpSpec* spec = find_op(n.op);
    if (!spec) throw std::runtime_error("unknown op " + n.op);
    if (spec->family == "collective") {
      if (p_.plan.world != 1) throw std::runtime_error("collectives with world > 1 need the distributed runner");
      bind(n.outputs[0], collective_world1(n, value(std::get<ValueRef>(n.arg("self")->value).id)));
      return;
    }
    auto outs = caller_.call(spec->aten, n, [this](int id) { return value(id); }, fp64_);
    for (size_t k = 0; k < outs.size(); ++k) bind(n.outputs[k], outs[k]);
  }

  const Program& p_;
  bool fp64_;
  std::vector<at::Tensor> env_;
  OpCaller caller_;
};

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainStep& s, std::vector<at::Tensor> params) {
  switch (s.optimizer) {
    case Optimizer::sgd:
      return std::make_unique<torch::optim::SGD>(
          params, torch::optim::SGDOptions(s.lr).momentum(s.momentum).weight_decay(s.weight_decay));
    case Optimizer::adam:
      return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(s.lr).weight_decay(s.weight_decay));
    case Optimizer::adamw:
      return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(s.lr).weight_decay(s.weight_decay));
  }
  return nullptr;
}

}  // namespace

EagerRunner::EagerRunner(bool fp64) : fp64_(fp64) {}

std::string EagerRunner::name() const { return fp64_ ? "eager64" : "eager"; }

RunResult EagerRunner::run(const Program& p, const RunConfig&) {
  RunResult r;
  r.runner = name();
  r.versions = torch_version_string();
  auto t0 = std::chrono::steady_clock::now();
  r.stage = Stage::setup;
  try {
    std::vector<at::Tensor> inputs, params;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      at::Tensor t = build_input(p, i, fp64_);
      if (p.inputs[i].kind == InputKind::param && p.is_training()) {
        t = t.detach().requires_grad_(true);
        params.push_back(t);
      } else if (p.inputs[i].kind == InputKind::param) {
        params.push_back(t);
      }
      inputs.push_back(t);
    }
    r.setup_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    auto forward = [&]() {
      r.stage = Stage::run;
      auto interp = std::make_unique<Interpreter>(p, fp64_);
      for (size_t i = 0; i < p.inputs.size(); ++i) interp->bind(p.inputs[i].value, inputs[i]);
      interp->block(p.body);
      return interp;
    };
    if (!p.is_training()) {
      at::NoGradGuard no_grad;
      auto interp = forward();
      for (int y : p.body.yields) r.outputs.push_back(to_host(interp->value(y)));
    } else {
      const TrainStep& s = *p.train;
      auto opt = make_optimizer(s, params);
      for (int step = 0; step < s.steps; ++step) {
        for (auto& w : params) w.mutable_grad().reset();  // unused params get no update
        auto interp = forward();
        at::Tensor loss = interp->value(s.loss);
        r.losses.push_back(loss.item<double>());
        r.stage = Stage::backward;
        loss.backward();
        if (step == s.steps - 1) {
          for (int y : p.body.yields) r.outputs.push_back(to_host(interp->value(y)));
          for (auto& w : params) r.grads.push_back(to_host(w.grad()));
        }
        r.stage = Stage::optimizer;
        opt->step();
      }
    }
    for (auto& w : params) r.params.push_back(to_host(w));
    r.run_ms = ms_since(t0);
    r.status = RunStatus::ok;
    r.stage = Stage::none;
  } catch (const c10::Error& e) {
    r.status = RunStatus::exception;
    r.error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    r.status = RunStatus::exception;
    r.error = e.what();
  }
  return r;
}

}  // namespace dlfuzz
