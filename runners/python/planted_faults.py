"""Planted faults of the Python runners: known bugs at known places, for
testing dlfuzz itself (the version oracle, the layer ladder). Each takes the
program's function and returns the function the runner calls."""
import contextlib

import torch


def planted_regression(fn):
    """Eager, with the first element of the first float output changed, but only
    on PyTorch 2 and later: the same runner is right on 1.13 and wrong on 2.x,
    a regression the version oracle must catch (and nothing else)."""
    if int(torch.__version__.split(".")[0]) < 2:
        return fn

    def wrong(*args):
        outs = list(fn(*args))
        for i, o in enumerate(outs):
            if o.is_floating_point() and o.numel() > 0:
                outs[i] = o + torch.nn.functional.pad(torch.ones(1, dtype=o.dtype), (0, o.numel() - 1)).view(o.shape)
                break
        return tuple(outs)
    return wrong


@contextlib.contextmanager
def wrong_sin_lowering():
    """Inductor lowers aten.sin as sin(x) + 0.01 while it lives, with its
    caches off so that no other compile meets the wrong code."""
    from torch._inductor import config, lowering
    aten = torch.ops.aten
    table = lowering.lowerings
    saved = {k: table[k] for k in (aten.sin, aten.sin.default) if k in table}
    right = saved[aten.sin.default]

    def wrong(x):
        return table[aten.add.Tensor](right(x), 0.01)
    for k in saved:
        table[k] = wrong
    try:
        with config.patch(fx_graph_cache=False, force_disable_caches=True):
            yield
    finally:
        table.update(saved)


def planted_lowering(fn, compile_fn):
    """torch.compile (compile_fn) whose Inductor lowering of sin is wrong while
    it compiles and runs: an Inductor bug the layer ladder must put on
    Inductor, first diverging at the sin (Dynamo, AOTAutograd and the
    decompositions below it are right)."""
    compiled = compile_fn(fn)

    def wrong(*args):
        with wrong_sin_lowering():
            return compiled(*args)
    return wrong
