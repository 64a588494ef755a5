"""The large graphs' matcher (matcher.PlanMatcher: compile_matcher's checks read from
tables) decides as the generated one does: test_graph_matcher's cases run again here with
every graph given a PlanMatcher, and a graph past MATCH_MAX_NODES gets one."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor, matcher
from jitgrad.core import config

from test_graph_matcher import *  # noqa: F401,F403  (the same cases, collected again here)


@pytest.fixture(autouse=True)
def every_graph_gets_a_plan_matcher(monkeypatch):
    monkeypatch.setattr(matcher, "MATCH_MAX_NODES", 0)


def _chain(n, x0, w0):
    x = paddle.to_tensor(x0)
    w = paddle.to_tensor(w0, stop_gradient=False)
    h = x
    for _ in range(n):
        h = paddle.tanh(h * w) + h
    return h.sum(), w


def test_a_large_graph_hits_through_its_plan_matcher(monkeypatch):
    monkeypatch.setattr(matcher, "MATCH_MAX_NODES", 400)
    rng = np.random.default_rng(0)
    x0, w0 = rng.standard_normal((3, 4)), rng.uniform(0.1, 0.3, 4)
    paddle.cache_clear()
    grads = []
    for _ in range(4):
        loss, w = _chain(250, x0, w0)           # 750 nodes
        loss.backward()
        grads.append(w.grad.numpy())
    entry, = executor.CACHE._entries.values()
    assert isinstance(entry.match, matcher.PlanMatcher)
    assert paddle.cache_info().hits >= 2
    loss, w = _chain(250, x0, w0)
    with config.override(program_cache=False):
        loss.backward()
    for g in grads:
        np.testing.assert_array_equal(g, w.grad.numpy())


def test_a_large_graph_of_another_structure_is_no_match(monkeypatch):
    monkeypatch.setattr(matcher, "MATCH_MAX_NODES", 400)
    rng = np.random.default_rng(1)
    x0, w0 = rng.standard_normal((3, 4)), rng.uniform(0.1, 0.3, 4)
    loss, _ = _chain(200, x0, w0)
    from jitgrad.compile.graph import Graph
    from jitgrad.core import tape
    g = Graph([loss])
    m = matcher.compile_matcher(g.key, g)
    assert isinstance(m, matcher.PlanMatcher)
    assert m([_chain(200, x0, w0)[0]], tape.epoch()) is not None
    assert m([_chain(199, x0, w0)[0]], tape.epoch()) is None           # a step shorter
    assert m([_chain(200, x0[:2], w0)[0]], tape.epoch()) is None       # another shape
    x = paddle.to_tensor(x0)
    w = paddle.to_tensor(w0, stop_gradient=False)
    h = x
    for i in range(200):
        h = (paddle.tanh(h * w) if i != 100 else paddle.sin(h * w)) + h
    assert m([h.sum()], tape.epoch()) is None                           # one op differs
