"""Small LSTM training step, jitgrad vs torch, single-threaded, side by side.

Model: x [batch 16, seq 20, 32] -> nn.LSTM(32, 32) -> mean of the squared outputs, Adam.
Both libraries start from the same weights (torch's LSTM has Paddle's layout and gate
order) and see the same batch; the gradients are compared first. Each sample times one whole
step (forward, backward, optimizer) of one library; samples of the libraries alternate
(perf/_timing.interleaved) and medians are reported.

    PYTHONPATH=src taskset -c 1 /work/peers/bin/python perf/lstm_step.py [--seq 20] [--layers 1]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from _timing import fmt_time, interleaved, machine  # noqa: E402


def jitgrad_step(weights: list, x: np.ndarray, layers: int, hidden: int):
    import jitgrad as paddle
    paddle.warmup(quiet=True)
    m = paddle.nn.LSTM(x.shape[2], hidden, num_layers=layers)
    for p, w in zip(m.parameters(), weights):
        p.set_value(w)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=m.parameters())
    xt = paddle.to_tensor(x)

    def step(update: bool = True):
        out, _ = m(xt)
        (out * out).mean().backward()
        grads = [p.grad.numpy().copy() for p in m.parameters()]
        if update:
            opt.step()
        opt.clear_grad()
        return grads
    return step


def torch_step(weights: list, x: np.ndarray, layers: int, hidden: int):
    import torch
    torch.set_num_threads(1)
    m = torch.nn.LSTM(x.shape[2], hidden, num_layers=layers, batch_first=True)
    with torch.no_grad():
        for p, w in zip(m.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    xt = torch.from_numpy(x)

    def step(update: bool = True):
        out, _ = m(xt)
        (out * out).mean().backward()
        grads = [p.grad.numpy().copy() for p in m.parameters()]
        if update:
            opt.step()
        opt.zero_grad()
        return grads
    return step


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq", type=int, default=20)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds of sampling")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    H, I = args.hidden, args.hidden
    shapes = []
    for k in range(args.layers):
        shapes += [(4 * H, I if k == 0 else H), (4 * H, H), (4 * H,), (4 * H,)]
    weights = [rng.uniform(-H ** -0.5, H ** -0.5, s).astype(np.float32) for s in shapes]
    x = rng.standard_normal((args.batch, args.seq, I)).astype(np.float32)
    steps = {"jitgrad": jitgrad_step(weights, x, args.layers, H),
             "torch": torch_step(weights, x, args.layers, H)}
    ga, gb = (steps[k](update=False) for k in ("jitgrad", "torch"))
    diff = max(float(np.abs(a - b).max() / (np.abs(b).max() + 1e-12)) for a, b in zip(ga, gb))
    print(f"max relative gradient difference jitgrad vs torch: {diff:.1e}")
    t = interleaved(steps, budget_s=args.budget)
    print(f"LSTM {args.layers} layer(s), seq {args.seq}, batch {args.batch}, hidden {H}; "
          f"forward + backward + Adam, median of interleaved samples, one thread; {machine()}")
    for name, s in t.items():
        print(f"  {name:8s}{fmt_time(s)}")
    print(f"  torch / jitgrad = {t['torch'] / t['jitgrad']:.2f}")


if __name__ == "__main__":
    main()
