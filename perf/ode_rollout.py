"""A fresh-graph training step through a long unrolled rollout, jitgrad against torch.

    OMP_NUM_THREADS=1 /work/peers/bin/python perf/ode_rollout.py [steps]

RK4 integration of a damped pendulum for `steps` (200) steps of three states, its
trajectory's mean squared error to a target, backward to the two parameters (damping and
frequency), float64: backpropagation through time as an ODE or control fit does it. The
graph has ~53 nodes a step (10,600 for 200), so the step is dominated by per-node costs:
recording, matching the graph to its cached Program, and Python's garbage collector (a
graph of this size used to trigger a full collection nearly every step). Interleaved
medians of the whole step (forward, backward, clear_grad), single-threaded, after warm-up.

Measured 2026-12-07 on the idle AVX-512 host, 200 steps: see perf/README.md. A scratch
version of this step (process time, busy host) went from jitgrad/torch 2.66 at ed4a957 to
0.97 at 038421b (the collector's oldest threshold 10 -> 100 after gc.freeze, and a
PlanMatcher for graphs past 400 nodes).
"""

from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMBA_NUM_THREADS", "JITGRAD_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import jitgrad as paddle  # noqa: E402
from _timing import fmt_time, interleaved  # noqa: E402

DT = 0.05


def rhs(cat, sin, s, p):
    th, om = s[:, 0:1], s[:, 1:2]
    return cat([om, -p[0] * om - p[1] * sin(th)], 1)


def rollout(cat, sin, stack, s, p, steps):
    traj = []
    for _ in range(steps):
        k1 = rhs(cat, sin, s, p)
        k2 = rhs(cat, sin, s + DT / 2 * k1, p)
        k3 = rhs(cat, sin, s + DT / 2 * k2, p)
        k4 = rhs(cat, sin, s + DT * k3, p)
        s = s + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj.append(s)
    return stack(traj)


def main() -> None:
    import torch
    torch.set_num_threads(1)
    paddle.warmup(quiet=True)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    s0 = np.array([[1.0, 0.0], [0.5, 0.3], [-0.7, 0.1]])
    with paddle.no_grad():
        target = rollout(paddle.concat, paddle.sin, paddle.stack, paddle.to_tensor(s0),
                         paddle.to_tensor([0.3, 2.0], "float64"), steps)
    pj = paddle.to_tensor(np.array([0.1, 1.5]), stop_gradient=False)
    pt = torch.tensor([0.1, 1.5], dtype=torch.float64, requires_grad=True)
    tj, tt, st = target, torch.tensor(target.numpy()), torch.tensor(s0)

    def jitgrad_step():
        y = rollout(paddle.concat, paddle.sin, paddle.stack, paddle.to_tensor(s0), pj, steps)
        ((y - tj) ** 2).mean().backward()
        pj.clear_grad()

    def torch_step():
        y = rollout(torch.cat, torch.sin, torch.stack, st, pt, steps)
        ((y - tt) ** 2).mean().backward()
        pt.grad = None

    # the same gradient first
    y = rollout(paddle.concat, paddle.sin, paddle.stack, paddle.to_tensor(s0), pj, steps)
    ((y - tj) ** 2).mean().backward()
    g = pj.grad.numpy().copy()
    pj.clear_grad()
    yt = rollout(torch.cat, torch.sin, torch.stack, st, pt, steps)
    ((yt - tt) ** 2).mean().backward()
    np.testing.assert_allclose(g, pt.grad.numpy(), rtol=1e-10)
    pt.grad = None
    med = interleaved({"jitgrad": jitgrad_step, "torch": torch_step}, samples=40, warmup=3,
                      budget_s=60.0, sample_s=0.0)
    print(f"RK4 rollout, {steps} steps ({steps * 53} nodes): jitgrad "
          f"{fmt_time(med['jitgrad'])}, torch {fmt_time(med['torch'])}, torch/jitgrad "
          f"{med['torch'] / med['jitgrad']:.2f}x")


if __name__ == "__main__":
    main()
