"""Compiled forward kernels: a row broadcast over a matrix (a bias, a scale), and for
large arrays relu, a per-channel scale and the normalization primitive.

numpy runs a bias add and relu ~1.5x slower than a plain loop on a 256 x 512 float32
activation (its broadcast add calls the inner loop once per row; maximum checks for NaN):
~60 us of W5b's ~5.5 ms training step (perf/README.md). Importing Numba for them would
cost ~0.2 s, so the ops call them only once the backward interpreter has loaded it
(ops/elementwise.py).
They give numpy's values bit for bit, NaN and -0.0 included. They write into arrays numpy
allocated: an array Numba allocates made the next BLAS call that read it ~10% slower.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._numba import jit
from . import kernels as _backward, norm_kernels as _norm_backward, numpy_exp as _numpy_exp
from .numpy_exp import _numpy_exp32


@jit
def row_op(x, b, out, kind):  # pragma: no cover - compiled
    """out = x op b for x, out (m, n) C-contiguous and b (n,), op by `kind`: 0 x + b,
    1 x - b, 2 x * b, 3 x / b, 4 b - x, 5 b / x (a row broadcast over a matrix: numpy sets
    up such a broadcast slowly, 1.4 vs 0.8 us for 32 x 64 float32 with the allocation)."""
    m, n = x.shape
    for i in range(m):
        xi, oi = x[i], out[i]
        if kind == 0:
            for j in range(n):
                oi[j] = xi[j] + b[j]
        elif kind == 1:
            for j in range(n):
                oi[j] = xi[j] - b[j]
        elif kind == 2:
            for j in range(n):
                oi[j] = xi[j] * b[j]
        elif kind == 3:
            for j in range(n):
                oi[j] = xi[j] / b[j]
        elif kind == 4:
            for j in range(n):
                oi[j] = b[j] - xi[j]
        else:
            for j in range(n):
                oi[j] = b[j] / xi[j]


@jit
def mul_channels(x, w, R, C, K, out):  # pragma: no cover - compiled
    """out = x * w for x, out C-contiguous viewed as [R, C, K] and w one factor per channel
    (a per-channel scale of an NCHW batch: numpy's broadcast loop is ~2x slower)."""
    i = 0
    for r in range(R):
        for c in range(C):
            a = w[c]
            xs, os = x[i:i + K], out[i:i + K]     # (views from 0: they vectorise)
            for k in range(K):
                os[k] = xs[k] * a
            i += K


@jit
def relu(x, out):  # pragma: no cover - compiled
    """out = np.maximum(x, 0) for 1-D contiguous x, out: x where x > 0 or x is NaN, else +0."""
    for i in range(x.size):
        v = x[i]
        if v > 0 or v != v:
            out[i] = v
        else:
            out[i] = 0



@jit
def norm_affine(x, w, b, R, S, L, A, Q, eps, y, xhat, stats, aux):  # pragma: no cover
    """The normalization primitive's forward (ops/normalization.py) over flat x, y, xhat:
    statistic s of x viewed as [R, S, L], mean then biased variance (two passes, float64
    sums), then xhat = (x - mu) * rstd and y = xhat * w + b, w and b number (e // Q) % A
    (l when Q = 0). Three passes instead of numpy's eight over a strided [R, S, L] view.
    stats [2 S] gets mu then var, aux [S + w.size] rstd then a copy of w (what the backward
    reads): one array each, not five."""
    mu, var, rstd = stats[:S], stats[S:], aux[:S]
    wo = aux[S:]
    for i in range(w.size):
        wo[i] = w[i]
    if L == 1 and Q == 1 and A == S:    # batch_norm over [N, C]: statistic = channel = column
        _norm_columns(x, w, b, R, S, eps, y, xhat, mu, var, rstd)
        return
    m = R * L
    s1 = np.zeros(S)
    for r in range(R):
        for s in range(S):
            base = (r * S + s) * L
            t = 0.0
            for l in range(L):
                t += x[base + l]
            s1[s] += t
    for s in range(S):
        s1[s] /= m
    s2 = np.zeros(S)
    for r in range(R):
        for s in range(S):
            base = (r * S + s) * L
            c = s1[s]
            t = 0.0
            for l in range(L):
                d = x[base + l] - c
                t += d * d
            s2[s] += t
    for s in range(S):
        v = s2[s] / m
        mu[s] = s1[s]
        var[s] = v
        rstd[s] = 1.0 / np.sqrt(v + eps)
    ch = 0
    for r in range(R):              # (slices: indexing x[base + l] did not vectorise, 4x)
        for s in range(S):
            base = (r * S + s) * L
            c, k = mu[s], rstd[s]
            if Q == 0:
                xs, xo, yo = x[base:base + L], xhat[base:base + L], y[base:base + L]
                for l in range(L):
                    h = (xs[l] - c) * k
                    xo[l] = h
                    yo[l] = h * w[l] + b[l]
            else:
                for c0 in range(0, L, Q):
                    wc, bc = w[ch], b[ch]
                    ch = ch + 1 if ch + 1 < A else 0    # (e // Q) % A, counted
                    lo = base + c0
                    if Q < 16:                  # short runs: a slice each costs more
                        for e in range(lo, lo + Q):
                            h = (x[e] - c) * k
                            xhat[e] = h
                            y[e] = h * wc + bc
                        continue
                    xs, xo, yo = x[lo:lo + Q], xhat[lo:lo + Q], y[lo:lo + Q]
                    for l in range(Q):
                        h = (xs[l] - c) * k
                        xo[l] = h
                        yo[l] = h * wc + bc


@jit
def _norm_columns(x, w, b, R, S, eps, y, xhat, mu, var, rstd):  # pragma: no cover
    """norm_affine for x [R, S] normalised per column: row slices, no per-element ranges
    (a range per element cost ~7 ns an element)."""
    s1 = np.zeros(S)
    s2 = np.zeros(S)
    for r in range(R):
        xr = x[r * S:(r + 1) * S]
        for s in range(S):
            s1[s] += xr[s]
    for s in range(S):
        s1[s] /= R
    for r in range(R):
        xr = x[r * S:(r + 1) * S]
        for s in range(S):
            d = xr[s] - s1[s]
            s2[s] += d * d
    for s in range(S):
        v = s2[s] / R
        mu[s] = s1[s]
        var[s] = v
        rstd[s] = 1.0 / np.sqrt(v + eps)
    for r in range(R):
        xr, xo, yo = x[r * S:(r + 1) * S], xhat[r * S:(r + 1) * S], y[r * S:(r + 1) * S]
        for s in range(S):
            h = (xr[s] - mu[s]) * rstd[s]
            xo[s] = h
            yo[s] = h * w[s] + b[s]


@jit
def bn_running(rm, rv, mu, var, m, m1, out_mean, out_var):  # pragma: no cover - compiled
    """batch_norm's running statistics update, both at once: rm, rv, out_mean, out_var [C]
    and mu, var [1, C, 1] (C > 0) of one float dtype, m and m1 the floats momentum and
    1 - momentum. out = m * run + m1 * stat with m, m1 rounded to the dtype, each product
    rounded, then the sum: numpy's `m * run + (1 - m) * stat` for Python floats (no FMA:
    jitgrad's fastmath has no 'contract'). One call instead of six numpy ones. Returns
    whether every result is finite (if not, the caller redoes it in numpy, which warns on
    an overflow or an invalid operation where this does not)."""
    out_mean[0] = m                 # the dtype's m and m1: stored, so rounded as numpy does
    out_var[0] = m1
    mf, m1f = out_mean[0], out_var[0]
    finite = True
    for i in range(rm.size):
        v = mf * rm[i] + m1f * mu[0, i, 0]
        out_mean[i] = v
        if not -np.inf < v < np.inf:     # (np.isfinite: True for NaN under
            finite = False              # reassoc + nsz, x - x folded to 0)
    for i in range(rv.size):
        v = mf * rv[i] + m1f * var[0, i, 0]
        out_var[i] = v
        if not -np.inf < v < np.inf:     # (np.isfinite: True for NaN under
            finite = False              # reassoc + nsz, x - x folded to 0)
    return finite


@jit
def _first_max_windows(x, kh, kw, sh, sw, pt, pl, nan, best, arg):  # pragma: no cover
    """first_max window by window (a chain of kh * kw compares each), with `nan` the NaN
    rule (a NaN wins over numbers, the first NaN): first_max's path for inputs with NaN."""
    N, C, Ho, Wo = best.shape
    H, W = x.shape[2], x.shape[3]
    ninf = -np.inf
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            for ho in range(Ho):
                h0 = ho * sh - pt
                for wo in range(Wo):
                    w0 = wo * sw - pl
                    inside = h0 >= 0 and w0 >= 0 and h0 + kh <= H and w0 + kw <= W
                    if inside and not nan:      # the common window: no bounds, no NaN rule
                        b = img[h0, w0]
                        k = 0
                        for i in range(kh):
                            row = img[h0 + i]
                            for j in range(kw):
                                v = row[w0 + j]
                                if v > b:
                                    b = v
                                    k = i * kw + j
                        best[n, c, ho, wo] = b
                        arg[n, c, ho, wo] = k
                        continue
                    b = img[h0, w0] if inside else (img[h0, w0] if 0 <= h0 < H and
                                                    0 <= w0 < W else ninf)
                    k = 0
                    for i in range(kh):
                        h = h0 + i
                        for j in range(kw):
                            w = w0 + j
                            if inside:
                                v = img[h, w]
                            elif 0 <= h < H and 0 <= w < W:
                                v = img[h, w]
                            else:
                                v = ninf
                            better = v > b
                            if nan:
                                better = better or (v != v and b == b)
                            k = i * kw + j if better else k
                            b = v if better else b
                    best[n, c, ho, wo] = b
                    arg[n, c, ho, wo] = k



@jit
def _first_max_columns(x, kh, kw, sh, sw, pt, pl, best, arg):  # pragma: no cover
    """first_max without the NaN rule, columns first: per output row, each column's maximum
    over the window's rows and the offset i * kw of its first occurrence (contiguous loops
    the compiler vectorises), then per window the best of kw column maxima, a tie going to
    the smaller offset i * kw + j, i.e. the first occurrence in row-major order; a window
    whose maximum is -inf (every element -inf or padding) gets offset 0, as the scan in
    _first_max_windows gives. ~20% faster than that scan for 3 x 3 windows. False, with
    best and arg unfinished, as soon as a NaN turns up in a row it reads."""
    N, C, Ho, Wo = best.shape
    H, W = x.shape[2], x.shape[3]
    Wp = max((Wo - 1) * sw + kw, pl + W)
    cm = np.empty(Wp, x.dtype)          # column maxima over the padded width (pads -inf)
    ca = np.zeros(Wp, np.int32)         # their offsets i * kw
    ninf = -np.inf
    for w in range(Wp):
        cm[w] = ninf
    cmv = cm[pl:pl + W]
    cav = ca[pl:pl + W]
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            for ho in range(Ho):
                h0 = ho * sh - pt
                ilo = max(0, -h0)
                ihi = min(kh, H - h0)
                bo = best[n, c, ho]
                ao = arg[n, c, ho]
                if ilo >= ihi:          # the window rows lie wholly in the padding
                    for wo in range(Wo):
                        bo[wo] = ninf
                        ao[wo] = 0
                    continue
                r = img[h0 + ilo]
                o = np.int32(ilo * kw)
                nan = False
                for w in range(W):
                    v = r[w]
                    nan |= v != v
                    cmv[w] = v
                    cav[w] = o
                for i in range(ilo + 1, ihi):
                    r = img[h0 + i]
                    o = np.int32(i * kw)
                    for w in range(W):
                        v = r[w]
                        m = cmv[w]
                        nan |= v != v
                        better = v > m
                        cmv[w] = v if better else m
                        cav[w] = o if better else cav[w]
                if nan:
                    return False
                for wo in range(Wo):
                    w0 = wo * sw
                    cw = cm[w0:w0 + kw]     # views: no index arithmetic per element
                    aw = ca[w0:w0 + kw]
                    b = cw[0]
                    k = aw[0]
                    for j in range(1, kw):
                        v = cw[j]
                        off = aw[j] + j
                        better = (v > b) | ((v == b) & (off < k))
                        b = v if better else b
                        k = off if better else k
                    bo[wo] = b
                    ao[wo] = k if b != ninf else 0
    return True


@jit
def _any_nan(x):  # pragma: no cover - compiled
    """Whether x (any shape, C-contiguous) holds a NaN: one vectorised pass (~1 us for 16k
    float32), so the scans below need no NaN rule."""
    f = x.reshape(-1)
    nan = False
    for e in range(f.size):
        nan |= f[e] != f[e]
    return nan


@jit
def _first_max_3x3(x, sh, sw, pt, pl, lowest, best, arg):  # pragma: no cover - compiled
    """first_max of 3 x 3 windows without NaN: a window inside the image as nine literal
    compares (strict >, row-major: the first maximum wins), one at an edge skipping the
    padding from -inf and offset 0 (a window of -inf only gets offset 0, as the general
    scan gives). ~2x faster than _first_max_columns for ResNet's 3 x 3 stride-2 pooling
    (the unrolled chain of selects beat vectorised column maxima and flat indexing here)."""
    N, C, Ho, Wo = best.shape
    H, W = x.shape[2], x.shape[3]
    ninf = -np.inf
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            bo = best[n, c]
            ao = arg[n, c]
            for ho in range(Ho):
                h0 = ho * sh - pt
                hin = h0 >= 0 and h0 + 3 <= H
                for wo in range(Wo):
                    w0 = wo * sw - pl
                    if hin and w0 >= 0 and w0 + 3 <= W:
                        r0 = img[h0]
                        r1 = img[h0 + 1]
                        r2 = img[h0 + 2]
                        b = r0[w0]
                        k = 0
                        v = r0[w0 + 1]
                        t = v > b
                        b = v if t else b
                        k = 1 if t else k
                        v = r0[w0 + 2]
                        t = v > b
                        b = v if t else b
                        k = 2 if t else k
                        v = r1[w0]
                        t = v > b
                        b = v if t else b
                        k = 3 if t else k
                        v = r1[w0 + 1]
                        t = v > b
                        b = v if t else b
                        k = 4 if t else k
                        v = r1[w0 + 2]
                        t = v > b
                        b = v if t else b
                        k = 5 if t else k
                        v = r2[w0]
                        t = v > b
                        b = v if t else b
                        k = 6 if t else k
                        v = r2[w0 + 1]
                        t = v > b
                        b = v if t else b
                        k = 7 if t else k
                        v = r2[w0 + 2]
                        t = v > b
                        b = v if t else b
                        k = 8 if t else k
                    else:
                        b = ninf
                        k = 0
                        for i in range(3):
                            h = h0 + i
                            if h < 0 or h >= H:
                                continue
                            for j in range(3):
                                w = w0 + j
                                if w < 0 or w >= W:
                                    continue
                                v = img[h, w]
                                t = v > b
                                b = v if t else b
                                k = i * 3 + j if t else k
                    bo[ho, wo] = b if b >= lowest else lowest
                    ao[ho, wo] = k


@jit
def _first_max_2x2(x, sh, sw, pt, pl, lowest, best, arg):  # pragma: no cover - compiled
    """_first_max_3x3 for 2 x 2 windows (~2.3x faster than the column scan at stride 2)."""
    N, C, Ho, Wo = best.shape
    H, W = x.shape[2], x.shape[3]
    ninf = -np.inf
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            bo = best[n, c]
            ao = arg[n, c]
            for ho in range(Ho):
                h0 = ho * sh - pt
                hin = h0 >= 0 and h0 + 2 <= H
                for wo in range(Wo):
                    w0 = wo * sw - pl
                    if hin and w0 >= 0 and w0 + 2 <= W:
                        r0 = img[h0]
                        r1 = img[h0 + 1]
                        b = r0[w0]
                        k = 0
                        v = r0[w0 + 1]
                        t = v > b
                        b = v if t else b
                        k = 1 if t else k
                        v = r1[w0]
                        t = v > b
                        b = v if t else b
                        k = 2 if t else k
                        v = r1[w0 + 1]
                        t = v > b
                        b = v if t else b
                        k = 3 if t else k
                    else:
                        b = ninf
                        k = 0
                        for i in range(2):
                            h = h0 + i
                            if h < 0 or h >= H:
                                continue
                            for j in range(2):
                                w = w0 + j
                                if w < 0 or w >= W:
                                    continue
                                v = img[h, w]
                                t = v > b
                                b = v if t else b
                                k = i * 2 + j if t else k
                    bo[ho, wo] = b if b >= lowest else lowest
                    ao[ho, wo] = k


@jit
def _first_max_scan(x, kh, kw, sh, sw, pt, pl, lowest, best, arg):  # pragma: no cover
    """first_max without NaN, window by window with selects (no branches on the data): for
    windows that do not overlap (stride >= kernel) it beat the column scan, which computes
    column maxima for sharing between neighbours (8 x 8 windows 1.6x, 1 x 64 ones 8x)."""
    N, C, Ho, Wo = best.shape
    H, W = x.shape[2], x.shape[3]
    ninf = -np.inf
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            bo = best[n, c]
            ao = arg[n, c]
            for ho in range(Ho):
                h0 = ho * sh - pt
                hin = h0 >= 0 and h0 + kh <= H
                for wo in range(Wo):
                    w0 = wo * sw - pl
                    if hin and w0 >= 0 and w0 + kw <= W:
                        b = img[h0, w0]
                        k = 0
                        for i in range(kh):
                            row = img[h0 + i]
                            for j in range(kw):
                                v = row[w0 + j]
                                t = v > b
                                b = v if t else b
                                k = i * kw + j if t else k
                    else:
                        b = ninf
                        k = 0
                        for i in range(kh):
                            h = h0 + i
                            if h < 0 or h >= H:
                                continue
                            for j in range(kw):
                                w = w0 + j
                                if w < 0 or w >= W:
                                    continue
                                v = img[h, w]
                                t = v > b
                                b = v if t else b
                                k = i * kw + j if t else k
                    bo[ho, wo] = b if b >= lowest else lowest
                    ao[ho, wo] = k


@jit
def first_max(x, kh, kw, sh, sw, pt, pl, lowest, best, arg):  # pragma: no cover - compiled
    """Max pooling's forward (ops/maxpool.py first_max) over x [N, C, H, W] padded by pt
    rows on top and pl columns on the left (and whatever the output size needs below and
    right) with -inf: each window's maximum and the offset i * kw + j of its first
    occurrence, into best, arg [N, C, Ho, Wo]; a NaN wins over numbers (the first NaN).
    Maxima below `lowest` become `lowest` (NaN stays NaN). numpy's version loops in Python
    over the kh * kw offsets (~0.6 ms for adaptive pooling's 64-element windows) and pads a
    copy of x. Without NaN (checked first, one pass), by the scan fitting the window:
    literal 3 x 3 and 2 x 2 ones, one window at a time for non-overlapping windows, else
    column maxima; with NaN, window by window with the NaN rule."""
    if _any_nan(x):
        _first_max_windows(x, kh, kw, sh, sw, pt, pl, True, best, arg)
    elif kh == 3 and kw == 3:
        _first_max_3x3(x, sh, sw, pt, pl, lowest, best, arg)
        return
    elif kh == 2 and kw == 2:
        _first_max_2x2(x, sh, sw, pt, pl, lowest, best, arg)
        return
    elif sh >= kh and sw >= kw:
        _first_max_scan(x, kh, kw, sh, sw, pt, pl, lowest, best, arg)
        return
    elif not _first_max_columns(x, kh, kw, sh, sw, pt, pl, best, arg):
        _first_max_windows(x, kh, kw, sh, sw, pt, pl, True, best, arg)
    if lowest > -np.inf:
        flat = best.reshape(-1)
        for e in range(flat.size):
            v = flat[e]
            flat[e] = lowest if v < lowest else v


@jit(inline="always")
def _row_max(xr, C, n):  # pragma: no cover - compiled
    """row_shift's max of the row xr (C elements, n = C - C % 8): below."""
    m = xr[0]
    plain = n < 16 or m != m  # noqa: PLR0124 - a NaN first element (kept by the scan)
    if not plain:
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = m
        for b in range(0, n, 8):
            blk = xr[b:b + 8]
            v = blk[0]
            a0 = v if v > a0 else a0  # noqa: FURB136
            v = blk[1]
            a1 = v if v > a1 else a1  # noqa: FURB136
            v = blk[2]
            a2 = v if v > a2 else a2  # noqa: FURB136
            v = blk[3]
            a3 = v if v > a3 else a3  # noqa: FURB136
            v = blk[4]
            a4 = v if v > a4 else a4  # noqa: FURB136
            v = blk[5]
            a5 = v if v > a5 else a5  # noqa: FURB136
            v = blk[6]
            a6 = v if v > a6 else a6  # noqa: FURB136
            v = blk[7]
            a7 = v if v > a7 else a7  # noqa: FURB136
        m = a0 if a0 > m else m  # noqa: FURB136
        m = a1 if a1 > m else m  # noqa: FURB136
        m = a2 if a2 > m else m  # noqa: FURB136
        m = a3 if a3 > m else m  # noqa: FURB136
        m = a4 if a4 > m else m  # noqa: FURB136
        m = a5 if a5 > m else m  # noqa: FURB136
        m = a6 if a6 > m else m  # noqa: FURB136
        m = a7 if a7 > m else m  # noqa: FURB136
        for c in range(n, C):
            if xr[c] > m:  # noqa: PLR1730 - the plain scan's step
                m = xr[c]
        if m == 0:                          # -0.0 or +0.0: the first of them, below
            m = xr[0]
            plain = True
    if plain:
        for c in range(1, C):
            if xr[c] > m:  # noqa: PLR1730 - the plain scan
                m = xr[c]
    return m


@jit
def row_shift(x, s):  # pragma: no cover - compiled
    """s = x - max(x) per row of [R, C] (before numpy's vectorised exp: Numba's scalar exp
    cost ~4 ns an element, numpy's well under 1). The max is the scan's `m = xr[0]; m =
    xr[c] if xr[c] > m` (so NaN past the first element is skipped, and of -0.0 and +0.0 the
    first one wins): rows of 16 or more run it in 8 interleaved lanes (one dependent
    compare chain per element cost ~0.2 us of a 32 x 64 row_shift's ~0.7). Same bits: a
    NaN first element keeps m, and else every lane's result is a non-NaN element not
    below any other (an element equal to the max, whose bits are unique unless it is a
    zero: a zero max is found again by the plain scan)."""
    R, C = x.shape       # (selects, not max(): Numba's may differ on NaN, -0.0 and +0.0)
    n = C - C % 8
    for r in range(R):
        xr, sr = x[r], s[r]
        m = _row_max(xr, C, n)
        for c in range(C):
            sr[c] = xr[c] - m


@jit
def log_softmax_finish(s, e):  # pragma: no cover - compiled
    """From s = x - max and e = exp(s) per row: s becomes log_softmax = s - log(sum e) and e
    the softmax e / sum e, both in place (sums in float64; no output array of its own)."""
    R, C = s.shape
    for r in range(R):
        sr, er = s[r], e[r]
        se = 0.0
        for c in range(C):
            se += er[c]
        lse = np.log(se)
        inv = 1.0 / se
        for c in range(C):
            sr[c] = sr[c] - lse
            er[c] = er[c] * inv


@jit(fastmath=False)
def _weighted_logp_sum(cr, sr, lse):  # pragma: no cover - compiled
    """sum(cr * (sr - lse)) over cr != 0 (a class of weight 0 at logit -inf adds 0, not
    nan), left to right: no fastmath, so no vectorised reassociation (xent_finish's sums
    before the loops were split, in float64 the last bit of a soft label's loss)."""
    nz = 0                      # (the nonzero coefficients, counted in a vectorised loop:
    for c in range(sr.size):    # the scan below stops at the last one; ~1 us of a 32 x 64
        nz += cr[c] != 0.0      # xent_finish's ~3 with one label a row)
    t = 0.0
    c = 0
    while nz > 0:
        if cr[c] != 0.0:
            t += cr[c] * (sr[c] - lse)
            nz -= 1
        c += 1
    return t


@jit
def xent_finish(s, e, coef, dx, logp, loss):  # pragma: no cover - compiled
    """The nll primitive's softmax forward (ops/nll.py) from s = x - max and e = exp(s) per
    row: logp = s - log(sum e), dx = softmax * sum(coef) - coef (into dx), each row's loss
    -sum(coef * logp) over the classes with coef != 0; sums in float64. The loss runs its
    own loop, so the writes vectorise (the branch in their loop cost 2x). dx and logp must
    not share memory with s or e (the writes' alias check fails: the scalar loop, 2x).
    Returns the losses' total as numpy's loss.sum() adds them, but for the sign of a zero
    (numpy adds to +0: the caller's 0.0 + total)."""
    R, C = s.shape
    for r in range(R):
        sr, er, cr, dr, lr = s[r], e[r], coef[r], dx[r], logp[r]
        se = 0.0
        csum = 0.0
        for c in range(C):
            se += er[c]
            csum += cr[c]
        lse = np.log(se)
        k = csum / se
        loss[r] = -_weighted_logp_sum(cr, sr, lse)
        for c in range(C):
            lr[c] = sr[c] - lse
            dr[c] = er[c] * k - cr[c]
    return _pairwise_sum(loss, R) if R > 0 else 0.0


@intrinsic
def _pairwise_leaf(typingctx, a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise sum of a[lo:lo + n] for 8 <= n <= 128 (a 1-D contiguous float
    array): its eight accumulators r[j] += a[i + j] as one 8-lane vector (numpy's C, and
    Numba's eight scalars, add one element at a time: 1M float32 in 0.15 ms, here ~0.05),
    then ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) and the remainder one by one, in
    a's dtype: the same additions in the same order."""
    if not isinstance(a, types.Array) or a.ndim != 1 or a.layout != "C" or \
            a.dtype not in (types.float32, types.float64):
        return None                     # (contiguous float rows only: the loads are packed)
    dt = a.dtype

    def codegen(context, builder, signature, args):
        base = builder.gep(context.make_array(signature.args[0])(context, builder, args[0])
                           .data, [args[1]])
        fty = context.get_value_type(dt)
        vptr = llvm_ir.VectorType(fty, 8).as_pointer()
        align = dt.bitwidth // 8
        count, eight = args[2], llvm_ir.Constant(args[2].type, 8)
        end = builder.sub(count, builder.srem(count, eight))
        acc = cgutils.alloca_once(builder, vptr.pointee)
        builder.store(builder.load(builder.bitcast(base, vptr), align=align), acc)
        with cgutils.for_range_slice(builder, eight, end, eight, count.type) as (i, _):
            v = builder.load(builder.bitcast(builder.gep(base, [i]), vptr), align=align)
            builder.store(builder.fadd(builder.load(acc), v), acc)
        r = builder.load(acc)
        e = [builder.extract_element(r, llvm_ir.Constant(llvm_ir.IntType(32), j))
             for j in range(8)]
        res = cgutils.alloca_once(builder, fty)
        builder.store(builder.fadd(builder.fadd(builder.fadd(e[0], e[1]),
                                                builder.fadd(e[2], e[3])),
                                   builder.fadd(builder.fadd(e[4], e[5]),
                                                builder.fadd(e[6], e[7]))), res)
        one = llvm_ir.Constant(count.type, 1)
        with cgutils.for_range_slice(builder, end, count, one, count.type) as (i, _):
            builder.store(builder.fadd(builder.load(res), builder.load(builder.gep(base, [i]))),
                          res)
        return builder.load(res)
    return dt(a, types.intp, types.intp), codegen


@jit(fastmath=False)
def _pairwise_block(a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise sum of a[lo:lo + n] for 1 <= n <= 128 (_pairwise_sum)."""
    if n < 8:
        res = a[lo]                     # (numpy starts at 0: 0 + a[lo] is a[lo] for e >= 0)
        for i in range(lo + 1, lo + n):
            res += a[i]
        return res
    return _pairwise_leaf(a, lo, n)


@jit(fastmath=False)
def _pairwise_sum(a, n):  # pragma: no cover - compiled
    """numpy's float add.reduce of a[:n] (n >= 1), bit for bit: its pairwise sum in a's
    dtype (numpy/_core/src/umath/loops_utils.h.src: 8 accumulators up to 128 elements,
    above that the sums of two halves split at a multiple of 8), its recursion run on an
    explicit stack (a recursive function loaded from Numba's disk cache crashed). No
    fastmath: reassociation would change the bits."""
    if n <= 128:
        return _pairwise_block(a, 0, n)
    flo = np.empty(64, np.int64)        # frames: start, length, phase, left half's sum
    fn = np.empty(64, np.int64)
    fph = np.empty(64, np.int64)
    left = np.empty(64, a.dtype)
    top = 0
    flo[0], fn[0], fph[0] = 0, n, 0
    ret = a[0]
    while top >= 0:
        lo, m, ph = flo[top], fn[top], fph[top]
        if m <= 128:
            ret = _pairwise_block(a, lo, m)
            top -= 1
            continue
        n2 = m // 2
        n2 -= n2 % 8
        if ph == 0:                     # the left half first
            fph[top] = 1
            top += 1
            flo[top], fn[top], fph[top] = lo, n2, 0
        elif ph == 1:                   # then the right
            left[top] = ret
            fph[top] = 2
            top += 1
            flo[top], fn[top], fph[top] = lo + n2, m - n2, 0
        else:
            ret = left[top] + ret
            top -= 1
    return ret


@jit(fastmath=False)
def pairwise_sum(a):  # pragma: no cover - compiled
    """numpy's add.reduce of a whole 1-D contiguous float array of n >= 1 elements (one inner
    loop: its pairwise sum), _pairwise_sum's leaves eight lanes at a time: ops/reduce.py's
    sum of a large float array (1M float32 0.15 -> ~0.05 ms)."""
    return _pairwise_sum(a, a.size)


@jit(fastmath=False)
def weighted_total(x, coef, prod):  # pragma: no cover - compiled
    """sum(coef * x) over flat x, coef, prod (one dtype, prod scratch) as the nll
    primitive's numpy path without softmax computes it (ops/nll.py): the products in x's
    dtype, numpy's pairwise sum (_pairwise_sum: a contiguous array's sum is one inner loop
    of numpy's reduction; checked bit for bit for 1 to 100003 elements), and if that is NaN
    again with the products of coef == 0 set to +0 (a class of weight 0 at logit -inf adds
    0). No fastmath: the values bit for bit."""
    n = x.size
    for i in range(n):
        prod[i] = coef[i] * x[i]
    t = _pairwise_sum(prod, n)
    if t != t:
        zero = np.zeros(1, prod.dtype)[0]
        for i in range(n):
            prod[i] = coef[i] * x[i] if coef[i] != 0 else zero
        t = _pairwise_sum(prod, n)
    return t


@jit(fastmath=False)
def softmax_finish(e):  # pragma: no cover - compiled
    """e = exp(x - max) per row of [R, C] becomes the softmax e / sum(e) in place, with
    numpy's own sum (_pairwise_sum) and division in e's dtype: the values of ops/nn.py's
    numpy path bit for bit, NaN and inf included, in one call instead of two numpy ones."""
    R, C = e.shape
    for r in range(R):
        er = e[r]
        se = _pairwise_sum(er, C)
        for c in range(C):
            er[c] = er[c] / se


@jit(fastmath=False, stamp_with=(_numpy_exp.__file__,))
def softmax_rows32(x, e):  # pragma: no cover - compiled
    """row_shift, numpy's exp and softmax_finish in one call over a float32 [R, C] x, a row
    at a time while it is in cache: e = exp(x - max) / sum(...) per row, the exp
    vm/numpy_exp.py's (numpy's float32 exp, when ops/elementwise.py's numpy_exp_emulated
    says so), the subtraction, sum and division as those kernels': their bits. Three
    passes over 1M elements took ~1 ms, this one ~0.6."""
    R, C = x.shape
    n = C - C % 8
    for r in range(R):
        xr, er = x[r], e[r]
        m = _row_max(xr, C, n)
        for c in range(C):
            er[c] = _numpy_exp32(xr[c] - m)
        se = _pairwise_sum(er, C)
        for c in range(C):
            er[c] = er[c] / se


@jit
def others_product(x, out):  # pragma: no cover - compiled
    """out[i, j] = the product of row i's other elements, as prod's numpy save computes it
    (ops/stats.py): an exclusive running product from the left times one from the right, in
    x's dtype, so exact at zeros. numpy needed two cumprods along the rows, ~8 us each."""
    m, k = x.shape
    # (all rows advance together: each row's products are a chain of dependent
    # multiplications, so one row at a time waits on every one; the same operations per
    # row, in the same order)
    acc = np.ones(m, x.dtype)
    for j in range(k):
        for i in range(m):
            out[i, j] = acc[i]
            acc[i] = acc[i] * x[i, j]
    acc[:] = 1
    for j in range(k - 1, -1, -1):
        for i in range(m):
            out[i, j] = out[i, j] * acc[i]
            acc[i] = acc[i] * x[i, j]


@jit
def hard_label_coefficients(lab, C, ignore_index, mean, coef):  # pragma: no cover
    """coef[i, lab[i]] = k for a zero coef [n, C]: the nll primitive's coefficients for hard
    labels without class weights (ops/loss.py), k = 1 / (labels counted) with mean = 1,
    1 / n (every row, ignored ones included: Paddle's mean_all) with mean = 2, else 1;
    rows labelled ignore_index stay zero. Returns -1, or the first position whose label is
    neither in [0, C) nor ignore_index (coef then undefined)."""
    count = 0
    for i in range(lab.size):
        v = lab[i]
        if v == ignore_index:
            continue
        if v < 0 or v >= C:
            return i
        count += 1
    if mean == 2:
        count = lab.size
    k = 1.0 / count if mean != 0 and count > 0 else 1.0
    for i in range(lab.size):
        v = lab[i]
        if v != ignore_index:
            coef[i, v] = k
    return -1


# ---- one-pass forwards of cumprod, cross and the Euclidean distance (ops/scan.py,
# ops/composites.py, ops/margin_losses.py, ops/numeric.py's renorm). No fastmath: each gives
# the numpy forward's values bit for bit (the same operations, in the same order, in the
# input's dtype; tests/test_forward_fused_more.py).

@jit(fastmath=False)
def cumprod_scan(x, out, sx, e, P, n, Q, reverse, saves):  # pragma: no cover - compiled
    """np.cumprod of C-contiguous x (any shape) along an axis of length n >= 1, x viewed as
    [P, n, Q], into out, and with `saves` the shifted copies sx and e (_cumprod_rows);
    along the last axis (Q = 1) four rows at a time, else a step's Q positions together
    (_cumprod_columns). sx and e are not touched without `saves`."""
    if Q == 1:
        _cumprod_rows(x.reshape(P, n), out.reshape(P, n), sx.reshape(P, n), e.reshape(P, n),
                      reverse, saves)
    else:
        _cumprod_columns(x.reshape(P, n, Q), out.reshape(P, n, Q), sx.reshape(P, n, Q),
                         e.reshape(P, n, Q), reverse, saves)


@jit(fastmath=False)
def _cumprod_rows(x, out, sx, e, reverse, saves):  # pragma: no cover - compiled
    """np.cumprod along the rows of x [P, n] (n >= 1; from the end when `reverse`) into
    out: out[k] = out[k - 1] * x[k] from out[first] = x[first], numpy's accumulate order.
    With `saves` also what cumprod's backward reads (ops/scan.py's _save_cumprod): sx, x
    shifted one step against the scan (0 where that falls outside), and e, out shifted one
    step along it (1 at the start). Four rows advance together: one row's products are a
    chain of dependent multiplications, so a row at a time waits on each (~1 us for
    32 x 64 float32, the saves' shifted copies ~0.5 us more)."""
    P, n = x.shape
    scan_rows(x, out, reverse, True)
    if saves:
        one = np.ones(1, x.dtype)[0]
        zero = np.zeros(1, x.dtype)[0]
        for p in range(P):
            _shifted_pair(x[p], out[p], sx[p], e[p], n, reverse, one, zero)


@jit(fastmath=False)
def _shifted_pair(xr, orow, sr, er, n, reverse, one, zero):  # pragma: no cover - compiled
    """cumprod's saves along one row (_cumprod_rows)."""
    if reverse:
        for k in range(n - 1):
            er[k] = orow[k + 1]
        er[n - 1] = one
        sr[0] = zero
        for k in range(1, n):
            sr[k] = xr[k - 1]
    else:
        er[0] = one
        for k in range(1, n):
            er[k] = orow[k - 1]
        for k in range(n - 1):
            sr[k] = xr[k + 1]
        sr[n - 1] = zero


@jit(fastmath=False)
def scan_rows(x, out, reverse, product):  # pragma: no cover - compiled
    """A running sum (or `product`) along the rows of x [P, n] (n >= 1) into out: out[k] =
    out[k - 1] + x[k] (or *) from out[first] = x[first], numpy's accumulate order (from the
    end when `reverse`). Four rows advance together: one row's sums are a chain of
    dependent operations, so a row at a time waits on each. Shared by cumsum
    (forward_reduce.cumsum_scan) and cumprod (_cumprod_rows)."""
    P, n = x.shape
    first = n - 1 if reverse else 0
    step = -1 if reverse else 1
    p = 0
    while p + 4 <= P:
        x0, x1, x2, x3 = x[p], x[p + 1], x[p + 2], x[p + 3]
        o0, o1, o2, o3 = out[p], out[p + 1], out[p + 2], out[p + 3]
        a0, a1, a2, a3 = x0[first], x1[first], x2[first], x3[first]
        o0[first], o1[first], o2[first], o3[first] = a0, a1, a2, a3
        for t in range(1, n):
            k = first + t * step
            if product:
                a0 = a0 * x0[k]
                a1 = a1 * x1[k]
                a2 = a2 * x2[k]
                a3 = a3 * x3[k]
            else:
                a0 = a0 + x0[k]
                a1 = a1 + x1[k]
                a2 = a2 + x2[k]
                a3 = a3 + x3[k]
            o0[k], o1[k], o2[k], o3[k] = a0, a1, a2, a3
        p += 4
    while p < P:
        xr, orow = x[p], out[p]
        a = xr[first]
        orow[first] = a
        for t in range(1, n):
            k = first + t * step
            a = a * xr[k] if product else a + xr[k]
            orow[k] = a
        p += 1


@jit(fastmath=False)
def scan_columns(x, out, reverse, product):  # pragma: no cover - compiled
    """A running sum (or `product`) along the middle axis of x [P, n, Q] (n >= 1) into
    out: out[k] = out[k - 1] + x[k] (or *) from out[first] = x[first], numpy's accumulate
    order (from the end when `reverse`), a step's Q positions together. Shared by cumsum
    (forward_reduce.cumsum_scan) and cumprod (_cumprod_columns)."""
    P, n, Q = x.shape
    first = n - 1 if reverse else 0
    step = -1 if reverse else 1
    for p in range(P):
        xp, op = x[p], out[p]
        src, dst = xp[first], op[first]
        for q in range(Q):
            dst[q] = src[q]
        k0 = first
        for t in range(1, n):
            k = first + t * step
            a, b, c = op[k0], xp[k], op[k]
            if product:
                for q in range(Q):
                    c[q] = a[q] * b[q]
            else:
                for q in range(Q):
                    c[q] = a[q] + b[q]
            k0 = k


@jit(fastmath=False)
def _cumprod_columns(x, out, sx, e, reverse, saves):  # pragma: no cover - compiled
    """_cumprod_rows along the middle axis of x [P, n, Q] (n >= 1, Q > 1: a scan along any
    axis but the last): the Q positions of a step advance together."""
    P, n, Q = x.shape
    first = n - 1 if reverse else 0
    step = -1 if reverse else 1
    scan_columns(x, out, reverse, True)
    if saves:
        one = np.ones(1, x.dtype)[0]
        zero = np.zeros(1, x.dtype)[0]
        for p in range(P):
            xp, op, sp, ep = x[p], out[p], sx[p], e[p]
            for k in range(n):
                er, sr = ep[k], sp[k]
                if k == first:
                    for q in range(Q):
                        er[q] = one
                else:
                    src = op[k - step]
                    for q in range(Q):
                        er[q] = src[q]
                if k == n - 1 - first:
                    for q in range(Q):
                        sr[q] = zero
                else:
                    src = xp[k + step]
                    for q in range(Q):
                        sr[q] = src[q]


@jit(fastmath=False)
def cross3(x, y, out, saves, P, Q):  # pragma: no cover - compiled
    """The cross product of C-contiguous x, y (any shape) along an axis of size 3, viewed
    as [P, 3, Q], into out, as ops/composites.py's numpy _cross_forward computes it: with
    r1 = (c + 1) % 3 and r2 = (c + 2) % 3, out[c] = x[r1] * y[r2] - x[r2] * y[r1] (both
    products rounded, then the difference), and its saves [4, ...]: y[r1], -y[r2], x[r2],
    -x[r1]. One pass instead of numpy's nine calls."""
    x3, y3, o3 = x.reshape(P, 3, Q), y.reshape(P, 3, Q), out.reshape(P, 3, Q)
    s4 = saves.reshape(4, P, 3, Q)
    for p in range(P):
        for c in range(3):
            r1 = c + 1 if c < 2 else 0
            r2 = c + 2 if c < 1 else c - 1
            xa, xb, ya, yb = x3[p, r1], x3[p, r2], y3[p, r1], y3[p, r2]
            o, s0, s1, s2, s3 = o3[p, c], s4[0, p, c], s4[1, p, c], s4[2, p, c], s4[3, p, c]
            for q in range(Q):
                o[q] = xa[q] * yb[q] - xb[q] * ya[q]
                s0[q] = ya[q]
                s1[q] = -yb[q]
                s2[q] = xb[q]
                s3[q] = -xa[q]


@jit(fastmath=False)
def l2_rows(x, y, eps, mode, out, w, R, K):  # pragma: no cover - compiled
    """The Euclidean norm of each row of d, viewed as [R, K] (K >= 1), and its gradient's
    weights, as ops/stats.py's _l2_forward computes them: d * d in d's dtype, numpy's
    pairwise sum of each row (_pairwise_sum: a C-contiguous array's sum over its trailing
    axes is one inner loop per row), its sqrt; w = d / norm, 0 where the norm is 0.
    d = x (mode 0), x - y (mode 1) or (x - y) + eps (mode 2, eps in x's dtype), for x, y,
    w C-contiguous of one shape and out of R elements; w holds d until its row's norm is
    known (~1.7 us for 32 x 64 float32)."""
    m = R * K
    xf, yf, wf, o1 = x.reshape(m), y.reshape(m), w.reshape(m), out.reshape(R)
    sq = np.empty(m, x.dtype)
    zero = np.zeros(1, x.dtype)[0]
    if mode == 0:                       # (whole-array passes: each loop vectorises)
        for i in range(m):
            wf[i] = xf[i]
    elif mode == 1:
        for i in range(m):
            wf[i] = xf[i] - yf[i]
    else:
        for i in range(m):
            wf[i] = (xf[i] - yf[i]) + eps
    for i in range(m):
        sq[i] = wf[i] * wf[i]
    for r in range(R):
        nrm = np.sqrt(_pairwise_sum(sq[r * K:(r + 1) * K], K))
        o1[r] = nrm
        wr = wf[r * K:(r + 1) * K]
        if nrm == zero:
            for k in range(K):
                wr[k] = zero
        else:
            for k in range(K):
                wr[k] = wr[k] / nrm


@jit(fastmath=False)
def var_rows(x, out, w, R, K, n, dof, two_scale):  # pragma: no cover - compiled
    """ops/stats.py's _var_forward for C-contiguous x viewed as [R, K] (K >= 1), each row
    reduced, operation for operation in x's dtype: the row's mean (numpy's pairwise sum
    divided by the count n, in x's dtype: _mean_forward's exact-count case), d = x - mean,
    out = the pairwise sum of d * d divided by dof, and the weights w = d * two_scale
    (two_scale = scale + scale, scale = 1 / dof rounded to x's dtype; dof nan when no
    degree of freedom is left). One call instead of numpy's ~8 passes."""
    sq = np.empty(K, x.dtype)
    for r in range(R):
        xr = x[r * K:(r + 1) * K]
        wr = w[r * K:(r + 1) * K]
        mean = _pairwise_sum(xr, K) / n
        for k in range(K):
            d = xr[k] - mean
            sq[k] = d * d
            wr[k] = d * two_scale
        out[r] = _pairwise_sum(sq, K) / dof


@jit(fastmath=False)
def cos_rows(x1, x2, eps, add, out, f1, f2, R, K, one, zero):  # pragma: no cover - compiled
    """ops/cosine.py's _cos_forward for x1, x2 viewed as [R, K] (the last axis): each row's
    sums of products (numpy's pairwise sums of the rounded products), the cosine and both
    inputs' gradient weights, in x1's dtype, operation for operation as the numpy passes.
    eps: eps^2 (clip) or eps (add), in x1's dtype."""
    m = R * K
    a, b, o = x1.reshape(m), x2.reshape(m), out.reshape(R)
    g1, g2 = f1.reshape(m), f2.reshape(m)
    p12, p1, p2 = np.empty(m, x1.dtype), np.empty(m, x1.dtype), np.empty(m, x1.dtype)
    for i in range(m):                  # (whole-array passes: each loop vectorises)
        p12[i] = a[i] * b[i]
        p1[i] = a[i] * a[i]
        p2[i] = b[i] * b[i]
    for r in range(R):
        lo, hi = r * K, (r + 1) * K
        w12 = _pairwise_sum(p12[lo:hi], K)
        w1 = _pairwise_sum(p1[lo:hi], K)
        w2 = _pairwise_sum(p2[lo:hi], K)
        if add:
            a1, a2 = w1 + eps, w2 + eps
            root = np.sqrt(a1 * a2)
            k1, k2 = one / a1, one / a2
        else:
            p = w1 * w2
            on = p >= eps
            root = np.sqrt(p if on or p != p else eps)   # np.clip(p, eps, inf)
            k1 = one / (w1 if on else one) if on else zero
            k2 = one / (w2 if on else one) if on else zero
        c = w12 / root
        o[r] = c
        rr, c1, c2 = one / root, c * k1, c * k2
        ar, br, u1, u2 = a[lo:hi], b[lo:hi], g1[lo:hi], g2[lo:hi]
        for k in range(K):
            u1[k] = br[k] * rr - c1 * ar[k]
            u2[k] = ar[k] * rr - c2 * br[k]


@jit(fastmath=False)
def renorm_rows(x, n, w, f, y, fn, mx, eps, R, K):  # pragma: no cover - compiled
    """renorm over rows (slices along the first axis) of C-contiguous x viewed as [R, K]
    (K >= 1), as ops/numeric.py's numpy path: each row's norm n and weights w (l2_rows,
    mode 0); its factor f = mx / (n + eps) where n > mx, else 1; y = x * f; and
    fn = x * (-f / (n + eps)) where n > mx, else x * 0 (the renorm_scale op's saved
    factor for the norm's gradient). n and f hold R elements, w, y and fn x's shape; mx
    and eps in x's dtype, as numpy converts Python floats."""
    l2_rows(x, x, eps, 0, n, w, R, K)
    x2, y2, fn2, n1, f1 = x.reshape(R, K), y.reshape(R, K), fn.reshape(R, K), n.reshape(R), \
        f.reshape(R)
    one = np.ones(1, x.dtype)[0]
    zero = np.zeros(1, x.dtype)[0]
    for r in range(R):
        t = n1[r] + eps
        if n1[r] > mx:
            fr = mx / t
            c = -fr / t
        else:
            fr = one
            c = zero
        f1[r] = fr
        xr, yr, fnr = x2[r], y2[r], fn2[r]
        for k in range(K):
            yr[k] = xr[k] * fr
            fnr[k] = xr[k] * c


@jit(stamp_with=(_norm_backward.__file__,))
def norm_bwd(out, g, xh, aux, prm):  # pragma: no cover - compiled
    """The backward interpreter's NORM_BWD kernel on arrays, overwriting out:
    normalize_affine's interpreted rule (ops/normalization.py)."""
    _norm_backward._norm_bwd(out, g, xh, aux, prm, False)


@jit(stamp_with=(_backward.__file__,))
def softmax_bwd(out, g, y, outer, length, inner, log):  # pragma: no cover - compiled
    """The backward interpreter's SOFTMAX_BWD (log: LOGSOFTMAX_BWD) row kernel on arrays,
    overwriting out: softmax's and log_softmax's interpreted rule (ops/nn.py)."""
    _backward._rows_bwd(out, g, y, outer, length, inner, False, log, False,
                        np.ones(1, out.dtype)[0])


@jit(stamp_with=(_backward.__file__,))
def pool_bwd(out, g, code, prm):  # pragma: no cover - compiled
    """The backward interpreter's POOL_BWD kernel on arrays, overwriting out: max_pool2d's
    interpreted rule (ops/maxpool.py)."""
    _backward._pool_bwd(out, g, code, prm, False)


@jit(stamp_with=(_backward.__file__,))
def linscan(out, a, b, outer, length, inner, reverse):  # pragma: no cover - compiled
    """The backward interpreter's LINSCAN kernel on arrays, overwriting out: the
    interpreted rules of cumprod and linscan (ops/scan.py)."""
    _backward._linscan_rows(out, a, b, outer, length, inner, False, reverse)
