"""Fresh-graph training steps through binary ops broadcast over a short inner axis (pairwise
differences, n-body forces), jitgrad against torch, single-threaded.

    /work/peers/bin/python perf/broadcast_steps.py               # every case (~2 min)
    /work/peers/bin/python perf/broadcast_steps.py --only sub_64x2,pdist_64x2
    /work/peers/bin/python perf/broadcast_steps.py --quick       # short budgets

A step is what a research loop does with a new graph: forward, a scalar loss, backward,
clear the parameters' gradients (op_steps.py's step; its input helpers, tensors, checks and
_timing's shuffled interleaved samples are reused here). Each case's parameters are the
operands before the broadcast (x of shape (N, D) taken as x[:, None, :] and x[None, :, :]),
so the backward sums the output's gradient back over each broadcast axis. Loss and
gradients are compared with torch's first (max |jg - torch| / max |torch| < tol); the
table gives step medians, the forwards alone (recording, the graph dropped) and the ratio
torch / jitgrad (> 1: jitgrad faster).

Measured 2026-12-07 16:42-16:48 UTC on a loaded host (load 6-7), two runs each, alternating:
711803a (before the broadcast kernels) geometric mean 0.92x and 0.88x, 12-13 of 20 slower,
forward alone 0.36-0.38x; ec87d11 1.75x and 1.61x, 2 slower (sub_512x4, mul_256x4:
0.91-0.97x), forward 0.76x. The table is in perf/README.md.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
           "JITGRAD_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
from typing import Any, Callable  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_steps as S  # noqa: E402  (puts this checkout's src/ first, sets torch's threads)
from _timing import fmt_time, interleaved  # noqa: E402
from op_steps import N, P, U, geomean, graph_ops, rel_err, tensors, torch  # noqa: E402


def pair(n: int, d: int, lo: float = -2.0, hi: float = 2.0) -> dict:
    """x, y (n, d) parameters and a weight c (n, n, d) for (op(x[:, None], y[None]) c).sum()."""
    return {"x": U(n, d, lo=lo, hi=hi, p=True), "y": U(n, d, lo=lo, hi=hi, p=True),
            "c": N(n, n, d)}


def binop(jf: Callable, tf: Callable, n: int, d: int, lo: float = -2.0,
          hi: float = 2.0) -> tuple:
    """(op(x[:, None, :], y[None, :, :]) * c).sum(): (n, 1, d) against (1, n, d)."""
    return (lambda t: (jf(t.x[:, None, :], t.y[None, :, :]) * t.c).sum(),
            lambda t: (tf(t.x[:, None, :], t.y[None, :, :]) * t.c).sum(), pair(n, d, lo, hi))


def pdist(n: int, d: int) -> tuple:
    """The pairwise-distance idiom: sqrt(((x[:, None] - x[None]) ** 2).sum(-1) + 1e-6)
    weighted by c (n, n)."""
    def f(t: Any, root: Callable) -> Any:
        r = t.x[:, None, :] - t.x[None, :, :]
        return (root((r ** 2).sum(-1) + 1e-6) * t.c).sum()
    return (lambda t: f(t, P.sqrt), lambda t: f(t, torch.sqrt),
            {"x": U(n, d, p=True), "c": N(n, n)})


def nbody(n: int, d: int) -> tuple:
    """Softened gravity: r = x[:, None] - x[None], F = sum_j r (|r|^2 + eps)^-1.5 m_j, the
    loss F . c (c (n, d))."""
    def f(t: Any) -> Any:
        r = t.x[:, None, :] - t.x[None, :, :]
        inv = ((r * r).sum(-1, keepdim=True) + 0.01) ** -1.5
        return ((r * inv * t.m[None, :, None]).sum(1) * t.c).sum()
    return (f, f, {"x": U(n, d, p=True), "m": U(n, lo=0.5, hi=1.5, p=True), "c": N(n, d)})


def outer(jf: Callable, tf: Callable, n: int) -> tuple:
    """(op(x[:, None], y[None, :]) * c).sum(): (n, 1) against (1, n)."""
    return (lambda t: (jf(t.x[:, None], t.y[None, :]) * t.c).sum(),
            lambda t: (tf(t.x[:, None], t.y[None, :]) * t.c).sum(),
            {"x": U(n, p=True), "y": U(n, p=True), "c": N(n, n)})


def batched(jf: Callable, tf: Callable, b: int, n: int, d: int) -> tuple:
    """(op(x[:, :, None], y[:, None]) * c).sum(): (b, n, 1, d) against (b, 1, n, d)."""
    return (lambda t: (jf(t.x[:, :, None, :], t.y[:, None, :, :]) * t.c).sum(),
            lambda t: (tf(t.x[:, :, None, :], t.y[:, None, :, :]) * t.c).sum(),
            {"x": U(b, n, d, p=True), "y": U(b, n, d, p=True), "c": N(b, n, n, d)})


CASES: dict[str, tuple] = {
    "sub_64x2": binop(P.subtract, torch.subtract, 64, 2),
    "sub_16x3": binop(P.subtract, torch.subtract, 16, 3),
    "sub_128x1": binop(P.subtract, torch.subtract, 128, 1),
    "sub_256x3": binop(P.subtract, torch.subtract, 256, 3),
    "sub_512x4": binop(P.subtract, torch.subtract, 512, 4),
    "add_64x2": binop(P.add, torch.add, 64, 2),
    "mul_64x2": binop(P.multiply, torch.multiply, 64, 2),
    "mul_256x4": binop(P.multiply, torch.multiply, 256, 4),
    "div_64x2": binop(P.divide, torch.divide, 64, 2, 0.5, 2.0),
    "max_64x2": binop(P.maximum, torch.maximum, 64, 2),
    "min_64x3": binop(P.minimum, torch.minimum, 64, 3),
    "pow_64x2": binop(P.pow, torch.pow, 64, 2, 0.5, 2.0),
    "sub_outer_64": outer(P.subtract, torch.subtract, 64),
    "mul_outer_512": outer(P.multiply, torch.multiply, 512),
    "mul_b8_32x4": batched(P.multiply, torch.multiply, 8, 32, 4),
    "sub_b4_64x2": batched(P.subtract, torch.subtract, 4, 64, 2),
    "pdist_64x2": pdist(64, 2),
    "pdist_256x3": pdist(256, 3),
    "nbody_64x2": nbody(64, 2),
    "nbody_256x3": nbody(256, 3),
}


def run(name: str, budget: float) -> dict:
    jf, tf, inputs = CASES[name][:3]
    tj, tt, pj, pt = tensors(inputs, seed=1)
    lj, lt = jf(tj), tf(tt)
    row: dict = {"op": name, "nodes": len(graph_ops(lj))}
    lj.backward()
    lt.backward()
    errs = [rel_err(a.grad.numpy(), b.grad.numpy()) for a, b in zip(pj, pt)]
    row.update(loss_err=rel_err(lj.numpy(), lt.detach().numpy()), grad_err=max(errs))
    if row["loss_err"] > 1e-4 or row["grad_err"] > 1e-3:
        row["status"] = "disagree"
        return row
    tj, tt, pj, pt = tensors(inputs, seed=1)
    step_j, step_t = S.training_steps(jf, tf, tj, tt, pj, pt)
    for _ in range(10):
        step_j()
        step_t()
    row["cache"] = S.cache_state(step_j)
    opts = dict(samples=1000, warmup=3, sample_s=1e-3, shuffle=True)
    med = interleaved({"jitgrad": step_j, "torch": step_t}, budget_s=budget, **opts)
    fwd = interleaved({"jitgrad": lambda: jf(tj), "torch": lambda: tf(tt)},
                      budget_s=budget / 2, **opts)
    row.update(status="timed", jitgrad_s=med["jitgrad"], torch_s=med["torch"],
               ratio=med["torch"] / med["jitgrad"], jitgrad_fwd_s=fwd["jitgrad"],
               torch_fwd_s=fwd["torch"], fwd_ratio=fwd["torch"] / fwd["jitgrad"])
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--quick", action="store_true", help="short time budgets")
    args = ap.parse_args()
    names = [w.strip() for w in args.only.split(",") if w.strip()] or list(CASES)
    unknown = [w for w in names if w not in CASES]
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(unknown)}; known: {', '.join(CASES)}")
    P.warmup()
    budget = 0.5 if args.quick else 3.0
    print(f"{'case':16s}{'step jg':>12s}{'step torch':>12s}{'ratio':>8s}{'fwd jg':>12s}"
          f"{'fwd torch':>12s}{'ratio':>8s}{'nodes':>6s}{'cache':>6s}{'grad err':>9s}",
          flush=True)
    rows = []
    for name in names:
        r = run(name, budget)
        rows.append(r)
        if r["status"] != "timed":
            print(f"{name:16s} DISAGREE: loss err {r['loss_err']:.1e}, grad err "
                  f"{r['grad_err']:.1e}", flush=True)
            continue
        print(f"{name:16s}{fmt_time(r['jitgrad_s']):>12s}{fmt_time(r['torch_s']):>12s}"
              f"{r['ratio']:7.2f}x{fmt_time(r['jitgrad_fwd_s']):>12s}"
              f"{fmt_time(r['torch_fwd_s']):>12s}{r['fwd_ratio']:7.2f}x{r['nodes']:6d}"
              f"{r['cache']:>6s}{r['grad_err']:9.1e}", flush=True)
    timed = [r for r in rows if r["status"] == "timed"]
    print(f"\n{len(timed)} timed: step torch/jitgrad geometric mean "
          f"{geomean([r['ratio'] for r in timed]):.2f}x "
          f"({sum(r['ratio'] < 1 for r in timed)} slower than torch); forward alone "
          f"{geomean([r['fwd_ratio'] for r in timed]):.2f}x "
          f"({sum(r['fwd_ratio'] < 1 for r in timed)} slower)")


if __name__ == "__main__":
    main()
