"""Unit tests of the compiled optimizer step (dlfuzz_runtime.run's step_backend,
the inductor-step runner). As in test_shared_trace.py, the steps here are
compiled by backends that need no C++ compiler (a recording backend around
aot_eager); inductor-step itself runs through the worker in
tests/runners/python_batch_test.cpp.

    .venv/bin/python -m unittest discover -s tests/python
"""
import contextlib
import io
import os
import sys
import unittest
from unittest import mock

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import dlfuzz_runtime as rt  # noqa: E402
import worker  # noqa: E402
from test_worker_batching import INFER, TRAIN_ADAM, TRAIN_SGD, X, program, same  # noqa: E402

HAS_COMPILE = hasattr(torch, "compile")
W = [[3, 2], "torch.float32", "normal", 0.0, 0.5, "contiguous", -1, 0]
# Two params, AdamW with weight decay, three steps.
TRAIN_ADAMW = program("def program(x0, w0, w1):\n    v1 = torch.tanh(torch.matmul(x0, w0)) * w1\n"
                      "    return (v1, torch.mean(v1 * v1))\n",
                      [X, W, [[2], "torch.float32", "normal", 0.0, 0.5, "contiguous", -1, 0]], [1, 2],
                      ["adamw", 0.01, 0.0, 0.01, 3], seed=9)


def recording(graphs):
    """aot_eager, recording the ops of each graph it is given."""
    def backend(gm, example_inputs):
        graphs.append([str(n.target) for n in gm.graph.nodes if n.op in ("call_function", "call_method")])
        return torch._dynamo.backends.registry.lookup_backend("aot_eager")(gm, example_inputs)
    return backend


@unittest.skipUnless(HAS_COMPILE, "torch.compile needs PyTorch 2.x")
class CompiledStep(unittest.TestCase):
    def tearDown(self):
        torch._dynamo.reset()

    def check_compiled_step_equals_eager(self, p):
        meta, fn = worker.load(p, False)
        graphs = []
        got = rt.run(meta, fn, recording(graphs))
        want = rt.run(meta, fn)
        self.assertTrue(graphs, "the optimizer step was compiled")
        self.assertTrue(all(ops for ops in graphs), "each compiled graph holds update ops")
        # Traced, Adam's bias corrections are float32 tensor math where eager's are
        # Python floats: the same to float32 rounding, not to the bit.
        for key in ("outputs", "grads", "params"):
            self.assertEqual(len(got[key]), len(want[key]))
            for a, b in zip(got[key], want[key]):
                self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6), key)
        self.assertEqual(got["losses"][0], want["losses"][0])
        self.assertFalse(same(got["params"], rt.build_inputs(meta)[1:]), "the step moved the params")
        return graphs

    def test_sgd_with_momentum_and_weight_decay(self):
        self.check_compiled_step_equals_eager(TRAIN_SGD)

    def test_adam(self):
        self.check_compiled_step_equals_eager(TRAIN_ADAM)

    def test_adamw_over_two_params_and_three_steps(self):
        self.check_compiled_step_equals_eager(TRAIN_ADAMW)

    def test_rmsprop_and_adagrad(self):
        for train in (["rmsprop", 0.01, 0.9, 0.01, 2], ["adagrad", 0.1, 0.0, 0.01, 2]):
            self.check_compiled_step_equals_eager(dict(TRAIN_ADAMW, train=train))
            torch._dynamo.reset()

    def test_foreach_amsgrad_and_nesterov(self):
        for train in (["adam", 0.01, 0.0, 0.01, 2, ["amsgrad", "foreach"]], ["sgd", 0.1, 0.9, 0.0, 2, ["nesterov"]]):
            graphs = self.check_compiled_step_equals_eager(dict(TRAIN_ADAMW, train=train))
            torch._dynamo.reset()
            if "foreach" in train[5]:
                self.assertTrue(any("_foreach" in op for ops in graphs for op in ops), graphs)

    def test_the_program_itself_is_not_compiled(self):
        # Only the step is traced: no graph holds the program's tanh.
        graphs = self.check_compiled_step_equals_eager(TRAIN_SGD)
        self.assertFalse(any("tanh" in op for ops in graphs for op in ops), graphs)

    def test_worker_runs_inductor_step_eagerly_in_warm_up(self):
        # The runner's function is the program itself; only run_one's checked run compiles the step.
        meta, fn = worker.load(TRAIN_SGD, False)
        self.assertIs(worker.compiled_fn("inductor-step", meta, fn), fn)
        self.assertEqual(worker.STEP_BACKENDS["inductor-step"], "inductor")

    def test_repro_compares_as_the_runners_do(self):
        # Adam on a float64 param: Dynamo's trace counts steps in float32, so the
        # traced step differs from torch.optim's by ~1e-7 (--backend eager: as
        # dynamo-step is judged); another backend is compared with that trace run
        # eagerly (as inductor-step is) and agrees with it.
        p = program(TRAIN_ADAMW["function"], [[[4, 3], "torch.float64", "uniform", -2.0, 2.0, "contiguous", -1, 0],
                                             [[3, 2], "torch.float64", "normal", 0.0, 0.5, "contiguous", -1, 0],
                                             [[2], "torch.float64", "normal", 0.0, 0.5, "contiguous", -1, 0]],
                    [1, 2], ["adam", 0.01, 0.0, 0.0, 2], seed=9)
        meta, fn = worker.load(p, False)

        def repro(*argv):
            with mock.patch.object(sys, "argv", ["repro.py", "--compile-step", "--fail-above", "1e-12", *argv]), \
                    contextlib.redirect_stdout(io.StringIO()):
                code = rt.main(meta, fn)
            torch._dynamo.reset()
            return code

        self.assertEqual(repro("--backend", "eager"), 1)
        self.assertEqual(repro("--backend", "aot_eager"), 0)

    def test_an_inference_program_has_no_step(self):
        meta, fn = worker.load(INFER, False)
        graphs = []
        self.assertTrue(same(rt.run(meta, fn, recording(graphs))["outputs"], rt.run(meta, fn)["outputs"]))
        self.assertEqual(graphs, [])


if __name__ == "__main__":
    unittest.main()
