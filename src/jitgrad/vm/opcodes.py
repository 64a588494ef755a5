"""The opcode table: one record per VM opcode, and every opcode set derived from it.

A record states an opcode's semantics (the text the reference interpreter implements and
`Program.text()` readers consult), which operand fields its kernels read, which of those
may be external (a large saved value read in place, external.py), and the properties the
peephole passes (peephole.py, slot_layout.py), value placement (external.py) and folding
(fold.py) rely on, and its numpy reference: `value(K, A, B, C)` for an elementwise opcode
(which also serves as its CHAIN step), else `ref(row)` (vm/reference.py's Row: the
instruction's operands), returning the values to write or add, or None when it wrote them
itself. The reference interpreter (vm/reference.py) is nothing but a loop over these.
Adding an opcode is one record here and one compiled kernel (a branch of
vm/interpreter.py's `run`, calling vm/kernels.py for a long one; tests/test_vm_coverage.py
checks they agree). An opcode whose flags are left at their defaults is unknown to every
pass: they leave the slots it touches alone, which is always safe.

Operand fields: 1 out, 2 a, 3 b, 4 c (the row layout is in program.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True)
class Opcode:
    name: str
    doc: str                          # semantics, for element i < n; K = consts[k]
    reads: tuple[int, ...] = ()       # operand fields its kernels read
    external: tuple[int, ...] = ()    # of those, the fields read through plain n-element
                                      # views, where both interpreters resolve EXT operands
    step: int | None = None           # a CHAIN step: how many of b, c it reads (a is v)
    linear: bool = True               # a step's v is linear in its a: fold.py may fold it
    k_first: bool = False             # a step computing K * v first: a K step before folds
    elementwise: bool = False         # out/a/b/c all n-element ranges at the field values
    core: bool = False                # reads its operand fields only, so passes may rename
    one_add: bool = False             # adds one computed value per element of out
    wide: bool = False                # writes or reads beyond [field, field + n)
    compactable: bool = False         # not core, but its itab holds no arena offsets either
                                      # (compaction may move the slots it touches)
    itab_offsets: bool = False        # its itab holds arena offsets (CHAIN step operands)
    value: Callable | None = None     # numpy reference of an elementwise opcode: (K, A, B, C)
    ref: Callable | None = None       # numpy reference of any other: (row) -> values or None


# ---- numpy references of the opcodes that are not one elementwise expression ----------------

ROUND_TYPES = {16: np.float16, 32: np.float32}      # ROUND's itab[p] -> the narrower type


def _rows(x: np.ndarray, p: tuple) -> np.ndarray:
    outer, length, inner = p[:3]
    return x.reshape(outer, length, inner)


def _zero(r: Any) -> None:
    r.out[:r.n] = 0


def _sum(r: Any) -> None:
    s = r.K * r.A.sum()
    r.out[0] = r.out[0] + s if r.acc else s


def _scatter(r: Any) -> None:
    np.add.at(r.arena, r.o + r.idx, r.A)


def _gemm(r: Any) -> None:
    batch, m, n, k, ta, tb, sa, sb, sc = r.params(9)
    for j in range(batch):
        A = r.view(r.a + j * sa, m * k)
        B = r.view(r.b + j * sb, k * n)
        A = A.reshape(k, m).T if ta else A.reshape(m, k)
        B = B.reshape(n, k).T if tb else B.reshape(k, n)
        C = r.view(r.o + j * sc, m * n).reshape(m, n)
        if r.acc or (sc == 0 and j > 0):
            C += A @ B
        else:
            C[...] = A @ B


def _rows_grad(r: Any) -> np.ndarray:
    """SOFTMAX_BWD's and LOGSOFTMAX_BWD's g: a, or K * a[0] at every element when itab[p+3]
    (a broadcast scalar, peephole.py's fuse_scalar_grads)."""
    p = r.params(4)
    if p[3]:
        return _rows(np.full(r.n, r.K * r.arena[r.a], r.arena.dtype), p)
    return _rows(r.A, p)


def _trsm(r: Any) -> None:
    batch, m, n, left, upper, trans, unit, sa, sb = r.params(9)
    k = m if left else n
    for j in range(batch):
        T = r.view(r.a + j * sa, k * k).reshape(k, k)
        T = np.triu(T) if upper else np.tril(T)
        if unit:
            T = T - np.diag(np.diag(T)) + np.eye(k, dtype=T.dtype)
        T = T.T if trans else T
        B = r.view(r.b + j * sb, m * n).reshape(m, n)
        r.view(r.o + j * m * n, m * n).reshape(m, n)[...] = \
            np.linalg.solve(T, B) if left else np.linalg.solve(T.T, B.T).T


def _softmax_bwd(r: Any) -> np.ndarray:
    g, y = _rows_grad(r), _rows(r.B, r.params(3))
    return (y * (g - (g * y).sum(axis=1, keepdims=True))).ravel()


def _logsoftmax_bwd(r: Any) -> np.ndarray:
    g, y = _rows_grad(r), _rows(r.B, r.params(3))
    return (g - y * g.sum(axis=1, keepdims=True)).ravel()


def _cumsum(r: Any) -> np.ndarray:
    p = r.params(4)
    rows = _rows(r.A, p)
    return (np.cumsum(rows[:, ::-1], axis=1)[:, ::-1] if p[3] else np.cumsum(rows, axis=1)).ravel()


def _chain(r: Any) -> np.ndarray:
    p, itab = r.p, r.itab
    scalar = bool(itab[p + 1])
    v = np.full(r.n, r.arena[r.a], r.arena.dtype) if scalar else r.A.copy()
    for q in chain_steps(itab, p):
        op, b, c, k = (int(x) for x in itab[q:q + 4])
        v = BY_CODE[op].value(r.consts[k], v, r.view(b, r.n), r.view(c, r.n))
    return v


def _rowsum(r: Any) -> None:
    n, a = r.n, r.a
    val = np.zeros(n, r.arena.dtype)
    for j in range(int(r.itab[r.p])):          # in order, as SCATTER would add them
        val = val + r.arena[a + j * n:a + j * n + n]
    return val


def _linscan(r: Any) -> np.ndarray:
    p = r.params(4)
    rows, mul = _rows(r.A, p), _rows(r.B, p)
    out, length = np.empty_like(rows), rows.shape[1]
    prev = -1
    for t in (range(length - 1, -1, -1) if p[3] else range(length)):
        out[:, t] = rows[:, t] if prev < 0 else rows[:, t] + mul[:, t] * out[:, prev]
        prev = t
    return out.ravel()


def _col2im(r: Any) -> np.ndarray:
    N, C, H, W, G, R, kh, kw, sh, sw, dh, dw, pt, pl, Ho, Wo = r.params(16)
    cols = r.arena[r.a:r.a + N * G * R * Ho * Wo].reshape(N, G, R, Ho * Wo)
    cols = cols[:, :, :C // G * kh * kw].reshape(N, C, kh, kw, Ho, Wo)
    Hp = max(pt + H, (Ho - 1) * sh + (kh - 1) * dh + 1)
    Wp = max(pl + W, (Wo - 1) * sw + (kw - 1) * dw + 1)
    img = np.zeros((N, C, Hp, Wp), r.arena.dtype)
    for i in range(kh):
        for j in range(kw):
            img[:, :, i * dh:i * dh + (Ho - 1) * sh + 1:sh,
                j * dw:j * dw + (Wo - 1) * sw + 1:sw] += cols[:, :, i, j]
    return img[:, :, pt:pt + H, pl:pl + W].ravel()


def _pool_bwd(r: Any) -> np.ndarray:
    N, C, H, W, kh, kw, sh, sw, pt, pl, Ho, Wo = r.params(12)
    m = N * C * Ho * Wo
    g, k = r.arena[r.a:r.a + m], r.arena[r.b:r.b + m].astype(np.int64)
    q = np.arange(m)
    h = (q // Wo) % Ho * sh + k // kw - pt
    w = q % Wo * sw + k % kw - pl
    ok = (h >= 0) & (h < H) & (w >= 0) & (w < W)
    img = np.zeros(N * C * H * W, r.arena.dtype)
    np.add.at(img, (q // (Ho * Wo) * (H * W) + h * W + w)[ok], g[ok])
    return img


def _chansum(r: Any) -> np.ndarray:
    rows, inner = r.params(2)
    a = r.arena[r.a:r.a + rows * r.n * inner].reshape(rows, r.n, inner)
    return a.sum(axis=(0, 2)).astype(r.arena.dtype)


def _midsum(r: Any) -> np.ndarray:
    b, inner = r.params(2)
    a = r.arena[r.a:r.a + r.n * b].reshape(r.n // inner, b, inner)
    return a.sum(axis=1).reshape(-1).astype(r.arena.dtype)


def _expanded(r: Any) -> np.ndarray:
    """K * a spread over EXPAND's (outer, mid, inner) grid."""
    outer, mid, inner, so, sm, si = r.params(6)
    idx = (np.arange(outer)[:, None, None] * so + np.arange(mid)[None, :, None] * sm +
           np.arange(inner)[None, None, :] * si).ravel()
    return r.K * r.arena[r.a + idx]


def _strided(r: Any) -> np.ndarray:
    """K * a read over STRIDED's grid: itab[p] = d dims, their sizes, their strides, then
    an element offset."""
    d = int(r.itab[r.p])
    prm = [int(v) for v in r.itab[r.p + 1:r.p + 2 + 2 * d]]
    sizes, strides, off = prm[:d], prm[d:2 * d], prm[2 * d]
    idx = np.full(sizes, off, np.int64)
    for j, (size, stride) in enumerate(zip(sizes, strides)):
        shape = [1] * d
        shape[j] = size
        idx = idx + (np.arange(size) * stride).reshape(shape)
    return r.K * r.arena[r.a + idx.ravel()]


def _norm_bwd(r: Any) -> np.ndarray:
    R, S, L, A, Q = r.params(5)
    aux = r.arena[r.c:r.c + S + A]
    e = np.arange(r.n)
    ch = e % L if Q == 0 else (e // Q) % A
    h = (r.A * aux[S:][ch]).reshape(R, S, L)
    xh = r.B.reshape(R, S, L)
    m = R * L
    u = h.sum(axis=(0, 2), keepdims=True) / m
    v = (h * xh).sum(axis=(0, 2), keepdims=True) / m
    return (aux[:S].reshape(1, S, 1) * (h - u - xh * v)).ravel()


_STEP = dict(elementwise=True, core=True, one_add=True)

TABLE: tuple[Opcode, ...] = (
    Opcode("ZERO", "out[i] = 0  (whatever the acc bit)", core=True,
           ref=_zero),
    Opcode("AXPY", "out[i] (+)= K * a[i]", (2,), (2,), step=0, **_STEP,
           value=lambda K, A, B, C: K * A),
    Opcode("MUL", "out[i] (+)= K * a[i] * b[i]", (2, 3), (2, 3), step=1, k_first=True, **_STEP,
           value=lambda K, A, B, C: K * A * B),
    Opcode("DIV", "out[i] (+)= K * a[i] / b[i]", (2, 3), (2, 3), step=1, k_first=True, **_STEP,
           value=lambda K, A, B, C: K * A / B),
    Opcode("DIVK", "out[i] (+)= a[i] / K   (division, not a reciprocal multiply: Paddle's "
           "rounding)", (2,), (2,), step=0, **_STEP,
           value=lambda K, A, B, C: A / K),
    Opcode("MULDIV", "out[i] (+)= K * a[i] * b[i] / c[i]", (2, 3, 4), (2, 3, 4), step=2,
           k_first=True, **_STEP,
           value=lambda K, A, B, C: K * A * B / C),
    Opcode("TANH_BWD", "out[i] (+)= a[i] * (1 - b[i] * b[i])", (2, 3), (2, 3), step=1, **_STEP,
           value=lambda K, A, B, C: A * (1 - B * B)),
    Opcode("SIGMOID_BWD", "out[i] (+)= a[i] * b[i] * (1 - b[i])", (2, 3), (2, 3), step=1,
           **_STEP,
           value=lambda K, A, B, C: A * B * (1 - B)),
    Opcode("RELU_BWD", "out[i] (+)= a[i] if b[i] > 0 else 0", (2, 3), (2, 3), step=1, **_STEP,
           value=lambda K, A, B, C: np.where(B > 0, A, 0).astype(A.dtype)),
    Opcode("SUM", "out[0] (+)= K * sum(a[0:n])", (2,), (2,), core=True, one_add=True,
           ref=_sum),
    Opcode("BCAST", "out[i] (+)= K * a[0]", (2,), core=True, one_add=True,
           ref=lambda r: np.full(r.n, r.K * r.arena[r.a], r.arena.dtype)),
    Opcode("GATHER", "out[i] (+)= K * a[itab[p + i]]", (2,), core=True, one_add=True,
           ref=lambda r: r.K * r.arena[r.a + r.idx]),
    Opcode("GATHER_MUL", "out[i] (+)= a[itab[p + i]] * b[i]", (2, 3), (3,), core=True,
           one_add=True,
           ref=lambda r: r.arena[r.a + r.idx] * r.B),
    Opcode("SCATTER", "out[itab[p + i]] += a[i]  (always accumulates)", (2,), core=True,
           wide=True,
           ref=_scatter),
    Opcode("GEMM", "for each batch j < itab[p]: C_j (+)= op(A_j) @ op(B_j); itab[p:p+9] = "
           "batch, m, n, k, transA, transB, strideA, strideB, strideC; out=C, a=A, b=B",
           (2, 3), (2, 3), core=True, one_add=True, wide=True,
           ref=_gemm),
    Opcode("SOFTMAX_BWD", "rows of length L = itab[p+1] (outer = itab[p], inner = itab[p+2]): "
           "out (+)= b * (a - sum_L(a * b)); a is K * a[0] everywhere if itab[p+3]",
           (2, 3), (2, 3), elementwise=True, core=True, one_add=True,
           ref=_softmax_bwd),
    Opcode("LOGSOFTMAX_BWD", "out (+)= a - b * sum_L(a)   (b = softmax, same row layout and "
           "scalar a)",
           (2, 3), (2, 3), elementwise=True, core=True, one_add=True,
           ref=_logsoftmax_bwd),
    Opcode("CUMSUM", "rows as SOFTMAX_BWD (itab[p:p+3] = outer, L, inner), itab[p+3] = "
           "reverse: out (+)= running sum of a along each row, from its end when reverse",
           (2,), compactable=True,
           ref=_cumsum),
    Opcode("CHAIN", "fused elementwise steps (peephole.py): v = a[i] (a[0] if itab[p+1]); "
           "for each step s < itab[p]: (op, b, c, k) = itab[p+2+4s : p+6+4s], v = that op's "
           "kernel applied to (a=v, b, c, K=consts[k]); out[i] (+)= v. c is unused", (2,),
           one_add=True, wide=True, itab_offsets=True,
           ref=_chain),
    Opcode("ROWSUM", "out[j] (+)= sum over r < itab[p] of a[r * n + j]   (rows summed in "
           "order, then added once: a gradient reduced over leading broadcast axes, e.g. a "
           "bias)", (2,), core=True, one_add=True,
           ref=_rowsum),
    Opcode("LINSCAN", "rows and direction as CUMSUM: r = a at a row's first position (in "
           "scan order), then r = a[q] + b[q] * r; out[q] (+)= r   (a first-order linear "
           "recurrence: cumprod's division-free gradient)", (2, 3),
           ref=_linscan),
    Opcode("COL2IM", "out[N, C, H, W] (+)= the columns a[N, G, R, Ho * Wo] summed back onto "
           "the image (conv2d's im2col gradient); itab[p:p+16] = N, C, H, W, G, R, kh, kw, "
           "sh, sw, dh, dw, pt, pl, Ho, Wo: channel c = g * C/G + cc, row (cc * kh + i) * kw "
           "+ j of group g reads pixel (ho*sh + i*dh - pt, wo*sw + j*dw - pl); rows past "
           "C/G*kh*kw and pixels in the padding are dropped", (2,), wide=True,
           ref=_col2im),
    Opcode("POOL_BWD", "out[N, C, H, W] (+)= max pooling's gradient: a[n, c, ho, wo] goes to "
           "the window element k = int(b[same]) (k = i * kw + j), pixel (ho*sh + i - pt, "
           "wo*sw + j - pl), dropped in the padding; itab[p:p+12] = N, C, H, W, kh, kw, sh, "
           "sw, pt, pl, Ho, Wo", (2, 3), wide=True,
           ref=_pool_bwd),
    Opcode("ROUND", "out[i] (+)= a[i] rounded to the float type of itab[p] bits (16: "
           "float16 through float32, as Paddle's casts; 32: float32) and back: to nearest, "
           "ties to even, subnormals kept, "
           "overflow to inf, nan and the sign of zero kept (numpy's astype). The gradient of "
           "a tensor narrower than the arena, rounded as eager's cast to its dtype", (2,),
           core=True,
           ref=lambda r: r.A.astype(np.float32).astype(ROUND_TYPES[int(r.itab[r.p])])
           .astype(r.arena.dtype)),
    Opcode("CHANSUM", "out[j] (+)= sum over r < itab[p], i < itab[p+1] of a[(r * n + j) * "
           "itab[p+1] + i]   (a gradient reduced over the axes around a broadcast block: a "
           "per-channel scale [C, 1, 1] of an NCHW image; ROWSUM when itab[p+1] = 1)", (2,),
           core=True,
           ref=_chansum),
    Opcode("NORM_BWD", "normalization's input gradient. Statistics layout itab[p:p+3] = R, "
           "S, L: element e = (r * S + s) * L + l has statistic s (M = R * L elements each); "
           "affine layout itab[p+3:p+5] = A, Q: e's channel is (e // Q) % A, or l when Q = "
           "0. b = xhat, c = [rstd (S), w (A)], h = a * w[channel]: out[e] (+)= rstd[s] * "
           "(h - sum_s(h) / M - b * sum_s(h * b) / M)", (2, 3, 4), (2, 3), core=True,
           one_add=True, wide=True,
           ref=_norm_bwd),
    Opcode("MIDSUM", "out[k * itab[p+1] + j] (+)= sum over b < itab[p] of a[(k * itab[p] + "
           "b) * itab[p+1] + j], for k < n / itab[p+1]   (a gradient reduced over a block "
           "of middle axes: x [N, 1, D] broadcast against [N, M, D]; summed in order of b, "
           "as SCATTER would add them)", (2,),
           core=True,
           ref=_midsum),
    Opcode("EXPAND", "out[(r * itab[p+1] + m) * itab[p+2] + i] (+)= K * a[r * itab[p+3] + "
           "m * itab[p+4] + i * itab[p+5]] for r < itab[p], m < itab[p+1], i < itab[p+2]   "
           "(a broadcast onto an (outer, mid, inner) grid, strides 0 along its broadcast "
           "axes, the inner one 0 or 1: GATHER's values without an index per element; a "
           "reduction's gradient)",
           (2,), core=True, one_add=True,
           ref=_expanded),
    Opcode("EXPAND_MUL", "out[i] (+)= EXPAND's K * a[...] times b[i]   (a reduction's "
           "gradient times a per-element weight: max's ties, prod's others-product; "
           "GATHER_MUL's values, K = 1)", (2, 3), (3,), core=True, one_add=True,
           ref=lambda r: _expanded(r) * r.B),
    # (appended: opcode numbers are the table's order)
    Opcode("STRIDED", "out[i] (+)= K * a[off + sum_j i_j * stride_j] for i the row-major "
           "index (i_0, ..., i_d-1) of a grid of d <= 8 dims; itab[p] = d, then the d sizes, "
           "the d strides (elements, any sign) and off   (a transpose, a slice, a permute: "
           "GATHER's values without an index per element)",
           (2,), core=True, one_add=True,
           ref=_strided),
    # the arithmetic of a derivative's factor computed in the backward from forward values
    # (ops/factor_kernels.py's expressions: 1 / (x * x + 1), rsqrt(1 - x * x), sign(x)):
    # steps, but not linear in a (fold.py leaves their chains alone)
    Opcode("ADDK", "out[i] (+)= a[i] + K", (2,), (2,), step=0, linear=False, **_STEP,
           value=lambda K, A, B, C: A + K),
    Opcode("RECIP", "out[i] (+)= K / a[i]", (2,), (2,), step=0, linear=False, **_STEP,
           value=lambda K, A, B, C: K / A),
    Opcode("SQRT", "out[i] (+)= sqrt(a[i])", (2,), (2,), step=0, linear=False, **_STEP,
           value=lambda K, A, B, C: np.sqrt(A)),
    Opcode("SIGN", "out[i] (+)= 1 if a[i] > 0, -1 if a[i] < 0, else +0 (a NaN: itself; "
           "numpy's sign)", (2,), (2,), step=0, linear=False, **_STEP,
           value=lambda K, A, B, C: np.sign(A)),
    # (appended: the opcodes above keep their numbers, which compiled kernels hold)
    Opcode("TRSM", "for each batch j < itab[p]: out_j = op(T_j)^-1 b_j (left) or b_j "
           "op(T_j)^-1 (right), out_j and b_j [m, n] (out_j at stride m * n), T_j the upper "
           "(or lower) triangle of A_j (m x m left, n x n right; its diagonal taken as ones "
           "when unit), op(T) = T^T when trans; itab[p:p+9] = batch, m, n, left, upper, "
           "trans, unit, strideA, strideB; a=A, b=B. Writes: the acc bit is ignored (a "
           "triangular solve, BLAS trsm in place on out)",
           (2, 3), (2, 3), core=True, wide=True,
           ref=_trsm),
)

# ---- derived: opcode numbers (their order is the table's) and the sets the passes use ------

OP: dict[str, int] = {o.name: i for i, o in enumerate(TABLE)}
NAMES: dict[int, str] = {i: name for name, i in OP.items()}
OPCODES: dict[str, str] = {o.name: o.doc for o in TABLE}
BY_CODE: dict[int, Opcode] = {OP[o.name]: o for o in TABLE}


def _codes(pick) -> frozenset:
    return frozenset(code for code, o in BY_CODE.items() if pick(o))


# field -> opcodes resolving external operands there (any other reader keeps a value in
# the arena)
EXT_OPERANDS: dict[int, frozenset] = {f: _codes(lambda o, f=f: f in o.external)
                                      for f in (2, 3, 4)}
# CHAIN steps: opcode -> how many of the fields b, c it reads
STEP_OPERANDS: dict[int, int] = {code: o.step for code, o in BY_CODE.items()
                                 if o.step is not None}


def chain_steps(itab, p: int) -> range:
    """The itab positions of a CHAIN's steps (each step's opcode; its b, c operands follow),
    for the CHAIN whose parameters start at itab[p] (their count first)."""
    return range(p + 2, p + 2 + 4 * int(itab[p]), 4)

K_FIRST = _codes(lambda o: o.k_first)
NONLINEAR_STEPS = _codes(lambda o: o.step is not None and not o.linear)
ELEMENTWISE = _codes(lambda o: o.elementwise)
READERS = _codes(lambda o: o.core)
ONE_ADD = _codes(lambda o: o.one_add)
WIDE = _codes(lambda o: o.wide)
COMPACTABLE = READERS | _codes(lambda o: o.compactable)
# every operand field a row may read, by opcode
READS: dict[int, tuple[int, ...]] = {code: o.reads for code, o in BY_CODE.items()}
