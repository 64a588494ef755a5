"""Peephole passes over a freshly lowered Program (switch off with JITGRAD_NO_PEEPHOLE=1).

1. Slot aliasing: `X = G` (AXPY, K=1, overwrite) followed only by reads of X becomes a
   rename of X to G: the copy disappears (add's and reshape's gradients are identities).
2. Chain fusion: a run of elementwise gradient steps where each intermediate gradient is
   written once and read once by the next step becomes one CHAIN superinstruction. It walks
   the chain tile by tile (`TILE` elements stay in L1), so a long chain on a big vector
   reads each saved forward value once and writes the result once, instead of writing and
   re-reading every intermediate gradient. The steps evaluate the same float expressions in
   the same order as the unfused kernels, so results are bitwise identical.
3. Dead-slot reuse: a big gradient slot takes the place of one that is dead by its first
   write (an MLP's activation gradients share two buffers).
4. Compaction: slots nothing references any more leave the arena; lower() places the saved
   values only afterwards, so the larger first layout never costs memory.
5. Owned leaf gradients: when one row writes a leaf's gradient slot, it accumulates through
   an itab address, which a binding points at the leaf's `.grad` array (binding.py).

Safety rules: a slot is touched only when every instruction field pointing into it is
accounted for (an unknown opcode referencing it blocks the pass), seeds, outputs and the
Program's `pinned` slots are never renamed or fused away, a Program with hook segments but
no `pinned` set is left alone (hooks read and write gradient slots from Python), chains do
not straddle a callback, and passes 3-5 skip Programs with callbacks.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right

import numpy as np

from ..core import config
# the opcode sets the passes rely on come from the one table
from ..vm.opcodes import COMPACTABLE, ELEMENTWISE, K_FIRST, ONE_ADD, READERS, STEP_OPERANDS
from ..vm.program import EXT, NAMES, OP, Program

# elements per CHAIN tile (1 KB of float32). A tile walks every step before the next, so
# a small tile keeps all the chain's operand streams advancing together, which the hardware
# prefetchers follow like one fused loop; with 2048 each step read an 8 KB run of one
# operand at a time, and W3 (12 operands of 16 MB) ran ~25% slower (perf/README.md).
TILE = 256

AXPY, MUL, DIV, DIVK, MULDIV = OP["AXPY"], OP["MUL"], OP["DIV"], OP["DIVK"], OP["MULDIV"]
TANH_BWD, SIGMOID_BWD, RELU_BWD = OP["TANH_BWD"], OP["SIGMOID_BWD"], OP["RELU_BWD"]
BCAST, ZERO = OP["BCAST"], OP["ZERO"]

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


def _overlaps(lo: int, hi: int, ranges: list[tuple[int, int]] | _Intervals) -> bool:
    """Does any range [a, b) of `ranges` (a list, or an _Intervals built from one) meet
    [lo, hi), i.e. a < hi and lo < b?"""
    if type(ranges) is _Intervals:
        return ranges.overlaps(lo, hi)
    return any(a < hi and lo < b for a, b in ranges)


class _Intervals:
    """A fixed list of ranges [a, b) answering `_overlaps` in O(log n): starts sorted, with
    the running maximum of the ends. Some range meets [lo, hi) iff among those starting
    below hi the largest end exceeds lo, for any lo and hi. Why: `_overlaps` scanned the
    whole list, and `protected` holds a range per seed and output, so a graph of 10,000
    leaves made every slot test scan 10,000 ranges (the first backward took ~21 s)."""

    __slots__ = ("starts", "max_end")

    def __init__(self, ranges) -> None:
        pairs = sorted((int(a), int(b)) for a, b in ranges)
        self.starts = [a for a, _ in pairs]
        self.max_end = []
        top = None
        for _, b in pairs:
            top = b if top is None or b > top else top
            self.max_end.append(top)

    def overlaps(self, lo: int, hi: int) -> bool:
        i = bisect_left(self.starts, hi)            # ranges starting below hi: [0, i)
        return i > 0 and self.max_end[i - 1] > lo


def _intervals(ranges) -> "_Intervals":
    return ranges if type(ranges) is _Intervals else _Intervals(ranges)


class _Spans:
    """Intervals [s, e) with e > s, each tagged with a row, grouped by distinct (s, e):
    `overlapping(lo, hi)` yields the groups with s < hi and e > lo, in O(log D) plus the
    groups it yields (D distinct intervals; a stabbed long interval costs O(log D) more).
    Group g is [gs[g], ge[g]); its rows, ascending, are rows[glo[g]:ghi[g]].

    Writes start at slot starts and mostly cover their slot, so a query meets one or two
    groups. A group meeting [lo, hi) either starts in [lo, hi) (a bisect over the sorted
    starts), or starts below lo and reaches past it: then it starts at s*, the largest
    start below lo, or it is *long* (another start lies inside it: SUM's and SCATTER's
    extents run past their one-element slots), and the long ones are found through a
    max-of-ends tree over them sorted by start.
    """

    __slots__ = ("starts", "first", "gs", "ge", "glo", "ghi", "rows", "long", "long_s",
                 "tree", "size")

    def __init__(self, starts, ends, rows) -> None:
        s = np.asarray(starts, dtype=np.int64).ravel()
        e = np.asarray(ends, dtype=np.int64).ravel()
        r = np.asarray(rows, dtype=np.int64).ravel()
        order = np.lexsort((r, e, s))
        s, e, r = s[order], e[order], r[order]
        new = np.ones(s.size, dtype=bool)
        new[1:] = (s[1:] != s[:-1]) | (e[1:] != e[:-1])
        glo = np.nonzero(new)[0]
        gs, ge = s[glo], e[glo]
        snew = np.ones(gs.size, dtype=bool)
        snew[1:] = gs[1:] != gs[:-1]
        first = np.nonzero(snew)[0]              # each distinct start's first group
        S = gs[first]
        # long: reaching past the next distinct start (none after the last start)
        nxt = np.append(S[1:], np.iinfo(np.int64).max)
        long = np.nonzero(ge > nxt[np.cumsum(snew) - 1])[0]
        self.starts = S.tolist()
        self.first = first.tolist() + [int(gs.size)]
        self.gs, self.ge = gs.tolist(), ge.tolist()
        self.glo = glo.tolist()
        self.ghi = glo[1:].tolist() + [int(s.size)]
        self.rows = r.tolist()
        self.long = long.tolist()
        self.long_s = gs[long].tolist()
        size = 1
        while size < len(self.long):
            size *= 2
        self.size = size
        tree = [None] * (2 * size)
        tree[size:size + len(self.long)] = ge[long].tolist()
        for j in range(size - 1, 0, -1):
            a, b = tree[2 * j], tree[2 * j + 1]
            tree[j] = a if b is None or (a is not None and a >= b) else b
        self.tree = tree

    def overlapping(self, lo: int, hi: int):
        """Yield every group g with gs[g] < hi and ge[g] > lo (each once)."""
        S, first = self.starts, self.first
        i0 = bisect_left(S, lo)
        if lo < hi:                                 # starting in [lo, hi): e > s >= lo
            i1 = bisect_left(S, hi)
            if i1 > i0:
                yield from range(first[i0], first[i1])
        if i0 == 0:
            return
        star = S[i0 - 1]                            # s*: the largest start below lo
        if star < hi:
            ge = self.ge
            for g in range(first[i0 - 1], first[i0]):
                if ge[g] > lo:
                    yield g
        if not self.long:
            return
        k = bisect_left(self.long_s, min(star, hi))   # long groups starting below both
        if k == 0:
            return
        # the tree's canonical nodes covering leaves [0, k), then down to leaves with e > lo
        tree, size = self.tree, self.size
        stack = []
        a, b = size, size + k
        while a < b:
            if a & 1:
                stack.append(a)
                a += 1
            if b & 1:
                b -= 1
                stack.append(b)
            a >>= 1
            b >>= 1
        while stack:
            j = stack.pop()
            e = tree[j]
            if e is None or e <= lo:
                continue
            if j >= size:
                yield self.long[j - size]
            else:
                stack.append(2 * j + 1)
                stack.append(2 * j)

    def group_rows(self, g: int) -> list:
        return self.rows[self.glo[g]:self.ghi[g]]

    def any_row_in(self, lo: int, hi: int, start: int, stop: int) -> bool:
        """Is a row r with start <= r < stop in some group meeting [lo, hi)?"""
        rows, glo, ghi = self.rows, self.glo, self.ghi
        for g in self.overlapping(lo, hi):
            end = ghi[g]
            i = bisect_left(rows, start, glo[g], end)
            if i < end and rows[i] < stop:
                return True
        return False


def _write_spans(code: np.ndarray) -> _Spans:
    """Every row's write range [out, out + max(n, 1)), as `_writes_between` reads it."""
    outs = code[:, 1]
    return _Spans(outs, outs + np.maximum(code[:, 5], 1), np.arange(code.shape[0]))


class _Refs:
    """Every (row, field) whose value is an arena offset, indexed by that offset."""

    def __init__(self, code: np.ndarray) -> None:
        # one stable sort of all the fields instead of a dict update per field: each
        # offset's list is still in (row, field) order (keys come in offset order)
        vals = code[:, 1:5].ravel()
        order = np.argsort(vals, kind="stable")
        cuts = (np.flatnonzero(np.diff(vals[order])) + 1).tolist()
        pairs = list(zip((order >> 2).tolist(), ((order & 3) + 1).tolist()))
        bounds = [0] + cuts + [len(pairs)]
        keys = vals[order[bounds[:-1]]] if pairs else vals[:0]
        self.at: dict[int, list[tuple[int, int]]] = {
            k: pairs[a:b] for k, a, b in zip(keys.tolist(), bounds[:-1], bounds[1:])}
        self.sorted = np.ascontiguousarray(keys, dtype=np.int64)

    def interior(self, lo: int, hi: int) -> bool:
        """Does any field point strictly inside (lo, hi)?"""
        i = np.searchsorted(self.sorted, lo, side="right")
        return i < self.sorted.size and self.sorted[i] < hi


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


def _writes_between(code: np.ndarray, lo: int, hi: int, start: int, stop: int) -> bool:
    """Does a row in [start, stop) write into [lo, hi)? One scan of those rows: the passes
    ask `_write_spans(code).any_row_in(lo, hi, start, stop)` instead (the same answer in
    O(log n); a scan per alias candidate made a 100,000-op chain take 15-23 s)."""
    outs, ns = code[start:stop, 1], code[start:stop, 5]
    return bool(np.any((outs < hi) & (outs + np.maximum(ns, 1) > lo)))


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
