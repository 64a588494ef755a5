"""Small CNN training step, jitgrad vs torch, single-threaded, side by side.

Model (MNIST-sized): x [32, 1, 28, 28] -> conv 1->8 3x3 pad 1 -> relu -> max_pool 2
-> conv 8->16 3x3 pad 1 -> relu -> max_pool 2 -> flatten -> linear 784->10 -> cross_entropy,
Adam. Both libraries start from the same weights and see the same batch. Each sample times
forward, backward and the optimizer step of one library; samples of the two libraries are
interleaved so that machine noise hits both alike; medians are reported (ms).

Run with the peers venv (torch installed), jitgrad from ./src:
    PYTHONPATH=src /work/peers/bin/python perf/cnn.py [--samples 30] [--profile]

--profile prints cProfile tables for jitgrad's eager forward and its backward separately.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

BATCH, CLASSES = 32, 10


def make_weights(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return {"w1": (rng.standard_normal((8, 1, 3, 3)) * 0.4).astype(f32),
            "b1": np.zeros(8, f32),
            "w2": (rng.standard_normal((16, 8, 3, 3)) * 0.15).astype(f32),
            "b2": np.zeros(16, f32),
            "w3": (rng.standard_normal((16 * 7 * 7, CLASSES)) * 0.05).astype(f32),
            "b3": np.zeros(CLASSES, f32)}


def make_batch(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32),
            rng.integers(0, CLASSES, BATCH).astype(np.int64))


class JitgradStep:
    def __init__(self, weights: dict, x: np.ndarray, y: np.ndarray) -> None:
        import jitgrad as paddle
        import jitgrad.nn.functional as F
        self.P, self.F = paddle, F
        self.p = {k: paddle.to_tensor(v, stop_gradient=False) for k, v in weights.items()}
        self.opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=list(self.p.values()))
        self.x, self.y = paddle.to_tensor(x), paddle.to_tensor(y)

    def forward(self):
        F, p = self.F, self.p
        h = F.max_pool2d(F.relu(F.conv2d(self.x, p["w1"], p["b1"], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["w2"], p["b2"], padding=1)), 2)
        logits = F.linear(self.P.flatten(h, 1), p["w3"], p["b3"])
        return F.cross_entropy(logits, self.y)

    def backward(self, loss) -> None:
        loss.backward()

    def step(self) -> None:
        self.opt.step()
        self.opt.clear_grad()

    def grads(self) -> dict:
        return {k: t.grad.numpy() for k, t in self.p.items()}


class TorchStep:
    def __init__(self, weights: dict, x: np.ndarray, y: np.ndarray) -> None:
        import torch
        import torch.nn.functional as F
        torch.set_num_threads(1)
        self.T, self.F = torch, F
        self.p = {k: torch.tensor(v, requires_grad=True) for k, v in weights.items()}
        self.opt = torch.optim.Adam(list(self.p.values()), lr=1e-3)
        self.x, self.y = torch.tensor(x), torch.tensor(y)

    def forward(self):
        F, p = self.F, self.p
        h = F.max_pool2d(F.relu(F.conv2d(self.x, p["w1"], p["b1"], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["w2"], p["b2"], padding=1)), 2)
        logits = h.flatten(1) @ p["w3"] + p["b3"]
        return F.cross_entropy(logits, self.y)

    def backward(self, loss) -> None:
        loss.backward()

    def step(self) -> None:
        self.opt.step()
        self.opt.zero_grad()

    def grads(self) -> dict:
        return {k: t.grad.numpy().copy() for k, t in self.p.items()}


def timed(lib) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    loss = lib.forward()
    t1 = time.perf_counter()
    lib.backward(loss)
    t2 = time.perf_counter()
    lib.step()
    t3 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3


def check_agreement(weights: dict, x: np.ndarray, y: np.ndarray) -> float:
    """Largest relative gradient difference between the two libraries on the first step."""
    a, b = JitgradStep(weights, x, y), TorchStep(weights, x, y)
    la, lb = a.forward(), b.forward()
    a.backward(la)
    b.backward(lb)
    ga, gb = a.grads(), b.grads()
    return max(float(np.abs(ga[k] - gb[k]).max() / (np.abs(gb[k]).max() + 1e-12)) for k in ga)


def profile(lib, steps: int = 20) -> None:
    import cProfile
    import pstats
    for what in ("forward", "backward"):
        prof = cProfile.Profile()
        for _ in range(steps):
            if what == "forward":
                prof.enable()
                loss = lib.forward()
                prof.disable()
                lib.backward(loss)
            else:
                loss = lib.forward()
                prof.enable()
                lib.backward(loss)
                prof.disable()
            lib.step()
        print(f"---- jitgrad {what}, {steps} steps (cumulative) ----")
        pstats.Stats(prof).sort_stats("tottime").print_stats(14)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    weights, (x, y) = make_weights(), make_batch()
    print(f"max relative gradient difference jitgrad vs torch: "
          f"{check_agreement(weights, x, y):.2e}")
    libs = {"jitgrad": JitgradStep(weights, x, y), "torch": TorchStep(weights, x, y)}
    if args.profile:
        profile(libs["jitgrad"])
        return
    for lib in libs.values():
        for _ in range(args.warmup):
            timed(lib)
    samples: dict = {name: [] for name in libs}
    for _ in range(args.samples):
        for name, lib in libs.items():
            samples[name].append(timed(lib))
    print(f"batch {BATCH}x1x28x28, conv-relu-pool x2, linear, cross_entropy, Adam; "
          f"median of {args.samples} interleaved samples, ms, single thread"
          )
    print(f"{'':10s}{'forward':>10s}{'backward':>10s}{'step':>8s}{'total':>9s}")
    for name, rows in samples.items():
        cols = [statistics.median(r[i] for r in rows) for i in range(3)]
        total = statistics.median(sum(r) for r in rows)
        print(f"{name:10s}{cols[0]:10.2f}{cols[1]:10.2f}{cols[2]:8.2f}{total:9.2f}")


if __name__ == "__main__":
    main()
