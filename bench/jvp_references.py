#!/usr/bin/env python3
"""What the jvp runners' references cost, this tree's runtime against a git
revision's, side by side.

Generates inference programs (`dlfuzz gen`, `dlfuzz emit --to worker-json`)
and runs the two references of the jvp runners, py-eager-jvp (reverse mode
twice) and py-eager64-jvp (central differences in float64), through the
Python worker's run_one, once per configuration, each configuration in a
fresh process, the configurations alternating (--rounds). Prints the seconds
each took and whether both runtimes gave the same values.

  .venv/bin/python bench/jvp_references.py --old 19fbfbb --seed 43000 --count 30
"""
import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import python_phases

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
REFERENCES = ("py-eager-jvp", "py-eager64-jvp")


def child(runtime, files, warmup):
    sys.path.insert(0, os.path.join(ROOT, "runners", "python"))
    import torch
    import worker
    worker.configure_torch()
    if runtime:  # a revision's dlfuzz_runtime.py in place of this tree's
        spec = importlib.util.spec_from_file_location("dlfuzz_runtime_old", runtime)
        worker.rt = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(worker.rt)
    programs = [json.load(open(f)) for f in files]
    seconds = {r: 0.0 for r in REFERENCES}
    digest = hashlib.sha256()
    for program in programs:
        for r in REFERENCES:
            t = time.perf_counter()
            result = worker.run_one(r, program, warmup)
            seconds[r] += time.perf_counter() - t
            digest.update(result["status"].encode())
            for o in result["outputs"]:  # the values' bits
                digest.update(bytes(o.reshape(-1).contiguous().view(torch.uint8).tolist()))
    print("RESULT " + json.dumps({"seconds": seconds, "values": digest.hexdigest()[:12]}))


def make_programs(dlfuzz, seed, count, out):
    policy = os.path.join(out, "policy.json")
    with open(policy, "w") as f:
        json.dump({"p_training": 0}, f)  # the jvp runners run inference programs
    return python_phases.make_programs(dlfuzz, seed, count, "torch2", out, policy=policy)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlfuzz", default=os.path.join(ROOT, "build", "dlfuzz"))
    ap.add_argument("--old", required=True, help="git revision whose runners/python/dlfuzz_runtime.py to compare")
    ap.add_argument("--seed", type=int, default=43000)
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=2, help="calls before the judged one, as the worker makes")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        runtime, files = args.child[0], args.child[1:]
        child("" if runtime == "-" else runtime, files, args.warmup)
        return
    work = tempfile.mkdtemp(prefix="dlfuzz-jvp-bench-")
    files = make_programs(args.dlfuzz, args.seed, args.count, work)
    old = os.path.join(work, "old_runtime.py")
    with open(old, "w") as f:
        f.write(subprocess.run(["git", "-C", ROOT, "show", f"{args.old}:runners/python/dlfuzz_runtime.py"],
                               check=True, capture_output=True, text=True).stdout)
    totals = {name: {r: [] for r in REFERENCES} for name in (args.old, "this tree")}
    values = {}
    for _ in range(args.rounds):
        for name, runtime in ((args.old, old), ("this tree", "-")):
            out = subprocess.run([sys.executable, __file__, "--warmup", str(args.warmup), "--old", args.old,
                                  "--child", runtime, *files], check=True, capture_output=True, text=True).stdout
            result = json.loads(out.split("RESULT ", 1)[1])
            for r in REFERENCES:
                totals[name][r].append(result["seconds"][r])
            values.setdefault(name, set()).add(result["values"])
    print(f"{len(files)} programs (seed {args.seed}), {args.warmup} warm-up calls + 1, {args.rounds} rounds")
    print(f"{'reference':<16} {args.old:>12} {'this tree':>12} {'ratio':>7}   (seconds, median of rounds)")
    for r in REFERENCES:
        a, b = sorted(totals[args.old][r]), sorted(totals["this tree"][r])
        ma, mb = a[len(a) // 2], b[len(b) // 2]
        print(f"{r:<16} {ma:>12.2f} {mb:>12.2f} {ma / mb:>6.2f}x")
    print("same values:", "yes" if values[args.old] == values["this tree"] and len(values[args.old]) == 1
          else f"no ({values})")


if __name__ == "__main__":
    main()
