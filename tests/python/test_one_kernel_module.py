"""Unit tests of runners/python/one_kernel_module.py: a graph's C++ kernels
built as one shared library give what Inductor's one-library-per-kernel
build gives, in fewer g++ runs.

    .venv/bin/python -m unittest discover -s tests/python
"""
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


@unittest.skipUnless(HAS_INDUCTOR, "needs PyTorch 2.x")
class OneModulePerGraph(unittest.TestCase):
    def test_same_values_fewer_builds(self):
        from torch._inductor import codecache, cpp_builder
        builds = []
        build = cpp_builder.CppBuilder.build

        def counted(self, *a, **k):
            builds.append(self.get_command_line())
            return build(self, *a, **k)
        x, y, z = (torch.randn(8, 8) for _ in range(3))
        torch.compile(lambda t: t + 1)(x)  # the process's first compile builds more than kernels
        got = {}
        old_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        cpp_builder.CppBuilder.build = counted
        try:  # builds in this process, where they are counted (not in a compile pool)
            torch._inductor.config.compile_threads = 1
            from torch._inductor.async_compile import AsyncCompile
            self.assertTrue(one_kernel_module.install())  # perhaps another test did already
            builders = {"own": one_kernel_module.ORIGINAL, "one": AsyncCompile.cpp_pybinding}
            for mode in ("own", "one"):
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="dlfuzz_okm_")
                AsyncCompile.cpp_pybinding = builders[mode]
                torch._dynamo.reset()
                codecache.CppPythonBindingsCodeCache.cache_clear()
                builds.clear()
                got[mode] = (torch.compile(program)(x, y, z), [b for b in builds if " -E " not in b])
        finally:
            AsyncCompile.cpp_pybinding = builders["one"]
            cpp_builder.CppBuilder.build = build
            torch._inductor.config.compile_threads = None
            torch._dynamo.reset()
            if old_dir is None:
                os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            else:
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = old_dir
        for a, b, e in zip(got["own"][0], got["one"][0], program(x, y, z)):
            self.assertTrue(torch.equal(a, b))
            self.assertTrue(torch.allclose(a, e, atol=1e-5))
        own, one = len(got["own"][1]), len(got["one"][1])
        self.assertGreater(own, 1, "the program has several kernels")
        self.assertEqual(one, 1, "one build for the graph's kernels")
        self.assertGreaterEqual(one_kernel_module.PENDING.builds, 1)


if __name__ == "__main__":
    unittest.main()
