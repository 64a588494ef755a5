"""Compiled forwards of the moving ops whose numpy spelling is many small strided copies:
padding (ops/padding.py: constant, reflect, replicate, circular), the flat puts of
put_along_axis, scatter_reduce's sum and __setitem__ (ops/indexing.py; along_assign and
along_add also find the positions along the axis), and cummax / cummin's running picks
(ops/lookup.py).

A 4-D pad of an 8 x 8 x 16 x 16 batch by numpy slices is five strided copies whose inner
runs are 16 or 1 elements long (~22 us; torch's whole pad ~10 us); one loop writes each
output row once. np.add.at costs ~1 us plus ~10 ns an element, the masks put_flat's
backward reads two more passes each. They only move (or, for 'add', add in order) values:
bit for bit numpy's results (tests/test_gather_forward_fast.py,
tests/test_forward_matrix_ops.py). Used once the backward has loaded Numba (ops/core.py
compiled_kernels).
"""

from __future__ import annotations

import numpy as np

from ._numba import jit


@jit
def pad4(x, out, m0, m1, m2, m3, a, n, fill):  # pragma: no cover - compiled
    """out[i, j, k, l] = x[m0[i], m1[j], m2[k], m3[l]] for 4-D C-contiguous x and out, `fill`
    where a map holds -1; along the last axis, out[..., a + l] = x[..., l] for l < n (the
    unpadded run, copied without its map). Each row through 1-D slices indexed by the loop
    counter: an offset computed from the maps' values made Numba check every index for
    wraparound (~6x slower), a 4-D row view cost ~4x."""
    A, B, C, D = out.shape
    XB, XC, XD = x.shape[1], x.shape[2], x.shape[3]
    xf = x.reshape(-1)
    of = out.reshape(-1)
    ob = 0
    for i in range(A):
        si = m0[i]
        for j in range(B):
            sj = m1[j]
            for k in range(C):
                sk = m2[k]
                o = of[ob:ob + D]
                ob += D
                if si < 0 or sj < 0 or sk < 0:
                    for l in range(D):
                        o[l] = fill
                    continue
                xb = ((si * XB + sj) * XC + sk) * XD
                r = xf[xb:xb + XD]
                for l in range(a):
                    s = m3[l]
                    o[l] = r[s] if s >= 0 else fill
                om = o[a:a + n]
                for l in range(n):
                    om[l] = r[l]
                for l in range(a + n, D):
                    s = m3[l]
                    o[l] = r[s] if s >= 0 else fill


@jit(inline="always")
def _all_in(idx, n):  # pragma: no cover - compiled
    """Every index in [0, n)."""
    for i in range(idx.size):
        j = idx[i]
        if j < 0 or j >= n:
            return False
    return True


@jit
def put_masks(idx, kept, written, last):  # pragma: no cover - compiled
    """put_flat 'assign's saved masks: kept[idx[i]] = 0, the rest 1, written[i] =
    1 for the write that lands (the last to a position), 0 for those overwritten; kept is
    filled here (np.ones costs ~1 us), `last` (kept's size) is scratch. False for an index
    outside [0, n) (the caller's numpy path then)."""
    n = kept.size
    m = idx.size
    if not _all_in(idx, n):
        return False
    for j in range(n):
        kept[j] = 1
    for i in range(m):
        j = idx[i]
        kept[j] = 0
        last[j] = i
    for i in range(m):
        written[i] = 1 if last[idx[i]] == i else 0
    return True


@jit
def along_positions(idx, n, post, pos):  # pragma: no cover - compiled
    """pos[p, i, q] = (p * n + idx[p, i, q]) * post + q for idx, pos (pre, k, post) C-contiguous,
    an index in [-n, 0) counted from the end; False for one outside [-n, n) (the caller
    raises)."""
    P, K, Q = idx.shape
    for p in range(P):
        for i in range(K):
            for q in range(Q):
                v = idx[p, i, q]
                if v < 0:
                    v += n
                    if v < 0:
                        return False
                elif v >= n:
                    return False
                pos[p, i, q] = (p * n + v) * post + q
    return True


@jit(fastmath=False)
def put_add(flat, idx, v):  # pragma: no cover - compiled
    """np.add.at(flat, idx, v): each value added to its position in order. False, nothing
    written, for an index outside [0, n) (the caller's numpy path then)."""
    if not _all_in(idx, flat.size):
        return False
    for i in range(idx.size):
        flat[idx[i]] += v[i]
    return True


@jit
def select_positions(idx, n, pos):  # pragma: no cover - compiled
    """pos[p, i, q] = (p * n + idx[i]) * Q + q for pos (P, K, Q) C-contiguous and a 1-D idx
    of K (index_select's table: the same index for every p and q), an index in [-n, 0)
    counted from the end; False for one outside [-n, n) (the caller raises)."""
    P, K, Q = pos.shape
    v = np.empty(K, np.int64)
    for i in range(K):
        j = idx[i]
        if j < 0:
            j += n
            if j < 0:
                return False
        elif j >= n:
            return False
        v[i] = j
    flat = pos.reshape(-1)
    o = 0
    for p in range(P):
        for i in range(K):
            base = (p * n + v[i]) * Q
            row = flat[o:o + Q]
            for q in range(Q):
                row[q] = base + q
            o += Q
    return True


@jit
def row_picks(rows, idx, pos, vals):  # pragma: no cover - compiled
    """vals[r, j] = rows[r, idx[r, j]] and pos[r * k + j] = r * n + idx[r, j] (the flat
    position read) for rows (m, n), idx and vals (m, k) C-contiguous: a take_flat node's table
    and values in one pass. False for an index outside [0, n) (the caller's numpy path)."""
    m, n = rows.shape
    k = idx.shape[1]
    if not _all_in(idx.reshape(-1), n):
        return False
    for r in range(m):
        row = rows[r]
        ir = idx[r]
        vr = vals[r]
        pr = pos[r * k:r * k + k]
        base = r * n
        for j in range(k):
            c = ir[j]
            vr[j] = row[c]
            pr[j] = base + c
    return True


@jit
def put_assign(x, idx, v, out, kept, written, last):  # pragma: no cover - compiled
    """put_flat 'assign' whole: out = x with out[idx[i]] = v[i] in order (the last write to a
    position lands), and put_masks' kept and written (all flat, C-contiguous). False,
    nothing meaningful written, for an index outside [0, n) (the caller's numpy path)."""
    if not put_masks(idx, kept, written, last):
        return False
    for j in range(x.size):
        out[j] = x[j]
    for i in range(idx.size):
        out[idx[i]] = v[i]
    return True


@jit
def along_assign(x, idx, v, out, pos, kept, written, last, n):  # pragma: no cover - compiled
    """put_along_axis 'assign' whole for an idx matching x off the axis: pos (as
    along_positions, idx and pos (pre, k, post) C-contiguous, x's axis of size n), then
    put_assign at pos.ravel() (out, kept, written; x, v, out, kept flat). False, nothing
    meaningful written, for an index outside [-n, n) (the caller's path then raises)."""
    if not along_positions(idx, n, idx.shape[2], pos):
        return False
    return put_assign(x, pos.reshape(-1), v, out, kept, written, last)


@jit(fastmath=False)
def along_add(x, idx, v, out, pos, n):  # pragma: no cover - compiled
    """put_along_axis 'add' (scatter_reduce 'sum' with its own values) likewise: pos, then
    out = a copy of x with each value of v added at its position in order (np.add.at's
    order, put_add's values). False for an index outside [-n, n)."""
    if not along_positions(idx, n, idx.shape[2], pos):
        return False
    for j in range(x.size):
        out[j] = x[j]
    p = pos.reshape(-1)
    for i in range(p.size):
        out[p[i]] += v[i]
    return True


@jit
def running_picks(rows, largest, idx, pos, vals):  # pragma: no cover - compiled
    """cummax / cummin along rows (m, n) without a NaN, whole: idx[r, j] where row r's
    running maximum (largest) or minimum over 0..j is, a later element equal to it
    winning (Paddle 3.3.1's cummax / cummin), and row_picks' table and values for it
    (pos[r * n + j] = r * n + idx[r, j], vals[r, j] = rows[r, idx[r, j]]); all
    C-contiguous. False, nothing meaningful written, when some element is NaN (the
    caller's NaN rules then)."""
    m, n = rows.shape
    for r in range(m):
        row = rows[r]
        for j in range(n):
            if row[j] != row[j]:
                return False
    for r in range(m):
        row = rows[r]
        ir = idx[r]
        vr = vals[r]
        pr = pos[r * n:r * n + n]
        base = r * n
        best = row[0]
        at = 0
        for j in range(n):
            v = row[j]
            if ((v > best) if largest else (v < best)) or v == best:
                best = v
                at = j
            ir[j] = at
            vr[j] = row[at]
            pr[j] = base + at
    return True
