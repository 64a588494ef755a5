"""Time spent in Python's garbage collector during backwards of a big unrolled graph.

    python perf/gc_rollout.py                       # jitgrad's default (gc.freeze once loaded)
    JITGRAD_GC_FREEZE=0 python perf/gc_rollout.py   # the collector left alone

20 backwards of a 500-step rollout y <- y + dt (tanh(y @ theta) - 0.1 y), float64 [4, 16]:
the total seconds and, per generation, (collections, milliseconds in them). Measured
2026-12-07 11:42 UTC on the 2-core AVX-512 host, otherwise idle, two runs each,
alternating: 0.55 and 0.55 s in all, full (generation 2) collections 8.9 and 10.1 ms;
with JITGRAD_GC_FREEZE=0 0.80 and 0.85 s, full collections 283 and 287 ms.
"""

from __future__ import annotations

import gc
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS",
             "JITGRAD_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import jitgrad as paddle  # noqa: E402


def main() -> None:
    paddle.warmup(quiet=True)
    spent = {g: [0, 0.0] for g in range(3)}
    started = [0.0]

    def on_collect(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            row = spent[info["generation"]]
            row[0] += 1
            row[1] += time.perf_counter() - started[0]

    gc.callbacks.append(on_collect)
    rng = np.random.default_rng(0)
    theta = paddle.to_tensor(rng.standard_normal((16, 16)) * 0.3, dtype="float64",
                             stop_gradient=False)
    y0 = paddle.to_tensor(rng.standard_normal((4, 16)), dtype="float64", stop_gradient=False)

    def rollout(steps: int = 500, dt: float = 0.01):
        y = y0
        for _ in range(steps):
            y = y + dt * (paddle.tanh(y @ theta) - 0.1 * y)
        return (y * y).sum()

    t0 = time.perf_counter()
    for _ in range(20):
        rollout().backward()
        theta.clear_grad()
        y0.clear_grad()
    total = time.perf_counter() - t0
    gc.callbacks.remove(on_collect)
    print(f"20 rollouts {total:.2f} s; collections per generation (count, ms): "
          f"{ {g: (n, round(s * 1e3, 1)) for g, (n, s) in spent.items()} }")


if __name__ == "__main__":
    main()
