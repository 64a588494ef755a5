"""The compiled im2col forward: a convolution's window unrolling as plain loops.

numpy copies the 7-D strided window view (ops/im2col.py) through its n-d iterator, one
inner loop per output row of Wo elements: ~60 us of a 3x3 convolution of an 8x8x16x16
batch whose whole forward in torch takes ~110 us. The loops below copy the same elements
(a copy: the values are numpy's bit for bit), a unit-stride row as one vectorised loop,
the zero padding and the bias's ones row written in the same pass (no padded copy).
Like vm/forward.py, the op calls it only once the backward interpreter has loaded Numba.
"""

from __future__ import annotations

import numpy as np

from ._numba import jit
from . import kernels as _backward
from . import blas
from .blas import gemm

_U = np.uint64


@jit
def _cols(xp, out, N, C, Hp, Wp, G, kh, kw, sh, sw, dh, dw, Ho, Wo, rows):
    # pragma: no cover - compiled
    """out[n, g, (c, i, j), (ho, wo)] = xp[n, g * Cg + c, ho * sh + i * dh, wo * sw + j * dw]
    for xp the padded image [N, C, Hp, Wp] and out [N, G, rows, Ho * Wo] (rows >= Cg*kh*kw;
    the rows beyond are left alone), both flat and C-contiguous. Each output row a loop over
    uint64 offsets (16 us for an 8x8x18x18 image's 3x3 windows; a view per row, indexed from
    0, took 24 us, and zero-padding branches inside this loop 50-100 us)."""
    Cg = C // G
    S = Ho * Wo
    uWo, usw = _U(Wo), _U(sw)
    for n in range(N):
        for g in range(G):
            for c in range(Cg):
                plane = ((n * C + g * Cg + c) * Hp) * Wp
                for i in range(kh):
                    for j in range(kw):
                        rb = ((n * G + g) * rows + (c * kh + i) * kw + j) * S
                        for ho in range(Ho):
                            sb = _U(plane + (ho * sh + i * dh) * Wp + j * dw)
                            db = _U(rb + ho * Wo)
                            if sw == 1:
                                for q in range(uWo):
                                    out[db + q] = xp[sb + q]
                            else:
                                for q in range(uWo):
                                    out[db + q] = xp[sb + q * usw]


@jit
def im2col_pad(x, out, dims):  # pragma: no cover - compiled
    """A convolution's columns, zero padding and ones row included: out[n, g, (c, i, j),
    (ho, wo)] = x[n, g * Cg + c, ho * sh + i * dh - pt, wo * sw + j * dw - pl], 0 where
    that falls outside the image [N, C, H, W], and out[n, g, K] = 1 when rows = K + 1 (a
    convolution's bias row), for dims = (N, C, H, W, G, kh, kw, sh, sw, dh, dw, pt, pl, Ho,
    Wo, rows, Hp, Wp) (Hp, Wp: the padded image's size), x and out [N, G, rows, Ho * Wo]
    flat and C-contiguous. The padded image is built here (np.zeros + a row copy, no Python
    calls), and the ones row written here: ops/im2col.py's padded copy and strided ones
    write cost ~15 us of an 8x8x16x16 3x3 convolution. Copies, zeros and ones: numpy's
    values bit for bit."""
    N, C, H, W, G = dims[0], dims[1], dims[2], dims[3], dims[4]
    kh, kw, sh, sw, dh, dw = dims[5], dims[6], dims[7], dims[8], dims[9], dims[10]
    pt, pl, Ho, Wo, rows = dims[11], dims[12], dims[13], dims[14], dims[15]
    Hp, Wp = dims[16], dims[17]
    if Hp == H and Wp == W:
        _cols(x, out, N, C, H, W, G, kh, kw, sh, sw, dh, dw, Ho, Wo, rows)
    else:
        xp = np.zeros(N * C * Hp * Wp, out.dtype)
        uW = _U(W)
        for p in range(N * C):
            for h in range(H):
                db = _U((p * Hp + pt + h) * Wp + pl)
                sb = _U((p * H + h) * W)
                for w in range(uW):
                    xp[db + w] = x[sb + w]
        _cols(xp, out, N, C, Hp, Wp, G, kh, kw, sh, sw, dh, dw, Ho, Wo, rows)
    K = C // G * kh * kw
    S = Ho * Wo
    uS = _U(S)
    for ng in range(N * G):
        for r in range(K, rows):
            db = _U((ng * rows + r) * S)
            for q in range(uS):
                out[db + q] = 1


@jit
def repeat2d(x, rh, rw, out):  # pragma: no cover - compiled
    """out[n, c, h * rh + a, w * rw + b] = x[n, c, h, w] for x [N, C, H, W] and out
    [N, C, H * rh, W * rw], both C-contiguous: nearest upsampling by integer factors
    (ops/resample.py), numpy's two np.repeat calls in one pass (a copy: the values bit for
    bit). Each output row is written once from the input row, then copied rh - 1 times."""
    N, C, H, W = x.shape
    Wo = W * rw
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            dst = out[n, c]
            for h in range(H):
                src = img[h]
                first = dst[h * rh]
                if rw == 2:
                    for w in range(W):
                        v = src[w]
                        first[2 * w] = v
                        first[2 * w + 1] = v
                else:
                    for w in range(W):
                        v = src[w]
                        for b in range(rw):
                            first[w * rw + b] = v
                for a in range(1, rh):
                    row = dst[h * rh + a]
                    for q in range(Wo):
                        row[q] = first[q]


# ---- padding over the last two axes (ops/padding.py) ----------------------------------------
# Indices as uint64: a signed index's wraparound check (and a view per row, whose reference
# counting costs as much as a 16-element copy) kept an 8 x 8 x 16 x 16 pad at numpy's speed.


@jit
def pad_hw(x, out, dims, m2, m3, fill):  # pragma: no cover - compiled
    """out[p, k, l] = x[p, m2[k], m3[l]] for x [P, H, W] and out [P, Ho, Wo], both flat and
    C-contiguous, dims = (P, H, W, Ho, Wo, a, top, constant): the input's rows land at
    out[p, top + h, a:a + W]. constant: every other element is `fill` (m2, m3 unread);
    otherwise the columns l outside [a, a + W) read x[p, h, m3[l]] and the rows k outside
    [top, top + H) copy out row top + m2[k] (maps valid: reflect, replicate, circular).
    A copy: the values are numpy's bit for bit."""
    P, H, W, Ho, Wo = _U(dims[0]), _U(dims[1]), _U(dims[2]), _U(dims[3]), _U(dims[4])
    a, top = _U(dims[5]), _U(dims[6])
    constant = dims[7] != 0
    if constant:
        for k in range(out.size):
            out[k] = fill
    for p in range(P):
        for h in range(H):
            oa = (p * Ho + top + h) * Wo + a
            ib = (p * H + h) * W
            for l in range(W):
                out[oa + l] = x[ib + l]
        if not constant:
            # the side columns a column at a time (its source column looked up once: a
            # row at a time, their one- or two-step loops cost ~2x)
            for l in range(a):
                s = _U(m3[l])
                for h in range(H):
                    out[(p * Ho + top + h) * Wo + l] = x[(p * H + h) * W + s]
            for l in range(a + W, Wo):
                s = _U(m3[l])
                for h in range(H):
                    out[(p * Ho + top + h) * Wo + l] = x[(p * H + h) * W + s]
            for k in range(Ho):
                if k >= top and k < top + H:
                    continue
                ob = (p * Ho + k) * Wo
                sb = (p * Ho + top + _U(m2[k])) * Wo
                for l in range(Wo):
                    out[ob + l] = out[sb + l]


# ---- the mean of each row (ops/pool.py: global average pooling) -----------------------------

@jit(fastmath=False, inline="always")
def _block_sums(x, y, n):  # pragma: no cover - compiled
    """numpy's pairwise sums of x[:n] and y[:n], 1 <= n <= 128 (numpy/_core/src/umath/
    loops_utils.h.src: 8 accumulators, the rest added in order). Two rows at once, each
    8-element step a view indexed from 0: ~2x numpy's add.reduce (one row at a time through
    offset indices ran at its speed)."""
    if n < 8:
        sx = x[0]
        sy = y[0]
        for i in range(1, n):
            sx += x[i]
            sy += y[i]
        return sx, sy
    r0, r1, r2, r3, r4, r5, r6, r7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    q0, q1, q2, q3, q4, q5, q6, q7 = y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]
    end = n - n % 8
    for i in range(8, end, 8):
        xs = x[i:i + 8]
        ys = y[i:i + 8]
        r0 += xs[0]
        r1 += xs[1]
        r2 += xs[2]
        r3 += xs[3]
        r4 += xs[4]
        r5 += xs[5]
        r6 += xs[6]
        r7 += xs[7]
        q0 += ys[0]
        q1 += ys[1]
        q2 += ys[2]
        q3 += ys[3]
        q4 += ys[4]
        q5 += ys[5]
        q6 += ys[6]
        q7 += ys[7]
    sx = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    sy = ((q0 + q1) + (q2 + q3)) + ((q4 + q5) + (q6 + q7))
    for i in range(end, n):
        sx += x[i]
        sy += y[i]
    return sx, sy


@jit(fastmath=False)
def row_means(x, out, n):  # pragma: no cover - compiled
    """out[r] = (0 + sum(x[r * n:(r + 1) * n])) / n for flat C-contiguous x of out.size * n
    elements (n >= 1, exact in x's dtype): np.add.reduce over a C-contiguous array's
    trailing axes (one inner loop per output: numpy's pairwise sum, its halves split at a
    multiple of 8 above 128 elements, run here on an explicit stack, started from the
    identity 0), then the division in x's dtype, as reduce.py's _mean_forward. Rows in
    pairs (an odd last one with itself). No fastmath: the values bit for bit."""
    consts = np.zeros(2, out.dtype)         # 0 and the count, in x's dtype
    consts[1] = n
    zero, count = consts[0], consts[1]
    flo = np.empty(64, np.int64)            # frames: start, length, phase
    fn = np.empty(64, np.int64)
    fph = np.empty(64, np.int64)
    lx = np.empty(64, out.dtype)            # the left halves' sums
    ly = np.empty(64, out.dtype)
    R = out.size
    for r in range(0, R, 2):
        s = r + 1 if r + 1 < R else r
        xr = x[r * n:(r + 1) * n]
        yr = x[s * n:(s + 1) * n]
        if n <= 128:
            sx, sy = _block_sums(xr, yr, n)
        else:
            sx, sy = xr[0], yr[0]
            top = 0
            flo[0], fn[0], fph[0] = 0, n, 0
            while top >= 0:
                lo, m, ph = flo[top], fn[top], fph[top]
                if m <= 128:
                    sx, sy = _block_sums(xr[lo:lo + m], yr[lo:lo + m], m)
                    top -= 1
                    continue
                n2 = m // 2
                n2 -= n2 % 8
                if ph == 0:                 # the left half first
                    fph[top] = 1
                    top += 1
                    flo[top], fn[top], fph[top] = lo, n2, 0
                elif ph == 1:               # then the right
                    lx[top] = sx
                    ly[top] = sy
                    fph[top] = 2
                    top += 1
                    flo[top], fn[top], fph[top] = lo + n2, m - n2, 0
                else:
                    sx = lx[top] + sx
                    sy = ly[top] + sy
                    top -= 1
        out[r] = (zero + sx) / count
        out[s] = (zero + sy) / count


@jit(stamp_with=(_backward.__file__,))
def col2im(out, a, prm):  # pragma: no cover - compiled
    """The backward interpreter's COL2IM kernel on arrays, overwriting out: im2col's
    interpreted rule (ops/im2col.py), the lowered row's values."""
    _backward._col2im(out, a, prm, False)


@jit(stamp_with=(blas.__file__,))
def conv_product_blocks(wt, cols, out, N, G, R, S, Og, block):  # pragma: no cover - compiled
    """out[n, j] = wt[j]^T @ cols[n, j] for wt [G, R, Og], cols [N, G, R, S], out [N, G, Og,
    S], flat and C-contiguous: the GEMM calls of blas_lib.conv_forward_blocks (one per block
    of `block` rows of R, added to out after the first; Og >= 2), the same arguments to the
    same BLAS, from compiled code (its ctypes calls cost ~5 us each: 80 of them for an 8 x
    16 x 64 x 64 input with 16 filters)."""
    for n in range(N):
        for j in range(G):
            c = (n * G + j) * R * S
            o = (n * G + j) * Og * S
            for k0 in range(0, R, block):
                gemm(wt[(j * R + k0) * Og:], cols[c + k0 * S:], out[o:], Og, S,
                     min(block, R - k0), True, False, k0 > 0)
