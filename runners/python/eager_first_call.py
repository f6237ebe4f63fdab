"""A compiled runner's first warm-up call runs each captured graph eagerly.

Dynamo hands a graph to the backend when it reaches the graph's end, and the
graph runs right away: with graph breaks (a data-dependent `if`, `.item()`,
a batch of programs, batching.py) graph 2 is not traced before graph 1 ran.
Inductor's C++ kernels are built on their first call (one_kernel_module.py),
so graph 1's build cannot wait for graph 2's kernels: a g++ run per graph.

Inside window(), a graph compiled through Backend runs as Dynamo captured it
(the FX graph module, eager PyTorch), not as compiled. The call whose
results are dropped anyway (a warm-up call) then traces and compiles every
graph, and builds nothing; the next call's first kernel builds every graph's
kernels in one g++ run. Backward graphs too: inside window() AOTAutograd
compiles a graph's backward with its forward (its
force_non_lazy_backward_lowering, what AOT compile does; by default a
backward is compiled at its first call, the same graph from the same
placeholders), so its kernels join that build instead of one g++ run per
backward graph. Later calls, and every call outside window(), run the
compiled graphs: nothing dlfuzz compares comes from the eager first call.

But the graph after a graph break is traced from what eager made, which a
user's compiled first call does not make: a float read there (`.item()`)
that eager and compiled code round differently recompiles that graph in the
second call (Dynamo specializes on it); and eager's intermediates are tensors
of their own where compiled code returns views of a larger buffer, so a
graph that mutates one of two aliased inputs is compiled for a synthetic base
of another shape than the later calls bring, which Dynamo does not guard
("AssertionError: wrong number of dimensions", c77 bug 4; a real PyTorch
gap that users reach only with inputs of such layouts). So only batches of
programs (worker.run_compiled_batch, where the g++ runs are) take the eager
first call: a finding there is confirmed by the program alone
(worker.run_one), every call compiled as a user's, where such a finding
does not show.
"""
import contextlib
import os

import torch

_open = False


@contextlib.contextmanager
def window():
    """Graphs called in here run eagerly (a warm-up call: results dropped)."""
    global _open
    _open = True
    try:
        with backward_with_forward():
            yield
    finally:
        _open = False


def backward_with_forward():
    """Backward graphs compiled with their forward (the module's text);
    DLFUZZ_EAGER_BACKWARD=0: at their first call, as by default (A/B runs)."""
    config = getattr(getattr(torch, "_functorch", None), "config", None)
    if os.environ.get("DLFUZZ_EAGER_BACKWARD", "1") == "0" or not hasattr(config, "force_non_lazy_backward_lowering"):
        return contextlib.nullcontext()
    return config.patch(force_non_lazy_backward_lowering=True)


def eager_copy(gm):
    """The graph as Dynamo captured it: Inductor's pre-grad passes rewrite the
    graph module they are given in place."""
    import copy
    return torch.fx.GraphModule(gm, copy.deepcopy(gm.graph))


def first_call_eager(eager, compiled):
    def run(*args):
        return eager(*args) if _open else compiled(*args)
    return run


class Backend:
    """A torch.compile backend: `compile(gm, example_inputs)` (Inductor as
    torch.compile makes it), its graphs eager inside window()."""

    def __init__(self, compile):
        self.compile = compile
        # Dynamo names the backend by these (its errors: "backend='inductor'
        # raised", its repro-after-dynamo tooling), as it names `compile`.
        self.compiler_name = getattr(compile, "compiler_name", None)
        self.__name__ = self.compiler_name or type(compile).__name__

    def __call__(self, gm, example_inputs):
        eager = eager_copy(gm)
        return first_call_eager(eager, self.compile(gm, example_inputs))


def warm_up(call, calls, eager_first=True):
    """`calls` warm-up calls of `call`, the first inside window() where
    eager_first. Should that one raise (eager rejects what the compiled graph
    may accept: the accepts oracle's findings), it is made again with the
    compiled graphs. DLFUZZ_EAGER_FIRST_CALL=0: every call compiled (for A/B
    runs)."""
    eager_first = eager_first and os.environ.get("DLFUZZ_EAGER_FIRST_CALL", "1") != "0"
    for k in range(calls):
        if k == 0 and eager_first:
            try:
                with window():
                    call()
                continue
            except Exception:  # noqa: BLE001 - made again, compiled, below
                pass
        call()
