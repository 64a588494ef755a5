"""Compiled one-pass forwards of reductions and a scan: max / min with their tie-split
weights (ops/reduce.py), the Euclidean norm with its weights (ops/stats.py's l2_norm),
logsumexp with its softmax weights (ops/stats.py), cumsum (ops/scan.py), and sums over a
short axis (ops/reduce.py's _axis_sum, where numpy's reduction loops per short row).

numpy took several passes over the array for each (max's saved weights: a comparison, a
count per group, a float64 division and a cast, ~10 us on a 32 x 64 float32 array where
the max itself took 3); these loops compute the output and the saved arrays together, each
bit for bit what the numpy path gives (tests/test_forward_reduce.py). The ops call them
only once the backward interpreter has loaded Numba (ops/core.compiled_input), for
C-contiguous float32 / float64 inputs viewed as [P, n, Q]: the reduced (or scanned) axes
are the middle n elements, a contiguous run of axes (Q = 1, the trailing axes or all, for
the sums: numpy's pairwise sum is per row there, vm/forward.py's _pairwise_sum).
logsumexp keeps numpy's exp and log (SIMD implementations a compiled loop would not match
bit for bit), called between its passes.

No fastmath anywhere: each kernel's values are numpy's, NaN, infinities and signed zeros
included (reassociation would change a sum's bits, nsz a zero's sign).
"""

from __future__ import annotations

import numpy as np

from ._numba import jit
from . import forward
from .forward import _pairwise_sum, scan_columns, scan_rows

# ---- max and min with their tie-split weights (ops/reduce.py's _tie_mask) -------------------
# The weights of a group: 1 / count (rounded from float64 to x's dtype) where x == the
# extreme, 0 elsewhere; a group holding a NaN has a NaN extreme, which nothing equals, so
# numpy's 0 / 0 everywhere (`nanw`: numpy's own, passed in). The extreme itself is exact
# (one of the group's elements) but for two cases where numpy's answer depends on its
# SIMD order: a NaN (which NaN) and a tie of +0 and -0 (which zero); the kernel returns 1
# for those and the caller takes numpy's output (the weights do not depend on it).

@jit(fastmath=False, inline="always")
def _pick(a, b, is_max):  # pragma: no cover - compiled
    return max(a, b) if is_max else min(a, b)


@jit(fastmath=False)
def _extreme_lanes(r, n, is_max):  # pragma: no cover - compiled
    """The max (is_max) or min of r[:n] (n >= 1) without NaN, in eight independent lanes (a
    single running max waits on each comparison). A NaN or a +-0 tie gives some element:
    the caller checks for both."""
    if n < 16:
        m = r[0]
        for k in range(1, n):
            m = _pick(m, r[k], is_max)
        return m
    m0, m1, m2, m3, m4, m5, m6, m7 = r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
    k = 8
    end = n - n % 8
    while k < end:
        m0 = _pick(m0, r[k], is_max)
        m1 = _pick(m1, r[k + 1], is_max)
        m2 = _pick(m2, r[k + 2], is_max)
        m3 = _pick(m3, r[k + 3], is_max)
        m4 = _pick(m4, r[k + 4], is_max)
        m5 = _pick(m5, r[k + 5], is_max)
        m6 = _pick(m6, r[k + 6], is_max)
        m7 = _pick(m7, r[k + 7], is_max)
        k += 8
    for i in range(end, n):
        m0 = _pick(m0, r[i], is_max)
    m0 = _pick(_pick(m0, m1, is_max), _pick(m2, m3, is_max), is_max)
    m4 = _pick(_pick(m4, m5, is_max), _pick(m6, m7, is_max), is_max)
    return _pick(m0, m4, is_max)


@jit(fastmath=False)
def _zeros_of_both_signs(r, n):  # pragma: no cover - compiled
    """Whether r[:n] holds +0 and -0."""
    pos = False
    neg = False
    for k in range(n):
        v = r[k]
        if v == 0:
            if np.signbit(v):
                neg = True
            else:
                pos = True
    return pos and neg


@jit(fastmath=False)
def extreme(x, out, w, P, n, Q, is_max, nanw):  # pragma: no cover - compiled
    """max (is_max) or min of C-contiguous x viewed as [P, n, Q] over its middle axis
    (n >= 1) into out (P * Q elements, flat), and the tie-split weights into w (x's
    shape): what ops/reduce.py's numpy path computes (np.max, then _tie_mask). Returns 1
    when some group holds a NaN or ties +0 with -0 (the caller then takes numpy's output;
    the weights are right either way), else 0. nanw: the weight of a group with a NaN."""
    xf = x.reshape(P * n * Q)
    wf = w.reshape(P * n * Q)
    zero = np.zeros(1, w.dtype)[0]
    flag = 0
    if Q == 1:                          # trailing axes (or all): a row per group
        for p in range(P):
            r = xf[p * n:(p + 1) * n]
            wr = wf[p * n:(p + 1) * n]
            m = _extreme_lanes(r, n, is_max)
            c = 0
            ok = 0
            for k in range(n):          # (integer sums: these vectorise without fastmath)
                v = r[k]
                c += v == m
                ok += not np.isnan(v)
            out[p] = m
            if ok < n:                  # a NaN: numpy's extreme is NaN, equal to nothing
                flag = 1
                for k in range(n):
                    wr[k] = nanw
                continue
            if m == 0 and _zeros_of_both_signs(r, n):
                flag = 1
            wr[0] = 1.0 / c             # (float64, rounded to w's dtype by the store)
            inv = wr[0]
            for k in range(n):
                wr[k] = inv if r[k] == m else zero
        return flag
    x3 = xf.reshape(P, n, Q)
    w3 = wf.reshape(P, n, Q)
    o2 = out.reshape(P, Q)
    cnt = np.empty(Q, np.int64)
    ok = np.empty(Q, np.int64)
    inv = np.empty(Q, w.dtype)
    other = np.empty(Q, w.dtype)
    col = np.empty(n, x.dtype)
    for p in range(P):                  # a middle axis: the Q groups advance together
        xp, op, wp = x3[p], o2[p], w3[p]
        x0 = xp[0]
        for q in range(Q):
            op[q] = x0[q]
        for k in range(1, n):
            xk = xp[k]
            if is_max:
                for q in range(Q):
                    v = xk[q]
                    op[q] = max(op[q], v)
            else:
                for q in range(Q):
                    v = xk[q]
                    op[q] = min(op[q], v)
        cnt[:] = 0
        ok[:] = 0
        for k in range(n):
            xk = xp[k]
            for q in range(Q):
                v = xk[q]
                cnt[q] += v == op[q]
                ok[q] += not np.isnan(v)
        for q in range(Q):
            other[q] = zero
            if ok[q] < n:
                flag = 1
                other[q] = nanw
                op[q] = nanw            # (NaN: equal to nothing, so every weight nanw)
            elif op[q] == 0:
                for k in range(n):
                    col[k] = xp[k, q]
                if _zeros_of_both_signs(col, n):
                    flag = 1
            inv[q] = 1.0 / cnt[q] if cnt[q] > 0 else 0.0
        for k in range(n):
            xk, wk = xp[k], wp[k]
            for q in range(Q):
                wk[q] = inv[q] if xk[q] == op[q] else other[q]
    return flag


# ---- sum over an axis (ops/reduce.py's _sum_forward) -----------------------------------------
# numpy's add.reduce over one run of axes of a C-contiguous array calls its inner loop once per
# output row when the rest is short: 60 us for a [64, 64, 2] float64 summed over its last axis
# (4096 loops of 2) or its middle one (4096 of 2 again), where the data takes 2-5 us to read.
# These loops give its values bit for bit: per row (Q = 1) its pairwise sum, across rows
# (Q > 1) its sequential one, both from its identity 0 (so an all -0 group sums to +0).

@jit(fastmath=False, stamp_with=(forward.__file__,))      # (embeds _pairwise_sum)
def axis_sums(x, out, P, n, Q):  # pragma: no cover - compiled
    """numpy's add.reduce of x (flat, C order) viewed as [P, n, Q] (n >= 1) over its middle
    axis, into out (flat, P * Q elements, x's dtype). A group's sum starts from 0 and adds
    its elements in numpy's order: pairwise along a row (Q = 1; below 8 elements that is in
    order), else one after the other. (Flat arrays: one compiled variant per dtype, not
    one per rank.)"""
    xf = x
    of = out
    zero = np.zeros(1, x.dtype)[0]
    if Q == 1 and n >= 8:
        for p in range(P):
            of[p] = zero + _pairwise_sum(xf[p * n:(p + 1) * n], n)
        return
    for p in range(P):
        base = p * n * Q
        for q in range(Q):
            acc = zero
            for j in range(n):
                acc += xf[base + j * Q + q]
            of[p * Q + q] = acc


# ---- the Euclidean norm and its weights (ops/stats.py's _l2_forward) --------------------------

# ---- cumsum (ops/scan.py) ----------------------------------------------------------------------

@jit(fastmath=False, stamp_with=(forward.__file__,))      # (embeds the scans)
def cumsum_scan(x, out, P, n, Q, reverse):  # pragma: no cover - compiled
    """np.cumsum of C-contiguous x along an axis of length n >= 1, x viewed as [P, n, Q],
    into out (x's shape): out[k] = out[k - 1] + x[k] from out[first] = x[first] in x's
    dtype, numpy's accumulate order (from the end when `reverse`, as the numpy path's
    flip, cumsum, flip). Along the last axis (Q = 1) four rows advance together (a row's
    sums are a chain of dependent additions), else a step's Q positions together."""
    if Q == 1:
        scan_rows(x.reshape(P, n), out.reshape(P, n), reverse, False)
        return
    scan_columns(x.reshape(P, n, Q), out.reshape(P, n, Q), reverse, False)


# ---- logsumexp (ops/stats.py): numpy's exp and log between two compiled passes -----------------

@jit(fastmath=False)
def lse_shift(x, m, d, R, K):  # pragma: no cover - compiled
    """The first pass of logsumexp over the rows of C-contiguous x viewed as [R, K] (K >= 1),
    as ops/stats.py's numpy path: each row's max into m (R elements, x's dtype), 0 where
    it is not finite (a NaN, which numpy's max propagates, or an infinity), and d = x - m
    in x's dtype, stored in float64 (exactly: the float64 array numpy's exp then runs on,
    as exp_op's float32 forward casts its input). The sign of a zero max does not matter:
    exp(+-0) is 1, and log(sum) + m is log(sum) or +0 either way."""
    xf = x.reshape(R * K)
    df = d.reshape(R * K)
    zero = np.zeros(1, x.dtype)[0]
    for r in range(R):
        xr = xf[r * K:(r + 1) * K]
        dr = df[r * K:(r + 1) * K]
        mr = _extreme_lanes(xr, K, True)
        ok = 0
        for k in range(K):
            v = xr[k]
            ok += not np.isnan(v)
        if ok < K or not np.isfinite(mr):
            mr = zero
        m[r] = mr
        for k in range(K):
            dr[k] = xr[k] - mr


@jit(fastmath=False, stamp_with=(forward.__file__,))      # (embeds _pairwise_sum)
def lse_sums(e, w, s, t, R, K):  # pragma: no cover - compiled
    """The second pass: e (float64, exp of lse_shift's d) rounded to w's dtype into w (the
    same array for float64 is fine), numpy's pairwise sum of each row of w into s (w's
    dtype), and s in float64 into t (the array numpy's log then runs on, as log_op's
    float32 forward casts its input)."""
    m = R * K
    ef = e.reshape(m)
    wf = w.reshape(m)
    for i in range(m):
        wf[i] = ef[i]
    for r in range(R):
        sr = _pairwise_sum(wf[r * K:(r + 1) * K], K)
        s[r] = sr
        t[r] = sr


@jit(fastmath=False)
def lse_finish(w, s, t, m, out, R, K):  # pragma: no cover - compiled
    """The last pass, from t = log(s) in float64 (numpy's): out = t rounded to w's dtype,
    plus m, per row, and the weights w / s (the softmax over the row) in place, in w's
    dtype."""
    wf = w.reshape(R * K)
    for r in range(R):
        out[r] = t[r]                   # (rounded to out's dtype by the store)
        out[r] = out[r] + m[r]
        sr = s[r]
        wr = wf[r * K:(r + 1) * K]
        for k in range(K):
            wr[k] = wr[k] / sr
