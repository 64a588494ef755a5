"""Models of one structure taking turns keep one cached Program each (structural family).

Before, two such models shared one Program that was pointed at the other model's
parameters at every switch (its leaf gradients copied out, its replay state rebuilt):
W1-sized models alternating took 114 us a step instead of 33.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import autograd, structural

TT = paddle.to_tensor
pytestmark = pytest.mark.usefixtures("fresh_structural_cache")


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
    autograd.run_backward([loss], [None], False, cache=False)
    return w.grad.numpy(), b.grad.numpy()


def step(model, x):
    model.w.clear_grad()
    model.b.clear_grad()
    model.loss(x).backward()
    return model.w.grad.numpy(), model.b.grad.numpy()


def test_two_models_taking_turns_keep_a_program_each():
    models = [Model(0), Model(1)]
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    programs = {}
    for i in range(6):
        m = models[i % 2]
        got = step(m, x)
        for g, w in zip(got, expected(m, x)):
            np.testing.assert_array_equal(g, w)
        entry = structural._mru
        assert entry.prog.outputs[0][0] is m.w or entry.prog.outputs[1][0] is m.w
        programs.setdefault(i % 2, entry.prog)
        assert entry.prog is programs[i % 2]          # never retargeted to the other model
    assert programs[0] is not programs[1]
    assert len(structural._mru.family) == 2
    assert structural.stats == {"hits": 5, "misses": 1, "uncacheable": 0}


def test_fresh_inputs_needing_gradients_reuse_one_program():
    w = TT(np.ones((4, 3), np.float32), stop_gradient=False)
    for i in range(6):                     # x of the step before is dropped: retargeted
        x = TT(np.full((2, 4), i / 10, np.float32), stop_gradient=False)
        paddle.sum(paddle.tanh(paddle.matmul(x, w))).backward()
        u = 4 * i / 10                     # every entry of x @ w
        np.testing.assert_allclose(x.grad.numpy(), np.full((2, 4), 3 * (1 - np.tanh(u) ** 2)),
                                   rtol=1e-6)
    assert len(structural._mru.family) == 1


def test_more_live_models_than_the_family_holds_still_get_their_gradients():
    models = [Model(s) for s in range(structural.MAX_FAMILY + 2)]
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    for rounds in range(2):
        for m in models:
            for g, w in zip(step(m, x), expected(m, x)):
                np.testing.assert_array_equal(g, w)
    assert len(structural._mru.family) == structural.MAX_FAMILY


def test_clearing_the_cache_leaves_every_models_gradients_in_place():
    models = [Model(0), Model(1)]
    x = TT(np.ones((2, 4), np.float32))
    grads = [step(m, x) for m in models]
    structural.clear()                     # the arenas go; the leaves keep copies
    for m, (gw, gb) in zip(models, grads):
        np.testing.assert_array_equal(m.w.grad.numpy(), gw)
        np.testing.assert_array_equal(m.b.grad.numpy(), gb)
