// The standalone Python repro: plain python3, any PyTorch from 1.13 on. It
// rebuilds the inputs with the same float64 formula as the C++ input builder,
// runs the program eagerly and through a compiled path, and prints the
// difference. A PyTorch developer runs it as is.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "generator/dlf.h"
#include "generator/emit.h"

namespace dlfuzz {

namespace {

const char* kPrelude = R"PY(import argparse
import json
import sys

import torch


def build_input(index, shape, dtype, init, lo, hi, layout):
    # The same float64 Weyl-sequence formula as dlfuzz's C++ input builder.
    n = 1
    for d in shape:
        n *= d
    phase = ((SEED % 9973) * 31 + index * 17) % 997 / 997.0
    f64 = torch.float64
    if init == "zeros":
        x = torch.zeros(n, dtype=f64)
    elif init == "ones":
        x = torch.ones(n, dtype=f64)
    elif init == "uniform":
        u = torch.arange(n, dtype=f64).mul(0.6180339887498949).add(phase).frac()
        x = u.mul(hi - lo).add(lo)
        if not dtype.is_floating_point:
            x = x.floor()
    else:
        u1 = torch.arange(n, dtype=f64).mul(0.6180339887498949).add(phase).frac()
        u2 = torch.arange(n, dtype=f64).mul(0.7548776662466927).add(phase).frac()
        z = u1.neg().add(1.0).log().mul(-2.0).sqrt().mul(u2.mul(6.283185307179586).cos())
        x = z.mul(hi).add(lo)
    x = x.to(dtype).reshape(shape).to(DEVICE)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif layout == "strided":
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


def _dlfuzz_world():
    d = torch.distributed
    return d.get_world_size() if d.is_available() and d.is_initialized() else 1


def _dlfuzz_all_reduce(x, op):
    if _dlfuzz_world() == 1:
        return x.clone()
    raise NotImplementedError("multi-rank repro")


def _dlfuzz_all_gather(x, dim):
    return _dlfuzz_all_reduce(x, "sum")


def _dlfuzz_reduce_scatter(x, dim, op):
    return _dlfuzz_all_reduce(x, op)


def _dlfuzz_broadcast(x, src):
    return _dlfuzz_all_reduce(x, "sum")


def _dlfuzz_all_to_all(x, dim):
    return _dlfuzz_all_reduce(x, "sum")

)PY";

const char* kRunner = R"PY(

def run(fn):
    inputs = [build_input(i, *spec) for i, spec in enumerate(INPUTS)]
    params = [inputs[i] for i in PARAMS]
    result = {"outputs": [], "losses": [], "grads": [], "params": []}
    if TRAIN is None:
        with torch.no_grad():
            outs = fn(*inputs)
        result["outputs"] = list(outs)
    else:
        for p in params:
            p.requires_grad_(True)
        opt_name, lr, momentum, weight_decay, steps = TRAIN
        if opt_name == "sgd":
            opt = torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
        elif opt_name == "adam":
            opt = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
        else:
            opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
        for step in range(steps):
            for p in params:
                p.grad = None
            outs = fn(*[x if x.requires_grad else x.clone() for x in inputs])
            loss = outs[-1]
            result["losses"].append(loss.item())
            loss.backward()
            for p in params:  # all-zero gradients count as none, as in dlfuzz's C++ runners
                if p.grad is not None and not bool(p.grad.any()):
                    p.grad = None
            if step == steps - 1:
                result["outputs"] = [o.detach() for o in outs[:-1]]
                result["grads"] = [p.grad for p in params]
            opt.step()
    result["params"] = [p.detach() for p in params]
    return result


def compiled(backend):
    if backend == "eager":
        return program
    if backend == "script" or not hasattr(torch, "compile"):
        return torch.jit.script(program)
    return torch.compile(program, backend=backend)


def max_diff(a, b):
    if a is None or b is None:
        return 0.0 if a is None and b is None else float("inf")
    if a.shape != b.shape or a.dtype != b.dtype:
        return float("inf")
    if a.numel() == 0:
        return 0.0
    a64, b64 = a.detach().double(), b.detach().double()
    same_nan = torch.isnan(a64) == torch.isnan(b64)
    if not bool(same_nan.all()):
        return float("inf")
    a64 = torch.where(torch.isnan(a64), torch.zeros_like(a64), a64)
    b64 = torch.where(torch.isnan(b64), torch.zeros_like(b64), b64)
    both_inf = torch.isinf(a64) & torch.isinf(b64) & (a64 == b64)
    d = torch.where(both_inf, torch.zeros_like(a64), (a64 - b64).abs())
    return float(d.max())


def to_json(result):
    def t(x):
        if x is None:
            return None
        x = x.detach()
        return {"dtype": str(x.dtype), "shape": list(x.shape),
                "values": [float(v) for v in x.double().reshape(-1).tolist()]}
    return {"outputs": [t(x) for x in result["outputs"]], "losses": result["losses"],
            "grads": [t(x) for x in result["grads"]], "params": [t(x) for x in result["params"]]}


def main():
    ap = argparse.ArgumentParser(description="dlfuzz repro: eager vs a compiled path")
    ap.add_argument("--backend", default="inductor",
                    help="inductor, aot_eager, eager, or script (torch.jit.script)")
    ap.add_argument("--dump-json", help="write the eager results here and exit")
    args = ap.parse_args()
    print("torch", torch.__version__)
    ref = run(program)
    if args.dump_json:
        with open(args.dump_json, "w") as f:
            json.dump(to_json(ref), f)
        return 0
    try:
        got = run(compiled(args.backend))
    except Exception as e:  # the compiled path failing is the finding
        print("compiled path raised:", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return 1
    worst = 0.0
    for kind in ("outputs", "grads", "params"):
        for i, (a, b) in enumerate(zip(ref[kind], got[kind])):
            d = max_diff(a, b)
            worst = max(worst, d)
            print(f"{kind}[{i}] max abs diff {d:.3g}")
    for i, (a, b) in enumerate(zip(ref["losses"], got["losses"])):
        print(f"loss[step {i}] eager {a!r} compiled {b!r}")
    print("max abs diff", worst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
)PY";

const char* layout_name(Layout l) {
  return l == Layout::channels_last ? "channels_last" : l == Layout::strided ? "strided" : "contiguous";
}

}  // namespace

std::string emit_python(const Program& p) {
  std::string s = "#!/usr/bin/env python3\n";
  s += "# dlfuzz repro. The program, as dlfuzz prints it:\n";
  std::string dlf = print_program(p);
  size_t start = 0;
  while (start < dlf.size()) {
    size_t end = dlf.find('\n', start);
    s += "#   " + dlf.substr(start, end - start) + "\n";
    start = end + 1;
  }
  s += kPrelude;
  s += fmt::format("SEED = {}\n", p.seed);
  s += fmt::format("DEVICE = \"{}\"\n", p.device);
  s += "# (shape, dtype, init, lo, hi, layout) per input, in the program's order\nINPUTS = [\n";
  std::vector<std::string> params;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputDecl& d = p.inputs[i];
    const TensorType& t = p.type(d.value);
    std::string shape = fmt::format("[{}]", fmt::join(t.shape, ", "));
    s += fmt::format("    ({}, {}, \"{}\", {}, {}, \"{}\"),  # {}\n", shape, dtype_torch_name(t.dtype), init_name(d.init),
                     py_float(d.lo), py_float(d.hi), layout_name(d.layout), py_name(p, d.value));
    if (d.kind == InputKind::param) params.push_back(std::to_string(i));
  }
  s += "]\n";
  s += fmt::format("PARAMS = [{}]\n", fmt::join(params, ", "));
  if (p.train)
    s += fmt::format("TRAIN = (\"{}\", {}, {}, {}, {})\n", optimizer_name(p.train->optimizer), py_float(p.train->lr),
                     py_float(p.train->momentum), py_float(p.train->weight_decay), p.train->steps);
  else
    s += "TRAIN = None\n";
  s += "\n\n" + emit_function(p, "program", false);
  s += kRunner;
  return s;
}

}  // namespace dlfuzz
