"""dlfuzz's Python runtime: what runs a dlfuzz program in PyTorch, any version from 1.13 on.

One source of truth for two users:
- runners/python/worker.py imports it to run programs through PyTorch's compiled paths;
- the standalone repro (generator/emit_python.cpp) is this file's text, inlined at build time,
  followed by the program's metadata constants, its `program` function and a call of main().

Nothing here reads the program's facts from globals: every function takes a ProgramMeta
(seed, device, world, plan, inputs, params, train, float64), so one process can hold several.
Names starting with _dlfuzz_ are called by emitted program functions (collectives, tensor
parallelism): they must stay module-level under these names.
"""
import argparse
import contextlib
import copy
import datetime
import hashlib
import importlib
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import types

# libtorch loaded RTLD_GLOBAL, as dlfuzz's worker loads it, so a repro runs what dlfuzz ran:
# where Inductor's link line finds another libtorch first (Debian's LibTorch 1.13), a plain
# process gets scalar C++ kernels, or "undefined symbol: Sleef_*" from kernels cached by a
# worker (README, Timings). No effect once torch is imported (the worker sets it itself).
os.environ.setdefault("TORCH_USE_RTLD_GLOBAL", "1")

import torch  # noqa: E402

# IEEE float32 on the GPU as on the CPU, as dlfuzz's runners compare them.
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def _dtype(d):
    # A dtype as the repro spells it (torch.float32) or as JSON carries it ("torch.float32").
    return d if isinstance(d, torch.dtype) else getattr(torch, str(d).split(".")[-1])


class ProgramMeta:
    """A program's facts: inputs = [(shape, dtype, init, lo, hi, layout, shard_dim, whole)...]
    in the program's order, params = indices of the trained inputs, train = None or
    (optimizer, lr, momentum, weight_decay, steps, flags), flags a tuple of "amsgrad",
    "nesterov", "foreach" (optional: a 5-tuple has none). With float64, floating inputs are built
    in float64 and the default dtype is float64 while run() runs (the float64 twin)."""

    def __init__(self, seed, device, world, plan, inputs, params, train, float64=False):
        self.seed, self.device, self.world, self.plan = int(seed), device, int(world), plan
        # float(): JSON carries non-finite floats as the strings "nan", "inf", "-inf".
        self.inputs = [(list(shape), _dtype(dtype), init, float(lo), float(hi), layout, int(shard), int(whole))
                       for shape, dtype, init, lo, hi, layout, shard, whole in inputs]
        self.params = [int(i) for i in params]
        self.train = None if train is None else (train[0], float(train[1]), float(train[2]), float(train[3]),
                                                 int(train[4]), tuple(train[5]) if len(train) > 5 else ())
        self.float64 = bool(float64)

    @classmethod
    def from_json(cls, j, float64=False):
        return cls(j["seed"], j["device"], j["world"], j["plan"], j["inputs"], j["params"], j["train"], float64)


def _dlfuzz_world():
    d = torch.distributed
    return d.get_world_size() if d.is_available() and d.is_initialized() else 1


def _dlfuzz_rank():
    d = torch.distributed
    return d.get_rank() if d.is_available() and d.is_initialized() else 0


def _dlfuzz_dense(t):
    """t with row-major strides: t itself where it has them, else a copy. A scan's or
    while_loop's init and carry, and a cond's two results (generator/emit_function.cpp), must
    match in strides, a size-one dim's too, which .contiguous() keeps (a [4, 1] transpose of
    a [1, 4] is contiguous, strides (1, 4))."""
    want, step = [], 1
    for size in reversed(t.shape):
        want.insert(0, step)
        step *= max(size, 1)
    return t if tuple(want) == t.stride() else t.clone(memory_format=torch.contiguous_format)


def _dlfuzz_special_table(dtype):
    # The values a `special` input mixes in (the C++ builder's special_values):
    # signed zeros, NaN, +-Inf, denormals, the smallest normal and the largest values.
    tiny, big, inf = torch.finfo(dtype).tiny, torch.finfo(dtype).max, float("inf")
    return [0.0, -0.0, float("nan"), inf, -inf, tiny / 4, -tiny / 4, tiny, big, -big, 1.0, -1.0]


def build_input(meta, index, shape, dtype, init, lo, hi, layout, shard_dim=-1, whole=0):
    # The same float64 Weyl-sequence formula as dlfuzz's C++ input builder. A
    # sharded input (shard_dim >= 0, world > 1) is built whole and this rank
    # takes its slice, as the C++ ranks do: even, or for uneven shards (whole >
    # 0: the whole size along shard_dim) split as torch.tensor_split does.
    declared = dtype
    if meta.float64 and dtype.is_floating_point:
        dtype = torch.float64
    world = _dlfuzz_world()
    sharded = world > 1 and 0 <= shard_dim < len(shape)
    if sharded:
        shape = list(shape)
        shape[shard_dim] = whole if whole > 0 else shape[shard_dim] * world
    n = 1
    for d in shape:
        n *= d
    phase = ((meta.seed % 9973) * 31 + index * 17) % 997 / 997.0
    f64 = torch.float64
    if init == "zeros":
        x = torch.zeros(n, dtype=f64)
    elif init == "ones":
        x = torch.ones(n, dtype=f64)
    elif init == "uniform":
        u = torch.arange(n, dtype=f64).mul(0.6180339887498949).add(phase).frac()
        x = u.mul(hi - lo).add(lo)
        if not dtype.is_floating_point:
            x = x.floor()
    elif init in ("special", "ints", "decimals"):
        i = torch.arange(n, dtype=f64)
        x = i.mul(0.6180339887498949).add(phase).frac().mul(hi - lo).add(lo)
        if init == "ints":
            x = x.floor()
        elif init == "decimals":
            x = x.mul(10.0).floor().div(10.0)
        elif declared.is_floating_point:
            table = torch.tensor(_dlfuzz_special_table(declared), dtype=f64)
            k = table.numel()
            pick = i.mul(0.5698402909980532).add(phase).frac().mul(float(k)).floor().clamp(max=k - 1)
            where = i.mul(0.7548776662466927).add(phase).frac().lt(0.125)
            x = torch.where(where, table.index_select(0, pick.long()), x)
    else:
        u1 = torch.arange(n, dtype=f64).mul(0.6180339887498949).add(phase).frac()
        u2 = torch.arange(n, dtype=f64).mul(0.7548776662466927).add(phase).frac()
        z = u1.neg().add(1.0).log().mul(-2.0).sqrt().mul(u2.mul(6.283185307179586).cos())
        x = z.mul(hi).add(lo)
    x = x.to(dtype).reshape(shape)
    if sharded:
        rank, total = _dlfuzz_rank(), shape[shard_dim]
        base, extra = total // world, total % world
        start, size = rank * base + min(rank, extra), base + (1 if rank < extra else 0)
        x = x.narrow(shard_dim, start, size).contiguous()
    x = x.to(meta.device)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif layout == "strided":
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


def build_inputs(meta):
    return [build_input(meta, i, *spec) for i, spec in enumerate(meta.inputs)]


_collective_ms = 0.0  # this process's time in collectives called outside compiled code
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


def collective_ms():
    """Milliseconds this process has spent in c10d calls so far (the timing
    oracle's time in collectives: a rank that waits for another waits there).
    A collective traced into a compiled region is part of that region's
    time, not counted here (timing.profiled_collective_ms counts those); on
    cuda an NCCL call is timed until it is queued."""
    return _collective_ms


def _collective(c10d_call, *args, **kwargs):
    if _is_compiling():  # Dynamo traces the call itself, not the clock around it
        return c10d_call(*args, **kwargs)
    global _collective_ms
    t0 = time.perf_counter()
    try:
        return c10d_call(*args, **kwargs)
    finally:
        _collective_ms += (time.perf_counter() - t0) * 1000


# Collectives with dlfuzz's semantics (runners/distributed/collectives.cpp),
# functional: each returns a new tensor. Gloo has no AVG and no
# reduce_scatter: avg is a sum divided by the world size, reduce_scatter an
# all-reduce keeping this rank's chunk, all_to_all is built from all_gather.
def _dlfuzz_reduce_op(op):
    ops = torch.distributed.ReduceOp
    if op == "max":
        return ops.MAX
    if op == "min":
        return ops.MIN
    if op == "product":
        return ops.PRODUCT
    return ops.SUM


def _dlfuzz_all_reduce(x, op):
    world = _dlfuzz_world()
    if world == 1:
        return x.clone()
    t = x.clone(memory_format=torch.contiguous_format)
    _collective(torch.distributed.all_reduce, t, op=_dlfuzz_reduce_op(op))
    if op == "avg":
        t = t.div(world)
    return t


def _dlfuzz_gather_list(x):
    x = x.contiguous()
    parts = [torch.empty_like(x) for _ in range(_dlfuzz_world())]
    _collective(torch.distributed.all_gather, parts, x)
    return parts


def _dlfuzz_all_gather(x, dim):
    if _dlfuzz_world() == 1:
        return x.clone()
    return torch.cat(_dlfuzz_gather_list(x), dim)


def _dlfuzz_reduce_scatter(x, dim, op):
    world = _dlfuzz_world()
    if world == 1:
        return x.clone()
    t = _dlfuzz_all_reduce(x, op)
    return t.chunk(world, dim)[_dlfuzz_rank()].clone(memory_format=torch.contiguous_format)


def _dlfuzz_broadcast(x, src):
    if _dlfuzz_world() == 1:
        return x.clone()
    t = x.clone(memory_format=torch.contiguous_format)
    _collective(torch.distributed.broadcast, t, src)
    return t


def _dlfuzz_all_to_all(x, dim):
    world = _dlfuzz_world()
    if world == 1:
        return x.clone()
    rank = _dlfuzz_rank()
    return torch.cat([part.chunk(world, dim)[rank] for part in _dlfuzz_gather_list(x)], dim)


# Tensor parallelism's communication points (Megatron-LM's mappings.py):
# a collective in one direction of autograd, the identity or a slice in the other.
class _DlfuzzTpCopy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return _dlfuzz_all_reduce(grad, "sum")


class _DlfuzzTpReduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return _dlfuzz_all_reduce(x, "sum")

    @staticmethod
    def backward(ctx, grad):
        return grad


class _DlfuzzTpGather(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return _dlfuzz_all_gather(x, dim)

    @staticmethod
    def backward(ctx, grad):
        world = _dlfuzz_world()
        if world > 1:
            grad = grad.chunk(world, ctx.dim)[_dlfuzz_rank()].contiguous()
        return grad, None


def _dlfuzz_tp_copy(x):
    return _DlfuzzTpCopy.apply(x)


def _dlfuzz_tp_reduce(x):
    return _DlfuzzTpReduce.apply(x)


def _dlfuzz_tp_gather(x, dim):
    return _DlfuzzTpGather.apply(x, dim)


_PROGRAMS_DEFINED = itertools.count()  # numbers define_program's modules


def define_program(source, name="program"):
    """The emitted function `name` from its source, defined where it finds torch and the
    _dlfuzz_ helpers (the worker's way; the repro defines it beside this text)."""
    # A real module, registered under a name of its own: Dynamo of 2.11 and 2.12
    # imports a traced function's module by its __name__ ("No module named
    # 'dlfuzz_program'"), and Dynamo of 2.15 a program's nested compile regions
    # (module-level functions) too, so programs defined side by side (a batch)
    # may not share one: a later program's module hid an earlier one's regions.
    # The latest 256 stay registered (a batch defines at most a few dozen).
    number = next(_PROGRAMS_DEFINED)
    module = types.ModuleType(f"dlfuzz_program_{number}")
    module.__dict__.update({k: v for k, v in globals().items() if not k.startswith("__")})
    sys.modules[module.__name__] = module
    sys.modules.pop(f"dlfuzz_program_{number - 256}", None)
    exec(compile(source, "<dlfuzz program>", "exec"), module.__dict__)
    return getattr(module, name)


def _dlfuzz_slice(numel, rank, world):
    # A rank's slice [lo, hi) of a flattened parameter under ZeRO: uneven, maybe empty.
    per = (numel + world - 1) // world
    lo = min(numel, per * rank)
    return lo, min(numel, lo + per)


def _dlfuzz_buckets(params):
    # One bucket per dtype, as DDP does: parameter indices in program order.
    buckets = {}
    for i, p in enumerate(params):
        buckets.setdefault(p.dtype, []).append(i)
    return list(buckets.values())


def _dlfuzz_sync_grads(params):
    # DDP: every gradient (none counts as zeros) summed over the ranks and averaged.
    world = _dlfuzz_world()
    for idx in _dlfuzz_buckets(params):
        flat = [params[i].grad.reshape(-1) if params[i].grad is not None
                else torch.zeros(params[i].numel(), dtype=params[i].dtype, device=params[i].device) for i in idx]
        bucket = torch.cat(flat)
        _collective(torch.distributed.all_reduce, bucket)
        bucket.div_(world)
        offset = 0
        for i in idx:
            n = params[i].numel()
            params[i].grad = bucket[offset:offset + n].view(params[i].shape).clone()
            offset += n


class _DlfuzzZero:
    """ZeRO: each rank updates its slice of every parameter with its own
    optimizer, then the slices are all-gathered (written into zeros, summed)."""

    def __init__(self, params, make_optimizer):
        world, rank = _dlfuzz_world(), _dlfuzz_rank()
        self.params = params
        self.ranges = [_dlfuzz_slice(p.numel(), rank, world) for p in params]
        self.slices = [p.detach().reshape(-1)[lo:hi].clone() for p, (lo, hi) in zip(params, self.ranges)]
        self.optimizer = make_optimizer(self.slices)

    def step(self):
        with torch.no_grad():
            for p, s, (lo, hi) in zip(self.params, self.slices, self.ranges):
                # run() gives every param a gradient (zeros where autograd gave none).
                s.grad = torch.zeros_like(s) if p.grad is None else p.grad.reshape(-1)[lo:hi].clone()
            self.optimizer.step()
            for idx in _dlfuzz_buckets(self.params):
                ps = [self.params[i] for i in idx]
                full = torch.zeros(sum(p.numel() for p in ps), dtype=ps[0].dtype, device=ps[0].device)
                offset = 0
                for i, p in zip(idx, ps):
                    lo, hi = self.ranges[i]
                    full[offset + lo:offset + hi].copy_(self.slices[i])
                    offset += p.numel()
                _collective(torch.distributed.all_reduce, full)
                offset = 0
                for p in ps:
                    p.copy_(full[offset:offset + p.numel()].view(p.shape))
                    offset += p.numel()


def _dlfuzz_digest(tensors):
    # Compared only between the ranks of one run: any hash of the bytes does.
    h = hashlib.sha1()
    for t in tensors:
        h.update(bytes(t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).tolist()))
    return h.hexdigest()[:16]


def _dlfuzz_save_matmuls():
    """The context_fn of a selective checkpoint (`checkpoint ..., selective=true`):
    matmul and convolution results saved for backward, everything else
    recomputed, as torchtitan's op-level policy writes it. A module-level
    function: Dynamo takes a function or a functools.partial as context_fn."""
    names = ["mm", "addmm", "bmm", "baddbmm", "convolution", "_scaled_dot_product_flash_attention_for_cpu"]
    ops = [getattr(torch.ops.aten, n).default for n in names if hasattr(torch.ops.aten, n)]
    return torch.utils.checkpoint.create_selective_checkpoint_contexts(ops)


# flex_attention's score and mask modifications, by the names a program's
# `flex_attention` node gives (generator/ops/attention.cpp): score_mod(score,
# batch, head, q_idx, kv_idx) -> score, mask_mod(batch, head, q_idx, kv_idx) ->
# whether the pair is attended, as PyTorch's attention-gym writes them.
_DLFUZZ_SCORE_MODS = {
    "relative": lambda score, b, h, q, kv: score + (q - kv).to(score.dtype) * 0.1,
    "alibi": lambda score, b, h, q, kv: score - ((h + 1) * 0.25 * (q - kv).abs()).to(score.dtype),
    "softcap": lambda score, b, h, q, kv: torch.tanh(score / 5.0) * 5.0,
    "causal": lambda score, b, h, q, kv: torch.where(q >= kv, score, -float("inf")),
}
_DLFUZZ_MASK_MODS = {
    "causal": lambda b, h, q, kv: q >= kv,
    "sliding_window": lambda b, h, q, kv: (q - kv).abs() <= 2,
    "document": lambda b, h, q, kv: q // 3 == kv // 3,
}


def _dlfuzz_bias_mod(name, bias, kv_len):
    # The score modifications that read a captured tensor (`bias`), closures
    # as models write them: a learned (H, L, S) bias, a relative-position
    # table indexed by q - kv, per-head ALiBi slopes.
    if name == "bias":
        return lambda score, b, h, q, kv: score + bias[h, q, kv]
    if name == "relative_bias":
        return lambda score, b, h, q, kv: score + bias[q - kv + kv_len - 1]
    if name == "head_slope":
        return lambda score, b, h, q, kv: score - bias[h] * (q - kv).abs()
    raise ValueError(f"unknown bias score_mod {name}")


def _dlfuzz_flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                           bias=None, doc_ids=None):
    # The block mask is built in the program, as a model builds it per call
    # (Dynamo traces create_block_mask); a fully masked query row gives zeros.
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    mask = None
    mask_mod = _DLFUZZ_MASK_MODS.get(block_mask)
    if block_mask == "document_ids":  # packed sequences: attend within one document
        def mask_mod(b, h, q, kv):
            return doc_ids[q] == doc_ids[kv]
    if mask_mod is not None:
        mask = create_block_mask(mask_mod, None, None, query.shape[-2], key.shape[-2], device=query.device)
    mod = _dlfuzz_bias_mod(score_mod, bias, key.shape[-2]) if bias is not None else _DLFUZZ_SCORE_MODS.get(score_mod)
    return flex_attention(query, key, value, score_mod=mod, block_mask=mask, scale=scale, enable_gqa=enable_gqa)


# Backward hooks by the names a program's `grad_hook` node gives
# (generator/ops/autograd.cpp): each takes the gradient reaching the hooked
# value and returns the one to use instead, or None to keep it.
_DLFUZZ_GRAD_STATS = {}


def _dlfuzz_observe_grad(grad):
    # A logging hook, as training code writes one: it records and returns None.
    _DLFUZZ_GRAD_STATS["max"] = grad.detach().abs().amax()


_DLFUZZ_GRAD_HOOKS = {
    "scale": lambda grad: grad * 0.5,
    "clip": lambda grad: grad.clamp(-0.05, 0.05),
    "normalize": lambda grad: grad / (grad.norm() + 1e-6),
    "observe": _dlfuzz_observe_grad,
}


def _dlfuzz_grad_hook(x, hook, other=None):
    # x.register_hook, returning x; `captured` multiplies by a forward value.
    # Nothing to hook where no gradient flows (inference, no_grad).
    if x.requires_grad:
        x.register_hook((lambda grad: grad * other) if hook == "captured" else _DLFUZZ_GRAD_HOOKS[hook])
    return x


def _dlfuzz_fill_missing_grads(params):
    # A param autograd gave no gradient (None) gets zeros before the step, as in
    # dlfuzz's C++ runners: compiled autograd materializes zeros where eager
    # leaves None, and optimizers treat the two differently (weight decay,
    # momentum, Adam's moments). Gradients are never dropped by value: a sum that
    # cancels to exactly 0 on one side and to 1e-7 on the other is compared with
    # the tolerances of every other value, and both sides step the same way.
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)


def _passes(train):
    """Forward and backward passes per step (TrainStep::passes): two with
    gradient accumulation, the second adding into the .grad the first left."""
    return 2 if "accumulate" in train[5] else 1


def _make_optimizer(train, ps):
    opt_name, lr, momentum, weight_decay, _, flags = train  # ProgramMeta's: flags always there
    # foreach=None: torch.optim's default (the for-loop on CPU tensors).
    common = dict(lr=lr, weight_decay=weight_decay, foreach=True if "foreach" in flags else None)
    if opt_name == "sgd":
        return torch.optim.SGD(ps, momentum=momentum, nesterov="nesterov" in flags, **common)
    if opt_name == "adam":
        return torch.optim.Adam(ps, amsgrad="amsgrad" in flags, **common)
    if opt_name == "rmsprop":
        return torch.optim.RMSprop(ps, momentum=momentum, **common)
    if opt_name == "adagrad":
        return torch.optim.Adagrad(ps, **common)
    return torch.optim.AdamW(ps, amsgrad="amsgrad" in flags, **common)


def compiled_step(opt, backend):
    """opt.step compiled by torch.compile with `backend`, as PyTorch's recipe for a
    compiled optimizer does: a function that calls it. Dynamo runs the
    optimizer's state initialization eagerly and traces the update."""
    def step():
        opt.step()
    return torch.compile(step, backend=backend)


def run(meta, fn, step_backend=None, crossref=False):
    """One run of fn over freshly built inputs: inference, or `steps` training steps
    (with the optimizer step compiled by `step_backend` where given); with
    crossref, every ATen call checked against its FakeTensor twin (crossref_fake).
    Returns {"outputs", "losses", "grads", "params", "digests"}."""
    previous = torch.get_default_dtype()
    if meta.float64:  # the float64 twin: Python floats and factory calls in float64 too
        torch.set_default_dtype(torch.float64)
    try:
        with crossref_fake() if crossref else contextlib.nullcontext():
            return _run(meta, fn, step_backend)
    finally:
        torch.set_default_dtype(previous)


def crossref_fake():
    """A context in which every ATen call (forward, backward and optimizer step)
    also runs on FakeTensors, through the meta kernels and decompositions that
    torch.compile and torch.export trace with, and an output of another shape,
    strides, storage offset or aliasing than the real one raises
    (torch._subclasses.fake_utils.CrossRefFakeMode, what PyTorch's own
    test_fake_crossref runs over its OpInfos). A compiled program is traced on
    those fake results: where they are wrong, it fails or computes on a layout
    eager never makes."""
    from torch._subclasses.fake_utils import CrossRefFakeMode
    return CrossRefFakeMode()


def _run(meta, fn, step_backend=None):
    inputs = build_inputs(meta)
    params = [inputs[i] for i in meta.params]
    world = _dlfuzz_world()
    result = {"outputs": [], "losses": [], "grads": [], "params": [], "digests": []}
    if meta.train is None:
        with torch.no_grad():
            torch.manual_seed(0)  # random ops (dropout) draw the same in every runner
            outs = fn(*inputs)
        result["outputs"] = list(outs)
    else:
        for p in params:
            p.requires_grad_(True)
        steps = meta.train[4]

        def make_optimizer(ps):
            return _make_optimizer(meta.train, ps)
        data_parallel = world > 1 and meta.plan in ("dp", "zero")
        opt = _DlfuzzZero(params, make_optimizer) if data_parallel and meta.plan == "zero" else make_optimizer(params)
        step_fn = compiled_step(opt, step_backend) if step_backend else opt.step
        # Tensor-parallel shards differ by design: digests cover the replicated params.
        split = [world > 1 and meta.inputs[i][6] >= 0 for i in meta.params]
        replicated = [p for p, s in zip(params, split) if not s]
        passes = _passes(meta.train)
        for step in range(steps):
            for p in params:
                p.grad = None
            for _ in range(passes):
                torch.manual_seed(0)
                with autograd_context(fn):
                    outs = fn(*[x if x.requires_grad else x.clone() for x in inputs])
                    loss = outs[-1]
                    result["losses"].append(loss.item())
                    loss.backward()
            _dlfuzz_fill_missing_grads(params)
            if data_parallel:
                _dlfuzz_sync_grads(params)
            if step == steps - 1:  # copies: an output may be a view of a param the step updates
                result["outputs"] = [o.detach().clone() for o in outs[:-1]]
                # and a step may write into the gradients (1.13's foreach Adagrad adds weight decay in place)
                result["grads"] = [p.grad.detach().clone() for p in params]
            step_fn()
            if world > 1:
                result["digests"].append(_dlfuzz_digest(replicated))
    result["params"] = [p.detach() for p in params]
    return result


def resized_meta(meta):
    """meta with the batch resized: every data input (params keep their shapes)
    whose dim 0 is the first data input's, B, gets B + 1 (3 when B is 0 or 1:
    dynamic=True specializes those sizes). None when no data input has a dim."""
    data = [i for i, spec in enumerate(meta.inputs) if i not in meta.params and spec[0]]
    if not data:
        return None
    batch = meta.inputs[data[0]][0][0]
    size = batch + 1 if batch >= 2 else 3
    out = copy.copy(meta)
    out.inputs = [(([size] + list(spec[0][1:])) if i in data and spec[0][0] == batch else spec[0],) + tuple(spec[1:])
                  for i, spec in enumerate(meta.inputs)]
    return out


def capture_data_dependent(compiled_fn):
    """Calls of a compiled function with data-dependent sizes (nonzero,
    masked_select, x[mask]) and .item() traced as unbacked symbols instead of
    graph breaks: the settings apply while a call compiles, so every call runs
    under them (inductor-dynamic, and the repro's --dynamic)."""
    def call(*args):
        with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
            return compiled_fn(*args)
    return call


def compiled_autograd(compiled_fn):
    """compiled_fn whose calls, each with its backward, run under Compiled
    Autograd as torchtitan enables it (maybe_enable_compiled_autograd: the
    backward the autograd engine runs, hooks and gradient accumulation
    included, traced at run time and compiled by Inductor, fullgraph and
    dynamic). Under it Dynamo traces the hooks a forward registers on
    intermediates into the graph (BackwardState). run() and
    batching.run_batched enter autograd_context(fn) around a forward and its
    backward (inductor-ca, and the repro's --compiled-autograd)."""
    def call(*args):
        return compiled_fn(*args)
    call.dlfuzz_autograd = lambda: torch._dynamo.utils.maybe_enable_compiled_autograd(True)
    return call


def autograd_context(fn):
    """The context fn's forward and backward run in: Compiled Autograd's for
    compiled_autograd(fn), none otherwise."""
    make = getattr(fn, "dlfuzz_autograd", None)
    return make() if make else contextlib.nullcontext()


# torch.compile's mode for inductor-autotune (and the repro's --max-autotune).
MAX_AUTOTUNE = "max-autotune-no-cudagraphs"

# Inductor config knobs that change how Inductor compiles for the CPU, not what a
# program computes (a summation order at most, which the tolerance takes), each
# with a value off its default: the settings its users and its own tests flip
# (torch._inductor.fuzzer.ConfigFuzzer flips every knob, semantics too). Each
# one picks another path: scalar or vector code, one thread or OpenMP regions,
# fusion limits, buffer reuse and memory planning, the C++ wrapper, passes off.
INDUCTOR_KNOBS = (
    ("cpp.simdlen", 0),                         # scalar code, no vector ISA
    ("cpp.threads", 1),                         # no parallel regions
    ("cpp.dynamic_threads", True),              # thread count read at run time
    ("cpp.min_chunk_size", 1),                  # every loop parallel
    ("cpp.enable_tiling_heuristics", False),
    ("cpp.enable_loop_tail_vec", False),        # scalar tails
    ("cpp.max_horizontal_fusion_size", 1),
    ("cpp.fallback_scatter_reduce_sum", False),  # scatter_reduce generated, not ATen's
    ("cpp.weight_prepack", False),
    ("cpp.enable_concat_linear", True),
    ("cpp_wrapper", True),                      # the C++ wrapper AOTInductor uses, in JIT
    ("epilogue_fusion", False),
    ("epilogue_fusion_first", True),
    ("aggressive_fusion", True),
    ("max_fusion_size", 2),
    ("score_fusion_memory_threshold", 1),
    ("loop_ordering_after_fusion", False),
    ("pick_loop_orders", False),
    ("loop_index_inversion_in_fusion", False),
    ("realize_reads_threshold", 1),             # every multiply-read value a buffer
    ("realize_opcount_threshold", 1),
    ("unroll_reductions_threshold", 1),
    ("split_reductions", False),
    ("online_softmax", False),
    ("inplace_buffers", False),
    ("allow_buffer_reuse", False),
    ("memory_planning", True),                  # one pool for the buffers
    ("reorder_for_locality", False),
    ("reorder_for_peak_memory", False),
    ("comprehensive_padding", False),
    ("shape_padding", False),
    ("pattern_matcher", False),                 # no fx pattern rewrites
    ("joint_graph_constant_folding", False),
    ("split_cat_fx_passes", False),
    ("group_fusion", True),
    ("batch_fusion", False),
    ("permute_fusion", True),
    ("decompose_mem_bound_mm", True),
    ("optimize_scatter_upon_const_tensor", False),
    ("max_pointwise_cat_inputs", 1),
)


def inductor_knobs(seed, count=4, only=None):
    """The Inductor config inductor-knobs compiles a program with: `count` of
    INDUCTOR_KNOBS, drawn from the program's seed, so a recheck, the reduced
    program (which keeps its seed) and its repro compile with the same ones.
    only=N (1-based): the N-th of them alone, as inductor-knob-N compiles
    (its ladder's rungs: which knob a finding needs)."""
    drawn = random.Random(f"dlfuzz-knobs-{seed}").sample(INDUCTOR_KNOBS, count)
    return dict(drawn if only is None else drawn[only - 1:only])


def knobs_text(knobs):
    """`name=value, ...`: how a result and the repro name a config."""
    return ", ".join(f"{name}={value}" for name, value in knobs.items())


def vmapped(meta, fn, compile=None):
    """fn under torch.func.vmap, as the vmap and inductor-vmap runners (and the
    repro's --vmap) call it: each data input batched with a second sample (its
    own values in another order, so that every value stays in the domain its
    op needs), the params shared (in_dims None), and of each output the first
    sample: what fn gives on the inputs alone, here through functorch's
    batching rules. `compile` (torch.compile) compiles the batched function:
    Dynamo traces vmap itself. Inference programs inside vmap's stated limits
    (generator/vmappable.h)."""
    shared = set(meta.params)
    in_dims = tuple(None if i in shared else 0 for i in range(len(meta.inputs)))

    def batched_fn(*args):
        return torch.func.vmap(fn, in_dims=in_dims)(*args)
    inner = compile(batched_fn) if compile else batched_fn

    def call(*args):
        order = torch.Generator().manual_seed(meta.seed)  # every call, every runner: the same second sample
        batch = [a if i in shared else torch.stack([a, _dlfuzz_shuffled(a, order)]) for i, a in enumerate(args)]
        return tuple(o[0] for o in inner(*batch))
    return call


def forward_mode(meta, fn, compile=None, batched=False, order=1):
    """fn through forward-mode AD, as the jvp and inductor-jvp runners (and the
    repro's --jvp) call it: torch.func.jvp with a tangent u for the
    floating-point arguments of a TANGENT_SETS set, returning fn's outputs
    followed by their tangents (the directional derivative J·u, zeros for an
    output no tangent reaches). Those are judged against reverse_mode_jvp, the
    same J·u computed through backward formulas instead of forward ones.
    `compile` (torch.compile) compiles the jvp call: Dynamo traces
    torch.func.jvp. `batched` (the jacfwd runner) calls jvp under
    torch.func.vmap over a batch of two tangents, u and its values in another
    order, as torch.func.jacfwd computes a Jacobian (a batch of basis
    tangents): the forward formulas through vmap's batching rules, the
    primals unbatched; the first sample is J·u. `order` 2 (the jvp2 runner)
    nests jvp in jvp, as Taylor-mode and physics-informed code does, and
    returns the second directional derivatives d²/dt² fn(x + t·u) at t = 0
    (uᵀ H u of each output element) in place of J·u: the forward formulas
    differentiated by forward mode. The set is chosen on the first call,
    eagerly (the first that forward mode supports), so every runner uses the
    same."""
    def of_args(*args_and_tangents):
        n = len(args_and_tangents) // 2
        args, tangents = args_and_tangents[:n], args_and_tangents[n:]
        where = [i for i, t in enumerate(tangents) if t is not None]
        if not where:  # no float argument
            outs = tuple(fn(*args))
            return outs, tuple(None for _ in outs)

        def of_floats(*floats):
            full = list(args)
            for i, x in zip(where, floats):
                full[i] = x
            return tuple(fn(*full))
        primals = tuple(args[i] for i in where)

        def jvp_of(*ts):
            if order == 1:
                return torch.func.jvp(of_floats, primals, ts)

            def first(*xs):  # J(x)·u, and the outputs as aux
                outs, firsts = torch.func.jvp(of_floats, xs, ts)
                return firsts, outs
            _, seconds, outs = torch.func.jvp(first, primals, ts, has_aux=True)
            return outs, seconds
        if not batched:
            return jvp_of(*[tangents[i] for i in where])
        # randomness="same": a random op draws once for the batch, what eager draws
        outs, tangent_batches = torch.func.vmap(jvp_of, randomness="same")(*[tangents[i] for i in where])
        return tuple(o[0] for o in outs), tuple(t[0] for t in tangent_batches)
    inner = compile(of_args) if compile else of_args
    state = {}

    def call(*args):
        tangents = _dlfuzz_tangents_once(state, meta, fn, args, order)
        if batched:
            shuffle = torch.Generator().manual_seed(meta.seed + 2)
            tangents = [None if t is None else torch.stack([t, _dlfuzz_shuffled(t, shuffle)]) for t in tangents]
        outs, tangents = inner(*args, *tangents)
        return _dlfuzz_with_tangents(outs, tangents)
    call.state = state
    return call


def reverse_mode_jvp(meta, fn, order=1):
    """The jvp runners' reference: fn's outputs and J·u for the tangents u of
    jvp_tangents, computed by reverse-mode AD twice (the double-vjp trick of
    torch.autograd.functional.jvp: g(w) = Jᵀw is linear in w, and J·u is the
    gradient of <g(w), u> with respect to w), so that each forward-mode
    formula is checked against its op's backward formula. The tangents are
    chosen as the jvp runners choose them, on the first call: a program
    forward mode supports with none of TANGENT_SETS fails here as it fails there,
    and no runner is judged on it. Where an op has no double backward, J·u is
    forward mode's own (the jvp runner is then judged on its outputs alone,
    the compiled ones on everything). `order` 2 (jvp2's reference): the
    second directional derivatives, the trick applied to J(x)·u itself
    (reverse mode four times deep), or forward mode's own where an op has
    no derivative that deep."""
    state = {}

    def call(*args):
        tangents = _dlfuzz_tangents_once(state, meta, fn, args, order)
        copies = [a.clone() for a in args]  # for the fallback: fn may write into its arguments
        torch.manual_seed(0)  # random ops draw what they draw in forward mode
        try:
            outs, tangents = _dlfuzz_double_vjp(fn, args, tangents, order)
        except Exception:  # no derivative that deep for an op
            forward = forward_mode(meta, fn, order=order)
            forward.state["set"] = state["set"]
            torch.manual_seed(0)
            return forward(*copies)
        return _dlfuzz_with_tangents(outs, tangents)
    return call


def finite_difference_jvp(meta, fn, order=1):
    """The float64 twin of reverse_mode_jvp, which arbitrates where forward
    and reverse mode disagree: fn's outputs and J·u by central differences,
    (fn(x + step·u) - fn(x - step·u)) / 2·step, with the tangents the jvp
    runners choose. It uses neither mode's formulas, so a wrong double
    backward (pytorch#79705: layer_norm's with a bias and no weight) is not
    put on forward mode. Where the program has no derivative at this point
    in direction u (a kink or a jump: atan2 at (0, 0), hypot(x, x) at 0,
    floor at an integer), there is nothing to judge: the one-sided
    quotients disagree and the tangent is NaN, which the numeric oracle
    reads as "any tangent passes here" (numeric_oracle.h). `order` 2 (jvp2's
    arbiter): second differences at steps h and 2h, NaN where they disagree
    (a kink in fn itself), else their Richardson extrapolation."""
    state = {}
    step = 1e-6 if order == 1 else 1e-3  # second differences lose digits as eps / h²

    def call(*args):
        tangents = _dlfuzz_tangents_once(state, meta, fn, args, order)

        def at(h):
            torch.manual_seed(0)  # random ops draw the same at every point
            return tuple(fn(*[a.clone() if t is None else a + h * t for a, t in zip(args, tangents)]))
        plus, minus = at(step), at(-step)
        torch.manual_seed(0)
        outs = tuple(fn(*args))
        if order == 1:
            quotients = [_dlfuzz_directional_derivative(o, p, m, step) if o.is_floating_point() else None
                         for o, p, m in zip(outs, plus, minus)]
        else:
            plus2, minus2 = at(2 * step), at(-2 * step)
            quotients = [_dlfuzz_second_derivative(o, p, m, p2, m2, step) if o.is_floating_point() else None
                         for o, p, m, p2, m2 in zip(outs, plus, minus, plus2, minus2)]
        return _dlfuzz_with_tangents(outs, quotients)
    return call


def _dlfuzz_directional_derivative(at_x, plus, minus, step):
    # The central quotient of f(x - step·u), f(x), f(x + step·u), NaN where
    # the one-sided quotients disagree: no derivative there. They differ by
    # about step·|f''| where f is smooth (1e-6 of the slopes' size unless
    # f'' is 10,000 times f'), by the slopes' own size at a kink, and by
    # 1/step at a jump; float64's rounding of f over step is the floor.
    right, left = (plus - at_x) / step, (at_x - minus) / step
    floor = 64 * torch.finfo(torch.float64).eps * (plus.abs() + at_x.abs() + minus.abs()) / step
    kink = (right - left).abs() > 1e-2 * (1 + right.abs() + left.abs()) + floor
    return torch.where(kink, torch.full_like(at_x, float("nan")), (plus - minus) / (2.0 * step))


def _dlfuzz_second_derivative(at_x, plus, minus, plus2, minus2, step):
    # Second differences at steps h and 2h: f'' + c·h² and f'' + 4c·h² where
    # f is smooth, so (4·D(h) - D(2h)) / 3 is f'' to O(h⁴); at a kink of f
    # they grow as 1/h and 1/2h, so where they disagree there is no second
    # derivative (NaN). Float64's rounding of f over h² is the floor.
    near = (plus - 2 * at_x + minus) / step ** 2
    far = (plus2 - 2 * at_x + minus2) / (4 * step ** 2)
    size = plus2.abs() + plus.abs() + 2 * at_x.abs() + minus.abs() + minus2.abs()
    floor = 64 * torch.finfo(torch.float64).eps * size / step ** 2
    kink = (near - far).abs() > 1e-2 * (1 + near.abs() + far.abs()) + floor
    return torch.where(kink, torch.full_like(at_x, float("nan")), (4 * near - far) / 3)


# Which float arguments get a tangent. The program's seed says which set is
# tried first, then the next ones in this order (wrapping): the first that
# forward mode supports is used. Each is a way users call jvp: through every
# argument; through the data alone, the weights captured as constants (a
# network's Jacobian-vector product in its input: what torch.compile of jvp
# over layer_norm's weight fails on, 2026-12-07); through the weights alone
# (forward gradients). An op without a forward formula may read only data,
# and batch_norm's running statistics (params here) may have no tangent.
TANGENT_SETS = ("every float argument", "the float data inputs", "the float params")


def tangent_set_order(seed):
    """The indices of TANGENT_SETS in the order a program of this seed tries them."""
    first = seed % len(TANGENT_SETS)
    return [(first + k) % len(TANGENT_SETS) for k in range(len(TANGENT_SETS))]


def jvp_tangents(meta, args, which=0):
    """A tangent for each floating-point argument of TANGENT_SETS[which], None
    for the others: values in [-1, 1) from a generator seeded per program, the
    same in every runner (cast to the argument's dtype; the float64 twin's, as
    its inputs, unrounded)."""
    generator = torch.Generator().manual_seed(meta.seed + 1)
    params = set(meta.params)
    tangents = []
    for i, a in enumerate(args):
        if not a.is_floating_point():
            tangents.append(None)
            continue
        u = torch.rand(a.shape, generator=generator, dtype=torch.float64).mul(2.0).sub(1.0)
        chosen = which == 0 or (which == 1) == (i not in params)
        tangents.append(u.to(device=a.device, dtype=a.dtype) if chosen else None)
    return tangents


def _dlfuzz_tangents_once(state, meta, fn, args, order):
    # The tangents of the runners' set, chosen on the first call and kept in
    # `state` (raises where forward mode supports none); random ops then draw
    # again what the trial drew.
    if "set" not in state:
        state["set"] = _dlfuzz_supported_tangent_set(meta, fn, args, order)
        torch.manual_seed(0)
    return jvp_tangents(meta, args, state["set"])


def _dlfuzz_supported_tangent_set(meta, fn, args, order=1):
    # The first of TANGENT_SETS in the seed's order (with a tangent at all)
    # that forward mode runs eagerly on copies of args, or that it fails on
    # with an error that is not one of its stated limits (a bug of forward
    # mode: the runner is then judged, and fails, against reverse mode's J·u);
    # where every set meets a stated limit, the first one's error.
    first_error = None
    for which in tangent_set_order(meta.seed):
        tangents = jvp_tangents(meta, args, which)
        if all(t is None for t in tangents):
            continue
        torch.manual_seed(0)
        try:
            forward_mode_trial = forward_mode(meta, fn, order=order)
            forward_mode_trial.state["set"] = which
            forward_mode_trial(*[a.clone() for a in args])
            return which
        except Exception as e:
            if not _dlfuzz_forward_mode_limit(e):
                return which
            first_error = first_error or e
    if first_error is None:
        return 0  # no float argument: every tangent is zero
    raise first_error


# What forward mode refuses by design: an op without a forward formula (or
# whose formula has none, at second order), a tangent on batch_norm's running
# statistics, an in-place write into a tensor captured from outside the
# transform (functorch). Any other error in forward mode alone is a finding.
FORWARD_MODE_LIMITS = ("is not differentiable wrt running_mean", "attempted to call in-place operation")


def _dlfuzz_forward_mode_limit(error):
    return isinstance(error, NotImplementedError) or any(text in str(error) for text in FORWARD_MODE_LIMITS)


def _dlfuzz_with_tangents(outs, tangents):
    # fn's outputs, then one tangent each: zeros for an output that is not
    # floating point or that no tangent reaches (the same rule on every side).
    outs = tuple(outs)
    return outs + tuple(_dlfuzz_tangent_of(o, t) for o, t in zip(outs, tangents))


def _dlfuzz_tangent_of(out, tangent):
    if not out.is_floating_point() or tangent is None:
        return torch.zeros_like(out)
    # A float64 tangent of a float32 output is pytorch#90065 (open): forward
    # mode's zero tangent of a Python scalar is a float64 tensor that is not a
    # "wrapped number", so it wins type promotion against a 0-dim tangent
    # (x + 0.5 for a 0-dim float32 x). One known bug that every program with
    # such an add would show: its values are judged, in the output's dtype.
    if tangent.dtype == torch.float64 and out.dtype != torch.float64:
        return tangent.detach().to(out.dtype)
    return tangent.detach()


def _dlfuzz_double_vjp(fn, args, tangents, order=1):
    # fn's outputs and J·u by reverse mode twice (order 2: uᵀ H u, the same
    # trick applied to J(x)·u, kept differentiable in x); None for an output
    # no tangent reaches.
    with torch.enable_grad():
        leaves = [a.detach().requires_grad_() if t is not None else a for a, t in zip(args, tangents)]
        # fn gets copies: it may write into its arguments, which a leaf forbids
        outs = tuple(fn(*[x.clone() if t is not None else x for x, t in zip(leaves, tangents)]))
        wrt = [x for x, t in zip(leaves, tangents) if t is not None]
        us = [t for t in tangents if t is not None]
        current = [o if o.is_floating_point() and o.requires_grad else None for o in outs]
        for level in range(order):
            reached = [i for i, c in enumerate(current) if c is not None and c.requires_grad]
            derivatives = _dlfuzz_reverse_jvp([current[i] for i in reached], wrt, us, keep_graph=level < order - 1)
            current = [None] * len(outs)
            for i, d in zip(reached, derivatives):
                current[i] = d
    return tuple(o.detach() for o in outs), current


def _dlfuzz_reverse_jvp(ys, xs, us, keep_graph):
    # J·u of the ys with respect to the xs (the double-vjp trick: g(w) = Jᵀw
    # is linear in w, and J·u is the gradient of <g(w), u>); None where no
    # tangent reaches. keep_graph: differentiable in the xs again.
    if not ys or not xs:
        return [None] * len(ys)
    ws = [torch.zeros_like(y, requires_grad=True) for y in ys]
    gs = torch.autograd.grad(ys, xs, ws, create_graph=True, allow_unused=True)
    linear = [(g, u) for g, u in zip(gs, us) if g is not None and g.requires_grad]
    if not linear:
        return [None] * len(ys)
    return list(torch.autograd.grad([g for g, _ in linear], ws, [u for _, u in linear], allow_unused=True,
                                    create_graph=keep_graph))


def _dlfuzz_shuffled(t, generator):
    """t's values in another order (the same for every runner: the generator is seeded per program)."""
    flat = t.reshape(-1)
    return flat[torch.randperm(flat.numel(), generator=generator, device="cpu").to(t.device)].reshape(t.shape)


def frozen(fn, positions, mode=None):
    """fn compiled by Inductor with freezing, as CPU inference is deployed:
    the arguments at `positions` (the program's params) become parameters of
    a module, which torch._inductor.config.freezing (under no_grad) folds into
    the graph as constants, prepacking conv and linear weights for oneDNN.
    `mode` is torch.compile's: "max-autotune-no-cudagraphs" benchmarks
    Inductor's C++ GEMM templates against ATen for every matmul whose weight
    is constant (and every float32 bmm), the CPU inference recipe's second half.
    Called with every argument, as fn is: each call first copies the params'
    values into the module (the folded constants hold the first call's, which
    every call passes again) and afterwards writes what the program left in
    them back, so that the params read as eager's do."""
    positions = sorted(set(positions))
    state = {}
    # Compiled random ops (dropout) draw what eager draws, as compiled() sets.
    importlib.import_module("torch._inductor.config").fallback_random = True

    def call(*args):
        if "module" not in state:
            module = torch.nn.Module()
            for i in positions:
                module.register_parameter(f"p{i}", torch.nn.Parameter(args[i].detach().clone(), requires_grad=False))

            def forward(*data):
                rest = iter(data)
                return fn(*[getattr(module, f"p{i}") if i in positions else next(rest) for i in range(len(args))])
            module.forward = forward
            state["module"], state["compiled"] = module, torch.compile(module, mode=mode)
        module = state["module"]
        with torch.no_grad():
            for i in positions:
                getattr(module, f"p{i}").copy_(args[i])
            with importlib.import_module("torch._inductor.config").patch(freezing=True):
                outs = state["compiled"](*[a for i, a in enumerate(args) if i not in positions])
            for i in positions:
                args[i].copy_(getattr(module, f"p{i}"))
        return outs
    return call


EXPORT_WAYS = ("program", "decomp", "serde", "aoti")


def exported(meta, fn, how, dynamic=False, **inductor_config):
    """torch.export of the program with its inputs (non-strict, export's default: the Python
    runs under tracing as written), under no_grad (inference programs), then run as `how`
    says: "program" the exported graph module as is; "decomp" after run_decompositions(),
    the core ATen opset other backends (ExecuTorch) take; "serde" saved to a .pt2 file and
    loaded back (torch.export.save / load: what ships a model); "aoti" compiled by
    AOTInductor (Inductor's config patched with inductor_config) into a package and loaded.
    dynamic: every dim of the data inputs is exported as Dim.AUTO (symbolic where the
    program allows it, as a served model's batch is), and the result is called at other
    sizes too (export-dynamic, aoti-dynamic). Where export fixed a size or bounded its range
    (a size of 0 or 1 is always fixed), a call outside exports again at its sizes, as a user
    would: what export promises is the range it recorded."""
    if not hasattr(torch, "export"):
        raise RuntimeError(f"torch.export needs PyTorch 2.x; this is torch {torch.__version__}")

    class Program(torch.nn.Module):
        def forward(self, *args):
            return fn(*args)

    def export_at(args):
        shapes = None
        if dynamic:
            auto = torch.export.Dim.AUTO
            shapes = (tuple({d: auto for d in range(a.dim())} if i not in meta.params and a.dim() else None
                            for i, a in enumerate(args)),)
        with torch.no_grad():
            ep = torch.export.export(Program(), tuple(args), dynamic_shapes=shapes)
            if how == "decomp":
                ep = ep.run_decompositions()
            if how == "serde":
                with tempfile.TemporaryDirectory(prefix="dlfuzz_export_") as tmp:
                    torch.export.save(ep, os.path.join(tmp, "program.pt2"))
                    ep = torch.export.load(os.path.join(tmp, "program.pt2"))
            module = ep.module() if dynamic or how != "aoti" else None
            # What export promised beyond the sizes' ranges (a split's count of outputs, say) it
            # checks in the module's _guards_fn, which an AOTInductor package does not run. Read
            # only where a call may come at other sizes.
            accepts = (_export_sizes(ep), getattr(module, "_guards_fn", None)) if dynamic else None
            if how != "aoti":
                return accepts, module
            path = os.path.join(tempfile.mkdtemp(prefix="dlfuzz_aoti_"), "program.pt2")
            with importlib.import_module("torch._inductor.config").patch(**inductor_config):
                torch._inductor.aoti_compile_and_package(ep, package_path=path)
            loaded = torch._inductor.aoti_load_package(path)
        return accepts, lambda *args: tuple(loaded(*args))

    programs = [export_at(build_inputs(meta))]

    def call(*args):
        for accepts, run_exported in programs:
            if _export_accepts(*accepts, args):
                return run_exported(*args)
        programs.append(export_at(args))
        return programs[-1][1](*args)
    return call if dynamic else programs[0][1]


def _export_sizes(ep):
    """For each input of an ExportedProgram, the sizes it was exported for: per dim a fixed
    size (int) or the (lower, upper) range export recorded for a symbolic one."""
    def size(s):  # a SymInt export fixed holds a number (it prints as one)
        if isinstance(s, int) or s.node.expr.is_number:
            return int(s)
        bound = ep.range_constraints.get(s.node.expr)
        return (bound.lower, bound.upper) if bound is not None else (0, math.inf)

    sizes = []
    for node in ep.graph.nodes:
        val = node.meta.get("val") if node.op == "placeholder" else None
        if isinstance(val, torch.Tensor):
            sizes.append([size(s) for s in val.shape])
        elif node.op == "placeholder":
            sizes.append(None)
    return sizes


def _export_accepts(sizes, guards, args):
    """Whether args have the sizes an exported program was exported for (_export_sizes) and
    pass its guards (its module's _guards_fn, where it has one)."""
    if len(sizes) != len(args):
        return False
    for dims, arg in zip(sizes, args):
        if dims is None:
            continue
        if len(dims) != arg.dim():
            return False
        for want, given in zip(dims, arg.shape):
            if given != want if isinstance(want, int) else not (bool(want[0] <= given) and bool(given <= want[1])):
                return False
    try:
        if guards is not None:
            guards(*args)
    except AssertionError:
        return False
    return True


# Dynamo runs each op it traces on FakeTensors first. Where that raises, it
# handles the frame as user code that raised ("Observed exception"): a graph
# break that runs the frame uncompiled, where eager then computes the op. An
# error of FakeTensor propagation on an op the real run computed is a bug of
# the compiler the outputs cannot show (the fake-prop oracle). Data-dependent
# values are tracing's documented limit, not such a bug.
_FAKE_PROP_FAILED = "Dynamo failed to run FX node with fake tensors: "
_FAKE_PROP_LIMITS = ("DataDependentOutputException", "DynamicOutputShapeException", "GuardOnDataDependentSymNode")


def fake_prop_errors():
    """The FakeTensor propagation errors Dynamo caught since its counters were
    last cleared, one line each, "OP: ERROR: message" (distinct, sorted)."""
    if not hasattr(torch, "_dynamo"):
        return []
    counters = torch._dynamo.utils.counters
    found = set()
    for reason in list(counters["unimplemented"]) + list(counters["graph_break"]):
        at = reason.find(_FAKE_PROP_FAILED)
        if at < 0:
            continue
        text = reason[at + len(_FAKE_PROP_FAILED):]
        node = re.match(r"(call_\w+) (?:<(?:built-in )?(?:function|method) )?([\w.]+)", text)
        op = node.group(2) if node else "?"
        got = re.search(r"\): got (\w+)\(\\*['\"](.*)", text, re.S)
        if not got or any(limit in got.group(1) + got.group(2) for limit in _FAKE_PROP_LIMITS):
            continue
        message = re.split(r"\\n|\n|\\*['\"]\)", got.group(2))[0].strip()
        found.add(f"{op}: {got.group(1)}: {message[:400]}")
    return sorted(found)


def compiled(fn, backend, dynamic=False, options=None):
    if backend in ("eager", "crossref"):  # crossref: eager, checked by run(crossref=True)
        return fn
    if backend == "script" or not hasattr(torch, "compile"):  # torch 1.x has no torch.compile
        return torch.jit.script(fn)
    # Compiled random ops (dropout) draw what eager draws from the seeded generator.
    importlib.import_module("torch._inductor.config").fallback_random = True
    if dynamic:
        return capture_data_dependent(torch.compile(fn, backend=backend, dynamic=True, options=options))
    return torch.compile(fn, backend=backend, options=options)


def max_diff(a, b):
    """Largest absolute difference: NaN equals NaN, an infinity equals itself; any other
    mismatch (missing tensor, shape, dtype, NaN against a number) is infinite."""
    if a is None or b is None:
        return 0.0 if a is None and b is None else float("inf")
    if a.shape != b.shape or a.dtype != b.dtype:
        return float("inf")
    if a.numel() == 0:
        return 0.0
    a64, b64 = a.detach().double(), b.detach().double()
    same_nan = torch.isnan(a64) == torch.isnan(b64)
    if not bool(same_nan.all()):
        return float("inf")
    a64 = torch.where(torch.isnan(a64), torch.zeros_like(a64), a64)
    b64 = torch.where(torch.isnan(b64), torch.zeros_like(b64), b64)
    both_inf = torch.isinf(a64) & torch.isinf(b64) & (a64 == b64)
    d = torch.where(both_inf, torch.zeros_like(a64), (a64 - b64).abs())
    return float(d.max())


def _json_float(v):
    # Strict JSON has no NaN or Inf: "nan", "inf", "-inf" as the C++ side writes them.
    v = float(v)
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))


def to_json(result):
    def t(x):
        if x is None:
            return None
        x = x.detach()
        return {"dtype": str(x.dtype), "shape": list(x.shape),
                "values": [_json_float(v) for v in x.double().reshape(-1).tolist()]}
    return {"outputs": [t(x) for x in result["outputs"]], "losses": [_json_float(v) for v in result["losses"]],
            "grads": [t(x) for x in result["grads"]], "params": [t(x) for x in result["params"]]}


def _dlfuzz_launch_ranks(world):
    # `world` rank processes (the script run, again), connected by Gloo over a
    # TCPStore on 127.0.0.1 that this process serves on a free port.
    store = torch.distributed.TCPStore("127.0.0.1", 0, None, True, timeout=datetime.timedelta(seconds=60),
                                       wait_for_workers=False)
    procs = [subprocess.Popen([sys.executable, os.path.abspath(sys.argv[0])] + sys.argv[1:],
                              env=dict(os.environ, DLFUZZ_RANK=str(r), DLFUZZ_STORE_PORT=str(store.port)))
             for r in range(world)]
    try:
        codes = [p.wait() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return max(codes, key=abs)


_DLFUZZ_STORE = []  # this rank's TCPStore client, and how many exchanges it made


def _dlfuzz_join_ranks(world):
    try:  # die with the launcher
        import ctypes
        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
    if sys.platform.startswith("linux"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # ranks talk over loopback
    rank = int(os.environ["DLFUZZ_RANK"])
    timeout = datetime.timedelta(seconds=60)
    store = torch.distributed.TCPStore("127.0.0.1", int(os.environ["DLFUZZ_STORE_PORT"]), None, False, timeout=timeout)
    _DLFUZZ_STORE[:] = [store, 0]
    torch.distributed.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=timeout)


def _dlfuzz_gather_objects(obj):
    # Every rank's JSON-able obj, in rank order, through the store
    # (all_gather_object needs NumPy).
    world = _dlfuzz_world()
    if world == 1:
        return [obj]
    store, n = _DLFUZZ_STORE
    _DLFUZZ_STORE[1] += 1
    store.set(f"dlfuzz_gather_{n}_{_dlfuzz_rank()}", json.dumps(obj))
    return [json.loads(store.get(f"dlfuzz_gather_{n}_{r}")) for r in range(world)]


def main(meta, fn):
    """The repro's command line: eager vs a compiled path, or --dump-json the eager results."""
    ap = argparse.ArgumentParser(description="dlfuzz repro: eager vs a compiled path")
    ap.add_argument("--backend", default="inductor",
                    help="inductor, aot_eager, eager, script (torch.jit.script), or crossref (eager, every ATen"
                         " call checked against its FakeTensor/meta twin: as dlfuzz's fake-crossref)")
    ap.add_argument("--freezing", action="store_true",
                    help="the params held as a module's frozen parameters, compiled with Inductor's freezing under"
                         " no_grad (as dlfuzz's inductor-freezing; inference programs)")
    ap.add_argument("--max-autotune", action="store_true",
                    help="with --freezing: compile with mode max-autotune-no-cudagraphs, C++ GEMM templates"
                         " benchmarked against ATen (as dlfuzz's inductor-autotune)")
    ap.add_argument("--knobs", action="store_true",
                    help="compile with the Inductor config knobs drawn from the program's seed (printed; as"
                         " dlfuzz's inductor-knobs)")
    ap.add_argument("--knob", type=int, choices=range(1, 5), metavar="N",
                    help="compile with only the N-th (1-4) of the knobs --knobs draws (as dlfuzz's inductor-knob-N,"
                         " the rungs that say which knob a finding needs)")
    ap.add_argument("--vmap", action="store_true",
                    help="run the program under torch.func.vmap, its data inputs batched with a second sample and"
                         " its params shared, and compare the first sample with eager (--backend eager: as dlfuzz's"
                         " vmap; inductor: torch.compile of the vmapped function, as inductor-vmap)")
    ap.add_argument("--jvp", action="store_true",
                    help="run the program through forward-mode AD (torch.func.jvp, a tangent for each float input)"
                         " and compare its outputs and their tangents with the same directional derivatives"
                         " computed by reverse mode twice (--backend eager: as dlfuzz's jvp; inductor:"
                         " torch.compile of the jvp call, as inductor-jvp; with --vmap, jvp under vmap over a batch"
                         " of tangents, as torch.func.jacfwd computes it and dlfuzz's jacfwd runs it)")
    ap.add_argument("--jvp2", action="store_true",
                    help="run the program through jvp of jvp (its second directional derivatives) and compare them"
                         " with the same computed by reverse mode four times deep (--backend eager: as dlfuzz's jvp2;"
                         " inductor: torch.compile of the nested jvp call)")
    ap.add_argument("--compiled-autograd", action="store_true",
                    help="each forward and its backward under Compiled Autograd, the backward traced at run time"
                         " and compiled by Inductor (as dlfuzz's inductor-ca; training programs)")
    ap.add_argument("--export", choices=EXPORT_WAYS,
                    help="torch.export the program (inference) and run its graph module (program, as dlfuzz's"
                         " export), after run_decompositions() (decomp, as export-decomp), after saving and"
                         " loading it (serde, as export-serde), or compiled by AOTInductor (aoti, as aoti);"
                         " --backend is then not used")
    ap.add_argument("--dynamic", action="store_true",
                    help="compile with dynamic=True and data-dependent sizes traced, then call the compiled"
                         " function again with the batch resized (as dlfuzz's inductor-dynamic); with --export,"
                         " export every dim of the data inputs as Dim.AUTO (as export-dynamic, aoti-dynamic)")
    ap.add_argument("--compile-step", action="store_true",
                    help="run the program eagerly and compile the optimizer step with --backend (as dlfuzz's"
                         " inductor-step), compared with the step traced by Dynamo and run eagerly (with"
                         " --backend eager: with torch.optim's own step, as dynamo-step)")
    ap.add_argument("--compile-program", action="store_true",
                    help="with --compile-step: compile the program too (as dlfuzz's inductor-train)")
    ap.add_argument("--dump-json", help="write the eager results here and exit")
    ap.add_argument("--fail-above", type=float, metavar="TOL",
                    help="exit 1 when the max abs diff is above TOL (a predicate for"
                         " python -m torch._inductor.compiler_bisector run)")
    args = ap.parse_args()
    world = meta.world
    if world > 1:  # each rank runs eager and compiled; rank 0 prints the comparison
        if "DLFUZZ_RANK" not in os.environ:
            return _dlfuzz_launch_ranks(world)
        _dlfuzz_join_ranks(world)
    rank = _dlfuzz_rank()
    say = print if rank == 0 else (lambda *a: None)
    say("torch", torch.__version__, *([f"world {world} plan {meta.plan}"] if world > 1 else []))
    step_backend = args.backend if args.compile_step else None
    # inductor-step's reference (a backend other than eager): the step traced by
    # Dynamo and run eagerly, whose step count is a float32 tensor as the
    # compiled one's is. --dump-json writes plain eager's results.
    traced_step = step_backend and step_backend != "eager" and not args.dump_json
    order = 2 if args.jvp2 else 1
    ref = run(meta, reverse_mode_jvp(meta, fn, order) if args.jvp or args.jvp2 else fn,
              "eager" if traced_step else None)
    if args.dump_json:
        dumps = _dlfuzz_gather_objects(to_json(ref))
        if rank == 0:
            with open(args.dump_json, "w") as f:
                json.dump(dumps[0] if world == 1 else {"world": world, "ranks": dumps}, f)
        return 0
    resized = resized_meta(meta) if args.dynamic else None
    if hasattr(torch, "_dynamo"):  # what follows is the compiled path's alone (fake_prop_errors)
        torch._dynamo.utils.counters.clear()
    try:
        if args.export:
            compiled_fn = exported(meta, fn, args.export, dynamic=args.dynamic)
        elif args.freezing:
            compiled_fn = frozen(fn, meta.params, mode=MAX_AUTOTUNE if args.max_autotune else None)
        else:
            knobs = (inductor_knobs(meta.seed, only=args.knob) if args.knob else
                     inductor_knobs(meta.seed) if args.knobs else None)
            if knobs:
                say("inductor config:", knobs_text(knobs))
            if step_backend and not args.compile_program:
                compiled_fn = fn
            elif args.jvp or args.jvp2:  # the jvp call compiled (--backend eager: as it is); --vmap: jacfwd's
                compiled_fn = forward_mode(meta, fn, lambda f: compiled(f, args.backend, args.dynamic, options=knobs),
                                           batched=args.vmap, order=order)
            elif args.vmap:  # the batched function compiled (--backend eager: left as it is)
                compiled_fn = vmapped(meta, fn, lambda f: compiled(f, args.backend, args.dynamic, options=knobs))
            else:
                compiled_fn = compiled(fn, args.backend, args.dynamic, options=knobs)
            if args.compiled_autograd:
                compiled_fn = compiled_autograd(compiled_fn)
        got = run(meta, compiled_fn, step_backend, crossref=args.backend == "crossref")
        if resized is not None:  # the same compiled function at another batch size, against eager there
            ref_resized, got_resized = run(resized, fn), run(resized, compiled_fn)
            for key in ("outputs", "losses", "grads", "params"):
                ref[key] = list(ref[key]) + list(ref_resized[key])
                got[key] = list(got[key]) + list(got_resized[key])
    except Exception as e:  # the compiled path failing is the finding
        _say_fake_prop_errors(say)
        print(*([f"rank {rank}:"] if world > 1 else []), "compiled path raised:", type(e).__name__,
              str(e).splitlines()[0] if str(e) else "")
        return 1
    fell_back = _say_fake_prop_errors(say)
    worst = 0.0
    lines = []
    for kind in ("outputs", "grads", "params"):
        for i, (a, b) in enumerate(zip(ref[kind], got[kind])):
            d = max_diff(a, b)
            worst = max(worst, d)
            lines.append(f"{kind}[{i}] max abs diff {d:.3g}")
    for i, (a, b) in enumerate(zip(ref["losses"], got["losses"])):
        lines.append(f"loss[step {i}] eager {a!r} compiled {b!r}")
    for r, (rank_lines, rank_worst) in enumerate(_dlfuzz_gather_objects((lines, worst))):
        for line in rank_lines:
            say(f"rank {r}: {line}" if world > 1 else line)
        worst = max(worst, rank_worst)
    say("max abs diff", worst)
    return 1 if fell_back or (args.fail_above is not None and worst > args.fail_above) else 0


def _say_fake_prop_errors(say):
    # A frame Dynamo ran uncompiled because FakeTensor propagation raised
    # (dlfuzz's fake-prop oracle): the values then agree, the error is the bug.
    errors = fake_prop_errors()
    for line in errors:
        say("Dynamo ran a frame uncompiled, its FakeTensor propagation raised:", line)
    return bool(errors)
