"""Indexes over a Program's arena offsets, which the peephole passes (peephole.py,
slot_layout.py) query for every candidate slot.

Each answers in O(log n) what a scan of all rows or ranges answered: the scans made
lowering quadratic in the graph size (a 100,000-op chain took 15-23 s, a graph of 10,000
leaves ~21 s for its first backward). `_overlaps` and `_writes_between` are those scans,
kept as the references the tests compare the indexes with.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np


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


def _writes_between(code: np.ndarray, lo: int, hi: int, start: int, stop: int) -> bool:
    """Does a row in [start, stop) write into [lo, hi)? One scan of those rows: the passes
    ask `_write_spans(code).any_row_in(lo, hi, start, stop)` instead (the same answer in
    O(log n); a scan per alias candidate made a 100,000-op chain take 15-23 s)."""
    outs, ns = code[start:stop, 1], code[start:stop, 5]
    return bool(np.any((outs < hi) & (outs + np.maximum(ns, 1) > lo)))
