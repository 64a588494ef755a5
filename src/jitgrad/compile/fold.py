"""Folded replays: a retained graph replayed with new seeds reads one vector per fused chain.

A backward is linear in its seed, and a fused elementwise chain (a CHAIN row, peephole.py)
is diagonal: out (+)= a * D, where D is the chain applied to ones. Its factors are saved
forward values, fixed for as long as the graph is retained and unchanged, so a retained
Binding can compute D once and replace the chain by one multiplication: W3's 20-op chain
on 4M elements then reads the seed and D instead of 13 vectors.

Rounding: a * (b1 * b2 * ...) is not (a * b1) * b2 * ... in the last bits (float32: a few
ulps over a 20-step chain). `JITGRAD_EXACT_REPLAY=1` (config.exact_replay) keeps every
replay in the unfolded order. Folding is per Binding: any change to the graph (an in-place
write, a hook) drops the Binding (executor._retained), and with it D; a folded Workspace
never returns to the program cache.
"""

from __future__ import annotations

import numpy as np

from .. import vm
from .external import address
from ..vm.opcodes import NONLINEAR_STEPS, STEP_OPERANDS, chain_steps
from ..vm.program import EXT, OP

_CHAIN, _MUL = OP["CHAIN"], OP["MUL"]
_STEP_READS = STEP_OPERANDS       # CHAIN steps: how many of b, c each reads
# A chain is folded when a replay saves at least this many element steps (elements times
# steps beyond the one multiplication left): below it the saving is less than the fold's
# one-time bookkeeping repaid over a few replays. W2's 171-step chain on 64 elements saves
# ~1 us of a 2.6 us replay; W1's two-step chains on 32 elements stay as they are.
MIN_WORK = 4096


def plan(prog) -> list[int]:
    """The CHAIN rows that can be folded: every step operand is a saved value (bound once
    per graph, never written by a row), so D is fixed for the Binding."""
    code, itab = prog.code, prog.itab
    fixed = [(off, off + int(np.prod(shape, dtype=np.int64))) for off, shape, _, _ in
             prog.values] + [(off, off + arr.size) for off, _, arr in prog.literals]

    def is_fixed(v: int, n: int) -> bool:
        return v >= EXT or any(lo <= v and v + n <= hi for lo, hi in fixed)

    rows = []
    for r in np.nonzero((code[:, 0] >> 1) == _CHAIN)[0].tolist():
        n, p = int(code[r, 5]), int(code[r, 6])
        if n * (int(itab[p]) - 1) < MIN_WORK:
            continue
        ok = True
        for q in chain_steps(itab, p):
            op = int(itab[q])
            reads = _STEP_READS.get(op)
            # (a factor's arithmetic, 1 / (x * x + 1), is no product of a with D)
            if reads is None or op in NONLINEAR_STEPS or not all(
                    is_fixed(int(itab[q + 1 + j]), n) for j in range(reads)):
                ok = False
                break
        if ok:
            rows.append(r)
    return rows


def fold(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
         rows: list[int]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(folded code, extended itab, the D arrays to keep alive) for `rows`: each row's D
    computed now by running the row on ones, then the row rewritten to one MUL step
    reading D through an itab address (an external operand)."""
    code = code.copy()
    base = itab.size
    n_rows = len(rows)
    extra = np.zeros(n_rows * 7, np.int64)         # per row: D's address, then its table
    itab = np.concatenate([itab, extra])
    keep = []
    for j, r in enumerate(rows):
        n, a, scalar = int(code[r, 5]), int(code[r, 2]), int(itab[int(code[r, 6]) + 1])
        D = np.empty(n, arena.dtype)
        keep.append(D)
        pos = base + 7 * j
        itab[pos] = address(D)
        saved = arena[a:a + (1 if scalar else n)].copy()
        arena[a:a + (1 if scalar else n)] = 1
        once = code[r:r + 1].copy()
        once[0, 0] = _CHAIN << 1                   # overwrite: D = chain(ones)
        once[0, 1] = EXT + (pos << 32)
        vm.execute(once, arena, itab, consts)
        arena[a:a + (1 if scalar else n)] = saved
        t = pos + 1                                 # the folded table: one MUL by D, K = 1
        itab[t:t + 6] = [1, scalar, _MUL, EXT + (pos << 32), 0, 0]
        code[r, 6] = t
    return code, itab, keep
