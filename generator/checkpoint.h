// Activation checkpointing as training code writes it: a stretch of the
// forward runs under torch.utils.checkpoint.checkpoint(fn, *args,
// use_reentrant=False), which saves the stretch's inputs instead of its
// intermediates and runs it again in backward. In the IR it is a structural
// node:
//
//   %o : T = checkpoint inputs=[%a] (%c : T) {
//     ...            (reads %c, and outer values as a closure does)
//     yield %x
//   }
//
// Its outputs are its yields; the function's explicit arguments are `inputs`,
// bound to the block's params. `selective=true`: selective activation
// checkpointing (context_fn=_dlfuzz_save_matmuls in the Python runtime: matmul
// and convolution results saved, the rest recomputed). Semantically the identity wrapper: runners
// without checkpointing (TorchScript, the C++ interpreter) run the block in
// place. PyTorch 2.x's Dynamo traces it as a higher-order op and AOTAutograd
// recomputes its inside, which is what the runners test.
#pragma once
#include <string>

#include "generator/choices.h"
#include "generator/program.h"

namespace dlfuzz {

bool has_checkpoint(const Program& p);

// Wraps a stretch of p's top-level nodes into a checkpoint node: a few values
// read from before it become explicit arguments, the rest stay closure reads.
// Only where recomputing the stretch in backward gives what the forward gave
// (checkpoint_hazard). False, and p unchanged, where no stretch qualifies.
bool add_checkpoint(Program& p, Choices& c);

// Why the checkpoint node at p.body.nodes[index] would recompute other values
// in backward than its forward computed ("" if none): something inside it or
// after it writes in place into a tensor (or an alias of one) it reads from
// outside, so eager's recomputation reads the new values. PyTorch does not
// check this; such a program's eager gradients are wrong by construction.
// A selective checkpoint also may not have its own values written in place
// (eager refuses a cached tensor written since it was saved).
std::string checkpoint_hazard(const Program& p, size_t index);

}  // namespace dlfuzz
