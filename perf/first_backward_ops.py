"""A new structure's first backward (the interpret state: each op's array rule, or its vjp
on Tensors when it has none) through one fused op, against torch's backward of the graph.

    OMP_NUM_THREADS=1 /work/peers/bin/python perf/first_backward_ops.py [--rounds 15] [op ...]

Each sample builds the forward anew (untimed), empties the program cache (so the backward
is a first sighting: autograd/interpret.py) and times loss.backward() alone; torch's
sample times its backward of the same graph. The contenders alternate in rounds of 9
samples (median per round); the table gives the median over rounds and the median per-round
ratio to torch, so load on the shared host hits both alike.

Measured 2026-12-07, busy 2-core host, 15 rounds (ms; the ratio is per round), the vjp on
Tensors -> the op's array rule:
  bce 256x512          0.867 (4.50x torch) -> 0.099 (0.55x)
  bce_logits 256x512   0.268 (1.90x)       -> 0.096 (0.72x)
  prod 256x64 rows     0.081 (1.18x)       -> 0.046 (0.72x)
  cumprod 256x64 rows  0.240 (2.70x)       -> 0.066 (0.75x)
  cross 1024x3         0.078 (1.66x)       -> 0.051 (1.11x)
  inverse 8x32x32      0.081 (0.96x)       -> 0.072 (0.85x)
  solve 8x32x32, k=4   0.214 (2.15x)       -> 0.061 (0.64x)
  cholesky 8x32x32     0.286 (1.56x)       -> 0.131 (0.70x)
  det 8x32x32          0.233 (1.11x)       -> 0.061 (0.30x)
  slogdet 8x32x32      0.246 (1.38x)       -> 0.073 (0.41x)
  eigh 8x32x32 (two)   0.554 (2.46x)       -> 0.396 (1.58x)
  eigvalsh 8x32x32     0.789 (7.53x)       -> 0.124 (1.10x)
  svd 8x32x16 (s)      0.348 (3.82x)       -> 0.178 (2.20x)
  svdvals 8x32x16      0.596 (6.50x)       -> 0.092 (1.01x)
  qr 8x32x16           0.474 (2.37x)       -> 0.285 (1.45x)
  pinv 8x32x16         0.171 (0.97x)       -> 0.125 (0.79x)
  block_mean 8x16x32x32 to 4x4  0.167 (1.83x) -> 0.098 (1.09x)
  LSTM 16 -> 32, 8 x 20 steps    1.061 (3.84x) -> 0.367 (1.28x)   (before: lowered at once,
  GRU  16 -> 32, 8 x 20 steps    0.910 (0.53x) -> 0.351 (0.27x)    lower_first)
eigh, svd and qr keep ~50 us a node in take_flat's rule (the factor sliced out of the packed
output: its transpose scatters into a zeroed packed gradient, np.add.at ~30 us for 8K
elements where an assignment would take ~9). 2026-12-07 16:20 UTC, busy host, 9 rounds:
eigh 1.72x -> 1.43x and svd 2.37x -> 1.53x with their values-only rules when the vectors
carry no loss (f7a1b67); in a later run of 711803a svd was 2.15x and eigh 1.45x, where this
tree gave 1.51-1.56x and 1.49-1.62x: eigh's change is within the host's noise. qr and
cholesky solve with their factor since ce8f8e0 (no inverse saved by the forward): at
16:38 qr 1.54x and cholesky 0.95x for 711803a, 1.51-1.56x and 0.89-0.95x after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "src")))

import numpy as np  # noqa: E402

import jitgrad as paddle  # noqa: E402

RNG = np.random.default_rng(0)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def _uniform(lo, hi, shape):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def _normal(shape):
    return RNG.standard_normal(shape).astype(np.float32)


# name -> (input arrays (the first ones leaves needing gradients), number of leaves,
#          jitgrad's loss of its tensors, torch's)
def _cases():
    P, Y = _uniform(0.05, 0.95, (256, 512)), _uniform(0, 1, (256, 512))
    X = _normal((256, 512))
    A, B = _normal((1024, 3)), _normal((1024, 3))
    M = _spd(32, (8,))
    R = _normal((8, 32, 4))
    W = _normal((8, 32, 32))
    T, S = _normal((8, 32, 16)), _normal((8, 16))
    X3 = _normal((8, 20, 16))           # batch 8, 20 steps, 16 features (hidden 32)
    return {
        "bce": ((P, Y), 1, lambda F, p, y: F.binary_cross_entropy(p, y),
                lambda F, p, y: F.binary_cross_entropy(p, y)),
        "bce_logits": ((X, Y), 1, lambda F, x, y: F.binary_cross_entropy_with_logits(x, y),
                       lambda F, x, y: F.binary_cross_entropy_with_logits(x, y)),
        "prod": ((_uniform(0.5, 1.5, (256, 64)),), 1,
                 lambda F, x: paddle.prod(x, axis=-1).sum(), lambda F, x: x.prod(-1).sum()),
        "cumprod": ((_uniform(0.5, 1.5, (256, 64)),), 1,
                    lambda F, x: paddle.cumprod(x, 1).sum(), lambda F, x: x.cumprod(1).sum()),
        "cross": ((A, B), 2, lambda F, a, b: paddle.cross(a, b, axis=1).sum(),
                  lambda F, a, b: a.cross(b, dim=1).sum()),
        "inverse": ((M, W), 1, lambda F, m, w: (paddle.linalg.inv(m) * w).sum(),
                    lambda F, m, w: (m.inverse() * w).sum()),
        "solve": ((M, R), 2, lambda F, m, r: paddle.linalg.solve(m, r).sum(),
                  lambda F, m, r: _torch().linalg.solve(m, r).sum()),
        "cholesky": ((M, W), 1, lambda F, m, w: (paddle.linalg.cholesky(m) * w).sum(),
                     lambda F, m, w: (_torch().linalg.cholesky(m) * w).sum()),
        "det": ((M,), 1, lambda F, m: (paddle.linalg.det(m * 0.2)).sum(),
                lambda F, m: _torch().linalg.det(m * 0.2).sum()),
        "slogdet": ((M,), 1, lambda F, m: paddle.linalg.slogdet(m)[1].sum(),
                    lambda F, m: _torch().linalg.slogdet(m)[1].sum()),
        "eigh": ((M, W), 1, lambda F, m, w: (paddle.linalg.eigh(m)[0].sum()
                                             + (paddle.linalg.eigh(m)[1] ** 2 * w).sum()),
                 lambda F, m, w: (_torch().linalg.eigh(m)[0].sum()
                                  + (_torch().linalg.eigh(m)[1] ** 2 * w).sum())),
        "eigvalsh": ((M, W[:, 0]), 1, lambda F, m, w: (paddle.linalg.eigvalsh(m) * w).sum(),
                     lambda F, m, w: (_torch().linalg.eigvalsh(m) * w).sum()),
        "svd": ((T, S), 1, lambda F, t, w: (paddle.linalg.svd(t)[1] * w).sum(),
                lambda F, t, w: (_torch().linalg.svd(t, full_matrices=False)[1] * w).sum()),
        "svdvals": ((T, S), 1, lambda F, t, w: (paddle.linalg.svdvals(t) * w).sum(),
                    lambda F, t, w: (_torch().linalg.svdvals(t) * w).sum()),
        "qr": ((T, T), 1, lambda F, t, w: (paddle.linalg.qr(t)[1].sum()
                                           + (paddle.linalg.qr(t)[0] * w).sum()),
               lambda F, t, w: (_torch().linalg.qr(t)[1].sum()
                                + (_torch().linalg.qr(t)[0] * w).sum())),
        "pinv": ((T, _normal((8, 16, 32))), 1,
                 lambda F, t, w: (paddle.linalg.pinv(t) * w).sum(),
                 lambda F, t, w: (_torch().linalg.pinv(t) * w).sum()),
        "lstm": ((X3,), 0, lambda F, x: (_module("LSTM", paddle)(x)[0] ** 2).sum(),
                 lambda F, x: (_module("LSTM", _torch())(x)[0] ** 2).sum()),
        "gru": ((X3,), 0, lambda F, x: (_module("GRU", paddle)(x)[0] ** 2).sum(),
                lambda F, x: (_module("GRU", _torch())(x)[0] ** 2).sum()),
        "block_mean": ((_normal((8, 16, 32, 32)),), 1,
                       lambda F, x: (F.adaptive_avg_pool2d(x, 4) ** 2).sum(),
                       lambda F, x: (F.adaptive_avg_pool2d(x, 4) ** 2).sum()),
    }


_MODULES: dict = {}


def _module(kind, lib):
    """One recurrent layer per library (16 -> 32, batch first), made once."""
    key = (kind, lib.__name__)
    if key not in _MODULES:
        if lib is paddle:
            _MODULES[key] = getattr(paddle.nn, kind)(16, 32)
        else:
            _MODULES[key] = getattr(lib.nn, kind)(16, 32, batch_first=True)
    return _MODULES[key]


def _torch():
    import torch
    return torch


def _sample_jitgrad(arrays, leaves, fn):
    ts = [paddle.to_tensor(a, stop_gradient=i >= leaves) for i, a in enumerate(arrays)]
    loss = fn(paddle.nn.functional, *ts)
    paddle.cache_clear()
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def _sample_torch(arrays, leaves, fn):
    torch = _torch()
    ts = [torch.tensor(a, requires_grad=i < leaves) for i, a in enumerate(arrays)]
    loss = fn(torch.nn.functional, *ts)
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def measure(name, case, rounds):
    arrays, leaves, fj, ft = case
    fns = {"jitgrad": lambda: _sample_jitgrad(arrays, leaves, fj),
           "torch": lambda: _sample_torch(arrays, leaves, ft)}
    for f in fns.values():
        for _ in range(5):
            f()
    per: dict = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            per[k].append(statistics.median(f() for _ in range(9)))
    ratio = statistics.median(a / b for a, b in zip(per["jitgrad"], per["torch"]))
    j, t = (1e3 * statistics.median(per[k]) for k in ("jitgrad", "torch"))
    print(f"{name:11s} first backward {j:7.3f} ms  torch {t:7.3f} ms  {ratio:5.2f}x torch",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("ops", nargs="*")
    args = ap.parse_args()
    paddle.warmup(quiet=True)
    _torch().set_num_threads(1)
    cases = _cases()
    for name in args.ops or cases:
        measure(name, cases[name], args.rounds)


if __name__ == "__main__":
    main()
