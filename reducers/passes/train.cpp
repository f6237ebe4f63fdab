// Turn a training program into inference (no loss, backward or optimizer;
// the outputs stay), or keep training with the simplest step: plain SGD
// without momentum or weight decay, one iteration. The loss node and the
// targets it read become dead and go in later passes.
#include "reducers/pass.h"

namespace dlfuzz::reduce {

void reduce_train(Oracle& o, Program& p) {
  if (!p.train) return;
  TrainStep& s = *p.train;
  bool keep_train = o.shouldKeep();
  bool simple_optimizer =
      s.optimizer == Optimizer::sgd && s.momentum == 0 && s.weight_decay == 0 && s.flags().empty();
  bool keep_optimizer = simple_optimizer || o.shouldKeep();
  bool keep_steps = s.steps == 1 || o.shouldKeep();
  if (!keep_optimizer) {
    s.optimizer = Optimizer::sgd;
    s.momentum = s.weight_decay = 0;
    s.amsgrad = s.nesterov = s.foreach = false;
  }
  if (!keep_steps) s.steps = 1;
  if (!keep_train) p.train.reset();
}

}  // namespace dlfuzz::reduce
