"""Inductor's kernels linked to this install's libtorch, as on a clean machine.

Inductor's link line searches Python's LIBDIR before torch/lib
(cpp_builder.get_cpp_torch_options). On Debian with libtorch-dev installed
(LibTorch 1.13, which dlfuzz's native runners need) LIBDIR holds another
libtorch_cpu.so, so `-ltorch_cpu` finds it: a kernel that calls into libtorch
(Inductor's C++ flex-attention template, for one) records NEEDED
libtorch_cpu.so.1.13, and loading it puts a second libtorch into this process,
which dies of SIGBUS. That is the install's problem, not the program's, so the
worker drops such a LIBDIR from the -L list (the linker still searches it, as a
default directory, after torch/lib). env_check.py reports what a plain process
of the install does.
"""
import os


def foreign_libtorch(directory, own_dir):
    """Whether `directory` holds a libtorch_cpu.so that is not this install's."""
    lib = os.path.join(directory, "libtorch_cpu.so")
    return os.path.exists(lib) and os.path.realpath(directory) != os.path.realpath(own_dir)


def link_kernels_to_this_torch():
    """Patches cpp_builder's Python library directories (a no-op without Inductor)."""
    try:
        import torch
        from torch._inductor import cpp_builder
    except ImportError:
        return
    own = os.path.join(os.path.dirname(torch.__file__), "lib")
    python_related = cpp_builder._get_python_related_args

    def without_foreign_libtorch():
        include_dirs, lib_dirs = python_related()
        return include_dirs, [d for d in lib_dirs if not foreign_libtorch(d, own)]
    cpp_builder._get_python_related_args = without_foreign_libtorch
