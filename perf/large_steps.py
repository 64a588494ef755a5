"""A fresh-graph step per op at a large shape (1000 x 1000 float32), jitgrad against torch,
single-threaded: op_steps.py's question for users with big tensors, where the per-op Python
does not matter and memory passes and per-element kernels do.

    python perf/large_steps.py                 # every case (~1 min)
    python perf/large_steps.py exp softmax     # some
    python perf/large_steps.py --shape 256x256 # another shape (2-D: layer_norm's axis)
    python perf/large_steps.py --cpu           # process_time medians (a busy host)

Run it with the peers environment (torch 2.13.0 CPU); it puts this checkout's src/ first
on sys.path. A step is `op(x).sum().backward()` and clearing x's gradient; x needs a
gradient. Median of interleaved samples (_timing.interleaved); the ratio is torch/jitgrad
(> 1: jitgrad faster).

Measured 2026-12-07 16:40-16:50 UTC (busy host, load ~5-7: `--cpu`, four runs each, base
711803a -> 584bb2e, ranges): pow3 0.68-0.72 -> 1.13-1.39x (float32 x ** 3 correctly rounded
in one pass, no SVML power), softplus 0.46-0.48 -> 0.71-0.77x (its factor sigmoid(beta x)
from the forward's exp values, no expm1 pass), softmax 0.80-0.91 -> 0.94-1.09x and
log_softmax 0.84-0.92 -> 1.01-1.06x (the backward reads the sum's scalar seed: no ones
array), exp 0.90-0.98 -> 0.89-0.94x, log 0.88-0.99 -> 0.96-1.00x (float32_math's rounding
test on the bits: 1M exp 1.10 -> 1.00 ms), sigmoid 0.90-0.94 -> 0.84-0.94x, relu 0.87-1.06
-> 0.94-1.27x, gelu 0.61-0.76 -> 0.64-0.73x, erf 1.06-1.16 -> 1.15-1.20x (unchanged ops:
noise). The wall-clock medians swung 0.1x-9x between runs at that load; at 16:56 (load
~2, wall clock, two runs each, 711803a -> 818e1e6): pow3 0.72/0.67 -> 1.21/1.09x, softplus
0.48/0.47 -> 0.70/0.72x, softmax 0.85/0.85 -> 0.95/0.98x, log_softmax 0.93/0.94 ->
1.01/1.02x, exp 0.84/0.83 -> 0.89/0.92x, log 0.98/1.01 -> 1.01/1.04x, sigmoid 0.86/0.84 ->
0.97/0.85x, relu 0.88/0.98 -> 0.86/1.03x, gelu 0.69/0.61 -> 0.67/0.68x, erf 1.10/1.14 ->
1.10/1.17x.
Measured 2026-12-07 13:54 UTC (the AVX-512 host at load ~3, base 483e6a2 -> dbd7c48, two
runs each, one after the other): sigmoid 0.60/0.60 -> 0.80/0.90x, silu 0.79/0.71 ->
1.02/0.87x, relu 0.74/0.77 -> 0.84/0.86x, pow3 0.49/0.52 -> 0.56/0.59x, softmax 0.80/0.78
-> 0.81/0.84x, softplus 0.26/0.44 -> 0.43/0.48x, gelu 0.42/0.54 -> 0.58/0.67x (unchanged
op: its sum), exp 0.77/0.87 -> 0.81/0.85x, mul 1.13/1.05 -> 1.24/1.14x (same-process A/Bs
of each change: the commit messages).
Measured 2026-12-07 11:41 UTC (the idle AVX-512 host, main at 4a95763): 12 of 24 slower
than torch: softplus 0.45x, pow3 0.53x, gelu 0.61x, sigmoid 0.65x, silu 0.75x, exp, relu
and softmax 0.80x, log 0.82x, log_softmax 0.90x, layer_norm 0.93x, erf 0.98x; mul, matmul,
sum(axis=0) 1.03x, sqrt 1.19x, logsumexp 1.23x, cumsum 1.32x, max(axis=1) 1.74x, sin 1.79x,
tanh 2.98x, clip 4.65x, where 4.73x. `--shape 128x128` (busy host, 10:41): all faster but
softplus 0.61x and pow3 0.94x.
Before, 2026-12-07 09:32 UTC (AVX-512 host, main at 6676b09 plus this script; medians,
interleaved): 15 of 24 slower than torch: softplus 0.34x, x**3 0.43x (numpy's float32 powf
loop: Paddle's values), sum(axis=0) 0.50x (torch keeps the expanded gradient as a view;
jitgrad writes it), sigmoid 0.58x, gelu 0.61x, softmax 0.68x, silu 0.69x, log 0.73x, relu
0.73x, exp 0.76x, mul 0.76x, log_softmax 0.89x, logsumexp 0.89x, max(axis=1) 0.91x,
layer_norm 0.93x; erf 1.01x, matmul 1.04x, atan 1.07x, sqrt 1.08x, cumsum 1.24x, sin 1.83x,
tanh 3.37x, clip 4.88x, where 5.18x. (At op_steps.py's small shapes none is slower.)
"""

from __future__ import annotations

import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")       # (before numpy and torch load their thread pools)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)
import jitgrad as P  # noqa: E402
import jitgrad.nn.functional as F  # noqa: E402
from _timing import interleaved  # noqa: E402

CASES = {
    "exp": (P.exp, torch.exp),
    "log": (lambda x: P.log(P.abs(x) + 1), lambda x: torch.log(torch.abs(x) + 1)),
    "tanh": (P.tanh, torch.tanh),
    "sigmoid": (F.sigmoid, torch.sigmoid),
    "relu": (F.relu, torch.relu),
    "gelu": (F.gelu, TF.gelu),
    "silu": (F.silu, TF.silu),
    "softplus": (F.softplus, TF.softplus),
    "softmax": (lambda x: F.softmax(x, -1), lambda x: torch.softmax(x, -1)),
    "log_softmax": (lambda x: F.log_softmax(x, -1), lambda x: torch.log_softmax(x, -1)),
    "logsumexp": (lambda x: P.logsumexp(x, -1), lambda x: torch.logsumexp(x, -1)),
    "layer_norm": (lambda x: F.layer_norm(x, x.shape[-1:]),
                   lambda x: TF.layer_norm(x, x.shape[-1:])),
    "sqrt": (lambda x: P.sqrt(P.abs(x)), lambda x: torch.sqrt(torch.abs(x))),
    "pow3": (lambda x: x ** 3, lambda x: x ** 3),
    "mul": (lambda x: x * x, lambda x: x * x),
    "matmul": (lambda x: x @ x, lambda x: x @ x),
    "sum_axis0": (lambda x: x.sum(axis=0), lambda x: x.sum(dim=0)),
    "erf": (P.erf, torch.erf),
    "sin": (P.sin, torch.sin),
    "atan": (P.atan, torch.atan),
    "clip": (lambda x: P.clip(x, -1, 1), lambda x: torch.clamp(x, -1, 1)),
    "where": (lambda x: P.where(x > 0, x, x * 0.1), lambda x: torch.where(x > 0, x, x * 0.1)),
    "max_axis1": (lambda x: x.max(axis=1), lambda x: x.max(dim=1).values),
    "cumsum": (lambda x: P.cumsum(x, 1), lambda x: torch.cumsum(x, 1)),
}


def cpu_medians(fns: dict, samples: int = 40) -> dict:
    """Median process_time of one call of each fn, the fns alternating call by call (their
    order flipped every round): CPU time, which a busy host's other processes do not add
    to (a descheduled step's wall time does), for --cpu."""
    pt = time.process_time
    times: dict = {k: [] for k in fns}
    for fn in fns.values():
        for _ in range(3):
            fn()
    order = list(fns.items())
    for i in range(samples):
        for name, fn in (order if i % 2 else order[::-1]):
            t0 = pt()
            fn()
            times[name].append(pt() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def main(names: list[str], shape: tuple = (1000, 1000), cpu: bool = False) -> None:
    torch.set_num_threads(1)
    P.warmup(quiet=True)
    a = np.random.default_rng(0).uniform(-2, 2, shape).astype(np.float32)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise SystemExit(f"unknown case(s) {unknown}; choose from {sorted(CASES)}")
    for name in names or CASES:
        fj, ft = CASES[name]
        xj = P.to_tensor(a, stop_gradient=False)
        xt = torch.from_numpy(a.copy()).requires_grad_(True)

        def step_j() -> None:
            fj(xj).sum().backward()
            xj.clear_grad()

        def step_t() -> None:
            ft(xt).sum().backward()
            xt.grad = None
        if cpu:
            med = cpu_medians({"jitgrad": step_j, "torch": step_t})
        else:
            med = interleaved({"jitgrad": step_j, "torch": step_t}, samples=30, warmup=2,
                              budget_s=3.0, sample_s=0.0, shuffle=True)
        print(f"{name:12s} jitgrad {med['jitgrad'] * 1e3:7.2f} ms  torch "
              f"{med['torch'] * 1e3:7.2f} ms  torch/jitgrad {med['torch'] / med['jitgrad']:5.2f}x",
              flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    size = (1000, 1000)
    if "--shape" in args:
        i = args.index("--shape")
        size = tuple(int(v) for v in args[i + 1].split("x"))
        del args[i:i + 2]
    use_cpu = "--cpu" in args
    if use_cpu:
        args.remove("--cpu")
    main(args, size, use_cpu)
