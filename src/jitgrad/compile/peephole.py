"""Peephole passes over a freshly lowered Program (switch off with JITGRAD_NO_PEEPHOLE=1).

`optimize` runs six passes; the two that rename and fuse rows live here, a convolution's
per-sample split in interleave.py, the three that lay out slots in slot_layout.py, and the
indexes they all query in slot_index.py.

1. Slot aliasing (here): `X = G` (AXPY, K=1, overwrite) followed only by reads of X becomes
   a rename of X to G: the copy disappears (add's and reshape's gradients are identities).
2. Chain fusion (here): a run of elementwise gradient steps where each intermediate gradient
   is written once and read once by the next step becomes one CHAIN superinstruction. It
   walks the chain tile by tile (`TILE` elements stay in L1), so a long chain on a big vector
   reads each saved forward value once and writes the result once, instead of writing and
   re-reading every intermediate gradient. The steps evaluate the same float expressions in
   the same order as the unfused kernels, so results are bitwise identical.
3. Per-sample convolution gradients (interleave.py): a batched column-gradient GEMM and the
   COL2IM reading it become a GEMM and a COL2IM per sample through one sample's columns
   (per block of its channels, for OpenBLAS's small-matrix kernel, when the GEMM allows).
4. Dead-slot reuse (slot_layout.py): a big gradient slot takes the place of one that is dead
   by its first write (an MLP's activation gradients share two buffers).
5. Compaction (slot_layout.py): slots nothing references any more leave the arena; lower()
   places the saved values only afterwards, so the larger first layout never costs memory.
6. Owned leaf gradients (slot_layout.py): when one row writes a leaf's gradient slot, it
   accumulates through an itab address, which a binding points at the leaf's `.grad` array
   (binding.py).

Safety rules: a slot is touched only when every instruction field pointing into it is
accounted for (an unknown opcode referencing it blocks the pass), seeds, outputs and the
Program's `pinned` slots are never renamed or fused away, a Program with hook segments but
no `pinned` set is left alone (hooks read and write gradient slots from Python), chains do
not straddle a callback, and passes 3-6 skip Programs with callbacks.
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from ..core import config
# the opcode sets the passes rely on come from the one table
from ..vm.opcodes import ELEMENTWISE, K_FIRST, READERS, STEP_OPERANDS
from ..vm.program import NAMES, OP, Program
from .slot_index import _Refs, _intervals, _overlaps, _write_spans
from .interleave import interleave_col2im
from .slot_layout import compact, own_leaf_grads, reuse_slots

# elements per CHAIN tile (1 KB of float32). A tile walks every step before the next, so
# a small tile keeps all the chain's operand streams advancing together, which the hardware
# prefetchers follow like one fused loop; with 2048 each step read an 8 KB run of one
# operand at a time, and W3 (12 operands of 16 MB) ran ~25% slower (perf/README.md).
TILE = 256

AXPY, BCAST = OP["AXPY"], OP["BCAST"]


def enabled() -> bool:
    return config.SETTINGS.peephole


def optimize(prog: Program, backward: bool = True) -> Program:
    """Run the passes in place (and return the Program) unless disabled or unsafe."""
    if not enabled() or len(prog) == 0:
        return prog
    pinned = getattr(prog, "pinned", None)
    if prog.segments and pinned is None:
        return prog
    protected = _protected(prog, pinned)
    # with callbacks, a renamed source must not be a slot they touch, and a chain must not
    # straddle a callback (it would move work across it)
    avoid = protected[len(prog.seeds) + len(prog.outputs):] if prog.segments else []
    cuts = sorted({stop for _, stop, cb in prog.segments if cb is not None})
    alias(prog, protected, avoid)
    fuse_chains(prog, protected, cuts)
    if not prog.segments:
        fuse_scalar_grads(prog, protected)
    if not prog.segments:
        interleave_col2im(prog, protected)
        reuse_slots(prog, protected)
        compact(prog)
    if backward and not prog.segments:
        own_leaf_grads(prog)
    return prog


def _protected(prog: Program, pinned) -> list[tuple[int, int]]:
    rng = [(off, off + max(n, 1)) for off, n in prog.seeds]
    for _, off, shape, _ in prog.outputs:
        rng.append((off, off + max(math.prod(shape), 1)))
    for s in pinned or ():
        off, n = (s, 1) if isinstance(s, (int, np.integer)) else (s[0], s[1])
        rng.append((int(off), int(off) + max(int(n), 1)))
    return rng


def _intermediate(code: np.ndarray, refs: _Refs, w: int, protected, fuse: bool
                  ) -> list | None:
    """If row w overwrites a plain slot X that only later rows read (same-size elementwise
    rows when `fuse`, any core opcode otherwise), return those (row, field) reads."""
    op, acc, x, n = int(code[w, 0]) >> 1, int(code[w, 0]) & 1, int(code[w, 1]), int(code[w, 5])
    if op not in STEP_OPERANDS and op != BCAST or acc or n <= 0:
        return None
    if _overlaps(x, x + n, protected) or refs.interior(x, x + n):
        return None
    reads = []
    for r, f in refs.at.get(x, ()):
        if r == w and f == 1:
            continue
        rop = int(code[r, 0]) >> 1
        if f == 1 or r < w or rop not in READERS:
            return None
        if fuse and (rop not in ELEMENTWISE or int(code[r, 5]) != n):
            return None
        if rop in STEP_OPERANDS and f - 2 > STEP_OPERANDS[rop]:
            return None             # a field the opcode does not read: not a real use
        reads.append((r, f))
    return reads


# ---- 1. aliasing ---------------------------------------------------------------------------

def alias(prog: Program, protected: list, avoid: list | None = None) -> int:
    """Drop identity copies X = G by renaming X to G; returns how many were dropped."""
    code = prog.code
    refs = _Refs(code)
    protected = _intervals(protected)
    avoid = _intervals(avoid) if avoid else None
    # rows' write ranges as they are now: a rename below rewrites row w's out only after
    # its own query, and later queries look at rows after it
    writes = _write_spans(code)
    end = code.shape[0]
    consts = prog.consts
    drop = []
    for w in np.nonzero(code[:, 0] == AXPY << 1)[0].tolist():
        if consts[int(code[w, 7])] != 1:
            continue
        x, g, n = int(code[w, 1]), int(code[w, 2]), int(code[w, 5])
        if g == x or (avoid is not None and _overlaps(g, g + n, avoid)):
            continue
        reads = _intermediate(code, refs, w, protected, fuse=False)
        if reads is None or writes.any_row_in(g, g + n, w + 1, end):
            continue
        for r, f in reads:
            code[r, f] = g
            refs.at.setdefault(g, []).append((r, f))
        refs.at[x] = [(w, 1)]
        code[w, 1] = code[w, 2] = g          # neutralised now, dropped below
        drop.append(w)
    _delete_rows(prog, drop)
    return len(drop)


# ---- 2. chain fusion -----------------------------------------------------------------------

def fuse_chains(prog: Program, protected: list, cuts: list | None = None) -> int:
    """Replace each maximal single-use elementwise chain by one CHAIN row."""
    code = prog.code
    refs = _Refs(code)
    protected = _intervals(protected)
    writes = _write_spans(code)          # (the rows change only once the chains are known)
    between = writes.any_row_in
    cuts = sorted(cuts) if cuts else cuts
    nxt: dict[int, int] = {}             # row -> the one row reading its output as `a`
    for w in range(code.shape[0]):
        reads = _intermediate(code, refs, w, protected, fuse=True)
        if reads is None or len(reads) != 1:
            continue
        r, f = reads[0]
        if f == 2 and int(code[r, 0]) >> 1 in STEP_OPERANDS:
            nxt[w] = r
    heads = set(nxt) - set(nxt.values())
    chains = []
    for h in sorted(heads):
        rows = [h]
        while rows[-1] in nxt:
            rows.append(nxt[rows[-1]])
        src = int(code[h, 2])
        n = int(code[h, 5])
        src_n = 1 if int(code[h, 0]) >> 1 == BCAST else n
        if between(src, src + src_n, h + 1, rows[-1]) or any(
                between(int(code[r, f]), int(code[r, f]) + n, r + 1, rows[-1])
                for r in rows for f in (3, 4)[:STEP_OPERANDS.get(int(code[r, 0]) >> 1, 0)]):
            rows = [h]               # an input changes before the end: keep it unfused
        if cuts:                     # a cut c with h < c <= last (cuts are sorted)
            i = bisect_left(cuts, h + 1)
            if i < len(cuts) and cuts[i] <= rows[-1]:
                continue
        if len(rows) >= 2:
            chains.append(rows)
    if not chains:
        return 0
    itab = [prog.itab]
    itab_size = prog.itab.size
    drop = []
    for rows in chains:
        h, last = rows[0], rows[-1]
        steps = []
        for r in rows:
            op = int(code[r, 0]) >> 1
            k = int(code[r, 7])
            if op in (BCAST, AXPY) and prog.consts[k] == 1:
                continue                     # v = 1 * v: exact, nothing to do
            if op == BCAST:
                steps.append((AXPY, 0, 0, k))
            elif (op in K_FIRST and prog.consts[k] == 1 and steps
                  and steps[-1][0] == AXPY):
                # v = K1 * v, then v = 1 * v * B: one step v = K1 * v * B, the same
                # roundings ((K1 * v) * B), one pass over the tile less
                steps[-1] = (op, int(code[r, 3]), int(code[r, 4]), steps[-1][3])
            else:
                steps.append((op, int(code[r, 3]), int(code[r, 4]), k))
        scalar = int(int(code[h, 0]) >> 1 == BCAST)
        table = np.array([len(steps), scalar] + [v for s in steps for v in s], np.int64)
        p = itab_size
        itab.append(table)
        itab_size += table.size
        acc = int(code[last, 0]) & 1
        if prog.node_names:                  # the fused row names every step it serves
            prog.node_names[last] = "fused: " + " > ".join(
                f"{NAMES[int(code[r, 0]) >> 1]} {prog.node_names[r]}" for r in rows)
        # c repeats a: the kernel tiles through a buffer of its own, so the intermediate
        # slots are all dead and compaction drops them
        code[last] = [OP["CHAIN"] << 1 | acc, code[last, 1], code[h, 2], 0, code[h, 2],
                      code[h, 5], p, 0]
        drop.extend(rows[:-1])
    prog.itab = np.ascontiguousarray(np.concatenate(itab), dtype=np.int64)
    _delete_rows(prog, drop)
    return len(chains)


# ---- 2b. a broadcast scalar read by a row kernel ---------------------------------------------

SCALAR_READERS = (OP["SOFTMAX_BWD"], OP["LOGSOFTMAX_BWD"])   # itab[p+3]: g is K * a[0]


def fuse_scalar_grads(prog: Program, protected: list) -> int:
    """A BCAST row (X = K * a[0], n elements) whose X only a SOFTMAX_BWD or LOGSOFTMAX_BWD
    row reads, as its gradient: that row reads K * a[0] itself (a table of its own with
    itab[p+3] = 1) and the BCAST goes, X with it (compaction); contiguous rows (inner 1)
    only, whose kernel loop gives the unfused row's bits. `softmax(x).sum()`'s
    backward wrote a 1M ones array and read it back (~0.1 ms of a 1000 x 1000 step). For
    Programs without callbacks only."""
    code = prog.code
    refs = _Refs(code)
    protected = _intervals(protected)
    writes = _write_spans(code)
    fused = []
    for w in np.nonzero((code[:, 0] >> 1) == BCAST)[0]:
        reads = _intermediate(code, refs, int(w), protected, fuse=False)
        if reads is None or len(reads) != 1:
            continue
        r, f = reads[0]
        src = int(code[w, 2])
        if (f != 2 or int(code[r, 0]) >> 1 not in SCALAR_READERS
                or int(code[r, 5]) != int(code[w, 5]) or int(code[r, 3]) == int(code[w, 1])
                or prog.itab[int(code[r, 6]) + 2] != 1      # (contiguous rows only)
                or writes.any_row_in(src, src + 1, int(w) + 1, r)):
            continue
        fused.append((int(w), r))
    if not fused:
        return 0
    itab = [prog.itab]
    size = prog.itab.size
    for w, r in fused:
        p = int(code[r, 6])
        table = np.array([*prog.itab[p:p + 3], 1], np.int64)
        itab.append(table)
        code[r, 2], code[r, 6], code[r, 7] = code[w, 2], size, code[w, 7]
        size += table.size
        if prog.node_names:
            prog.node_names[r] = f"fused: BCAST {prog.node_names[w]} > {prog.node_names[r]}"
    prog.itab = np.ascontiguousarray(np.concatenate(itab), dtype=np.int64)
    _delete_rows(prog, [w for w, _ in fused])
    return len(fused)


# ---- helpers -------------------------------------------------------------------------------

def _delete_rows(prog: Program, rows: list[int]) -> None:
    if not rows:
        return
    keep = np.ones(prog.code.shape[0], dtype=bool)
    keep[rows] = False
    prog.code = np.ascontiguousarray(prog.code[keep])
    if prog.node_names:
        prog.node_names = [n for n, k in zip(prog.node_names, keep) if k]
    if prog.segments:                        # instruction ranges shift with deleted rows
        before = np.concatenate([[0], np.cumsum(~keep)])
        prog.segments = [(int(s - before[s]), int(e - before[e]), cb)
                         for s, e, cb in prog.segments]
