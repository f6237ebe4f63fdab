"""Unit tests of the Python worker's batched runs (runners/python/batching.py,
worker.run_batch) and its resized second call (worker.append_resized).

    .venv/bin/python -m unittest discover -s tests/python
"""
import os
import sys
import unittest
from unittest import mock

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import batching  # noqa: E402
import dlfuzz_runtime as rt  # noqa: E402
import worker  # noqa: E402

HAS_COMPILE = hasattr(torch, "compile")


def program(function, inputs, params=(), train=None, seed=42):
    """A program as dlfuzz sends it to the worker (python_worker_program)."""
    return {"seed": seed, "device": "cpu", "world": 1, "plan": "none", "inputs": inputs, "params": list(params),
            "train": train, "function": function, "function_fp64": function}


# (shape, dtype, init, lo, hi, layout, shard_dim, whole), as the emitter writes them.
X = [[4, 3], "torch.float32", "uniform", -2.0, 2.0, "contiguous", -1, 0]
W = [[3, 2], "torch.float32", "normal", 0.0, 0.5, "contiguous", -1, 0]
INFER = program("def program(x0, w0):\n    return (torch.tanh(torch.matmul(x0, w0)),)\n", [X, W], [1])  # w0 a param
INFER2 = program("def program(x0):\n    v1 = torch.sin(x0)\n    v1.add_(1.0)\n    return (v1, torch.sum(v1))\n", [X])
TRAIN_SRC = "def program(x0, w0):\n    v1 = torch.tanh(torch.matmul(x0, w0))\n    return (v1, torch.mean(v1 * v1))\n"
TRAIN_SGD = program(TRAIN_SRC, [X, W], [1], ["sgd", 0.1, 0.9, 0.01, 3])
TRAIN_ADAM = program(TRAIN_SRC, [X, W], [1], ["adam", 0.01, 0.0, 0.0, 1], seed=7)
# Shapes fixed by a literal: eager rejects another batch.
FIXED = program("def program(x0):\n    return (torch.reshape(x0, [12]),)\n", [X])
BRANCHY = program("def program(x0):\n    if bool(torch.sum(x0) > 0):\n        return (x0,)\n    return (-x0,)\n", [X])
ITEM = program("def program(x0):\n    return (x0 * torch.max(x0).item(),)\n", [X])
DROPOUT = program("def program(x0):\n    return (torch.dropout(x0, 0.5, True),)\n", [X])
DROPOUT2 = program("def program(x0):\n    return (torch.dropout(x0 * 2.0, 0.3, True),)\n", [X])


def alone(p):
    meta, fn = worker.load(p, False)
    return rt.run(meta, fn)


def same(a, b):
    return all((x is None and y is None) or torch.equal(x, y) for x, y in zip(a, b)) and len(a) == len(b)


class Batched(unittest.TestCase):
    def check_batch_equals_alone(self, programs):
        loaded = [worker.load(p, False) for p in programs]
        metas = [m for m, _ in loaded]
        fn = batching.combined_function([f for _, f in loaded], [len(m.inputs) for m in metas],
                                        batching.reseeded(programs))
        for p, got in zip(programs, batching.run_batched(metas, fn)):
            want = alone(p)
            for key in ("outputs", "grads", "params"):
                self.assertTrue(same(got[key], want[key]), key)
            self.assertEqual(got["losses"], want["losses"])

    def test_inference_programs_give_what_each_gives_alone(self):
        self.check_batch_equals_alone([INFER, INFER2])

    def test_training_programs_with_their_own_steps_and_optimizers(self):
        # 3 steps of SGD with weight decay beside 1 step of Adam: each program
        # stops stepping after its own steps, its gradients are its own.
        self.check_batch_equals_alone([TRAIN_SGD, TRAIN_ADAM])

    def test_mixed_modes_are_refused(self):
        loaded = [worker.load(p, False) for p in (INFER, TRAIN_SGD)]
        fn = batching.combined_function([f for _, f in loaded], [2, 2])
        with self.assertRaises(ValueError):
            batching.run_batched([m for m, _ in loaded], fn)

    def test_batchable(self):
        self.assertTrue(batching.batchable(INFER))
        self.assertTrue(batching.batchable(BRANCHY))
        self.assertFalse(batching.batchable(dict(INFER, world=2)))

    def test_random_programs_come_first_and_all_but_the_first_are_reseeded(self):
        self.assertEqual(batching.arrange([INFER, DROPOUT, INFER2, DROPOUT]), [[1, 3, 0, 2]])
        self.assertEqual(batching.reseeded([DROPOUT, DROPOUT, INFER, INFER2]), [1])
        self.assertEqual(batching.arrange([INFER, INFER2]), [[0, 1]])
        self.assertEqual(batching.arrange([]), [])

    def test_each_random_program_draws_what_it_draws_alone(self):
        mask = alone(DROPOUT)["outputs"][0] == 0
        self.assertTrue(0 < int(mask.sum()) < mask.numel())  # it did draw
        self.check_batch_equals_alone([DROPOUT, DROPOUT2, INFER2])

    def test_without_a_reseed_the_second_draws_another_mask(self):
        # What the reseed is for (the test above would not hold without it).
        loaded = [worker.load(p, False) for p in (DROPOUT, DROPOUT)]
        fn = batching.combined_function([f for _, f in loaded], [1, 1])
        got = batching.run_batched([m for m, _ in loaded], fn)
        self.assertFalse(same(got[1]["outputs"], alone(DROPOUT)["outputs"]))

    @unittest.skipUnless(HAS_COMPILE and hasattr(torch._dynamo.config, "nested_graph_breaks"),
                         "nested graph breaks need Dynamo")
    def test_a_graph_break_splits_the_batch_where_it_is_not_per_program(self):
        # Breaks in BRANCHY and ITEM: 3 graphs for the 4 programs (2 breaks + 1),
        # where alone they compile to 1 + 2 + 2 + 1.
        graphs = []

        def count(gm, example_inputs):
            graphs.append(gm)
            return gm
        programs = [INFER, BRANCHY, ITEM, INFER2]
        loaded = [worker.load(p, False) for p in programs]
        metas = [m for m, _ in loaded]
        fn = batching.combined_function([f for _, f in loaded], [len(m.inputs) for m in metas])
        try:
            got = batching.run_batched(metas, torch.compile(fn, backend=count))
        finally:
            torch._dynamo.reset()
        self.assertEqual(len(graphs), 3)
        for p, g in zip(programs, got):
            self.assertTrue(same(g["outputs"], alone(p)["outputs"]))

    @unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
    def test_run_batch_yields_runner_major_and_matches_alone(self):
        programs = [INFER, INFER2, TRAIN_SGD, TRAIN_ADAM, BRANCHY, DROPOUT, ITEM, DROPOUT]
        runners = ["py-eager", "aot-eager"]
        results = list(worker.run_batch(programs, runners, 1))
        self.assertEqual([r["runner"] for r in results], ["py-eager"] * 8 + ["aot-eager"] * 8)
        for p, r in zip(programs, results[8:]):
            self.assertEqual(r["status"], "ok", r["error"])
            want = worker.run_one("aot-eager", p, 1)
            for key in ("outputs", "grads", "params"):
                self.assertTrue(same(r[key], want[key]), key)

    def test_combined_params_are_each_programs_params_at_their_positions(self):
        # inductor-freezing's module holds the params of every program of a
        # batch: the first's w0 (argument 1) and the third's (argument 4), not
        # the data. (Its batched runs: InductorFreezing.* in runner_tests, in
        # the worker's own process.)
        metas = [worker.load(p, False)[0] for p in (INFER, INFER2, INFER)]
        self.assertEqual(batching.Combined(metas).params, [1, 4])

    @unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
    def test_a_failing_batch_runs_each_alone(self):
        bad = program("def program(x0):\n    return (torch.matmul(x0, x0),)\n", [X])  # [4,3] @ [4,3]
        results = list(worker.run_batch([INFER, bad, INFER2], ["aot-eager"], 1))
        self.assertEqual([r["status"] for r in results], ["ok", "exception", "ok"])

    @unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
    def test_a_batch_dynamo_ran_partly_uncompiled_runs_each_alone(self):
        # Dynamo's caught FakeTensor error belongs to one program: alone, each
        # result says whether it is its own (the fake-prop oracle).
        with mock.patch.object(rt, "fake_prop_errors", return_value=["mul: RuntimeError: planted"]):
            with mock.patch.object(worker, "run_one", wraps=worker.run_one) as alone_runs:
                results = list(worker.run_batch([INFER, INFER2], ["aot-eager"], 1))
        self.assertEqual([r["status"] for r in results], ["ok", "ok"])
        self.assertEqual([r["fake_errors"] for r in results], [["mul: RuntimeError: planted"]] * 2)
        self.assertEqual([c.args[0] for c in alone_runs.call_args_list], ["aot-eager", "aot-eager"])
        self.assertEqual([r["fake_errors"] for r in worker.run_batch([INFER, INFER2], ["aot-eager"], 1)], [[], []])


class Resized(unittest.TestCase):
    def test_data_inputs_get_another_batch_params_keep_theirs(self):
        meta = worker.load(TRAIN_SGD, False)[0]
        resized = rt.resized_meta(meta)
        self.assertEqual([s[0] for s in resized.inputs], [[5, 3], [3, 2]])
        self.assertEqual([s[0] for s in meta.inputs], [[4, 3], [3, 2]])  # a copy
        one = worker.load(program("def program(x0):\n    return (x0,)\n", [[[1, 2]] + X[1:]]), False)[0]
        self.assertEqual(rt.resized_meta(one).inputs[0][0], [3, 2])  # past 0 and 1, which dynamic=True specializes

    def test_reference_appends_the_resized_run(self):
        r = worker.run_one("py-eager-resized", TRAIN_SGD, 1)
        self.assertEqual(r["status"], "ok", r["error"])
        self.assertEqual([list(t.shape) for t in r["outputs"]], [[4, 2], [5, 2]])
        self.assertEqual(len(r["grads"]), 2)
        self.assertEqual(len(r["losses"]), 6)

    def test_a_program_eager_runs_at_one_size_only_is_left_as_is(self):
        r = worker.run_one("py-eager-resized", FIXED, 1)
        self.assertEqual(r["status"], "ok", r["error"])
        self.assertEqual([list(t.shape) for t in r["outputs"]], [[12]])

    @unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
    def test_a_compiled_function_is_called_at_the_new_size(self):
        # inductor-dynamic's own run goes through the worker in
        # tests/runners/python_batch_test.cpp; here the same call, aot_eager.
        p = program("def program(x0):\n    return (torch.sin(x0) * 2.0,)\n", [X])
        meta, fn = worker.load(p, False)
        compiled = torch.compile(fn, backend="aot_eager", dynamic=True)
        got = {"outputs": [], "losses": [], "grads": [], "params": []}
        worker.append_resized(got, meta, fn, compiled)
        torch._dynamo.reset()
        self.assertEqual([list(t.shape) for t in got["outputs"]], [[5, 3]])
        resized = rt.resized_meta(meta)
        self.assertTrue(torch.equal(got["outputs"][0], rt.run(resized, fn)["outputs"][0]))

class ForwardModeProbe(unittest.TestCase):
    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_a_worker_whose_forward_mode_fails_says_so(self):
        # main() exits after a forward-mode request when this is False, and
        # dlfuzz starts a fresh worker for the next request.
        self.assertTrue(worker.forward_mode_works())
        with mock.patch.object(torch.func, "jvp", side_effect=RuntimeError("INTERNAL ASSERT FAILED")):
            self.assertFalse(worker.forward_mode_works())
        self.assertTrue(set(worker.FORWARD_MODE_RUNNERS) <= set(worker.RUNNERS))


if __name__ == "__main__":
    unittest.main()
