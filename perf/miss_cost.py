"""What a graph structure costs in each executor state, against torch's backward.

    /work/peers/bin/python perf/miss_cost.py [--rounds 60]

Graph: mean((tanh(x W1) W2)^2), x 8x16, W1 16x32, W2 32x1, float32, one thread. Each
sample builds the forward anew and times its backward alone:

  interpret  a structure met for the first time (the program cache emptied before the
             backward): its rules run on arrays (autograd/interpret.py). What a new
             structure costs, every step of a loop whose structure changes every step.
  lower      a structure met before, not cached yet (JITGRAD_NO_INTERPRET's path, the
             cache emptied): lowered into a Program, cached, bound and run. Paid once per
             recurring structure.
  hit        the structure's Program is cached: bound and run.
  torch      torch's backward of the same graph.

The four take turns in rounds of 15 samples each (medians per round; the table gives the
median over rounds and the per-round ratio to torch), so load on the shared VM hits all.

Measured 2026-12-04 (60 rounds): at 19:06 UTC interpret 63.5 us, lower 148.7, hit 23.7,
torch 66.4 us (interpret/torch 0.96 per round, quartiles 0.94-0.97); at 19:17, 66.3 against
66.2 (0.99x). With the node loop shared with create_graph (autograd/eager.py), 19:56:
interpret 71.6, lower 152.8, hit 24.7, torch 68.4 us (1.03x, quartiles 1.01-1.08); three
20-round A/B pairs against the tree before it: 1.03-1.07x against 0.98-1.00x (~4 us). Before
the interpret state every new structure was lowered: 137 us at 18:39 UTC (2.1x torch's 64.6).
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
from jitgrad.core import config  # noqa: E402

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((16, 32)).astype(np.float32)
W2 = RNG.standard_normal((32, 1)).astype(np.float32)
X = RNG.standard_normal((8, 16)).astype(np.float32)


def _loss():
    w1 = paddle.to_tensor(W1, stop_gradient=False)
    w2 = paddle.to_tensor(W2, stop_gradient=False)
    h = paddle.matmul(paddle.tanh(paddle.matmul(paddle.to_tensor(X), w1)), w2)
    return paddle.mean(h ** 2)


def interpret() -> float:
    loss = _loss()
    paddle.cache_clear()
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def lower() -> float:
    loss = _loss()
    paddle.cache_clear()
    with config.override(interpret_new=False):
        t0 = time.perf_counter()
        loss.backward()
        return time.perf_counter() - t0


def hit() -> float:
    loss = _loss()
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def torch_backward() -> float:
    import torch
    w1 = torch.tensor(W1, requires_grad=True)
    w2 = torch.tensor(W2, requires_grad=True)
    loss = ((torch.tanh(torch.tensor(X) @ w1) @ w2) ** 2).mean()
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    paddle.warmup(quiet=True)
    fns = {"interpret": interpret, "lower": lower, "hit": hit}
    try:
        import torch
        torch.set_num_threads(1)
        fns["torch"] = torch_backward
    except ImportError:
        print("torch is not installed: no comparison")
    for f in fns.values():
        for _ in range(30):
            f()
    rounds: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.rounds):
        for k, f in fns.items():
            rounds[k].append(statistics.median(f() for _ in range(15)))
    for k, v in rounds.items():
        line = f"{k:10s} {1e6 * statistics.median(v):7.1f} us"
        if "torch" in rounds and k != "torch":
            r = [a / b for a, b in zip(v, rounds["torch"])]
            q = statistics.quantiles(r, n=4)
            line += f"   {statistics.median(r):.2f}x torch's backward (quartiles " \
                    f"{q[0]:.2f}-{q[2]:.2f})"
        print(line)


if __name__ == "__main__":
    main()
