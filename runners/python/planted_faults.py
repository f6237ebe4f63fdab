"""Planted faults of the Python runners: known bugs at known places, for
testing dlfuzz itself (the version oracle, the layer ladder). Each takes the
program's function and returns the function the runner calls."""
import contextlib

import torch


def planted_regression(fn):
    """Eager, with the first finite element of the first float output that has
    one changed (a NaN or an infinity plus 1 is itself), but only on PyTorch 2
    and later: the same runner is right on 1.13 and wrong on 2.x, a regression
    the version oracle must catch (and nothing else)."""
    if int(torch.__version__.split(".")[0]) < 2:
        return fn

    def wrong(*args):
        outs = list(fn(*args))
        for i, o in enumerate(outs):
            if not o.is_floating_point() or o.numel() == 0:
                continue
            finite = torch.isfinite(o.reshape(-1)).nonzero()
            if finite.numel() == 0:
                continue
            k = int(finite[0])
            v = o.detach().reshape(-1)[k]
            bump = torch.zeros(o.numel(), dtype=o.dtype, device=o.device)
            bump[k] = wrong_value(v) - v  # added: gradients still flow through o
            outs[i] = o + bump.view(o.shape)
            break
        return tuple(outs)
    return wrong


def wrong_value(v):
    """v * 2 + 1 in v's dtype, or v / 2 where that is v itself (-1) or
    overflows (the oracles read that as rounding at the limit), or 1 for 0."""
    w = v * 2 + 1
    if bool(torch.isfinite(w)) and bool(w != v):
        return w
    return torch.ones_like(v) if bool(v == 0) else v / 2


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


@contextlib.contextmanager
def no_fusion():
    """Inductor with fusion defeated while it lives: every pointwise op's
    result is realized into a buffer of its own (Inductor would inline it
    into its users at lowering) and the scheduler fuses no two nodes, so
    each op is a kernel that writes memory the next one reads. Caches off,
    so no other compile meets these kernels. A correct but slower compile:
    the timing oracle's planted missed optimization on a fuser that helps."""
    from torch._inductor import config, ir, lowering
    table = lowering.lowerings
    saved = dict(table)

    def realized(lower):
        def lower_and_realize(*args, **kwargs):
            out = lower(*args, **kwargs)
            if (isinstance(out, ir.TensorBox) and isinstance(out.data, ir.StorageBox)
                    and isinstance(out.data.data, ir.Pointwise)):
                out.realize()
            return out
        return lower_and_realize
    for k, lower in saved.items():
        table[k] = realized(lower)
    try:
        with config.patch(max_fusion_size=1, epilogue_fusion=False, fx_graph_cache=False,
                          force_disable_caches=True):
            yield
    finally:
        table.clear()
        table.update(saved)


def planted_unfused(fn, compile_fn):
    """torch.compile (compile_fn) that compiles with no_fusion(). Only the
    first call (where Dynamo and Inductor compile) runs under it: patching
    Inductor's config on every call would cost more time than fusion saves."""
    compiled = compile_fn(fn)
    first = [True]

    def unfused(*args):
        if first[0]:
            first[0] = False
            with no_fusion():
                return compiled(*args)
        return compiled(*args)
    return unfused
