"""The compiled matcher (matcher.compile_matcher) decides exactly as the key does.

Graphs are drawn from a small family with a few structural choices (ops, sharing, shapes,
a one-element factor, an attribute, which leaves need gradients, extra roots), so that two
draws often have equal keys and often differ in one detail. For each pair the matcher
compiled from the first graph's cache entry (Entry.match, made on its first hit) must
accept the second exactly when their keys are equal, numbering its nodes and tensors as the
walk does, and the gradients through the cache must equal a fresh lowering.
"""


import copy

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor
from jitgrad.core import tape
from jitgrad.compile.graph import Graph, _norm
from jitgrad.core import config

TT = paddle.to_tensor


pytestmark = pytest.mark.usefixtures("fresh_cache")


def _entry(key):
    """The cache entry holding `key` (its Program, hit count and matcher)."""
    return executor.CACHE._entries[key]


def fresh_backward(roots):
    """A backward through a fresh lowering, the cache switched off for this call."""
    with config.override(program_cache=False):
        paddle.autograd.backward(roots)


def _choices(rng):
    return {k: int(rng.integers(n)) for k, n in
            (("op", 2), ("share", 4), ("shape", 2), ("k", 2), ("axis", 2), ("b_sg", 2),
             ("roots", 3))}


def _build(ch, seed):
    """(roots, leaves) for the choices `ch`; values from `seed` (values never matter)."""
    rng = np.random.default_rng(seed)
    shape = (3,) if ch["shape"] == 0 else (2, 3)
    a = TT(rng.uniform(-1, 1, shape), dtype="float32", stop_gradient=False)
    b = TT(rng.uniform(-1, 1, shape), dtype="float32", stop_gradient=bool(ch["b_sg"]))
    c = TT(rng.uniform(-1, 1, shape), dtype="float32", stop_gradient=False)
    f = paddle.tanh if ch["op"] == 0 else paddle.sin
    if ch["share"] == 1:
        h = f(a)
        h = h * h
    elif ch["share"] == 2:               # one array under two tensors (graph.aliases)
        h = f(a)
        h = h * h.detach()
    elif ch["share"] == 3:               # that structure over two arrays, other values
        h = f(a)
        h = h * TT(h.numpy() + 1.0)
    else:
        h = f(a) * f(a)
    h = h * TT([2.0 if ch["k"] == 0 else 3.0]) + b
    loss = paddle.sum(paddle.sum(h, axis=0 if ch["axis"] == 0 else -1))
    roots = [loss] if ch["roots"] == 0 else [loss, paddle.sum(h * h)] if ch["roots"] == 1 \
        else [loss, c]                   # a leaf root: which roots own nodes is structure
    return roots, [a, b, c]


def _grads(leaves):
    return [None if t.grad is None else t.grad.numpy().copy() for t in leaves]


def _same_objects(xs, ys):
    return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))


def test_matcher_accepts_exactly_the_graphs_with_the_entry_key():
    rng = np.random.default_rng(0)
    accepted = rejected = 0
    for i in range(36):
        first = _choices(rng)
        second = dict(first)
        if i % 3:                        # one detail changed (or, by chance, not)
            name = list(second)[i % len(second)]
            second[name] = _choices(rng)[name]
        paddle.cache_clear()
        roots, _ = _build(first, 1)
        key = Graph(roots).key
        paddle.autograd.backward(roots)
        assert paddle.cache_info().misses == 1
        entry = _entry(key)
        assert entry.match is None       # compiled on the entry's first hit, not on a miss
        roots, _ = _build(first, 3)
        paddle.autograd.backward(roots)
        assert paddle.cache_info().hits == 1
        assert entry.match                # (the one hit above compiled it)
        roots, leaves = _build(second, 2)
        walked = Graph(roots)
        same = walked.key == key
        # (or equal but for arrays shared under two tensors that the entry's key does not
        # name: its Program reads each tensor on its own, right for those graphs too)
        same = same or walked.key[:-2] == key and walked.key[-2] == "alias"
        found = entry.match(roots, tape._epoch)
        assert (found is not None) == same, (first, second)
        if found is not None:            # the walk's numbering, object for object
            assert _same_objects(found[0], walked.nodes)
            assert _same_objects(found[1], walked.tensors)
        accepted += same
        rejected += not same
        # the whole backward (a hit exactly when the keys are equal) against a fresh lowering
        hits = paddle.cache_info().hits
        paddle.autograd.backward(roots)
        assert paddle.cache_info().hits == hits + same
        want_roots, want_leaves = _build(second, 2)
        fresh_backward(want_roots)
        for g, w in zip(_grads(leaves), _grads(want_leaves)):
            if g is None or w is None:
                assert g is None and w is None
            else:
                np.testing.assert_array_equal(g, w)
    assert accepted >= 3 and rejected >= 10            # both outcomes well exercised


def test_one_array_under_two_tensors_is_cached_and_serves_only_graphs_sharing_it():
    """h * h.detach() reads one array through two tensors: its Program names either
    (graph.aliases puts the pair in the key) and is reused step after step; the same
    structure over two arrays (h * c) gets a Program of its own, not the shared one's."""
    ch = {"op": 0, "share": 2, "shape": 0, "k": 0, "axis": 0, "b_sg": 0, "roots": 0}
    for seed in range(3):                # lowered once, then hits
        roots, leaves = _build(ch, seed)
        key = Graph(roots).key
        paddle.autograd.backward(roots)
    assert key[-2] == "alias"
    info = paddle.cache_info()
    assert info.misses == 1 and info.hits >= 1 and info.uncacheable == 0
    for share in (2, 3, 2, 3):           # taking turns: each through its own Program
        ch["share"] = share
        roots, leaves = _build(ch, 7)
        paddle.autograd.backward(roots)
        want, want_leaves = _build(ch, 7)
        fresh_backward(want)
        for g, w in zip(_grads(leaves), _grads(want_leaves)):
            if g is None or w is None:
                assert g is None and w is None
            else:
                np.testing.assert_array_equal(g, w)
    assert paddle.cache_info().uncacheable == 0


def _step_writing_in_place(scale):
    """h = tanh(x); g = h * 3; h += w; loss = sum(g * h): the multiply read h's old
    version, now rebound to the add's node. x.grad = (6t + 3w)(1 - t^2), w.grad = 3t."""
    x = TT(np.array([0.5, -1.0, 2.0]) * scale, dtype="float64", stop_gradient=False)
    w = TT([0.5, 0.25, -2.0], dtype="float64", stop_gradient=False)
    h = paddle.tanh(x)
    g = h * 3
    h.add_(w)
    paddle.sum(g * h).backward()
    return x, w


def test_a_graph_with_an_in_place_write_after_a_read_is_cached():
    """The walk rewires the multiply's input to h's old version (tape.rewire_stale, what
    the interpreter's Plan does), so the graph has a key and the next steps hit."""
    for step in range(4):
        x, w = _step_writing_in_place(1.0 + step)
        t = np.tanh(np.array([0.5, -1.0, 2.0]) * (1.0 + step))
        wv = np.array([0.5, 0.25, -2.0])
        np.testing.assert_allclose(x.grad.numpy(), (6 * t + 3 * wv) * (1 - t * t),
                                   rtol=1e-12)
        np.testing.assert_allclose(w.grad.numpy(), 3 * t, rtol=1e-15)
    info = paddle.cache_info()
    assert info.uncacheable == 0 and info.misses == 1 and info.hits >= 2


def test_an_in_place_write_the_gradient_needed_still_raises_on_the_cached_path():
    x = TT([0.5, 1.0], dtype="float32", stop_gradient=False)
    h = paddle.tanh(x)
    g = h * h                            # its gradient reads h's values
    h.add_(TT([1.0, 1.0], dtype="float32"))
    with pytest.raises(RuntimeError, match="in-place"):
        paddle.sum(g).backward()


def test_a_graph_recorded_in_an_older_epoch_is_checked_by_the_matcher_and_still_hits():
    """Nodes from an earlier epoch get the walk's checks (graph.stale) in the matcher: an
    unrelated in-place write (batch_norm's running statistics) keeps the fast path, and a
    write to one of the graph's own inputs still refuses it."""
    ch = {"op": 0, "share": 0, "shape": 0, "k": 0, "axis": 0, "b_sg": 0, "roots": 0}
    for seed in (0, 1):                  # a miss, then a hit compiles the matcher
        roots, _ = _build(ch, seed)
        key = Graph(roots).key
        paddle.autograd.backward(roots)
    entry = _entry(key)
    roots, leaves = _build(ch, 2)
    assert entry.match(roots, tape._epoch) is not None
    roots, leaves = _build(ch, 2)
    tape.bump_epoch()                    # (what any hook, retain_grads, free ... does)
    assert entry.match(roots, tape._epoch) is not None
    stale_roots, stale_leaves = _build(ch, 2)
    leaf = next(t for t in stale_leaves if t is not None)
    leaf._version += 1                   # an in-place write to an input, as bump() does
    tape.bump_epoch()
    assert entry.match(stale_roots, tape._epoch) is None
    hits = paddle.cache_info().hits
    paddle.autograd.backward(roots)
    assert paddle.cache_info().hits == hits + 1
    want, want_leaves = _build(ch, 2)
    fresh_backward(want)
    for g, w in zip(_grads(leaves), _grads(want_leaves)):
        if w is not None:
            np.testing.assert_array_equal(g, w)


def test_a_leaf_hook_or_retain_grads_added_between_steps_is_seen():
    a = TT([0.5, -1.0, 2.0], stop_gradient=False)
    t = np.tanh(a.numpy())
    for step in range(5):
        a.clear_grad()
        if step == 2:
            handle = a.register_hook(lambda g: g * 0.0)
        if step == 3:
            handle.remove()
        h = paddle.tanh(a)
        if step == 4:
            h.retain_grads()
        paddle.sum(h * 3.0).backward()
        want = np.zeros(3) if step == 2 else 3 * (1 - t * t)
        np.testing.assert_allclose(a.grad.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(h.grad.numpy(), np.full(3, 3.0, np.float32))
    info = paddle.cache_info()
    assert info.hits == 1                # step 1 (an emptied hook chain stays off)
    assert info.uncacheable == 3         # steps 2, 3 and 4


def test_multi_root_graphs_differing_in_which_root_owns_a_node_do_not_share_a_program():
    def case(interior):
        x = TT([0.1, 0.2, 0.3], stop_gradient=False)
        c = TT([1.0, 1.0, 1.0], stop_gradient=False)
        h = paddle.tanh(x)
        return x, c, [paddle.tanh(h), h if interior else c]

    for first in (True, False):
        paddle.cache_clear()
        for interior in (first, not first):
            x, c, roots = case(interior)
            x0, c0, roots0 = case(interior)
            paddle.autograd.backward(roots)
            fresh_backward(roots0)
            np.testing.assert_array_equal(x.grad.numpy(), x0.grad.numpy())
            assert (c.grad is None) == (c0.grad is None)
        info = paddle.cache_info()
        assert info.misses == 2 and info.hits == 0


def test_the_cache_switch_is_read_on_every_backward(monkeypatch):
    x = TT([0.5, 2.0], stop_gradient=False)
    for value, on in (("1", False), ("0", True), ("", True), ("yes", False), (None, True)):
        if value is None:
            monkeypatch.delenv("JITGRAD_NO_STRUCTURAL", raising=False)
        else:
            monkeypatch.setenv("JITGRAD_NO_STRUCTURAL", value)
        monkeypatch.setattr(config, "SETTINGS", config.Settings.from_env())
        assert executor.caching_enabled() is on
        before = paddle.cache_info()
        x.clear_grad()
        paddle.sum(paddle.tanh(x)).backward()
        info = paddle.cache_info()
        used = info.hits + info.misses + info.interpreted > \
            before.hits + before.misses + before.interpreted
        assert used is on
        np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.numpy()) ** 2, rtol=1e-6)


def _summed_over_axis_0():
    """(x, key, entry with its matcher, a new graph of that key, its inner sum node) for
    sum(sum(x * x, axis=0)), after a miss and a hit (which compiles the matcher)."""
    x = TT(np.arange(6, dtype=np.float32).reshape(2, 3), stop_gradient=False)
    for _ in range(2):
        loss = paddle.sum(paddle.sum(x * x, axis=0))
        key = Graph([loss]).key
        loss.backward()
    loss = paddle.sum(paddle.sum(x * x, axis=0))
    return x, key, _entry(key), loss, loss._node.inputs[0]._node


def test_an_attribute_equal_but_of_another_type_is_not_a_match():
    """The matcher compares normalised attributes (graph.attrs_key), as the key does: a
    one-element array is not the tuple it compares equal to (`(0,) == array([0])` is
    array([True]))."""
    x, key, entry, loss, inner = _summed_over_axis_0()
    assert inner.attrs["axes"] == (0,)
    assert entry.match([loss], tape._epoch) is not None
    inner.attrs = {**inner.attrs, "axes": np.array([0])}   # (attribute dicts are shared)
    assert entry.match([loss], tape._epoch) is None
    assert Graph([loss]).key != key
    before = paddle.cache_info()
    x.clear_grad()
    loss.backward()                      # its own Program (the same gradient)
    info = paddle.cache_info()
    assert (info.hits, info.misses) == (before.hits, before.misses + 1)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x.numpy())


@pytest.mark.parametrize("other", [(np.int64(0),), [0], (False,), (0.0,), (0, 1), ()])
def test_a_tuple_of_ints_matches_only_a_tuple_of_those_ints(other):
    """The matcher's inline check of an int tuple attribute (axes, shapes) is as strict as
    the key: numpy ints, bools and floats compare equal to ints but normalise apart."""
    _, key, entry, loss, inner = _summed_over_axis_0()
    assert entry.match([loss], tape._epoch) is not None
    inner.attrs = {**inner.attrs, "axes": other}
    assert entry.match([loss], tape._epoch) is None
    assert Graph([loss]).key != key


def _sliced(key_value):
    """(key, entry, a new graph of that key, its getitem node) for sum(x[key_value] * 2),
    after a miss and a hit (which compiles the matcher)."""
    x = TT(np.arange(12, dtype=np.float32).reshape(3, 4), stop_gradient=False)
    for _ in range(2):
        loss = paddle.sum(x[key_value] * 2)
        key = Graph([loss]).key
        loss.backward()
    loss = paddle.sum(x[key_value] * 2)
    node = loss._node.inputs[0]._node.inputs[0]._node
    assert node.op.name == "getitem"
    return key, _entry(key), loss, node


@pytest.mark.parametrize("recorded", [(slice(None), slice(1, 3)), slice(0, 2),
                                      (Ellipsis, slice(None, 3, 2)), (1, slice(1, None))])
@pytest.mark.parametrize("other", [
    "same", (slice(None), slice(True, 3)), (slice(None), slice(np.int64(1), 3)),
    (slice(None), slice(1, 3, 1)), (slice(None), slice(1, 4)), (slice(None), 1),
    (slice(None),), [slice(None), slice(1, 3)], (Ellipsis, slice(1, 3)), slice(0, 2),
    slice(0, 2, None), (slice(None), slice(1.0, 3)), (1, slice(1, None)),
    (np.int64(1), slice(1, None)), (True, slice(1, None)), (None, slice(1, 3))])
def test_an_index_key_matches_exactly_when_the_walks_key_does(recorded, other):
    """getitem's key is compared field by field in the matcher (_norm on slices was ~2 us a
    node): as strict as the key, numpy ints, bools and floats normalising apart."""
    key, entry, loss, node = _sliced(recorded)
    assert entry.match([loss], tape._epoch) is not None
    stored = node.attrs["key"]              # (as getitem recorded it)
    node.attrs = {**node.attrs, "key": copy.deepcopy(stored) if other == "same" else other}
    walked = Graph([loss])
    same = walked.key is not None and walked.key == key
    assert (entry.match([loss], tape._epoch) is not None) == same
    assert same == (other == "same" or _norm(other, False) == _norm(stored, False))
    if "np" in repr(other) or "True" in repr(other) or "1.0" in repr(other):
        assert not same                     # equal under ==, another key


@pytest.mark.parametrize("other", [
    "same", ([1, 1], [1, 1]), ((np.int64(1), 1), (1, 1)), ((True, 1), (1, 1)),
    ((1, 1), (1, 2)), ((1, 1),), ((1, 1), (1, 1), (0, 0)), ((1.0, 1), (1, 1)), (1, 1, 1, 1)])
def test_nested_int_tuples_match_exactly_when_the_walks_key_does(other):
    """im2col's pads ((top, bottom), (left, right)) are compared item by item in the
    matcher: as strict as the key."""
    x = TT(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4), stop_gradient=False)
    for _ in range(2):
        loss = paddle.sum(paddle.nn.functional.unfold(x * 2, 3, paddings=1))
        key = Graph([loss]).key
        loss.backward()
    loss = paddle.sum(paddle.nn.functional.unfold(x * 2, 3, paddings=1))
    entry = _entry(key)
    assert entry.match([loss], tape._epoch) is not None
    node = next(n for n in Graph([loss]).nodes if n.op.name == "im2col")
    assert node.attrs["pads"] == ((1, 1), (1, 1))
    node.attrs = {**node.attrs, "pads": ((1, 1), (1, 1)) if other == "same" else other}
    walked = Graph([loss])
    same = walked.key is not None and walked.key == key
    assert (entry.match([loss], tape._epoch) is not None) == same
    assert same == (other == "same")


def test_long_same_shape_chains_check_distinct_nodes_with_one_set():
    """Two 12-op tanh chains: many nodes of equal signature, so the matcher tests node
    distinctness with one set of ids; one chain used twice must not pass for two."""
    x = TT([0.3, -0.2], stop_gradient=False)

    def chain():
        h = x
        for _ in range(12):
            h = paddle.tanh(h)
        return h

    def two():
        return paddle.sum(chain() * chain())

    def one():
        h = chain()
        return paddle.sum(h * h)

    for build in (two, two, two, one, two, one):
        x.clear_grad()
        loss = build()
        want_x = TT(x.numpy(), stop_gradient=False)
        h = want_x
        for _ in range(12):
            h = paddle.tanh(h)
        fresh_backward([paddle.sum(h * h)])
        loss.backward()
        np.testing.assert_allclose(x.grad.numpy(), want_x.grad.numpy(), rtol=1e-6)
    info = paddle.cache_info()
    assert info.misses == 2 and info.hits == 4


def test_two_graphs_taking_turns_both_hit_through_their_matchers(monkeypatch):
    """A GAN-like loop alternates two graphs: the entry before the most recent one is
    tried too; gradients stay those of a fresh lowering. Eviction of that entry (a cache
    bound to one Program) leaves nothing stale behind."""
    w = TT(np.full((3,), 0.5, np.float32), stop_gradient=False)

    def g1():
        return paddle.sum(paddle.tanh(w) * 2.0)

    def g2():
        return paddle.sum(paddle.exp(w * w))

    def want(build):
        c = TT(w.numpy(), stop_gradient=False)
        loss = paddle.sum(paddle.tanh(c) * 2.0) if build is g1 else paddle.sum(paddle.exp(c * c))
        fresh_backward([loss])
        return c.grad.numpy()

    walked = []                          # key walks (Graph without a matcher's result)
    real_graph = executor.Graph

    def counted(roots, targets=None, stop=None, nodes=None, tensors=None, key=None):
        if nodes is None:
            walked.append(1)
        return real_graph(roots, targets, stop, nodes, tensors, key)

    monkeypatch.setattr(executor, "Graph", counted)
    keys = [Graph([g]).key for g in (g1(), g2())]
    one_program = max(executor.lower([g()], quick=q)[0].nbytes for g in (g1, g2)
                      for q in (False, True))   # (a first lowering is quick, lower.py)
    for limit in (None, one_program):
        paddle.cache_clear()
        if limit is not None:
            paddle.set_cache_limit(limit)
        for step in range(8):
            if step == 4:
                walked.clear()           # from here on the matchers decide alone
            build = g1 if step % 2 == 0 else g2
            w.clear_grad()
            build().backward()
            np.testing.assert_allclose(w.grad.numpy(), want(build), rtol=1e-6)
        info = paddle.cache_info()
        if limit is None:
            assert (info.misses, info.hits, info.programs) == (2, 6, 2)
            assert all(_entry(k).match for k in keys)
            assert walked == []
        else:                            # each graph evicts the other: all misses
            assert (info.misses, info.hits, info.programs) == (8, 0, 1)
            assert info.bytes <= limit


def test_shared_attribute_dicts_match_by_identity_and_others_field_by_field():
    """mean's node keeps one shared attributes dict: the matcher recognises it by identity.
    A dict of equal values but another type (keepdim 0 for False, which the key tells
    apart) is not that dict and is refused; a new dict of the same typed values matches."""
    from jitgrad.compile.matcher import compile_matcher

    def graph():
        x = TT(np.ones((2, 3), "float32"), stop_gradient=False)
        return (x * 2.0).mean()

    first = graph()
    g = Graph([first])
    match = compile_matcher(g.key, g)
    assert match is not None
    root = graph()
    assert match([root], tape.epoch()) is not None
    mean_node = root._node
    mean_node.attrs = {"axes": None, "keepdim": 0}
    assert match([root], tape.epoch()) is None
    assert Graph([root]).key != g.key
    mean_node.attrs = {"axes": None, "keepdim": False}
    assert match([root], tape.epoch()) is not None
    assert Graph([root]).key == g.key
