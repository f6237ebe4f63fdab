#!/usr/bin/env python3
"""dlfuzz's Python worker: runs programs through PyTorch 2.x's compiled paths.

Started by dlfuzz with requests on fd 3 and results on fd 4 (length-prefixed
frames). A request carries the standalone repro dlfuzz emits for the program
(which defines INPUTS, PARAMS, TRAIN, program() and run()) and a list of
runners. Each result is a JSON header followed by the tensors' raw bytes,
the format runners/wire.cpp decodes.

Runners:
  py-eager          the program, eagerly (the reference for the others)
  py-eager64        the same with every float dtype replaced by float64
  inductor          torch.compile (default mode, Inductor)
  inductor-dynamic  torch.compile(dynamic=True)
  aot-eager         torch.compile(backend="aot_eager"): AOTAutograd, no codegen
  aoti              torch.export + AOTInductor (inference programs)
"""
import json
import os
import struct
import sys
import tempfile
import time
import traceback

import hashlib
import warnings

# Inductor's on-disk cache, keyed by this torch installation: another install's
# cached kernels can fail to load here (seen: "undefined symbol: Sleef_expf16_u10").
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(
    os.path.expanduser("~/.cache/dlfuzz/inductor"),
    hashlib.sha1(os.path.realpath(sys.executable).encode()).hexdigest()[:12]))
warnings.filterwarnings("ignore")
# AOTInductor's CPU wrapper .so expects libtorch's aoti_torch_* symbols to be
# global; without this, aoti_load_package fails with "undefined symbol:
# aoti_torch_dtype_float32" (torch 2.15 CPU). Recorded as a finding of its own.
os.environ.setdefault("TORCH_USE_RTLD_GLOBAL", "1")

import torch  # noqa: E402

IN_FD, OUT_FD = 3, 4
VERSION = f"torch {torch.__version__} (pip)"
FLOAT_DTYPES = ("torch.float32", "torch.float16", "torch.bfloat16")


def read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(IN_FD, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_frame():
    head = read_exact(4)
    if head is None:
        return None
    (n,) = struct.unpack("<I", head)
    return read_exact(n)


def write_frame(payload):
    data = struct.pack("<I", len(payload)) + payload
    view = memoryview(data)
    while view:
        k = os.write(OUT_FD, view)
        view = view[k:]


DTYPE_NAMES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
    torch.bool: "bool",
}


def tensor_meta(t, blob):
    if t is None:
        return None
    t = t.detach().cpu().clone().contiguous()
    data = bytes(t.untyped_storage())[: t.numel() * t.element_size()]
    meta = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "offset": len(blob), "nbytes": len(data)}
    blob += data
    return meta


def encode(result):
    blob = bytearray()
    header = {k: result[k] for k in ("runner", "status", "stage", "error", "losses", "setup_ms", "run_ms", "total_ms",
                                      "versions")}
    for key in ("outputs", "grads", "params"):
        header[key] = [tensor_meta(t, blob) for t in result.get(key, [])]
    meta = json.dumps(header).encode()
    return struct.pack("<I", len(meta)) + meta + bytes(blob)


def load(source, fp64):
    if fp64:
        for name in FLOAT_DTYPES:
            source = source.replace(name, "torch.float64")
    ns = {"__name__": "dlfuzz_program"}
    exec(compile(source, "<dlfuzz program>", "exec"), ns)
    return ns


def compiled_fn(runner, ns):
    fn = ns["program"]
    if runner in ("py-eager", "py-eager64"):
        return fn
    if runner == "inductor":
        return torch.compile(fn)
    if runner == "inductor-dynamic":
        return torch.compile(fn, dynamic=True)
    if runner == "aot-eager":
        return torch.compile(fn, backend="aot_eager")
    if runner == "aoti":
        return aoti_fn(ns)
    raise ValueError(f"unknown runner {runner}")


def aoti_fn(ns):
    """torch.export the program, compile it with AOTInductor, load the package."""
    inputs = [ns["build_input"](i, *spec) for i, spec in enumerate(ns["INPUTS"])]

    class Program(torch.nn.Module):
        def forward(self, *args):
            return ns["program"](*args)

    with torch.no_grad():
        exported = torch.export.export(Program(), tuple(inputs))
        path = os.path.join(tempfile.mkdtemp(prefix="dlfuzz_aoti_"), "program.pt2")
        torch._inductor.aoti_compile_and_package(exported, package_path=path)
        loaded = torch._inductor.aoti_load_package(path)
    return lambda *args: tuple(loaded(*args))


def stage_of(exc, tb_text):
    name = type(exc).__name__
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


def run_one(runner, source, warmup):
    result = {"runner": runner, "status": "ok", "stage": "none", "error": "", "losses": [], "setup_ms": 0.0,
              "run_ms": 0.0, "total_ms": 0.0, "versions": VERSION, "outputs": [], "grads": [], "params": []}
    t0 = time.perf_counter()
    stage = "setup"
    try:
        ns = load(source, runner == "py-eager64")
        if runner == "py-eager64":
            torch.set_default_dtype(torch.float64)
        stage = "compile"
        fn = compiled_fn(runner, ns)
        result["setup_ms"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        stage = "run"
        for _ in range(warmup):  # compilation happens on the first calls
            ns["run"](fn)
        got = ns["run"](fn)
        result["run_ms"] = (time.perf_counter() - t1) * 1000
        result["outputs"] = list(got["outputs"])
        result["losses"] = list(got["losses"])
        result["grads"] = list(got["grads"])
        result["params"] = list(got["params"])
    except MemoryError as e:
        result.update(status="oom", stage=stage, error=f"MemoryError: {e}")
    except Exception as e:  # the system under test failing is data
        tb = traceback.format_exc()
        text = describe(e)
        status = "oom" if "out of memory" in text.lower() else "exception"
        result.update(status=status, stage=stage_of(e, tb) if stage == "run" else stage, error=text)
    finally:
        result["total_ms"] = (time.perf_counter() - t0) * 1000
        torch.set_default_dtype(torch.float32)
        torch._dynamo.reset()
    return result


def main():
    torch.set_num_threads(1)
    while True:
        frame = read_frame()
        if frame is None:
            return 0
        req = json.loads(frame)
        for runner in req["runners"]:
            write_frame(encode(run_one(runner, req["python"], int(req.get("warmup", 3)))))


if __name__ == "__main__":
    sys.exit(main())
