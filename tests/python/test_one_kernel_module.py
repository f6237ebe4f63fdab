"""Unit tests of runners/python/one_kernel_module.py: a graph's C++ kernels
built as one shared library give what Inductor's one-library-per-kernel
build gives, in fewer g++ runs.

    .venv/bin/python -m unittest discover -s tests/python
"""
import contextlib
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import one_kernel_module  # noqa: E402

HAS_INDUCTOR = hasattr(torch, "compile") and hasattr(torch, "_inductor")

KERNEL = 'extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0)\n{ out_ptr0[0] = in_ptr0[0]; }\n'


# Arithmetic only: a kernel calling Sleef's vector math (sin, exp) needs
# libtorch loaded RTLD_GLOBAL, which the worker sets and `unittest discover`
# cannot promise (another test may import torch first).
# The matmul (an extern call) keeps what is before and after it in kernels
# of their own.
def program(x, y, z):
    a = (x + y) * (x + y)
    b = torch.relu(torch.mm(a, z) - 1.0) * 3.0
    return a.sum(1), b


class CombinedSource(unittest.TestCase):
    def test_includes_come_first_and_each_kernel_is_renamed(self):
        src = "#include <torch/csrc/inductor/cpp_prefix.h>\n" + KERNEL
        text = one_kernel_module.combined_source([(["const float*", "float*"], src), (["const float*", "float*"], src)])
        self.assertEqual(text.count("#include <torch/csrc/inductor/cpp_prefix.h>"), 1)
        self.assertLess(text.index("cpp_prefix.h"), text.index("#define kernel dlfuzz_kernel_0"))
        self.assertIn("#define kernel dlfuzz_kernel_1", text)
        self.assertIn("dlfuzz_kernel_1(parse_arg<float*>(args, 0), parse_arg<float*>(args, 1));", text)
        self.assertIn('{"kernel_1", ', text)
        self.assertIn("PyInit_kernel", text)


@contextlib.contextmanager
def counted_builds():
    """The command lines of the g++ builds of kernel modules made inside (not
    preprocessing runs), in an Inductor cache of their own."""
    from torch._inductor import cpp_builder
    builds, build = [], cpp_builder.CppBuilder.build

    def counted(self, *a, **k):
        line = self.get_command_line()
        if " -E " not in line:
            builds.append(line)
        return build(self, *a, **k)
    old_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="dlfuzz_builds_")
    cpp_builder.CppBuilder.build = counted
    try:
        yield builds
    finally:
        cpp_builder.CppBuilder.build = build
        if old_dir is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = old_dir


@unittest.skipUnless(HAS_INDUCTOR, "needs PyTorch 2.x")
class OneModulePerGraph(unittest.TestCase):
    def test_same_values_fewer_builds(self):
        from torch._inductor import codecache
        from torch._inductor.async_compile import AsyncCompile
        x, y, z = (torch.randn(8, 8) for _ in range(3))
        torch.compile(lambda t: t + 1)(x)  # the process's first compile builds more than kernels
        got = {}
        self.assertTrue(one_kernel_module.install())  # perhaps another test did already
        builders = {"own": one_kernel_module.ORIGINAL, "one": AsyncCompile.cpp_pybinding}
        try:  # builds in this process, where they are counted (not in a compile pool)
            torch._inductor.config.compile_threads = 1
            for mode in ("own", "one"):
                AsyncCompile.cpp_pybinding = builders[mode]
                torch._dynamo.reset()
                codecache.CppPythonBindingsCodeCache.cache_clear()
                with counted_builds() as builds:
                    got[mode] = (torch.compile(program)(x, y, z), builds)
        finally:
            AsyncCompile.cpp_pybinding = builders["one"]
            torch._inductor.config.compile_threads = None
            torch._dynamo.reset()
        for a, b, e in zip(got["own"][0], got["one"][0], program(x, y, z)):
            self.assertTrue(torch.equal(a, b))
            self.assertTrue(torch.allclose(a, e, atol=1e-5))
        own, one = len(got["own"][1]), len(got["one"][1])
        self.assertGreater(own, 1, "the program has several kernels")
        self.assertEqual(one, 1, "one build for the graph's kernels")
        self.assertGreaterEqual(one_kernel_module.PENDING.builds, 1)


class LazyKernels(unittest.TestCase):
    def test_the_first_call_builds_and_rebinds(self):
        built = []
        pending = one_kernel_module.PendingKernels(lambda argtypes, source: built.append(source) or (lambda: source))
        scope = {"k": one_kernel_module.LazyKernel(pending.add([], "a"))}
        scope["k"].homes.append((scope, "k"))
        self.assertEqual(built, [], "nothing built before the first call")
        self.assertEqual(scope["k"](), "a")
        self.assertEqual(built, ["a"])
        self.assertNotIsInstance(scope["k"], one_kernel_module.LazyKernel, "later calls go to the kernel")

    @unittest.skipUnless(HAS_INDUCTOR, "needs PyTorch 2.x")
    def test_a_build_error_is_a_compile_error_of_the_first_call(self):
        from torch._inductor.exc import InductorError

        def fails(argtypes, source):
            raise RuntimeError("C++ compile error")
        pending = one_kernel_module.PendingKernels(fails)
        kernel = one_kernel_module.LazyKernel(pending.add([], "a"))
        with self.assertRaises(InductorError) as caught:
            kernel()
        self.assertIn("C++ compile error", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
