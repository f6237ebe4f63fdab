// Control flow as PyTorch 2.x's higher-order ops: an `if` with hop=true is
// spelled `torch.cond(pred, true_fn, false_fn, ())` and a `loop` with hop=true
// `torch._higher_order_ops.scan(body, init, None, length=n)`, or with
// while=true too `torch._higher_order_ops.while_loop(cond_fn, body_fn, (i, *init))`
// with a counter i < n carried as a tensor, each branch or
// body a nested function over the values it closes over. Dynamo captures the
// whole construct in one graph (no graph break on the data-dependent branch,
// no unrolling of the loop), and AOTAutograd and Inductor lower it as a
// subgraph: paths the plain `if bool(c)` / `for` spelling never reaches.
// TorchScript spells the same node as plain control flow.
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

// Whether node n (an `if` or `loop`) is marked hop=true.
bool is_hop(const Node& n);

// Whether node n is a loop spelled as while_loop (hop=true, while=true).
bool is_while_loop(const Node& n);

// Why node n cannot be a higher-order op in p, or "" when it can. What the
// ops refuse by design: anything that would break the graph inside a branch
// or body (.item(), data-dependent sizes, random draws, hooks, nested control
// flow, collectives), an in-place write (a branch may not mutate what it
// closes over), no result, a loop of zero trips (scan under torch.compile
// needs one) or of an empty carry, and programs not for PyTorch 2.x or over several ranks.
std::string hop_error(const Program& p, const Node& n);

}  // namespace dlfuzz
