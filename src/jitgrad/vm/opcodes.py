"""The opcode table: one record per VM opcode, and every opcode set derived from it.

A record states an opcode's semantics (the text the reference interpreter implements and
`Program.text()` readers consult), which operand fields its kernels read, which of those
may be external (a large saved value read in place, external.py), and the properties the
peephole passes (peephole.py), value placement (external.py) and folding (fold.py) rely
on. Adding an opcode is one record here and one kernel in each interpreter
(vm/reference.py, vm/interpreter.py; tests/test_vm_coverage.py checks both exist). An
opcode whose flags are left at their defaults is unknown to every pass: they leave the
slots it touches alone, which is always safe.

Operand fields: 1 out, 2 a, 3 b, 4 c (the row layout is in program.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Opcode:
    name: str
    doc: str                          # semantics, for element i < n; K = consts[k]
    reads: tuple[int, ...] = ()       # operand fields its kernels read
    external: tuple[int, ...] = ()    # of those, the fields read through plain n-element
                                      # views, where both interpreters resolve EXT operands
    step: int | None = None           # a CHAIN step: how many of b, c it reads (a is v)
    k_first: bool = False             # a step computing K * v first: a K step before folds
    elementwise: bool = False         # out/a/b/c all n-element ranges at the field values
    core: bool = False                # reads its operand fields only, so passes may rename
    one_add: bool = False             # adds one computed value per element of out
    wide: bool = False                # writes or reads beyond [field, field + n)
    compactable: bool = False         # not core, but its itab holds no arena offsets either
                                      # (compaction may move the slots it touches)
    itab_offsets: bool = False        # its itab holds arena offsets (CHAIN step operands)


_STEP = dict(elementwise=True, core=True, one_add=True)

TABLE: tuple[Opcode, ...] = (
    Opcode("ZERO", "out[i] = 0  (whatever the acc bit)", core=True),
    Opcode("AXPY", "out[i] (+)= K * a[i]", (2,), (2,), step=0, **_STEP),
    Opcode("MUL", "out[i] (+)= K * a[i] * b[i]", (2, 3), (2, 3), step=1, k_first=True, **_STEP),
    Opcode("DIV", "out[i] (+)= K * a[i] / b[i]", (2, 3), (2, 3), step=1, k_first=True, **_STEP),
    Opcode("DIVK", "out[i] (+)= a[i] / K   (division, not a reciprocal multiply: Paddle's "
           "rounding)", (2,), (2,), step=0, **_STEP),
    Opcode("MULDIV", "out[i] (+)= K * a[i] * b[i] / c[i]", (2, 3, 4), (2, 3, 4), step=2,
           k_first=True, **_STEP),
    Opcode("TANH_BWD", "out[i] (+)= a[i] * (1 - b[i] * b[i])", (2, 3), (2, 3), step=1, **_STEP),
    Opcode("SIGMOID_BWD", "out[i] (+)= a[i] * b[i] * (1 - b[i])", (2, 3), (2, 3), step=1,
           **_STEP),
    Opcode("RELU_BWD", "out[i] (+)= a[i] if b[i] > 0 else 0", (2, 3), (2, 3), step=1, **_STEP),
    Opcode("SUM", "out[0] (+)= K * sum(a[0:n])", (2,), (2,), core=True, one_add=True),
    Opcode("BCAST", "out[i] (+)= K * a[0]", (2,), core=True, one_add=True),
    Opcode("GATHER", "out[i] (+)= K * a[itab[p + i]]", (2,), core=True, one_add=True),
    Opcode("GATHER_MUL", "out[i] (+)= a[itab[p + i]] * b[i]", (2, 3), core=True, one_add=True),
    Opcode("SCATTER", "out[itab[p + i]] += a[i]  (always accumulates)", (2,), core=True,
           wide=True),
    Opcode("GEMM", "for each batch j < itab[p]: C_j (+)= op(A_j) @ op(B_j); itab[p:p+9] = "
           "batch, m, n, k, transA, transB, strideA, strideB, strideC; out=C, a=A, b=B",
           (2, 3), (2, 3), core=True, one_add=True, wide=True),
    Opcode("SOFTMAX_BWD", "rows of length L = itab[p+1] (outer = itab[p], inner = itab[p+2]): "
           "out (+)= b * (a - sum_L(a * b))", (2, 3), (2, 3), elementwise=True, core=True,
           one_add=True),
    Opcode("LOGSOFTMAX_BWD", "out (+)= a - b * sum_L(a)   (b = softmax, same row layout)",
           (2, 3), (2, 3), elementwise=True, core=True, one_add=True),
    Opcode("CUMSUM", "rows as SOFTMAX_BWD (itab[p:p+3] = outer, L, inner), itab[p+3] = "
           "reverse: out (+)= running sum of a along each row, from its end when reverse",
           (2,), compactable=True),
    Opcode("CHAIN", "fused elementwise steps (peephole.py): v = a[i] (a[0] if itab[p+1]); "
           "for each step s < itab[p]: (op, b, c, k) = itab[p+2+4s : p+6+4s], v = that op's "
           "kernel applied to (a=v, b, c, K=consts[k]); out[i] (+)= v. c is unused", (2,),
           one_add=True, wide=True, itab_offsets=True),
    Opcode("ROWSUM", "out[j] (+)= sum over r < itab[p] of a[r * n + j]   (rows summed in "
           "order: a gradient reduced over leading broadcast axes, e.g. a bias)", (2,),
           core=True),
    Opcode("LINSCAN", "rows and direction as CUMSUM: r = a at a row's first position (in "
           "scan order), then r = a[q] + b[q] * r; out[q] (+)= r   (a first-order linear "
           "recurrence: cumprod's division-free gradient)", (2, 3)),
    Opcode("COL2IM", "out[N, C, H, W] (+)= the columns a[N, G, R, Ho * Wo] summed back onto "
           "the image (conv2d's im2col gradient); itab[p:p+16] = N, C, H, W, G, R, kh, kw, "
           "sh, sw, dh, dw, pt, pl, Ho, Wo: channel c = g * C/G + cc, row (cc * kh + i) * kw "
           "+ j of group g reads pixel (ho*sh + i*dh - pt, wo*sw + j*dw - pl); rows past "
           "C/G*kh*kw and pixels in the padding are dropped", (2,), wide=True),
    Opcode("POOL_BWD", "out[N, C, H, W] (+)= max pooling's gradient: a[n, c, ho, wo] goes to "
           "the window element k = int(b[same]) (k = i * kw + j), pixel (ho*sh + i - pt, "
           "wo*sw + j - pl), dropped in the padding; itab[p:p+12] = N, C, H, W, kh, kw, sh, "
           "sw, pt, pl, Ho, Wo", (2, 3), wide=True),
    Opcode("ROUND", "out[i] (+)= a[i] rounded to the float type of itab[p] bits (16: "
           "float16, 32: float32) and back: to nearest, ties to even, subnormals kept, "
           "overflow to inf, nan and the sign of zero kept (numpy's astype). The gradient of "
           "a tensor narrower than the arena, rounded as eager's cast to its dtype", (2,),
           core=True),
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
K_FIRST = _codes(lambda o: o.k_first)
ELEMENTWISE = _codes(lambda o: o.elementwise)
READERS = _codes(lambda o: o.core)
ONE_ADD = _codes(lambda o: o.one_add)
WIDE = _codes(lambda o: o.wide)
COMPACTABLE = READERS | _codes(lambda o: o.compactable)
# every operand field a row may read, by opcode
READS: dict[int, tuple[int, ...]] = {code: o.reads for code, o in BY_CODE.items()}
