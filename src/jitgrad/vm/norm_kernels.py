"""Compiled kernels of the normalization opcodes (opcodes.py): CHANSUM, a gradient summed
over the axes around a broadcast block (a per-channel scale of an NCHW image), MIDSUM, one
summed over a block of middle axes, and
NORM_BWD, the fused normalization primitive's input gradient (ops/normalization.py).
"""

from __future__ import annotations

import numpy as np

from ._numba import jit


@jit
def _chansum(out, a, rows, n, inner, acc):  # pragma: no cover - compiled
    """CHANSUM: out[j] (+)= the sum of a[(r * n + j) * inner + i] over r, i."""
    if not acc:
        for j in range(n):
            out[j] = 0
    zero = np.zeros(1, out.dtype)[0]        # (a[base] - a[base] is NaN for an inf)
    for r in range(rows):
        for j in range(n):
            base = (r * n + j) * inner
            s = zero
            for i in range(inner):
                s += a[base + i]
            out[j] += s


@jit
def _midsum(out, a, n, b, inner, acc):  # pragma: no cover - compiled
    """MIDSUM: out[k, j] (+)= the sum over b of a[k, b, j] (out [n / inner, inner]), each
    element's terms added in order of b. Runs of 16 or more row by row through slices
    indexed from 0, so the adds vectorise; shorter ones (a pairwise difference's (N, 1, D)
    operand, D of 1-4) by _midsum_short."""
    if not acc:
        for j in range(n):
            out[j] = 0
    if inner < 16:
        _midsum_short(out, a, n, b, inner)
        return
    for k in range(n // inner):
        o = out[k * inner:(k + 1) * inner]
        for r in range(b):
            s = a[(k * b + r) * inner:(k * b + r + 1) * inner]
            for j in range(inner):
                o[j] += s[j]


@jit(fastmath=False)
def _midsum_short(out, a, n, b, inner):  # pragma: no cover - compiled
    """_midsum's adds for runs shorter than 16, the same order per element: b outermost
    within a tile of rows k, so consecutive adds go to different elements (a run at a
    time, each add waited for the one before into the same element through memory: (64,
    64, 2) -> (64, 1, 2) float32 12 -> 4 us). Runs of 1-3 take a loop of constant length
    (unrolled). (No reassociation: nothing here may reorder a sum.)"""
    ub, ui = np.uint64(b), np.uint64(inner)    # (unsigned: no wraparound test)
    rows = np.uint64(n // inner)
    tile = np.uint64(max(1, 2048 // inner))
    for k0 in range(np.uint64(0), rows, tile):
        k1 = min(k0 + tile, rows)
        for r in range(ub):
            if inner == 1:
                _midsum_tile(out, a, k0, k1, ub, np.uint64(1), r)
            elif inner == 2:
                _midsum_tile(out, a, k0, k1, ub, np.uint64(2), r)
            elif inner == 3:
                _midsum_tile(out, a, k0, k1, ub, np.uint64(3), r)
            else:
                _midsum_tile(out, a, k0, k1, ub, ui, r)


@jit(fastmath=False, inline="always")
def _midsum_tile(out, a, k0, k1, b, inner, r):  # pragma: no cover - compiled
    """out[k, :] += a[k, r, :] for rows k0 <= k < k1 (uint64 indices)."""
    for k in range(k0, k1):
        o = k * inner
        q = (k * b + r) * inner
        for j in range(inner):
            out[o + j] += a[q + j]


@jit
def _norm_bwd_columns(out, g, xh, rstd, w, R, S, acc):  # pragma: no cover - compiled
    """NORM_BWD for [R, S] normalised per column (statistic = channel = s), by row slices."""
    sh = np.zeros(S, rstd.dtype)
    shx = np.zeros(S, rstd.dtype)
    for r in range(R):
        gr, xr = g[r * S:(r + 1) * S], xh[r * S:(r + 1) * S]
        for s in range(S):
            h = gr[s] * w[s]
            sh[s] += h
            shx[s] += h * xr[s]
    for s in range(S):
        sh[s] /= R
        shx[s] /= R
    for r in range(R):
        gr, xr, orow = g[r * S:(r + 1) * S], xh[r * S:(r + 1) * S], out[r * S:(r + 1) * S]
        if acc:
            for s in range(S):
                orow[s] += rstd[s] * (gr[s] * w[s] - sh[s] - xr[s] * shx[s])
        else:
            for s in range(S):
                orow[s] = rstd[s] * (gr[s] * w[s] - sh[s] - xr[s] * shx[s])


@jit
def _norm_bwd(out, g, xh, aux, prm, acc):  # pragma: no cover - compiled
    """NORM_BWD: two passes, the per-statistic sums of h and h * xhat, then the gradient;
    the affine channel is constant along runs of Q elements (or is l, Q = 0). Runs of 16
    or more go through slices (indexing g[base + l] did not vectorise: ~4x slower); short
    ones (batch_norm over [N, C]: runs of 1) index directly (a slice each cost ~20 ns)."""
    R, S, L, A, Q = prm[0], prm[1], prm[2], prm[3], prm[4]
    rstd, w = aux[:S], aux[S:S + A]
    if L == 1 and Q == 1 and A == S:    # batch_norm over [N, C]: per column
        _norm_bwd_columns(out, g, xh, rstd, w, R, S, acc)
        return
    zero = np.zeros(1, out.dtype)[0]        # (g[0] - g[0] is NaN for an inf gradient)
    run = Q if Q > 0 else L
    sh = np.zeros(S, aux.dtype)
    shx = np.zeros(S, aux.dtype)
    ch = 0                              # (e // Q) % A, counted: runs come in order
    for r in range(R):
        for s in range(S):
            base = (r * S + s) * L
            t0, t1 = zero, zero
            for c0 in range(0, L, run):
                lo = base + c0
                wc = w[ch] if Q > 0 else zero
                ch = ch + 1 if ch + 1 < A else 0
                if run < 16:
                    for l in range(run):
                        h = g[lo + l] * (wc if Q > 0 else w[l])
                        t0 += h
                        t1 += h * xh[lo + l]
                    continue
                gs, xs = g[lo:lo + run], xh[lo:lo + run]
                if Q == 0:
                    for l in range(run):
                        h = gs[l] * w[l]
                        t0 += h
                        t1 += h * xs[l]
                else:
                    for l in range(run):
                        h = gs[l] * wc
                        t0 += h
                        t1 += h * xs[l]
            sh[s] += t0
            shx[s] += t1
    m = R * L
    for s in range(S):
        sh[s] /= m
        shx[s] /= m
    ch = 0
    for r in range(R):
        for s in range(S):
            base = (r * S + s) * L
            k, u, v = rstd[s], sh[s], shx[s]
            for c0 in range(0, L, run):
                lo = base + c0
                wc = w[ch] if Q > 0 else zero
                ch = ch + 1 if ch + 1 < A else 0
                if run < 16:
                    for l in range(run):
                        val = k * (g[lo + l] * (wc if Q > 0 else w[l]) - u - xh[lo + l] * v)
                        if acc:
                            out[lo + l] += val
                        else:
                            out[lo + l] = val
                    continue
                gs, xs, os = g[lo:lo + run], xh[lo:lo + run], out[lo:lo + run]
                if Q == 0:
                    if acc:
                        for l in range(run):
                            os[l] += k * (gs[l] * w[l] - u - xs[l] * v)
                    else:
                        for l in range(run):
                            os[l] = k * (gs[l] * w[l] - u - xs[l] * v)
                else:
                    if acc:
                        for l in range(run):
                            os[l] += k * (gs[l] * wc - u - xs[l] * v)
                    else:
                        for l in range(run):
                            os[l] = k * (gs[l] * wc - u - xs[l] * v)
