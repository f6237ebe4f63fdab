#!/usr/bin/env python3
"""How a campaign's findings were attributed to compiler layers (issue 15):
per side (PyTorch 2.x runners, LibTorch runners), the share of correctness
findings that name a layer, how many of them a rung below the runner showed
too (the layer is not the runner's own), and the findings per layer; with
--bugs, the same over bugs. Reads the store only.

  python3 bench/attribution_share.py /tmp/campaign.db [--bugs]
"""
import argparse
import collections
import json
import sqlite3

PY2 = ("inductor", "aot-eager", "aoti", "dynamo-eager", "aot-decomp", "fault-inductor-lowering")


def side(runner):
    base = runner.split("@")[0].split("+")[0]
    return "PyTorch 2.x" if base.startswith(PY2) else "LibTorch"


def below_own(ablation):
    """Whether a rung below the runner's own showed the finding."""
    try:
        rungs = json.loads(ablation) if ablation else []
    except ValueError:
        return False
    return any(r.get("verdict") == "fail" for r in rungs[:-1]) if rungs else False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--bugs", action="store_true", help="one row per bug (its first finding) instead of per finding")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    q = ("SELECT test_runner, coalesce(layer, ''), coalesce(ablation, ''), bug_id FROM findings "
         "WHERE kind = 'correctness' ORDER BY id")
    rows = db.execute(q).fetchall()
    if a.bugs:
        seen, first = set(), []
        for r in rows:
            if r[3] not in seen:
                seen.add(r[3])
                first.append(r)
        rows = first
    what = "bugs" if a.bugs else "findings"
    by_side = collections.defaultdict(list)
    for r in rows:
        by_side[side(r[0])].append(r)
    for name, rs in sorted(by_side.items()):
        named = [r for r in rs if r[1]]
        below = [r for r in named if below_own(r[2])]
        print(f"{name}: {len(rs)} correctness {what}, {len(named)} name a layer ({100 * len(named) / len(rs):.0f}%), "
              f"{len(below)} of them a rung below the runner's own")
        for layer, n in collections.Counter(r[1] or "(none)" for r in rs).most_common():
            print(f"  {n:>5}  {layer}")


if __name__ == "__main__":
    main()
