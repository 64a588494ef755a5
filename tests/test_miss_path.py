"""The first backward of a new structure (a program-cache miss) takes shortcuts that must
not change what it computes: own_leaf_grads on a small Program's rows as Python lists (the
quick lowering, slot_layout.own_rows) against the numpy pass it replaces, a Workspace's
seed test (binding._seeds_clean) against its numpy form, and Builder.source's shortcut for
an array that is one of the node's own against its scan of every candidate, over a graph
per op case of the registry, quick and fully optimised.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import binding, builder, lower as L, slot_layout
from jitgrad.core.tensor import Tensor
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i in range(len(op.cases))]


def _graph(op, case, dtype, twice):
    """loss = sum(op(*xs) * w), + sum(xs[0] * 2) when `twice` (two writers into xs[0]'s
    gradient)."""
    rng = np.random.default_rng(0)
    lo, hi = op.domain
    arrays = [np.asarray(v, dtype) for v in case["values"]] if "values" in case else \
        [rng.uniform(lo, hi, size=s).astype(dtype) for s in case["shapes"]]
    xs = [paddle.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = apply(op, *xs, **case.get("attrs", {}))
    if out._node is None or out._data.dtype.kind != "f":
        return None
    w = Tensor._make(rng.standard_normal(out._data.shape).astype(out._data.dtype))
    loss = paddle.sum(out * w)
    if twice and xs[0]._data.dtype.kind == "f" and not xs[0].stop_gradient:
        loss = loss + paddle.sum(xs[0] * 2.0)
    return loss


def _programs(loss, quick):
    prog, _ = L.lower([loss], quick=quick)
    return prog


def _variants(name, i):
    """(label, loss, quick) for the case's graphs (float32, float32 with two writers,
    float64), each lowered quick and fully optimised."""
    op = REGISTRY[name]
    for dtype, twice in ((np.float32, False), (np.float32, True), (np.float64, False)):
        loss = _graph(op, op.cases[i], dtype, twice)
        if loss is None:
            continue
        for quick in (True, False):
            yield (name, i, dtype, quick), loss, quick


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_owned_leaves_on_rows_match_the_numpy_pass(name, i, monkeypatch):
    for label, loss, quick in _variants(name, i):
        fast = _programs(loss, quick)
        with monkeypatch.context() as m:
            m.setattr(slot_layout, "SMALL_PROGRAM", -1)    # the numpy pass only
            slow = _programs(loss, quick)
        assert fast.difference(slow) is None, (label, fast.difference(slow))
        assert fast.node_names == slow.node_names
        assert fast.leaf_rows == slow.leaf_rows
        with monkeypatch.context() as m:
            m.setattr(binding, "SMALL_ROWS", -1)           # numpy's answer
            want = binding._seeds_clean(fast)
        assert binding._seeds_clean(fast) == want


def test_a_seed_slot_written_by_a_row_is_not_clean(monkeypatch):
    x = paddle.to_tensor(np.arange(1.0, 5.0, dtype=np.float32), stop_gradient=False)
    y = x * 3.0
    z = paddle.sum(y * y)
    prog, _ = L.lower([z, y], quick=True)
    got = binding._seeds_clean(prog)
    with monkeypatch.context() as m:
        m.setattr(binding, "SMALL_ROWS", -1)
        assert got == binding._seeds_clean(prog)
    assert got == [True, False]            # y's seed slot also takes z's gradient


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_source_shortcut_names_what_the_scan_names(name, i, monkeypatch):
    for label, loss, quick in _variants(name, i):
        fast = _programs(loss, quick)
        with monkeypatch.context() as m:
            m.setattr(builder.Builder, "source", builder.Builder.scan_sources)
            slow = _programs(loss, quick)
        assert fast.difference(slow) is None, (label, fast.difference(slow))
        assert fast.node_names == slow.node_names


def _shared_graphs():
    x = paddle.to_tensor(np.linspace(0.5, 2.0, 6, dtype=np.float32), stop_gradient=False)
    w = paddle.to_tensor(np.arange(6, dtype=np.float32))
    yield paddle.sum(x * x)                                 # one tensor, two inputs
    yield paddle.sum(paddle.reshape(x, [2, 3]) * paddle.reshape(w, [2, 3]))   # views
    yield paddle.sum(x * x.detach())                        # one array, two tensors
    yield paddle.sum(paddle.tanh(x) * paddle.tanh(x))       # a node's output twice


@pytest.mark.parametrize("k", range(4))
def test_source_shortcut_on_shared_arrays(k, monkeypatch):
    loss = list(_shared_graphs())[k]
    for quick in (True, False):
        fast = _programs(loss, quick)
        with monkeypatch.context() as m:
            m.setattr(builder.Builder, "source", builder.Builder.scan_sources)
            slow = _programs(loss, quick)
        assert fast.difference(slow) is None and fast.reason == slow.reason
