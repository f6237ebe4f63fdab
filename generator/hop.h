// Control flow as PyTorch 2.x's higher-order ops: an `if` with hop=true is
// spelled `torch.cond(pred, true_fn, false_fn, ())` and a `loop` with hop=true
// `torch._higher_order_ops.scan(body, init, None, length=n)`, or with
// while=true too `torch._higher_order_ops.while_loop(cond_fn, body_fn, (i, *init))`
// with a counter i < n carried as a tensor, each branch or
// body a nested function over the values it closes over. Dynamo captures the
// whole construct in one graph (no graph break on the data-dependent branch,
// no unrolling of the loop), and AOTAutograd and Inductor lower it as a
// subgraph: paths the plain `if bool(c)` / `for` spelling never reaches.
// A plain loop with region=true keeps its Python `for`, and its body becomes
// a module-level function under torch.compiler.nested_compile_region, called
// once per trip with the carry and the values it closes over: the layer stack
// that hierarchical compilation is for (Dynamo traces the body once, as an
// invoke_subgraph higher-order op, and stamps it out on each call;
// AOTAutograd partitions it on its own). Eager runs it as a plain function.
// TorchScript spells the same node as plain control flow.
#pragma once
#include <string>
#include <vector>

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

// Whether node n is a loop whose body is a nested compile region (region=true).
bool is_region(const Node& n);

// Why node n's body cannot be a nested compile region in p, or "" when it can:
// a loop that is not a higher-order op itself, of at least one trip (else the
// region is never called), whose body holds what a higher-order op's may
// (a graph break inside a region is an error under torch.compile).
std::string region_error(const Program& p, const Node& n);

// The values block b reads that it neither defines nor takes as params, in
// the order it first reads them: what a region's function gets as arguments.
std::vector<int> free_values(const Block& b);

}  // namespace dlfuzz
