"""Unit tests of runners/python/env_check.py: what a campaign says about the
Inductor a plain process of this install gets. The ISA probe itself (a g++
run, half a minute) is left to the campaign; these test what is read from it.

    .venv/bin/python -m unittest discover -s tests/python
"""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runners", "python"))
import env_check  # noqa: E402

HAS_INDUCTOR = hasattr(torch, "_inductor")


class Warnings(unittest.TestCase):
    def test_scalar_kernels_where_aten_vectorizes_say_why(self):
        w = env_check.warnings_of({"aten": "AVX2", "isa": "INVALID_VEC_ISA",
                                   "probe_errors": ["undefined symbol: Sleef_expf8_u10"]})
        self.assertEqual(len(w), 1)
        self.assertIn("scalar C++ kernels", w[0])
        self.assertIn("Sleef_expf8_u10", w[0])

    def test_a_vector_isa_or_a_cpu_without_one_is_no_warning(self):
        self.assertEqual(env_check.warnings_of({"aten": "AVX2", "isa": "avx2"}), [])
        self.assertEqual(env_check.warnings_of({"aten": "DEFAULT", "isa": "INVALID_VEC_ISA"}), [])

    def test_a_libtorch_found_before_the_installs_own_is_named(self):
        w = env_check.warnings_of({"linked_libtorch_cpu": "/usr/lib/x86_64-linux-gnu",
                                   "own_lib_dir": "/venv/torch/lib"})
        self.assertEqual(len(w), 1)
        self.assertIn("/usr/lib/x86_64-linux-gnu", w[0])
        self.assertEqual(env_check.warnings_of({"linked_libtorch_cpu": "/a", "own_lib_dir": "/a"}), [])


class WhatIsRead(unittest.TestCase):
    def test_the_probe_runs_without_libtorch_global_and_with_its_own_cache(self):
        before = os.environ.get("TORCH_USE_RTLD_GLOBAL")
        os.environ["TORCH_USE_RTLD_GLOBAL"] = "1"  # as the worker sets it
        try:
            env = env_check.plain_env("/tmp/x")
        finally:
            if before is None:
                del os.environ["TORCH_USE_RTLD_GLOBAL"]
            else:
                os.environ["TORCH_USE_RTLD_GLOBAL"] = before
        self.assertNotIn("TORCH_USE_RTLD_GLOBAL", env)
        self.assertEqual(env["TORCHINDUCTOR_CACHE_DIR"], "/tmp/x")

    @unittest.skipUnless(HAS_INDUCTOR, "torch 1.x has no Inductor")
    def test_the_linked_libtorch_cpu_is_the_first_on_inductors_link_path(self):
        linked, own = env_check.linked_libtorch_cpu()
        self.assertEqual(own, os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib")))
        self.assertTrue(os.path.exists(os.path.join(linked, "libtorch_cpu.so")))


if __name__ == "__main__":
    unittest.main()
