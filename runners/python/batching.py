"""Several independent programs traced and compiled as ONE function.

Inductor on CPU spends most of a small program's seconds on fixed costs per
compiled graph (a g++ run, loading the module, Dynamo and AOTAutograd set-up);
K programs in one graph pay them once. The programs share nothing: each reads
its own inputs and params, the combined function returns each program's
outputs as a tuple of tuples, and a training step backpropagates the sum of
the losses of the programs still stepping (d sum / d loss_k = 1, so each
param's gradient is its own program's). worker.py's run_batch decides which
programs may join and re-runs a batch that failed one program at a time.

A graph break inside one program (a data-dependent `if`, `.item()`) does not
keep it out: the combined function is straight-line code and is compiled with
Dynamo's nested_graph_breaks, so the graph ends at the break and the next one
starts right after it, in the same program; K programs with B breaks make
B + 1 graphs, not K + B.
"""
import contextlib

import torch

import dlfuzz_runtime as rt

# A random op (dropout, at most one per program) draws from the generator
# every run seeds with manual_seed(0) before each call: in a batch each
# program that draws is preceded by a manual_seed(0) of its own (but the
# first), so that it draws what it draws alone. manual_seed is a graph break
# for Dynamo: programs that draw come first, one graph each but the last.
RANDOM = "torch.dropout("


def batchable(program):
    """One rank (rank programs run in processes of their own)."""
    return int(program["world"]) == 1


def draws_random(program):
    return RANDOM in program["function"]


def arrange(programs):
    """Indices into programs, as batches: one batch of them all, those that
    draw random numbers first (combined_function reseeds before each)."""
    random = [k for k, p in enumerate(programs) if draws_random(p)]
    plain = [k for k, p in enumerate(programs) if not draws_random(p)]
    return [random + plain] if programs else []


def reseeded(programs):
    """The positions of a batch's programs that combined_function reseeds
    before: each that draws but the first program."""
    return [k for k, p in enumerate(programs) if k > 0 and draws_random(p)]


def combined_function(fns, arities, reseed=()):
    """fns[k] called on its arities[k] arguments, in order, the generator
    seeded with 0 before each k of `reseed`; a tuple of their output tuples.
    Generated as straight-line code: Dynamo resumes after a graph break in one
    program only outside of loops."""
    args, body, offset = [], [], 0
    for k, n in enumerate(arities):
        names = [f"a{offset + i}" for i in range(n)]
        args += names
        if k in reseed:
            body.append("    torch.manual_seed(0)")
        body.append(f"    o{k} = tuple(f{k}({', '.join(names)}))")
        offset += n
    outs = "".join(f"o{k}, " for k in range(len(fns)))
    source = f"def batched({', '.join(args)}):\n" + "\n".join(body) + f"\n    return ({outs})\n"
    scope = {f"f{k}": fn for k, fn in enumerate(fns)}
    scope["torch"] = torch
    exec(compile(source, "<dlfuzz batch>", "exec"), scope)
    return scope["batched"]


class Combined:
    """What a runner reads of a batch's programs when it builds the compiled
    function (worker.RUNNERS take a program's meta): `params`, the positions
    of every program's params among the combined function's arguments
    (inductor-freezing holds those in its module)."""

    def __init__(self, metas):
        self.params, offset = [], 0
        for m in metas:
            self.params += [offset + i for i in m.params]
            offset += len(m.inputs)


def nested_breaks():
    """The settings a batched call compiles under (see the module's text)."""
    config = getattr(getattr(torch, "_dynamo", None), "config", None)
    if config is None or not hasattr(config, "nested_graph_breaks"):
        return contextlib.nullcontext()
    return config.patch(nested_graph_breaks=True)


def run_batched(metas, fn):
    """One run of the combined fn over every program's freshly built inputs, as
    dlfuzz_runtime.run runs one program: returns one {"outputs", "losses",
    "grads", "params", "digests"} per program. Training programs step each with
    their own optimizer; a program with fewer steps stops stepping (the
    combined function still computes its outputs, which are then dropped).
    The generator is seeded before every call, as run does (arrange)."""
    inputs = [rt.build_inputs(m) for m in metas]
    results = [{"outputs": [], "losses": [], "grads": [], "params": [], "digests": []} for _ in metas]
    train = [m.train is not None for m in metas]
    if not any(train):
        with torch.no_grad(), nested_breaks():
            torch.manual_seed(0)
            outs = fn(*[x for xs in inputs for x in xs])
        for r, o, m, xs in zip(results, outs, metas, inputs):
            r["outputs"] = list(o)
            r["params"] = [xs[i].detach() for i in m.params]  # as rt.run: what the program left in them
        return results
    if not all(train):
        raise ValueError("a batch holds inference or training programs, not both")
    params = [[xs[i] for i in m.params] for m, xs in zip(metas, inputs)]
    for ps in params:
        for p in ps:
            p.requires_grad_(True)
    optimizers = [rt._make_optimizer(m.train, ps) for m, ps in zip(metas, params)]
    steps = [m.train[4] for m in metas]
    # Gradient accumulation: a program's second pass backpropagates its loss
    # again into the .grad its first left.
    passes = [rt._passes(m.train) for m in metas]
    for step in range(max(steps)):
        for ps in params:
            for p in ps:
                p.grad = None
        active = [k for k in range(len(metas)) if step < steps[k]]
        last_outs = {}
        for pass_ in range(max(passes[k] for k in active)):
            torch.manual_seed(0)
            with rt.autograd_context(fn):
                with nested_breaks():
                    outs = fn(*[x if x.requires_grad else x.clone() for xs in inputs for x in xs])
                total = None
                for k in active:
                    if pass_ >= passes[k]:
                        continue
                    loss = outs[k][-1]
                    results[k]["losses"].append(loss.item())
                    total = loss if total is None else total + loss
                    last_outs[k] = outs[k]
                total.backward()
        for k in active:
            rt._dlfuzz_fill_missing_grads(params[k])
            if step == steps[k] - 1:  # copies: an output may be a view of a param the step updates
                results[k]["outputs"] = [o.detach().clone() for o in last_outs[k][:-1]]
                results[k]["grads"] = [p.grad.detach().clone() for p in params[k]]  # as rt.run records them
            optimizers[k].step()
    for r, ps in zip(results, params):
        r["params"] = [p.detach() for p in ps]
    return results
