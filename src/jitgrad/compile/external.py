"""Large saved values read where the forward left them, instead of copied into the arena.

Why: a training step that builds a new graph each time (W5b) rebinds its cached Program
to the new forward values; copying 2.6 MB of activations and weights into the arena cost
~0.2 ms of a 6 ms step, and a first backward copied every saved value once. A value that
only plain operands read (program.EXT_OPERANDS) is instead addressed through the itab: the
rows read `itab[pos]`'s address, and a rebind writes one address (~1 us) per value.

Small values are still copied: taking an address costs more than copying a few KB, and the
arena keeps them together. JITGRAD_COPY_VALUES=1 copies every value (the old layout).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from ..core import config
from .slot_index import _Spans
from ..vm.opcodes import READS, STEP_OPERANDS, WIDE, chain_steps
from ..vm.program import EXT, EXT_OPERANDS, OP

MIN_ELEMENTS = 16384          # 64 KB of float32: below this a copy is cheaper than an address

_GEMM, _SUM, _SCATTER = OP["GEMM"], OP["SUM"], OP["SCATTER"]
_CHAIN, _COL2IM, _POOL = OP["CHAIN"], OP["COL2IM"], OP["POOL_BWD"]
_WIDE = sorted(WIDE)           # rows that may touch a value from a field outside it
_READS = READS                 # every field a row may read, by opcode


_from_buffer, _addressof = ctypes.c_char.from_buffer, ctypes.addressof


def address(a: np.ndarray) -> int:
    """The address of an array's first element. Why not __array_interface__: it builds a
    dict per call (~1 us, twice in a small graph's first backward, which points its leaves'
    new .grad arrays); a ctypes view of a writable contiguous buffer costs a fifth."""
    try:
        return _addressof(_from_buffer(a))
    except Exception:       # read-only, not contiguous or empty: no writable buffer
        return a.__array_interface__["data"][0]


def enabled() -> bool:
    return not config.SETTINGS.copy_values


def _write_extent(prog: Any, row: np.ndarray) -> int:
    """How many elements from `row`'s out field it may write."""
    op, n, p = int(row[0]) >> 1, int(row[5]), int(row[6])
    it = prog.itab
    if op == _SUM:
        return 1
    if op == _GEMM:
        nb, m, nn, sc = int(it[p]), int(it[p + 1]), int(it[p + 2]), int(it[p + 8])
        return (nb - 1) * sc + m * nn
    if op == _SCATTER:
        return int(it[p:p + n].max()) + 1 if n else 0
    if op in (_COL2IM, _POOL):
        return int(np.prod(it[p:p + 4]))
    return n


def place(prog: Any, values: list) -> tuple[list, list]:
    """Split the values (arena offset, slot shape, source, this graph's array) into those
    a binding copies into the arena, (offset, shape, source, source shape), and those rows
    read in place, (itab position, shape, source, source shape): large ones whose every
    reader resolves external operands. Rewrites the readers' operand fields to external
    ones. (The source shape is that of the array the rule handed over: a reshaped view of
    the source, found by its memory.)"""
    copied = [(off, shape, src, tuple(arr.shape)) for off, shape, src, arr in values]
    candidates = [(off, shape) for off, shape, _, _ in values
                  if math.prod(shape) >= MIN_ELEMENTS]
    if not candidates or not enabled() or prog.segments:
        return copied, []
    code = prog.code
    ops = code[:, 0] >> 1
    outs = code[:, 1]
    ext = {}
    index = _ReadIndex(prog, code, ops, outs)     # one pass over the rows for all values
    for off, shape in candidates:
        n = math.prod(shape)
        if index.readable(off, n):
            ext[off] = n
    if not ext:
        return copied, []
    base = prog.extend_itab(len(ext))
    items = sorted(ext.items())
    _make_external(code, items, base)
    _make_external_steps(prog.itab, _step_positions(prog.itab, code, ops), items, base)
    positions = {off: base + j for j, (off, _) in enumerate(items)}
    externals = [(positions[off], shape, src, vshape) for off, shape, src, vshape in copied
                 if off in positions]
    return [v for v in copied if v[0] not in positions], externals


def _make_external(code: np.ndarray, items: list, base: int) -> None:
    """Rewrite every operand (fields a, b, c) inside the value at items[j] = (offset, n)
    to external operand j + base (_externalized)."""
    for col in (2, 3, 4):
        code[:, col] = _externalized(code[:, col], items, base)


def _externalized(field: np.ndarray, items: list, base: int) -> np.ndarray:
    """The operands in `field` with each inside the value at items[j] = (offset, n)
    rewritten to external operand j + base. The values' ranges are disjoint slots, so each
    operand falls in at most one: one sorted lookup, where a pass over the operands per
    value was quadratic in a graph with many large values. Overlapping ranges (not made by
    the lowering) take the pass per value, in order, as before."""
    field = field.copy()
    offs = np.array([off for off, _ in items], dtype=np.int64)
    ends = offs + np.array([n for _, n in items], dtype=np.int64)
    if np.any(offs[1:] < ends[:-1]):
        for j, (off, n) in enumerate(items):
            hit = (field >= off) & (field < off + n)
            field[hit] = EXT + ((base + j) << 32) + (field[hit] - off)
        return field
    tags = EXT + (np.arange(base, base + len(items), dtype=np.int64) << 32)
    j = np.searchsorted(offs, field, side="right") - 1
    jj = np.maximum(j, 0)
    hit = (j >= 0) & (field < ends[jj])
    field[hit] = tags[jj[hit]] + (field[hit] - offs[jj[hit]])
    return field


def _step_positions(itab: np.ndarray, code: np.ndarray, ops: np.ndarray) -> np.ndarray:
    """The itab positions holding CHAIN steps' operands (the fields b, c each step reads)."""
    steps: list = []
    for r in np.nonzero(ops == _CHAIN)[0].tolist():
        for q in chain_steps(itab, int(code[r, 6])):
            steps.extend(range(q + 1, q + 1 + STEP_OPERANDS.get(int(itab[q]), 0)))
    return np.array(steps, dtype=np.int64)


def _make_external_steps(itab: np.ndarray, positions: np.ndarray, items: list,
                         base: int) -> None:
    """_make_external for CHAIN steps' operands, which live in the itab (at `positions`)."""
    if positions.size:
        itab[positions] = _externalized(itab[positions], items, base)


class _ReadIndex:
    """`_readable_in_place` for every value of a Program at once: the rows are read once,
    and each value's answer takes a few bisections (a pass over every row, and a Python
    loop over every wide row, per value made place() quadratic in a wide graph).

    The per-value scan fails on a row that (1) has a field in the value's range and an
    opcode `_READS` does not know, (2) is a wide row, or has a field in the range, and
    writes into the range, (3) reads the range through a field without external operands,
    (4) is a CHAIN with a step the table does not know (whatever the value). Each is a
    sorted-values or write-range lookup below. A CHAIN step's operands (in the itab:
    _step_positions) are read through views that resolve external operands.
    """

    def __init__(self, prog: Any, code: np.ndarray, ops: np.ndarray,
                 outs: np.ndarray) -> None:
        fields = code[:, 1:5]
        known = np.isin(ops, list(_READS))
        wide = np.isin(ops, _WIDE)
        # (1) every field of the rows whose opcode is unknown
        self.unknown = np.sort(fields[~known], axis=None)
        # (2) every row's out; the wide rows' write ranges; the other rows' write ranges,
        # whose fields decide whether they are looked at
        self.outs = np.sort(outs)
        rows = np.nonzero(wide)[0].tolist()
        lo = [int(outs[r]) for r in rows]
        hi = [o + max(_write_extent(prog, code[r]), 1) for o, r in zip(lo, rows)]
        self.wide = _Spans(lo, hi, rows)
        plain = np.nonzero(known & ~wide)[0]
        extent = np.where(ops[plain] == _SUM, 1, code[plain, 5])
        o = outs[plain]
        self.plain = _Spans(o, o + np.maximum(extent, 1), plain)
        self.code = code
        # (3) fields read by an opcode that does not resolve external operands there
        bad = []
        for op in np.unique(ops[known]).tolist():
            for col in _READS[op]:
                if op not in EXT_OPERANDS[col]:
                    bad.append(code[ops == op, col])
        self.bad_reads = np.sort(np.concatenate(bad)) if bad else np.zeros(0, np.int64)
        # (4) CHAIN steps the table does not know
        it = prog.itab
        self.chain_blocks = any(int(it[q]) not in STEP_OPERANDS
                                for p in code[ops == _CHAIN, 6].tolist()
                                for q in chain_steps(it, p))

    def readable(self, off: int, n: int) -> bool:
        hi = off + n
        if self.chain_blocks:
            return False
        for values in (self.unknown, self.outs, self.bad_reads):
            i = int(np.searchsorted(values, off))
            if i < values.size and int(values[i]) < hi:
                return False
        for _ in self.wide.overlapping(off, hi):
            return False
        # a plain row starting below the range and writing into it, when it has an
        # operand in the range (rows with their out in it were refused above)
        for g in self.plain.overlapping(off, hi):
            for r in self.plain.group_rows(g):
                row = self.code[r]
                if any(off <= int(row[col]) < hi for col in (2, 3, 4)):
                    return False
        return True


def _readable_in_place(prog: Any, code: np.ndarray, ops: np.ndarray, outs: np.ndarray,
                       off: int, n: int) -> bool:
    """True when no row writes into [off, off+n) and every row reading it does so through
    a field that resolves external operands. (place() asks _ReadIndex, built once for all
    values, which gives the same answers; this is the scan it replaces.)"""
    hi = off + n
    # rows with a field in the range, and those that may touch it from a field outside it
    # (itab operands, writes longer than n)
    near = np.nonzero(((code[:, 1:5] >= off) & (code[:, 1:5] < hi)).any(axis=1) |
                      np.isin(ops, _WIDE))[0]
    for r in near:
        row = code[r]
        op = int(ops[r])
        cols = _READS.get(op)
        if cols is None:
            return False
        o = int(outs[r])
        if o < hi and o + max(_write_extent(prog, row), 1) > off:
            return False
        for col in cols:
            v = int(row[col])
            if off <= v < hi and op not in EXT_OPERANDS[col]:
                return False
        if op == _CHAIN:                      # its steps' operands live in the itab,
            it, p = prog.itab, int(row[6])      # read through views (external or not)
            for q in chain_steps(it, p):
                if int(it[q]) not in STEP_OPERANDS:
                    return False
    return True
