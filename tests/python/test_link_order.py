"""link_order: Inductor's link line finds this install's libtorch_cpu.so first."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runners", "python"))
import torch  # noqa: E402

import env_check  # noqa: E402
import link_order  # noqa: E402


class LinkOrder(unittest.TestCase):
    @unittest.skipUnless(hasattr(torch, "_inductor"), "Inductor needs PyTorch 2.x")
    def test_the_first_libtorch_cpu_on_the_link_path_is_this_installs(self):
        # On Debian with libtorch-dev, Python's LIBDIR (searched first) holds
        # LibTorch 1.13's: without the patch the first one found is that.
        link_order.link_kernels_to_this_torch()
        linked, own = env_check.linked_libtorch_cpu()  # what the environment check reads off the link line
        self.assertEqual(linked, own)

    def test_a_directory_is_foreign_only_when_it_holds_another_libtorch(self):
        own = os.path.join(os.path.dirname(torch.__file__), "lib")
        self.assertFalse(link_order.foreign_libtorch(own, own))
        self.assertFalse(link_order.foreign_libtorch(os.path.dirname(__file__), own))


if __name__ == "__main__":
    unittest.main()
