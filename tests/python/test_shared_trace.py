"""Unit tests of one Dynamo trace shared by several compiled runners
(runners/python/shared_trace.py, worker.run_batch with shared runners).

Inductor's kernels need torch loaded RTLD_GLOBAL, which unittest discover
cannot promise: these tests share a trace between Dynamo's eager and
aot_eager backends; aot-eager with inductor is run through the worker by
tests/runners/python_batch_test.cpp.

    .venv/bin/python -m unittest discover -s tests/python
"""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import shared_trace  # noqa: E402
import worker  # noqa: E402
from test_worker_batching import BRANCHY, INFER, INFER2, ITEM, TRAIN_ADAM, TRAIN_SGD, same  # noqa: E402

HAS_COMPILE = hasattr(torch, "compile")
TWO = {"dynamo-eager": "eager", "aot-eager": "aot_eager"}


def recording(calls, name):
    """A backend that records each graph it is given and counts its calls."""
    def backend(gm, example_inputs):
        calls.append((name, "compile"))

        def run(*args):
            calls.append((name, "run"))
            return gm.forward(*args)
        return run
    return backend


@unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
class SharedTrace(unittest.TestCase):
    def tearDown(self):
        torch._dynamo.reset()

    def test_each_graph_is_traced_once_and_compiled_by_every_backend(self):
        calls = []
        shared = shared_trace.SharedTrace(["a", "b"], {"a": recording(calls, "a"), "b": recording(calls, "b")})
        fn = torch.compile(lambda x: torch.sin(x) * 2, backend=shared)
        x = torch.randn(5)
        first = fn(x)
        shared.active = "b"
        second = fn(x)
        self.assertEqual(calls, [("a", "compile"), ("b", "compile"), ("a", "run"), ("b", "run")])
        self.assertTrue(torch.equal(first, second))

    def test_a_backend_that_fails_fails_only_its_runner(self):
        def broken(gm, example_inputs):
            raise RuntimeError("lowering failed")
        shared = shared_trace.SharedTrace(["ok", "bad"], {"ok": "aot_eager", "bad": broken})
        fn = torch.compile(lambda x: torch.cos(x) + 1, backend=shared)
        x = torch.randn(3)
        self.assertTrue(torch.allclose(fn(x), torch.cos(x) + 1))
        shared.active = "bad"
        with self.assertRaisesRegex(shared_trace.CompileFailed, "lowering failed"):
            fn(x)

    def test_sharable_wants_two(self):
        self.assertEqual(shared_trace.sharable(["py-eager", "inductor", "aot-eager"]), ["aot-eager", "inductor"])
        self.assertEqual(shared_trace.sharable(["py-eager", "inductor"]), [])

    def test_run_batch_with_a_shared_trace_matches_each_alone(self):
        programs = [INFER, INFER2, TRAIN_SGD, TRAIN_ADAM, BRANCHY, ITEM]
        runners = ["py-eager", "dynamo-eager", "aot-eager"]
        alone_runs, run_one = [], worker.run_one
        worker.run_one = lambda runner, *a: alone_runs.append(runner) or run_one(runner, *a)
        try:
            results = list(worker.run_batch(programs, runners, 1, batched=tuple(TWO), shared=TWO))
        finally:
            worker.run_one = run_one
        self.assertEqual(alone_runs, ["py-eager"] * 6)  # no compiled runner fell back to running alone
        self.assertEqual([r["runner"] for r in results], ["py-eager"] * 6 + ["dynamo-eager"] * 6 + ["aot-eager"] * 6)
        for k, r in enumerate(results[6:]):
            self.assertEqual(r["status"], "ok", r["error"])
            want = worker.run_one(r["runner"], programs[k % 6], 1)
            for key in ("outputs", "grads", "params"):
                self.assertTrue(same(r[key], want[key]), (r["runner"], k % 6, key))


    def test_the_switch_turns_sharing_off(self):
        """DLFUZZ_SHARED_TRACE=0 (for A/B runs): each runner traces the batch itself."""
        made, real = [], shared_trace.SharedTrace
        shared_trace.SharedTrace = lambda *a: made.append(a) or real(*a)
        os.environ["DLFUZZ_SHARED_TRACE"] = "0"
        try:
            off = list(worker.run_batch([INFER, INFER2], ["dynamo-eager", "aot-eager"], 1, batched=tuple(TWO),
                                        shared=TWO))
            del os.environ["DLFUZZ_SHARED_TRACE"]
            on = list(worker.run_batch([INFER, INFER2], ["dynamo-eager", "aot-eager"], 1, batched=tuple(TWO),
                                       shared=TWO))
        finally:
            shared_trace.SharedTrace = real
            os.environ.pop("DLFUZZ_SHARED_TRACE", None)
        self.assertEqual(len(made), 1)  # only the run with sharing on made a shared trace
        for a, b in zip(off, on):
            self.assertEqual(a["status"], "ok", a["error"])
            self.assertTrue(same(a["outputs"], b["outputs"]), a["runner"])

if __name__ == "__main__":
    unittest.main()
