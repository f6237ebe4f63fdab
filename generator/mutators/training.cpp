#include "generator/generator.h"
#include "generator/mutators/mutators.h"
#include "generator/op_spec.h"

namespace dlfuzz {

namespace {

bool has_inplace_op(const Program& p) {
  return any_node(p.body, [](const Node& n) {
    const OpSpec* s = find_op(n.op);
    return s && s->inplace;
  });
}

bool has_half_value(const Program& p) {
  for (const auto& v : p.values)
    if (is_half(v.type.dtype)) return true;
  return false;
}

// The learning rates generation uses for each optimizer.
double random_lr(Optimizer o, Choices& c) {
  return o == Optimizer::sgd ? c.pick(std::vector<double>{0.1, 0.01, 0.001}) : c.pick(std::vector<double>{0.01, 0.001});
}

}  // namespace

bool training_mutator(Program& p, Choices& c, const GenPolicy& policy) {
  if (p.plan.world > 1) return false;  // a parallel plan is chosen with the training step
  if (!p.is_training()) {
    // Generation keeps in-place writes and half precision out of training
    // programs (autograd rejects many writes; 1.13's CPU kernels lack half grads).
    if (has_inplace_op(p) || (has_half_value(p) && p.target == Target::torch113)) return false;
    return add_training_step(p, c, policy);
  }
  TrainStep& s = *p.train;
  switch (c.below(4)) {
    case 0: {  // another optimizer
      auto o = static_cast<Optimizer>((static_cast<int>(s.optimizer) + 1 + c.below(kOptimizerCount - 1)) %
                                      kOptimizerCount);
      s.optimizer = o;
      s.lr = random_lr(o, c);
      if (o != Optimizer::sgd) s.momentum = 0;
      s.amsgrad = s.amsgrad && has_amsgrad(o);
      s.nesterov = s.nesterov && s.nesterov_applies();
      return true;
    }
    case 1: s.lr = random_lr(s.optimizer, c); return true;
    case 2: s.steps = static_cast<int>(c.range(1, std::max(1, policy.max_train_steps))); return true;
    default:  // training off: the loss stays as a value, targets become data
      p.train.reset();
      for (auto& in : p.inputs)
        if (in.kind == InputKind::target) in.kind = InputKind::data;
      return true;
  }
}

}  // namespace dlfuzz
