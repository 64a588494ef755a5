"""Compiled forwards of small-matrix linear algebra: one LU per matrix, in float64.

numpy's batched np.linalg.solve and np.linalg.inv call LAPACK once per matrix through a
gufunc loop, ~1 us a matrix of setup for an 8 x 8 one (32 of them: ~35 us a call), and the
solve op made two such calls per step: the solution, and the inverse its backward reads.
Here one LU with partial pivoting (LAPACK getrf's pivot choice: the largest magnitude in
the column) factors each matrix once and solves for the right-hand sides and, when asked,
for the identity's columns. The arithmetic is float64 whatever the input (a float32 result
is rounded once at the end: at least as accurate as LAPACK's float32 routines). Only small
matrices come here (ops/matrix.py's SMALL_N): LAPACK's blocked code wins on large ones.
Like vm/forward.py, the kernels run only once the backward interpreter has imported Numba.
"""

from __future__ import annotations

import numpy as np

from ._numba import jit
from . import blas
from .blas import trsm


@jit(fastmath=False)
def lu_solve(a, b, out, inv, sign, logabs):  # pragma: no cover - compiled
    """out[m] = a[m]^-1 b[m] for each matrix m of a [M, n, n] and b [M, n, k]; inv [M, n, n]
    (or [0, n, n]: not wanted) receives a[m]^-1, and sign [M] and logabs [M] (float64) the
    determinant's sign and log|det|. Returns -1, or the first m whose matrix is singular
    (an exactly zero or a NaN pivot: numpy's and Paddle's solve and inverse raise there);
    nothing is written for that matrix and those after it."""
    M, n, k = a.shape[0], a.shape[1], b.shape[2]
    cols = k + (n if inv.shape[0] > 0 else 0)
    lu = np.empty((n, n))
    perm = np.empty(n, np.int64)
    y = np.empty((n, cols))                 # the solutions, a row per unknown
    for m in range(M):
        for i in range(n):
            for j in range(n):
                lu[i, j] = a[m, i, j]
            perm[i] = i
        sg, la = 1.0, 0.0
        for j in range(n):
            p = j
            best = abs(lu[j, j])
            for i in range(j + 1, n):
                v = abs(lu[i, j])
                if v > best:
                    best = v
                    p = i
            if not best > 0.0:          # zero, or NaN (numpy and Paddle raise too)
                return m
            if p != j:
                for c in range(n):
                    t = lu[j, c]
                    lu[j, c] = lu[p, c]
                    lu[p, c] = t
                t2 = perm[j]
                perm[j] = perm[p]
                perm[p] = t2
                sg = -sg
            d = lu[j, j]
            if d < 0.0:
                sg = -sg
            la += np.log(abs(d))
            for i in range(j + 1, n):
                f = lu[i, j] / d
                lu[i, j] = f
                for c in range(j + 1, n):
                    lu[i, c] -= f * lu[j, c]
        sign[m] = sg
        logabs[m] = la
        # all right-hand sides at once, a row of them at a time (each row's loop over the
        # columns vectorises; per element the same subtractions in the same order as one
        # column at a time: the same bits)
        for i in range(n):
            r = perm[i]
            yr = y[i]
            for c in range(k):
                yr[c] = b[m, r, c]
            for c in range(k, cols):
                yr[c] = 1.0 if r == c - k else 0.0
        for i in range(n):                  # L (unit diagonal)
            yr = y[i]
            for t3 in range(i):
                f = lu[i, t3]
                yt = y[t3]
                for c in range(cols):
                    yr[c] -= f * yt[c]
        for i in range(n - 1, -1, -1):      # U
            yr = y[i]
            for t3 in range(i + 1, n):
                f = lu[i, t3]
                yt = y[t3]
                for c in range(cols):
                    yr[c] -= f * yt[c]
            d = lu[i, i]
            for c in range(cols):
                yr[c] = yr[c] / d
        for i in range(n):
            yr = y[i]
            for c in range(k):
                out[m, i, c] = yr[c]
            for c in range(k, cols):
                inv[m, i, c - k] = yr[c]
    return -1


@jit(fastmath=False)
def cholesky_factor(a, L):  # pragma: no cover - compiled
    """L[m] the Cholesky factor of a[m] read from its lower triangle (a [M, n, n]; as
    LAPACK and Paddle read it), in float64 (rounded once to L's dtype):
    Cholesky-Banachiewicz. Returns -1, or the first m whose matrix is not positive
    definite (a pivot <= 0 or NaN: numpy and Paddle raise there)."""
    M, n = a.shape[0], a.shape[1]
    f = np.zeros((n, n))
    for m in range(M):
        for i in range(n):
            for j in range(i + 1):
                s = np.float64(a[m, i, j])
                for k in range(j):
                    s -= f[i, k] * f[j, k]
                if i == j:
                    if not s > 0.0:
                        return m
                    f[i, i] = np.sqrt(s)
                else:
                    f[i, j] = s / f[j, j]
        for i in range(n):
            for j in range(n):
                L[m, i, j] = f[i, j] if j <= i else 0.0
    return -1


@jit(stamp_with=(blas.__file__,))
def trsm_batch(a, b, upper, trans, unit, left):  # pragma: no cover - compiled
    """b[m] := op(T[m])^-1 b[m] (left) or b[m] op(T[m])^-1 in place, b [M, p, q] and a [M,
    k, k] (k = p left, q right; C-contiguous, one float dtype): blas_lib.forward_trsm's
    calls from compiled code (a ctypes call costs ~3 us: 8 of them were most of a 16 x 16
    solve's time)."""
    M, p, q = b.shape[0], b.shape[1], b.shape[2]
    k = p if left else q
    fa, fb = a.reshape(M * k * k), b.reshape(M * p * q)
    for m in range(M):
        trsm(fa[m * k * k:(m + 1) * k * k], fb[m * p * q:(m + 1) * p * q], p, q, left, upper,
             trans, unit)
