"""The lowering's indexes (peephole, external, tape) against the scans they replace.

No timing here: each index is checked for exact agreement with a brute-force reference on
random inputs, whole Programs are compared with a lowering that uses the brute-force scans
everywhere, and a work counter shows the queries' cost staying linear in the graph size.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import jitgrad as P
from jitgrad.compile import external, peephole, slot_index, slot_layout
from jitgrad.core import tape
from jitgrad.compile.lower import lower
from jitgrad.vm.program import EXT, OP, WIDTH


# ---- brute-force references (the code the indexes replaced) ---------------------------------

def ref_overlaps(lo, hi, ranges):
    return any(a < hi and lo < b for a, b in ranges)


def ref_groups(starts, ends, rows, lo, hi):
    return sorted({(s, e) for s, e in zip(starts, ends) if s < hi and e > lo})


def ref_pick_free(slots):
    free, moves = [], {}
    for first, last, off, n in slots:
        pick = next((e for e in free if e[0] < first and e[2] == n), None)
        if pick is None:
            free.append([last, off, n])
            continue
        moves[off] = pick[1]
        pick[0] = last
    return moves


def ref_rows_writing(code, lo, hi):
    outs, ns = code[:, 1], np.maximum(code[:, 5], 1)
    return np.nonzero((outs < hi) & (outs + ns > lo))[0].tolist()


def random_code(rng, rows, span, long_every=7):
    """Rows writing mostly slot-like ranges, some long (SUM-like), some empty (n = 0)."""
    code = np.zeros((rows, WIDTH), np.int64)
    starts = sorted(rng.sample(range(span), min(span, max(2, rows // 2))))
    for r in range(rows):
        s = rng.choice(starts)
        n = rng.choice([0, 1, 2, 3, 5, 8]) if rng.random() > 1 / long_every else \
            rng.randrange(5, span // 2 + 6)
        code[r, 0] = OP["AXPY"] << 1
        code[r, 1] = s
        code[r, 5] = n
    return code


# ---- peephole's predicates ------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_intervals_match_the_scan(seed):
    rng = random.Random(seed)
    ranges = []
    for _ in range(rng.randrange(0, 40)):
        a = rng.randrange(-5, 60)
        ranges.append((a, a + rng.randrange(-2, 15)))      # empty and reversed ones too
    ix = slot_index._Intervals(ranges)
    for _ in range(300):
        lo = rng.randrange(-10, 80)
        hi = lo + rng.randrange(-5, 20)
        assert ix.overlaps(lo, hi) == ref_overlaps(lo, hi, ranges)
        assert slot_index._overlaps(lo, hi, ix) == ref_overlaps(lo, hi, ranges)
        assert slot_index._overlaps(lo, hi, ranges) == ref_overlaps(lo, hi, ranges)


@pytest.mark.parametrize("seed", range(20))
def test_spans_find_every_overlapping_group_once(seed):
    rng = random.Random(seed)
    n = rng.randrange(1, 120)
    starts = [rng.randrange(0, 80) for _ in range(n)]
    ends = [s + (rng.randrange(1, 4) if rng.random() < 0.7 else rng.randrange(1, 60))
            for s in starts]
    rows = list(range(n))
    sp = slot_index._Spans(starts, ends, rows)
    for _ in range(300):
        lo = rng.randrange(-5, 150)
        hi = lo + rng.randrange(-4, 12)
        got = [(sp.gs[g], sp.ge[g]) for g in sp.overlapping(lo, hi)]
        assert len(got) == len(set(got))                   # each group once
        assert sorted(got) == ref_groups(starts, ends, rows, lo, hi)
    for g in range(len(sp.gs)):                            # a group's rows, ascending
        assert sp.group_rows(g) == [r for r in rows if (starts[r], ends[r]) ==
                                    (sp.gs[g], sp.ge[g])]


@pytest.mark.parametrize("seed", range(20))
def test_refs_match_the_loop_over_fields(seed):
    rng = np.random.default_rng(seed)
    code = rng.integers(0, 40, size=(int(rng.integers(0, 60)), WIDTH)).astype(np.int64)
    want = {}
    for r in range(code.shape[0]):
        for f in (1, 2, 3, 4):
            want.setdefault(int(code[r, f]), []).append((r, f))
    refs = slot_index._Refs(code)
    assert refs.at == want                                # lists in (row, field) order
    assert refs.sorted.tolist() == sorted(want)
    for lo in range(-2, 45):
        for hi in range(lo, lo + 6):
            assert refs.interior(lo, hi) == any(lo < k < hi for k in want)


@pytest.mark.parametrize("seed", range(20))
def test_write_spans_match_writes_between(seed):
    rng = random.Random(seed)
    code = random_code(rng, rng.randrange(1, 200), rng.randrange(20, 300))
    sp = slot_index._write_spans(code)
    rows = code.shape[0]
    for _ in range(400):
        lo = rng.randrange(-3, int(code[:, 1].max()) + 10)
        hi = lo + rng.choice([0, 1, 2, 4, 9, 30, -1])
        start = rng.randrange(0, rows + 2)
        stop = rng.randrange(0, rows + 2)
        assert sp.any_row_in(lo, hi, start, stop) == \
            slot_index._writes_between(code, lo, hi, start, stop)
        if hi > lo:                          # one writer (which), or several
            got, want = slot_layout._rows_writing(sp, lo, hi), ref_rows_writing(code, lo, hi)
            assert len(got) == min(len(want), 2)
            assert len(want) != 1 or got == want


@pytest.mark.parametrize("seed", range(30))
def test_pick_free_matches_the_free_list_scan(seed):
    rng = random.Random(seed)
    slots = []
    for off in range(rng.randrange(0, 150)):
        first = rng.randrange(0, 100)
        slots.append((first, first + rng.randrange(0, 30), 10_000 * off,
                      rng.choice([4096, 8192, 5000])))
    slots.sort()
    assert slot_layout._pick_free(slots) == ref_pick_free(slots)


@pytest.mark.parametrize("seed", range(10))
def test_offset_map_matches_compacts_remap(seed):
    rng = np.random.default_rng(seed)
    starts = np.unique(rng.integers(0, 500, 40)).astype(np.int64)
    starts[0] = 0
    new_starts = np.sort(rng.integers(0, 300, starts.size)).astype(np.int64)
    m = slot_layout._offset_map(starts.tolist(), new_starts.tolist())
    for v in range(-3, 520):
        i = np.searchsorted(starts, v, side="right") - 1
        assert m(v) == int(new_starts[i] + (v - starts[i]))


# ---- external.place --------------------------------------------------------------------------

def _programs():
    """Lowered Programs (not yet placed) of graphs with large values, GEMMs, CHAINs,
    SCATTERs and broadcasts."""
    rng = np.random.default_rng(0)

    def T(*shape, sg=True):
        return P.to_tensor(rng.standard_normal(shape).astype("float32"), stop_gradient=sg)

    graphs = []
    A, W1, W2 = T(128, 160), T(160, 128, sg=False), T(128, 140, sg=False)
    graphs.append(P.sum(P.tanh(P.matmul(A, W1)) * T(128, 128)) +
                  P.sum(P.matmul(P.matmul(A, W1), W2)))
    x = T(20000, sg=False)
    y = P.tanh(x) * T(20000)
    graphs.append(P.sum(y * y + P.sin(x) * T(20000)))
    a, b = T(3, 1, 6000, sg=False), T(4, 6000)
    graphs.append(P.sum(a * b + P.exp(a)))
    s = T(1, sg=False)
    graphs.append(P.sum(s * T(17000) + P.tanh(T(17000, sg=False))))
    x = T(1, 4, 128, 128, sg=False)          # values read where operands are not external:
    pooled = P.nn.functional.max_pool2d(x, 2)    # POOL_BWD's indices, LINSCAN's ratios
    graphs.append(P.sum(pooled * T(1, 4, 64, 64)) + P.sum(P.cumprod(T(20000, sg=False), dim=0)))
    progs = []
    for g in graphs:
        pv = []
        orig = external.place

        def capture(prog, values):
            pv.append((prog, [(off, arr, shape) for off, shape, _, arr in values]))
            return orig(prog, values)
        external.place = capture
        try:
            lower([g])
        finally:
            external.place = orig
        progs.append(pv[0])
    return progs


def test_read_index_matches_readable_in_place():
    rng = random.Random(0)
    for prog, values in _programs():
        code = prog.code
        ops, outs = code[:, 0] >> 1, code[:, 1]
        variants = [code]
        extra = code.copy()                  # an opcode no table knows, reading a value
        extra[0] = [99 << 1, extra[0, 1], values[-1][0] + 3, 0, 0, 1, 0, 0]
        variants.append(extra)
        for c in variants:
            ops, outs = c[:, 0] >> 1, c[:, 1]
            index = external._ReadIndex(prog, c, ops, outs)
            queries = [(off, int(np.prod(shape))) for off, _, shape in values]
            top = int(prog.arena.size)
            queries += [(rng.randrange(0, top), rng.randrange(0, 30000)) for _ in range(150)]
            for off, n in queries:
                assert index.readable(off, n) == \
                    external._readable_in_place(prog, c, ops, outs, off, n), (off, n)


def test_make_external_matches_the_pass_per_value():
    rng = np.random.default_rng(1)
    for overlapping in (False, True):
        code = rng.integers(0, 5000, size=(300, WIDTH)).astype(np.int64)
        code[::17, 3] = EXT + 5                  # already external operands stay as they are
        offs = sorted(rng.choice(4000, 12, replace=False).tolist())
        items = [(o, 40 if not overlapping else 400) for o in offs]
        if not overlapping:
            items = [(o, min(n, nxt - o)) for (o, n), nxt in zip(items, offs[1:] + [10**6])]
        want = code.copy()
        for j, (off, n) in enumerate(items):
            pos = 7 + j
            for col in (2, 3, 4):
                field = want[:, col]
                hit = (field >= off) & (field < off + n)
                field[hit] = EXT + (pos << 32) + (field[hit] - off)
        external._make_external(code, items, 7)
        assert np.array_equal(code, want)


# ---- whole Programs against the brute-force path -----------------------------------------------

class _ScanSpans:
    """_write_spans' interface answered by scanning the live code (the old predicate)."""

    def __init__(self, code):
        self.code = code

    def any_row_in(self, lo, hi, start, stop):
        return slot_index._writes_between(self.code, lo, hi, start, stop)


class _ScanReads:
    def __init__(self, prog, code, ops, outs):
        self.args = (prog, code, ops, outs)

    def readable(self, off, n):
        return external._readable_in_place(*self.args, off, n)


def _make_external_scan(code, items, base):
    for j, (off, n) in enumerate(items):
        pos = base + j
        for col in (2, 3, 4):
            field = code[:, col]
            hit = (field >= off) & (field < off + n)
            field[hit] = EXT + (pos << 32) + (field[hit] - off)


PASSES = (peephole, slot_layout, slot_index)      # the modules the passes look names up in


def _patch_passes(monkeypatch, name, value):
    """Replace `name` in every pass module that binds it (each looks it up in its own)."""
    for mod in PASSES:
        if name in mod.__dict__:
            monkeypatch.setattr(mod, name, value)


@pytest.fixture
def brute_force(monkeypatch):
    """Swap every index for the scan it replaced."""
    def use():
        _patch_passes(monkeypatch, "_intervals", lambda ranges: list(ranges))
        _patch_passes(monkeypatch, "_write_spans", _ScanSpans)
        _patch_passes(monkeypatch, "_pick_free", ref_pick_free)
        _patch_passes(monkeypatch, "_rows_writing",
                      lambda writes, lo, hi: ref_rows_writing(writes.code, lo, hi))
        monkeypatch.setattr(external, "_ReadIndex", _ScanReads)
        monkeypatch.setattr(external, "_make_external", _make_external_scan)
    return use


def _graphs():
    """Builders of graphs covering the passes: aliases, chains, slot reuse, compaction,
    owned leaves, values read in place, hooks (segments) and grad() targets."""
    rng = np.random.default_rng(3)

    def T(*shape, sg=True):
        return P.to_tensor(rng.standard_normal(shape).astype("float32"), stop_gradient=sg)

    def leaves():
        s = None
        for _ in range(60):
            t = (T(4, sg=False) * T(4)).sum()
            s = t if s is None else s + t
        return [s], {}

    def chain():
        x = T(300, sg=False)
        y = x
        for i in range(200):
            y = [P.sin, P.tanh, lambda z: z * 1.5, lambda z: z + 0.25,
                 lambda z: z * T(300), P.exp, lambda z: z * 0.5][i % 7](y)
        return [y.sum()], {}

    def scalars():
        ws = [T(1, sg=False) for _ in range(30)]
        v = T(5000)
        s = None
        for i, w in enumerate(ws):
            t = (w * v + ws[(i * 7) % 30] * v).sum()
            s = t if s is None else s + t
        return [s], {}

    def mlp():
        h = T(64, 96)
        for _ in range(4):
            h = P.tanh(P.matmul(h, T(96, 96, sg=False)) + T(96, sg=False))
        return [P.mean(h)], {}

    def big_values():
        A, W = T(128, 160), T(160, 128, sg=False)
        x = T(20000, sg=False)
        return [P.sum(P.matmul(A, W)) + P.sum(P.tanh(x) * T(20000) + P.sin(x))], {}

    def roots():
        xs = [T(3, sg=False) for _ in range(20)]
        return [(x * x).sum() for x in xs], {}

    def hooked():
        x = T(10, sg=False)
        m = P.tanh(x * 2.0)
        m.register_hook(lambda g: g * 2)
        return [(m * m + m).sum()], {}

    def targets():
        x1, x2 = T(10, sg=False), T(10, sg=False)
        z = P.tanh(x1 * x2) + x1
        return [z.sum()], {"targets": [x1, z]}

    def broadcast():
        a, b = T(3, 1, 5, sg=False), T(4, 5, sg=False)
        return [(a * b + a).sum()], {}

    return [leaves, chain, scalars, mlp, big_values, roots, hooked, targets, broadcast]


def _layout(lowered):
    prog, _ = lowered                     # a Program is pure data: all of it is layout
    return (prog.code.tobytes(), prog.itab.tobytes(), prog.consts.tobytes(), prog.seeds,
            prog.outputs, prog.arena_size, prog.values, prog.externals, prog.leaf_rows,
            prog.segments, prog.node_names)


@pytest.mark.parametrize("index", range(9))
def test_programs_equal_the_brute_force_lowering(index, brute_force):
    roots, kw = _graphs()[index]()
    fast = _layout(lower(roots, **kw))
    brute_force()
    slow = _layout(lower(roots, **kw))
    assert fast == slow


# ---- linear work -----------------------------------------------------------------------------

def _leaves_graph(n):
    rng = np.random.default_rng(n)
    s = None
    for _ in range(n):
        t = (P.to_tensor(rng.standard_normal(4).astype("float32"), stop_gradient=False)
             * P.to_tensor(rng.standard_normal(4).astype("float32"))).sum()
        s = t if s is None else s + t
    return s


def _chain_graph(n):
    x = P.to_tensor(np.linspace(-1, 1, 16).astype("float32"), stop_gradient=False)
    y = x
    for i in range(n):
        y = [P.tanh, lambda z: z * 1.01, lambda z: z + 0.5][i % 3](y)
    return y.sum()


def _work(build, n, monkeypatch):
    """Count the elementary steps of the passes' queries while lowering: ranges and groups
    visited, and every row a brute-force scan would touch (which must be none)."""
    count = [0]
    spans_overlapping = slot_index._Spans.overlapping

    def overlapping(self, lo, hi):
        for g in spans_overlapping(self, lo, hi):
            count[0] += 1
            yield g
        count[0] += 1

    writes_between = slot_index._writes_between

    def scan(code, lo, hi, start, stop):
        count[0] += max(stop - start, 0)
        return writes_between(code, lo, hi, start, stop)

    overlaps = slot_index._overlaps

    def counted_overlaps(lo, hi, ranges):
        count[0] += 1 if type(ranges) is slot_index._Intervals else len(ranges)
        return overlaps(lo, hi, ranges)

    monkeypatch.setattr(slot_index._Spans, "overlapping", overlapping)
    _patch_passes(monkeypatch, "_writes_between", scan)
    _patch_passes(monkeypatch, "_overlaps", counted_overlaps)
    lower([build(n)])
    monkeypatch.undo()
    return count[0]


@pytest.mark.parametrize("build", [_leaves_graph, _chain_graph])
def test_query_work_grows_linearly(build, monkeypatch):
    small, large = _work(build, 300, monkeypatch), _work(build, 1200, monkeypatch)
    assert large <= 4 * small * 1.25 + 100, (small, large)      # quadratic would be 16x


# ---- tape: the stand-in of a version -------------------------------------------------------

def test_rewire_picks_the_first_stand_in_from_the_version():
    x = P.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    y = x * 1.0
    readers = []
    for k in range(12):
        readers.append(y.reshape([3]))       # reads only y's shape: rewired, not refused
        if k % 3 == 2:
            y._version += 1                  # a write without rebinding (no stand-in)
        else:
            y.scale_(2.0)
    shadows = y._shadows
    for node, v in ((r._node, r._node.versions[0]) for r in readers):
        later = [k for k in shadows if k >= v]
        t = y
        want = shadows[min(later)] if later else None
        inputs = node.inputs
        got = tape._rewire_to_version(node, 0, t, v)
        assert got == (want is not None)
        if want is not None:
            assert node.inputs[0] is want
        node.inputs = inputs
    loss = sum(r.sum() for r in readers) + y.sum()
    loss.backward()
    assert x.grad is not None
