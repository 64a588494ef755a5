"""The lowered backward: opcodes, the instruction layout and the Program data structure.

An instruction is one row of 8 int64 words::

    [op << 1 | acc, out, a, b, c, n, p, k]

`out`, `a`, `b`, `c` are offsets into one flat float arena (saved forward values, gradient
slots and temporaries), except that an operand at or above `EXT` reads memory outside it
(a large saved value where the forward left it, see external.py): `e = operand - EXT`,
`itab[e >> 32]` holds the address of that array's first element, `e & 0xFFFFFFFF` is the
element offset into it. Only the operands listed in `EXT_OPERANDS` may be external, and the
`out` of an owned leaf gradient's one writer row (slot_layout.own_leaf_grads), whose address
a binding points at the leaf's `.grad` array. `n` is the element count; `p` an offset into
the int table `itab` (index maps, shapes); `k` an index into `consts`. With `acc` set the
kernel adds into `out`, otherwise it overwrites it, which saves zeroing gradient slots before
each replay.

Opcode semantics: opcodes.py, one record each (the reference interpreter in
`vm/reference.py` implements them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .opcodes import EXT_OPERANDS, NAMES, OP, OPCODES  # noqa: F401  (the one table)

WIDTH = 8

EXT = 1 << 62                     # operands from here on are external (see above)
EXT_LOW = (1 << 32) - 1           # the element-offset bits of an external operand


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
    callbacks: tuple = ()             # callback specs (compile/hook_calls.py, compile/node_call.py)
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
