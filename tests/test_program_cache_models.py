"""Models of one structure taking turns share one cached Program, and each keeps its own
gradients.

The Program is pure data; each step binds its own graph (values and the leaves' `.grad`
arrays) to it (binding.py). Before (the structural cache's "families"), two such models
needed one Program copy each, or one Program pointed at the other model's parameters at
every switch.
"""


import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config

TT = paddle.to_tensor
pytestmark = pytest.mark.usefixtures("fresh_cache")


class Model:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.w = TT(rng.standard_normal((4, 3)).astype(np.float32), stop_gradient=False)
        self.b = TT(rng.standard_normal(3).astype(np.float32), stop_gradient=False)

    def loss(self, x):
        return paddle.sum(paddle.tanh(paddle.matmul(x, self.w) + self.b))


def expected(model, x):
    """The same gradients without the cache (a fresh lowering)."""
    w, b = (TT(p.numpy(), stop_gradient=False) for p in (model.w, model.b))
    loss = paddle.sum(paddle.tanh(paddle.matmul(x, w) + b))
    with config.override(program_cache=False):
        paddle.autograd.backward([loss])
    return w.grad.numpy(), b.grad.numpy()


def step(model, x):
    model.w.clear_grad()
    model.b.clear_grad()
    model.loss(x).backward()
    return model.w.grad.numpy(), model.b.grad.numpy()


def test_two_models_taking_turns_both_hit_and_keep_their_own_gradients():
    models = [Model(0), Model(1)]
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    last = {}
    for i in range(6):
        m, other = models[i % 2], models[1 - i % 2]
        got = step(m, x)
        for g, w in zip(got, expected(m, x)):
            np.testing.assert_array_equal(g, w)
        if (i + 1) % 2 in last:                  # the other model's step left it alone
            for p, g in zip((other.w, other.b), last[(i + 1) % 2]):
                np.testing.assert_array_equal(p.grad.numpy(), g)
        last[i % 2] = [g.copy() for g in got]
    info = paddle.cache_info()
    assert (info.hits, info.misses, info.uncacheable, info.programs) == (5, 1, 0, 1)
    for m in models:                             # arrays of their own, no arena views
        for p in (m.w, m.b):
            assert p._grad.flags.owndata


def test_fresh_inputs_needing_gradients_reuse_one_program():
    w = TT(np.ones((4, 3), np.float32), stop_gradient=False)
    for i in range(6):                     # x of the step before is dropped
        x = TT(np.full((2, 4), i / 10, np.float32), stop_gradient=False)
        paddle.sum(paddle.tanh(paddle.matmul(x, w))).backward()
        u = 4 * i / 10                     # every entry of x @ w
        np.testing.assert_allclose(x.grad.numpy(), np.full((2, 4), 3 * (1 - np.tanh(u) ** 2)),
                                   rtol=1e-6)
    info = paddle.cache_info()
    assert (info.hits, info.misses, info.programs) == (5, 1, 1)


def test_many_live_models_of_one_structure_share_one_program():
    models = [Model(s) for s in range(6)]      # (more than the old family of 4 held)
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    for rounds in range(2):
        for m in models:
            for g, w in zip(step(m, x), expected(m, x)):
                np.testing.assert_array_equal(g, w)
    info = paddle.cache_info()
    assert (info.hits, info.misses, info.programs) == (2 * len(models) - 1, 1, 1)


def test_clearing_the_cache_leaves_every_models_gradients_in_place():
    models = [Model(0), Model(1)]
    x = TT(np.ones((2, 4), np.float32))
    grads = [step(m, x) for m in models]
    paddle.cache_clear()                   # Programs and Workspaces go; the grads stay
    assert paddle.cache_info().programs == 0
    for m, (gw, gb) in zip(models, grads):
        np.testing.assert_array_equal(m.w.grad.numpy(), gw)
        np.testing.assert_array_equal(m.b.grad.numpy(), gb)
