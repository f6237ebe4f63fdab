"""Unit tests of runners/python/dlfuzz_runtime.py, the runtime the Python worker imports and
the emitted repro inlines. Plain unittest (no pytest), so they run on any PyTorch from 1.13 on:
ctest runs them with the project's .venv (PyTorch 2.x) and with Debian's python3 (torch 1.13).

    .venv/bin/python -m unittest discover -s tests/python
"""
import contextlib
import io
import math
import os
import sys
import unittest
from unittest import mock

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import dlfuzz_runtime as rt  # noqa: E402


def meta(inputs, params=(), train=None, float64=False, seed=42, world=1, plan="none"):
    return rt.ProgramMeta(seed, "cpu", world, plan, inputs, list(params), train, float64)


# (shape, dtype, init, lo, hi, layout, shard_dim, whole), as the emitter writes them.
X = ([4, 3], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)
W = ([3, 2], torch.float32, "normal", 0.0, 0.5, "contiguous", -1, 0)

# A tiny program as the emitter writes it: matmul, then (training) an MSE loss.
INFER_SRC = """def program(x0, w0):
    v1 = torch.matmul(x0, w0)
    v2 = torch.tanh(v1)
    return (v2,)
"""
TRAIN_SRC = """def program(x0, w0):
    v1 = torch.matmul(x0, w0)
    v2 = torch.tanh(v1)
    v3 = torch.mean(torch.mul(v2, v2))
    return (v2, v3)
"""


class _FakeWorld:
    """Makes _dlfuzz_world/_dlfuzz_rank report a world without a process group."""

    def __init__(self, world, rank):
        self.world, self.rank = world, rank

    def __enter__(self):
        self.saved = rt._dlfuzz_world, rt._dlfuzz_rank
        rt._dlfuzz_world, rt._dlfuzz_rank = (lambda: self.world), (lambda: self.rank)

    def __exit__(self, *exc):
        rt._dlfuzz_world, rt._dlfuzz_rank = self.saved


class BuildInputs(unittest.TestCase):
    def test_deterministic_and_seeded(self):
        a = rt.build_inputs(meta([X, W]))
        b = rt.build_inputs(meta([X, W]))
        for x, y in zip(a, b):
            self.assertTrue(torch.equal(x, y))
        self.assertFalse(torch.equal(a[0], rt.build_inputs(meta([X, W], seed=43))[0]))
        # The input's index is part of the formula: the same spec twice gives other values.
        c = rt.build_inputs(meta([X, X]))
        self.assertFalse(torch.equal(c[0], c[1]))

    def test_uniform_range_dtype_and_layouts(self):
        x, = rt.build_inputs(meta([X]))
        self.assertEqual(x.dtype, torch.float32)
        self.assertEqual(list(x.shape), [4, 3])
        self.assertTrue(bool((x >= -2).all()) and bool((x < 2).all()))
        ints, = rt.build_inputs(meta([([5], torch.int64, "uniform", 0.0, 10.0, "contiguous", -1, 0)]))
        self.assertEqual(ints.dtype, torch.int64)
        zeros, ones = rt.build_inputs(meta([([2], torch.float32, "zeros", 0.0, 0.0, "contiguous", -1, 0),
                                            ([2], torch.float32, "ones", 0.0, 0.0, "contiguous", -1, 0)]))
        self.assertEqual(zeros.tolist(), [0.0, 0.0])
        self.assertEqual(ones.tolist(), [1.0, 1.0])
        cl, st = rt.build_inputs(meta([([1, 2, 3, 3], torch.float32, "uniform", -1.0, 1.0, "channels_last", -1, 0),
                                       ([3, 4], torch.float32, "uniform", -1.0, 1.0, "strided", -1, 0)]))
        self.assertTrue(cl.is_contiguous(memory_format=torch.channels_last))
        self.assertFalse(st.is_contiguous())

    def test_json_spelling(self):
        # The worker's metadata: dtypes as strings, non-finite floats as strings.
        m = rt.ProgramMeta.from_json({"seed": 1, "device": "cpu", "world": 1, "plan": "none", "params": [],
                                      "inputs": [[[2], "torch.float16", "uniform", "-inf", 1.0, "contiguous", -1, 0]],
                                      "train": ["sgd", 0.1, 0, 0, 2]})
        self.assertEqual(m.inputs[0][1], torch.float16)
        self.assertEqual(m.inputs[0][3], -math.inf)
        self.assertEqual(m.train, ("sgd", 0.1, 0.0, 0.0, 2, ()))  # no flags: a 5-tuple

    def test_even_shards(self):
        spec = ([2, 3], torch.float32, "uniform", -1.0, 1.0, "contiguous", 0, 0)
        whole, = rt.build_inputs(meta([([4, 3],) + spec[1:6] + (-1, 0)]))
        for rank in range(2):
            with _FakeWorld(2, rank):
                part, = rt.build_inputs(meta([spec], world=2))
            self.assertTrue(torch.equal(part, whole[2 * rank:2 * rank + 2]))

    def test_uneven_shards_split_as_tensor_split(self):
        # shard(0,7) over 3 ranks: sizes 3, 2, 2, the slices torch.tensor_split gives.
        spec = ([3, 2], torch.float32, "uniform", -1.0, 1.0, "contiguous", 0, 7)
        whole, = rt.build_inputs(meta([([7, 2],) + spec[1:6] + (-1, 0)]))
        expected = torch.tensor_split(whole, 3, 0)
        for rank in range(3):
            with _FakeWorld(3, rank):
                part, = rt.build_inputs(meta([spec], world=3))
            self.assertEqual(part.shape[0], [3, 2, 2][rank])
            self.assertTrue(torch.equal(part, expected[rank]))

    def test_zero_slices(self):
        # ZeRO's slices of a flattened param: uneven, empty on late ranks of small params.
        self.assertEqual([rt._dlfuzz_slice(5, r, 2) for r in range(2)], [(0, 3), (3, 5)])
        self.assertEqual([rt._dlfuzz_slice(1, r, 3) for r in range(3)], [(0, 1), (1, 1), (1, 1)])


class MaxDiff(unittest.TestCase):
    def test_rules(self):
        t = torch.tensor
        nan, inf = float("nan"), float("inf")
        self.assertEqual(rt.max_diff(None, None), 0.0)
        self.assertEqual(rt.max_diff(t([1.0]), None), inf)
        self.assertEqual(rt.max_diff(t([1.0, 2.0]), t([1.0])), inf)  # shape
        self.assertEqual(rt.max_diff(t([1.0]), t([1.0], dtype=torch.float64)), inf)  # dtype
        self.assertEqual(rt.max_diff(torch.empty(0), torch.empty(0)), 0.0)
        self.assertAlmostEqual(rt.max_diff(t([1.0, 2.0]), t([1.5, 2.0])), 0.5)
        self.assertEqual(rt.max_diff(t([nan, 1.0]), t([nan, 1.0])), 0.0)  # NaN equals NaN
        self.assertEqual(rt.max_diff(t([nan]), t([1.0])), inf)  # NaN against a number
        self.assertEqual(rt.max_diff(t([inf, -inf]), t([inf, -inf])), 0.0)  # the same infinity
        self.assertEqual(rt.max_diff(t([inf]), t([-inf])), inf)
        self.assertEqual(rt.max_diff(t([inf]), t([1.0])), inf)


# What torch 2.15's Dynamo counted when FakeTensor propagation of layer_norm
# under torch.func.jvp raised (counters["unimplemented"], 2026-12-07; the
# "For more details" line shortened), and the same for a data-dependent size.
_FAKE_PROP_REASON = (
    "Observed exception\n  Explanation: Dynamo found no exception handler at the top-level compiled function when"
    " encountering an exception. Exception will propagate outside the compiled region.\n\n  Developer debug context:"
    " raised exception RuntimeError('Dynamo failed to run FX node with fake tensors: call_function <function"
    " layer_norm at 0x7f796e0139c0>(*(GradTrackingTensor(lvl=1, value=\\n    FakeTensor(..., size=(3, 2))\\n), [2],"
    " FakeTensor(..., size=(2,))), **{}): got RuntimeError(\\'InferenceMode::is_enabled() && self.is_inference()"
    " INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/VariableMethodStubs.cpp\":66, please"
    " report a bug to PyTorch. Expected this method to only be reached in inference mode.\\')')\n\n For more details")
_DATA_DEPENDENT_REASON = (
    "Observed exception\n  Developer debug context: raised exception RuntimeError('Dynamo failed to run FX node with"
    " fake tensors: call_method item(*(FakeTensor(..., size=()),), **{}): got DataDependentOutputException(aten."
    "_local_scalar_dense.default)')")


@unittest.skipUnless(hasattr(torch, "_dynamo"), "Dynamo needs PyTorch 2.x")
class FakePropErrors(unittest.TestCase):
    def setUp(self):
        torch._dynamo.utils.counters.clear()

    tearDown = setUp

    def test_names_the_op_and_the_error_dynamo_caught(self):
        torch._dynamo.utils.counters["unimplemented"][_FAKE_PROP_REASON] += 1
        torch._dynamo.utils.counters["graph_break"][_FAKE_PROP_REASON] += 1  # counted twice: reported once
        self.assertEqual(rt.fake_prop_errors(), [
            "layer_norm: RuntimeError: InferenceMode::is_enabled() && self.is_inference() INTERNAL ASSERT FAILED at"
            " \"/__w/pytorch/pytorch/aten/src/ATen/native/VariableMethodStubs.cpp\":66, please report a bug to"
            " PyTorch. Expected this method to only be reached in inference mode."])

    def test_data_dependent_sizes_and_plain_graph_breaks_are_not_errors(self):
        torch._dynamo.utils.counters["unimplemented"][_DATA_DEPENDENT_REASON] += 1
        torch.compile(lambda x: print("a graph break") or x.sin(), backend="eager")(torch.ones(2))
        self.assertTrue(torch._dynamo.utils.counters["graph_break"], "the print broke the graph")
        self.assertEqual(rt.fake_prop_errors(), [])


@unittest.skipUnless(hasattr(torch, "compiler") and hasattr(torch.compiler, "nested_compile_region"),
                     "nested compile regions need PyTorch 2.x")
class DefineProgram(unittest.TestCase):
    # A program's nested compile regions are module-level functions that
    # Dynamo reaches through an import of the program's module by name, kept
    # in the compiling frame's globals (`__import_<name>`): programs defined
    # one after another in one worker, as a campaign does, each need a module
    # name of their own. (With one name, the second compile failed: "module
    # 'dlfuzz_program' has no attribute '_region_v3'".)
    SOURCE = ("@torch.compiler.nested_compile_region\n"
              "def _region_v{n}(h):\n"
              "    return (h * {k},)\n\n\n"
              "def program(x):\n"
              "    (h,) = _region_v{n}(x)\n"
              "    (h,) = _region_v{n}(h)\n"
              "    return (h,)\n")

    def test_programs_defined_one_after_another_each_reach_their_regions(self):
        for n, k in ((16, 2), (3, 3), (16, 5)):
            fn = rt.define_program(self.SOURCE.format(n=n, k=k))
            out = torch.compile(lambda x, fn=fn: fn(x), backend="eager")(torch.ones(2))[0]
            self.assertEqual(out.tolist(), [k * k, k * k])


class Run(unittest.TestCase):
    def test_inference(self):
        m = meta([X, W])
        got = rt.run(m, rt.define_program(INFER_SRC))
        x, w = rt.build_inputs(m)
        self.assertEqual(len(got["outputs"]), 1)
        self.assertTrue(torch.allclose(got["outputs"][0], torch.tanh(x @ w)))
        self.assertEqual(got["losses"], [])
        self.assertEqual(got["grads"], [])

    def test_training_steps_update_params(self):
        m = meta([X, W], params=[1], train=("sgd", 0.5, 0.0, 0.0, 3))
        got = rt.run(m, rt.define_program(TRAIN_SRC))
        self.assertEqual(len(got["losses"]), 3)
        self.assertLess(got["losses"][-1], got["losses"][0])  # SGD on a mean of squares goes down
        self.assertEqual(len(got["grads"]), 1)
        self.assertEqual(got["grads"][0].shape, torch.Size([3, 2]))
        _, w0 = rt.build_inputs(m)
        self.assertFalse(torch.equal(got["params"][0], w0))
        # Deterministic, and Adam/AdamW run too.
        self.assertEqual(rt.run(m, rt.define_program(TRAIN_SRC))["losses"], got["losses"])
        for opt in ("adam", "adamw", "rmsprop", "adagrad"):
            r = rt.run(meta([X, W], params=[1], train=(opt, 0.01, 0.0, 0.01, 2)), rt.define_program(TRAIN_SRC))
            self.assertEqual(len(r["losses"]), 2)
        # The flags: each optimizer made with them, and foreach steps as the for-loop does.
        for train in (("adam", 0.01, 0.0, 0.01, 2, ("amsgrad", "foreach")), ("sgd", 0.1, 0.9, 0.0, 2, ("nesterov",)),
                      ("adamw", 0.01, 0.0, 0.01, 2, ("amsgrad",))):
            opt = rt._make_optimizer(rt.ProgramMeta(1, "cpu", 1, "none", [], [], train).train, [torch.zeros(2)])
            for flag in ("amsgrad", "nesterov", "foreach"):
                if flag in opt.defaults:
                    self.assertEqual(bool(opt.defaults[flag]), flag in train[5], (train, flag))
        loop = rt.run(meta([X, W], params=[1], train=("rmsprop", 0.01, 0.0, 0.01, 2)), rt.define_program(TRAIN_SRC))
        fe = rt.run(meta([X, W], params=[1], train=("rmsprop", 0.01, 0.0, 0.01, 2, ("foreach",))),
                    rt.define_program(TRAIN_SRC))
        self.assertTrue(torch.allclose(loop["params"][0], fe["params"][0], rtol=1e-6, atol=1e-7))
        # The gradients are the backward's, whatever the step writes into them
        # (torch 1.13's foreach Adagrad adds the weight decay in place).
        one_step = [rt.run(meta([X, W], params=[1], train=("adagrad", 0.1, 0.0, 0.5, 1, flags)),
                           rt.define_program(TRAIN_SRC))["grads"][0] for flags in ((), ("foreach",))]
        self.assertTrue(torch.equal(*one_step))

    def test_missing_and_zero_gradients_step_alike(self):
        # w0's gradient is all zeros (defined), w1 gets none (unused): both get a zero
        # gradient before the step, so weight decay (and momentum, Adam's moments)
        # treat them the same, whatever autograd materialized.
        src = """def program(x0, w0, w1):
    v1 = torch.mul(torch.mul(x0, 0.0), w0)
    return (v1, torch.sum(v1))
"""
        ones = ([3, 2], torch.float32, "ones", 0.0, 0.0, "contiguous", -1, 0)
        x = ([3, 2], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)
        for train in (("sgd", 0.5, 0.9, 0.1, 2), ("adam", 0.1, 0.0, 0.1, 2), ("adamw", 0.1, 0.0, 0.1, 2),
                      ("rmsprop", 0.1, 0.9, 0.1, 2), ("adagrad", 0.1, 0.0, 0.1, 2)):
            got = rt.run(meta([x, ones, ones], params=[1, 2], train=train), rt.define_program(src))
            for g in got["grads"]:  # reported as zeros on every side, never None
                self.assertIsNotNone(g)
                self.assertTrue(torch.equal(g, torch.zeros(3, 2)))
            w0, w1 = got["params"]
            self.assertTrue(torch.equal(w0, w1), train[0])
            self.assertFalse(torch.equal(w0, torch.ones(3, 2)), train[0])  # weight decay applied
        # SGD's first step on a zero gradient: w - lr * wd * w.
        got = rt.run(meta([x, ones, ones], params=[1, 2], train=("sgd", 0.5, 0.0, 0.1, 1)), rt.define_program(src))
        self.assertTrue(torch.allclose(got["params"][1], torch.full((3, 2), 0.95)))

    def test_float64_flag(self):
        m64 = meta([X, W], params=[1], train=("sgd", 0.5, 0.0, 0.0, 2), float64=True)
        got = rt.run(m64, rt.define_program(TRAIN_SRC))
        self.assertEqual(got["outputs"][0].dtype, torch.float64)
        self.assertEqual(got["grads"][0].dtype, torch.float64)
        self.assertEqual(got["params"][0].dtype, torch.float64)
        self.assertEqual(torch.get_default_dtype(), torch.float32)  # restored after the run
        # Built in float64 from the same float64 formula: float32's values, less rounding.
        x32, = rt.build_inputs(meta([X]))
        x64, = rt.build_inputs(meta([X], float64=True))
        self.assertEqual(x64.dtype, torch.float64)
        self.assertTrue(torch.allclose(x64.float(), x32))
        ints, = rt.build_inputs(meta([([3], torch.int32, "uniform", 0.0, 5.0, "contiguous", -1, 0)], float64=True))
        self.assertEqual(ints.dtype, torch.int32)  # only floating inputs change
        # The default dtype is float64 during the run: a Python float makes a float64 tensor.
        src = "def program(x0):\n    return (torch.tensor(0.5) + x0.sum(),)\n"
        self.assertEqual(rt.run(meta([X], float64=True), rt.define_program(src))["outputs"][0].dtype, torch.float64)

    def test_to_json_and_compiled_eager(self):
        fn = rt.define_program(INFER_SRC)
        self.assertIs(rt.compiled(fn, "eager"), fn)
        j = rt.to_json(rt.run(meta([X, W]), fn))
        self.assertEqual(j["outputs"][0]["shape"], [4, 2])
        self.assertEqual(j["outputs"][0]["dtype"], "torch.float32")
        self.assertEqual(len(j["outputs"][0]["values"]), 8)


    def test_fail_above_is_the_exit_status(self):
        # The repro as compiler_bisector's predicate: exit 1 only past --fail-above.
        fn = rt.define_program(INFER_SRC)

        def off_by_a_tenth(x0, w0):
            return tuple(v + 0.1 for v in fn(x0, w0))

        def repro(*argv):
            with mock.patch.object(sys, "argv", ["repro.py", *argv]), \
                    mock.patch.object(rt, "compiled", lambda f, backend, dynamic, options=None: off_by_a_tenth), \
                    contextlib.redirect_stdout(io.StringIO()):
                return rt.main(meta([X, W]), fn)

        self.assertEqual(repro(), 0)  # without the flag the repro only reports
        self.assertEqual(repro("--fail-above", "0.5"), 0)
        self.assertEqual(repro("--fail-above", "0.01"), 1)

    @unittest.skipUnless(hasattr(torch, "compile"), "torch.compile needs PyTorch 2.x")
    def test_frozen_params_are_frozen_and_read_as_eagers(self):
        # inductor-freezing: Inductor's freeze() folds the param (the program
        # writes it, so a copy is kept), and the results are eager's: the
        # outputs, and the param with what the program left in it, every call.
        # Arithmetic only: Sleef's vector math needs libtorch loaded
        # RTLD_GLOBAL, which `unittest discover` cannot promise.
        src = """def program(x0, w0):
    v1 = w0.mul_(2.0)
    v2 = torch.matmul(x0, v1)
    return (v2 * 3.0 + 1.0,)
"""
        fn = rt.define_program(src)
        m = meta([X, W], params=[1])
        want = rt.run(m, fn)
        import torch._inductor.freezing as freezing
        freeze = freezing.freeze
        with mock.patch.object(freezing, "freeze", side_effect=freeze) as spy:
            frozen = rt.frozen(fn, m.params)
            for _ in range(2):
                got = rt.run(m, frozen)
                for key in ("outputs", "params"):
                    for a, b in zip(want[key], got[key]):
                        self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6), key)
        self.assertEqual(spy.call_count, 1)
        torch._dynamo.reset()

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_vmapped_gives_the_first_sample_of_a_batch_with_params_shared(self):
        # vmap and inductor-vmap: the data inputs batched with their own values
        # in another order, the params not batched; the first sample is what
        # the program gives alone, eagerly and compiled. Arithmetic only (Sleef's
        # vector math needs libtorch loaded RTLD_GLOBAL, as above).
        seen = []

        def fn(x0, w0):
            seen.append((x0.shape, w0.shape))
            return (torch.relu(torch.matmul(x0, w0)), x0.sum())
        m = meta([X, W], params=[1])
        want = rt.run(m, fn)
        for compile in (None, torch.compile):
            torch._dynamo.reset()
            got = rt.run(m, rt.vmapped(m, fn, compile=compile))
            for a, b in zip(want["outputs"], got["outputs"]):
                self.assertEqual(a.shape, b.shape)
                self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6))
        self.assertEqual(seen[1], (torch.Size([4, 3]), torch.Size([3, 2])), "per-sample shapes inside vmap")
        x = torch.arange(12.0).reshape(3, 4)
        other = rt._dlfuzz_shuffled(x, torch.Generator().manual_seed(1))
        self.assertEqual(sorted(other.flatten().tolist()), x.flatten().tolist(), "the same values")
        self.assertFalse(torch.equal(other, x), "in another order")
        torch._dynamo.reset()

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_forward_mode_gives_the_outputs_and_their_tangents_that_reverse_mode_gives(self):
        # jvp, inductor-jvp and jacfwd against their reference: the outputs, then
        # J·u for each, by forward mode (eagerly, compiled, and under vmap over a
        # batch of tangents) and by reverse mode twice; an integer output's
        # tangent is zeros. Arithmetic only (Sleef, as above).
        def fn(x0, w0, i0):
            y = torch.matmul(x0 * x0, w0)
            return (torch.relu(y), x0.sum(), i0 + 1)
        m = meta([X, W, ([2], torch.int64, "uniform", 0.0, 5.0, "contiguous", -1, 0)], params=[1])
        want = rt.run(m, rt.reverse_mode_jvp(m, fn))["outputs"]
        self.assertEqual(len(want), 6, "three outputs, then three tangents")
        x, w = rt.build_inputs(m)[:2]
        u = rt.jvp_tangents(m, rt.build_inputs(m))
        self.assertIsNone(u[2], "no tangent for an integer input")
        y = torch.matmul(x * x, w)
        by_hand = (torch.matmul(2 * x * u[0], w) + torch.matmul(x * x, u[1])) * (y > 0)
        self.assertTrue(torch.allclose(want[3], by_hand, rtol=1e-5, atol=1e-6))
        self.assertTrue(torch.allclose(want[4], u[0].sum(), rtol=1e-5, atol=1e-6))
        self.assertTrue(torch.equal(want[5], torch.zeros(2, dtype=torch.int64)))
        for compile, batched in ((None, False), (torch.compile, False), (None, True)):
            torch._dynamo.reset()
            got = rt.run(m, rt.forward_mode(m, fn, compile=compile, batched=batched))["outputs"]
            for a, b in zip(want, got):
                self.assertEqual((a.shape, a.dtype), (b.shape, b.dtype))
                self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6))
        torch._dynamo.reset()

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_a_float64_tangent_of_a_float32_output_is_judged_in_its_dtype(self):
        # pytorch#90065 (open): x + 0.5 of a 0-dim float32 x has a float64
        # tangent under torch.func.jvp. The jvp runners judge its values in
        # the output's dtype; should PyTorch fix it, the first check says so.
        x = torch.zeros(())
        _, tangent = torch.func.jvp(lambda x: x + 0.5, (x,), (torch.ones(()),))
        self.assertEqual(tangent.dtype, torch.float64, "fixed upstream? then _dlfuzz_tangent_of's cast can go")

        def fn(x0):
            return (x0 + 0.5,)
        m = meta([([], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)])
        got = rt.run(m, rt.forward_mode(m, fn))["outputs"]
        self.assertEqual([t.dtype for t in got], [torch.float32, torch.float32])
        want = rt.run(m, rt.reverse_mode_jvp(m, fn))["outputs"]
        self.assertTrue(torch.equal(got[1], want[1]))

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_finite_differences_give_the_tangents_forward_mode_gives(self):
        # py-eager64-jvp: central differences in float64, the arbiter.
        def fn(x0, w0):
            return (torch.tanh(torch.matmul(x0, w0)) * x0.sum(),)
        m = meta([X, W], params=[1], float64=True)
        want = rt.run(m, rt.forward_mode(m, fn))["outputs"]
        got = rt.run(m, rt.finite_difference_jvp(m, fn))["outputs"]
        self.assertEqual(got[1].dtype, torch.float64)
        self.assertTrue(torch.allclose(want[1], got[1], rtol=1e-7, atol=1e-8))

    def test_finite_differences_find_no_derivative_at_a_kink_or_a_jump(self):
        # The arbiter's NaN: the program has no derivative at x in direction
        # u, so no runner's tangent is wrong there. Smooth functions keep
        # their central quotient, steep ones too (1/x at 0.01: f'' = 200 f').
        def quotient(f, x, u=1.0, step=1e-6):
            x = torch.tensor(x, dtype=torch.float64)
            return rt._dlfuzz_directional_derivative(f(x), f(x + step * u), f(x - step * u), step).item()
        self.assertAlmostEqual(quotient(torch.tanh, 0.3), 1 - math.tanh(0.3) ** 2, places=7)
        self.assertAlmostEqual(quotient(torch.reciprocal, 0.01), -1e4, delta=1e-2)
        self.assertAlmostEqual(quotient(torch.abs, 0.5, -0.25), -0.25, places=7)
        self.assertTrue(math.isnan(quotient(torch.abs, 0.0)), "a kink: the slopes -1 and 1")
        self.assertTrue(math.isnan(quotient(torch.abs, 0.0, 0.01)), "a small one")
        self.assertTrue(math.isnan(quotient(torch.floor, 2.0)), "a jump")
        self.assertTrue(math.isnan(quotient(lambda x: torch.atan2(x, x), 0.0)), "atan2 at (0, 0)")
        self.assertEqual(quotient(torch.floor, 2.5), 0.0, "flat")
        self.assertAlmostEqual(quotient(torch.exp, 40.0), math.exp(40.0), delta=math.exp(40.0) * 1e-6)

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_second_directional_derivatives_by_nested_jvp_reverse_mode_and_differences(self):
        # jvp2 (eagerly and compiled), its reference (reverse mode four times deep) and its arbiter
        # (second differences in float64) against d²/dt² f(x + t·u, w + t·v)
        # by hand: (x²·w)'' = 2u²w + 4xuv, g(x) = x / (1 + x²) has
        # g'' = (2x³ - 6x) / (1 + x²)³ times u², and an integer output's is
        # zeros. Arithmetic only (Sleef, as above).
        same = ([4, 3], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)

        def fn(x0, w0, i0):
            return (x0 * x0 * w0, x0 / (1 + x0 * x0), i0 + 1)
        for float64 in (False, True):
            m = meta([same, same, ([2], torch.int64, "uniform", 0.0, 5.0, "contiguous", -1, 0)], params=[1],
                     float64=float64)
            x, w = rt.build_inputs(m)[:2]
            u, v = rt.jvp_tangents(m, rt.build_inputs(m))[:2]
            by_hand = (2 * u * u * w + 4 * x * u * v, (2 * x ** 3 - 6 * x) / (1 + x * x) ** 3 * u * u)
            torch._dynamo.reset()
            runs = [rt.forward_mode(m, fn, order=2), rt.reverse_mode_jvp(m, fn, order=2),
                    rt.forward_mode(m, fn, compile=torch.compile, order=2)]
            if float64:
                runs = [rt.finite_difference_jvp(m, fn, order=2)]
            for run in runs:
                got = rt.run(m, run)["outputs"]
                self.assertEqual(len(got), 6)
                for want, second in zip(by_hand, got[3:5]):
                    tol = 1e-6 if float64 else 1e-4
                    self.assertTrue(torch.allclose(want, second, rtol=tol, atol=tol), (want, second))
                self.assertTrue(torch.equal(got[5], torch.zeros(2, dtype=torch.int64)))

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_an_error_of_forward_mode_alone_is_judged_not_skipped(self):
        # Nested jvp of an in-place add on a one-element tensor whose second
        # tangent is a ZeroTensor raises "ZeroTensors are immutable" (PyTorch
        # 2.15; not for two elements). That is no stated limit of forward mode,
        # so the references compute the second derivative (0) without it and
        # jvp2 is judged, and fails; an op without a forward formula is still
        # a program no one judges.
        def fn(x0):
            return ((x0 * 2).add_(1.0),)
        m = meta([([1], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)])
        with self.assertRaisesRegex(RuntimeError, "ZeroTensors are immutable", msg="fixed upstream?"):
            rt.run(m, rt.forward_mode(m, fn, order=2))
        want = rt.run(m, rt.reverse_mode_jvp(m, fn, order=2))["outputs"]
        self.assertTrue(torch.equal(want[1], torch.zeros(1)))
        m64 = meta([([1], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0)], float64=True)
        self.assertLess(rt.run(m64, rt.finite_difference_jvp(m64, fn, order=2))["outputs"][1].abs().item(), 1e-6)

    def test_second_differences_find_no_second_derivative_at_a_kink(self):
        def second(f, x, u=1.0, step=1e-3):
            x = torch.tensor(x, dtype=torch.float64)
            at = [f(x + k * step * u) for k in (0, 1, -1, 2, -2)]
            return rt._dlfuzz_second_derivative(*at, step).item()
        self.assertAlmostEqual(second(torch.tanh, 0.3), -2 * math.tanh(0.3) * (1 - math.tanh(0.3) ** 2), places=9)
        self.assertAlmostEqual(second(torch.exp, 3.0, 0.5), 0.25 * math.exp(3.0), places=7)
        self.assertAlmostEqual(second(torch.reciprocal, 0.05), 2 / 0.05 ** 3, delta=1.0)
        self.assertTrue(math.isnan(second(torch.abs, 0.0)), "a kink: 2/h")
        self.assertTrue(math.isnan(second(torch.abs, 0.0005)), "within 2h of one")
        self.assertAlmostEqual(second(torch.relu, 1.0), 0.0, places=6)

    @unittest.skipUnless(hasattr(torch, "func"), "torch.func needs PyTorch 2.x")
    def test_forward_mode_takes_the_first_tangent_set_it_supports(self):
        # batch_norm refuses a tangent on its running statistics (params here):
        # every runner then gives tangents to the data inputs alone; an op with
        # no forward formula on the data fails the reference as it fails jvp.
        stats = ([3], torch.float32, "uniform", 0.5, 1.5, "contiguous", -1, 0)

        def norm(x0, w0, w1):
            return (torch.nn.functional.batch_norm(x0, w0, w1, training=False),)
        m = meta([X, stats, stats], params=[1, 2])
        forward = rt.forward_mode(m, norm)
        got = rt.run(m, forward)["outputs"]
        self.assertEqual(rt.TANGENT_SETS[forward.state["set"]], "the float data inputs")
        want = rt.run(m, rt.reverse_mode_jvp(m, norm))["outputs"]
        for a, b in zip(want, got):
            self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6))
        self.assertFalse(torch.equal(got[1], torch.zeros_like(got[1])), "the data's tangent reaches the output")

        def floor_div(x0, w0, w1):
            return (torch.floor_divide(x0, w0) + w1,)
        with self.assertRaises(NotImplementedError):
            rt.run(m, rt.reverse_mode_jvp(m, floor_div))

    @unittest.skipUnless(hasattr(torch, "compile"), "torch.compile needs PyTorch 2.x")
    def test_inductor_knobs_are_configs_drawn_from_the_seed_and_compile_together(self):
        # inductor-knobs: every knob is a config of this PyTorch with a value
        # off its default; the draw is four of them and the seed's alone; and
        # a program compiled with all of them at once computes what eager does.
        # All but cpp_wrapper: its module needs libtorch loaded RTLD_GLOBAL, as
        # the worker and the repro load it and `unittest discover` cannot.
        config = torch._inductor.config
        for name, value in rt.INDUCTOR_KNOBS:
            self.assertIn(name, config.get_config_copy(), name)
            self.assertNotEqual(config._config[name].default, value, name)
        draws = [rt.inductor_knobs(seed) for seed in range(20)]
        self.assertTrue(all(len(d) == 4 for d in draws))
        self.assertEqual(draws[3], rt.inductor_knobs(3))
        self.assertGreater(len({tuple(sorted(d)) for d in draws}), 15)
        # inductor-knob-N: the N-th of the same draw, alone
        self.assertEqual([rt.inductor_knobs(3, only=n) for n in range(1, 5)], [dict([k]) for k in draws[3].items()])
        self.assertEqual(rt.knobs_text({"cpp.simdlen": 0, "cpp_wrapper": True}), "cpp.simdlen=0, cpp_wrapper=True")
        src = """def program(x0, w0):
    v1 = torch.softmax(torch.matmul(x0, w0), -1)
    return (torch.cumsum(v1 * 3.0, 0), torch.amax(v1, 0))
"""
        fn = rt.define_program(src)
        m = meta([X, ([3, 3],) + W[1:]], params=[1])
        want = rt.run(m, fn)
        torch._dynamo.reset()
        knobs = {name: value for name, value in rt.INDUCTOR_KNOBS if name != "cpp_wrapper"}
        got = rt.run(m, torch.compile(fn, options=knobs))
        for a, b in zip(want["outputs"], got["outputs"]):
            self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6))
        torch._dynamo.reset()

    @unittest.skipUnless(hasattr(torch, "export"), "torch.export needs PyTorch 2.x")
    def test_dynamic_export_runs_one_program_at_other_batches(self):
        # export-dynamic: the data inputs' dims are symbolic (the param's are
        # not), and the module exported at batch 4 runs at 5 and 9 as eager
        # does. At batch 1 export fixes the size (0/1 specialization), so a
        # call at 5 exports again, and 9 then runs that second export.
        fn = rt.define_program(INFER_SRC)
        exports = mock.Mock(wraps=torch.export.export)
        for batch, count in ((4, 1), (1, 2)):
            m = meta([([batch, 3],) + X[1:], W], params=[1])
            exports.reset_mock()
            with mock.patch.object(torch.export, "export", exports):
                call = rt.exported(m, fn, "program", dynamic=True)
                for size in (batch, 5, 9):
                    x, w = torch.rand(size, 3), torch.rand(3, 2)
                    self.assertTrue(torch.allclose(call(x, w)[0], fn(x, w)[0]), (batch, size))
            self.assertEqual(exports.call_count, count, batch)
            shapes = exports.call_args_list[0].kwargs["dynamic_shapes"][0]
            self.assertEqual(shapes[0], {0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO})
            self.assertIsNone(shapes[1])
        # A guard beyond the ranges: split's count of chunks, 2 at batch 4 and
        # 3 at 5, is a guard on the symbolic batch that the exported module
        # checks (its range alone allows 5); the call at 5 exports again.
        split = rt.define_program("""def program(x0, w0):
    parts = torch.split(x0, 2)
    return (parts[0] + 1.0, parts[1] * 2.0)
""")
        exports.reset_mock()
        with mock.patch.object(torch.export, "export", exports):
            call = rt.exported(meta([X, W], params=[1]), split, "program", dynamic=True)
            for size in (4, 5):
                x, w = torch.rand(size, 3), torch.rand(3, 2)
                for got, want in zip(call(x, w), split(x, w)):
                    self.assertTrue(torch.equal(got, want), size)
        self.assertEqual(exports.call_count, 2)

    @unittest.skipUnless(hasattr(torch, "compile"), "torch.compile needs PyTorch 2.x")
    def test_max_autotune_tunes_a_frozen_linear_and_its_template_agrees(self):
        # inductor-autotune: a linear whose weight freezing makes constant is
        # autotuned, and Inductor's C++ GEMM template, made the only choice
        # here (the runner lets the benchmark decide), computes what eager does.
        from torch._dynamo.utils import counters
        src = """def program(x0, w0):
    return (torch.nn.functional.linear(x0, w0) * 2.0 + 1.0,)
"""
        fn = rt.define_program(src)
        m = meta([([8, 16], torch.float32, "uniform", -2.0, 2.0, "contiguous", -1, 0),
                  ([32, 16], torch.float32, "normal", 0.0, 0.5, "contiguous", -1, 0)], params=[1])
        want = rt.run(m, fn)
        for backends, counter in (("ATEN,CPP", "select_algorithm_autotune"), ("CPP", "cpp_templated_kernel_counter")):
            counters.clear()
            torch._dynamo.reset()
            # Compiled and tuned here, not loaded from a warm cache of an earlier run.
            with torch._inductor.config.patch(max_autotune_gemm_backends=backends, fx_graph_cache=False,
                                              autotune_local_cache=False):
                got = rt.run(m, rt.frozen(fn, m.params, mode=rt.MAX_AUTOTUNE))
            self.assertGreaterEqual(counters["inductor"][counter], 1, backends)
            self.assertTrue(torch.allclose(want["outputs"][0], got["outputs"][0], rtol=1e-5, atol=1e-5), backends)
        torch._dynamo.reset()

    @unittest.skipUnless(hasattr(torch, "compile"), "torch.compile needs PyTorch 2.x")
    def test_compiled_autograd_compiles_the_backward_with_its_hooks(self):
        # inductor-ca: the backward of each call is traced and compiled by
        # Compiled Autograd, the hooks the forward registers on intermediates
        # with it, and the gradients the hooks change are eager's.
        from torch._dynamo.utils import counters
        src = """def program(x0, w0):
    v1 = torch.matmul(x0, w0)
    v2 = _dlfuzz_grad_hook(v1, hook='clip')
    v3 = torch.tanh(v2)
    v4 = _dlfuzz_grad_hook(v3, hook='captured', other=v1)
    v5 = torch.mean(torch.mul(v4, v4))
    return (v4, v5)
"""
        fn = rt.define_program(src)
        m = meta([X, W], params=[1], train=("sgd", 0.1, 0.0, 0.0, 1, []))
        want = rt.run(m, fn)
        counters.clear()
        torch._dynamo.reset()
        got = rt.run(m, rt.compiled_autograd(torch.compile(fn)))
        self.assertGreaterEqual(counters["compiled_autograd"]["captures"], 1)
        for key in ("outputs", "grads", "params"):
            for a, b in zip(want[key], got[key]):
                self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-6), key)
        # The hooks changed the gradient: without them it differs.
        bare = rt.run(m, rt.define_program(src.replace("_dlfuzz_grad_hook(v1, hook='clip')", "v1")))
        self.assertFalse(torch.allclose(want["grads"][0], bare["grads"][0]))
        torch._dynamo.reset()

    def test_json_float_spells_non_finite_values(self):
        self.assertEqual([rt._json_float(v) for v in (float("nan"), float("inf"), -float("inf"), -0.0, 1.5)],
                         ["nan", "inf", "-inf", -0.0, 1.5])

    def test_special_ints_decimals_inits(self):
        spec = ([64], torch.float32, "special", -2.0, 2.0, "contiguous", -1, 0)
        x, = rt.build_inputs(meta([spec]))
        table = rt._dlfuzz_special_table(torch.float32)
        outside = [v for v in x.tolist() if not -2.0 <= v <= 2.0]  # NaN included
        self.assertTrue(all(v != v or v in table for v in outside))
        self.assertTrue(0 < len(outside) < 16)
        ints, = rt.build_inputs(meta([([20], torch.float32, "ints", -4.0, 5.0, "contiguous", -1, 0)]))
        self.assertTrue(torch.equal(ints, ints.floor()))
        dec, = rt.build_inputs(meta([([20], torch.float32, "decimals", -2.0, 2.0, "contiguous", -1, 0)],
                                    float64=True))
        self.assertTrue(torch.allclose(dec * 10, (dec * 10).round()))


if __name__ == "__main__":
    unittest.main()
