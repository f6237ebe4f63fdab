"""What Inductor's C++ backend gets from this PyTorch install in a plain
process: the vector ISA it picks and the libtorch it links its kernels to.

dlfuzz's workers load libtorch RTLD_GLOBAL (worker.py), which hides a broken
link: with Python's LIBDIR searched before torch/lib (Inductor's cpp_builder
order), a distribution's libtorch there (Debian's libtorch-dev) shadows the
wheel's, the kernels' libraries get no NEEDED entry on libtorch_cpu, Inductor's
ISA probe cannot load (undefined Sleef_* symbols) and every C++ kernel is
compiled scalar, silently, for everyone using this install. A campaign's
timings then say nothing about what its users get, so the campaign says so.

    python env_check.py            # JSON on stdout; "warnings" say what is wrong

The answer is cached per install (the probe compiles with g++ once).
"""
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

CACHE_DIR = os.path.join(os.path.expanduser("~/.cache/dlfuzz"), "env")

# Run in a child that imports torch as users do (no TORCH_USE_RTLD_GLOBAL) with
# an empty Inductor cache: a cached probe result ("load_ok") of a process that
# had libtorch global would say the ISA works.
PICK_ISA = """
import json, torch
from torch._inductor import cpu_vec_isa
print(json.dumps({"isa": str(cpu_vec_isa.pick_vec_isa()),
                  "aten": torch.backends.cpu.get_cpu_capability()}))
"""

# dlopen of each probe library, to say why one does not load.
LOAD_ERRORS = """
import ctypes, json, sys
errors = {}
for path in sys.argv[1:]:
    try:
        ctypes.CDLL(path)
    except OSError as e:
        errors[path] = str(e)
print(json.dumps(errors))
"""


def torch_lib_dir():
    import torch
    return os.path.join(os.path.dirname(torch.__file__), "lib")


def linked_libtorch_cpu():
    """The libtorch_cpu.so Inductor's link line finds first (-L order), and
    the directory this install's own is in."""
    from torch._inductor import cpu_vec_isa
    from torch._inductor.cpp_builder import CppTorchOptions
    own = torch_lib_dir()
    dirs = CppTorchOptions(vec_isa=cpu_vec_isa.invalid_vec_isa).get_libraries_dirs()
    for d in dirs:
        if os.path.exists(os.path.join(d, "libtorch_cpu.so")):
            return os.path.realpath(d), os.path.realpath(own)
    return "", os.path.realpath(own)


def plain_env(cache_dir):
    env = {k: v for k, v in os.environ.items() if k != "TORCH_USE_RTLD_GLOBAL"}
    env["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    return env


def probe_isa():
    """Inductor's vector ISA in a plain process, and why its probe failed."""
    with tempfile.TemporaryDirectory(prefix="dlfuzz-isa-") as cache:
        out = subprocess.run([sys.executable, "-c", PICK_ISA], env=plain_env(cache), capture_output=True,
                             text=True, timeout=180)
        if out.returncode != 0:
            return {"isa": "", "aten": "", "probe_errors": out.stderr.strip().splitlines()[-1:]}
        picked = json.loads(out.stdout.strip().splitlines()[-1])
        probes = [os.path.join(root, f) for root, _, files in os.walk(cache) for f in files if f.endswith(".so")]
        env = plain_env(cache)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [torch_lib_dir(), env.get("LD_LIBRARY_PATH")]))
        loads = subprocess.run([sys.executable, "-c", LOAD_ERRORS, *probes], env=env, capture_output=True,
                               text=True, timeout=120)
        errors = json.loads(loads.stdout) if loads.returncode == 0 else {}
        picked["probe_errors"] = sorted(set(e.split(": ", 1)[-1] for e in errors.values()))
        return picked


def warnings_of(check):
    """What a compiler engineer reading the campaign must know."""
    out = []
    aten, isa = check.get("aten", ""), check.get("isa", "")
    if isa == "INVALID_VEC_ISA" and aten not in ("", "DEFAULT"):
        why = "; ".join(check.get("probe_errors", [])) or "its probe library did not build or load"
        out.append(f"Inductor compiles scalar C++ kernels in a plain process of this install (ATen uses {aten}): "
                   f"{why}. dlfuzz's workers load libtorch RTLD_GLOBAL and get vector code, so their "
                   "timings are not what users of this install get")
    linked, own = check.get("linked_libtorch_cpu", ""), check.get("own_lib_dir", "")
    if linked and linked != own:
        out.append(f"Inductor links its kernels to the libtorch_cpu.so in {linked} (found before this "
                   f"install's {own} on its -L path)")
    return out


def check():
    # Keyed by the install, read without importing torch (seconds).
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    key = hashlib.sha1(f"{os.path.realpath(sys.prefix)} {version}".encode()).hexdigest()[:12]
    path = os.path.join(CACHE_DIR, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    import torch
    result = {"torch": torch.__version__}
    if hasattr(torch, "_inductor"):
        result["linked_libtorch_cpu"], result["own_lib_dir"] = linked_libtorch_cpu()
        result.update(probe_isa())
    result["warnings"] = warnings_of(result)
    os.makedirs(CACHE_DIR, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(path + ".tmp", path)
    return result


if __name__ == "__main__":
    print(json.dumps(check()))
