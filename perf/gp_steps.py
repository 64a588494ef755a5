"""A fresh-graph Gaussian-process regression step, and its linear algebra alone, jitgrad
against torch, single-threaded.

    /work/peers/bin/python perf/gp_steps.py [--dtype float64] [--only gp,ops] [--budget 8]

The GP step is what GP research code does to fit kernel hyper-parameters: an RBF kernel
matrix K [N, N] from N points in 3-D with a per-dimension lengthscale, a variance and a
noise (log-parametrised, the three parameters requiring gradients), its Cholesky factor L,
the solve with the factor, the log-determinant from L's diagonal, the negative marginal
log-likelihood 0.5 y^T K^-1 y + sum(log diag L) + N/2 log(2 pi), backward to the
parameters, clear. Two spellings of the solve: `chol_solve` (paddle.linalg.cholesky_solve
/ torch.cholesky_solve) and `tri_solve` (one triangular solve v = L^-1 y, the data term
0.5 |v|^2: paddle.linalg.triangular_solve / torch.linalg.solve_triangular), for N = 64,
128, 256. The `op:` rows time one op with a parameter matrix and its backward alone:
(op(...) * C).sum(), backward, clear.

Each row's two steps are compared first (loss and gradients, relative max error), then
timed in interleaved shuffled samples (_timing.interleaved); the table gives the medians
and torch / jitgrad (> 1: jitgrad faster). One thread everywhere.

Measured 2026-12-07 16:30-16:36 UTC, busy 2-core host (load 6-7), float64, --budget 5, each
tree twice in turn (geometric mean over the 11 rows; N = 64 / 128 / 256 GP rows):
  711803a (LU solves, saved inverses): 0.61x, 0.60x; chol_solve 1.00 0.75 0.53 and 0.85
    0.76 0.49, tri_solve 0.90 0.31 0.58 and 0.96 0.33 0.44
  ce8f8e0 (BLAS trsm, TRSM backward): 1.69x, 1.86x; chol_solve 1.44 2.92 1.44 and 0.94
    1.40 1.43, tri_solve 1.21 1.24 1.33 and 1.58 2.50 1.11 (N = 256: 13 ms, torch 14-19)
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
           "JITGRAD_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.abspath(os.path.join(HERE, "..", "src"))]

from _timing import fmt_time, interleaved, machine  # noqa: E402

import jitgrad as P  # noqa: E402

import torch  # noqa: E402

torch.set_num_threads(1)

LOG2PI = math.log(2 * math.pi)


# ---- the GP negative marginal log-likelihood, written once per library ---------------------

def _gp_nll_paddle(X, y, p, solve):
    ls, var, noise = P.exp(p["log_ls"]), P.exp(p["log_var"]), P.exp(p["log_noise"])
    n = X.shape[0]
    Xs = X / ls
    sq = (Xs * Xs).sum(axis=1)
    d2 = P.clip(sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * P.matmul(Xs, Xs, transpose_y=True),
                min=0.0)
    eye = P.eye(n, dtype=X.dtype)
    K = var * P.exp(-0.5 * d2) + (noise + 1e-6) * eye
    L = P.linalg.cholesky(K)
    yc = y.unsqueeze(1)
    if solve == "chol_solve":
        alpha = P.linalg.cholesky_solve(yc, L)
        fit = 0.5 * (yc * alpha).sum()
    else:
        v = P.linalg.triangular_solve(L, yc, upper=False)
        fit = 0.5 * (v * v).sum()
    return fit + P.log(P.diagonal(L)).sum() + 0.5 * n * LOG2PI


def _gp_nll_torch(X, y, p, solve):
    ls, var, noise = p["log_ls"].exp(), p["log_var"].exp(), p["log_noise"].exp()
    n = X.shape[0]
    Xs = X / ls
    sq = (Xs * Xs).sum(dim=1)
    d2 = torch.clamp(sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * Xs @ Xs.T, min=0.0)
    eye = torch.eye(n, dtype=X.dtype)
    K = var * torch.exp(-0.5 * d2) + (noise + 1e-6) * eye
    L = torch.linalg.cholesky(K)
    yc = y.unsqueeze(1)
    if solve == "chol_solve":
        alpha = torch.cholesky_solve(yc, L)
        fit = 0.5 * (yc * alpha).sum()
    else:
        v = torch.linalg.solve_triangular(L, yc, upper=False)
        fit = 0.5 * (v * v).sum()
    return fit + torch.log(torch.diagonal(L)).sum() + 0.5 * n * LOG2PI


def _gp_data(n, dt, rng):
    X = rng.uniform(-2, 2, (n, 3))
    y = np.sin(X @ np.array([1.0, -0.5, 0.3])) + 0.1 * rng.standard_normal(n)
    params = {"log_ls": np.log(np.array([0.8, 1.1, 1.5])), "log_var": np.log(np.array(1.3)),
              "log_noise": np.log(np.array(0.05))}
    return ({"X": X.astype(dt), "y": y.astype(dt)},
            {k: v.astype(dt) for k, v in params.items()})


def _spd(n, dt, rng):
    a = rng.standard_normal((n, n)) / math.sqrt(n)
    return (a @ a.T + np.eye(n)).astype(dt)


def _lower(n, dt, rng):
    return np.linalg.cholesky(_spd(n, dt, rng).astype(np.float64)).astype(dt)


# ---- cases: name -> (paddle loss, torch loss, constants, parameters) -----------------------

def gp_case(n, solve, dt, rng):
    consts, params = _gp_data(n, dt, rng)
    return (lambda c, p: _gp_nll_paddle(c["X"], c["y"], p, solve),
            lambda c, p: _gp_nll_torch(c["X"], c["y"], p, solve), consts, params)


def op_cases(dt, rng):
    n, k = 128, 4
    L = _lower(n, dt, rng)
    out = {}
    out[f"op:triangular_solve {n}x{n}, k={k}"] = (
        lambda c, p: (P.linalg.triangular_solve(p["A"], c["B"], upper=False) * c["C"]).sum(),
        lambda c, p: (torch.linalg.solve_triangular(torch.tril(p["A"]), c["B"], upper=False)
                      * c["C"]).sum(),
        {"B": rng.standard_normal((n, k)).astype(dt), "C": rng.standard_normal((n, k)).astype(dt)},
        {"A": L})
    out[f"op:triangular_solve 8x{32}x{32} upper T, k={k}"] = (
        lambda c, p: (P.linalg.triangular_solve(p["A"], c["B"], upper=True, transpose=True)
                      * c["C"]).sum(),
        lambda c, p: (torch.linalg.solve_triangular(torch.triu(p["A"]).mT, c["B"], upper=False)
                      * c["C"]).sum(),
        {"B": rng.standard_normal((8, 32, k)).astype(dt),
         "C": rng.standard_normal((8, 32, k)).astype(dt)},
        {"A": np.stack([_lower(32, dt, rng).T for _ in range(8)])})
    out[f"op:cholesky_solve {n}x{n}, k={k}"] = (
        lambda c, p: (P.linalg.cholesky_solve(c["B"], p["A"]) * c["C"]).sum(),
        lambda c, p: (torch.cholesky_solve(c["B"], torch.tril(p["A"])) * c["C"]).sum(),
        {"B": rng.standard_normal((n, k)).astype(dt), "C": rng.standard_normal((n, k)).astype(dt)},
        {"A": L})
    for m in (64, 128):
        out[f"op:cholesky {m}x{m}"] = (
            lambda c, p: (P.linalg.cholesky(p["A"]) * c["C"]).sum(),
            lambda c, p: (torch.linalg.cholesky(p["A"]) * c["C"]).sum(),
            {"C": np.tril(rng.standard_normal((m, m))).astype(dt)},
            {"A": _spd(m, dt, rng)})
    return out


def _paddle_step(fn, consts, params):
    c = {k: P.to_tensor(v) for k, v in consts.items()}
    p = {k: P.to_tensor(v, stop_gradient=False) for k, v in params.items()}

    def step():
        loss = fn(c, p)
        loss.backward()
        for t in p.values():
            t.clear_grad()

    def values():
        loss = fn(c, p)
        loss.backward()
        out = [loss.numpy().copy()] + [p[k].grad.numpy().copy() for k in params]
        for t in p.values():
            t.clear_grad()
        return out
    return step, values


def _torch_step(fn, consts, params):
    c = {k: torch.tensor(v) for k, v in consts.items()}
    p = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}

    def step():
        loss = fn(c, p)
        loss.backward()
        for t in p.values():
            t.grad = None

    def values():
        loss = fn(c, p)
        loss.backward()
        out = [loss.detach().numpy().copy()] + [p[k].grad.numpy().copy() for k in params]
        for t in p.values():
            t.grad = None
        return out
    return step, values


def _error(a, b):
    return max(float(np.max(np.abs(x - y))) / max(float(np.max(np.abs(y))), 1e-30)
               for x, y in zip(a, b))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float64", choices=("float32", "float64"))
    ap.add_argument("--only", default="gp,ops", help="gp, ops, or both (comma separated)")
    ap.add_argument("--budget", type=float, default=8.0, help="seconds of samples per row")
    ap.add_argument("--sizes", default="64,128,256")
    args = ap.parse_args()
    dt = np.dtype(args.dtype)
    P.warmup(quiet=True)
    rng = np.random.default_rng(0)
    cases = {}
    if "gp" in args.only:
        for n in (int(s) for s in args.sizes.split(",")):
            for solve in ("chol_solve", "tri_solve"):
                cases[f"gp {solve} N={n}"] = gp_case(n, solve, dt, rng)
    if "ops" in args.only:
        cases.update(op_cases(dt, rng))
    print(f"# {args.dtype}, jitgrad {P.__file__}, torch {torch.__version__}, {machine()}")
    print(f"{'case':40s} {'jitgrad':>11s} {'torch':>11s} {'torch/jg':>9s}  err")
    ratios = []
    for name, (pf, tf, consts, params) in cases.items():
        ps, pv = _paddle_step(pf, consts, params)
        ts, tv = _torch_step(tf, consts, params)
        err = _error(pv(), tv())
        tol = 1e-3 if dt == np.float32 else 1e-8
        if not err < tol:
            print(f"{name:40s} DISAGREE: relative error {err:.2e}")
            continue
        med = interleaved({"jitgrad": ps, "torch": ts}, samples=400, warmup=5,
                          budget_s=args.budget, sample_s=2e-3, shuffle=True)
        r = med["torch"] / med["jitgrad"]
        ratios.append(r)
        print(f"{name:40s} {fmt_time(med['jitgrad'])} {fmt_time(med['torch'])} "
              f"{r:8.2f}x  {err:.1e}", flush=True)
    if ratios:
        print(f"geometric mean {statistics.geometric_mean(ratios):.2f}x over {len(ratios)} rows")


if __name__ == "__main__":
    main()
