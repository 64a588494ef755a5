"""The eager forward's per-op overhead: a recorded jitgrad op minus the bare numpy call.

    python perf/eager_overhead.py

Shapes are W5a's (a 16-32-1 MLP on one sample), where this overhead is most of a training
step. Minimum over repeats of the mean of 20,000 calls.
"""

from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import jitgrad as P  # noqa: E402


def per_call(fn, n: int = 20_000) -> float:
    return min(timeit.repeat(fn, number=n, repeat=5)) / n


def main() -> None:
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((1, 32)).astype(np.float32)
    bn = rng.standard_normal(32).astype(np.float32)
    wn = rng.standard_normal((32, 32)).astype(np.float32)
    x = P.to_tensor(xn, stop_gradient=False)
    b = P.to_tensor(bn, stop_gradient=False)
    w = P.to_tensor(wn, stop_gradient=False)
    cases = [("add (1,32)+(32,)", lambda: x + b, lambda: xn + bn),
             ("tanh (1,32)", lambda: P.tanh(x), lambda: np.tanh(xn)),
             ("matmul (1,32)@(32,32)", lambda: P.matmul(x, w), lambda: xn @ wn),
             ("sum (1,32)", lambda: P.sum(x), lambda: np.sum(xn))]
    print(f"{'op':24s} {'jitgrad':>10s} {'numpy':>10s} {'overhead':>10s}")
    total = []
    for name, jg, npf in cases:
        a, c = per_call(jg), per_call(npf)
        total.append(a - c)
        print(f"{name:24s} {a * 1e6:8.2f} us {c * 1e6:8.2f} us {(a - c) * 1e6:8.2f} us")
    print(f"mean overhead per recorded op: {np.mean(total) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
