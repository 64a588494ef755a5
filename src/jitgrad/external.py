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

import os

import numpy as np

from .lower_opt import STEP_OPERANDS
from .program import EXT, EXT_OPERANDS, OP, Program

MIN_ELEMENTS = 16384          # 64 KB of float32: below this a copy is cheaper than an address

_GEMM, _SUM, _SCATTER = OP["GEMM"], OP["SUM"], OP["SCATTER"]
_CHAIN, _COL2IM, _POOL = OP["CHAIN"], OP["COL2IM"], OP["POOL_BWD"]
_WIDE = [_CHAIN, _SCATTER, _GEMM, _COL2IM, _POOL]
# every field a row may read, by opcode (a reader not listed here is unknown: it blocks)
_READS: dict[int, tuple[int, ...]] = {OP[n]: cols for n, cols in (
    ("ZERO", ()), ("AXPY", (2,)), ("DIVK", (2,)), ("SUM", (2,)), ("BCAST", (2,)),
    ("GATHER", (2,)), ("SCATTER", (2,)), ("CUMSUM", (2,)), ("ROWSUM", (2,)),
    ("COL2IM", (2,)), ("CHAIN", (2,)), ("MUL", (2, 3)), ("DIV", (2, 3)),
    ("TANH_BWD", (2, 3)), ("SIGMOID_BWD", (2, 3)), ("RELU_BWD", (2, 3)),
    ("GATHER_MUL", (2, 3)), ("GEMM", (2, 3)), ("SOFTMAX_BWD", (2, 3)),
    ("LOGSOFTMAX_BWD", (2, 3)), ("LINSCAN", (2, 3)), ("POOL_BWD", (2, 3)),
    ("MULDIV", (2, 3, 4)), ("ROUND", (2,)))}


def enabled() -> bool:
    return os.environ.get("JITGRAD_COPY_VALUES", "") in ("", "0")


def _write_extent(prog: Program, row: np.ndarray) -> int:
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


def place(prog: Program, values: list) -> None:
    """Decide which values (arena offset, array, slot shape) rows read in place, rewrite
    their operands to external ones, and bind those to the arrays; copy the others."""
    candidates = [(off, v, shape) for off, v, shape in values
                  if int(np.prod(shape, dtype=np.int64)) >= MIN_ELEMENTS]
    if not candidates or not enabled() or prog.segments:
        for off, v, shape in values:
            _copy(prog, off, v, shape)
        return
    code = prog.code
    ops = code[:, 0] >> 1
    outs = code[:, 1]
    ext = {}
    for off, v, shape in candidates:
        n = int(np.prod(shape, dtype=np.int64))
        if _readable_in_place(prog, code, ops, outs, off, n):
            ext[off] = n
    if ext:
        base = prog.extend_itab(len(ext))
        for j, (off, n) in enumerate(sorted(ext.items())):
            pos = base + j
            prog.ext_pos[off] = pos
            prog.ext_size[pos] = n
            for col in (2, 3, 4):
                field = code[:, col]
                hit = (field >= off) & (field < off + n)
                field[hit] = EXT + (pos << 32) + (field[hit] - off)
    for off, v, shape in values:
        pos = prog.ext_pos.get(off)
        if pos is None:
            _copy(prog, off, v, shape)
        else:
            bind(prog, pos, v, shape)


def _readable_in_place(prog: Program, code: np.ndarray, ops: np.ndarray, outs: np.ndarray,
                       off: int, n: int) -> bool:
    """True when no row writes into [off, off+n) and every row reading it does so through
    a field that resolves external operands."""
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
        if op == _CHAIN:                      # its steps' operands live in the itab
            it, p = prog.itab, int(row[6])
            for s in range(int(it[p])):
                q = p + 2 + 4 * s
                used = STEP_OPERANDS.get(int(it[q]))
                if used is None:
                    return False
                if any(off <= int(it[q + 1 + j]) < hi for j in range(used)):
                    return False
    return True


def _copy(prog: Program, off: int, v: np.ndarray, shape: tuple) -> None:
    n = int(np.prod(shape, dtype=np.int64))
    prog.arena[off:off + n].reshape(shape)[...] = v


def bind(prog: Program, pos: int, v: np.ndarray, shape: tuple) -> None:
    """Point the external operand at itab[pos] to the value `v` (in the slot's `shape`):
    its own memory when that is C-contiguous in the arena's dtype with the slot's size,
    else a private copy the Program keeps. The Program holds `v` until the next bind."""
    if not (v.dtype == prog.arena.dtype and v.size == prog.ext_size[pos] and
            v.flags.c_contiguous):
        own = prog.ext_private.get(pos)
        if own is None:
            own = prog.ext_private[pos] = np.empty(shape, prog.arena.dtype)
        own[...] = v
        v = own
    prog.ext_keep[pos] = v
    prog.itab[pos] = v.ctypes.data
