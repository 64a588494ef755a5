"""The compiled kernels `interpreter.run` calls for its longer opcodes, and the operand views
every kernel reads through.

Kept apart from the dispatch loop so each file has one job; Numba compiles them into `run`
(an @jit function calls @jit functions of other modules as it calls its own, `_view` and
`_span` are inlined). Kernels loop over views of their operands (`_view`: the arena, or a
large saved value outside it; indexing arena[o + i] directly does not vectorise: 11x
slower) and take their float constants from `consts` so float32 programs never promote to
float64. Numba's disk cache keys `run` on interpreter.py alone, so `run`'s cache also
records this file's stamp (`stamp_with` in interpreter.py): an edit here recompiles it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import carray, types
from numba.extending import intrinsic

from .program import EXT, EXT_LOW, OP
from ._numba import jit

AXPY, MUL, DIV, DIVK = OP["AXPY"], OP["MUL"], OP["DIV"], OP["DIVK"]
TANH_BWD, SIGMOID_BWD, RELU_BWD = OP["TANH_BWD"], OP["SIGMOID_BWD"], OP["RELU_BWD"]
ADDK, RECIP, SQRT, SIGN = OP["ADDK"], OP["RECIP"], OP["SQRT"], OP["SIGN"]
TILE = 256      # peephole.TILE: CHAIN's scratch tile, in elements


@intrinsic
def _pointer_like(typingctx, arena, address):  # pragma: no cover - compiled
    """`address` (an int) as a pointer to elements of `arena`'s dtype."""
    ptr = types.CPointer(arena.dtype)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[1], context.get_value_type(ptr))
    return ptr(arena, address), codegen


@jit(inline="always")
def _view(arena, itab, off, n):  # pragma: no cover - compiled
    """The n-element operand at field value `off`: in the arena, or for an external operand
    (program.EXT) in the memory whose address itab holds.

    A view made from an address, so without a reference count (no NRT incref/decref pair
    per operand: W1's replay 1.94 -> 1.45 us), and computed without a branch: with an `if`
    choosing between the two addresses, a 64-element MUL row took ~27 ns instead of ~7 (a
    pointer from either of two sources defeats the loop's vectorisation)."""
    x = np.int64(off >= EXT)                # 1 for an external operand, else 0
    y = 1 - x
    e = (off - EXT) * x                     # 0 for an arena operand (reads itab[0])
    # (off * y first: an external field times the item size would overflow)
    address = (arena.ctypes.data + off * y * arena.itemsize) * y + \
        (itab[e >> 32] + (e & EXT_LOW) * arena.itemsize) * x
    return carray(_pointer_like(arena, address), n)


@jit(inline="always")
def _span(table, p, n):  # pragma: no cover - compiled
    """table[p:p + n] as a view without a reference count (see _view): ~40 ns less a row
    than a slice, for CHAIN's scratch tile (python -m jitgrad: 5.6 -> 3.9 us) and the
    index tables."""
    return carray(_pointer_like(table, table.ctypes.data + p * table.itemsize), n)


@jit(inline="always")
def _scaled_run(dst, src, K, n, acc):  # pragma: no cover - compiled
    """dst[:n] (+)= K * src[:n]: one contiguous run of EXPAND and STRIDED (views indexed
    from 0, so the loop vectorises)."""
    if acc:
        for i in range(n):
            dst[i] += K * src[i]
    else:
        for i in range(n):
            dst[i] = K * src[i]


@jit
def _expand(arena, itab, o, a, b, prm, K, acc, times):  # pragma: no cover - compiled
    """EXPAND (and EXPAND_MUL when `times`: each element times b[i] after): out (+)= K * a
    broadcast over an (outer, mid, inner) grid whose source strides are prm[3:6] (0 along
    a broadcast axis; the inner one 0 or 1), one inner run at a time through views indexed
    from 0, so each run
    vectorises (a fill of one value, or a scaled copy), where GATHER read an index per
    element (8 bytes each) to the same values."""
    outer, mid, inner, so, sm, si = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5]
    if inner < 16:
        n = outer * mid * inner
        _expand_short(_view(arena, itab, o, n), _view(arena, itab, b, n) if times else
                      _view(arena, itab, o, 0), arena, a, prm, K, acc, times)
        return
    q = 0
    for r in range(outer):
        for m in range(mid):
            dst = _view(arena, itab, o + q, inner)
            base = a + r * so + m * sm
            if times:
                B = _view(arena, itab, b + q, inner)
                if si == 0:
                    v = K * arena[base]
                    if acc:
                        for i in range(inner):
                            dst[i] += v * B[i]
                    else:
                        for i in range(inner):
                            dst[i] = v * B[i]
                else:
                    src = _span(arena, base, inner)
                    if acc:
                        for i in range(inner):
                            dst[i] += K * src[i] * B[i]
                    else:
                        for i in range(inner):
                            dst[i] = K * src[i] * B[i]
            elif si == 0:
                v = K * arena[base]
                if acc:
                    for i in range(inner):
                        dst[i] += v
                else:
                    for i in range(inner):
                        dst[i] = v
            else:
                _scaled_run(dst, _span(arena, base, inner), K, inner, acc)
            q += inner


@jit
def _expand_short(dst, B, arena, a, prm, K, acc, times):  # pragma: no cover - compiled
    """_expand for inner runs shorter than 16 ((64, 1, 2) onto (64, 64, 2): 4096 runs of
    2), indexed directly (uint64: no wraparound test) where a view per run cost more than
    its two elements: the same products in the same order, (K * a) * b."""
    outer, mid, inner = np.uint64(prm[0]), np.uint64(prm[1]), np.uint64(prm[2])
    so, sm, si = np.uint64(prm[3]), np.uint64(prm[4]), np.uint64(prm[5])
    q = np.uint64(0)
    for r in range(outer):
        for m in range(mid):
            base = np.uint64(a) + r * so + m * sm
            for i in range(inner):
                v = K * arena[base + i * si]
                if times:
                    v = v * B[q + i]
                if acc:
                    dst[q + i] += v
                else:
                    dst[q + i] = v
            q += inner


@jit
def _rows_bwd(out, g, y, outer, length, inner, acc, log, scalar, K
              ):  # pragma: no cover - compiled
    """softmax / log_softmax backward over rows of `length` elements spaced `inner` apart;
    with `scalar` (contiguous rows only) the gradient is K * g[0] at every element (a sum's
    broadcast seed: no n-element array of it, written by a BCAST row and read back here,
    ~0.1 ms of a 1M softmax step; the same sums and products in the same order).
    Contiguous rows (inner 1) go through row slices indexed from 0: a loop indexing
    out[base + t] does not vectorise (Numba's negative-index wraparound), 2.9 us against
    0.6 for a 32 x 64 softmax."""
    zero = np.zeros(1, out.dtype)[0]        # (g[0] - g[0] is NaN for an inf gradient)
    gs = K * g[0] if scalar else zero
    if inner == 1 and scalar:
        for i in range(outer):
            base = i * length
            yv, ov = y[base:base + length], out[base:base + length]
            s = zero
            if log:
                for t in range(length):
                    s += gs
                for t in range(length):
                    v = gs - yv[t] * s
                    if acc:
                        ov[t] += v
                    else:
                        ov[t] = v
            else:
                for t in range(length):
                    s += gs * yv[t]
                for t in range(length):
                    v = yv[t] * (gs - s)
                    if acc:
                        ov[t] += v
                    else:
                        ov[t] = v
        return
    if inner == 1:
        for i in range(outer):
            base = i * length
            gv, yv, ov = g[base:base + length], y[base:base + length], out[base:base + length]
            s = zero
            if log:
                for t in range(length):
                    s += gv[t]
                for t in range(length):
                    v = gv[t] - yv[t] * s
                    if acc:
                        ov[t] += v
                    else:
                        ov[t] = v
            else:
                for t in range(length):
                    s += gv[t] * yv[t]
                for t in range(length):
                    v = yv[t] * (gv[t] - s)
                    if acc:
                        ov[t] += v
                    else:
                        ov[t] = v
        return
    for i in range(outer):
        for j in range(inner):
            base = i * length * inner + j
            s = zero
            for t in range(length):
                q = base + t * inner
                s += g[q] if log else g[q] * y[q]
            for t in range(length):
                q = base + t * inner
                v = g[q] - y[q] * s if log else y[q] * (g[q] - s)
                if acc:
                    out[q] += v
                else:
                    out[q] = v


@jit
def _strided(arena, itab, o, a, prm, K, acc):  # pragma: no cover - compiled
    """STRIDED: out (+)= K * a read over a grid of prm[0] dims (sizes prm[1:d+1], strides
    prm[d+1:2d+1], offset prm[2d+1]), one inner run at a time: a contiguous run vectorises
    as a scaled copy, another reads with its stride; the outer index steps like an
    odometer, its source offset updated by one addition per run."""
    d = prm[0]
    inner = prm[d]
    si = prm[2 * d]
    runs = 1
    for j in range(d - 1):
        runs *= prm[1 + j]
    count = np.zeros(8, np.int64)
    base = a + prm[2 * d + 1]
    q = 0
    for _ in range(runs):
        dst = _view(arena, itab, o + q, inner)
        if si == 1:
            _scaled_run(dst, _span(arena, base, inner), K, inner, acc)
        elif acc:
            for i in range(inner):
                dst[i] += K * arena[base + i * si]
        else:
            for i in range(inner):
                dst[i] = K * arena[base + i * si]
        q += inner
        j = d - 2
        while j >= 0:
            count[j] += 1
            base += prm[1 + d + j]
            if count[j] < prm[1 + j]:
                break
            base -= prm[1 + d + j] * prm[1 + j]
            count[j] = 0
            j -= 1


@jit(inline="always")
def _sign(v, one, zero):  # pragma: no cover - compiled
    """numpy's sign: +-1, +0 for either zero, a NaN itself (one, zero: a's dtype)."""
    return one if v > zero else (-one if v < zero else (zero if v == zero else v))


@jit
def _chain(arena, itab, consts, o, a, lo, hi, p, acc, tile):  # pragma: no cover - compiled
    """CHAIN over elements lo..hi-1: fused elementwise gradient steps, tile by tile.

    Each step evaluates the same expression, in the same order, as its stand-alone opcode,
    so fused and unfused programs agree bitwise (and so do any split of the range, which
    `run_program` uses to share a big row between threads). A tile walks every step before
    the next tile, so all the chain's operand streams advance together, and the tile stays
    in L1 in `tile` (TILE elements; each thread's range gets its own, so concurrent
    ranges never share scratch memory).
    """
    one = consts[0]
    zero = one - one
    nsteps = itab[p]
    scalar = itab[p + 1] != 0
    # a MUL first step reads the chain's input directly, a MUL last step writes the output:
    # the same expressions, two passes over the tile less
    first = 1 if nsteps >= 1 and itab[p + 2] == MUL else 0
    last = 1 if nsteps >= 2 and itab[p + 2 + 4 * (nsteps - 1)] == MUL else 0
    t0 = lo
    while t0 < hi:
        m = min(TILE, hi - t0)
        buf = _span(tile, 0, m)             # (a view without a reference count, as below)
        if first:
            B = _view(arena, itab, itab[p + 3] + t0, m)
            K = consts[itab[p + 5]]
            if scalar:
                v = arena[a]
                for i in range(m):
                    buf[i] = K * v * B[i]
            else:
                A = _view(arena, itab, a + t0, m)
                for i in range(m):
                    buf[i] = K * A[i] * B[i]
        elif scalar:
            v = arena[a]
            for i in range(m):
                buf[i] = v
        else:
            A = _view(arena, itab, a + t0, m)
            for i in range(m):
                buf[i] = A[i]
        q = p + 2 + 4 * first
        # each step's operands through _view (an arena slot, or a value read in place:
        # external.place), a view without a reference count indexed from 0, so loops
        # vectorise (a slice costs an NRT incref/decref pair, more than a 64-element step)
        for _ in range(nsteps - first - last):
            op = itab[q]
            B = _view(arena, itab, itab[q + 1] + t0, m)
            K = consts[itab[q + 3]]
            if op == MUL:                    # no K == 1 special case: measured slower
                for i in range(m):
                    buf[i] = K * buf[i] * B[i]
            elif op == TANH_BWD:
                for i in range(m):
                    buf[i] = buf[i] * (one - B[i] * B[i])
            elif op == AXPY:
                for i in range(m):
                    buf[i] = K * buf[i]
            elif op == SIGMOID_BWD:
                for i in range(m):
                    buf[i] = buf[i] * B[i] * (one - B[i])
            elif op == RELU_BWD:
                for i in range(m):
                    buf[i] = buf[i] if B[i] > zero else zero
            elif op == DIV:
                for i in range(m):
                    buf[i] = K * buf[i] / B[i]
            elif op == DIVK:
                for i in range(m):
                    buf[i] = buf[i] / K
            elif op == ADDK:
                for i in range(m):
                    buf[i] = buf[i] + K
            elif op == RECIP:
                for i in range(m):
                    buf[i] = K / buf[i]
            elif op == SQRT:
                for i in range(m):
                    buf[i] = np.sqrt(buf[i])
            elif op == SIGN:
                for i in range(m):
                    buf[i] = _sign(buf[i], one, zero)
            else:                        # MULDIV
                C = _view(arena, itab, itab[q + 2] + t0, m)
                for i in range(m):
                    buf[i] = K * buf[i] * B[i] / C[i]
            q += 4
        out = _view(arena, itab, o + t0, m)
        if last:
            B = _view(arena, itab, itab[q + 1] + t0, m)
            K = consts[itab[q + 3]]
            if acc:
                for i in range(m):
                    out[i] += K * buf[i] * B[i]
            else:
                for i in range(m):
                    out[i] = K * buf[i] * B[i]
        elif acc:
            for i in range(m):
                out[i] += buf[i]
        else:
            for i in range(m):
                out[i] = buf[i]
        t0 += m


@jit
def _cumsum_rows(out, a, outer, length, inner, acc, reverse):  # pragma: no cover - compiled
    """Running sums along rows of `length` elements spaced `inner` apart; the inner index is
    the innermost loop so every pass over a row position reads contiguous memory."""
    run_ = np.zeros(inner, a.dtype)
    if inner == 1:                          # along the last axis: no row slices (~4 ns an
        zero = run_[0]                      # element), one scalar sum in a's dtype
        for i in range(outer):
            base = i * length
            r = zero
            for t in range(length):
                q = base + (length - 1 - t if reverse else t)
                r += a[q]
                if acc:
                    out[q] += r
                else:
                    out[q] = r
        return
    for i in range(outer):
        base = i * length * inner
        run_[:] = 0
        for t in range(length):
            tt = length - 1 - t if reverse else t
            q = base + tt * inner
            src = a[q:q + inner]
            dst = out[q:q + inner]
            for j in range(inner):
                run_[j] += src[j]
                if acc:
                    dst[j] += run_[j]
                else:
                    dst[j] = run_[j]


@jit
def _linscan_rows(out, a, b, outer, length, inner, acc, reverse):  # pragma: no cover
    """r = a (first position) then r = a + b * r along rows laid out as in _cumsum_rows."""
    run_ = np.zeros(inner, a.dtype)
    if inner == 1:                          # along the last axis: as _cumsum_rows
        r = run_[0]
        for i in range(outer):
            base = i * length
            for t in range(length):
                q = base + (length - 1 - t if reverse else t)
                r = a[q] if t == 0 else a[q] + b[q] * r
                if acc:
                    out[q] += r
                else:
                    out[q] = r
        return
    for i in range(outer):
        base = i * length * inner
        for t in range(length):
            tt = length - 1 - t if reverse else t
            q = base + tt * inner
            src = a[q:q + inner]
            mul = b[q:q + inner]
            dst = out[q:q + inner]
            for j in range(inner):
                run_[j] = src[j] if t == 0 else src[j] + mul[j] * run_[j]
                if acc:
                    dst[j] += run_[j]
                else:
                    dst[j] = run_[j]


@jit
def _col2im(out, a, prm, acc):  # pragma: no cover - compiled
    """Sum im2col columns back onto the image, one (n, c) plane at a time through a zeroed
    padded scratch plane: no bounds tests, and the unit-stride row adds vectorise (145 us
    against 360 us for in-place adds with clipped ranges, conv2 of perf/cnn.py)."""
    N, C, H, W, G, R = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5]
    kh, kw, sh, sw, dh, dw = prm[6], prm[7], prm[8], prm[9], prm[10], prm[11]
    pt, pl, Ho, Wo = prm[12], prm[13], prm[14], prm[15]
    Cg, S = C // G, Ho * Wo
    Hp = max(pt + H, (Ho - 1) * sh + (kh - 1) * dh + 1)
    Wp = max(pl + W, (Wo - 1) * sw + (kw - 1) * dw + 1)
    img = np.empty(Hp * Wp, a.dtype)
    for n in range(N):
        for c in range(C):
            img[:] = 0
            abase = ((n * G + c // Cg) * R + (c % Cg) * kh * kw) * S
            for i in range(kh):
                for j in range(kw):
                    arow = abase + (i * kw + j) * S
                    for ho in range(Ho):
                        d = (ho * sh + i * dh) * Wp + j * dw
                        s = arow + ho * Wo
                        if sw == 1:
                            dst = img[d:d + Wo]
                            src = a[s:s + Wo]
                            for wo in range(Wo):
                                dst[wo] += src[wo]
                        else:
                            for wo in range(Wo):
                                img[d + wo * sw] += a[s + wo]
            obase = (n * C + c) * H * W
            for h in range(H):
                dst = out[obase + h * W:obase + h * W + W]
                src = img[(h + pt) * Wp + pl:(h + pt) * Wp + pl + W]
                if acc:
                    for w in range(W):
                        dst[w] += src[w]
                else:
                    for w in range(W):
                        dst[w] = src[w]


@jit
def _pool_bwd(out, g, code, prm, acc):  # pragma: no cover - compiled
    """Each window's gradient onto its chosen element (offset k = int(code) in the window).
    Windows that lie inside the image (no padding) add at corner + rel[k] without bounds
    tests; 1.5 ns per window against 4 with a division and bounds tests for each."""
    N, C, H, W, kh, kw = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5]
    sh, sw, pt, pl, Ho, Wo = prm[6], prm[7], prm[8], prm[9], prm[10], prm[11]
    if not acc:
        out[:] = 0
    rel = np.empty(kh * kw, np.int64)       # element k's offset from its window's corner
    kr = np.empty(kh * kw, np.int64)        # and its row and column in the window (a
    kc = np.empty(kh * kw, np.int64)        # division per window cost ~4 ns of ~5)
    for k in range(kh * kw):
        kr[k], kc[k] = k // kw, k % kw
        rel[k] = kr[k] * W + kc[k]
    inside = pt == 0 and pl == 0 and (Ho - 1) * sh + kh <= H and (Wo - 1) * sw + kw <= W
    q = 0
    for nc in range(N * C):
        obase = nc * H * W
        for ho in range(Ho):
            if inside:
                rbase = obase + ho * sh * W
                for wo in range(Wo):
                    out[rbase + wo * sw + rel[int(code[q + wo])]] += g[q + wo]
            else:
                h0 = ho * sh - pt
                rows_in = h0 >= 0 and h0 + kh <= H
                for wo in range(Wo):
                    k = int(code[q + wo])
                    w0 = wo * sw - pl
                    if rows_in and w0 >= 0 and w0 + kw <= W:     # a window inside the image
                        out[obase + h0 * W + w0 + rel[k]] += g[q + wo]
                        continue
                    h = h0 + kr[k]
                    w = w0 + kc[k]
                    if h >= 0 and h < H and w >= 0 and w < W:
                        out[obase + h * W + w] += g[q + wo]
            q += Wo


@jit(fastmath=False)
def _round_into(out, a, n, bits, acc):  # pragma: no cover - compiled
    """ROUND: a[i] rounded to float16 (bits 16, through float32 as Paddle's casts) or
    float32 (bits 32), as numpy's astype.

    Numba has no float16 on the CPU, so the rounding is float arithmetic in float64, where
    every float32 or float64 operand is exact: x + C - C with C = 1.5 * 2**52 * q rounds x
    to a multiple of q, the target type's spacing at x's binade (its subnormal spacing below
    the normal range), ties to even since C / q is even. Compiled without fast-math: with
    `reassoc` LLVM may fold x + C - C into x. To float32 it is the hardware's conversion
    (round to nearest even, inf beyond the range: numpy's astype), which vectorises; the
    frexp/ldexp loop is ~8 ns an element."""
    if bits == 32:
        for i in range(n):
            r = np.float64(np.float32(a[i]))
            if acc:
                out[i] += r
            else:
                out[i] = r
        return
    if bits == 16:
        mant, emin, emax, big = 10, -14, 15, 65504.0
    else:
        mant, emin, emax, big = 23, -126, 127, 3.4028234663852886e38
    for i in range(n):
        # (through float32 first, as Paddle's float16 is made from a float: 1 + 2**-11 +
        # 2**-30 is the tie 1 + 2**-11 there, then 1.0; rounded directly, 1.000977)
        x = np.float64(np.float32(a[i]))
        e = math.frexp(x)[1] - 1            # x's binade: 2**e <= |x| < 2**(e + 1)
        e = min(max(e, emin), emax + 1)     # (0, inf and nan give -1: any spacing does)
        c = math.ldexp(1.5, e - mant + 52)
        r = (x + c) - c
        if abs(r) > big:
            r = math.inf
        r = math.copysign(r, x)             # -0.0, and a negative value that rounded to 0
        if acc:
            out[i] += r
        else:
            out[i] = r
