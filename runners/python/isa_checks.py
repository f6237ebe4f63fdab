"""Inductor's vector-ISA checks, split between workers that share a cache.

Inductor's first compile in a fresh cache directory checks each vector ISA the
CPU claims (AVX2, AVX512 and its variants, AMX, ...): a g++ run and a
subprocess that dlopens the result, ~1.7 s each, ~17 s in all on two busy
cores. The results stay in the cache directory (the library and a .load_ok
marker, each ISA under a file lock of its own), so the workers of one campaign
need each check once. Started together, they would walk the list in one order,
each waiting on the locks the other holds: the first worker of a directory
walks it forward and the others backward, so two of them meet in the middle.
What Inductor then picks is unchanged: the same checks, in another order.
"""
import os
import platform


def split_checks():
    """Runs the checks Inductor's first compile would run, in this worker's order."""
    if os.environ.get("DLFUZZ_SPLIT_ISA_CHECKS", "1") == "0" or platform.machine() != "x86_64":
        return
    try:
        from torch._inductor import cpu_vec_isa
        from torch._inductor.runtime.cache_dir_utils import cache_dir
        flags = cpu_vec_isa.x86_isa_checker()
        isas = [isa for isa in cpu_vec_isa.supported_vec_isa_list if all(f in flags for f in str(isa).split())]
    except (ImportError, AttributeError):  # PyTorch 1.13, or an Inductor laid out otherwise: nothing to split
        return
    os.makedirs(cache_dir(), exist_ok=True)
    try:
        os.close(os.open(os.path.join(cache_dir(), "dlfuzz_isa_checks_forward"), os.O_CREAT | os.O_EXCL))
        first = True
    except FileExistsError:
        first = False
    for isa in isas if first else reversed(isas):
        bool(isa)  # compiles and probes, or reads the markers another worker left
