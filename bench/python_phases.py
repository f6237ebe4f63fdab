#!/usr/bin/env python3
"""Where the seconds of PyTorch 2.x programs go, per configuration, side by side.

Generates a fixed set of programs (`dlfuzz gen`, `dlfuzz emit --to worker-json`),
then runs them the way `dlfuzz fuzz --runners inductor` does (py-eager, py-eager64
and the compiled runner, in the Python worker's own functions), once per
configuration, each in a fresh process with an empty Inductor cache. Phases come
from torch._dynamo.utils.compilation_time_metrics (nested timers: Dynamo's
compile, AOTAutograd, Inductor's lowering and g++) and from timers around the
worker's calls. Prints one table: a row per phase, a column per configuration.

  .venv/bin/python bench/python_phases.py --dlfuzz build/dlfuzz --seed 500 --count 20

Configurations (--configs, comma-separated):
  alone     each program compiled alone, as before batching
  threads1  alone, TORCHINDUCTOR_COMPILE_THREADS=1 (no compile subprocess pool)
  batchK    K programs per compiled function (worker.run_batch), e.g. batch8
  ...-own   suffix: each kernel built by its own g++ run, as Inductor does
            (DLFUZZ_ONE_KERNEL_MODULE=0; without it a graph's kernels are one
            module: runners/python/one_kernel_module.py), e.g. batch8-own
  ...-old   suffix: batches as before nested graph breaks: programs with
            `if`, `.item()` or dropout run alone, e.g. batch8-old
  ...-graph suffix: each graph's kernels built when its wrapper module
            waits for them (DLFUZZ_ONE_KERNEL_MODULE=graph; without it the
            kernels are built on their first call with every kernel
            compiled by then), e.g. batch8-graph
  ...-compiled suffix: the first warm-up call runs the compiled graphs
            (DLFUZZ_EAGER_FIRST_CALL=0; without it it runs them eagerly,
            runners/python/eager_first_call.py), e.g. batch8-graph-compiled
  ...-lazybw suffix: backward graphs compiled (and their kernels built) at
            their first call, not with their forward in the eager first call
            (DLFUZZ_EAGER_BACKWARD=0), e.g. batch8-lazybw
  ...-nocache suffix: Inductor's FX graph cache and AOTAutograd's cache off
            (TORCHINDUCTOR_FX_GRAPH_CACHE=0, TORCHINDUCTOR_AUTOGRAD_CACHE=0:
            no cache key computed, no compiled graph saved), e.g. batch8-nocache
  ...-capture suffix: .item() and data-dependent output sizes traced as
            unbacked symbols, not graph breaks (TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1,
            TORCHDYNAMO_CAPTURE_DYNAMIC_OUTPUT_SHAPE_OPS=1), e.g. batch16-capture
  ...-unshared  suffix: with several --runner (inductor,aot-eager), each
            traces the batch itself instead of sharing one Dynamo trace
            (runners/python/shared_trace.py), e.g. batch8-unshared
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER_DIR = os.path.join(HERE, "..", "runners", "python")

PHASES = [
    ("start", "worker start (import torch, worker.py)"),
    ("warm", "first compile (Inductor's header, ISA check)"),
    ("eager", "py-eager reference"),
    ("eager64", "py-eager64 reference (float64)"),
    ("dynamo", "Dynamo trace and guards"),
    ("aot", "AOTAutograd (trace, partition)"),
    ("lower", "Inductor lowering, codegen, load"),
    ("cxx", "  of which g++ (compile_file)"),
    ("calls", "calls, set-up and reset outside compiling"),
    ("ipc", "encoding results for the pipe"),
    ("total", "total wall"),
]


SEEN = {}  # compile timers summed over every torch._dynamo.reset() (which clears them)


def metric_sums():
    import torch
    now = dict(SEEN)
    for k, v in torch._dynamo.utils.compilation_time_metrics.items():
        now[k] = now.get(k, 0.0) + sum(v)
        now[k + "#"] = now.get(k + "#", 0) + len(v)  # how many times it ran
    return now


def keep_timers_across_resets():
    import torch
    reset = torch._dynamo.reset

    def keeping():
        SEEN.update(metric_sums())
        reset()
    torch._dynamo.reset = keeping


def count_cxx_runs(sums):
    """Counts Inductor's g++ runs (one per generated C++ module: on CPU one per
    kernel) into sums["cxx_runs"]; their seconds are the "cxx" phase."""
    from torch._inductor import cpp_builder
    build = cpp_builder.CppBuilder.build

    def counted(self, *a, **k):
        sums["cxx_runs"] += 1
        return build(self, *a, **k)
    cpp_builder.CppBuilder.build = counted


def compile_phases(before, after):
    d = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    compile_inner, user = d.get("_compile.compile_inner", 0.0), d.get("OutputGraph.call_user_compiler", 0.0)
    backward, inductor = d.get("backward._backward_impl", 0.0), d.get("compile_fx_inner", 0.0)
    return {"dynamo": compile_inner - user, "aot": max(0.0, user + backward - inductor),
            "lower": inductor, "cxx": d.get("compile_file", 0.0), "compiling": compile_inner + backward,
            "graphs": d.get("compile_fx_inner#", 0)}


def child(config, files, compiled):
    """One configuration in this process; prints its phase sums as JSON."""
    t0 = time.perf_counter()
    sys.path.insert(0, WORKER_DIR)
    sys.argv = sys.argv[:1]
    import worker
    worker.configure_torch()
    keep_timers_across_resets()
    sums = dict.fromkeys([k for k, _ in PHASES], 0.0)
    sums["start"] = time.perf_counter() - t0
    t = time.perf_counter()
    worker.warm_compiler()
    sums["warm"] = time.perf_counter() - t
    sums["cxx_runs"] = 0  # the programs' own, not the warm-up's
    sums["graphs"] = 0
    count_cxx_runs(sums)
    programs = [json.load(open(f)) for f in files]
    name = config.split("-")[0]
    batch = int(name[5:]) if name.startswith("batch") else 1
    if config.endswith("-old"):
        batch_as_before()
    runners = ["py-eager", "py-eager64"] + compiled.split(",")
    shared = {} if "-unshared" in config else worker.shared_trace.BACKENDS
    ok = 0
    for i in range(0, len(programs), batch):
        chunk = programs[i:i + batch]
        before = metric_sums()
        t = time.perf_counter()
        if batch == 1:
            results = [[worker.run_one(r, chunk[0], 2) for r in runners]]
        else:
            flat = list(worker.run_batch(chunk, runners, 2, shared=shared))
            results = [[flat[j * len(chunk) + k] for j in range(len(runners))] for k in range(len(chunk))]
        wall = time.perf_counter() - t
        phases = compile_phases(before, metric_sums())
        refs = sum(rs[0]["total_ms"] + rs[1]["total_ms"] for rs in results) / 1000
        sums["eager"] += sum(rs[0]["total_ms"] for rs in results) / 1000
        sums["eager64"] += sum(rs[1]["total_ms"] for rs in results) / 1000
        for k in ("dynamo", "aot", "lower", "cxx", "graphs"):
            sums[k] += phases[k]
        sums["calls"] += max(0.0, wall - refs - phases["compiling"])
        t = time.perf_counter()
        for rs in results:
            for r in rs:
                worker.encode(r)
        sums["ipc"] += time.perf_counter() - t
        ok += sum(r["status"] == "ok" for rs in results for r in rs[2:])
    sums["total"] = time.perf_counter() - t0
    sums["programs"], sums["compiled_ok"] = len(programs), ok
    print("PHASES " + json.dumps(sums))


def batch_as_before():
    """batching.py's rules before nested graph breaks (the -old suffix)."""
    import contextlib

    import batching
    unbatchable = ("if bool(", ".item()", "torch.dropout(")

    def combined_function(fns, arities, reseed=()):  # no program that draws joins (batchable)
        def batched(*args):
            outs, offset = [], 0
            for fn, n in zip(fns, arities):
                outs.append(tuple(fn(*args[offset:offset + n])))
                offset += n
            return tuple(outs)
        return batched
    batching.batchable = lambda p: int(p["world"]) == 1 and not any(s in p["function"] for s in unbatchable)
    batching.combined_function = combined_function
    batching.nested_breaks = contextlib.nullcontext


def make_programs(dlfuzz, seed, count, target, out, device="cpu", policy=None):
    policy_flag = ["--policy", policy] if policy else []
    subprocess.run([dlfuzz, "gen", "--seed", str(seed), "--count", str(count), "--target", target,
                    "--device", device, "-o", out, *policy_flag],
                   check=True, stdout=subprocess.DEVNULL)
    files = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".dlf"):
            path = os.path.join(out, name[:-4] + ".json")
            subprocess.run([dlfuzz, "emit", os.path.join(out, name), "--to", "worker-json", "-o", path], check=True)
            files.append(path)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlfuzz", default=os.path.join(HERE, "..", "build", "dlfuzz"))
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--runner", default="inductor", help="compiled runners, comma-separated")
    ap.add_argument("--target", default="torch2", help="the programs' PyTorch, as the Python lane writes them")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where the programs run")
    ap.add_argument("--configs", default="alone,batch8")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.files, args.runner)
    files = make_programs(args.dlfuzz, args.seed, args.count, args.target, tempfile.mkdtemp(prefix="dlfuzz_phases_"),
                           args.device)
    columns = {}
    for config in args.configs.split(","):
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="dlfuzz_inductor_"))
        if config.startswith("threads1"):
            env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        if "-own" in config:
            env["DLFUZZ_ONE_KERNEL_MODULE"] = "0"
        if "-lazybw" in config:
            env["DLFUZZ_EAGER_BACKWARD"] = "0"
        if "-nocache" in config:
            env.update(TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
        if "-capture" in config:
            env.update(TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS="1", TORCHDYNAMO_CAPTURE_DYNAMIC_OUTPUT_SHAPE_OPS="1")
        if "-compiled" in config:
            env["DLFUZZ_EAGER_FIRST_CALL"] = "0"
        if "-graph" in config:
            env["DLFUZZ_ONE_KERNEL_MODULE"] = "graph"
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--runner", args.runner, "--child", config]
                             + files, env=env, capture_output=True, text=True)
        line = [x for x in out.stdout.splitlines() if x.startswith("PHASES ")]
        if not line:
            sys.stderr.write(f"{config} failed:\n{out.stderr[-3000:]}\n")
            continue
        columns[config] = json.loads(line[-1][7:])
        print(f"{config}: done in {columns[config]['total']:.0f} s", file=sys.stderr)
    names = list(columns)
    print(f"{len(files)} programs (seed {args.seed}..), runner {args.runner}, seconds summed over the programs")
    print(f"{'phase':<46}" + "".join(f"{n:>12}" for n in names))
    for key, label in PHASES:
        print(f"{label:<46}" + "".join(f"{columns[n][key]:>12.1f}" for n in names))
    print(f"{'g++ runs (one per C++ kernel module)':<46}" + "".join(f"{columns[n]['cxx_runs']:>12}" for n in names))
    print(f"{'g++ runs per program':<46}" + "".join(f"{columns[n]['cxx_runs'] / columns[n]['programs']:>12.1f}"
                                                    for n in names))
    print(f"{'graphs Inductor compiled (forward, backward)':<46}" + "".join(f"{columns[n]['graphs']:>12}"
                                                                    for n in names))
    print(f"{'compiled runs ok':<46}" + "".join(f"{columns[n]['compiled_ok']:>12}" for n in names))
    print(f"{'programs per minute':<46}" + "".join(f"{60 * columns[n]['programs'] / columns[n]['total']:>12.1f}"
                                                  for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
