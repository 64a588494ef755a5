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

import os

import numpy as np

from .program import EXT, NAMES, OP, Program

# elements per CHAIN tile (1 KB of float32). A tile walks every step before the next, so
# a small tile keeps all the chain's operand streams advancing together, which the hardware
# prefetchers follow like one fused loop; with 2048 each step read an 8 KB run of one
# operand at a time, and W3 (12 operands of 16 MB) ran ~25% slower (perf/README.md).
TILE = 256

AXPY, MUL, DIV, DIVK, MULDIV = OP["AXPY"], OP["MUL"], OP["DIV"], OP["DIVK"], OP["MULDIV"]
TANH_BWD, SIGMOID_BWD, RELU_BWD = OP["TANH_BWD"], OP["SIGMOID_BWD"], OP["RELU_BWD"]
BCAST, ZERO = OP["BCAST"], OP["ZERO"]

# steps computing K * v first (then * B, / B, * B / C): a scale step before one of them
# with K == 1 folds into it
K_FIRST = {MUL, DIV, MULDIV}
# opcode -> which of the fields b, c it reads as n-element operands (a is the gradient)
STEP_OPERANDS = {AXPY: 0, DIVK: 0, MUL: 1, DIV: 1, TANH_BWD: 1, SIGMOID_BWD: 1,
                 RELU_BWD: 1, MULDIV: 2}
# opcodes whose out/a/b/c fields all address n-element ranges starting at the field value
ELEMENTWISE = set(STEP_OPERANDS) | {OP["SOFTMAX_BWD"], OP["LOGSOFTMAX_BWD"]}
# the core opcodes, whose a/b/c fields are only ever read (never written): any of them may
# read a renamed slot. Opcodes added later are not listed, so they block the passes.
READERS = {OP[name] for name in ("ZERO", "AXPY", "MUL", "DIV", "DIVK", "MULDIV", "TANH_BWD",
                                 "SIGMOID_BWD", "RELU_BWD", "SUM", "BCAST", "GATHER",
                                 "GATHER_MUL", "SCATTER", "GEMM", "SOFTMAX_BWD",
                                 "LOGSOFTMAX_BWD", "ROWSUM", "ROUND")}


def enabled() -> bool:
    return os.environ.get("JITGRAD_NO_PEEPHOLE", "") in ("", "0")


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
    avoid = _protected(prog, pinned)[len(prog.seeds) + len(prog.outputs):] \
        if prog.segments else []
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
        rng.append((off, off + max(int(np.prod(shape, dtype=np.int64)), 1)))
    for s in pinned or ():
        off, n = (s, 1) if isinstance(s, (int, np.integer)) else (s[0], s[1])
        rng.append((int(off), int(off) + max(int(n), 1)))
    return rng


def _overlaps(lo: int, hi: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a < hi and lo < b for a, b in ranges)


class _Refs:
    """Every (row, field) whose value is an arena offset, indexed by that offset."""

    def __init__(self, code: np.ndarray) -> None:
        self.at: dict[int, list[tuple[int, int]]] = {}
        for r in range(code.shape[0]):
            for f in (1, 2, 3, 4):
                self.at.setdefault(int(code[r, f]), []).append((r, f))
        self.sorted = np.array(sorted(self.at), dtype=np.int64)

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
    outs, ns = code[start:stop, 1], code[start:stop, 5]
    return bool(np.any((outs < hi) & (outs + np.maximum(ns, 1) > lo)))


# ---- 1. aliasing ---------------------------------------------------------------------------

def alias(prog: Program, protected: list, avoid: list | None = None) -> int:
    """Drop identity copies X = G by renaming X to G; returns how many were dropped."""
    code = prog.code
    refs = _Refs(code)
    drop = []
    for w in range(code.shape[0]):
        if int(code[w, 0]) != AXPY << 1 or prog.consts[int(code[w, 7])] != 1:
            continue
        x, g, n = int(code[w, 1]), int(code[w, 2]), int(code[w, 5])
        if g == x or (avoid and _overlaps(g, g + n, avoid)):
            continue
        reads = _intermediate(code, refs, w, protected, fuse=False)
        if reads is None or _writes_between(code, g, g + n, w + 1, code.shape[0]):
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
        if _writes_between(code, src, src + src_n, h + 1, rows[-1]) or any(
                _writes_between(code, int(code[r, f]), int(code[r, f]) + n, r + 1, rows[-1])
                for r in rows for f in (3, 4)[:STEP_OPERANDS.get(int(code[r, 0]) >> 1, 0)]):
            rows = [h]               # an input changes before the end: keep it unfused
        if cuts and any(h < c <= rows[-1] for c in cuts):
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
    free: list[list[int]] = []                         # [last use, offset, size]
    moves = {}
    for first, last, off, n in slots:
        pick = next((e for e in free if e[0] < first and e[2] == n), None)
        if pick is None:
            free.append([last, off, n])
            continue
        moves[off] = pick[1]
        pick[0] = last
    for off, new in moves.items():
        for r, f in refs.at[off]:
            code[r, f] = new
    return len(moves)


# ---- 4. compaction -------------------------------------------------------------------------

NO_OFFSETS_IN_ITAB = READERS | {OP["CUMSUM"]} if "CUMSUM" in OP else READERS


def compact(prog: Program) -> int:
    """Drop the slots no instruction uses any more (fused-away and renamed gradients) from
    the arena: less memory (huge pages make any touched 2 MB region resident) and better
    locality. Returns how many elements were dropped. `prog.offset_map(off)` maps an old
    offset to its new place (the structural cache's recipes are recorded before this)."""
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
    prog.offset_map = lambda off: int(remap(off))
    prog.slot_starts = None
    return size - total


# ---- 5. owned leaf gradients ---------------------------------------------------------------

# writers that add one computed value per element: `grad += v` rounds exactly like the
# general path's `slot = v; grad += slot` (ROWSUM and SCATTER add in several steps)
ONE_ADD = {OP[name] for name in ("AXPY", "MUL", "DIV", "DIVK", "MULDIV", "TANH_BWD",
                                 "SIGMOID_BWD", "RELU_BWD", "SUM", "BCAST", "GATHER",
                                 "GATHER_MUL", "SOFTMAX_BWD", "LOGSOFTMAX_BWD", "CHAIN",
                                 "GEMM")}


def own_leaf_grads(prog: Program) -> int:
    """Let a leaf's gradient slot serve as its .grad: when exactly one row writes the slot
    (adding one value per element), that row accumulates instead of overwriting. Returns
    how many leaves qualify (`prog.owned_leaf_pos`: slot offset -> itab position).

    A GEMM accumulates as C = A@B + C, which BLAS may split over panels of the inner
    dimension; for inner sizes past a panel that rounds like (C + AB1) + AB2 rather than
    C + (AB1 + AB2): within float32 rounding of the general path, not bitwise."""
    code = prog.code
    seeds = [(off, off + max(n, 1)) for off, n in prog.seeds]
    outs = code[:, 1]
    ns = np.maximum(code[:, 5], 1)
    reads = code[:, 2:5]
    owned: dict[int, int] = {}                # slot offset -> its one writer row
    for t, off, shape, kind in prog.outputs:
        if kind != "leaf":
            continue
        n = int(np.prod(shape, dtype=np.int64))
        hi = off + max(n, 1)
        if _overlaps(off, hi, seeds) or bool(np.any((reads >= off) & (reads < hi))):
            continue
        hit = np.nonzero((outs < hi) & (outs + ns > off))[0]
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
