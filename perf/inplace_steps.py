"""In-place ops without a graph (an optimizer's or a simulation's no_grad updates): jitgrad
against torch, [64, 2] float64, medians of interleaved samples.

    OMP_NUM_THREADS=1 python perf/inplace_steps.py
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jitgrad as paddle  # noqa: E402
from _timing import fmt_time, interleaved  # noqa: E402


def main() -> None:
    try:
        import torch
    except ImportError:                 # pragma: no cover - optional
        torch = None
    a = np.random.default_rng(0).uniform(0, 1, (64, 2))
    x, y = paddle.to_tensor(a), paddle.to_tensor(a)
    cases = {"add_": (lambda: x.add_(y), "add_"), "multiply_": (lambda: x.multiply_(y), "mul_"),
             "scale_": (lambda: x.scale_(1.0), "mul_"), "clip_": (lambda: x.clip_(0.0, 4.0),
                                                               "clip_")}
    with paddle.no_grad():
        for name, (fn, tname) in cases.items():
            fns = {"jitgrad": fn}
            if torch is not None:
                tx, ty = torch.tensor(a), torch.tensor(a)
                tf = {"add_": lambda: tx.add_(ty), "mul_": lambda: tx.mul_(ty),
                      "clip_": lambda: tx.clip_(0.0, 4.0)}[tname]
                fns["torch"] = tf
            med = interleaved(fns, samples=200, budget_s=3.0)
            print(f"{name:10s} " + "  ".join(f"{k} {fmt_time(v)}" for k, v in med.items()))


if __name__ == "__main__":
    main()
