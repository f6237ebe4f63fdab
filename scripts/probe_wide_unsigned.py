"""Which ops PyTorch's CPU eager runs on uint16/32/64 tensors: the evidence for
the list in generator/wide_unsigned.cpp. Run it with the project's .venv after a
PyTorch update: .venv/bin/python scripts/probe_wide_unsigned.py
It prints one line per op (ok, or the first error) and exits 1 when an op the
generator admits has lost a kernel."""

import sys

import torch

F = torch.nn.functional
IDX = torch.tensor([0, 2])
ZEROS = torch.zeros(1, 3, 4, dtype=torch.long)

# What the generator admits (generator/wide_unsigned.cpp), one call each.
ADMITTED = {
    "exp": torch.exp,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "sigmoid": torch.sigmoid,
    "reciprocal": torch.reciprocal,
    "floor": torch.floor,
    "round": torch.round,
    "relu": torch.relu,
    "relu6": F.relu6,
    "hardtanh": F.hardtanh,
    "clamp": lambda a: a.clamp(1, 3),
    "mul": lambda a: a * a,
    "mul_scalar": lambda a: a * 3,
    "div": lambda a: a / a,
    "maximum": lambda a: torch.maximum(a, a),
    "atan2": lambda a: torch.atan2(a, a),
    "eq": lambda a: a == a,
    "ne": lambda a: a != 3,
    "isnan": torch.isnan,
    "where": lambda a: torch.where(a != 1, a, 3),
    "to": lambda a: a.to(torch.float32),
    "sum": lambda a: a.sum(2),
    "prod": lambda a: a.prod(2),
    "cumsum": lambda a: a.cumsum(2),
    "cumprod": lambda a: a.cumprod(2),
    "sort": lambda a: a.sort(descending=True),
    "argsort": lambda a: a.argsort(2),
    "cat": lambda a: torch.cat([a, a], 1),
    "stack": lambda a: torch.stack([a, a]),
    "repeat": lambda a: a.repeat(1, 2, 1),
    "flip": lambda a: a.flip(2),
    "roll": lambda a: a.roll(1, 2),
    "contiguous": lambda a: a.transpose(1, 2).contiguous(),
    "diagonal": lambda a: a.diagonal(0, 1, 2).contiguous(),
    "view_dtype": lambda a: a.view(torch.uint8),
    "pad": lambda a: F.pad(a, (1, 1), value=3),
    "index": lambda a: a[:, IDX],
    "full_like": lambda a: torch.full_like(a, 7),
    "zeros": lambda a: torch.zeros(3, dtype=a.dtype),
    "index_select": lambda a: a.index_select(2, IDX),
    "gather": lambda a: a.gather(2, ZEROS[:, :, :2]),
    "scatter": lambda a: a.scatter(2, ZEROS, a),
    "scatter_add": lambda a: a.scatter_add(2, ZEROS, a),
    "scatter_reduce": lambda a: a.scatter_reduce(2, ZEROS, a, "prod"),
    "index_add": lambda a: a.index_add(2, IDX, a[:, :, :2]),
    "embedding": lambda a: F.embedding(IDX, a[0]),
    "_foreach_mul": lambda a: torch._foreach_mul([a], [a]),
    "_foreach_sqrt": lambda a: torch._foreach_sqrt([a]),
}
# Left out for want of a kernel (a sample; the list's comment has them all).
REFUSED = {
    "add": lambda a: a + a,
    "gt": lambda a: a > a,
    "abs": torch.abs,
    "amax": lambda a: a.amax(2),
    "mean": lambda a: a.mean(),
    "masked_fill": lambda a: a.masked_fill(a == 1, 2),
    "tril": torch.tril,
    "topk": lambda a: a.topk(2),
    "mm": lambda a: a[0] @ a[0].t(),
    "index_put": lambda a: a.index_put((IDX,), a[0, 0, 0]),
    "div_floor": lambda a: torch.div(a, a, rounding_mode="floor"),
    "index_add_1d": lambda a: a.reshape(-1).index_add(0, IDX, a.reshape(-1)[:2]),
}


def probe(call):
    errors = []
    for bits in (16, 32, 64):
        a = torch.arange(1, 13).reshape(1, 3, 4).to(getattr(torch, f"uint{bits}"))
        try:
            call(a)
        except Exception as e:  # noqa: BLE001 -- any error means "no kernel" here
            errors.append(f"uint{bits}: {str(e).splitlines()[0][:70]}")
    return errors


def main():
    print(f"torch {torch.__version__}")
    lost = 0
    for table, admitted in ((ADMITTED, True), (REFUSED, False)):
        for name, call in table.items():
            errors = probe(call)
            print(f"{'admitted' if admitted else 'refused ':8s} {name:15s} {'; '.join(errors) if errors else 'ok'}")
            lost += admitted and bool(errors)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
