#!/usr/bin/env python3
"""Two workers' first compiles (worker.warm_compiler) started together in one
fresh Inductor cache directory, as a campaign's two lanes start: their wall
seconds with the vector-ISA checks split between them (isa_checks.py) and
without (DLFUZZ_SPLIT_ISA_CHECKS=0), alternating, --rounds times each.

  .venv/bin/python bench/warm_workers.py --rounds 3
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = """
import sys, time
sys.path.insert(0, {dir!r})
sys.argv = sys.argv[:1]
import worker
worker.configure_torch()
t = time.perf_counter()
worker.warm_compiler()
print(time.perf_counter() - t)
"""


def one_round(split, workers):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="dlfuzz_warm_"),
               DLFUZZ_SPLIT_ISA_CHECKS="1" if split else "0")
    code = CHILD.format(dir=os.path.join(HERE, "..", "runners", "python"))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for _ in range(workers)]
    return [float(p.communicate()[0].split()[-1]) for p in procs]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    seconds = {True: [], False: []}
    for _ in range(args.rounds):
        for split in (False, True):
            seconds[split] += one_round(split, args.workers)
    for split, label in ((False, "same order (before)"), (True, "split (isa_checks.py)")):
        s = seconds[split]
        print(f"{label:<24} median {statistics.median(s):5.1f} s  mean {statistics.mean(s):5.1f} s  "
              f"over {len(s)} worker starts: {', '.join(f'{x:.1f}' for x in s)}")
    ratio = statistics.median(seconds[False]) / statistics.median(seconds[True])
    print(f"ratio of medians (before / split): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
