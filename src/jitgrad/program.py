"""The lowered backward: opcodes, the instruction layout and the Program data structure.

An instruction is one row of 8 int64 words::

    [op << 1 | acc, out, a, b, c, n, p, k]

`out`, `a`, `b`, `c` are offsets into one flat float arena (saved forward values, gradient
slots and temporaries), except that an operand at or above `EXT` reads memory outside it
(a large saved value where the forward left it, see external.py): `e = operand - EXT`,
`itab[e >> 32]` holds the address of that array's first element, `e & 0xFFFFFFFF` is the
element offset into it. Only the operands listed in `EXT_OPERANDS` may be external, and the
`out` of an owned leaf gradient's one writer row (lower_opt.own_leaf_grads), whose address
fastpath points at the leaf's `.grad` array. `n` is the element count; `p` an offset into
the int table `itab` (index maps, shapes); `k` an index into `consts`. With `acc` set the
kernel adds into `out`, otherwise it overwrites it, which saves zeroing gradient slots before
each replay.

Opcode semantics (the reference interpreter in `vm/reference.py` is their definition):
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class Program:
    """A lowered backward, ready to replay.

    `seeds` are (offset, size) of each root's gradient slot; `outputs` (tensor, offset,
    shape, kind) say where results are read after a run: kind is 'leaf' (accumulate into
    .grad), 'retain' (overwrite a non-leaf's retained grad) or 'target' (returned by grad()).
    """

    code: np.ndarray                  # (n_instr, WIDTH) int64
    arena: np.ndarray                 # float32 or float64, 1-D
    itab: np.ndarray                  # int64, 1-D
    consts: np.ndarray                # same dtype as arena
    seeds: list[tuple[int, int]]
    outputs: list[tuple[Any, int, tuple[int, ...], str]]
    node_names: list[str] = field(default_factory=list)   # which op each instruction serves
    segments: list[tuple[int, int, Any]] = field(default_factory=list)  # hooks, see hooks.py
    nodes: list = field(default_factory=list)    # tape nodes covered (freed together)
    pinned: frozenset | None = None   # (offset, size) of slots segment callbacks touch
    # values read in place (external.py), by the itab position of their address: arena
    # offset -> position; position -> element count, the array bound there (kept alive while
    # bound) and the Program's own copy for values not laid out as the slot
    ext_pos: dict = field(default_factory=dict)
    ext_size: dict = field(default_factory=dict)
    ext_keep: dict = field(default_factory=dict)
    ext_private: dict = field(default_factory=dict)

    @property
    def has_callbacks(self) -> bool:
        """True when Python callbacks (hooks, PyLayer backwards) run between segments.

        Such a Program must run through `vm.run`, and optimisation passes must leave the
        slots in `pinned` in place (the lowering sets it whenever it adds callbacks; None
        with segments means "unknown": leave the Program alone).
        """
        return bool(self.segments)

    def extend_itab(self, count: int) -> int:
        """Append `count` zeroed int-table words (addresses set later); returns the first."""
        first = len(self.itab)
        self.itab = np.concatenate([self.itab, np.zeros(count, np.int64)])
        return first

    @property
    def dtype(self) -> np.dtype:
        return self.arena.dtype

    def __len__(self) -> int:
        return int(self.code.shape[0])

    def text(self) -> str:
        """One readable line per instruction, in execution order."""
        lines = [f"# program: {len(self)} instructions, arena {self.arena.size} x "
                 f"{self.arena.dtype}, itab {self.itab.size}, consts {self.consts.size}"]
        for off, n in self.seeds:
            lines.append(f"# seed  -> [{off}:{off + n}]")
        breaks: dict[int, list] = {}
        for _, stop, callback in self.segments:
            if callback is not None:
                breaks.setdefault(stop, []).append(callback)
        for pc, row in enumerate(self.code):
            for callback in breaks.get(pc, ()):
                lines.append(f"     CALLBACK       {callback!r}")
            op, acc = NAMES[int(row[0]) >> 1], "+=" if row[0] & 1 else "= "
            _, out, a, b, c, n, p, k = (int(v) for v in row)
            who = self.node_names[pc] if pc < len(self.node_names) else ""
            out, a, b, c = (operand_text(v) for v in (out, a, b, c))
            lines.append(f"{pc:4d} {op:<14} out[{out}] {acc} a[{a}] b[{b}] c[{c}] n={n} "
                         f"p={p} K={self.consts[k]:g}   # {who}")
        for callback in breaks.get(len(self), ()):
            lines.append(f"     CALLBACK       {callback!r}")
        for t, off, shape, kind in self.outputs:
            lines.append(f"# {kind:<6} <- [{off}:{off + int(np.prod(shape))}] shape {list(shape)}")
        return "\n".join(lines)
