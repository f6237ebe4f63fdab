#!/usr/bin/env python3
"""How many bugs one signature holds, before and after the refinements of
issue 15, from a store whose campaign reduced several findings per bug
(`dlfuzz fuzz --reduce S --reduce-findings K`).

A finding's own reduction (findings.reduced_ops) stands for the bug it shows:
two findings that reduce to different op sets count as two bugs. Grouped by

  oracle    the oracle signature (oracle|ref|test|stage|error): the key
            before the layer and the first diverging op refined it
  bug       the bug signature the campaign filed it under (with |layer= and
            |first=), before any split
  split     the bug it is in now, after --reduce-findings split bugs whose
            findings reduce to other op sets

it prints, per grouping, the groups with two or more reduced findings and
two counts of the bugs in them: the distinct op sets, and the groups of op
sets linked by a shared op (triage/bug_split.h's rule: reductions of one bug
keep its op but may keep different companions, e.g. NNC's frac with silu or
hardtanh, since NNC fuses nothing alone); and each count per group (bugs per
signature; 1.0 is no over-merging). Only groups with two or more reduced
findings can show it.

  python3 bench/over_merging.py /tmp/campaign.db [--verbose]
"""
import argparse
import collections
import sqlite3


def base(sig):
    cut = min([sig.find(k) for k in ("|layer=", "|first=", "|ops=") if k in sig] + [len(sig)])
    return sig[:cut]


def linked(op_sets):
    """How many groups the op sets form when sets sharing an op are linked."""
    groups = []
    for ops in op_sets:
        mine = set(ops.replace("+train", "").split(","))
        joined = [g for g in groups if g & mine]
        for g in joined:
            groups.remove(g)
            mine |= g
        groups.append(mine)
    return len(groups)


def before_split(sig):
    return sig.split("|ops=")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    rows = db.execute("SELECT id, bug_id, signature, reduced_ops, kind FROM findings "
                      "WHERE reduced_ops IS NOT NULL AND kind = 'correctness'").fetchall()
    keys = {"oracle": lambda r: base(r[2]), "bug": lambda r: before_split(r[2]), "split": lambda r: r[1]}
    print(f"{len(rows)} reduced correctness findings in {a.db}")
    print(f"{'grouping':<8} {'groups':>7} {'op sets':>8} {'per group':>10} {'linked':>7} {'per group':>10}")
    for name, key in keys.items():
        groups = collections.defaultdict(set)
        counts = collections.Counter()
        for r in rows:
            groups[key(r)].add(r[3])
            counts[key(r)] += 1
        multi = [k for k in groups if counts[k] >= 2]
        sets = sum(len(groups[k]) for k in multi)
        links = sum(linked(groups[k]) for k in multi)
        n = len(multi) or float("nan")
        print(f"{name:<8} {len(multi):>7} {sets:>8} {sets / n:>10.2f} {links:>7} {links / n:>10.2f}")
        if a.verbose:
            for k in multi:
                if len(groups[k]) > 1:
                    print(f"    {k}: {sorted(groups[k])}")


if __name__ == "__main__":
    main()
