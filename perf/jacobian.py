"""Jacobians and Hessian-vector products, jitgrad against torch, single-threaded.

    /work/peers/bin/python perf/jacobian.py [--quick]

* J64: the full 64x64 Jacobian of f(x) = tanh(W2 tanh(W1 x + b1)), x of 64 float32, the
  forward included: `paddle.autograd.jacobian(f(x), x)[:]` (all rows in one batched
  backward) against `torch.autograd.functional.jacobian(f, x)` (a backward per row) and the
  same with `vectorize=True` (vmap over the rows).
* HVP: a Hessian-vector product of a small MLP's loss (8-32-32-1 tanh, batch 16) with
  respect to its first weight matrix, by double backward: gradient recorded with
  create_graph=True, then the gradient of <g, v>. jitgrad: the second backward is the
  compiled Program of the recorded gradient; torch: `autograd.grad` twice.

Gradients are compared before timing; medians of interleaved samples (_timing.py), ratio =
torch time / jitgrad time. Results measured are in perf/README.md ("Jacobians and HVPs").
"""

from __future__ import annotations

import argparse
import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "JITGRAD_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.abspath(os.path.join(HERE, "..", "src"))]

from _timing import fmt_time, interleaved, machine  # noqa: E402

import jitgrad as P  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)


def j64() -> dict:
    n = 64
    W1 = (RNG.standard_normal((n, n)) / 8).astype(np.float32)
    W2 = (RNG.standard_normal((n, n)) / 8).astype(np.float32)
    b1 = (RNG.standard_normal(n) / 8).astype(np.float32)
    x0 = RNG.standard_normal(n).astype(np.float32)
    pw1, pw2, pb1 = P.to_tensor(W1), P.to_tensor(W2), P.to_tensor(b1)
    tw1, tw2, tb1 = torch.tensor(W1), torch.tensor(W2), torch.tensor(b1)

    def jg() -> np.ndarray:
        x = P.to_tensor(x0, stop_gradient=False)
        y = P.tanh(P.matmul(pw2, P.tanh(P.matmul(pw1, x) + pb1)))
        return P.autograd.jacobian(y, x)[:]

    def tf(x):
        return torch.tanh(tw2 @ torch.tanh(tw1 @ x + tb1))

    def th() -> torch.Tensor:
        return torch.autograd.functional.jacobian(tf, torch.tensor(x0))

    def thv() -> torch.Tensor:
        return torch.autograd.functional.jacobian(tf, torch.tensor(x0), vectorize=True)

    err = float(np.abs(jg().numpy() - th().numpy()).max())
    return {"name": "J64", "err": err,
            "fns": {"jitgrad": jg, "torch": th, "torch vectorize": thv}}


def hvp() -> dict:
    sizes, B = (8, 32, 32, 1), 16
    Ws = [(RNG.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
          for a, b in zip(sizes[:-1], sizes[1:])]
    X = RNG.standard_normal((B, sizes[0])).astype(np.float32)
    V = RNG.standard_normal(Ws[0].shape).astype(np.float32)
    pW = [P.to_tensor(w, stop_gradient=False) for w in Ws]
    tW = [torch.tensor(w, requires_grad=True) for w in Ws]
    px, pv, tx, tv = P.to_tensor(X), P.to_tensor(V), torch.tensor(X), torch.tensor(V)

    def jg() -> np.ndarray:
        h = px
        for i, w in enumerate(pW):
            h = P.matmul(h, w)
            if i < len(pW) - 1:
                h = P.tanh(h)
        loss = (h * h).mean()
        (g,) = P.grad(loss, pW[0], create_graph=True)
        (hv,) = P.grad((g * pv).sum(), pW[0])
        return hv

    def th() -> torch.Tensor:
        h = tx
        for i, w in enumerate(tW):
            h = h @ w
            if i < len(tW) - 1:
                h = torch.tanh(h)
        loss = (h * h).mean()
        (g,) = torch.autograd.grad(loss, tW[0], create_graph=True)
        (hv,) = torch.autograd.grad((g * tv).sum(), tW[0])
        return hv

    err = float(np.abs(jg().numpy() - th().numpy()).max() / np.abs(th().numpy()).max())
    return {"name": "HVP", "err": err, "fns": {"jitgrad": jg, "torch": th}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    P.warmup(quiet=True)
    print(machine())
    for case in (j64(), hvp()):
        fns = case["fns"]
        for f in fns.values():
            for _ in range(5):
                f()
        med = interleaved(fns, samples=200, warmup=3, budget_s=3.0 if args.quick else 15.0,
                          sample_s=2e-3, shuffle=True)
        jg = med["jitgrad"]
        cols = ", ".join(f"{k} {fmt_time(v)} ({v / jg:.1f}x)" for k, v in med.items()
                         if k != "jitgrad")
        print(f"{case['name']}: jitgrad {fmt_time(jg)}; {cols}  (max difference "
              f"{case['err']:.1e})")


if __name__ == "__main__":
    main()
