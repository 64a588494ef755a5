"""Compiled one-pass forwards of the losses' common calls (ops/loss.py, ops/bce.py,
ops/margin_losses.py).

nll_loss and cross_entropy with integer labels, no class weights, reduced to a total:
before, such a call made its one-hot coefficients in one kernel (forward.py's
hard_label_coefficients, into numpy's zeros), then the nll primitive (ops/nll.py) ran
another kernel or two around numpy's exp and negated the coefficients for its saved
gradient: ~7.5 us for nll_loss of 32 x 64 float32 log-probabilities, where torch's forward
takes ~2.5 us. Here one kernel checks the labels and writes the coefficients, their
negation (nll_loss's saved gradient) and the total (~5 us), or the coefficients and the
shifted logits (cross_entropy; numpy's exp and forward.py's xent_finish follow).
soft_margin_loss, hinge_embedding_loss and binary_cross_entropy: their fused nodes'
elementwise loops (between numpy's exp and log and ops/rounded.py's log1p and expm1 where
they take any).

The values are those of the kernels and numpy operations they replace, bit for bit (the
same operations in the same order, in x's dtype; forward.py's own pairwise sum is called,
which has no fastmath: a kernel with fastmath, such as xent_finish, compiled into another
one may vectorise its sums differently, so xent_finish is called from Python), but for
the sign of a NaN in the elementwise loops (numpy's own differs between its SIMD loops and
their scalar tails): tests/test_forward_loss.py compares them. No fastmath: NaN tests,
signed zeros. Like vm/forward.py, they run only once the backward interpreter has
imported Numba.
"""

from __future__ import annotations

import numpy as np

from . import forward
from ._numba import jit
from .forward import _pairwise_sum

_FORWARD = (forward.__file__,)


@jit(fastmath=False)
def _label_scale(lab, C, ignore_index, mode):  # pragma: no cover - compiled
    """(first bad position or -1, k): forward.hard_label_coefficients's check and scale
    (mode 0: k = 1, 1: 1 / count of counted labels, 2: 1 / every label)."""
    count = 0
    for i in range(lab.size):
        v = lab[i]
        if v == ignore_index:
            continue
        if v < 0 or v >= C:
            return i, 1.0
        count += 1
    if mode == 2:
        count = lab.size
    k = 1.0 / count if mode != 0 and count > 0 else 1.0
    return -1, k


@jit(fastmath=False)
def _sparse_block(pos, val, p, cnt, lo, m, lanes):  # pragma: no cover - compiled
    """forward._pairwise_block of a[lo:lo + m] for an `a` zero but at the sorted positions
    pos[p:] (values val): the same additions in the same order, those of zeros left out
    (x + 0 is x for x != 0). Returns (the sum, the next entry)."""
    hi = lo + m
    for j in range(9):
        lanes[j] = 0
    if m < 8:
        while p < cnt and pos[p] < hi:
            lanes[8] = lanes[8] + val[p]
            p += 1
        return lanes[8], p
    end = hi - m % 8
    while p < cnt and pos[p] < end:
        j = (pos[p] - lo) % 8
        lanes[j] = lanes[j] + val[p]
        p += 1
    lanes[8] = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + \
        ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
    while p < cnt and pos[p] < hi:
        lanes[8] = lanes[8] + val[p]
        p += 1
    return lanes[8], p


@jit(fastmath=False)
def _sparse_pairwise(pos, val, cnt, n, lanes):  # pragma: no cover - compiled
    """forward._pairwise_sum of a length-n array zero but at pos[:cnt] (sorted, values
    val): its value whenever that is not zero (a zero's sign can differ: adding zeros is
    left out). The same recursion, on the same explicit stack."""
    if n <= 128:
        return _sparse_block(pos, val, 0, cnt, 0, n, lanes)[0]
    flo = np.empty(64, np.int64)
    fn = np.empty(64, np.int64)
    fph = np.empty(64, np.int64)
    left = np.empty(64, val.dtype)
    top = 0
    flo[0], fn[0], fph[0] = 0, n, 0
    ret = lanes[0]
    p = 0
    while top >= 0:
        lo, m, ph = flo[top], fn[top], fph[top]
        if m <= 128:
            ret, p = _sparse_block(pos, val, p, cnt, lo, m, lanes)
            top -= 1
            continue
        n2 = m // 2
        n2 -= n2 % 8
        if ph == 0:
            fph[top] = 1
            top += 1
            flo[top], fn[top], fph[top] = lo, n2, 0
        elif ph == 1:
            left[top] = ret
            fph[top] = 2
            top += 1
            flo[top], fn[top], fph[top] = lo + n2, m - n2, 0
        else:
            ret = left[top] + ret
            top -= 1
    return ret


@jit(fastmath=False, stamp_with=_FORWARD)
def nll_hard_total(x, lab, ignore_index, mode, coef, negcoef, out):  # pragma: no cover
    """nll_loss's common forward for [N, C] log-probabilities x (N, C >= 1) and int64
    labels [N]: coef = the one-hot coefficients (hard_label_coefficients's), negcoef =
    -coef (the saved gradient, -0.0 off the labels), and out (0-d, x's dtype) = -sum(coef
    * x) as forward.weighted_total sums it: numpy's pairwise sum of the products, again with
    the products of coef == 0 set to +0 if that is NaN. Both sums equal the pairwise sum of
    the labels' products alone (_sparse_pairwise) unless that is zero (the sign of a zero
    sum depends on the zeros added) or the first is NaN only for a product 0 * inf or
    0 * NaN off the labels, which the second sets to +0: so that sum, computed first,
    is the total unless it is zero, when the dense sums run. Returns -1, or the first
    position whose label is neither in [0, C) nor ignore_index (the arrays undefined)."""
    N, C = x.shape
    bad, k = _label_scale(lab, C, ignore_index, mode)
    if bad >= 0:
        return bad
    pos = np.empty(N, np.int64)
    val = np.empty(N, x.dtype)
    cnt = 0
    for r in range(N):
        cr, nr = coef[r], negcoef[r]
        for c in range(C):
            cr[c] = 0.0
            nr[c] = -0.0
        v = lab[r]
        if v != ignore_index:
            cr[v] = k
            nr[v] = -cr[v]
            pos[cnt] = r * C + v
            val[cnt] = cr[v] * x[r, v]
            cnt += 1
    n = N * C
    t = _sparse_pairwise(pos, val, cnt, n, np.empty(9, x.dtype))
    if t == 0:
        prod = np.empty(n, x.dtype)
        for r in range(N):
            xr, cr = x[r], coef[r]
            pr = prod[r * C:(r + 1) * C]
            for c in range(C):
                pr[c] = cr[c] * xr[c]
        t = _pairwise_sum(prod, n)
        if t != t:  # noqa: PLR0124 - NaN (Numba: no math.isnan on every dtype)
            zero = np.zeros(1, prod.dtype)[0]
            for r in range(N):
                xr, cr = x[r], coef[r]
                pr = prod[r * C:(r + 1) * C]
                for c in range(C):
                    pr[c] = cr[c] * xr[c] if cr[c] != 0 else zero
            t = _pairwise_sum(prod, n)
    out[()] = -t
    return -1


@jit(fastmath=False)
def xent_hard_prep(x, lab, ignore_index, mode, coef, sh):  # pragma: no cover - compiled
    """cross_entropy's common forward before numpy's exp, for [N, C] logits x and int64
    labels [N]: coef = the one-hot coefficients (hard_label_coefficients's), sh = x - the
    row's max (forward.row_shift's). Returns -1 (-2 when some label is ignore_index: ops/
    nll.py then selects), or the first bad label's position (the arrays then undefined)."""
    N, C = x.shape
    bad, k = _label_scale(lab, C, ignore_index, mode)
    if bad >= 0:
        return bad
    found = -1
    for r in range(N):
        cr = coef[r]
        for c in range(C):
            cr[c] = 0.0
        v = lab[r]
        if v != ignore_index:
            cr[v] = k
        else:
            found = -2
    for r in range(N):         # (forward.row_shift's loops: the max, then the shift)
        xr, sr = x[r], sh[r]
        m = xr[0]
        for c in range(1, C):
            if xr[c] > m:  # noqa: PLR1730 - row_shift's comparison (max's NaN rule
                m = xr[c]  # differs)
        for c in range(C):
            sr[c] = xr[c] - m
    return found


# ---- soft_margin_loss: softplus(-y x) around numpy's exp, log1p and expm1 ------------------
# ops/margin_losses.py's _soft_margin_forward: its numpy passes, operation for operation
# (vm/forward_activation.py's softplus kernels do the same for softplus alone).

@jit(fastmath=False)
def soft_margin_parts(x, y, negy, z, a):  # pragma: no cover - compiled
    """negy = -y, z = negy * x (np.negative, np.multiply) and a = -|z|, exp's argument."""
    for i in range(x.size):
        ny = -y[i]
        negy[i] = ny
        v = ny * x[i]
        z[i] = v
        a[i] = -abs(v)


@jit(fastmath=False)
def soft_margin_finish(z, lg, out, b, zero, minus_one):  # pragma: no cover - compiled
    """out = max(z, 0) + lg (np.maximum: NaN kept, -0.0 gives +0), lg = log1p(exp(-|z|))
    from numpy, and b = out * -1, the argument of the factor's expm1 (a product, as
    numpy's: a NaN keeps its sign)."""
    for i in range(z.size):
        v = z[i]
        m = v if (v > zero or v != v) else zero  # noqa: PLR0124 - np.maximum's NaN
        o = m + lg[i]
        out[i] = o
        b[i] = o * minus_one


@jit(fastmath=False)
def hinge_embedding(x, y, margin, zero, one, minus_one, out, slope):  # pragma: no cover
    """ops/margin_losses.py's hinge_embedding forward over flat x, y (x's dtype), margin a
    scalar of it: out = where(y == 1, x, 0) + where(y == -1, relu(margin - x), 0) (relu
    as np.maximum: NaN kept, -0.0 gives +0), and its x slope: 1 where y == 1, -1 where
    y == -1 and the relu is > 0, else 0."""
    for i in range(x.size):
        v, w = x[i], y[i]
        z = margin - v
        r = z if (z > zero or z != z) else zero  # noqa: PLR0124 - np.maximum's NaN
        a = v if w == one else zero
        b = r if w == minus_one else zero
        out[i] = a + b
        slope[i] = one if w == one else (minus_one if (w == minus_one and r > zero) else zero)


@jit(fastmath=False)
def bce_finish(p, y, lp, lq, out, dp, dl, lo, one, eps):  # pragma: no cover - compiled
    """ops/bce.py's bce forward from lp = log(p) and lq = log1p(-p) (numpy's): both clamped
    at lo = -100 (np.maximum: NaN kept), out = -(y lp + (1 - y) lq), dp = (p - y) /
    max(p (1 - p), eps) and dl = lq - lp, each operation in p's dtype, in numpy's order."""
    for i in range(p.size):
        a, b = lp[i], lq[i]
        a = a if (a > lo or a != a) else lo  # noqa: PLR0124 - np.maximum's NaN
        b = b if (b > lo or b != b) else lo  # noqa: PLR0124
        pv, yv = p[i], y[i]
        out[i] = -(yv * a + (one - yv) * b)
        q = pv * (one - pv)
        q = q if (q > eps or q != q) else eps  # noqa: PLR0124
        dp[i] = (pv - yv) / q
        dl[i] = b - a
