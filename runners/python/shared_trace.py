"""One Dynamo trace for several compiled runners.

aot-eager and inductor differ only in the backend: Dynamo hands each graph it
captures to the backend after tracing it, the same way whichever backend
that is. So a batch (batching.py) traced once can serve both: every graph
Dynamo captures is compiled by each runner's backend in turn, and the callable
Dynamo gets back runs the one `active` names. Dynamo's trace, guards and graph
breaks are paid once per batch instead of once per runner (on these CPUs
about half a second per program).

A backend that fails to compile a graph does not stop the others: its graph
raises CompileFailed when that runner runs, and worker.py then runs that
runner's programs alone (run_one says which failed, at which stage).
"""
import torch

import eager_first_call

# runner -> the torch.compile backend it names. Inductor last: its pre-grad
# passes rewrite the graph module in place, and aot_eager must see Dynamo's.
BACKENDS = {"aot-eager": "aot_eager", "inductor": "inductor"}


class CompileFailed(RuntimeError):
    """A backend's failure to compile a graph, raised when its runner runs it."""


def sharable(runners, backends=BACKENDS):
    """The runners of `runners` that may share one trace, in `backends`' order;
    [] when fewer than two."""
    shared = [r for r in backends if r in runners]
    return shared if len(shared) > 1 else []


def backend(name):
    """A backend's compiler function: a callable as is, Inductor as
    torch.compile(fn) makes it (no mode, no options), others by name."""
    if callable(name):
        return name
    if name == "inductor":
        return torch._TorchCompileInductorWrapper(None, None, None)
    from torch._dynamo.backends.registry import lookup_backend
    return lookup_backend(name)


def _failing(error):
    def run(*args):
        raise CompileFailed(str(error)) from error
    return run


class SharedTrace:
    """A torch.compile backend compiling every graph with each runner's backend;
    set `active` to the runner whose compiled graphs run."""

    def __init__(self, runners, backends=BACKENDS):
        self.runners = [r for r in backends if r in runners]
        self.backends = backends
        self.active = self.runners[0]

    def __call__(self, gm, example_inputs):
        eager = eager_first_call.eager_copy(gm)
        compiled = {}
        for runner in self.runners:
            try:
                compiled[runner] = backend(self.backends[runner])(gm, example_inputs)
            except Exception as e:  # noqa: BLE001 - the other backends still run
                compiled[runner] = _failing(e)

        def run(*args):
            return compiled[self.active](*args)
        return eager_first_call.first_call_eager(eager, run)
