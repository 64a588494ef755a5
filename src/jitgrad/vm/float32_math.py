"""float32 exp, log, expm1, log1p, log2, log10, cosh, sinh, atanh, asinh, acosh, atan and
tan in one vectorised pass, each giving float32(f(float64(x))) with the C library's f: the
values of the numpy path (ops/rounded.py's), bit for bit.

Why: without AVX-512, numpy's float32 sinh, cosh, expm1, log1p, arctanh ... are scalar C
library loops (15-25 ns an element; torch's are vectorised, 1-2 ns), and the float64 detour
that makes exp and log correctly rounded costs ~10 ns an element. Here each f is arithmetic
and selects on float64 (vm/forward_special.py's exp reduction; a log of our own), which LLVM
vectorises, with a relative error below 2^-50. Where that float64 value lies within 2^-46 of
a float32 rounding boundary (Ziv's rounding test; about one input in 2^21), a second, scalar
pass asks the C library for those elements, so the float32 result is the C library's value
rounded for every input (perf/check_float32_exhaustive.py checks all 2^32 of them for each
function).

The same arithmetic also serves ops whose float32 forward chained several of these passes:
erfinv (forward_special's kernel with this file's log, and its saved factor's exp),
softplus, log_sigmoid, soft_margin (log1p and the factor's expm1 after numpy's exp), celu
(expm1 and the factor's exp) and logaddexp's log1p(exp(x)): one call each, the values of
the passes they replace bit for bit (perf/check_fused_exhaustive.py).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.extending import intrinsic

from . import forward_special
from ._numba import jit
from .forward_special import _LN2_HI, _LN2_LO, _LOG2E, _ROUND, _bits_to_float64, _exp_reduced
from .forward_special import _erfinv_guess, _halley_erfinv

_SPECIAL = (forward_special.__file__,)

_ZIV_ULPS = 128         # the rounding test's half width in float64 ulps of r: 2^-46 |r| or more
#                         (16x our error bound; 2^-46 |r| is 2^6 m ulps, m < 2 r's mantissa)
_F32_TINY = 2.0 ** -126             # the smallest normal float32
# Each kernel runs in blocks of _BLOCK elements, a doubt sending its block alone back to the
# scalar pass: about one input in 2^21 is doubted, so with the whole array as one block the
# second pass ran over all of a 1M array in ~40% of calls (13 ns an element instead of 1.2).
# The blocks' indices are uint64: a signed index from a runtime start keeps numpy's
# negative-index wraparound inside the loop, which stops LLVM vectorising it (11x slower).
_BLOCK = 4096
_EXP_CLAMP = 200.0                  # |y| beyond: exp(y) is 0 or inf as a float32 anyway
_ROUND_BITS = 0x4338000000000000    # the bits of forward_special's _ROUND (1.5 * 2^52)
_TWO52_BITS = 0x4330000000000000    # the bits of 2^52
_LOG10_2 = 0.30102999566398120      # log10(2)
_LOG10_E = 0.43429448190325182      # log10(e)
_SQRT2 = 1.4142135623730951
_ATAN_QUARTER = 0.24497866312686414     # atan(0.25), atan(0.5), atan(0.75), atan(1)
_ATAN_HALF = 0.4636476090008061
_ATAN_3_QUARTERS = 0.6435011087932844
_PI_4 = 0.7853981633974483
_PI_2 = 1.5707963267948966
_2_PI = 0.6366197723675814          # 2 / pi
_PIO2_1 = 1.5707963267341256        # pi/2 in three parts of 33 bits (from pi by Machin's
_PIO2_2 = 6.077100506303966e-11     # formula in integers): k * _PIO2_1, k * _PIO2_2 exact
_PIO2_3 = 2.0222662487959506e-21    # for |k| < 2^20
_TAN_TOP = 524288.0                 # |x| from 2^19: tan's reduction is the C library's
_MINUS_NAN_BITS = -0x8000000000000  # 0xFFF8000000000000: -nan (a -nan constant loses its sign)

# The thirteen kernels below let LLVM fuse a * b + c into one FMA ("contract", Numba's
# fastmath flag): each step rounds once instead of twice, so the float64 value stays within
# the error bound above; half or more of the separate multiplies go (5-9% an element). No
# product here is an error-free step whose own rounding matters: k ln2_hi, kf pi/2_1 and
# |r| 2^-46 are exact, and (y log2e + _ROUND) - _ROUND is an integer either way. The fused
# kernels (erfinv, softplus, log_sigmoid, celu, log1p_exp) stay fastmath=False: their
# float32 steps round as forward_activation's loops, erfinv's as forward_special.erfinv's.
_CONTRACT = {"contract"}


@intrinsic
def _float64_bits(typingctx, v):  # pragma: no cover - compiled
    """The int64 whose bits are the float64 v (an LLVM bitcast: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.IntType(64))
    return types.int64(types.float64), codegen


# AVX2 has no float64 <-> int64 conversion and no arithmetic int64 shift: the integers
# below travel in float64 bits (x + 1.5 * 2^52 holds round(x) in its low bits) instead.

@jit(inline="always", fastmath=False)
def _as_int(nf):  # pragma: no cover - compiled
    """The integer-valued float64 nf (|nf| < 2^51) as an int64."""
    return _float64_bits(nf + _ROUND) - _ROUND_BITS


@jit(inline="always", fastmath=False, stamp_with=_SPECIAL)
def _exp(y):  # pragma: no cover - compiled
    """exp(y) for any float64 y, within an ulp where float32 can hold it (|y| < 200)."""
    c = y if y < _EXP_CLAMP else _EXP_CLAMP
    c = c if c > -_EXP_CLAMP else -_EXP_CLAMP           # (nan: -200, then y below)
    nf, p = _exp_reduced(c)
    r = p * _bits_to_float64((_as_int(nf) + 1023) << 52)
    return r if y == y else y


@jit(inline="always", fastmath=False)
def _log_parts(y):  # pragma: no cover - compiled
    """(k, log(m)) with y = 2^k m, m in [sqrt(1/2), sqrt(2)), for a finite y > 0 (float32
    values: normal as float64). log(m) = 2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.172:
    its odd series to s^23 (error < 2^-60)."""
    b = _float64_bits(y)
    e = (b & 0x7FF0000000000000) >> 52                   # (not negative: a logical shift)
    k = _bits_to_float64(e | _TWO52_BITS) - 4503599627370496.0 - 1023.0
    m = _bits_to_float64((b & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)   # [1, 2)
    up = m >= _SQRT2
    m = m * 0.5 if up else m
    k = k + 1.0 if up else k
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    p = 1.0 / 23.0
    p = p * z + 1.0 / 21.0
    p = p * z + 1.0 / 19.0
    p = p * z + 1.0 / 17.0
    p = p * z + 1.0 / 15.0
    p = p * z + 1.0 / 13.0
    p = p * z + 1.0 / 11.0
    p = p * z + 1.0 / 9.0
    p = p * z + 1.0 / 7.0
    p = p * z + 1.0 / 5.0
    p = p * z + 1.0 / 3.0
    return k, 2.0 * s + (2.0 * s) * (z * p)


@jit(inline="always", fastmath=False)
def _log_edges(y, r, invalid):  # pragma: no cover - compiled
    """r, or the function's value at y's edges: -inf at 0, inf at inf, a NaN y itself,
    `invalid` below 0 (ops/rounded.INVALID_NAN: Paddle 3.3.1's NaN, whose sign numpy's
    float64 functions do not keep alike between builds)."""
    r = r if y < np.inf else y
    r = r if y != 0.0 else -np.inf
    r = r if y >= 0.0 else invalid
    return r if y == y else y


@jit(inline="always", fastmath=False)
def _log(y):  # pragma: no cover - compiled
    k, lm = _log_parts(y if y > 0.0 else 1.0)
    return _log_edges(y, (k * _LN2_HI + lm) + k * _LN2_LO, _bits_to_float64(_MINUS_NAN_BITS))


@jit(inline="always", fastmath=False)
def _log2(y):  # pragma: no cover - compiled
    k, lm = _log_parts(y if y > 0.0 else 1.0)
    return _log_edges(y, k + lm * _LOG2E, _bits_to_float64(_MINUS_NAN_BITS))


@jit(inline="always", fastmath=False)
def _log10(y):  # pragma: no cover - compiled
    k, lm = _log_parts(y if y > 0.0 else 1.0)
    return _log_edges(y, k * _LOG10_2 + lm * _LOG10_E, np.nan)


@jit(inline="always", fastmath=False)
def _log1p(x):  # pragma: no cover - compiled
    """log(u) + (x - (u - 1)) / u, u = 1 + x: the correction restores what u rounded off."""
    u = 1.0 + x
    k, lm = _log_parts(u if u > 0.0 else 1.0)
    c = (x - (u - 1.0)) / u
    r = _log_edges(u, (k * _LN2_HI + (lm + c)) + k * _LN2_LO,
                   _bits_to_float64(_MINUS_NAN_BITS))
    return r if x != 0.0 else x                         # (-0.0 kept)


@jit(inline="always", fastmath=False, stamp_with=_SPECIAL)
def _expm1(x):  # pragma: no cover - compiled
    """2^n (expm1(r) + 1) - 1 = 2^n expm1(r) + (2^n - 1) with x = n ln2 + r (exp's
    reduction: r = x itself below |x| = ln2/2, where n = 0), expm1(r) its series to
    r^13 / 13! (|r| <= ln2/2: error < 2^-56). 2^n - 1 is exact for |n| < 53 and, with
    |expm1(r)| < 0.42, nothing cancels for n != 0: one series, not the series below 1/2
    and exp above."""
    c = x if x < _EXP_CLAMP else _EXP_CLAMP
    c = c if c > -_EXP_CLAMP else -_EXP_CLAMP           # (nan: -200, then x below)
    nf = (c * _LOG2E + _ROUND) - _ROUND
    r = (c - nf * _LN2_HI) - nf * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    em1 = r + (r * r) * p
    s = _bits_to_float64((_as_int(nf) + 1023) << 52)
    v = s * em1 + (s - 1.0)
    v = v if x == x else x
    return v if x != 0.0 else x                         # (-0.0 kept)


@jit(inline="always", fastmath=False, stamp_with=_SPECIAL)
def _sinh(x):  # pragma: no cover - compiled
    """(E + E / (E + 1)) / 2 with E = expm1(|x|), x's sign: the two terms have one sign and
    E is accurate near 0, so nothing cancels; one expm1 instead of a series below 1 and
    exp above (and the -0.0 of x = -0.0 kept)."""
    a = abs(x)
    e = _expm1(a)
    r = math.copysign(0.5 * (e + e / (e + 1.0)), x)
    return r if x == x else x


@jit(inline="always", fastmath=False, stamp_with=_SPECIAL)
def _cosh(x):  # pragma: no cover - compiled
    e = _exp(abs(x))
    r = 0.5 * e + 0.5 / e
    return r if x == x else x


@jit(inline="always", fastmath=False)
def _atanh(x):  # pragma: no cover - compiled
    """log1p(2|x| / (1 - |x|)) / 2 with x's sign: 1 - |x| is exact from 2^-29 on (below,
    its error is 2^-53), so the quotient is within half an ulp and the log1p, whose
    condition is below 1, within ~2 ulp; no cancellation near 0 or 1 (1: inf). One
    log1p: (log1p(|x|) - log1p(-|x|)) / 2 took two."""
    a = abs(x)
    r = math.copysign(0.5 * _log1p(2.0 * a / (1.0 - a)), x)
    r = r if a <= 1.0 else _bits_to_float64(_MINUS_NAN_BITS)   # (the C library's NaN)
    return r if x == x else x


@jit(inline="always", fastmath=False)
def _asinh(x):  # pragma: no cover - compiled
    """log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with x's sign (x^2 exact for float32 x)."""
    a = abs(x)
    r = _log1p(a + a * a / (1.0 + math.sqrt(1.0 + a * a)))
    r = math.copysign(r if a < np.inf else a, x)
    return r if x == x else x


@jit(inline="always", fastmath=False)
def _acosh(x):  # pragma: no cover - compiled
    """log1p(t + sqrt(t (x + 1))), t = x - 1 (exact near 1, where the log would cancel)."""
    t = x - 1.0
    r = _log1p(t + math.sqrt(t * (x + 1.0)))
    r = r if x >= 1.0 else _bits_to_float64(_MINUS_NAN_BITS)
    return r if x == x else x


@jit(inline="always", fastmath=False)
def _atan(x):  # pragma: no cover - compiled
    """atan(|x|) = pi/2 - atan(1/|x|) above 1; then atan(t) = atan(c) + atan(u), c the
    nearest of 0, 1/4 ... 1 and u = (t - c)/(1 + t c) (|u| <= 1/8: its odd series to u^17,
    error < 2^-56); x's sign."""
    a = abs(x)
    big = a > 1.0
    t = 1.0 / a if big else a
    c = 0.0 if t < 0.125 else (0.25 if t < 0.375 else (0.5 if t < 0.625 else (
        0.75 if t < 0.875 else 1.0)))
    ac = 0.0 if t < 0.125 else (_ATAN_QUARTER if t < 0.375 else (
        _ATAN_HALF if t < 0.625 else (_ATAN_3_QUARTERS if t < 0.875 else _PI_4)))
    u = (t - c) / (1.0 + t * c)
    z = u * u
    p = -1.0 / 17.0
    p = p * z + 1.0 / 15.0
    p = p * z - 1.0 / 13.0
    p = p * z + 1.0 / 11.0
    p = p * z - 1.0 / 9.0
    p = p * z + 1.0 / 7.0
    p = p * z - 1.0 / 5.0
    p = p * z + 1.0 / 3.0
    r = ac + (u - u * (z * p))
    r = _PI_2 - r if big else r
    r = math.copysign(r, x)
    return r if x == x else x


@jit(inline="always", fastmath=False)
def _tan(x):  # pragma: no cover - compiled
    """x = k pi/2 + r, |r| <= pi/4 (Cody-Waite, three parts of pi/2); tan = sin r / cos r
    for even k, -cos r / sin r for odd (both series to r^19 / r^20, error < 2^-60). nan
    from |x| = 2^19 on (inf, nan too): the kernel asks the C library there."""
    kf = (x * _2_PI + _ROUND) - _ROUND
    r = ((x - kf * _PIO2_1) - kf * _PIO2_2) - kf * _PIO2_3
    z = r * r
    p = 1.0 / 121645100408832000.0
    p = p * z - 1.0 / 355687428096000.0
    p = p * z + 1.0 / 1307674368000.0
    p = p * z - 1.0 / 6227020800.0
    p = p * z + 1.0 / 39916800.0
    p = p * z - 1.0 / 362880.0
    p = p * z + 1.0 / 5040.0
    p = p * z - 1.0 / 120.0
    p = p * z + 1.0 / 6.0
    sin = r - r * (z * p)
    q = 1.0 / 2432902008176640000.0
    q = q * z - 1.0 / 6402373705728000.0
    q = q * z + 1.0 / 20922789888000.0
    q = q * z - 1.0 / 87178291200.0
    q = q * z + 1.0 / 479001600.0
    q = q * z - 1.0 / 3628800.0
    q = q * z + 1.0 / 40320.0
    q = q * z - 1.0 / 720.0
    q = q * z + 1.0 / 24.0
    cos = 1.0 - z * (0.5 - z * q)
    odd = _as_int(kf) & 1
    t = (-cos if odd else sin) / (sin if odd else cos)  # (one division: both cost 2x)
    t = t if x != 0.0 else x                            # (-0.0 kept)
    return t if abs(x) < _TAN_TOP else np.nan


@jit(inline="always", fastmath=False)
def _near_boundary(r):  # pragma: no cover - compiled
    """Whether float32(r) might differ from float32 of the C library's value: r within 128
    float64 ulps (2^-46 |r| or more) of a float32 rounding boundary, a float64 whose low 29
    bits are 1 and 28 zeros (a float32 tie; integer arithmetic on the bits, across binades
    too); or r a nonzero float32 subnormal (|r| < 2^-126: ties sit elsewhere there). Every r
    the former test (float32(r - e) != float32(r + e), e = 2^-46 |r|) doubted is doubted,
    in about half the vector operations (exp 1M float32 1.10 -> 1.00 ms, log1p 1.95 ->
    1.84). inf and NaN are not (their low bits are 0)."""
    t = (_float64_bits(r) + (_ZIV_ULPS - 0x10000000)) & 0x1FFFFFFF
    return (t <= 2 * _ZIV_ULPS) | ((abs(r) < _F32_TINY) & (r != 0.0))


# Each kernel: out = float32(f(float64(x))) in one vectorised pass, then the C library's f
# for the elements the rounding test doubts (none, mostly). (One function for all of them,
# with f a constant, took Numba 13-22 s to compile each; a closure over f is not inlined.)

@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def exp(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _exp(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_exp(v)):
                    out[i] = np.float32(math.exp(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def log(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_log(v)):
                    out[i] = np.float32(math.log(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def log2(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log2(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_log2(v)):
                    out[i] = np.float32(math.log2(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def log10(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log10(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_log10(v)):
                    out[i] = np.float32(math.log10(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def log1p(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log1p(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_log1p(v)):
                    out[i] = np.float32(math.log1p(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def expm1(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _expm1(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_expm1(v)):
                    out[i] = np.float32(math.expm1(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def cosh(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _cosh(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_cosh(v)):
                    out[i] = np.float32(math.cosh(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def sinh(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _sinh(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_sinh(v)):
                    out[i] = np.float32(math.sinh(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def atanh(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _atanh(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_atanh(v)):
                    out[i] = np.float32(math.atanh(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def asinh(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _asinh(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_asinh(v)):
                    out[i] = np.float32(math.asinh(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def acosh(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _acosh(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_acosh(v)):
                    out[i] = np.float32(math.acosh(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def atan(x, out):  # pragma: no cover - compiled
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _atan(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                if _near_boundary(_atan(v)):
                    out[i] = np.float32(math.atan(v))


@jit(fastmath=_CONTRACT, stamp_with=_SPECIAL)
def tan(x, out):  # pragma: no cover - compiled
    """(as the others, with every nan of _tan doubted: large |x|, inf, nan)"""
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _tan(np.float64(x[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r) | (r != r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                r = _tan(v)
                if _near_boundary(r) | (r != r):
                    out[i] = np.float32(math.tan(v))


# ---- erfinv in float32: forward_special.erfinv's values, the log and the factor inline ------

@jit(inline="always", fastmath=False, stamp_with=_SPECIAL)
def _erfinv_r0(v):  # pragma: no cover - compiled
    """forward_special.erfinv's first guess for float64 v, with this file's log of
    (1 - |v|)(1 + |v|) instead of numpy's."""
    a = abs(v)
    inside = a < 1.0
    k, lm = _log_parts((1.0 - a) * (1.0 + a) if inside else 1.0)
    w = -((k * _LN2_HI + lm) + k * _LN2_LO)
    return _erfinv_guess(a, w if inside else 0.0)


@jit(fastmath=False, stamp_with=_SPECIAL)
def erfinv(y, out, factor, c):  # pragma: no cover - compiled
    """out = erf^-1(y) for float32 y as forward_special.erfinv with one Halley step gives
    it (ops/special.py's float64 path), and, unless factor is empty, factor = float32 of
    exp(out * out) (rounded as this file's exp) times c: erfinv_op's saved factor. Two
    vectorised loops (the first guess with this file's log instead of numpy's, then the
    step), the far tails' extra steps in a scalar pass only where needed, the factor as
    the exp kernel. perf/check_fused_exhaustive.py compares out and factor with that path
    (numpy's log between forward_special's kernels) for every float32 with |y| <= 1."""
    n = y.size
    r0 = np.empty(n)
    for i in range(n):
        r0[i] = _erfinv_r0(np.float64(y[i]))
    again = False
    for i in range(n):
        v = np.float64(y[i])
        a = abs(v)
        inside = a < 1.0
        step = _halley_erfinv(r0[i], a if inside else 0.0)
        r = r0[i] - step
        edge = math.copysign(np.inf, v) if a == 1.0 else np.nan
        out[i] = math.copysign(r, v) if inside else edge
        again |= inside & (not abs(step) <= 1e-6 * r)
    if again:                               # (rare: the far tails take more steps)
        for i in range(n):
            v = np.float64(y[i])
            a = abs(v)
            if not a < 1.0:
                continue
            step = _halley_erfinv(r0[i], a)
            r = r0[i] - step
            k = 0
            while k < 10 and not abs(step) <= 1e-6 * r:
                step = _halley_erfinv(r, a)
                r = r - step
                k += 1
            out[i] = math.copysign(r, v)
    if factor.size:
        for lo in range(0, n, _BLOCK):      # (a doubt redoes one block, not all)
            hi = min(lo + _BLOCK, n)
            doubt = False
            for i in range(np.uint64(lo), np.uint64(hi)):
                o = out[i]
                e = _exp(np.float64(o * o))
                factor[i] = np.float32(e) * c
                doubt |= _near_boundary(e)
            if doubt:
                for i in range(np.uint64(lo), np.uint64(hi)):
                    o = out[i]
                    s = np.float64(o * o)
                    if _near_boundary(_exp(s)):
                        factor[i] = np.float32(math.exp(s)) * c


# ---- softplus, log_sigmoid, celu in float32: their passes after numpy's exp in one ----------
# ops/activation.py's float32 paths: each transcendental as the kernels above give it (with
# the C library's value where the rounding test doubts, in a scalar pass), the rest as
# vm/forward_activation.py's loops compute it, in float32: the same values bit for bit,
# in one call instead of three to five with their temporaries.

_F32_ZERO = np.float32(0.0)
_F32_ONE = np.float32(1.0)
_F32_MINUS_INF = np.float32(-np.inf)


@jit(inline="always", fastmath=False)
def _add_nan_first(m, lg):  # pragma: no cover - compiled
    """m + lg, m's NaN (quieted) where both are NaN, as forward_activation's loops give it
    (m + lg[i]: LLVM may swap the operands of an addition of two registers)."""
    s = m + lg
    return s if m == m else m + m


@jit(inline="always", fastmath=False)
def _softplus_out(v, lg, beta, threshold, scaled):  # pragma: no cover - compiled
    """forward_activation.softplus's output at float32 v from lg = log1p(exp(-|beta v|))."""
    z = beta * v if scaled else v
    m = z if (z > _F32_ZERO or z != z) else _F32_ZERO          # np.maximum(z, 0)
    s = _add_nan_first(m, lg)
    return v if z > threshold else (s / beta if scaled else s)


@jit(inline="always", fastmath=False)
def _softplus_b(v, o, beta, threshold, scaled, minus_one):  # pragma: no cover - compiled
    """forward_activation.softplus's b: the factor's expm1 argument, from the output o."""
    z = beta * v if scaled else v
    return _F32_MINUS_INF if z > threshold else ((o * beta if scaled else o) * minus_one)


# Two loops each (the output, then the factor): one loop holding both transcendentals
# vectorised worse than the two (register spills), and ran no quicker than separate calls.

@jit(fastmath=False, stamp_with=_SPECIAL)
def softplus(x, e, out, f, beta, threshold, scaled, minus_one):  # pragma: no cover
    """ops/activation.py's float32 softplus after numpy's exp: e = exp(-|z|) (z = beta x, x
    itself unless scaled), out = where(z > threshold, x, (max(z, 0) + log1p(e)) [/ beta])
    and, unless f is empty, the factor f = -expm1(-(out [* beta])) (-expm1(-inf) = 1 above
    the threshold), log1p and expm1 rounded as this file's kernels round them. minus_one:
    -1, an argument (a constant -1 product would compile to a negation: a NaN's sign)."""
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log1p(np.float64(e[i]))
            out[i] = _softplus_out(x[i], np.float32(r), beta, threshold, scaled)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(e[i])
                if _near_boundary(_log1p(v)):
                    out[i] = _softplus_out(x[i], np.float32(math.log1p(v)), beta, threshold,
                                           scaled)
    if f.size:
        for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
            hi = min(lo + _BLOCK, x.size)
            doubt = False
            for i in range(np.uint64(lo), np.uint64(hi)):
                r = _expm1(np.float64(_softplus_b(x[i], out[i], beta, threshold, scaled,
                                                  minus_one)))
                f[i] = -np.float32(r)
                doubt |= _near_boundary(r)
            if doubt:
                for i in range(np.uint64(lo), np.uint64(hi)):
                    v = np.float64(_softplus_b(x[i], out[i], beta, threshold, scaled, minus_one))
                    if _near_boundary(_expm1(v)):
                        f[i] = -np.float32(math.expm1(v))


@jit(inline="always", fastmath=False)
def _log_sigmoid_out(v, lg):  # pragma: no cover - compiled
    """forward_activation.log_sigmoid's output at float32 v from lg = log1p(exp(-|v|))."""
    z = -v
    m = z if (z > _F32_ZERO or z != z) else _F32_ZERO         # np.maximum(-x, 0)
    return -_add_nan_first(m, lg)


@jit(fastmath=False, stamp_with=_SPECIAL)
def log_sigmoid(x, e, out, f):  # pragma: no cover - compiled
    """ops/activation.py's float32 log_sigmoid after numpy's exp: e = exp(-|x|), out =
    -(max(-x, 0) + log1p(e)) and, unless f is empty, the factor f = -expm1(out)."""
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log1p(np.float64(e[i]))
            out[i] = _log_sigmoid_out(x[i], np.float32(r))
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(e[i])
                if _near_boundary(_log1p(v)):
                    out[i] = _log_sigmoid_out(x[i], np.float32(math.log1p(v)))
    if f.size:
        for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
            hi = min(lo + _BLOCK, x.size)
            doubt = False
            for i in range(np.uint64(lo), np.uint64(hi)):
                r = _expm1(np.float64(out[i]))
                f[i] = -np.float32(r)
                doubt |= _near_boundary(r)
            if doubt:
                for i in range(np.uint64(lo), np.uint64(hi)):
                    v = np.float64(out[i])
                    if _near_boundary(_expm1(v)):
                        f[i] = -np.float32(math.expm1(v))


@jit(inline="always", fastmath=False)
def _celu_z(v, alpha):  # pragma: no cover - compiled
    """celu_parts' z = minimum(v, 0) / alpha in float32, as float64."""
    m = v if (v < _F32_ZERO or v != v) else _F32_ZERO         # np.minimum(v, 0)
    return np.float64(m / alpha)


@jit(inline="always", fastmath=False)
def _celu_w(v, k):  # pragma: no cover - compiled
    """celu_parts' w = where(v > 0, 0, v) * k in float32, as float64."""
    return np.float64((_F32_ZERO if v > _F32_ZERO else v) * k)


@jit(fastmath=False, stamp_with=_SPECIAL)
def celu(x, out, d, alpha, k):  # pragma: no cover - compiled
    """ops/activation.py's float32 celu: out = where(x > 0, x, alpha expm1(min(x, 0) /
    alpha)) and its factor d = where(x > 0, 1, exp(where(x > 0, 0, x) k)), k = 1 / alpha,
    expm1 and exp rounded as this file's kernels round them (forward_activation's
    celu_parts and celu)."""
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            v = x[i]
            r = _expm1(_celu_z(v, alpha))
            out[i] = v if v > _F32_ZERO else alpha * np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = x[i]
                z = _celu_z(v, alpha)
                if _near_boundary(_expm1(z)) and not v > _F32_ZERO:
                    out[i] = alpha * np.float32(math.expm1(z))
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            v = x[i]
            r = _exp(_celu_w(v, k))
            d[i] = _F32_ONE if v > _F32_ZERO else np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = x[i]
                w = _celu_w(v, k)
                if _near_boundary(_exp(w)) and not v > _F32_ZERO:
                    d[i] = np.float32(math.exp(w))


@jit(fastmath=False, stamp_with=_SPECIAL)
def log1p_exp(x, out):  # pragma: no cover - compiled
    """out = log1p(exp(x)) for float32 x, each rounded to float32 as the exp and log1p
    kernels round it (ops/math.py's logaddexp: rounded.log1p(rounded.exp(m))): the two
    passes in one call, exp's float32 result (the exp kernel's) kept in out."""
    exp(x, out)
    for lo in range(0, x.size, _BLOCK):      # (a doubt redoes one block, not all)
        hi = min(lo + _BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = _log1p(np.float64(out[i]))
            out[i] = np.float32(r)
            doubt |= _near_boundary(r)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                v = np.float64(x[i])
                e = _exp(v)
                w = np.float64(np.float32(math.exp(v)) if _near_boundary(e) else np.float32(e))
                if _near_boundary(_log1p(w)):
                    out[i] = np.float32(math.log1p(w))
