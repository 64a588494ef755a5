"""sum / mean over a short axis: jitgrad (vm/forward_reduce.py's axis_sums) against numpy's
add.reduce (jitgrad's former path) and torch, forward only, medians of interleaved samples.

    OMP_NUM_THREADS=1 python perf/short_axis_sums.py
"""

from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jitgrad as paddle  # noqa: E402
from _timing import fmt_time, interleaved  # noqa: E402

CASES = [((64, 64, 2), -1), ((64, 64, 2), 1), ((1000, 3), -1), ((1000, 3), 0),
         ((3, 1000, 3), 1), ((40, 40, 1), -1)]


def main() -> None:
    paddle.warmup(quiet=True)
    try:
        import torch
    except ImportError:                 # pragma: no cover - optional
        torch = None
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64"):
        for shape, axis in CASES:
            a = rng.standard_normal(shape).astype(dtype)
            t = paddle.to_tensor(a)
            fns = {"jitgrad": lambda: paddle.sum(t, axis=axis),
                   "numpy": lambda: np.add.reduce(a, axis)}
            if torch is not None:
                ta = torch.tensor(a)
                fns["torch"] = lambda: ta.sum(axis)
            med = interleaved(fns, samples=200, budget_s=3.0)
            print(f"{dtype} {str(shape):14s} axis {axis:2d}: " +
                  "  ".join(f"{k} {fmt_time(v)}" for k, v in med.items()))


if __name__ == "__main__":
    main()
