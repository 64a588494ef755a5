"""Compiled forwards of the special functions: erf, erfinv, lgamma, polygamma (digamma) and
the exact gelu with its derivative.

numpy has none of them, so ops/special.py and ops/math.py compute them per element through
Python's math module (100-300 ns an element: a 32 x 64 erfinv took ~600 us against
torch's ~80 us step). These loops call the C library's erf/erfc/lgamma/exp per element in
float64 (~10 ns) and store the result rounded to the output's dtype, so float32 results
are as correctly rounded as before and float64 ones keep float64 accuracy. Like
vm/forward.py, they run only once the backward interpreter has imported Numba. Helpers stay
in this file: Numba's cache does not notice edits to helpers imported from other files.
No fastmath: reassociation would undo the cancellation-free residuals ((1 - y) - erfc(x)).
"""

from __future__ import annotations

import math

import numpy as np

from ._numba import jit

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@jit(fastmath=False)
def erf(x, out):  # pragma: no cover - compiled
    """out = erf(x) for 1-D contiguous x, out."""
    for i in range(x.size):
        out[i] = math.erf(np.float64(x[i]))


@jit(fastmath=False)
def gelu(x, out):  # pragma: no cover - compiled
    """out = x Phi(x), the exact gelu (Phi(x) = (1 + erf(x / sqrt 2)) / 2)."""
    for i in range(x.size):
        v = np.float64(x[i])
        out[i] = 0.5 * v * (1.0 + math.erf(v * _SQRT1_2))


@jit(fastmath=False)
def gelu_deriv(x, deriv):  # pragma: no cover - compiled
    """deriv = Phi(x) + x phi(x), the exact gelu's slope."""
    for i in range(x.size):
        v = np.float64(x[i])
        deriv[i] = 0.5 * (1.0 + math.erf(v * _SQRT1_2)) + \
            v * math.exp(-0.5 * v * v) * _INV_SQRT_2PI


@jit(inline="always", fastmath=False)
def _halley_erfinv(r, a):  # pragma: no cover - compiled
    """One Halley step's correction for erf(r) = a (r, a >= 0): u / (1 + r u), u = f / f'."""
    f = (1.0 - a) - math.erfc(r) if a > 0.5 else math.erf(r) - a
    slope = _TWO_OVER_SQRT_PI * math.exp(-r * r)
    if slope == 0.0:
        return 0.0
    u = f / slope
    return u / (1.0 + r * u)


@jit(fastmath=False)
def erfinv_start(y, t):  # pragma: no cover - compiled
    """t = (1 - |y|)(1 + |y|) in float64 (1 where |y| >= 1 or nan), whose log erfinv
    needs: numpy takes it between the two kernels (~7x quicker than the C library's log
    per element here)."""
    for i in range(y.size):
        a = abs(np.float64(y[i]))
        t[i] = (1.0 - a) * (1.0 + a) if a < 1.0 else 1.0


@jit(fastmath=False)
def erfinv(y, out, steps, logt):  # pragma: no cover - compiled
    """out = erf^-1(y): Giles' single-precision approximation (~1e-7) in float64, then
    `steps` Halley steps (cubic: one gives float32, two float64 accuracy), up to 10 more
    while a step is still large (the far tails). The residual uses erfc beyond 0.5, where
    erf(x) - y would cancel. +-inf at +-1, nan outside. logt: log(erfinv_start's t). Two
    passes: per element, the polynomial's dependency chain would stall the libm calls
    after it (2x slower)."""
    r0 = np.empty(y.size)
    for i in range(y.size):
        a = abs(np.float64(y[i]))
        w = -logt[i] if a < 1.0 else 0.0
        if w < 5.0:
            w = w - 2.5
            p = 2.81022636e-08
            p = 3.43273939e-07 + p * w
            p = -3.5233877e-06 + p * w
            p = -4.39150654e-06 + p * w
            p = 0.00021858087 + p * w
            p = -0.00125372503 + p * w
            p = -0.00417768164 + p * w
            p = 0.246640727 + p * w
            p = 1.50140941 + p * w
        else:
            w = math.sqrt(w) - 3.0
            p = -0.000200214257
            p = 0.000100950558 + p * w
            p = 0.00134934322 + p * w
            p = -0.00367342844 + p * w
            p = 0.00573950773 + p * w
            p = -0.0076224613 + p * w
            p = 0.00943887047 + p * w
            p = 1.00167406 + p * w
            p = 2.83297682 + p * w
        r0[i] = p * a
    for i in range(y.size):
        t = np.float64(y[i])
        a = abs(t)
        if not a < 1.0:
            out[i] = math.copysign(math.inf, t) if a == 1.0 else math.nan
            continue
        r = r0[i]
        for k in range(steps + 10):
            step = _halley_erfinv(r, a)
            r = r - step
            if k + 1 >= steps and abs(step) <= 1e-6 * r:
                break
        out[i] = math.copysign(r, t)


@jit(fastmath=False)
def lgamma(x, out):  # pragma: no cover - compiled
    """out = log|Gamma(x)|; +inf at the poles 0, -1, -2, ... (the C library's, as Paddle)."""
    for i in range(x.size):
        out[i] = math.lgamma(np.float64(x[i]))


@jit(inline="always", fastmath=False)
def _ipow(z, k):  # pragma: no cover - compiled
    """z ** k for an int k >= 1 by multiplication (k up to 3 without a loop)."""
    if k == 1:
        return z
    if k == 2:
        return z * z
    if k == 3:
        return z * z * z
    p = z
    for _ in range(k - 1):
        p = p * z
    return p


@jit(fastmath=False)
def polygamma_shift(x, n, shift_to, zs, accs):  # pragma: no cover - compiled
    """The recurrence psi_n(z) = psi_n(z + 1) - (-1)^n n! / z^(n+1) up to z >= shift_to:
    zs the shifted argument, accs the sum of the 1/z^(n+1) terms (zs = shift_to at the
    poles, so that log(zs) is defined for every element). For 1e-3 <= z < shift_to the
    sum is one fraction over a fixed ceil(shift_to) steps, computed for every element a
    step at a time: loops over the elements vectorise (the per-element loop's dependency
    chain took ~2x longer). Other elements (tiny, negative) take the loop per element."""
    m = x.size
    steps = math.ceil(shift_to)
    z = np.empty(m)
    num = np.zeros(m)
    den = np.ones(m)
    for i in range(m):
        z[i] = np.float64(x[i])
    if n <= 4:
        for i in range(m):
            zs[i] = z[i]
        for _ in range(steps):
            if n == 0:
                for i in range(m):
                    zp = zs[i]
                    num[i] = num[i] * zp + den[i]
                    den[i] = den[i] * zp
                    zs[i] = zp + 1.0
            elif n == 1:
                for i in range(m):
                    zp = zs[i] * zs[i]
                    num[i] = num[i] * zp + den[i]
                    den[i] = den[i] * zp
                    zs[i] = zs[i] + 1.0
            else:
                for i in range(m):
                    zp = _ipow(zs[i], n + 1)
                    num[i] = num[i] * zp + den[i]
                    den[i] = den[i] * zp
                    zs[i] = zs[i] + 1.0
    for i in range(m):
        v = z[i]
        if v >= 1e-3 and v < shift_to and n <= 4:
            accs[i] = num[i] / den[i]
            continue
        acc = 0.0
        if v <= 0.0 and v == math.floor(v):             # a pole (-inf included)
            v = shift_to
        elif v < shift_to:
            while v < shift_to:
                acc = acc + 1.0 / _ipow(v, n + 1)
                v = v + 1.0
        zs[i] = v
        accs[i] = acc


@jit(fastmath=False)
def polygamma_series(x, out, n, fact, lead, coef, zs, accs, logz):  # pragma: no cover
    """out = psi^(n)(x) from polygamma_shift's zs, accs: the asymptotic series at zs with
    `coef` (B_2k (2k+n-1)!/(2k)!, or B_2k/(2k) for n = 0; lead = (n-1)!), Horner over the
    coefficients one at a time for all elements (vectorised); logz = log(zs) for n = 0,
    from numpy (~7x quicker than the C library's log per element here). Poles and
    infinities as ops/special.py's numpy version (Paddle's): for n = 0 -inf at +0, +inf at
    -0 and nan at negative integers, else (-1)^(n+1) inf."""
    sign = 1.0 if n % 2 else -1.0
    m = x.size
    zi = np.empty(m)
    zz = np.empty(m)
    s = np.zeros(m)
    for i in range(m):
        zi[i] = 1.0 / zs[i]
        zz[i] = zi[i] * zi[i]
    for k in range(coef.size - 1, -1, -1):
        c = coef[k]
        for i in range(m):
            s[i] = (s[i] + c) * zz[i]
    for i in range(m):
        v = np.float64(x[i])
        if v != v:
            out[i] = math.nan
        elif v == math.inf:
            out[i] = 0.0 if n else math.inf
        elif v <= 0.0 and v == math.floor(v):           # a pole (-inf included)
            if n == 0:
                out[i] = math.copysign(math.inf, -v) if v == 0.0 else math.nan
            else:
                out[i] = sign * math.inf
        elif n == 0:
            out[i] = logz[i] - 0.5 * zi[i] - s[i] - accs[i]
        else:
            zn = _ipow(zi[i], n)
            out[i] = sign * (zn * (lead + 0.5 * fact * zi[i] + s[i]) + fact * accs[i])


@jit(inline="always", fastmath=False)
def _set_remainder(out, i, m, d, dd):  # pragma: no cover - compiled
    """out[i] = the remainder from fmod's m: d added (in out's dtype) when the signs differ,
    a zero with d's sign."""
    out[i] = m
    if m != 0.0:
        if (d < 0.0) != (m < 0.0):
            out[i] = out[i] + dd
    elif m == m:
        out[i] = math.copysign(0.0, d)


@jit(fastmath=False)
def remainder(x, out, dv, short_quotient):  # pragma: no cover - compiled
    """out = np.remainder(x, d) for the divisor d = dv[0] (dv of x's dtype), numpy's way:
    fmod, then d added when the signs differ. numpy's fmod loop costs ~9 ns an element;
    with short_quotient (float32 x) an integer quotient below 2**22 makes
    x - trunc(x / d) * d exact in float64 (the quotient's rounding cannot reach the next
    integer: x and d have 24-bit significands), ~10x quicker. The other elements take a
    second loop: with np.fmod in the first one, LLVM computed it for every element."""
    dd = dv[0]
    d = np.float64(dd)
    fast = short_quotient and math.isfinite(d)
    rest = not fast
    if fast:
        for i in range(x.size):
            a = np.float64(x[i])
            q = a / d
            if abs(q) < 4194304.0:
                _set_remainder(out, i, a - np.trunc(q) * d, d, dd)
            else:
                rest = True
    if rest:
        for i in range(x.size):
            a = np.float64(x[i])
            if fast and abs(a / d) < 4194304.0:
                continue
            _set_remainder(out, i, np.fmod(a, d), d, dd)


@jit(fastmath=False)
def bessel(x, out, nu, scaled):  # pragma: no cover - compiled
    """out = I_nu(x) (nu 0 or 1), times exp(-|x|) when scaled: ops/bessel.py's float64
    algorithm, the same operations in the same order (the power series up to |x| = 15, one
    term for every element at a time so that the loop vectorises; the asymptotic series
    beyond)."""
    n = x.size
    a = np.empty(n)
    term = np.empty(n)
    total = np.empty(n)
    q = np.empty(n)
    for i in range(n):
        v = abs(np.float64(x[i]))
        a[i] = v
        half = v / 2.0 if v <= 15.0 else 0.0          # (others: no series)
        term[i] = half if nu else 1.0
        total[i] = term[i]
        q[i] = half * half
    for k in range(1, 64):
        c = 1.0 / (k * (k + nu))
        worst = 0.0
        for i in range(n):
            t = term[i] * q[i]
            t = t * c
            term[i] = t
            total[i] += t
            worst = max(worst, t - total[i] * 1e-17)
        if not worst > 0.0:
            break
    for i in range(n):
        v = a[i]
        if v != v:
            out[i] = x[i]
            continue
        if v <= 15.0:
            r = total[i] * math.exp(-v) if scaled else total[i]
        elif v == math.inf:
            r = 0.0 if scaled else math.inf
        else:
            mu = 4.0 * nu * nu
            t = 1.0
            s = 1.0
            for k in range(1, 30):
                t = t * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * v)
                s += t
            r = s / math.sqrt(2 * math.pi * v)
            if not scaled:
                r = r * math.exp(v)
        out[i] = -r if nu and x[i] < 0 else r
