"""The numpy reference interpreter: a loop over the opcode table's reference functions.

Plain and slow on purpose: each opcode's numpy definition is in its record (opcodes.py),
and the compiled interpreter must agree with it on every Program; tests run both. Set
JITGRAD_VM=reference to use it everywhere (debugging, coverage).
"""

from __future__ import annotations

import ctypes

import numpy as np

from .opcodes import BY_CODE, NAMES
from .program import EXT, EXT_LOW


def _view(arena: np.ndarray, itab: np.ndarray, off: int, n: int) -> np.ndarray:
    """The n-element operand at field value `off`: an arena slice, or for an external
    operand (program.EXT) the memory at the address itab holds (writable: an owned leaf
    gradient's row writes through one)."""
    if off < EXT:
        return arena[off:off + n]
    e = off - EXT
    if n == 0:
        return arena[:0]
    address = int(itab[e >> 32]) + (e & EXT_LOW) * arena.itemsize
    buf = (ctypes.c_char * (n * arena.itemsize)).from_address(address)
    return np.frombuffer(buf, arena.dtype, n)


class Row:
    """One instruction as a reference function sees it: the operand fields (o, a, b, c),
    n, the itab position p, K = consts[k], the acc bit, and views of the operands."""

    def __init__(self, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
                 row: np.ndarray) -> None:
        opacc, self.o, self.a, self.b, self.c, self.n, self.p, k = (int(v) for v in row)
        self.arena, self.itab, self.consts = arena, itab, consts
        self.acc, self.K = bool(opacc & 1), consts[k]

    def view(self, off: int, n: int) -> np.ndarray:
        return _view(self.arena, self.itab, off, n)

    def params(self, count: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.itab[self.p:self.p + count])

    @property
    def A(self) -> np.ndarray:
        return self.view(self.a, self.n)

    @property
    def B(self) -> np.ndarray:
        return self.view(self.b, self.n)

    @property
    def C(self) -> np.ndarray:
        return self.view(self.c, self.n)

    @property
    def out(self) -> np.ndarray:
        return self.view(self.o, max(self.n, 1))     # (SUM writes one element whatever n is)

    @property
    def idx(self) -> np.ndarray:
        return self.itab[self.p:self.p + self.n]


def run(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
        start: int = 0, stop: int = -1) -> int:
    """Execute instructions start..stop-1 (all by default) in order; returns 0.

    inf and nan results are silent, as in the compiled interpreter (and in Paddle).
    """
    stop = code.shape[0] if stop < 0 else stop
    with np.errstate(all="ignore"):
        for pc in range(start, stop):
            op = int(code[pc, 0]) >> 1
            record = BY_CODE.get(op)
            if record is None:
                raise NotImplementedError(f"reference VM has no opcode {NAMES.get(op, op)}")
            r = Row(arena, itab, consts, code[pc])
            val = record.value(r.K, r.A, r.B, r.C) if record.value is not None else record.ref(r)
            if val is None:
                continue
            out = r.out
            if r.acc:
                out[:r.n] += val
            else:
                out[:r.n] = val
    return 0
