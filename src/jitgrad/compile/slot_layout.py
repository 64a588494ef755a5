"""The slot layout passes of `peephole.optimize` (passes 3-5 of peephole.py's list): they
move, drop or hand out gradient slots once aliasing and fusion have rewritten the rows.

Why separate: they rewrite where values live (arena offsets, itab addresses), not which rows
run, and only on Programs without callbacks. The safety rules of peephole.py apply.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right

import numpy as np

from ..vm.opcodes import COMPACTABLE, ONE_ADD, READERS
from ..vm.program import EXT, OP, Program
from .slot_index import _Refs, _Spans, _intervals, _overlaps, _write_spans

ZERO = OP["ZERO"]


# ---- 3. dead-slot reuse ---------------------------------------------------------------------

REUSE_MIN = 4096      # elements: smaller slots cost no memory worth a remap


def reuse_slots(prog: Program, protected: list) -> int:
    """Give a big gradient slot the memory of one that is dead by its first write.

    The arena keeps its size, but the slots left without users are never touched, so their
    pages are never faulted in: the resident size follows the live gradients, as in an
    allocator that frees temporaries during the backward. Only slots whose every reference
    is an exact offset in a core opcode row take part.
    """
    code = prog.code
    ops = code[:, 0] >> 1
    if not set(int(o) for o in np.unique(ops)) <= READERS | {OP["CHAIN"]}:
        return 0
    refs = _Refs(code)
    keep = list(protected)
    for r in np.nonzero(ops == OP["CHAIN"])[0]:        # offsets inside CHAIN step tables
        p, n = int(code[r, 6]), int(code[r, 5])
        for st in range(int(prog.itab[p])):
            for off in prog.itab[p + 3 + 4 * st: p + 5 + 4 * st]:
                keep.append((int(off), int(off) + max(n, 1)))
    keep = _intervals(keep)
    slots = []
    for off, lst in refs.at.items():
        writes = [r for r, f in lst if f == 1]
        if not writes:
            continue
        n = max(int(code[r, 5]) for r in writes)
        first = min(r for r, _ in lst)
        if (n < REUSE_MIN or _overlaps(off, off + n, keep) or refs.interior(off, off + n)
                or int(code[first, 1]) != off or int(code[first, 0]) & 1
                or int(code[first, 5]) != n or ops[first] in (ZERO, OP["SCATTER"], OP["SUM"])
                or any(f == 1 and r == first for r, f in lst if r != first)):
            continue
        slots.append((first, max(r for r, _ in lst), off, n))
    slots.sort()
    moves = _pick_free(slots)
    for off, new in moves.items():
        for r, f in refs.at[off]:
            code[r, f] = new
    return len(moves)


def _pick_free(slots: list) -> dict:
    """Slot offset -> the offset it moves to. `slots` are (first use, last use, offset,
    size) sorted; a free list of [last use, offset, size] entries, in the order made, gives
    each slot the first entry of its size dead before its first use (moving that entry's
    last use up to the slot's), or takes the slot as a new entry.

    That scan is linear in the list per slot, so it is done per size with two heaps: the
    entries not yet dead (by last use) and those dead (by position in the list). Slots come
    by increasing first use, so a dead entry stays dead until picked: the first dead one by
    position is the scan's pick."""
    moves = {}
    pending: dict[int, list] = {}      # size -> heap of (last use, position, offset)
    dead: dict[int, list] = {}         # size -> heap of (position, offset)
    made = 0
    for first, last, off, n in slots:
        wait = pending.setdefault(n, [])
        ready = dead.setdefault(n, [])
        while wait and wait[0][0] < first:
            _, pos, at = heapq.heappop(wait)
            heapq.heappush(ready, (pos, at))
        if not ready:
            heapq.heappush(wait, (last, made, off))
            made += 1
            continue
        pos, at = heapq.heappop(ready)
        moves[off] = at
        heapq.heappush(wait, (last, pos, at))
    return moves


# ---- 4. compaction -------------------------------------------------------------------------

NO_OFFSETS_IN_ITAB = COMPACTABLE


def compact(prog: Program) -> int:
    """Drop the slots no instruction uses any more (fused-away and renamed gradients) from
    the arena: less memory (huge pages make any touched 2 MB region resident) and better
    locality. Returns how many elements were dropped. `prog.offset_map(off)` maps an old
    offset to its new place (the Builder's values are placed after this)."""
    starts = getattr(prog, "slot_starts", None)
    code = prog.code
    if not starts or prog.segments:
        return 0
    ops = code[:, 0] >> 1
    chain_rows = np.nonzero(ops == OP["CHAIN"])[0]
    if not set(int(o) for o in np.unique(ops)) <= NO_OFFSETS_IN_ITAB | {OP["CHAIN"]}:
        return 0
    starts = np.asarray(starts, dtype=np.int64)
    size = prog.arena.size
    ends = np.append(starts[1:], size)
    used = [code[:, 1:5].ravel(), np.array([o for o, _ in prog.seeds], np.int64),
            np.array([o for _, o, _, _ in prog.outputs], np.int64)]
    chain_refs = []
    for r in chain_rows:
        p = int(code[r, 6])
        for st in range(int(prog.itab[p])):
            chain_refs.extend((p + 3 + 4 * st, p + 4 + 4 * st))
    if chain_refs:
        used.append(prog.itab[chain_refs])
    idx = np.searchsorted(starts, np.concatenate(used), side="right") - 1
    live = np.zeros(starts.size, dtype=bool)
    live[idx[idx >= 0]] = True
    live[0] = True
    lengths = np.where(live, ends - starts, 0)
    new_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    total = int(lengths.sum())
    if total >= size:
        return 0

    def remap(v):
        i = np.searchsorted(starts, v, side="right") - 1
        return new_starts[i] + (v - starts[i])

    arena = np.zeros(max(total, 1), dtype=prog.arena.dtype)   # values: placed later
    prog.code[:, 1:5] = remap(code[:, 1:5])
    if chain_refs:
        prog.itab[chain_refs] = remap(prog.itab[chain_refs])
    prog.seeds = [(int(remap(o)), n) for o, n in prog.seeds]
    prog.outputs = [(t, int(remap(o)), shape, kind) for t, o, shape, kind in prog.outputs]
    prog.arena = arena
    prog.offset_map = _offset_map(starts.tolist(), new_starts.tolist())
    prog.slot_starts = None
    return size - total


def _offset_map(starts: list, new_starts: list):
    """compact's `remap` for one offset, by bisection over lists: lower() maps
    every saved value's offset through it, and a numpy call per
    offset cost more than the bisection (the same index, -1 included)."""
    def offset_map(off: int) -> int:
        i = bisect_right(starts, off) - 1
        return int(new_starts[i] + (off - starts[i]))
    return offset_map


# ---- 5. owned leaf gradients ---------------------------------------------------------------

SMALL_PROGRAM = 64          # rows: below this a numpy mask per query beats an index


def own_leaf_grads(prog: Program) -> int:
    """Let a leaf's gradient slot serve as its .grad: when exactly one row writes the slot
    (adding one value per element), that row accumulates instead of overwriting. Returns
    how many leaves qualify (`prog.owned_leaf_pos`: slot offset -> itab position).

    A GEMM accumulates as C = A@B + C, which BLAS may split over panels of the inner
    dimension; for inner sizes past a panel that rounds like (C + AB1) + AB2 rather than
    C + (AB1 + AB2): within float32 rounding of the general path, not bitwise."""
    code = prog.code
    if code.shape[0] <= SMALL_PROGRAM:
        return _own_small(prog)
    seeds = _intervals([(off, off + max(n, 1)) for off, n in prog.seeds])
    outs = code[:, 1]
    # per leaf: is any operand inside its slot, and which rows write into it. Sorted
    # operands and the rows' write ranges answer both by bisection; a scan of every row
    # per leaf made the lowering quadratic in the number of leaves.
    reads = np.sort(code[:, 2:5], axis=None)
    writes = None
    small = code.shape[0] <= SMALL_PROGRAM
    ends = outs + np.maximum(code[:, 5], 1)        # (the write ranges, as _write_spans's)
    owned: dict[int, int] = {}                # slot offset -> its one writer row
    for t, off, shape, kind in prog.outputs:
        if kind != "leaf":
            continue
        n = math.prod(shape)
        hi = off + max(n, 1)
        i = int(np.searchsorted(reads, off))
        if _overlaps(off, hi, seeds) or (i < reads.size and int(reads[i]) < hi):
            continue
        if small:                       # (a mask beats building the index below 64 rows)
            hit = np.flatnonzero((outs < hi) & (ends > off))[:2].tolist()
        else:
            if writes is None:
                writes = _write_spans(code)
            hit = _rows_writing(writes, off, hi)
        if len(hit) != 1 or int(outs[hit[0]]) != off:
            continue
        r = int(hit[0])
        op = int(code[r, 0]) >> 1
        if op not in ONE_ADD or int(code[r, 5]) != n:
            continue
        if op == OP["GEMM"]:
            p = int(code[r, 6])
            if int(prog.itab[p]) > 1 and int(prog.itab[p + 8]) == 0:
                continue                 # batches summed into one matrix
        code[r, 0] |= 1
        owned[off] = r
    _write_through_itab(prog, owned)
    return len(owned)


def _own_small(prog: Program) -> int:
    """own_leaf_grads for a Program of at most SMALL_PROGRAM rows, on Python lists (numpy
    calls on arrays of a few dozen rows cost more than the rows: this pass was a seventh of
    a small graph's first backward)."""
    rows = prog.code.tolist()
    owned = own_rows(rows, prog.seeds, prog.outputs, prog.itab)
    for r in owned.values():
        prog.code[r, 0] = rows[r][0]
    _write_through_itab(prog, owned)
    return len(owned)


_GEMM = OP["GEMM"]


def own_rows(rows: list, seeds: list, outputs: list, itab: np.ndarray) -> dict:
    """own_leaf_grads's test on a small Program's rows as Python lists (at most
    SMALL_PROGRAM: it scans the rows per leaf): {slot offset: its one writer row} for the
    leaf outputs (ref, offset, shape, kind) that qualify, whose rows get their acc bit set
    here. The same tests as own_leaf_grads's (the tests compare the two), in one pass over
    the rows per leaf (its writers and its readers), where a sorted list of every read and
    a list of write spans cost more than the scans for a few rows."""
    owned: dict[int, int] = {}
    for _, off, shape, kind in outputs:
        if kind != "leaf":
            continue
        n = math.prod(shape)
        hi = off + (n if n > 1 else 1)
        r = -1
        for i, row in enumerate(rows):
            if off <= row[2] < hi or off <= row[3] < hi or off <= row[4] < hi:
                r = -2                  # read by some row
                break
            o = row[1]
            if o < hi and o + (row[5] if row[5] > 1 else 1) > off:
                if r != -1:
                    r = -2              # a second writer
                    break
                r = i
        if r < 0:
            continue
        row = rows[r]
        op = row[0] >> 1
        if row[1] != off or op not in ONE_ADD or row[5] != n:
            continue
        clash = False
        for a, m in seeds:
            if a < hi and off < a + (m if m > 1 else 1):
                clash = True
                break
        if clash:
            continue
        if op == _GEMM:
            p = row[6]
            if int(itab[p]) > 1 and int(itab[p + 8]) == 0:
                continue                 # batches summed into one matrix
        row[0] |= 1
        owned[off] = r
    return owned


def _rows_writing(writes: _Spans, lo: int, hi: int) -> list:
    """The rows (at most two: enough to tell one from several) whose write range meets
    [lo, hi)."""
    hit: list = []
    for g in writes.overlapping(lo, hi):
        hit.extend(writes.rows[writes.glo[g]:min(writes.ghi[g], writes.glo[g] + 2)])
        if len(hit) > 1:
            return hit[:2]
    return hit


def _write_through_itab(prog: Program, owned: dict) -> None:
    """Each owned slot's one writer row writes through an address in the itab (an external
    `out`, program.EXT), which a binding points at the leaf's `.grad` array (or at the slot
    itself when there is none it can use), so the row accumulates straight into `.grad`:
    no zeroing and adding afterwards."""
    prog.owned_leaf_pos = {}
    if not owned:
        return
    base = prog.extend_itab(len(owned))
    for j, (off, r) in enumerate(sorted(owned.items())):
        pos = base + j
        prog.owned_leaf_pos[off] = pos
        prog.code[r, 1] = EXT + (pos << 32)
