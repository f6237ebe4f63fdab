"""Several independent programs traced and compiled as ONE function.

Inductor on CPU spends most of a small program's seconds on fixed costs per
compiled graph (a g++ run, loading the module, Dynamo and AOTAutograd set-up);
K programs in one graph pay them once. The programs share nothing: each reads
its own inputs and params, the combined function returns each program's
outputs as a tuple of tuples, and a training step backpropagates the sum of
the losses of the programs still stepping (d sum / d loss_k = 1, so each
param's gradient is its own program's). worker.py's run_batch decides which
programs may join and re-runs a batch that failed one program at a time.
"""
import torch

import dlfuzz_runtime as rt


# What a batched function may not hold: a data-dependent `if` or `.item()`
# (graph breaks: the batch would be compiled in pieces and gain nothing), and
# random ops (dropout: the programs of a batch would share one random stream,
# each drawing what the one before it left).
UNBATCHABLE = ("if bool(", ".item()", "torch.dropout(")


def batchable(program):
    """One rank, and nothing of UNBATCHABLE in its function."""
    return int(program["world"]) == 1 and not any(s in program["function"] for s in UNBATCHABLE)


def combined_function(fns, arities):
    """fns[k] called on its arities[k] arguments, in order; a tuple of their output tuples."""
    fns, arities = list(fns), list(arities)

    def batched(*args):
        outs = []
        offset = 0
        for fn, n in zip(fns, arities):
            outs.append(tuple(fn(*args[offset:offset + n])))
            offset += n
        return tuple(outs)

    return batched


def run_batched(metas, fn):
    """One run of the combined fn over every program's freshly built inputs, as
    dlfuzz_runtime.run runs one program: returns one {"outputs", "losses",
    "grads", "params", "digests"} per program. Training programs step each with
    their own optimizer; a program with fewer steps stops stepping (the
    combined function still computes its outputs, which are then dropped)."""
    inputs = [rt.build_inputs(m) for m in metas]
    results = [{"outputs": [], "losses": [], "grads": [], "params": [], "digests": []} for _ in metas]
    train = [m.train is not None for m in metas]
    if not any(train):
        with torch.no_grad():
            outs = fn(*[x for xs in inputs for x in xs])
        for r, o in zip(results, outs):
            r["outputs"] = list(o)
        return results
    if not all(train):
        raise ValueError("a batch holds inference or training programs, not both")
    params = [[xs[i] for i in m.params] for m, xs in zip(metas, inputs)]
    for ps in params:
        for p in ps:
            p.requires_grad_(True)
    optimizers = [rt._make_optimizer(m.train, ps) for m, ps in zip(metas, params)]
    steps = [m.train[4] for m in metas]
    for step in range(max(steps)):
        for ps in params:
            for p in ps:
                p.grad = None
        outs = fn(*[x if x.requires_grad else x.clone() for xs in inputs for x in xs])
        active = [k for k in range(len(metas)) if step < steps[k]]
        total = None
        for k in active:
            loss = outs[k][-1]
            results[k]["losses"].append(loss.item())
            total = loss if total is None else total + loss
        total.backward()
        for k in active:
            rt._dlfuzz_fill_missing_grads(params[k])
            if step == steps[k] - 1:  # copies: an output may be a view of a param the step updates
                results[k]["outputs"] = [o.detach().clone() for o in outs[k][:-1]]
                results[k]["grads"] = [p.grad for p in params[k]]
            optimizers[k].step()
    for r, ps in zip(results, params):
        r["params"] = [p.detach() for p in ps]
    return results
