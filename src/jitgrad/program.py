"""The lowered backward: opcodes, the instruction layout and the Program data structure.

An instruction is one row of 8 int64 words::

    [op << 1 | acc, out, a, b, c, n, p, k]

`out`, `a`, `b`, `c` are offsets into one flat float arena (saved forward values, gradient
slots and temporaries), except that an operand at or above `EXT` reads memory outside it
(a large saved value where the forward left it, see external.py): `e = operand - EXT`,
`itab[e >> 32]` holds the address of that array's first element, `e & 0xFFFFFFFF` is the
element offset into it. Only the operands listed in `EXT_OPERANDS` may be external, and the
`out` of an owned leaf gradient's one writer row (lower_opt.own_leaf_grads), whose address
a binding points at the leaf's `.grad` array. `n` is the element count; `p` an offset into
the int table `itab` (index maps, shapes); `k` an index into `consts`. With `acc` set the
kernel adds into `out`, otherwise it overwrites it, which saves zeroing gradient slots before
each replay.

Opcode semantics (the reference interpreter in `vm/reference.py` is their definition):
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# name: semantics, written for element i < n; K = consts[k]
OPCODES: dict[str, str] = {
    "ZERO": "out[i] = 0  (whatever the acc bit)",
    "AXPY": "out[i] (+)= K * a[i]",
    "MUL": "out[i] (+)= K * a[i] * b[i]",
    "DIV": "out[i] (+)= K * a[i] / b[i]",
    "DIVK": "out[i] (+)= a[i] / K   (division, not a reciprocal multiply: Paddle's rounding)",
    "MULDIV": "out[i] (+)= K * a[i] * b[i] / c[i]",
    "TANH_BWD": "out[i] (+)= a[i] * (1 - b[i] * b[i])",
    "SIGMOID_BWD": "out[i] (+)= a[i] * b[i] * (1 - b[i])",
    "RELU_BWD": "out[i] (+)= a[i] if b[i] > 0 else 0",
    "SUM": "out[0] (+)= K * sum(a[0:n])",
    "BCAST": "out[i] (+)= K * a[0]",
    "GATHER": "out[i] (+)= K * a[itab[p + i]]",
    "GATHER_MUL": "out[i] (+)= a[itab[p + i]] * b[i]",
    "SCATTER": "out[itab[p + i]] += a[i]  (always accumulates)",
    "GEMM": "for each batch j < itab[p]: C_j (+)= op(A_j) @ op(B_j); itab[p:p+9] = "
            "batch, m, n, k, transA, transB, strideA, strideB, strideC; out=C, a=A, b=B",
    "SOFTMAX_BWD": "rows of length L = itab[p+1] (outer = itab[p], inner = itab[p+2]): "
                   "out (+)= b * (a - sum_L(a * b))",
    "LOGSOFTMAX_BWD": "out (+)= a - b * sum_L(a)   (b = softmax, same row layout)",
    "CUMSUM": "rows as SOFTMAX_BWD (itab[p:p+3] = outer, L, inner), itab[p+3] = reverse: "
              "out (+)= running sum of a along each row, from its end when reverse",
    "CHAIN": "fused elementwise steps (lower_opt.py): v = a[i] (a[0] if itab[p+1]); for each "
             "step s < itab[p]: (op, b, c, k) = itab[p+2+4s : p+6+4s], v = that op's kernel "
             "applied to (a=v, b, c, K=consts[k]); out[i] (+)= v. c is unused",
    "ROWSUM": "out[j] (+)= sum over r < itab[p] of a[r * n + j]   (rows summed in order: a "
              "gradient reduced over leading broadcast axes, e.g. a bias)",
    "LINSCAN": "rows and direction as CUMSUM: r = a at a row's first position (in scan order), "
               "then r = a[q] + b[q] * r; out[q] (+)= r   (a first-order linear recurrence: "
               "cumprod's division-free gradient)",
    "COL2IM": "out[N, C, H, W] (+)= the columns a[N, G, R, Ho * Wo] summed back onto the "
              "image (conv2d's im2col gradient); itab[p:p+16] = N, C, H, W, G, R, kh, kw, "
              "sh, sw, dh, dw, pt, pl, Ho, Wo: channel c = g * C/G + cc, row (cc * kh + i) "
              "* kw + j of group g reads pixel (ho*sh + i*dh - pt, wo*sw + j*dw - pl); "
              "rows past C/G*kh*kw and pixels in the padding are dropped",
    "POOL_BWD": "out[N, C, H, W] (+)= max pooling's gradient: a[n, c, ho, wo] goes to the "
                "window element k = int(b[same]) (k = i * kw + j), pixel (ho*sh + i - pt, "
                "wo*sw + j - pl), dropped in the padding; itab[p:p+12] = N, C, H, W, kh, kw, "
                "sh, sw, pt, pl, Ho, Wo",
    "ROUND": "out[i] (+)= a[i] rounded to the float type of itab[p] bits (16: float16, 32: "
             "float32) and back: to nearest, ties to even, subnormals kept, overflow to inf, "
             "nan and the sign of zero kept (numpy's astype). The gradient of a tensor "
             "narrower than the arena, rounded as eager's cast to its dtype",
}
OP: dict[str, int] = {name: i for i, name in enumerate(OPCODES)}
NAMES: dict[int, str] = {i: name for name, i in OP.items()}
WIDTH = 8

EXT = 1 << 62                     # operands from here on are external (see above)
EXT_LOW = (1 << 32) - 1           # the element-offset bits of an external operand
# field -> opcodes whose kernels read that field through plain n-element views (both
# interpreters resolve external operands there); any other reader keeps a value in the arena
EXT_OPERANDS: dict[int, frozenset] = {
    2: frozenset(OP[n] for n in ("AXPY", "MUL", "DIV", "DIVK", "MULDIV", "TANH_BWD",
                                 "SIGMOID_BWD", "RELU_BWD", "SUM", "GEMM", "SOFTMAX_BWD",
                                 "LOGSOFTMAX_BWD")),
    3: frozenset(OP[n] for n in ("MUL", "DIV", "MULDIV", "TANH_BWD", "SIGMOID_BWD",
                                 "RELU_BWD", "GEMM", "SOFTMAX_BWD", "LOGSOFTMAX_BWD")),
    4: frozenset([OP["MULDIV"]]),
}


def operand_text(v: int) -> str:
    """An operand field for dumps: an arena offset, or `ext@pos+off` for external memory."""
    if v < EXT:
        return str(v)
    return f"ext@{(v - EXT) >> 32}+{(v - EXT) & EXT_LOW}"


@dataclass(eq=False)
class Program:
    """A lowered backward as pure data: nothing in it refers to a particular graph.

    Values come from a graph through canonical sources (graph.py), filled in by a Binding:
    `values` are copied into the arena, `externals` are read in place (their address goes
    to itab[pos]), `tables` are int arrays copied into itab, `scalars` one-element values
    copied into consts (times a factor). `literals` are arrays the Program carries: constants
    computed from shapes (Builder.static_value), or values the lowering could not name by a
    source, and then the Program serves only the graph it was lowered from (`reason` says
    why it is not shared). `outputs` say where results are read after a run, for tensors
    named by reference (graph.Graph.tensor): kind 'leaf' (accumulate into .grad), 'retain'
    (overwrite a non-leaf's retained grad) or 'target' (returned by grad()). `leaf_rows`:
    for an output whose slot has one writer row, the itab position of that row's output
    address, which a binding points at the leaf's `.grad` array so the row accumulates
    straight into it. `segments` are instruction ranges each followed by a callback, by
    index into `callbacks` (specs a Binding turns into hook / PyLayer calls).
    """

    code: np.ndarray                  # (n_instr, WIDTH) int64
    itab: np.ndarray                  # int64, 1-D
    consts: np.ndarray                # arena dtype; NaN where `scalars` fills in a value
    arena_size: int
    seeds: tuple = ()                 # (offset, size) per root
    outputs: tuple = ()               # (kind, tensor ref, offset, shape)
    values: tuple = ()                # (offset, slot shape, source, source shape)
    externals: tuple = ()             # (itab position, slot shape, source, source shape)
    tables: tuple = ()                # (itab position, size, source)
    scalars: tuple = ()               # (const index, source, factor)
    literals: tuple = ()              # (offset, slot shape, array)
    leaf_rows: tuple = ()             # (output index, itab position)
    segments: tuple = ()              # (start, stop, callback index or -1)
    callbacks: tuple = ()             # callback specs (hooks.py, node_call.py)
    node_names: tuple = ()            # which op each instruction serves
    reason: str | None = None         # why this Program cannot serve another graph

    @property
    def dtype(self) -> np.dtype:
        return self.consts.dtype

    @property
    def has_callbacks(self) -> bool:
        return bool(self.callbacks)

    def __len__(self) -> int:
        return int(self.code.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the Program itself (a binding's arena comes on top)."""
        return int(self.code.nbytes + self.itab.nbytes + self.consts.nbytes +
                   sum(a.nbytes for _, _, a in self.literals))

    def same(self, other: "Program") -> bool:
        """Equal in every field but the node names (arrays by value; NaN consts equal)."""
        return self.difference(other) is None

    def difference(self, other: "Program") -> str | None:
        """The first field in which two Programs differ, or None."""
        for f in ("seeds", "outputs", "values", "externals", "tables", "scalars",
                  "leaf_rows", "segments", "callbacks", "arena_size", "reason"):
            if getattr(self, f) != getattr(other, f):
                return f
        if not np.array_equal(self.code, other.code):
            return "code"
        if not np.array_equal(self.itab, other.itab):
            return "itab"
        if self.consts.dtype != other.consts.dtype or \
                not np.array_equal(self.consts, other.consts, equal_nan=True):
            return "consts"
        if len(self.literals) != len(other.literals) or not all(
                a[:2] == b[:2] and np.array_equal(a[2], b[2])
                for a, b in zip(self.literals, other.literals)):
            return "literals"
        return None

    def text(self) -> str:
        """One readable line per instruction, in execution order."""
        lines = [f"# program: {len(self)} instructions, arena {self.arena_size} x "
                 f"{self.dtype}, itab {self.itab.size}, consts {self.consts.size}"]
        for off, n in self.seeds:
            lines.append(f"# seed  -> [{off}:{off + n}]")
        for off, shape, src, _ in self.values:
            lines.append(f"# value {_src_text(src)} -> [{off}:{off + _size(shape)}]")
        for pos, shape, src, _ in self.externals:
            lines.append(f"# value {_src_text(src)} -> ext@{pos} (read in place)")
        for pos, n, src in self.tables:
            lines.append(f"# table {_src_text(src)} -> itab[{pos}:{pos + n}]")
        for k, src, factor in self.scalars:
            lines.append(f"# scalar {factor:g} * {_src_text(src)} -> K[{k}]")
        breaks: dict[int, list] = {}
        for _, stop, cb in self.segments:
            if cb >= 0:
                breaks.setdefault(stop, []).append(self.callbacks[cb])
        for pc, row in enumerate(self.code):
            for spec in breaks.get(pc, ()):
                lines.append(f"     CALLBACK       {spec[0]} {spec[1:]}")
            op, acc = NAMES[int(row[0]) >> 1], "+=" if row[0] & 1 else "= "
            _, out, a, b, c, n, p, k = (int(v) for v in row)
            who = self.node_names[pc] if pc < len(self.node_names) else ""
            out, a, b, c = (operand_text(v) for v in (out, a, b, c))
            lines.append(f"{pc:4d} {op:<14} out[{out}] {acc} a[{a}] b[{b}] c[{c}] n={n} "
                         f"p={p} K={self.consts[k]:g}   # {who}")
        for spec in breaks.get(len(self), ()):
            lines.append(f"     CALLBACK       {spec[0]} {spec[1:]}")
        for kind, ref, off, shape in self.outputs:
            lines.append(f"# {kind:<6} <- [{off}:{off + _size(shape)}] shape {list(shape)}")
        return "\n".join(lines)


def _size(shape: tuple) -> int:
    return math.prod(shape)


def _src_text(src: tuple) -> str:
    kind = src[0]
    if kind == "t":
        return f"tensor {src[1]}"
    if kind == "o":
        return f"output of node {src[1]}"
    if kind == "s":
        return f"saved {src[2]} of node {src[1]}"
    return f"attribute {src[2]!r} of node {src[1]}"
