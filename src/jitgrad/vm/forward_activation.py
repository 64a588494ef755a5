"""Compiled forwards of the piecewise activations, each with the derivative factor its node
saves, in one pass.

numpy takes 3-6 passes for such an op's output (where, clip, a cast) and as many again for
its saved factor f'(x) (a comparison or two, a where, a cast): ~13 us for a 32 x 64 float32
leaky_relu, where torch's forward takes ~2 us. One loop writes both (~1 us). Every kernel
gives numpy's values bit for bit (ops/activation.py's forwards and the factors their
`deriv` gives on arrays; tests/test_forward_activation.py checks NaN, infinities, signed
zeros and the boundaries): the same float operations in the same order, in x's dtype (the
caller passes every constant as a scalar of that dtype), with numpy's clip semantics
(max(a, b) is `a if a > b else b`, NaN kept). No fastmath (it would fold signed zeros).
Like vm/forward.py, they run only once the backward interpreter has imported Numba.
Transcendentals come from the caller (numpy's SIMD exp is not the C library's, and Numba
has no vector math here; ops/rounded.py's expm1 and log1p are vm/float32_math.py's): silu
gets exp(-|x|) from numpy and does the rest, elu expm1(minimum(x, 0)); float32 sigmoid and
silu compute numpy's exp themselves (vm/numpy_exp.py: numpy's own float32 algorithm,
checked against np.exp at run time): one pass. erf and
the exact gelu use vm/forward_special.py's own vectorisable erf and exp (float64).
softplus, log_sigmoid, mish and the tanh gelu put numpy's transcendentals between compiled
loops (ops/activation.py: one loop makes their arguments, one the output and factor;
softplus's factor is sigmoid from the exp its output took (softplus_factor),
log_sigmoid's numpy's -expm1 of what the loop wrote; logaddexp's are
vm/forward_binary.py's); softsign is one loop;
huber (smooth_l1_loss) is one loop; i0, i1, i0e, i1e are forward_special.py's bessel_pair.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import series
from ..core.series import SINC_SERIES
from . import forward_special, numpy_exp as _numpy_exp_file
from ._numba import jit
from .forward_special import _erf_and_exp, _gelu_parts
from .forward_special import bessel_pair  # noqa: F401 - i0, i1, i0e, i1e (apply_unary)
from .numpy_exp import _F32_ONE, _F32_ZERO, _numpy_exp32
from .numpy_exp import numpy_exp  # noqa: F401 - ops/elementwise.py's numpy_exp_emulated

_NUMPY_EXP = (_numpy_exp_file.__file__,)

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@jit(fastmath=False)
def leaky_relu(x, out, d, slope, one):  # pragma: no cover - compiled
    for i in range(x.size):
        v = x[i]
        if v >= 0:
            out[i] = v
            d[i] = one
        else:
            out[i] = slope * v
            d[i] = slope


@jit(fastmath=False)
def prelu(x, w, R, C, K, out, dx, dw, one, zero):  # pragma: no cover - compiled
    """x where x > 0, else w x, with x as [R, C, K] and w one weight per channel c (C = 1:
    one for all), and the factors d/dx (1 or w) and d/dw (0 or x): np.where's values."""
    i = 0
    for r in range(R):
        for c in range(C):
            a = w[c]
            xs, os, ds, ws = x[i:i + K], out[i:i + K], dx[i:i + K], dw[i:i + K]
            for k in range(K):              # (on views from 0, with selects: it vectorises)
                v = xs[k]
                pos = v > 0
                os[k] = v if pos else a * v
                ds[k] = one if pos else a
                ws[k] = zero if pos else v
            i += K


@jit(fastmath=False)
def neg_abs(x, a):  # pragma: no cover - compiled
    """-|x| (np.negative(np.abs(x)), NaN's sign included): exp's argument for sigmoid."""
    for i in range(x.size):
        a[i] = -abs(x[i])


@jit(fastmath=False)
def sigmoid(x, e, one, zero):  # pragma: no cover - compiled
    """e = exp(-|x|) (numpy's) becomes sigmoid in place: max(e, x >= 0) / (1 + e), as
    ops/elementwise.py's _sigmoid computes it (np.maximum keeps a NaN e). In place: no
    output array of its own (a 1M-element one cost ~0.1-0.2 ms of page faults)."""
    for i in range(x.size):
        ev = e[i]
        m = one if x[i] >= 0 else zero
        e[i] = (m if m > ev else ev) / (ev + one)


# ---- sigmoid and silu with numpy's float32 exp inside (vm/numpy_exp.py): one pass ---------

@jit(fastmath=False, stamp_with=_NUMPY_EXP)
def sigmoid_fused(x, out):  # pragma: no cover - compiled
    """The sigmoid kernel above, with e = numpy's exp(-|x|) computed here: float32 only."""
    for i in range(x.size):
        v = x[i]
        ev = _numpy_exp32(-abs(v))
        m = _F32_ONE if v >= 0 else _F32_ZERO
        out[i] = (m if m > ev else ev) / (ev + _F32_ONE)


@jit(fastmath=False)
def glu_parts(x, R, M, a):  # pragma: no cover - compiled
    """-|b| of x's second half b, x as [R, 2, M]: exp's argument (as neg_abs)."""
    for r in range(R):
        xs, ar = x[(2 * r + 1) * M:(2 * r + 2) * M], a[r * M:(r + 1) * M]
        for m in range(M):
            ar[m] = -abs(xs[m])


@jit(fastmath=False)
def glu(x, e, R, M, out, f, one, zero):  # pragma: no cover - compiled
    """out = a sigmoid(b) for x = [a, b] as [R, 2, M] (sigmoid as the kernel above, from
    e = exp(-|b|)), and the factor f = [s, a (s (1 - s))] (x's shape) its gradient
    multiplies the output gradient by."""
    for r in range(R):
        xa, xb = x[2 * r * M:(2 * r + 1) * M], x[(2 * r + 1) * M:(2 * r + 2) * M]
        er, o = e[r * M:(r + 1) * M], out[r * M:(r + 1) * M]
        fa, fb = f[2 * r * M:(2 * r + 1) * M], f[(2 * r + 1) * M:(2 * r + 2) * M]
        for m in range(M):
            ev = er[m]
            t = one if xb[m] >= 0 else zero
            s = (t if t > ev else ev) / (ev + one)
            av = xa[m]
            o[m] = av * s
            fa[m] = s
            fb[m] = av * (s * (one - s))


@jit(fastmath=False)
def bce_logits(x, y, e, lg, out, dx, dy, one, zero):  # pragma: no cover - compiled
    """(1 - y) x + (max(-x, 0) + log1p(e)), the factors sigmoid(x) - y and -x, from numpy's
    e = exp(-|x|) and lg = log1p(e): ops/bce.py's numpy passes, operation for operation."""
    for i in range(x.size):
        v, yv, ev = x[i], y[i], e[i]
        nv = -v
        m = zero if zero > nv else nv          # np.maximum(-x, 0): NaN and -0.0 kept
        out[i] = (one - yv) * v + (m + lg[i])
        d = one + ev
        s = one / d if v >= zero else ev / d
        dx[i] = s - yv
        dy[i] = nv


@jit(fastmath=False)
def clamp(x, out, d, lo, hi, closed, one, zero):  # pragma: no cover - compiled
    """np.clip(x, lo, hi) and the mask lo < x < hi (lo <= x <= hi when closed):
    relu6, hardtanh, clip."""
    for i in range(x.size):
        v = x[i]
        t = lo if v < lo else v
        out[i] = hi if t > hi else t
        inside = (v >= lo and v <= hi) if closed else (v > lo and v < hi)
        d[i] = one if inside else zero


@jit(fastmath=False)
def hardswish(x, out, d, three, six, k, half, one, zero):  # pragma: no cover - compiled
    """x * clip(x + 3, 0, 6) / 6; factor 1 from 3 up, x / 3 + 1/2 above -3, else 0."""
    for i in range(x.size):
        v = x[i]
        t = v + three
        t = zero if t < zero else t
        t = six if t > six else t
        out[i] = v * t / six
        if v >= three:
            d[i] = one
        elif v > -three:
            d[i] = v * k + half
        else:
            d[i] = zero


@jit(fastmath=False)
def hardsigmoid(x, out, d, slope, offset, one, zero):  # pragma: no cover - compiled
    """clip(slope x + offset, 0, 1); factor slope strictly inside (0, 1), else 0 (times
    slope: -0 for a negative slope, as numpy's mask * slope)."""
    for i in range(x.size):
        z = slope * x[i] + offset
        t = zero if z < zero else z
        out[i] = one if t > one else t
        d[i] = (one if (z > 0 and z < 1) else zero) * slope


@jit(fastmath=False)
def hardshrink(x, out, d, t, one, zero):  # pragma: no cover - compiled
    """x where |x| >= t (NaN kept), x * 0 elsewhere (-0 for negative x, as numpy's)."""
    for i in range(x.size):
        v = x[i]
        m = zero if (v > -t and v < t) else one
        out[i] = v * m
        d[i] = m


@jit(fastmath=False)
def softshrink(x, out, d, t, one, zero):  # pragma: no cover - compiled
    for i in range(x.size):
        v = x[i]
        if v > t:
            out[i] = v - t
            d[i] = one
        elif v < -t:
            out[i] = v + t
            d[i] = one
        else:
            out[i] = v if v != v else zero
            d[i] = zero


@jit(fastmath=False)
def thresholded_relu(x, out, d, t, value, one, zero):  # pragma: no cover - compiled
    for i in range(x.size):
        v = x[i]
        passes = v > t
        out[i] = v if (passes or v != v) else value
        d[i] = one if passes else zero


@jit(fastmath=False)
def elu(x, out, d, em1, alpha, scale, scaled_alpha):  # pragma: no cover - compiled
    """scale * where(x > 0, x, alpha * expm1(minimum(x, 0))) from numpy's expm1 (em1), and
    its slope: scale where x > 0, else out + scale * alpha (elu and selu)."""
    for i in range(x.size):
        v = x[i]
        o = scale * (v if v > 0 else alpha * em1[i])
        out[i] = o
        d[i] = scale if v > 0 else o + scaled_alpha


@jit(fastmath=False, stamp_with=(series.__file__,))
def sinc(x, out, d, px, s, c, one, zero, half):  # pragma: no cover - compiled
    """sinc from numpy's sin and cos of px = pi x (s, c): 1 at x = 0, else s / px; and its
    slope (c - out) / x, or where |px| < 1/2 pi u times the Taylor series SINC_SERIES
    (core/series.py) in float64 (u = px; highest power first), as ops/numeric.py's
    _sinc_slope."""
    for i in range(x.size):
        v = x[i]
        p = px[i]
        o = one if v == zero else s[i] / p
        out[i] = o
        if abs(p) < half:
            u = np.float64(p)
            u2 = u * u
            acc = 0.0
            for coef in SINC_SERIES[::-1]:
                acc = acc * u2 + coef
            d[i] = math.pi * u * acc
        else:
            d[i] = (c[i] - o) / v


@jit(fastmath=False)
def logit_parts(x, q, d, one, nan):  # pragma: no cover - compiled
    """q = x / (1 - x), the argument of logit's log (ops/math.py), and its factor
    1 / (x (1 - x)), nan outside [0, 1] (logit's deriv on arrays)."""
    for i in range(x.size):
        v = x[i]
        w = one - v
        q[i] = v / w
        d[i] = nan if (v < 0 or v > 1) else one / (v * w)


@jit(inline="always", fastmath=False)
def _silu_parts(v, ei, one, zero):  # pragma: no cover - compiled
    """(x sigmoid(x), its slope s + x s (1 - s)) at v, s = sigmoid(v) from ei = exp(-|v|) as
    ops/elementwise.py's _sigmoid: max(e, x >= 0) / (e + 1)."""
    s = (one if v >= zero else ei) / (ei + one)
    return v * s, s + v * s * (one - s)


@jit(fastmath=False)
def silu(x, out, d, e, one, zero):  # pragma: no cover - compiled
    """silu's output and slope from e = exp(-|x|) (apply_unary's kernel)."""
    for i in range(x.size):
        out[i], d[i] = _silu_parts(x[i], e[i], one, zero)


@jit(fastmath=False)
def silu_in_place(x, out, d, one, zero):  # pragma: no cover - compiled
    """The kernel above with d holding e on entry (the slope replaces it: no array for e;
    ops/activation.py's silu)."""
    for i in range(x.size):
        out[i], d[i] = _silu_parts(x[i], d[i], one, zero)


@jit(fastmath=False)
def silu_value(x, out, one, zero):  # pragma: no cover - compiled
    """silu's output alone (no gradient recorded), in place over out = exp(-|x|)."""
    for i in range(x.size):
        out[i] = _silu_parts(x[i], out[i], one, zero)[0]


@jit(fastmath=False, stamp_with=_NUMPY_EXP)
def silu_fused(x, out, d):  # pragma: no cover - compiled
    """silu's output and slope with numpy's exp(-|x|) computed here (_numpy_exp32): float32
    only; d may be empty (no gradient: the output alone)."""
    if d.size:
        for i in range(x.size):
            v = x[i]
            out[i], d[i] = _silu_parts(v, _numpy_exp32(-abs(v)), _F32_ONE, _F32_ZERO)
    else:
        for i in range(x.size):
            v = x[i]
            out[i] = _silu_parts(v, _numpy_exp32(-abs(v)), _F32_ONE, _F32_ZERO)[0]


@jit(fastmath=False)
def celu_parts(x, alpha, k, zero, z, w):  # pragma: no cover - compiled
    """celu's arguments of numpy's transcendentals (ops/activation.py): z = minimum(x, 0) /
    alpha for expm1, in x's dtype, and w = where(x > 0, 0, x) * k (k = 1 / alpha) in x's
    dtype, stored into w's dtype (ops/activation.py's celu: x's for rounded.exp, float64 for
    numpy's float64 exp in _celu_numpy_parts; the same float32 factor either way)."""
    for i in range(x.size):
        v = x[i]
        m = v if (v < zero or v != v) else zero             # np.minimum(v, 0): +0 on a tie
        z[i] = m / alpha
        w[i] = np.float64((zero if v > zero else v) * k)


@jit(fastmath=False)
def celu(x, out, d, em1, ex, alpha, one):  # pragma: no cover - compiled
    """where(x > 0, x, alpha expm1(z)) and its factor where(x > 0, 1, exp(w)), from numpy's
    expm1(z) and exp(w) (celu_parts)."""
    for i in range(x.size):
        v = x[i]
        if v > 0:
            out[i] = v
            d[i] = one
        else:
            out[i] = alpha * em1[i]
            d[i] = ex[i]


# erf and the exact gelu: vm/forward_special.py's vectorisable erf and exp (no C library
# call), named in stamp_with so that an edit there recompiles these.
_SPECIAL = (forward_special.__file__,)


@jit(fastmath=False, stamp_with=_SPECIAL)
def gelu(x, out, d):  # pragma: no cover - compiled
    """The exact gelu x Phi(x) and its slope Phi(x) + x phi(x), in float64 as
    vm/forward_special.py's gelu and gelu_deriv (one erf and one exp for both)."""
    for i in range(x.size):
        v = np.float64(x[i])
        cdf, pdf = _gelu_parts(v)
        out[i] = v * cdf
        d[i] = cdf + pdf


@jit(fastmath=False, stamp_with=_SPECIAL)
def erf(x, out, d, c):  # pragma: no cover - compiled
    """erf(x) and its factor exp(-(x * x)) * c (c = 2/sqrt(pi) in x's dtype), as
    ops/math.py's erf_op computes it on arrays: x * x and the product in x's dtype, exp
    in float64 rounded to x's dtype (its float32 exp goes through float64)."""
    for i in range(x.size):
        xi = x[i]
        f, e = _erf_and_exp(xi)
        out[i] = f
        d[i] = e                        # (rounded to x's dtype, then the product in it)
        d[i] = d[i] * c


# ---- softplus, the tanh gelu, huber: the caller's transcendentals between two loops --------
# (numpy's SIMD exp and tanh are not the C library's, which Numba would call; log1p and
# expm1 are ops/rounded.py's)

@jit(fastmath=False)
def softplus_parts(x, a, beta, scaled):  # pragma: no cover - compiled
    """a = -|z|, z = beta x (x itself unless scaled), in x's dtype: the argument of
    ops/activation.py's _softplus_fwd's exp."""
    for i in range(x.size):
        z = beta * x[i] if scaled else x[i]
        a[i] = -abs(z)


@jit(fastmath=False)
def softplus(x, out, b, lg, beta, threshold, scaled, zero, minus_one, minus_inf
             ):  # pragma: no cover - compiled
    """out = where(z > threshold, x, (max(z, 0) + lg) [/ beta]), lg = log1p(exp(-|z|)) from
    numpy, and b = (out [* beta]) * -1, the argument of the factor's expm1 (a product, as
    numpy's: a NaN keeps its sign), or -inf where z > threshold: the factor is then
    -expm1(b) everywhere (numpy's expm1(-inf) is -1: the factor's 1 there)."""
    if scaled:
        for i in range(x.size):
            v = x[i]
            z = beta * v
            m = z if (z > zero or z != z) else zero         # np.maximum(z, 0)
            above = z > threshold
            o = v if above else (m + lg[i]) / beta
            out[i] = o
            b[i] = minus_inf if above else (o * beta) * minus_one
    else:                   # (beta 1: a loop of its own, without the branches: it vectorises)
        for i in range(x.size):
            v = x[i]
            m = v if (v > zero or v != v) else zero
            above = v > threshold
            o = v if above else m + lg[i]
            out[i] = o
            b[i] = minus_inf if above else o * minus_one


@jit(fastmath=False)
def softplus_factor(x, e, beta, threshold, scaled, one, zero):  # pragma: no cover - compiled
    """e = exp(-|z|) (z = beta x in x's dtype, x itself unless scaled: the exp softplus's
    output took) becomes its factor in place: sigmoid(z) as the sigmoid kernels compute it,
    max(e, z >= 0) / (e + 1), and 1 where z > threshold (ops/activation.py's
    _softplus_deriv on arrays, bit for bit)."""
    for i in range(x.size):
        z = beta * x[i] if scaled else x[i]
        ev = e[i]
        m = one if z >= zero else zero
        s = (m if m > ev else ev) / (ev + one)
        e[i] = one if z > threshold else s


@jit(fastmath=False)
def log_sigmoid(x, out, lg, zero):  # pragma: no cover - compiled
    """out = -(max(-x, 0) + lg), lg = log1p(exp(-|x|)) from numpy: ops/activation.py's
    -_softplus_fwd(-x, 1, inf), negations as numpy's (the sign bit, a NaN's too)."""
    for i in range(x.size):
        z = -x[i]
        m = z if (z > zero or z != z) else zero             # np.maximum(-x, 0)
        out[i] = -(m + lg[i])


@jit(fastmath=False)
def softsign(x, out, d, one):  # pragma: no cover - compiled
    """x / (1 + |x|) and its factor 1 / (|x| + 1)^2, in x's dtype (ops/activation.py)."""
    for i in range(x.size):
        v = x[i]
        a = abs(v)
        q = a + one
        out[i] = v / q
        d[i] = one / (q * q)


@jit(fastmath=False)
def softplus_unit(x, lg, threshold, zero):  # pragma: no cover - compiled
    """lg = where(x > threshold, x, max(x, 0) + lg) in place, lg = log1p(exp(-|x|)) from numpy:
    the kernel above's output for beta 1 (mish's softplus)."""
    for i in range(x.size):
        v = x[i]
        m = v if (v > zero or v != v) else zero             # np.maximum(x, 0)
        s = m + lg[i]
        lg[i] = v if v > threshold else s


@jit(fastmath=False)
def times(x, t):  # pragma: no cover - compiled
    """t = x t in place (mish's output without its factor; no numpy warning for -inf 0)."""
    for i in range(x.size):
        t[i] = x[i] * t[i]


@jit(fastmath=False)
def mish(x, e, t, out, f, one, zero):  # pragma: no cover - compiled
    """out = x t, t = tanh(softplus(x)) from numpy, and the factor t + x ((1 - t t) s),
    s = sigmoid(x) from e = exp(-|x|) as the sigmoid kernel: ops/activation.py's
    _mish_deriv on arrays."""
    for i in range(x.size):
        v, ev, ti = x[i], e[i], t[i]
        out[i] = v * ti
        m = one if v >= zero else zero
        s = (m if m > ev else ev) / (ev + one)
        f[i] = ti + v * ((one - ti * ti) * s)


@jit(fastmath=False)
def gelu_tanh_parts(x, u, k, c):  # pragma: no cover - compiled
    """u = k (x + c x x x) in x's dtype, the tanh gelu's argument of tanh (the factor's
    (x + x x x c) k is the same value)."""
    for i in range(x.size):
        v = x[i]
        u[i] = k * (v + c * (v * v * v))


@jit(fastmath=False)
def gelu_tanh(x, out, d, t, half, one, c3, hk):  # pragma: no cover - compiled
    """out = 0.5 x (1 + t) and d = (t + 1) 0.5 + x (1 - t t) (x x 3c + 1) (0.5 k), t the
    tanh from numpy, in x's dtype and ops/activation.py's order."""
    for i in range(x.size):
        v = x[i]
        ti = t[i]
        out[i] = half * v * (one + ti)
        d[i] = (ti + one) * half + v * (one - ti * ti) * (v * v * c3 + one) * hk


@jit(fastmath=False)
def gelu_tanh_value(x, t, half, one):  # pragma: no cover - compiled
    """t (numpy's tanh) becomes the kernel above's out in place: no gradient to record."""
    for i in range(x.size):
        t[i] = half * x[i] * (one + t[i])


@jit(fastmath=False)
def huber(x, y, out, dx, dy, delta, half_delta, half, one, zero, minus_one
          ):  # pragma: no cover - compiled
    """ops/loss.py's huber: d = x - y, out = d d 0.5 where |d| < delta, else
    (|d| - 0.5 delta) delta; slopes d * 1 and d * -1 there, else sign(d) delta and
    sign(d) (-delta) (np.sign: NaN kept, +0 at zero), all in x's dtype."""
    for i in range(x.size):
        d = x[i] - y[i]
        a = abs(d)
        if a < delta:
            out[i] = d * d * half
            dx[i] = d * one
            dy[i] = d * minus_one
        else:
            out[i] = (a - half_delta) * delta
            s = one if d > zero else (minus_one if d < zero else (d if d != d else zero))
            dx[i] = s * delta
            dy[i] = s * -delta
