#!/usr/bin/env python3
"""dlfuzz's Python worker: runs programs through PyTorch 2.x's compiled paths.

Started by dlfuzz with requests on fd 3 and results on fd 4 (length-prefixed
frames). A request carries the program as "python_program" (its metadata, and
its function's source twice: as declared and with float64 dtypes; see
python_worker_program in generator/emit.h) and a list of runners. The program
runs through dlfuzz_runtime.py, beside this file, the text the standalone repro
inlines. Each result is a JSON header followed by the tensors' raw bytes, the
format runners/wire.cpp decodes. A request may instead carry "python_batch",
several programs (run_batch: results runner-major, compiled runners sharing
one compiled function, batching.py), or "warm" (warm_compiler: one result).

Runners:
  py-eager          the program, eagerly (the reference for the others)
  py-eager64        the same in float64: float inputs, dtype literals and the default dtype
  inductor          torch.compile (default mode, Inductor)
  inductor-emulate  inductor with emulate_precision_casts (explains a finding: oracles/precision_casts.h)
  inductor-dynamic  torch.compile(dynamic=True), then called again with a batch of
                    another size (resized_run), compared with py-eager-resized
  inductor-dynamic-emulate  inductor-dynamic with emulate_precision_casts
  py-eager-resized  py-eager, then again at that size: inductor-dynamic's reference
  py-eager64-resized  its float64 twin
  inductor-freezing torch.compile of a module holding the params, with Inductor's freezing
                    (constants folded, conv/linear weights prepacked; inference programs)
  inductor-autotune inductor-freezing compiled with mode max-autotune-no-cudagraphs: C++ GEMM
                    templates benchmarked against ATen (inference programs)
  inductor-ca       inductor with Compiled Autograd: each forward and its backward under it, the
                    backward (hooks included) traced at run time and compiled (training programs)
  inductor-knobs    inductor with four Inductor config knobs off their defaults, drawn from the
                    program's seed (dlfuzz_runtime.INDUCTOR_KNOBS: scalar code, one thread,
                    fusion limits, memory planning, the C++ wrapper, passes off, ...)
  inductor-knobs-emulate  inductor-knobs with emulate_precision_casts
  inductor-knob-1 .. inductor-knob-4
                    inductor with one of those four knobs alone (inductor-knobs' ladder)
  vmap              the program under torch.func.vmap, data inputs batched with a second
                    sample, params shared; the first sample compared with py-eager
  inductor-vmap     torch.compile of that vmapped function (Dynamo traces vmap)
  jvp               the program through forward-mode AD (torch.func.jvp, a tangent for every
                    float input): its outputs and their tangents, compared with py-eager-jvp
  inductor-jvp      torch.compile of that jvp call (Dynamo traces torch.func.jvp)
  jacfwd            jvp under vmap over a batch of two tangents, as torch.func.jacfwd computes
                    (forward formulas through batching rules); the first sample against py-eager-jvp
  py-eager-jvp      the outputs and the same directional derivatives by reverse mode twice
                    (double vjp): the jvp runners' reference
  py-eager64-jvp    its float64 twin: the outputs and central differences (fn(x+hu)-fn(x-hu))/2h,
                    NaN where the one-sided ones disagree (no derivative there: any tangent passes)
  jvp2              jvp of jvp (Taylor mode): the outputs and their second directional derivatives
                    d²/dt² fn(x+tu), compared with py-eager-jvp2
  inductor-jvp2     torch.compile of that nested jvp call
  py-eager-jvp2     the same by reverse mode four times deep; py-eager64-jvp2 its float64 twin
                    (second differences at h and 2h, NaN where they disagree)
  aot-eager         torch.compile(backend="aot_eager"): AOTAutograd, no codegen
  dynamo-eager      torch.compile(backend="eager"): Dynamo's capture alone (a ladder rung)
  aot-decomp        torch.compile(backend="aot_eager_decomp_partition"): AOTAutograd with
                    Inductor's decompositions and partitioner, no codegen (a ladder rung)
  dynamo-eager-dynamic, aot-eager-dynamic, aot-decomp-dynamic
                    those three compiled as inductor-dynamic is (its ladder's rungs)
  export            torch.export (non-strict) of the program, its graph module run (inference programs)
  export-decomp     export after run_decompositions(): the core ATen opset (inference programs)
  export-serde      export saved to a .pt2 file and loaded back (inference programs)
  aoti              torch.export + AOTInductor (inference programs)
  aoti-emulate      aoti with emulate_precision_casts (explains a finding: oracles/precision_casts.h)
  export-dynamic    export with every dim of the data inputs Dim.AUTO, then called again with
                    the batch resized, compared with py-eager-resized (inference programs)
  aoti-dynamic      aoti exported so: AOTInductor's code for symbolic sizes (inference programs)
  aoti-dynamic-emulate  aoti-dynamic with emulate_precision_casts
  inductor-step     the program eagerly, its optimizer step compiled by torch.compile
                    (training programs), compared with py-eager-step
  py-eager-step     the same with the step traced by Dynamo and run eagerly (backend
                    "eager"): inductor-step's reference; py-eager64-step its float64 twin
  dynamo-step       py-eager-step, compared with py-eager
  inductor-train    torch.compile of the program and of its step, compared with py-eager-step

The eager runners also run on torch 1.13 (Debian's python3: no torch.compile).
A program over several ranks (world > 1) runs each runner on
WORLD rank processes (this file with --rank), each a Gloo rank over a TCPStore
on 127.0.0.1 that this worker serves; their results are folded into one as
runners/distributed/dist_runner.cpp folds its threads'. The ranks are kept for
the next program of the same world unless a rank failed, and die with this
worker (PR_SET_PDEATHSIG).
"""
import argparse
import copy
import ctypes
import datetime
import hashlib
import json
import math
import os
import pickle
import signal
import struct
import subprocess
import sys
import time
import traceback
import warnings

# Inductor's on-disk cache, keyed by this torch installation: another install's
# cached kernels can fail to load here (seen: "undefined symbol: Sleef_expf16_u10").
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(
    os.path.expanduser("~/.cache/dlfuzz/inductor"),
    # sys.prefix, not the interpreter: two venvs share one python3.11 binary.
    hashlib.sha1(os.path.realpath(sys.prefix).encode()).hexdigest()[:12]))
warnings.filterwarnings("ignore")
# AOTInductor's CPU wrapper .so expects libtorch's aoti_torch_* symbols to be
# global; without this, aoti_load_package fails with "undefined symbol:
# aoti_torch_dtype_float32" (torch 2.15 CPU). Recorded as a finding of its own.
os.environ.setdefault("TORCH_USE_RTLD_GLOBAL", "1")

if "--rank" in sys.argv:  # a rank process dies with the worker, even while it imports torch
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

import torch  # noqa: E402

if hasattr(torch, "_inductor"):
    # Random ops (dropout) in compiled code draw from PyTorch's generator as
    # eager does, so both see one mask (every run seeds it: dlfuzz_runtime.run).
    import torch._inductor.config  # noqa: E402
    torch._inductor.config.fallback_random = True

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batching  # noqa: E402
import shared_trace  # noqa: E402
import dlfuzz_runtime as rt  # noqa: E402
import eager_first_call  # noqa: E402
import isa_checks  # noqa: E402
import link_order  # noqa: E402
import one_kernel_module  # noqa: E402
import planted_faults  # noqa: E402
import timing  # noqa: E402

link_order.link_kernels_to_this_torch()  # before any kernel is compiled

# The one description of a run result, shared with the C++ side.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run_result_schema.json")) as _f:
    RESULT_FIELDS = json.load(_f)["fields"]

IN_FD, OUT_FD = 3, 4
# The torch this worker runs, and where from: "(pip)" for a virtual environment
# (the project's .venv), else the interpreter (Debian's /usr/bin/python3: torch 1.13).
VERSION = f"torch {torch.__version__} ({'pip' if sys.prefix != sys.base_prefix else sys.executable})"


# A rank waiting in a collective longer than this fails (as the C++ ranks'
# 5 s). A compiled runner's warm-up calls compile, and ranks compile at
# different speeds: there they wait longer, though less than dlfuzz's default
# 30 s per runner, so a deadlock in compiled code still reads as one.
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=5)
COMPILE_TIMEOUT = datetime.timedelta(seconds=25)
STARTUP_TIMEOUT = datetime.timedelta(seconds=60)  # ranks joining the group


def read_exact(n, fd=IN_FD):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_frame(fd=IN_FD):
    head = read_exact(4, fd)
    if head is None:
        return None
    (n,) = struct.unpack("<I", head)
    return read_exact(n, fd)


def write_frame(payload, fd=OUT_FD):
    data = struct.pack("<I", len(payload)) + payload
    view = memoryview(data)
    while view:
        k = os.write(fd, view)
        view = view[k:]


DTYPE_NAMES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
    torch.bool: "bool",
}
# uint16/32/64 are PyTorch 2.3+ (the worker also runs under Debian's torch 1.13).
DTYPE_NAMES.update({getattr(torch, f"uint{b}"): f"u{b}" for b in (16, 32, 64) if hasattr(torch, f"uint{b}")})


def tensor_meta(t, blob):
    if t is None:
        return None
    t = t.detach().cpu().clone().contiguous()
    # untyped_storage() is torch 2.x; torch 1.13 spells it storage().untyped().
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()
    data = bytes(storage)[: t.numel() * t.element_size()]
    meta = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "offset": len(blob), "nbytes": len(data)}
    blob += data
    return meta


def encode(result):
    """The schema's fields: required ones always, optional ones when not empty;
    tensors as {dtype, shape, offset, nbytes} into the bytes after the header."""
    blob = bytearray()
    header = {}
    for field in RESULT_FIELDS:
        name = field["name"]
        if field["type"] == "tensor[]":
            header[name] = [tensor_meta(t, blob) for t in result.get(name, [])]
        elif field["required"] or result.get(name):
            header[name] = result.get(name, field["default"])
    # JSON has no NaN or infinity: a non-finite loss travels as null, as the C++
    # worker's nlohmann::json writes it (read back as NaN).
    header["losses"] = [x if math.isfinite(x) else None for x in header["losses"]]
    meta = json.dumps(header, allow_nan=False).encode()
    return struct.pack("<I", len(meta)) + meta + bytes(blob)


def load(program, fp64):
    """The program's metadata and function; py-eager64's twin is the float64 source
    the emitter wrote (no text replacement) with the runtime's float64 flag."""
    meta = rt.ProgramMeta.from_json(program, float64=fp64)
    return meta, rt.define_program(program["function_fp64" if fp64 else "function"])


def compiled_fn(runner, meta, fn):
    if runner not in RUNNERS:
        raise ValueError(f"unknown runner {runner}")
    return RUNNERS[runner](meta, fn)


def torch_compile(fn, **options):
    """torch.compile, or a clear error on a PyTorch without it (Debian's 1.13)."""
    if not hasattr(torch, "compile"):
        raise RuntimeError(f"torch.compile needs PyTorch 2.x; this is torch {torch.__version__}")
    return torch.compile(fn, **options)


def emulating_precision_casts(compiled):
    """compiled, compiling (on its first call) and running with Inductor's
    float16/bfloat16 intermediates rounded as eager rounds them."""
    def run(*args):
        with torch._inductor.config.patch(emulate_precision_casts=True):
            return compiled(*args)
    return run


def dynamic_rung(fn, backend):
    """A rung of inductor-dynamic's ladder: the backend compiled as inductor-dynamic is."""
    return rt.capture_data_dependent(torch_compile(fn, backend=backend, dynamic=True))


# The runners compiled with Inductor config knobs drawn from the program's seed
# (dlfuzz_runtime.inductor_knobs): all four (None), or the N-th alone (N).
KNOB_RUNNERS = {"inductor-knobs": None, "inductor-knobs-emulate": None,
                **{f"inductor-knob-{n}": n for n in range(1, 5)}}


def runner_knobs(runner, meta):
    """The knobs a runner of KNOB_RUNNERS compiles this program with."""
    return rt.inductor_knobs(meta.seed, only=KNOB_RUNNERS[runner])


# The Python rows of the runner table (runners/Runners.def; a test checks that
# the two agree): how each makes the function it calls.
RUNNERS = {
    "py-eager": lambda meta, fn: fn,
    "py-eager64": lambda meta, fn: fn,  # its function and inputs are float64 already (load())
    # In a batch its graphs run eagerly in the first warm-up call
    # (eager_first_call.py): every graph's forward kernels are then built in
    # one g++ run. A program alone compiles every call.
    "inductor": lambda meta, fn: torch_compile(fn, backend=eager_first_call.Backend(shared_trace.backend("inductor"))),
    "inductor-dynamic": lambda meta, fn: rt.capture_data_dependent(torch_compile(fn, dynamic=True)),
    "inductor-emulate": lambda meta, fn: emulating_precision_casts(torch_compile(fn)),
    "inductor-freezing": lambda meta, fn: rt.frozen(fn, meta.params),
    "inductor-autotune": lambda meta, fn: rt.frozen(fn, meta.params, mode=rt.MAX_AUTOTUNE),
    "inductor-ca": lambda meta, fn: rt.compiled_autograd(torch_compile(fn)),
    # Passed as torch.compile's options: the backward, compiled at its first
    # call, gets them too (a config.patch around the call would not cover it).
    "inductor-knobs": lambda meta, fn: torch_compile(fn, options=runner_knobs("inductor-knobs", meta)),
    # inductor-knobs' ladder: one of its four knobs alone (which one a finding needs).
    **{name: (lambda name: lambda meta, fn: torch_compile(fn, options=runner_knobs(name, meta)))(name)
       for name in KNOB_RUNNERS if name.startswith("inductor-knob-")},
    # The program under torch.func.vmap (first sample against eager): eagerly, and compiled.
    "vmap": lambda meta, fn: rt.vmapped(meta, fn),
    "inductor-vmap": lambda meta, fn: rt.vmapped(meta, fn, compile=torch_compile),
    # The program through forward-mode AD (torch.func.jvp), eagerly and compiled,
    # against J·u computed by reverse mode (py-eager-jvp), arbitrated by central
    # differences in float64 (py-eager64-jvp).
    "py-eager-jvp": lambda meta, fn: rt.reverse_mode_jvp(meta, fn),
    "py-eager64-jvp": lambda meta, fn: rt.finite_difference_jvp(meta, fn),
    "jvp": lambda meta, fn: rt.forward_mode(meta, fn),
    "inductor-jvp": lambda meta, fn: rt.forward_mode(meta, fn, compile=torch_compile),
    "jacfwd": lambda meta, fn: rt.forward_mode(meta, fn, batched=True),
    # Second directional derivatives by jvp of jvp, against reverse mode four
    # times deep (py-eager-jvp2), arbitrated by second differences in float64.
    "py-eager-jvp2": lambda meta, fn: rt.reverse_mode_jvp(meta, fn, order=2),
    "py-eager64-jvp2": lambda meta, fn: rt.finite_difference_jvp(meta, fn, order=2),
    "jvp2": lambda meta, fn: rt.forward_mode(meta, fn, order=2),
    "inductor-jvp2": lambda meta, fn: rt.forward_mode(meta, fn, compile=torch_compile, order=2),
    "inductor-knobs-emulate": lambda meta, fn: torch_compile(
        fn, options={**runner_knobs("inductor-knobs-emulate", meta), "emulate_precision_casts": True}),
    "inductor-dynamic-emulate": lambda meta, fn: emulating_precision_casts(
        rt.capture_data_dependent(torch_compile(fn, dynamic=True))),
    "py-eager-resized": lambda meta, fn: fn,
    "py-eager64-resized": lambda meta, fn: fn,
    "fake-crossref": lambda meta, fn: fn,  # eager, checked against FakeTensor (CROSSREF_RUNNERS)
    "aot-eager": lambda meta, fn: torch_compile(fn, backend="aot_eager"),
    # The layer ladder's rungs (oracles/layer_ladder.h) besides aot-eager and inductor.
    "dynamo-eager": lambda meta, fn: torch_compile(fn, backend="eager"),
    "aot-decomp": lambda meta, fn: torch_compile(fn, backend="aot_eager_decomp_partition"),
    # inductor-dynamic's ladder: the rungs compiled as it is (dynamic=True, data-dependent sizes traced).
    "dynamo-eager-dynamic": lambda meta, fn: dynamic_rung(fn, "eager"),
    "aot-eager-dynamic": lambda meta, fn: dynamic_rung(fn, "aot_eager"),
    "aot-decomp-dynamic": lambda meta, fn: dynamic_rung(fn, "aot_eager_decomp_partition"),
    "export": lambda meta, fn: rt.exported(meta, fn, "program"),
    "export-decomp": lambda meta, fn: rt.exported(meta, fn, "decomp"),
    "export-serde": lambda meta, fn: rt.exported(meta, fn, "serde"),
    "aoti": lambda meta, fn: rt.exported(meta, fn, "aoti"),
    "aoti-emulate": lambda meta, fn: rt.exported(meta, fn, "aoti", emulate_precision_casts=True),
    "export-dynamic": lambda meta, fn: rt.exported(meta, fn, "program", dynamic=True),
    "aoti-dynamic": lambda meta, fn: rt.exported(meta, fn, "aoti", dynamic=True),
    "aoti-dynamic-emulate": lambda meta, fn: rt.exported(meta, fn, "aoti", dynamic=True,
                                                        emulate_precision_casts=True),
    # The optimizer step compiled (STEP_BACKENDS), the program eager.
    "inductor-step": lambda meta, fn: fn,
    "inductor-train": lambda meta, fn: torch_compile(fn),  # and its step (STEP_BACKENDS)
    "py-eager-step": lambda meta, fn: fn,
    "py-eager64-step": lambda meta, fn: fn,
    "dynamo-step": lambda meta, fn: fn,
    "fault-py-regression": lambda meta, fn: planted_faults.planted_regression(fn),
    "fault-inductor-lowering": lambda meta, fn: planted_faults.planted_lowering(fn, torch_compile),
    "fault-inductor-unfused": lambda meta, fn: planted_faults.planted_unfused(fn, torch_compile),
}


# The float64 twins: their function is the float64 source (load()).
FLOAT64_RUNNERS = ("py-eager64", "py-eager64-resized", "py-eager64-step", "py-eager64-jvp", "py-eager64-jvp2")


# Runners that compile the optimizer step, with this backend, and run the
# program itself eagerly. Only the checked run compiles it: the warm-up runs
# (for executors that specialize) would each build a new optimizer and compile
# its step again.
STEP_BACKENDS = {"inductor-step": "inductor", "inductor-train": "inductor", "py-eager-step": "eager",
                 "py-eager64-step": "eager", "dynamo-step": "eager"}


# Runners that run the program eagerly with every ATen call checked against
# its FakeTensor twin (dlfuzz_runtime.crossref_fake).
CROSSREF_RUNNERS = ("fake-crossref",)


# Runners that run the program a second time with its batch resized: the same
# compiled function meets inputs of another size (guards, a recompile or the
# symbolic sizes of dynamic=True), compared with eager at that size.
RESIZED_RUNNERS = ("inductor-dynamic", "inductor-dynamic-emulate", "dynamo-eager-dynamic", "aot-eager-dynamic",
                   "aot-decomp-dynamic", "py-eager-resized", "py-eager64-resized", "export-dynamic", "aoti-dynamic",
                   "aoti-dynamic-emulate")


def append_resized(result, meta, program_fn, fn):
    """The run at the resized batch appended to the result's outputs, losses,
    grads and params, where eager accepts that size (a program whose shapes
    are fixed by its ops, e.g. a reshape to literal sizes, is left as is: the
    reference and the test decide alike, by eager)."""
    resized = rt.resized_meta(meta)
    if resized is None:
        return
    try:
        eager = rt.run(resized, program_fn)
    except Exception:
        return
    if fn is not program_fn:
        try:
            got = rt.run(resized, fn)
        except Exception as e:
            raise RuntimeError(f"with the batch resized: {describe(e)}") from e
    else:
        got = eager
    for key in ("outputs", "losses", "grads", "params"):
        result[key] += list(got[key])


def stage_of(exc, tb_text):
    name = type(exc).__name__
    frames = [line for line in tb_text.splitlines() if line.lstrip().startswith("File ")]
    if "DistBackendError" in name or (frames and "torch/distributed/" in frames[-1]):
        return "collective"  # a rank waited too long, or a peer went away
    if "BackendCompilerFailed" in name or "InductorError" in name or "LoweringException" in name:
        return "compile"
    if "backward" in tb_text:
        return "backward"
    return "run"


def describe(exc):
    """One line naming the error. Wrappers such as BackendCompilerFailed say
    only "backend='inductor' raised:", so the exception they wrap is named too."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    inner = getattr(exc, "inner_exception", None) or exc.__cause__
    if inner is not None and text.endswith("raised:"):
        text += " " + describe(inner)
    return text


def set_collective_timeout(timeout):
    if torch.distributed.is_initialized():
        torch.distributed.set_timeout(timeout)


def runner_config(runner, meta):
    """The compiler config a runner drew for this program ("" for one it
    always uses): the knobs of inductor-knobs and its rungs."""
    return rt.knobs_text(runner_knobs(runner, meta)) if runner in KNOB_RUNNERS else ""


def new_result(runner, **fields):
    """A runner's result with every field of the schema at its default (plus the
    rank's own step digests, folded into rank_digests); `fields` override."""
    result = {f["name"]: copy.deepcopy(f["default"]) for f in RESULT_FIELDS}
    result.update(runner=runner, versions=VERSION, digests=[])
    result.update(fields)
    return result


# Profiled calls of a compiled rank, for its time in collectives (the profiler
# slows a call, so they are not the timed calls).
PROFILED_COLLECTIVE_CALLS = 5


def run_one(runner, program, warmup, timed_calls=0, profile_dir=""):
    result = new_result(runner)
    t0 = time.perf_counter()
    stage = "setup"
    try:
        meta, program_fn = load(program, runner in FLOAT64_RUNNERS)
        stage = "compile"
        timing.reset_counters()
        fn = compiled_fn(runner, meta, program_fn)
        result["config"] = runner_config(runner, meta)
        result["setup_ms"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        stage = "run"
        set_collective_timeout(COLLECTIVE_TIMEOUT if fn is program_fn else COMPILE_TIMEOUT)
        # compilation happens on the first calls, each compiled as a user's:
        # a program alone (a batch's finding confirmed, `dlfuzz run`, the
        # reducer, ranks) never runs its first call eagerly (eager_first_call.py)
        eager_first_call.warm_up(lambda: rt.run(meta, fn), warmup, eager_first=False)
        set_collective_timeout(COLLECTIVE_TIMEOUT)
        got = rt.run(meta, fn, STEP_BACKENDS.get(runner), crossref=runner in CROSSREF_RUNNERS)
        result["run_ms"] = (time.perf_counter() - t1) * 1000
        result["outputs"] = list(got["outputs"])
        result["losses"] = list(got["losses"])
        result["grads"] = list(got["grads"])
        result["params"] = list(got["params"])
        result["digests"] = list(got.get("digests", []))
        if timed_calls > 0:  # steady state: graphs compiled now are recompiles
            graphs = timing.read_counters().get("graphs", 0.0)
            result["call_ms"], collective = timing.time_calls(meta, fn, timed_calls)
            counters = timing.read_counters()
            if counters:
                counters["recompiles"] = counters["graphs"] - graphs
            if meta.world > 1:  # a rank: its time in collectives per call (fold() takes the largest share)
                # Compiled code holds collectives the clock around _collective cannot see: the profiler's.
                counters["collective_ms"] = (timing.median(collective) if fn is program_fn else
                                             timing.profiled_collective_ms(meta, fn, PROFILED_COLLECTIVE_CALLS))
            result["counters"] = counters
        if profile_dir:
            path = os.path.join(profile_dir, runner + ".json")
            result["profile"] = timing.profile_calls(meta, fn, timing.PROFILED_CALLS, path)
            result["profile"]["graph_breaks"] = timing.graph_break_reasons()
        if runner in RESIZED_RUNNERS:
            append_resized(result, meta, program_fn, fn)
        # frames Dynamo gave up on, the resized call's recompile included (the fake-prop oracle)
        result["fake_errors"] = rt.fake_prop_errors()
    except MemoryError as e:
        result.update(status="oom", stage=stage, error=f"MemoryError: {e}")
    except Exception as e:  # the system under test failing is data
        tb = traceback.format_exc()
        text = describe(e)
        status = "oom" if "out of memory" in text.lower() else "exception"
        result.update(status=status, stage=stage_of(e, tb) if stage == "run" else stage, error=text,
                      fake_errors=rt.fake_prop_errors() if stage != "setup" else [])
    finally:
        result["total_ms"] = (time.perf_counter() - t0) * 1000
        torch.set_default_dtype(torch.float32)
        if hasattr(torch, "_dynamo"):  # torch 2.x: forget this program's compiled code
            torch._dynamo.reset()
    return result


def run_paired(runners, program, warmup, pairs, profile_dir=""):
    """The runners' functions compiled side by side and timed interleaved,
    `pairs` calls each (timing.time_paired): one result per runner, its call_ms
    one time per pair. Each runner defines the program anew, so that the
    compiled functions do not share Dynamo's cache on one code object."""
    results, fns, breaks, meta = [], [], [], None
    if profile_dir and hasattr(torch, "_inductor"):  # Inductor's C++ kernels show in the profile by name
        torch._inductor.config.cpp.enable_kernel_profile = True
    for runner in runners:
        result = new_result(runner)
        stage = "setup"
        try:
            meta, program_fn = load(program, runner == "py-eager64")
            stage = "compile"
            timing.reset_counters()
            fn = compiled_fn(runner, meta, program_fn)
            stage = "run"
            for _ in range(warmup + 1):
                rt.run(meta, fn)
            result["counters"] = timing.read_counters()
            breaks.append(timing.graph_break_reasons())
            fns.append(fn)
        except Exception as e:  # the system under test failing is data
            result.update(status="exception", stage=stage, error=describe(e))
            breaks.append([])
            fns.append(None)
        results.append(result)
    ok = [k for k, fn in enumerate(fns) if fn is not None]
    try:
        times = timing.time_paired(meta, [fns[k] for k in ok], pairs) if ok else []
        for k, t in zip(ok, times):
            results[k]["call_ms"] = t
            if profile_dir:
                path = os.path.join(profile_dir, runners[k] + ".json")
                results[k]["profile"] = timing.profile_calls(meta, fns[k], timing.PROFILED_CALLS, path)
                results[k]["profile"]["graph_breaks"] = breaks[k]
    except Exception as e:
        for k in ok:
            results[k].update(status="exception", stage="run", error=describe(e))
    finally:
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
    return results


# Compiled runners whose programs may share one compiled function (batching.py).
BATCHED_RUNNERS = ("inductor", "aot-eager", "inductor-freezing", "inductor-autotune", "inductor-ca")


def uses_inductor(runner):
    """The rule of uses_inductor in runners/executor.cpp, which asks for the warm-up."""
    return "inductor" in runner or runner == "aoti"


def warm_compiler(runners=None):
    """Compile a tiny function with a backward, once per worker: Inductor's first
    compile builds its precompiled header and checks the CPU's vector ISA (a
    minute on two busy cores, once per cache directory), which no program's
    timeout should pay. Only what `runners` compile with is warmed: a worker
    of aot-eager alone warms Dynamo and AOTAutograd (a second), not Inductor
    (15 s or more); all of it when runners are not named."""
    result = new_result("warm")
    t0 = time.perf_counter()
    backend = "inductor" if runners is None or any(uses_inductor(r) for r in runners) else "aot_eager"
    try:
        if backend == "inductor":
            isa_checks.split_checks()
        x = torch.ones(4, requires_grad=True)
        torch_compile(lambda t: (t.sin() * 2.0).sum(), backend=backend)(x).backward()
    except Exception as e:  # torch 1.13 has no torch.compile: nothing to warm
        result.update(status="exception", stage="compile", error=describe(e))
    finally:
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
    result["total_ms"] = (time.perf_counter() - t0) * 1000
    return result


def run_compiled_batch(runners, programs, warmup, backends):
    """programs through each of `runners` as one compiled function: a lone
    runner compiles it as run_one would, several share one Dynamo trace
    (shared_trace.py). {runner: one result per program, or None where that
    runner's batch failed (then each program runs alone to say which)}."""
    got = dict.fromkeys(runners)
    t0 = time.perf_counter()
    timing.reset_counters()
    try:
        loaded = [load(p, False) for p in programs]
        metas = [meta for meta, _ in loaded]
        fn = batching.combined_function([f for _, f in loaded], [len(m.inputs) for m in metas],
                                         batching.reseeded(programs))
        shared = shared_trace.SharedTrace(runners, backends) if len(runners) > 1 else None
        compiled = torch_compile(fn, backend=shared) if shared else compiled_fn(runners[0], batching.Combined(metas),
                                                                                  fn)
        setup = time.perf_counter() - t0
        share = 1000.0 / len(programs)  # each program's part of the batch's time
        for runner in runners:  # compilation happens on the first calls (the first runner's, for all)
            if shared:
                shared.active = runner
            t1 = time.perf_counter()
            try:
                eager_first_call.warm_up(lambda: batching.run_batched(metas, compiled), warmup)
                results = batching.run_batched(metas, compiled)
            except Exception:
                continue
            finally:
                torch.set_default_dtype(torch.float32)
            t2 = time.perf_counter()
            got[runner] = [new_result(runner, setup_ms=setup * share, run_ms=(t2 - t1) * share,
                                      total_ms=(setup + t2 - t1) * share, outputs=g["outputs"],
                                      losses=g["losses"], grads=g["grads"], params=g["params"]) for g in results]
        if rt.fake_prop_errors():  # a frame ran uncompiled: each program alone says whose it is
            got = dict.fromkeys(runners)
    except Exception:
        pass
    finally:
        torch.set_default_dtype(torch.float32)
        torch._dynamo.reset()
    return got


def batch_results(runners, programs, members, warmup, backends):
    """{runner: {program index: result}} for the programs of `members` that ran
    in a batch through `runners` (one runner, or several sharing a trace)."""
    out = {r: {} for r in runners}
    for train in (False, True):
        group = [k for k in members if (programs[k]["train"] is not None) == train]
        for batch in batching.arrange([programs[k] for k in group]):
            batch = [group[i] for i in batch]
            if len(batch) < 2:
                continue
            got = run_compiled_batch(runners, [programs[k] for k in batch], warmup, backends)
            for r in runners:
                out[r].update(zip(batch, got[r] or []))
    return out


def run_batch(programs, runners, warmup, batched=BATCHED_RUNNERS, shared=shared_trace.BACKENDS):
    """Every program through every runner, yielded runner-major (for each runner,
    each program's result) as soon as it is known. Eager runners run each
    program alone; a batched compiled runner takes the programs eager ran that
    may be batched (batching.batchable), inference and training apart, in
    batching.arrange's batches; the rest, and a batch that failed, run alone."""
    eager_ok = [True] * len(programs)
    if os.environ.get("DLFUZZ_SHARED_TRACE", "1") == "0":  # for A/B runs: each runner traces its batch itself
        shared = {}
    sharing = shared_trace.sharable([r for r in runners if r in batched], shared)
    done = {}  # runner -> {program index: its batched result}
    for runner in runners:
        if runner not in batched:
            for k, program in enumerate(programs):
                result = run_one(runner, program, warmup)
                if runner == "py-eager" and result["status"] != "ok":
                    eager_ok[k] = False
                yield result
            continue
        if runner not in done:
            members = [k for k, p in enumerate(programs) if eager_ok[k] and batching.batchable(p)]
            done.update(batch_results(sharing if runner in sharing else [runner], programs, members, warmup, shared))
        for k, program in enumerate(programs):
            yield done[runner][k] if k in done[runner] else run_one(runner, program, warmup)


def fold(runner, plan, param_shards, ranks):
    """Every rank's result folded into one, as dist_runner.cpp's fold does: the
    first failing rank decides the status; outputs of every rank in rank order
    and losses step-major (under tp: rank 0's, they are replicated); rank 0's
    grads and params (under tp a sharded one is put together from every rank's)."""
    out = dict(ranks[0])
    out.update(runner=runner, status="ok", stage="none", error="", outputs=[], losses=[],
               run_ms=max(r["run_ms"] for r in ranks), total_ms=max(r["total_ms"] for r in ranks),
               rank_digests=[list(r.get("digests", [])) for r in ranks])
    # A step lasts as long as its slowest rank; skew = slowest / fastest median.
    timed = [r.get("call_ms") or [] for r in ranks]
    if all(timed):
        out["call_ms"] = [max(t) for t in zip(*timed)]
        medians = [timing.median(t) for t in timed]
        # Time in collectives, as dist_runner.cpp's fold: the largest share of a
        # rank's step, and that rank's milliseconds per call.
        share, collective = 0.0, 0.0
        for r, m in zip(ranks, medians):
            c = (r.get("counters") or {}).get("collective_ms")
            if c is not None and c / max(m, 1e-9) >= share:
                share, collective = c / max(m, 1e-9), c
        out["counters"] = dict(out.get("counters") or {}, rank_skew=max(medians) / max(min(medians), 1e-9),
                               collective_ms=collective, collective_share=min(share, 1.0))
    for i, r in enumerate(ranks):
        if r["status"] != "ok" and out["status"] == "ok":
            out.update(status=r["status"], stage=r["stage"], error=f"rank {i}: {r['error']}")
    if out["status"] != "ok":
        out.update(outputs=[], losses=[], grads=[], params=[])
        return out
    if plan == "tp":
        out["outputs"], out["losses"] = list(ranks[0]["outputs"]), list(ranks[0]["losses"])
        for key in ("grads", "params"):
            whole = []
            for j, dim in enumerate(param_shards):
                parts = [r[key][j] for r in ranks]
                whole.append(torch.cat(parts, dim) if dim >= 0 and all(t is not None for t in parts) else parts[0])
            out[key] = whole
        return out
    for r in ranks:
        out["outputs"] += list(r["outputs"])
    for s in range(len(ranks[0]["losses"])):
        out["losses"] += [r["losses"][s] for r in ranks if s < len(r["losses"])]
    return out


class RankPool:
    """WORLD rank processes, kept while they stay healthy."""

    def __init__(self, world):
        self.world = world
        self.store = torch.distributed.TCPStore("127.0.0.1", 0, None, True, timeout=STARTUP_TIMEOUT,
                                                wait_for_workers=False)
        self.ranks = []  # (process, request fd, result fd)
        for r in range(world):
            req_r, req_w = os.pipe()
            res_r, res_w = os.pipe()
            proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r), "--world",
                                     str(world), "--port", str(self.store.port), "--parent", str(os.getpid()),
                                     "--fds", f"{req_r},{res_w}"], pass_fds=(req_r, res_w), close_fds=True)
            os.close(req_r)
            os.close(res_w)
            self.ranks.append((proc, req_w, res_r))

    def close(self):
        for proc, req_w, res_r in self.ranks:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            os.close(req_w)
            os.close(res_r)
        self.ranks = []

    def run(self, runner, program, warmup, timed_calls=0):
        """One result per rank; a rank that dies becomes a crash result."""
        request = pickle.dumps({"runner": runner, "python_program": program, "warmup": warmup,
                                "timed_calls": timed_calls})
        results = [None] * self.world
        for i, (proc, req_w, _) in enumerate(self.ranks):
            try:
                write_frame(request, req_w)
            except OSError:
                pass  # it died: its result frame will not come
        for i, (proc, _, res_r) in enumerate(self.ranks):
            frame = read_frame(res_r)
            if frame is not None:
                results[i] = pickle.loads(frame)
                continue
            code = proc.wait()
            error = (f"signal {-code} ({signal.Signals(-code).name})" if code < 0
                     else f"rank process exited with status {code}")
            results[i] = new_result(runner, status="crash", stage="run", error=error)
        return results


def configure_torch():
    """The same settings in the worker and in its rank processes."""
    torch.set_num_threads(1)
    # A graph's C++ kernels built as one shared library on their first call
    # (one_kernel_module.py: the same kernel code, one g++ run for every
    # kernel compiled by then). DLFUZZ_ONE_KERNEL_MODULE=0 builds each kernel
    # alone, as Inductor does; =graph builds each graph's kernels when its
    # wrapper waits for them. (A batch's backward graphs join its forward's
    # build: eager_first_call.backward_with_forward.)
    mode = os.environ.get("DLFUZZ_ONE_KERNEL_MODULE", "1")
    if hasattr(torch, "_inductor") and mode != "0":
        one_kernel_module.install(lazy=mode != "graph")
    # IEEE float32 on the GPU as on the CPU (the C++ runners do the same).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def rank_main(args):
    """One rank: joins the group, then runs what the worker sends until it closes the pipe."""
    if os.getppid() != args.parent:  # the worker died before PR_SET_PDEATHSIG was set
        return 1
    req_fd, res_fd = (int(x) for x in args.fds.split(","))
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # ranks talk over loopback, as the C++ ranks do
    configure_torch()
    store = torch.distributed.TCPStore("127.0.0.1", args.port, None, False, timeout=STARTUP_TIMEOUT)
    torch.distributed.init_process_group("gloo", store=store, rank=args.rank, world_size=args.world,
                                         timeout=STARTUP_TIMEOUT)
    while True:
        frame = read_frame(req_fd)
        if frame is None:
            return 0
        req = pickle.loads(frame)
        result = run_one(req["runner"], req["python_program"], req["warmup"], req.get("timed_calls", 0))
        for key in ("outputs", "grads", "params"):  # plain CPU tensors travel
            result[key] = [None if t is None else t.detach().cpu().clone() for t in result[key]]
        write_frame(pickle.dumps(result), res_fd)


# Runners through forward-mode AD. A failed compile of a torch.func.jvp call
# can leave the process unable to run forward mode at all (a first jvp
# campaign lost 10,239 programs so: every later reference raised _make_dual's
# internal assert, pytorch#197090's), so after a request with one, a worker
# whose forward mode no longer runs exits, and dlfuzz starts a fresh one.
FORWARD_MODE_RUNNERS = ("py-eager-jvp", "py-eager64-jvp", "jvp", "inductor-jvp", "jacfwd", "py-eager-jvp2",
                        "py-eager64-jvp2", "jvp2", "inductor-jvp2")


def forward_mode_works():
    if not hasattr(torch, "func"):  # torch 1.x: no forward-mode runner ran here
        return True
    try:
        x = torch.ones(2)
        torch.func.jvp(torch.sin, (x,), (x,))
        return True
    except Exception:
        return False


def run_request(req, pool):
    """One program's request: its runners' results written as they come. Returns
    the rank pool to keep (None: none, or one that must not be reused)."""
    program = req["python_program"]
    world, plan = int(program["world"]), program["plan"]
    param_shards = [int(program["inputs"][i][6]) for i in program["params"]]
    warmup = int(req.get("warmup", 3))
    timed_calls, profile_dir = int(req.get("timed_calls", 0)), req.get("profile_dir", "")
    if int(req.get("pairs", 0)) > 0:
        for result in run_paired(req["runners"], program, warmup, int(req["pairs"]), profile_dir):
            write_frame(encode(result))
        return pool
    for runner in req["runners"]:
        if world == 1:
            write_frame(encode(run_one(runner, program, warmup, timed_calls, profile_dir)))
            continue
        if pool is not None and pool.world != world:
            pool.close()
            pool = None
        if pool is None:
            pool = RankPool(world)
        ranks = pool.run(runner, program, warmup, timed_calls)
        result = fold(runner, plan, param_shards, ranks)
        if result["status"] != "ok":  # a collective may be left half done
            pool.close()
            pool = None
        write_frame(encode(result))
    return pool


def main():
    configure_torch()
    pool = None
    try:
        while True:
            frame = read_frame()
            if frame is None:
                return 0
            req = json.loads(frame)
            if req.get("warm"):
                write_frame(encode(warm_compiler(req.get("runners") or None)))
                continue
            if req.get("python_batch"):
                for result in run_batch(req["python_batch"], req["runners"], int(req.get("warmup", 3))):
                    write_frame(encode(result))
            else:
                pool = run_request(req, pool)
            if any(r in FORWARD_MODE_RUNNERS for r in req["runners"]) and not forward_mode_works():
                sys.stderr.write("dlfuzz worker: forward-mode AD no longer runs in this process; exiting\n")
                return 0
    finally:
        if pool is not None:
            pool.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int)
    ap.add_argument("--world", type=int)
    ap.add_argument("--port", type=int)
    ap.add_argument("--parent", type=int)
    ap.add_argument("--fds")
    cli = ap.parse_args()
    sys.exit(rank_main(cli) if cli.rank is not None else main())
