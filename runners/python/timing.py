"""Steady-state timing, compiler counters and profiles for the Python worker.

A timed call is one forward (and, for a training program, its backward) over
fresh copies of inputs built once, after warm-up: compilation and set-up are
outside the clock. On cuda the time is taken with CUDA events. The counters
are what torch.compile did (Dynamo's graphs, graph breaks and recompiles,
Inductor's kernels and fallbacks): the cheap signals that make a timing
candidate (oracles/perf_oracle.h). The C++ runners do the same in
runners/program_driver.cpp.
"""
import logging
import os
import statistics
import time

import torch

import dlfuzz_runtime as rt


def median(xs):
    """The median as oracles/perf_stats.cpp takes it (of an even count, the
    mean of the middle two)."""
    return statistics.median(xs)


class Calls:
    """A program's inputs, built once, and one timed call of a function over them."""

    def __init__(self, meta):
        self.meta = meta
        self.inputs = rt.build_inputs(meta)
        self.params = [self.inputs[i] for i in meta.params]
        if meta.train is not None:
            for p in self.params:
                p.requires_grad_(True)
        self.cuda = meta.device == "cuda"

    def call(self, fn):
        """One call of fn; returns its time in ms."""
        fresh = [x if x.requires_grad else x.clone() for x in self.inputs]
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        self._forward_backward(fn, fresh)
        if self.cuda:
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            ms = (time.perf_counter() - t0) * 1000
        for p in self.params:
            p.grad = None
        return ms

    def _forward_backward(self, fn, args):
        if self.meta.train is None:
            with torch.no_grad():
                fn(*args)
        else:
            fn(*args)[-1].backward()


def time_calls(meta, fn, n):
    """n timed calls: the ms of each, and of each the ms spent in collectives
    (rt.collective_ms: zeros in one process)."""
    calls = Calls(meta)
    times, collective = [], []
    for _ in range(n):
        before = rt.collective_ms()
        times.append(calls.call(fn))
        collective.append(rt.collective_ms() - before)
    return times, collective


def time_paired(meta, fns, pairs):
    """Each function once per pair, in alternating order: drift of the machine
    falls on every side alike. Returns one list of ms per function."""
    calls = Calls(meta)
    times = [[] for _ in fns]
    for i in range(pairs):
        order = range(len(fns)) if i % 2 == 0 else reversed(range(len(fns)))
        for k in order:
            times[k].append(calls.call(fns[k]))
    return times


# c10d's dispatcher ops, on the calling thread: eager's (c10d::allreduce_, ...)
# and compiled code's functional collectives (_c10d_functional::all_reduce and
# the wait_tensor where a rank waits for the others).
COLLECTIVE_OPS = ("c10d::", "_c10d_functional::")


def profiled_collective_ms(meta, fn, n):
    """The median ms per call spent in collectives over n profiled calls, read
    from the profiler's events: what collective_ms cannot see when Dynamo traced
    the collectives into a compiled region. An op inside another collective op
    counts once (its outermost)."""
    calls = Calls(meta)
    per_call = []
    for _ in range(n):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            calls.call(fn)
        us = 0.0
        for e in prof.events():
            if not e.name.startswith(COLLECTIVE_OPS):
                continue
            parent = e.cpu_parent
            while parent is not None and not parent.name.startswith(COLLECTIVE_OPS):
                parent = parent.cpu_parent
            if parent is None:
                us += e.cpu_time_total
        per_call.append(us / 1000)
    return median(per_call)


def reset_counters():
    if hasattr(torch, "_dynamo"):
        torch._dynamo.utils.counters.clear()
        torch._inductor.metrics.reset()
        count_inductor_bytes()


def count_inductor_bytes():
    """Inductor counts the bytes its kernels move only while its metrics log is
    on at INFO: turn the log on, its lines going nowhere."""
    log = logging.getLogger("torch._inductor.compile_fx.__inductor_metrics")
    if log.level != logging.INFO:
        log.setLevel(logging.INFO)
        log.propagate = False
        log.addHandler(logging.NullHandler())


def read_counters():
    """Dynamo's and Inductor's counters since reset_counters(); {} on torch 1.x."""
    if not hasattr(torch, "_dynamo"):
        return {}
    c = torch._dynamo.utils.counters
    metrics = torch._inductor.metrics
    return {
        "graphs": float(c["stats"]["unique_graphs"]),
        "graph_breaks": float(sum(c["graph_break"].values())),
        "kernels": float(metrics.generated_kernel_count),
        "fallback_kernels": float(c["inductor"]["extern_calls"]),
        # what the kernels move, and how many of Inductor's C++ kernels are vectorized
        # (a scalar loop where a vector one was expected is a missed optimization)
        "bytes_accessed": float(getattr(metrics, "num_bytes_accessed", 0)),
        "ir_nodes_pre_fusion": float(getattr(metrics, "ir_nodes_pre_fusion", 0)),
        "cpp_vec_kernels": float(getattr(metrics, "generated_cpp_vec_kernel_count", 0)),
    }


def graph_break_reasons():
    """Why Dynamo broke the graph since reset_counters(): its reasons, most
    frequent first ([] on torch 1.x). What a graph-break finding is about."""
    if not hasattr(torch, "_dynamo"):
        return []
    breaks = torch._dynamo.utils.counters["graph_break"]
    return [reason for reason, _ in sorted(breaks.items(), key=lambda kv: (-kv[1], kv[0]))]


PROFILED_CALLS = 10  # calls in a profile (a performance finding's explanation)


def profile_calls(meta, fn, n, trace_path):
    """A torch.profiler profile of n calls: the hottest ops by self time (ms per
    call) and, where trace_path is given, a Chrome trace written there. One
    call before them runs under the profiler and is dropped (schedule's
    warmup): the first profiled call pays for the profiler's own start, and
    one slow call in five made an op's "self time per call" larger than the
    whole call's median."""
    calls = Calls(meta)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if calls.cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=n, repeat=1)
    times = []
    with torch.profiler.profile(activities=activities, schedule=schedule) as prof:
        for _ in range(n + 1):
            times.append(calls.call(fn))
            prof.step()
    rows = []
    for e in prof.key_averages():
        if e.key.startswith("ProfilerStep"):  # the schedule's own row: time between the ops of a call
            continue
        self_us = e.self_device_time_total if calls.cuda else e.self_cpu_time_total
        if self_us > 0:
            rows.append([e.key, self_us / 1000 / n, e.count // n])
    rows.sort(key=lambda r: -r[1])
    # The profiled calls' own time, the profiler's cost included: what the
    # rows add up to, beside the timed calls' median.
    result = {"ops": rows[:12], "call_ms": median(times[1:])}
    if trace_path:
        os.makedirs(os.path.dirname(trace_path), exist_ok=True)
        prof.export_chrome_trace(trace_path)
        result["trace"] = trace_path
    return result
