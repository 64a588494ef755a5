"""The structural program cache: hits on identical steps, misses on anything baked in."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import autograd, structural

TT = paddle.to_tensor


pytestmark = pytest.mark.usefixtures("fresh_structural_cache")


def _mlp(seed=0, batch=1, sizes=(4, 6, 1)):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params.append(TT(rng.standard_normal((a, b)).astype(np.float32), stop_gradient=False))
        params.append(TT(rng.standard_normal(b).astype(np.float32), stop_gradient=False))
    x = TT(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    return params, x


def _loss(params, x):
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    return paddle.sum(paddle.matmul(h, params[2]) + params[3])


def _fresh_grads(params, x):
    """The same gradients through a fresh lowering (no structural cache)."""
    copies = [TT(p.numpy().copy(), stop_gradient=False) for p in params]
    loss = _loss(copies, x)
    autograd.run_backward([loss], [None], False, cache=False)
    return [p.grad.numpy() for p in copies]


def _sgd_step(params, x, lr=0.1):
    loss = _loss(params, x)
    loss.backward()
    grads = [p.grad.numpy().copy() for p in params]
    for p in params:
        p._data -= lr * p._grad
        p.clear_grad()
    return grads


def test_second_identical_step_hits_and_matches_a_fresh_lowering():
    params, x = _mlp()
    before = dict(structural.stats)
    for step in range(3):
        want = _fresh_grads(params, x)
        got = _sgd_step(params, x)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert structural.stats["misses"] - before["misses"] == 1
    assert structural.stats["hits"] - before["hits"] == 2


def test_gradients_match_finite_differences_after_hits():
    params, x = _mlp(seed=1)
    for _ in range(2):
        _sgd_step(params, x)
    p64 = [TT(p.numpy().astype(np.float64), stop_gradient=False) for p in params]
    x64 = TT(x.numpy().astype(np.float64))
    got = _sgd_step(params, x, lr=0.0)          # a cache hit
    W = p64[0]._data                             # perturbed in place
    eps, i, j = 1e-6, 1, 2
    for sign in (1, -1):
        W[i, j] += sign * eps
        val = float(_loss(p64, x64).numpy())
        W[i, j] -= sign * eps
        if sign == 1:
            plus = val
        else:
            minus = val
    np.testing.assert_allclose(got[0][i, j], (plus - minus) / (2 * eps), rtol=1e-4)


def test_misses_when_a_shape_differs():
    params, x = _mlp(batch=1)
    _sgd_step(params, x, lr=0.0)
    misses = structural.stats["misses"]
    _, x3 = _mlp(batch=3)
    got = _sgd_step(params, x3, lr=0.0)
    assert structural.stats["misses"] == misses + 1
    for g, w in zip(got, _fresh_grads(params, x3)):
        np.testing.assert_array_equal(g, w)


def test_misses_when_an_attribute_differs():
    w = TT(np.arange(6, dtype=np.float32).reshape(2, 3), stop_gradient=False)
    paddle.sum(paddle.sum(w * w, axis=0)).backward()
    misses = structural.stats["misses"]
    w.clear_grad()
    paddle.sum(paddle.sum(w * w, axis=1)).backward()
    assert structural.stats["misses"] == misses + 1
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.numpy())


def test_misses_when_a_baked_constant_differs():
    # a one-element factor is folded into the Program as a constant K
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    for k in (2.0, 5.0):
        x.clear_grad()
        paddle.sum(x * TT([k])).backward()
        np.testing.assert_allclose(x.grad.numpy(), [k] * 3)
    assert structural.stats["misses"] == 2 and structural.stats["hits"] == 0
    x.clear_grad()
    paddle.sum(x * TT([5.0])).backward()        # the same constant again: a hit
    assert structural.stats["hits"] == 1
    np.testing.assert_allclose(x.grad.numpy(), [5.0] * 3)


def test_sharing_is_part_of_the_key():
    a = TT([1.0, 2.0], stop_gradient=False)
    b = TT([3.0, 4.0], stop_gradient=False)
    paddle.sum(paddle.tanh(a) * paddle.tanh(b)).backward()
    a.clear_grad()
    paddle.sum(paddle.tanh(a) * paddle.tanh(a)).backward()   # one leaf used twice
    t = np.tanh(a.numpy())
    np.testing.assert_allclose(a.grad.numpy(), 2 * t * (1 - t * t), rtol=1e-6)


def test_other_leaves_with_the_same_structure_keep_their_gradients():
    p1, x = _mlp(seed=2)
    p2, _ = _mlp(seed=3)
    _loss(p1, x).backward()
    g1 = [p.grad.numpy().copy() for p in p1]
    _loss(p2, x).backward()                     # a hit, rebound to other leaves
    assert structural.stats["hits"] == 1
    for p, g in zip(p1, g1):
        np.testing.assert_array_equal(p.grad.numpy(), g)
    for g, w in zip([p.grad.numpy() for p in p2], _fresh_grads(p2, x)):
        np.testing.assert_array_equal(g, w)


def test_never_used_with_retain_grads_or_unlisted_ops():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    hits = structural.stats["hits"]
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    h.retain_grads()
    paddle.sum(paddle.matmul(h, params[2]) + params[3]).backward()
    assert h.grad is not None
    y = TT([1.0, 2.0, 3.0], stop_gradient=False)
    for _ in range(2):
        paddle.sum(y[1:]).backward()            # getitem is not whitelisted
    assert structural.stats["hits"] == hits


def test_retained_graph_uses_its_own_program():
    params, x = _mlp()
    loss = _loss(params, x)
    loss.backward(retain_graph=True)
    loss.backward()
    hits, misses = structural.stats["hits"], structural.stats["misses"]
    assert hits == 0 and misses == 0


def test_an_in_place_change_after_recording_still_raises():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    h = paddle.matmul(x, params[0])
    loss = paddle.sum(paddle.tanh(h + params[1]))
    x.add_(TT(np.ones_like(x.numpy())))      # matmul reads x for params[0]'s gradient
    with pytest.raises(RuntimeError, match="in-place"):
        loss.backward()


def test_interior_sharing_is_part_of_the_key():
    a = TT([0.5, -1.0], stop_gradient=False)
    t = np.tanh(a.numpy())
    want_one = 2 * t * (1 - t * t)                   # d/da sum(tanh(a)^2)
    for _ in range(2):
        a.clear_grad()
        h = paddle.tanh(a)
        paddle.sum(h * h).backward()                 # one tanh node used twice
        np.testing.assert_allclose(a.grad.numpy(), want_one, rtol=1e-6)
        a.clear_grad()
        paddle.sum(paddle.tanh(a) * paddle.tanh(a)).backward()    # two tanh nodes
        np.testing.assert_allclose(a.grad.numpy(), want_one, rtol=1e-6)
    assert structural.stats["hits"] == 2 and structural.stats["misses"] == 2


def test_hook_registered_mid_forward_is_not_skipped():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    seen = []
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    h.register_hook(lambda g: seen.append(g.numpy().copy()))
    hits = structural.stats["hits"]
    paddle.sum(paddle.matmul(h, params[2]) + params[3]).backward()
    assert len(seen) == 1 and structural.stats["hits"] == hits


def test_graph_recorded_before_another_backward_still_hits_correctly():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    loss = _loss(params, x)                      # recorded, then the epoch moves on
    other = TT([1.0, 2.0], stop_gradient=False)
    paddle.sum(other * other).backward()
    hits = structural.stats["hits"]
    want = _fresh_grads(params, x)
    loss.backward()
    assert structural.stats["hits"] == hits + 1
    for p, w in zip(params, want):
        np.testing.assert_array_equal(p.grad.numpy(), w)


def test_conv_pool_steps_hit_and_match_a_fresh_lowering():
    """im2col, max_pool2d and concat are admitted through their registry `baked` declarations."""
    import jitgrad.nn.functional as F
    rng = np.random.default_rng(3)
    w = TT(rng.standard_normal((2, 1, 3, 3)), stop_gradient=False)
    b = TT(rng.standard_normal(2), stop_gradient=False)

    def loss_of(w, b, x):
        h = F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 2)
        return paddle.sum(paddle.concat([h, h * h], axis=1))

    before = structural.stats["hits"]
    for step in range(3):
        x = TT(rng.standard_normal((2, 1, 6, 6)))
        w2, b2 = (TT(t.numpy().copy(), stop_gradient=False) for t in (w, b))
        autograd.run_backward([loss_of(w2, b2, x)], [None], False, cache=False)
        loss_of(w, b, x).backward()
        np.testing.assert_array_equal(w.grad.numpy(), w2.grad.numpy())
        np.testing.assert_array_equal(b.grad.numpy(), b2.grad.numpy())
        w.clear_grad()
        b.clear_grad()
    assert structural.stats["hits"] - before == 2
