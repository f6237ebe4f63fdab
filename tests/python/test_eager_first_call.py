"""Unit tests of runners/python/eager_first_call.py: graphs run eagerly only
inside window(), the warm-up's first call is made again compiled when eager
rejects it, and a program with graph breaks builds its kernels in one g++ run.

    .venv/bin/python -m unittest discover -s tests/python
"""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eager_first_call  # noqa: E402
from test_one_kernel_module import counted_builds  # noqa: E402

HAS_DYNAMO = hasattr(torch, "compile") and hasattr(torch, "_dynamo")


def off_by_one(gm, example_inputs):
    """A 'compiler' whose graphs are told apart from eager ones: one more."""
    def run(*args):
        return [t + 1 for t in gm(*args)]
    return run


class WarmUp(unittest.TestCase):
    def test_the_first_call_is_in_the_window_the_others_not(self):
        seen = []
        eager_first_call.warm_up(lambda: seen.append(eager_first_call._open), 3)
        self.assertEqual(seen, [True, False, False])

    def test_a_first_call_eager_rejects_is_made_again_compiled(self):
        seen = []

        def call():
            seen.append(eager_first_call._open)
            if eager_first_call._open:
                raise RuntimeError("eager rejects it")
        eager_first_call.warm_up(call, 2)
        self.assertEqual(seen, [True, False, False])

    def test_no_warm_up_no_window(self):
        seen = []
        eager_first_call.warm_up(lambda: seen.append(1), 0)
        self.assertEqual(seen, [])

    def test_without_eager_first_every_call_is_compiled(self):
        seen = []
        eager_first_call.warm_up(lambda: seen.append(eager_first_call._open), 2, eager_first=False)
        self.assertEqual(seen, [False, False])


@unittest.skipUnless(HAS_DYNAMO, "needs PyTorch 2.x")
class FirstCallEager(unittest.TestCase):
    def tearDown(self):
        torch._dynamo.reset()

    def test_graphs_run_eagerly_only_inside_the_window(self):
        def f(x):
            y = x * 2
            if bool(y.sum() > 0):  # a graph break: two graphs
                y = y + 3
            return y - 1
        x = torch.ones(3)
        compiled = torch.compile(f, backend=eager_first_call.Backend(off_by_one))
        with eager_first_call.window():
            self.assertTrue(torch.equal(compiled(x), f(x)))
        self.assertTrue(torch.equal(compiled(x), f(x) + 2), "both graphs compiled outside")

    def test_dynamo_names_it_as_the_backend_it_wraps(self):
        import shared_trace
        inductor = eager_first_call.Backend(shared_trace.backend("inductor"))
        self.assertEqual(inductor.__name__, "inductor")  # "BackendCompilerFailed: backend='inductor' raised"
        self.assertEqual(inductor.compiler_name, "inductor")

    def test_one_build_for_a_program_with_graph_breaks(self):
        sys.argv = sys.argv[:1]
        import worker  # its settings: kernels built on their first call
        worker.configure_torch()
        torch.compile(lambda t: t + 1)(torch.ones(3))  # the process's first compile builds more than kernels

        def program(x, w):  # arithmetic only (see test_one_kernel_module.py)
            a = x * w + 1
            s = a.sum().item()  # graph break
            c = a * s * w
            if bool(c.sum() > 0):  # graph break
                c = c * 2
            return (c * c).sum(1)
        # Small integers: .item() is the same float eager and compiled (Dynamo
        # specializes on it: another value would recompile the resumed graph).
        torch.manual_seed(0)
        x = torch.randint(-2, 3, (8, 8)).float()
        w = torch.randint(-2, 3, (8, 8)).float()
        compiled = worker.RUNNERS["inductor"](None, program)
        with counted_builds() as builds:
            eager_first_call.warm_up(lambda: compiled(x, w), 2)
            got = compiled(x, w)
        self.assertTrue(torch.equal(got, program(x, w)))
        self.assertEqual(len(builds), 1, "every graph's kernels in one build")

    def test_one_build_for_the_forward_and_backward_graphs_of_a_training_step(self):
        sys.argv = sys.argv[:1]
        import worker
        worker.configure_torch()
        torch.compile(lambda t: t + 1)(torch.ones(3))

        def program(x, w):
            a = x * w + 1  # arithmetic only (see test_one_kernel_module.py)
            s = a.sum().item()  # graph break: two forward graphs, two backward graphs
            return (a * s * w).sum()
        torch.manual_seed(0)
        x = torch.randint(-2, 3, (8, 8)).float()
        w0 = torch.randint(-2, 3, (8, 8)).float()
        compiled = worker.RUNNERS["inductor"](None, program)

        def step(fn):
            w = w0.clone().requires_grad_(True)
            fn(x, w).backward()
            return w.grad
        with counted_builds() as builds:
            eager_first_call.warm_up(lambda: step(compiled), 2)
            got = step(compiled)
        self.assertTrue(torch.allclose(got, step(program)))
        self.assertEqual(len(builds), 1, "the backward graphs' kernels join the forward graphs' build")


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(HAS_DYNAMO, "needs PyTorch 2.x")
class ProgramAlone(unittest.TestCase):
    """worker.run_one (a batch's finding confirmed, `dlfuzz run`, the reducer)
    compiles every call, as a user's run does."""

    def tearDown(self):
        torch._dynamo.reset()

    def test_a_synthetic_base_the_eager_first_call_would_miscompile_runs(self):
        # c77 bug 4, reduced: v2 a view of v1, v1 mutated after a graph break.
        # Traced from eager's v1 (a tensor of its own) the graph after the
        # break takes v1 as the synthetic base; compiled code returns v1 as a
        # view of a flat buffer, whose base the compiled graph then refuses.
        sys.argv = sys.argv[:1]
        import worker
        worker.configure_torch()
        source = (
            "def program(x0, x1, x2, x3):\n"
            "    v1 = torch.log_softmax(x0, dim=-2)\n"
            "    v2 = torch.select(v1, dim=-2, index=2)\n"
            "    v3 = torch.argsort(x1, dim=-1, stable=True)\n"
            "    v4 = torch.nonzero(torch.lt(v3, 2))\n"
            "    v1[v3] = x2\n"
            "    v5 = torch.mm(v2, x3)\n"
            "    return (x0, v5)\n")
        inputs = [[shape, "torch.float32", "zeros", -1.0, 1.0, "contiguous", -1, 0]
                  for shape in ([2, 5, 1], [2], [], [1, 1])]
        program = {"device": "cpu", "function": source, "function_fp64": source, "inputs": inputs,
                   "params": [], "plan": "none", "seed": 77021, "train": None, "world": 1}
        got = worker.run_one("inductor", program, 2)
        self.assertEqual(got["status"], "ok", got["error"])
