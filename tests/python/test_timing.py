"""Unit tests of the Python worker's profile of a performance finding
(runners/python/timing.py: profile_calls, graph_break_reasons).

    .venv/bin/python -m unittest discover -s tests/python
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import timing  # noqa: E402
import worker  # noqa: E402

# 64 x 64: torch 1.13's profiler counts whole microseconds, and a sin of 8 x 8
# took less, so its row (self time 0) was left out on a quiet machine.
X = [[64, 64], "torch.float32", "uniform", -2.0, 2.0, "contiguous", -1, 0]
PROGRAM = {"seed": 1, "device": "cpu", "world": 1, "plan": "none", "inputs": [X], "params": [], "train": None,
           "function": "def program(x0):\n    return (torch.sin(torch.matmul(x0, x0)),)\n",
           "function_fp64": "def program(x0):\n    return (torch.sin(torch.matmul(x0, x0)),)\n"}


class ProfileCalls(unittest.TestCase):
    def test_rows_are_per_profiled_call_without_the_dropped_one(self):
        # The schedule drops the first profiled call; the rows count the others
        # (a schedule that cycles again would leave no rows at all).
        meta, fn = worker.load(PROGRAM, False)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "eager.json")
            prof = timing.profile_calls(meta, fn, 4, path)
            self.assertTrue(os.path.exists(path))
        rows = {key: (ms, calls) for key, ms, calls in prof["ops"]}
        self.assertIn("aten::sin", rows)
        self.assertEqual(rows["aten::sin"][1], 1, "one sin per call, over the 4 calls kept")
        self.assertFalse(any(key.startswith("ProfilerStep") for key in rows), "the schedule's own row is left out")
        for key, (ms, _) in rows.items():
            self.assertGreater(ms, 0, key)



BREAKING = dict(PROGRAM, function="def program(x0):\n    s = x0.sum().item()\n    return (torch.sin(x0) + s,)\n")


@unittest.skipUnless(hasattr(__import__("torch"), "compile"), "torch.compile needs PyTorch 2.x")
class GraphBreaks(unittest.TestCase):
    def test_a_paired_profile_says_why_dynamo_broke_the_graph(self):
        # What a graph-break finding is named by (oracles/perf_oracle.h: graph_break_reason).
        with tempfile.TemporaryDirectory() as d:
            eager, compiled = worker.run_paired(["py-eager", "aot-eager"], BREAKING, 1, 3, d)
        self.assertEqual(compiled["status"], "ok", compiled["error"])
        self.assertEqual(eager["profile"]["graph_breaks"], [])
        self.assertGreaterEqual(compiled["counters"]["graph_breaks"], 1)
        self.assertTrue(compiled["profile"]["graph_breaks"])
        self.assertIn("item", " ".join(compiled["profile"]["graph_breaks"]))


if __name__ == "__main__":
    unittest.main()
