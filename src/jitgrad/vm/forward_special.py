"""Compiled forwards of the special functions: erf, erfinv, lgamma, polygamma (digamma) and
the exact gelu with its derivative.

numpy has none of them, so ops/special.py and ops/math.py compute them per element through
Python's math module (100-300 ns an element: a 32 x 64 erfinv took ~600 us against
torch's ~80 us step). These loops work in float64 and store the result rounded to the
output's dtype, so float32 results are as correctly rounded as before and float64 ones
keep float64 accuracy. erf, erfinv and gelu use this file's own vectorisable erf, erfc
and exp (below: ~2.5 ns an element against the C library's ~10-15 ns scalar calls);
lgamma its own vectorisable series with numpy's log (the C library's lgamma where x <= 0 and
where a float32 result could round differently from it), digamma with it. Like
vm/forward.py, they run only once the backward interpreter has imported Numba. Helpers stay
in this file: Numba's cache does not notice edits to helpers imported from other files.
No fastmath: reassociation would undo the cancellation-free residuals ((1 - y) - erfc(x)).
"""

from __future__ import annotations

import math

import numpy as np

from llvmlite import ir as llvm_ir
from numba.core import types
from numba.extending import intrinsic

from ._numba import jit

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# ---- erf without the C library: vectorisable arithmetic only ---------------------------------
#
# Our own fits (perf/check_erf_exhaustive.py has the fitting recipe and the checks):
# interpolation at Chebyshev nodes, solved in 90-digit decimal arithmetic against erf's
# Taylor series (also in decimal), coefficients rounded to float64.
#   |x| < 0.875:  erf(x) = x + x R(x^2), R of degree 12 (0.70 ulp at most, float64);
#   0.875 <= |x| < 6:  erfc(x) = exp(-x^2) E(u), E ~ erfcx of degree 17 in
#       u = (x - 3)/(x + 3) - c (relative error ~3e-16), erf = 1 - erfc;
#   |x| >= 6: erf = +-1 (erfc(6) = 2e-17 is below half an ulp of 1).
# exp(y), y <= 0: y = n ln2 + r (|r| <= ln2/2, ln2 split in two so n ln2_hi is exact),
# exp(r) = 1 + r + r^2 Q(r) (Q of degree 10, 0.76 ulp), times 2^(n/2) 2^(n - n/2) built
# from their bits (two factors: subnormal results are rounded once, by the last product).
# Every step is arithmetic and selects: LLVM vectorises the loops (AVX-512: ~1 ns an
# element against libm's ~10-20 ns).
# Measured (perf/check_erf_exhaustive.py, 2026-12-05): float32 erf equals
# float32(math.erf(x)) for all 2^32 inputs (0 mismatches), and its float32 factor numpy's
# rule with libm's exp for all of them; float64 erf within 1.00 ulp of math.erf on 10.2M
# inputs (tails, tiny, subnormal, specials; 5.6% differ), _exp_neg within 1 ulp of
# numpy's exp (the float64 factor, after the product with 2/sqrt(pi), within 2 ulp).

_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471805601177          # ln 2 to 41 bits: n * _LN2_HI is exact for |n| < 2^11
_LN2_LO = -1.7239444525614835e-13
_ROUND = 6755399441055744.0           # 1.5 * 2^52: (y + _ROUND) - _ROUND rounds y to an integer
_ERF_SMALL = 0.875
_ERF_ONE = 6.0
_TAIL_C = -0.1075268817204301


@intrinsic
def _bits_to_float64(typingctx, n):  # pragma: no cover - compiled
    """The float64 whose bits are the int64 n (an LLVM bitcast: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _fma(typingctx, a, b, c):  # pragma: no cover - compiled
    """a * b + c rounded once (LLVM's fma: the FMA instruction here)."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@jit(inline="always", fastmath=False)
def _exp_reduced(y):  # pragma: no cover - compiled
    """(nf, exp(r)) with y = nf ln2 + r, nf an integer, |r| <= ln2/2, for a finite y."""
    nf = (y * _LOG2E + _ROUND) - _ROUND
    r = (y - nf * _LN2_HI) - nf * _LN2_LO
    p = 2.0914717341716378e-09
    p = _fma(p, r, 2.5105259538448494e-08)
    p = _fma(p, r, 2.755727357010214e-07)
    p = _fma(p, r, 2.7557255297969643e-06)
    p = _fma(p, r, 2.4801587325605324e-05)
    p = _fma(p, r, 0.0001984126987490126)
    p = _fma(p, r, 0.001388888888888373)
    p = _fma(p, r, 0.008333333333326112)
    p = _fma(p, r, 0.04166666666666667)
    p = _fma(p, r, 0.1666666666666667)
    p = _fma(p, r, 0.5)
    return nf, 1.0 + _fma(r * r, p, r)


@jit(inline="always", fastmath=False)
def _exp_neg(y):  # pragma: no cover - compiled
    """exp(y) for y <= 0 (-inf and nan included), within an ulp."""
    ya = y
    y = y if y > -746.0 else -746.0                     # (exp(-746) rounds to 0; nan: below)
    nf, p = _exp_reduced(y)
    n = np.int64(nf)
    n1 = n >> 1
    s1 = _bits_to_float64((n1 + 1023) << 52)
    s2 = _bits_to_float64((n - n1 + 1023) << 52)
    r = p * s1 * s2
    return r if ya == ya else ya                        # (nan: y itself, its sign kept)


@jit(inline="always", fastmath=False)
def _erf_small(a):  # pragma: no cover - compiled
    """erf(a) for |a| < 0.875 (odd: the sign and -0.0 kept)."""
    s = a * a
    p = 6.627786135071423e-11
    p = _fma(p, s, -1.1712641683192752e-09)
    p = _fma(p, s, 1.4735405934568758e-08)
    p = _fma(p, s, -1.636001974888772e-07)
    p = _fma(p, s, 1.646179331465805e-06)
    p = _fma(p, s, -1.4925638169259221e-05)
    p = _fma(p, s, 0.00012055332664402735)
    p = _fma(p, s, -0.0008548327017905889)
    p = _fma(p, s, 0.0052239776253799495)
    p = _fma(p, s, -0.026866170645127092)
    p = _fma(p, s, 0.11283791670955111)
    p = _fma(p, s, -0.37612638903183754)
    p = _fma(p, s, 0.1283791670955126)
    return _fma(a, p, a)


@jit(inline="always", fastmath=False)
def _erfc_tail(a, e):  # pragma: no cover - compiled
    """erfc(a) for 0.875 <= a (<= 6 for a relative error ~5e-16), e = exp(-a^2)."""
    u = (a - 3.0) / (a + 3.0) - _TAIL_C
    p = -3.7268121592429735e-08
    p = _fma(p, u, -1.8692855896301042e-07)
    p = _fma(p, u, 1.0523527135565804e-07)
    p = _fma(p, u, 1.3871369991200416e-06)
    p = _fma(p, u, 4.528931383319574e-08)
    p = _fma(p, u, -9.51421005692175e-06)
    p = _fma(p, u, -1.2597147948627203e-06)
    p = _fma(p, u, 7.260318235092998e-05)
    p = _fma(p, u, -2.9453980531057784e-05)
    p = _fma(p, u, -0.0006054522787712218)
    p = _fma(p, u, 0.0012301568019224196)
    p = _fma(p, u, 0.0035402786691912324)
    p = _fma(p, u, -0.026932848029052058)
    p = _fma(p, u, 0.08548403858410322)
    p = _fma(p, u, -0.1838625743565248)
    p = _fma(p, u, 0.29931148829232573)
    p = _fma(p, u, -0.38463156888861927)
    p = _fma(p, u, 0.21711627311807302)
    return e * p


@jit(inline="always", fastmath=False)
def _erf_from(v, e):  # pragma: no cover - compiled
    """erf(v) for float64 v, e = exp(-v^2) (needed from 0.875 on). Both branches computed
    and one selected (no branch: the loop vectorises)."""
    a = abs(v)
    t = 1.0 - _erfc_tail(a if a < _ERF_ONE else _ERF_ONE, e)
    r = _erf_small(v) if a < _ERF_SMALL else math.copysign(t, v)
    return r if v == v else v


@jit(inline="always", fastmath=False)
def _erf_and_exp(xi):  # pragma: no cover - compiled
    """(erf(xi), exp(-float(xi * xi))) for xi float32 or float64: the second is erf's
    slope over 2/sqrt(pi) as numpy's factor computes it (xi * xi rounded to xi's dtype),
    the first gets exp(-v^2) exactly from it: exp(d) for the rounding d of xi * xi
    (|d| <= 2^-24 x^2: three terms; 0 for float64 and beyond 6, where d may be inf - inf)."""
    v = np.float64(xi)
    xx = np.float64(xi * xi)
    ef = _exp_neg(-xx)
    d = xx - v * v
    d = d if abs(v) < _ERF_ONE else 0.0
    e = ef * (1.0 + d * (1.0 + d * (0.5 + d * (1.0 / 6.0))))
    return _erf_from(v, e), (ef if v == v else -v)      # (nan: numpy's -(x * x) sign)


@jit(fastmath=False)
def erf(x, out):  # pragma: no cover - compiled
    """out = erf(x) for 1-D contiguous x, out (the arithmetic above, no libm call)."""
    for i in range(x.size):
        out[i] = _erf_and_exp(x[i])[0]


@jit(fastmath=False)
def erf_deriv(x, d, c):  # pragma: no cover - compiled
    """d = erf's factor exp(-(x * x)) * c (c = 2/sqrt(pi) in x's dtype) as ops/math.py's
    erf_op computes it: x * x and the product in x's dtype, exp in float64 (this file's,
    within an ulp of numpy's) rounded to x's dtype. forward_activation.py's erf gives the
    same values with the output."""
    for i in range(x.size):
        d[i] = _erf_and_exp(x[i])[1]
        d[i] = d[i] * c


@jit(fastmath=False)
def erf_libm(x, out):  # pragma: no cover - compiled
    """out = erf(x) through the C library's (the reference of the checks)."""
    for i in range(x.size):
        out[i] = math.erf(np.float64(x[i]))


@jit(inline="always", fastmath=False)
def _gelu_parts(v):  # pragma: no cover - compiled
    """(Phi(v), v phi(v)) for float64 v: Phi = (1 + erf(v / sqrt 2)) / 2, one exp for both."""
    w = v * _SQRT1_2
    e = _exp_neg(-(w * w))
    return 0.5 * (1.0 + _erf_from(w, e)), v * e * _INV_SQRT_2PI


@jit(fastmath=False)
def gelu(x, out):  # pragma: no cover - compiled
    """out = x Phi(x), the exact gelu (Phi(x) = (1 + erf(x / sqrt 2)) / 2)."""
    for i in range(x.size):
        v = np.float64(x[i])
        out[i] = v * _gelu_parts(v)[0]


@jit(fastmath=False)
def gelu_deriv(x, deriv):  # pragma: no cover - compiled
    """deriv = Phi(x) + x phi(x), the exact gelu's slope."""
    for i in range(x.size):
        cdf, pdf = _gelu_parts(np.float64(x[i]))
        deriv[i] = cdf + pdf


@jit(inline="always", fastmath=False)
def _halley_erfinv(r, a):  # pragma: no cover - compiled
    """One Halley step's correction for erf(r) = a (r, a >= 0): u / (1 + r u), u = f / f'.
    Beyond a = 0.5 (r > 0.47) the residual is (1 - a) - erfc(r), where erf(r) - a would
    cancel. Branch-free (selects): the loop over the elements vectorises."""
    e = _exp_neg(-(r * r))
    small = _erf_small(r)
    rt = r if r > _ERF_SMALL else _ERF_SMALL
    tail = _erfc_tail(rt if rt < _ERF_ONE else _ERF_ONE, e)
    ec = tail if r >= _ERF_SMALL else 1.0 - small
    f = (1.0 - a) - ec if a > 0.5 else small - a
    slope = _TWO_OVER_SQRT_PI * e
    u = f / slope
    step = u / (1.0 + r * u)
    return step if slope != 0.0 else 0.0


@jit(inline="always", fastmath=False)
def _erfinv_guess(a, w):  # pragma: no cover - compiled
    """Giles' single-precision approximation of erf^-1(a) (~1e-7) for a = |y|, w =
    -log((1 - a)(1 + a)) (0 where a >= 1): both polynomials, one selected (no branch)."""
    u = w - 2.5
    p = 2.81022636e-08
    p = _fma(p, u, 3.43273939e-07)
    p = _fma(p, u, -3.5233877e-06)
    p = _fma(p, u, -4.39150654e-06)
    p = _fma(p, u, 0.00021858087)
    p = _fma(p, u, -0.00125372503)
    p = _fma(p, u, -0.00417768164)
    p = _fma(p, u, 0.246640727)
    p = _fma(p, u, 1.50140941)
    v = math.sqrt(w) - 3.0
    q = -0.000200214257
    q = _fma(q, v, 0.000100950558)
    q = _fma(q, v, 0.00134934322)
    q = _fma(q, v, -0.00367342844)
    q = _fma(q, v, 0.00573950773)
    q = _fma(q, v, -0.0076224613)
    q = _fma(q, v, 0.00943887047)
    q = _fma(q, v, 1.00167406)
    q = _fma(q, v, 2.83297682)
    return (p if w < 5.0 else q) * a


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
    `steps` Halley steps (cubic: one gives float32, two float64 accuracy) for every element
    (vectorised: this file's erf, erfc and exp, no C library call), then up to 10 more
    while the last step is still large (the far tails). The residual uses erfc beyond 0.5,
    where erf(x) - y would cancel. +-inf at +-1, nan outside. logt: log(erfinv_start's t).
    Measured (perf/check_erf_exhaustive.py): float32 results equal the former libm-based
    kernel's for all 2^32 float32 inputs (0 mismatches; 2 differ from a three-step float64
    reference rounded, as the former kernel's do)."""
    r0 = np.empty(y.size)
    for i in range(y.size):
        a = abs(np.float64(y[i]))
        r0[i] = _erfinv_guess(a, -logt[i] if a < 1.0 else 0.0)
    last = np.zeros(y.size)
    for _ in range(steps):                  # (the loop over the elements vectorises)
        for i in range(y.size):
            a = abs(np.float64(y[i]))
            a = a if a < 1.0 else 0.0
            step = _halley_erfinv(r0[i], a)
            r0[i] = r0[i] - step
            last[i] = step
    for i in range(y.size):
        t = np.float64(y[i])
        a = abs(t)
        if not a < 1.0:
            out[i] = math.copysign(math.inf, t) if a == 1.0 else math.nan
            continue
        r = r0[i]
        step = last[i]
        k = 0
        while k < 10 and not abs(step) <= 1e-6 * r:     # (rare: the far tails)
            step = _halley_erfinv(r, a)
            r = r - step
            k += 1
        out[i] = math.copysign(r, t)


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


# Below -1e4 the recurrence would take |x| steps (float64 x = -1e15 - 0.5: effectively a
# hang), so non-integers there take the reflection formula
#   psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) cot^(n)(pi x),
# psi_n(1 - x) by the series at 1 - x > 1e4 (no steps) and cot^(n)(y) = P_n(cot y), where
# P_0(c) = c and P_(k+1)(c) = -(1 + c^2) P_k'(c): its coefficients all have the sign (-1)^n
# and the parity of n + 1, so P_n(c) has no cancellation. cot(pi x) comes from x's exact
# fractional part. For even n >= 2 every negative non-integer takes it (psi_n(1 - x) then
# by the recurrence from 1 - x > 1); for n = 0 and odd n the recurrence from -1e4 up, as
# before (within ~1e-15 of the reflection's there, absolute near digamma's roots).
_PSI_REFLECT = -1e4
_PI2 = math.pi * math.pi
_PI_POW = (math.pi, _PI2, _PI2 * math.pi)               # pi^(n+1), n = 0, 1, 2 (_pi_pow's)
_COT_POLY = ((0.0, 1.0, 0.0, 0.0), (-1.0, 0.0, -1.0, 0.0),  # P_0, P_1, P_2 (_cot_poly's)
             (0.0, 2.0, 0.0, 2.0))


@jit(inline="always", fastmath=False)
def _reflects(v, n):  # pragma: no cover - compiled
    """Whether psi_n at v (not a pole) is the reflection's: v < -1e4, or v < 0 for an even
    n >= 2: the recurrence's sum cancels there near half-integers (its psi_2(-9969.5) was
    1.7e-7 off relative, psi_4(-9997.5) 80x too large, psi_4(-97.5) 1.2e-6 off)."""
    return v < _PSI_REFLECT or (n >= 2 and n % 2 == 0 and v < 0.0)


@jit(inline="always", fastmath=False)
def _cot_pi(v):  # pragma: no cover - compiled
    """cot(pi v) for a finite non-integer v, to a few ulp: f = v - round(v) in [-1/2, 1/2]
    is exact (v - floor(v) is not for a tiny negative v: -1e-30 gave 1, a pole), and
    cot(pi a) = tan(pi (1/2 - a)) for |f| = a > 1/4 (exact 1/2 - a: 0 exactly at
    half-integers), 1 / tan(pi a) below."""
    f = v - np.round(v)
    a = abs(f)
    c = math.tan(math.pi * (0.5 - a)) if a > 0.25 else 1.0 / math.tan(math.pi * a)
    return math.copysign(c, f)


@jit(inline="always", fastmath=False)
def _pi_pow(n):  # pragma: no cover - compiled
    """pi^(n+1) by repeated products (_PI_POW's values for n <= 2)."""
    p = math.pi
    for _ in range(n):
        p = p * math.pi
    return p


@jit(inline="always", fastmath=False)
def _cot_poly(n):  # pragma: no cover - compiled
    """P_n's coefficients, c^0 first (n + 2 of them): P_(k+1) = -(1 + c^2) P_k'."""
    a = np.zeros(n + 2)
    b = np.zeros(n + 2)
    a[1] = 1.0
    for k in range(n):
        for i in range(k + 3):
            up = (i + 1) * a[i + 1] if i + 1 <= k + 1 else 0.0
            down = (i - 1) * a[i - 1] if i >= 1 else 0.0
            b[i] = 0.0 - (up + down)             # (+0.0 where zero)
        for i in range(k + 3):
            a[i] = b[i]
    return a


@jit(inline="always", fastmath=False)
def _psi_reflect(v, n, r, pk, coef):  # pragma: no cover - compiled
    """psi_n(v) for a non-integer v where _reflects, from r = psi_n(1 - v):
    (-1)^n r - pk P_n(c), c = cot(pi v), pk = pi^(n+1), coef P_n's coefficients (c^0
    first; trailing zeros do not change the value)."""
    c = _cot_pi(v)
    p = coef[len(coef) - 1]
    for k in range(len(coef) - 2, -1, -1):
        p = p * c + coef[k]
    return (r if n % 2 == 0 else -r) - pk * p


@jit(fastmath=False)
def polygamma_shift(x, n, shift_to, zs, accs):  # pragma: no cover - compiled
    """The recurrence psi_n(z) = psi_n(z + 1) - (-1)^n n! / z^(n+1) up to z >= shift_to:
    zs the shifted argument, accs the sum of the 1/z^(n+1) terms (zs = shift_to at the
    poles, so that log(zs) is defined for every element). For 1e-3 <= z < shift_to the
    sum is one fraction over a fixed ceil(shift_to) steps, computed for every element a
    step at a time: loops over the elements vectorise (the per-element loop's dependency
    chain took ~2x longer). Other elements (tiny, negative) take the loop per element;
    where _reflects, zs and the sum are those of 1 - x, which polygamma_series reflects."""
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
        if v <= 0.0 and v == np.floor(v):               # a pole (-inf included)
            v = shift_to
        else:
            if _reflects(v, n):     # psi_n(1 - v)'s zs and sum, as for x = 1 - v (> 1)
                v = 1.0 - v
                if n <= 4:
                    v, acc = _psi_shifted(v, n + 1)
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
    -0 and nan at negative integers, else (-1)^(n+1) inf. Where _reflects: the reflection
    formula from psi_n(1 - x) (_psi_reflect)."""
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
    cot = _cot_poly(n)                                  # (for the reflected elements)
    pk = _pi_pow(n)
    for i in range(m):
        v = np.float64(x[i])
        if v != v:
            out[i] = math.nan
        elif v == math.inf:
            out[i] = 0.0 if n else math.inf
        elif v <= 0.0 and v == np.floor(v):             # a pole (-inf included)
            if n == 0:
                out[i] = math.copysign(math.inf, -v) if v == 0.0 else math.nan
            else:
                out[i] = sign * math.inf
        elif _reflects(v, n):                           # zs, accs: those of 1 - v
            if n == 0:
                r = logz[i] - 0.5 * zi[i] - s[i] - accs[i]
            else:
                r = sign * (_ipow(zi[i], n) * (lead + 0.5 * fact * zi[i] + s[i]) +
                            fact * accs[i])
            out[i] = _psi_reflect(v, n, r, pk, cot)
        elif n == 0:
            out[i] = logz[i] - 0.5 * zi[i] - s[i] - accs[i]
        else:
            zn = _ipow(zi[i], n)
            out[i] = sign * (zn * (lead + 0.5 * fact * zi[i] + s[i]) + fact * accs[i])


@jit(fastmath=False)
def lgamma(x, out):  # pragma: no cover - compiled
    """out = log|Gamma(x)| by the C library's lgamma per element; +inf at the poles 0, -1,
    -2, ... (as Paddle). The former forward, now the reference of the checks (the ops use
    lgamma_args and lgamma_finish below, whose fallback is this function's)."""
    for i in range(x.size):
        out[i] = math.lgamma(np.float64(x[i]))


# ---- lgamma and digamma without the C library's lgamma ---------------------------------------
#
# lgamma(x) for 0 < x < 10: n = floor(x + 1/2), t = x - n in [-1/2, 1/2) (exact: x - n is a
# multiple of x's ulp below x), and lgamma(x) = lgamma(2 + t) + log L with
#   n = 0: L = 1 / (x (x + 1)),  n = 1: L = 1 / x,  n >= 2: L = (t + 2)(t + 3) ... (t + n - 1)
# (each t + j exact, as x - n), the reciprocals taken as a minus sign in front of the log.
# lgamma(2 + t) = t R(t), R of degree 19 (our fit, perf/check_lgamma_exhaustive.py --fit:
# interpolation at Chebyshev nodes in 80-digit decimal arithmetic against Stirling's series
# at z + 40; 2.4e-17 relative with the coefficients rounded). The factor t keeps the zero at
# x = 2 relative; near x = 1 the result is t R(t) - log(1 + t) ~ -0.58 t: no cancellation
# beyond a factor ~2.5. For 10 <= x < 2^64, Stirling's series at x itself:
# (x - 1/2)(log x - 1) + (log(2 pi) - 1)/2 + 1/(12 x) - ... (8 terms: 2e-18 relative at 10).
# The logs are numpy's (the caller takes them between lgamma_args and lgamma_finish: ~7x
# quicker than the C library's per element here), of the same array digamma needs.
# Everything else (x <= 0, poles, nan, inf, x >= 2^64) is the C library's lgamma, as before.
# float32 results: an element whose float64 value lies within 2^-46 times the size of its
# terms (64 float64 ulps of it; our error is a few) of a float32 rounding boundary is also
# the C library's (~1 element in 10^6), so the float32 output is float32(libm's lgamma) on
# every input (checked on all 2^32 inputs: perf/check_lgamma_exhaustive.py).
# digamma (polygamma n = 0) and trigamma: polygamma_shift's and polygamma_series'
# operations in the same order, one element at a time in registers (the 10 steps unrolled,
# the loop over the elements vectorised), the series' coefficients compile-time constants:
# bit for bit their values.

_SHIFT_TO = 10.0                      # ops/special.py's _SHIFT_TO: the recurrence's target
_PSI_STEPS = 10                       # ceil(_SHIFT_TO): its fixed step count
_PSI_LOW = 1e-3                       # below: the per-element loop (polygamma_shift's)
_LGAMMA_BIG = 18446744073709551616.0  # 2^64: beyond, the C library's lgamma
_ZIV = 2.0 ** -46                     # the float32 rounding test's width, relative

# B_2, B_4, ..., B_20 (ops/special.py's _BERNOULLI) and the series' coefficients as
# ops/special.py's _series computes them (the same float operations: the same values)
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
        43867 / 798, -174611 / 330)
_PSI_COEF = (tuple(b / (2 * k) for k, b in enumerate(_B2K, 1)),) + tuple(
    tuple(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
          for k, b in enumerate(_B2K, 1)) for n in (1, 2))

# Stirling's series B_2k / (2k (2k - 1)), k = 1..8, and (log(2 pi) - 1) / 2
_STIRLING = (0.08333333333333333, -0.002777777777777778, 0.0007936507936507937,
             -0.0005952380952380953, 0.0008417508417508417, -0.0019175269175269176,
             0.00641025641025641, -0.029550653594771242)
_HALF_LOG_2PI_E = 0.4189385332046727


@jit(inline="always", fastmath=False)
def _horner(c, v):  # pragma: no cover - compiled
    """c[0] + c[1] v + ... with FMAs (c a constant tuple: the loop unrolls, up to ~10)."""
    p = c[len(c) - 1]
    for k in range(len(c) - 2, -1, -1):
        p = _fma(p, v, c[k])
    return p


@jit(inline="always", fastmath=False)
def _lgamma_r(t):  # pragma: no cover - compiled
    """R(t) = lgamma(2 + t) / t for |t| <= 1/2 (our fit, 2.4e-17 relative), as its even
    and odd parts in t^2: two 10-term chains the CPU overlaps (one 20-term Horner chain's
    latency bound the loop). Written out: a loop over a 20-term tuple was not unrolled."""
    s = t * t
    e = -1.3412819758517287e-07
    e = _fma(e, s, -4.303558760359961e-07)
    e = _fma(e, s, -2.0449201467015115e-06)
    e = _fma(e, s, -9.438458716242811e-06)
    e = _fma(e, s, -4.4926351103833334e-05)
    e = _fma(e, s, -0.00022315475074520367)
    e = _fma(e, s, -0.0011927539120010226)
    e = _fma(e, s, -0.0073855510286681535)
    e = _fma(e, s, -0.06735230105319814)
    e = _fma(e, s, 0.42278433509846713)
    o = 6.379047507619773e-08
    o = _fma(o, s, 2.030480675161523e-07)
    o = _fma(o, s, 9.578663334114758e-07)
    o = _fma(o, s, 4.374374916915131e-06)
    o = _fma(o, s, 2.050726741605779e-05)
    o = _fma(o, s, 9.945750909889392e-05)
    o = _fma(o, s, 0.0005096695248853096)
    o = _fma(o, s, 0.002890510330738737)
    o = _fma(o, s, 0.02058080842778457)
    o = _fma(o, s, 0.3224670334241132)
    return _fma(o, t, e)


@jit(inline="always", fastmath=False)
def _lgamma_log_arg(v, top):  # pragma: no cover - compiled
    """L > 0, whose log (with the sign _lgamma_small gives it) lgamma adds to lgamma(2 + t)
    for 0 < v < top - 1/2 (top <= 10, a constant where called: the factors t + j, j < top);
    1 for v outside (0, 10) (log 0: nothing). Selects only: the loop vectorises."""
    n = np.floor(v + 0.5)
    t = v - n
    p = 1.0
    for j in range(2, top):
        p = p * (t + j) if j < n else p
    p = v if n == 1.0 else p
    p = v * (v + 1.0) if n == 0.0 else p
    return p if v > 0.0 and v < _SHIFT_TO else 1.0


@jit(inline="always", fastmath=False)
def _lgamma_small(v, logl):  # pragma: no cover - compiled
    """(lgamma(v), the size of its terms) for 0 < v < 10 from logl = log(_lgamma_log_arg(v));
    other v: anything (the caller replaces them)."""
    n = np.floor(v + 0.5)
    t = v - n
    r = _lgamma_r(t)
    return _fma(t, r, logl if n >= 2.0 else -logl), abs(t * r) + abs(logl)   # (t r unrounded)


@jit(inline="always", fastmath=False)
def _lgamma_big(v, logv, w):  # pragma: no cover - compiled
    """(lgamma(v), the size of its terms) for 10 <= v < 2^64 by Stirling's series, from
    logv = log(v) and w = 1 / v (logv - 1 is exact: logv >= 2)."""
    r = (v - 0.5) * (logv - 1.0) + _HALF_LOG_2PI_E + w * _horner(_STIRLING, w * w)
    return r, v * logv


@jit(inline="always", fastmath=False)
def _near_float32_boundary(r, size):  # pragma: no cover - compiled
    """Whether r lies within 2^-46 size (~100x our error) of a float32 rounding boundary:
    then float32(r) might differ from float32 of the C library's value."""
    e = size * _ZIV
    return np.float32(r - e) != np.float32(r + e)


@jit(inline="always", fastmath=False)
def _psi_steps(v, k):  # pragma: no cover - compiled
    """polygamma_shift's fast recurrence for psi_(k-1) (z^k per step, k = 1, 2, 3): (v + 10,
    the sum of 1/(v + j)^k, j < 10, as one fraction)."""
    z = v
    num = 0.0
    den = 1.0
    for _ in range(_PSI_STEPS):
        zp = _ipow(z, k)
        num = num * zp + den
        den = den * zp
        z = z + 1.0
    return z, num / den


@jit(inline="always", fastmath=False)
def _psi_slow(v, n):  # pragma: no cover - compiled
    """polygamma_shift's per-element loop (v < 1e-3, poles, -inf): (zs, the sum); below
    -1e4 (1 - v, 0): the series at 1 - v, which _psi_fix reflects."""
    acc = 0.0
    # a pole, -inf included (np.floor: Numba's math.floor gives an int, undefined at inf)
    if v <= 0.0 and v == np.floor(v):
        v = _SHIFT_TO
    elif v < _PSI_REFLECT:
        v = 1.0 - v
    elif v < _SHIFT_TO:
        while v < _SHIFT_TO:
            acc = acc + 1.0 / _ipow(v, n + 1)
            v = v + 1.0
    return v, acc


@jit(inline="always", fastmath=False)
def _psi_shifted(v, k):  # pragma: no cover - compiled
    """(zs, the sum) for psi_(k-1) as polygamma_shift gives them, for v >= 1e-3 or nan (the
    others: _psi_slow); no branch, the loop over the elements vectorises."""
    z, acc = _psi_steps(v, k)
    low = v < _SHIFT_TO
    return (z if low else v), (acc if low else 0.0)


@jit(inline="always", fastmath=False)
def _psi_regular(n, logz, zi, zz, acc):  # pragma: no cover - compiled
    """polygamma_series' value of psi_n (n = 0, 1, 2) at a regular point, the same
    operations (its lead (n-1)! and fact n! are 1, 1, 2 here)."""
    s = 0.0
    c = _PSI_COEF[n]
    for k in range(len(c) - 1, -1, -1):
        s = (s + c[k]) * zz
    if n == 0:
        return logz - 0.5 * zi - s - acc
    fact = 1.0 if n == 1 else 2.0
    sign = 1.0 if n == 1 else -1.0
    return sign * (_ipow(zi, n) * (1.0 + 0.5 * fact * zi + s) + fact * acc)


@jit(inline="always", fastmath=False)
def _psi_special(v, n):  # pragma: no cover - compiled
    """polygamma_series' value at nan, +inf and the poles (-inf included); 0.0 elsewhere."""
    if v != v:
        return math.nan
    if v == math.inf:
        return 0.0 if n else math.inf
    if v <= 0.0 and v == np.floor(v):
        if n == 0:
            return math.copysign(math.inf, -v) if v == 0.0 else math.nan
        return (1.0 if n % 2 else -1.0) * math.inf
    return 0.0


@jit(inline="always", fastmath=False)
def _is_psi_special(v):  # pragma: no cover - compiled
    """nan, +inf, a pole (-inf included) or v < -1e4 (reflected): where the value is
    _psi_fix's, not the series' at zs."""
    return v != v or v == math.inf or v < _PSI_REFLECT or (v <= 0.0 and v == np.floor(v))


@jit(inline="always", fastmath=False)
def _psi_fix(v, n, logz, zs):  # pragma: no cover - compiled
    """psi_n(v) (n = 0, 1, 2) where _is_psi_special(v), and for n = 2 at every v < 0:
    polygamma_series' values (where _reflects, the reflection from psi_n(1 - v): the
    series at zs = 1 - v for v < -1e4, logz = log(zs) read for n = 0, psi_2(1 - v) by its
    own recurrence; the others _psi_special's)."""
    if _reflects(v, n) and v != np.floor(v):
        if n == 2:                          # (every negative v: its zs are not 1 - v's)
            z, acc = _psi_shifted(1.0 - v, 3)
            zi = 1.0 / z
            r = _psi_regular(2, 0.0, zi, zi * zi, acc)
        else:
            zi = 1.0 / zs
            r = _psi_regular(n, logz, zi, zi * zi, 0.0)
        return _psi_reflect(v, n, r, _PI_POW[n], _COT_POLY[n])
    return _psi_special(v, n)


@jit(inline="always", fastmath=False)
def _args_pass(x, buf, acc, psi, top):  # pragma: no cover - compiled
    """lgamma_args' vectorised pass, psi and top constants where it is called; returns the
    count of v < 1e-3 with psi (left to _psi_slow)."""
    m = x.size
    slow = 0
    for i in range(m):
        v = np.float64(x[i])
        buf[m + i] = _lgamma_log_arg(v, top)
        if psi:
            buf[i], acc[i] = _psi_shifted(v, 1)
            slow += v < _PSI_LOW
        else:
            buf[i] = v if v >= _SHIFT_TO else _SHIFT_TO
    return slow


@jit(fastmath=False)
def lgamma_args(x, buf, acc, psi):  # pragma: no cover - compiled
    """First of the lgamma kernels: buf[m:] = _lgamma_log_arg; with psi (digamma wanted too)
    buf[:m] = polygamma_shift's zs for n = 0 and acc its sum, else buf[:m] = the x >= 10
    clamped to 10 (only log x from 10 on is read). The caller takes numpy's log of buf.
    Inputs all below 3.5 (n <= 3: one factor in L) take a pass with one factor, not 8."""
    many = 0
    for i in range(x.size):
        many += x[i] >= 3.5
    if psi:
        if many:
            slow = _args_pass(x, buf, acc, True, _PSI_STEPS)
        else:
            slow = _args_pass(x, buf, acc, True, 3)
    elif many:
        slow = _args_pass(x, buf, acc, False, _PSI_STEPS)
    else:
        slow = _args_pass(x, buf, acc, False, 3)
    if slow:
        for i in range(x.size):
            v = np.float64(x[i])
            if v < _PSI_LOW:
                buf[i], acc[i] = _psi_slow(v, 0)


@jit(inline="always", fastmath=False)
def _lgamma_pass(x, out, d, buf, logs, acc, psi, ziv):  # pragma: no cover - compiled
    """lgamma_finish's vectorised pass, psi a constant where it is called: out = lgamma for
    0 < v < 10 (placeholders elsewhere) and with psi d = digamma. Returns the counts of
    10 <= v < 2^64 (Stirling's), of the v outside (0, 10), and (ziv) of the results near a
    float32 rounding boundary. No flags stored: a test of the counts after the loop."""
    m = x.size
    big = 0
    outside = 0
    near = 0
    for i in range(m):
        v = np.float64(x[i])
        r, size = _lgamma_small(v, logs[m + i])
        out[i] = r
        inside = (v > 0.0) & (v < _SHIFT_TO)
        big += (v >= _SHIFT_TO) & (v < _LGAMMA_BIG)
        outside += not inside
        near += inside & ziv & _near_float32_boundary(r, size)
        if psi:
            zi = 1.0 / buf[i]
            d[i] = _psi_regular(0, logs[i], zi, zi * zi, acc[i])
    return big, outside, near


@jit(inline="always", fastmath=False)
def _lgamma_big_pass(x, out, buf, logs, ziv):  # pragma: no cover - compiled
    """out = lgamma by Stirling's series where 10 <= v < 2^64 (selects: vectorised), from
    lgamma_args' buf (v itself there) and logs; returns the count of results near a
    float32 rounding boundary (ziv)."""
    near = 0
    for i in range(x.size):
        v = np.float64(x[i])
        r, size = _lgamma_big(v, logs[i], 1.0 / buf[i])
        big = (v >= _SHIFT_TO) & (v < _LGAMMA_BIG)
        out[i] = r if big else out[i]
        near += big & ziv & _near_float32_boundary(r, size)
    return near


@jit(fastmath=False)
def lgamma_finish(x, out, d, buf, logs, acc, psi, ziv):  # pragma: no cover - compiled
    """out = lgamma(x) and, with psi, d = digamma(x) (polygamma_series' n = 0 values) from
    lgamma_args' buf, logs = log(buf) and acc. ziv: out is float32 (its rounding test).
    The C library's lgamma for v outside (0, 2^64) and the results near a float32 rounding
    boundary (~1 in 10^6, so those are recomputed to be found)."""
    if psi:
        big, outside, near = _lgamma_pass(x, out, d, buf, logs, acc, True, ziv)
    else:
        big, outside, near = _lgamma_pass(x, out, d, buf, logs, acc, False, ziv)
    if big:
        near += _lgamma_big_pass(x, out, buf, logs, ziv)
    if outside == big and not near:
        return
    m = x.size
    for i in range(m):
        v = np.float64(x[i])
        if not (v > 0.0 and v < _LGAMMA_BIG):
            out[i] = math.lgamma(v)
            if psi and _is_psi_special(v):  # (every psi special is outside (0, 2^64))
                d[i] = _psi_fix(v, 0, logs[i], buf[i])
        elif near:
            if v < _SHIFT_TO:
                r, size = _lgamma_small(v, logs[m + i])
            else:
                r, size = _lgamma_big(v, logs[i], 1.0 / buf[i])
            if _near_float32_boundary(r, size):
                out[i] = math.lgamma(v)


@jit(inline="always", fastmath=False)
def _psi_shift_loop(x, n, zs, acc, acc1, pair):  # pragma: no cover - compiled
    """psi_pair_shift's loop over the elements, n and pair constants where it is called
    (folded: with a runtime n, _ipow's branches stayed in the loop, ~10x slower); returns
    the count of v < 1e-3 (left to _psi_slow)."""
    slow = 0
    for i in range(x.size):
        v = np.float64(x[i])
        zs[i], acc[i] = _psi_shifted(v, n + 1)
        if pair:
            acc1[i] = _psi_shifted(v, n + 2)[1]
        slow += v < _PSI_LOW
    return slow


@jit(fastmath=False)
def psi_pair_shift(x, n, zs, acc, acc1, pair):  # pragma: no cover - compiled
    """polygamma_shift's zs and sum for psi_n (n = 0, 1) into zs, acc, and with pair those
    of psi_(n+1) into acc1 (the same zs), the same values."""
    if n == 0:
        if pair:
            slow = _psi_shift_loop(x, 0, zs, acc, acc1, True)
        else:
            slow = _psi_shift_loop(x, 0, zs, acc, acc1, False)
    elif pair:
        slow = _psi_shift_loop(x, 1, zs, acc, acc1, True)
    else:
        slow = _psi_shift_loop(x, 1, zs, acc, acc1, False)
    if slow:
        for i in range(x.size):
            v = np.float64(x[i])
            if v < _PSI_LOW:
                zs[i], acc[i] = _psi_slow(v, n)
                if pair:
                    acc1[i] = _psi_slow(v, n + 1)[1]


@jit(inline="always", fastmath=False)
def _psi_series_loop(x, out, out1, n, pair, zs, acc, acc1, logz):  # pragma: no cover
    """psi_pair_series' loop over the elements, n and pair constants where it is called;
    returns the count of specials (nan, +inf, poles, v < -1e4, and with pair and n = 1
    every v < 0 for psi_2: left to _psi_fix)."""
    special = 0
    for i in range(x.size):
        v = np.float64(x[i])
        zi = 1.0 / zs[i]
        zz = zi * zi
        out[i] = _psi_regular(n, logz[i], zi, zz, acc[i])
        if pair:
            out1[i] = _psi_regular(n + 1, logz[i], zi, zz, acc1[i])
        special += _is_psi_special(v) | (pair & (n == 1) & (v < 0.0))   # (psi_2: _psi_fix)
    return special


@jit(fastmath=False)
def psi_pair_series(x, out, out1, n, pair, zs, acc, acc1, logz):  # pragma: no cover
    """out = psi_n(x) (n = 0, 1) and with pair out1 = psi_(n+1)(x): polygamma_series'
    values from psi_pair_shift's arrays, logz = log(zs) (read for n = 0)."""
    if n == 0:
        if pair:
            special = _psi_series_loop(x, out, out1, 0, True, zs, acc, acc1, logz)
        else:
            special = _psi_series_loop(x, out, out1, 0, False, zs, acc, acc1, logz)
    elif pair:
        special = _psi_series_loop(x, out, out1, 1, True, zs, acc, acc1, logz)
    else:
        special = _psi_series_loop(x, out, out1, 1, False, zs, acc, acc1, logz)
    if special:
        for i in range(x.size):
            v = np.float64(x[i])
            if _is_psi_special(v):
                out[i] = _psi_fix(v, n, logz[i], zs[i])
            if pair and (_is_psi_special(v) or (n == 1 and v < 0.0)):
                out1[i] = _psi_fix(v, n + 1, logz[i], zs[i])


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


@jit(inline="always", fastmath=False)
def _bessel_asymptotic(v, nu, scaled):  # pragma: no cover - compiled
    """I_nu(v) for 15 < v < inf (times exp(-v) when scaled): bessel's asymptotic series."""
    mu = 4.0 * nu * nu
    t = 1.0
    s = 1.0
    for k in range(1, 30):
        t = t * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * v)
        s += t
    r = s / math.sqrt(2 * math.pi * v)
    if not scaled:
        r = r * math.exp(v)
    return r


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
            r = _bessel_asymptotic(v, nu, scaled)
        out[i] = -r if nu and x[i] < 0 else r


@jit(fastmath=False)
def bessel_pair(x, out, d, nu, scaled, one, zero, half):  # pragma: no cover - compiled
    """out = I_nu(x) and d its saved derivative factor (ops/bessel.py's deriv on arrays),
    from I_0 and I_1 computed together (one exp for both): every series exactly as
    `bessel` computes it (each stops when its own terms no longer count), each rounded to
    x's dtype, then the factor in x's dtype (one, zero, half of that type):
    i0: i1; i1: 1/2 at 0, else i0 - out / x; i0e: i1e - sign(x) out;
    i1e: 1/2 at 0, else i0e - out sign(x) - out / x."""
    n = x.size
    a = np.empty(n)
    term0 = np.empty(n)
    total0 = np.empty(n)
    term1 = np.empty(n)
    total1 = np.empty(n)
    q = np.empty(n)
    for i in range(n):
        v = abs(np.float64(x[i]))
        a[i] = v
        h = v / 2.0 if v <= 15.0 else 0.0
        term0[i] = 1.0
        total0[i] = 1.0
        term1[i] = h
        total1[i] = h
        q[i] = h * h
    more0 = True
    more1 = True
    for k in range(1, 64):
        if more0:
            c = 1.0 / (k * k)
            big = 0
            for i in range(n):
                t = term0[i] * q[i]
                t = t * c
                term0[i] = t
                total0[i] += t
                big += t > total0[i] * 1e-17
            more0 = big > 0
        if more1:
            c = 1.0 / (k * (k + 1))
            big = 0
            for i in range(n):
                t = term1[i] * q[i]
                t = t * c
                term1[i] = t
                total1[i] += t
                big += t > total1[i] * 1e-17
            more1 = big > 0
        if not (more0 or more1):
            break
    for i in range(n):
        v = a[i]
        xi = x[i]
        if v != v:                                      # (nan: x itself, as bessel)
            r0 = np.float64(xi)
            r1 = r0
        elif v <= 15.0:
            if scaled:
                e = math.exp(-v)
                r0 = total0[i] * e
                r1 = total1[i] * e
            else:
                r0 = total0[i]
                r1 = total1[i]
        elif v == math.inf:
            r0 = 0.0 if scaled else math.inf
            r1 = r0
        else:
            r0 = _bessel_asymptotic(v, 0, scaled)
            r1 = _bessel_asymptotic(v, 1, scaled)
        r1 = -r1 if xi < 0 else r1
        # both rounded to x's dtype (through the arrays), then the factor in that dtype
        out[i] = r1 if nu else r0
        d[i] = r0 if nu else r1
        o = out[i]
        other = d[i]
        s = one if xi > zero else (-one if xi < zero else (xi if xi != xi else zero))
        if nu == 0:
            d[i] = other - s * o if scaled else other
        elif xi == zero:
            d[i] = half
        elif scaled:                    # (o / xi, not o * (1 / xi): 1 / a subnormal is inf)
            d[i] = other - o * s - o / xi
        else:
            d[i] = other - o / xi
