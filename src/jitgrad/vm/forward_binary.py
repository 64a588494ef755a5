"""Compiled forwards of maximum, minimum, fmax, fmin, logaddexp, pow and pow_scalar: each
op's output and the gradient factors its node saves, in one or two passes.

numpy takes a pass per step over small arrays (~1 us each, mostly overhead): maximum's
output and its two tie weights ((x > y) + (x >= y)) / 2 take 7 (~12 us for 32 x 64 float32
inputs, torch's forward ~2 us); one loop writes all three. Every kernel gives the values of
the op's numpy forward and of its saved factors bit for bit: the same float operations in
the same order, in x's dtype (the caller passes every constant used in arithmetic as a
scalar of that dtype; 0, 0.5 and 1 are only stored, which is exact), numpy's choices where
it has one (np.maximum(x, y) is `x if x > y or x is NaN else y`: ties give y, so
maximum(-0.0, 0.0) is 0.0; measured at every position of a SIMD vector and its tail),
and no fastmath (it would fold signed zeros). Transcendentals stay numpy's calls between
two loops (its SIMD exp, log, log1p and SVML pow are not the C library's, which Numba
would call; np.power's fast paths for exponents 2, 0.5, -1 ... are its own too): the
kernels make their arguments and finish from their results. A factor no input needs is
skipped by a flag (its array an empty one) or computed into a scratch array; no array is
given for two arguments when one is written (LLVM's overlap check then sends the whole
loop to its scalar version, ~3x slower), and loops whose flags kept them from vectorising
have none. Like vm/forward.py, they run only once the backward interpreter has imported Numba
(ops/core.py's compiled_input); tests/test_forward_binary.py compares them with the numpy
paths.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.extending import intrinsic

from ._numba import jit

# ---- maximum, minimum: the output and both tie weights ----------------------------------

@jit(fastmath=False)
def maximum(x, y, out, wx, wy, nx, ny):  # pragma: no cover - compiled
    """out = np.maximum(x, y); x's share of the gradient wx = 1 where x > y, 0.5 on a tie,
    else 0 (NaN either side: 0), y's wy likewise (ops/elementwise.py's _tie_weight),
    written when nx (ny)."""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        out[i] = u if (u > v or math.isnan(u)) else v
        if nx:
            wx[i] = 1.0 if u > v else (0.5 if u == v else 0.0)
        if ny:
            wy[i] = 1.0 if v > u else (0.5 if u == v else 0.0)


@jit(fastmath=False)
def where_pick(c, x, y, out, wx, wy, nx, ny):  # pragma: no cover - compiled
    """out = np.where(c, x, y) (each value copied, NaN payloads kept), x and y each of c's
    size or a single value; the masks the where node saves: wx = 1 where c else 0, wy the
    other way round, written when nx (ny)."""
    sx = 1 if x.size == c.size else 0
    sy = 1 if y.size == c.size else 0
    for i in range(c.size):
        ci = c[i]
        out[i] = x[i * sx] if ci else y[i * sy]
        if nx:
            wx[i] = 1.0 if ci else 0.0
        if ny:
            wy[i] = 0.0 if ci else 1.0


@jit(fastmath=False)
def minimum(x, y, out, wx, wy, nx, ny):  # pragma: no cover - compiled
    """out = np.minimum(x, y) (ties give y, a NaN the first NaN); the tie weights with <."""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        out[i] = u if (u < v or math.isnan(u)) else v
        if nx:
            wx[i] = 1.0 if u < v else (0.5 if u == v else 0.0)
        if ny:
            wy[i] = 1.0 if v < u else (0.5 if u == v else 0.0)


# ---- broadcast over a short inner run: add ... minimum of (N, 1, D) and (1, N, D) ---------

@jit(fastmath=False, inline="always")
def _arith(u, v, kind):  # pragma: no cover - compiled
    """u op v for broadcast_op's kind (a loop-invariant branch: LLVM takes it out)."""
    if kind == 0:
        return u + v
    if kind == 1:
        return u - v
    if kind == 2:
        return u * v
    return u / v


@jit(fastmath=False)
def broadcast_op(x, y, out, grid, kind):  # pragma: no cover - compiled
    """out = x op y broadcast (op by `kind`: 0 +, 1 -, 2 *, 3 /), x, y and out flat
    C-ordered, over ops/elementwise.py's _broadcast_plan grid: sizes n0..n3 and x's and y's
    element strides (0 along a broadcast axis; the inner run's 0 or 1, not both 0). numpy's
    loop pays a call per inner run: (64, 1, 2) - (1, 64, 2) float32 ~35 us, here ~11. One
    IEEE operation per element in the operands' dtype: numpy's values."""
    g = grid.astype(np.uint64)      # (unsigned indices: no wraparound test, ~2x quicker)
    n0, n1, n2, n3 = g[0], g[1], g[2], g[3]
    x0, x1, x2, x3 = g[4], g[5], g[6], g[7]
    y0, y1, y2, y3 = g[8], g[9], g[10], g[11]
    q = np.uint64(0)
    for i0 in range(n0):
        for i1 in range(n1):
            px = i0 * x0 + i1 * x1
            py = i0 * y0 + i1 * y1
            for i2 in range(n2):
                if x3 == 0:
                    u = x[px]
                    for i in range(n3):
                        out[q + i] = _arith(u, y[py + i], kind)
                elif y3 == 0:
                    v = y[py]
                    for i in range(n3):
                        out[q + i] = _arith(x[px + i], v, kind)
                else:
                    for i in range(n3):
                        out[q + i] = _arith(x[px + i], y[py + i], kind)
                q += n3
                px += x2
                py += y2


@jit(fastmath=False)
def broadcast_minmax(x, y, out, wx, wy, nx, ny, grid, greater):  # pragma: no cover
    """maximum (minimum unless greater) with its tie weights, broadcast as broadcast_op:
    the same values as the kernels above on the broadcast operands."""
    g = grid.astype(np.uint64)      # (unsigned indices: no wraparound test, ~2x quicker)
    n0, n1, n2, n3 = g[0], g[1], g[2], g[3]
    x0, x1, x2, x3 = g[4], g[5], g[6], g[7]
    y0, y1, y2, y3 = g[8], g[9], g[10], g[11]
    q = np.uint64(0)
    for i0 in range(n0):
        for i1 in range(n1):
            px = i0 * x0 + i1 * x1
            py = i0 * y0 + i1 * y1
            for i2 in range(n2):
                for i in range(n3):
                    u = x[px + i * x3]
                    v = y[py + i * y3]
                    if greater:
                        out[q + i] = u if (u > v or math.isnan(u)) else v
                        if nx:
                            wx[q + i] = 1.0 if u > v else (0.5 if u == v else 0.0)
                        if ny:
                            wy[q + i] = 1.0 if v > u else (0.5 if u == v else 0.0)
                    else:
                        out[q + i] = u if (u < v or math.isnan(u)) else v
                        if nx:
                            wx[q + i] = 1.0 if u < v else (0.5 if u == v else 0.0)
                        if ny:
                            wy[q + i] = 1.0 if v < u else (0.5 if u == v else 0.0)
                q += n3
                px += x2
                py += y2


# ---- fmax, fmin: the where node's condition, output and masks ---------------------------

@jit(fastmath=False)
def fmax(x, y, out, take, mx, my, nx, ny, greater):  # pragma: no cover - compiled
    """ops/numeric.py's fmax (fmin unless greater): take = x > y (x < y) or x == y or y is
    NaN; out = where(take, x, y) (the values' bits, as np.where); the where node's saved
    masks take (when nx) and not take (when ny) as 1 and 0."""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        t = (u > v if greater else u < v) or u == v or math.isnan(v)
        take[i] = t
        out[i] = u if t else v
        if nx:
            mx[i] = 1.0 if t else 0.0
        if ny:
            my[i] = 0.0 if t else 1.0


# ---- logaddexp: ops/rounded.py's exp and log1p between the loops -------------------------

@jit(fastmath=False)
def logaddexp_parts(x, y, a, zero):  # pragma: no cover - compiled
    """a = -|x - y| in x's dtype, 0 for the difference of the same infinity (ops/math.py's
    _logaddexp_forward's argument of exp, and of its slopes' sigmoid's). (No flags:
    branches in the loop kept it from vectorising, ~1.3x slower.)"""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        d = u - v
        d = zero if (math.isnan(d) and u == v) else d      # (only the same infinity: 0)
        a[i] = -abs(d)


@jit(fastmath=False)
def logaddexp_slopes(x, y, e, m, dx, dy, zero, one, half):  # pragma: no cover - compiled
    """m = np.maximum(x, y) (the output's first term); logaddexp's slopes sigmoid(x - y),
    sigmoid(y - x) as elementwise.py's _sigmoid computes them from e = exp(-|x - y|)
    (numpy's, in x's dtype): max(e, z >= 0) / (e + 1); 0.5 each where x and y are the same
    infinity. (The output m + log1p stays numpy's sum: which NaN a sum of two NaNs keeps
    is its loop's choice, and differs between its vector body and its tail.)"""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        m[i] = u if (u > v or math.isnan(u)) else v
        ei = e[i]
        z = u - v
        same_inf = math.isnan(z) and u == v
        q = ei + one
        k = one if z >= zero else zero
        sx = (ei if (ei > k or math.isnan(ei)) else k) / q
        k = one if -z >= zero else zero
        sy = (ei if (ei > k or math.isnan(ei)) else k) / q
        dx[i] = half if same_inf else sx
        dy[i] = half if same_inf else sy


# ---- pow_scalar: numpy's powers, then the signs and the factor's scale -------------------

@jit(fastmath=False)
def pow_scalar(x, out, f, odd, odd_f, p):  # pragma: no cover - compiled
    """ops/elementwise.py's _fpow and _pow_scalar_deriv from numpy's powers: out = np.power
    (|x| or x, p), given the sign of x when odd (np.copysign); f = np.power(|x| or x, p -
    1), likewise when odd_f, then times p (p * f, p in x's dtype as numpy's scalar)."""
    for i in range(x.size):
        v = x[i]
        if odd:
            out[i] = math.copysign(out[i], v)
        g = f[i]
        if odd_f:
            g = math.copysign(g, v)
        f[i] = p * g


@intrinsic
def _fma64(typingctx, a, b, c):  # pragma: no cover - compiled
    """a * b + c in float64, rounded once (LLVM's fma: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@intrinsic
def _f64_bits(typingctx, v):  # pragma: no cover - compiled
    """The int64 whose bits are the float64 v (a bitcast: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.IntType(64))
    return types.int64(types.float64), codegen


_CUBE_BLOCK = 4096              # (a doubt redoes its block: vm/float32_math.py's _BLOCK)
_F32_TINY = 2.0 ** -126         # below: float32 subnormals, whose ties sit elsewhere
_F32_TOP = 2.0 ** 128           # inf's place, to find the tie between FLT_MAX and inf


@jit(inline="always", fastmath=False)
def _cube_doubt(c, e):  # pragma: no cover - compiled
    """Whether float32(c) may not be the float32 nearest c + e (c = the float64 cube of a
    float32 >= 0, e its rounding error, exact): c a float32 tie (its low 29 bits 1 and
    28 zeros) or a float32 subnormal, with e != 0. Else float32(c) is: c + e lies within
    half a float64 ulp of c, and so on c's side of every float32 tie."""
    b = _f64_bits(c)
    return (e != 0.0) & (((b & 0x1FFFFFFF) == 0x10000000) | (c < _F32_TINY))


@jit(fastmath=False)
def round_cube(c, e):  # pragma: no cover - compiled
    """The float32 nearest c + e (ties to even) for a float64 c >= 0 and |e| at most half
    c's ulp: float32(c), or at a tie between two float32 the one on e's side."""
    r = np.float32(c)
    if e == 0.0:
        return r
    rd = np.float64(r) if r < np.inf else _F32_TOP
    other = np.nextafter(r, np.float32(0)) if rd > c else np.nextafter(r, np.float32(np.inf))
    od = np.float64(other) if other < np.inf else _F32_TOP
    if rd == c or (rd + od) * 0.5 != c:
        return r
    return max(r, other) if e > 0.0 else min(r, other)


@jit(fastmath=False)
def pow_scalar_cube32(x, out, a, p):  # pragma: no cover - compiled
    """x ** 3 for float32 x, correctly rounded (ops/elementwise.py's cube32, which the numpy
    path computes): |x|^3 in float64 (|x| |x| exact), its rounding error by an FMA (exact),
    the float32 rounding, given x's sign; a block with a doubtful element (_cube_doubt:
    about one in 2^29, and tiny cubes) redoes those by round_cube. And the factor p (a a)
    into a = |x| (numpy's) as pow_scalar_cube. ~0.25 ms for 1M elements where numpy's
    float32 power took ~1.2 (SVML's on AVX-512, 1 ulp off in ~20% of them)."""
    for lo in range(0, x.size, _CUBE_BLOCK):
        hi = min(lo + _CUBE_BLOCK, x.size)
        doubt = False
        for i in range(np.uint64(lo), np.uint64(hi)):
            v = a[i]
            d = np.float64(v)
            s = d * d
            c = s * d
            e = _fma64(s, d, -c)
            out[i] = math.copysign(np.float32(c), x[i])
            a[i] = p * (v * v)
            doubt |= _cube_doubt(c, e)
        if doubt:
            for i in range(np.uint64(lo), np.uint64(hi)):
                d = abs(np.float64(x[i]))
                s = d * d
                c = s * d
                e = _fma64(s, d, -c)
                if _cube_doubt(c, e):
                    out[i] = math.copysign(round_cube(c, e), x[i])


@jit(fastmath=False)
def pow_scalar_cube(x, out, a, p):  # pragma: no cover - compiled
    """The kernel above for p = 3, whose factor's power np.power(|x|, 2) is numpy's square
    |x| |x| (its fast path for a scalar exponent 2; ops/elementwise.py checks that numpy
    takes it): out = np.power(|x|, 3) given x's sign, and a = |x| (numpy's) becomes the
    factor p (a a) in place: no second np.power call and no array of its own (~0.3 ms of
    1M float32). (a from numpy, not abs(x) here: LLVM folds |x| |x| into x x, which keeps a
    NaN's sign.)"""
    for i in range(x.size):
        out[i] = math.copysign(out[i], x[i])
        v = a[i]
        a[i] = p * (v * v)


# ---- pow: numpy's power and log between the loops ----------------------------------------

@jit(fastmath=False)
def pow_parts(x, y, ym1, w, one):  # pragma: no cover - compiled
    """ym1 = y - 1 in y's dtype (the exponent of _pow_dx's x ** (y - 1.0)) and w = x in
    float64 (the argument of _pow_dy's log: through float64 for float32 x, x's values for
    float64 x)."""
    for i in range(x.size):
        ym1[i] = y[i] - one
        w[i] = x[i]


@jit(fastmath=False)
def pow_slopes(x, y, out, p1, w, dx, dy):  # pragma: no cover - compiled
    """_pow_dx = where(y == 0, 0, y * p1), p1 = numpy's x ** (y - 1); _pow_dy = where(x == 0
    and y >= 0, 0, out * l), l = numpy's float64 log(x) (for float32 x rounded to float32
    here, as _via_float64's astype). A factor no input needs is computed from whatever its
    array holds, into a scratch array."""
    for i in range(x.size):
        u = x[i]
        v = y[i]
        dx[i] = 0.0 if v == 0 else v * p1[i]
        dy[i] = w[i]                        # (rounded to x's dtype)
        dy[i] = 0.0 if (u == 0 and v >= 0) else out[i] * dy[i]


@jit(fastmath=False)
def scale_add32(s, b, c, out):  # pragma: no cover - compiled
    """out = float32(s b + c) with the product exact in float64 and the sum rounded there,
    then to float32: the optimizers' fused multiply-add (optimizer/optimizers.py), in one
    pass where numpy made three float64 copies."""
    w = np.float64(s)
    for i in range(out.size):
        out[i] = np.float32(w * np.float64(b[i]) + np.float64(c[i]))
