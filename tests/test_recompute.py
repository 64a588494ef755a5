"""paddle.distributed.fleet.utils.recompute: the same values and gradients as running the
function directly, the forward run again in the backward with the same random state."""

import numpy as np
import pytest

import jitgrad as paddle

recompute = paddle.distributed.fleet.utils.recompute


def _block(seed):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Dropout(0.5),
                                paddle.nn.Linear(8, 3))


def _grads(use_recompute):
    block = _block(0)
    x = paddle.to_tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype("float32"),
                         stop_gradient=False)
    paddle.seed(7)                          # the dropout mask
    y = recompute(block, x) if use_recompute else block(x)
    (y * y).sum().backward()
    return y.numpy(), x.grad.numpy(), [p.grad.numpy() for p in block.parameters()]


def test_recompute_gives_the_direct_values_and_gradients_dropout_included():
    y0, gx0, gp0 = _grads(False)
    y1, gx1, gp1 = _grads(True)
    np.testing.assert_array_equal(y1, y0)
    np.testing.assert_allclose(gx1, gx0, rtol=1e-6)
    for a, b in zip(gp1, gp0):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert any((g != 0).any() for g in gp1)


def test_recompute_keeps_no_graph_inside_and_takes_keywords():
    w = paddle.to_tensor([2.0, 3.0], stop_gradient=False)
    x = paddle.to_tensor([1.0, 4.0], stop_gradient=False)

    def f(a, scale=1.0):
        return (a * w).exp() * scale

    y = recompute(f, x, scale=2.0)
    assert y._node.op.name != "exp"         # one recorded node: the recompute itself
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.array([2.0, 3.0]) *
                               np.exp([2.0, 12.0]), rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), 2.0 * np.array([1.0, 4.0]) *
                               np.exp([2.0, 12.0]), rtol=1e-6)


def test_recompute_refuses_a_function_that_is_not_callable():
    with pytest.raises(TypeError, match="callable"):
        recompute(3, paddle.to_tensor([1.0]))


def _penalty_grads(use_recompute):
    """A gradient penalty through a block that uses w, fed by z @ w (w used outside too)."""
    w = paddle.to_tensor([[0.5, -1.0], [2.0, 0.3]], dtype="float64", stop_gradient=False)
    z = paddle.to_tensor([[1.0, 2.0], [0.3, -0.4]], dtype="float64", stop_gradient=False)
    x = paddle.matmul(z, w)

    def block(t):
        return paddle.tanh(paddle.matmul(t, w))

    y = recompute(block, x) if use_recompute else block(x)
    (g,) = paddle.grad(y.sum(), z, create_graph=True)
    return [t.numpy() for t in [g, *paddle.grad((g ** 2).sum(), [z, w])]]


def test_recompute_stays_differentiable_in_a_create_graph_backward():
    # the penalty's gradients were None (Paddle 3.3.1's reentrant recompute gives None
    # too: measured); they must be those of the block run directly, w counted once
    direct, recomputed = _penalty_grads(False), _penalty_grads(True)
    for a, b in zip(recomputed, direct):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _penalty_by_backward(use_recompute):
    """backward(create_graph=True), then the penalty's backward: dropout, two outputs."""
    w = paddle.to_tensor([[0.5, -1.0], [2.0, 0.3]], dtype="float64", stop_gradient=False)
    x = paddle.to_tensor([[1.0, 2.0], [0.3, -0.4]], dtype="float64", stop_gradient=False)
    drop = paddle.nn.Dropout(0.3)

    def block(t):
        return drop(paddle.tanh(paddle.matmul(t, w))), t.sum()

    paddle.seed(3)
    o, s = recompute(block, x) if use_recompute else block(x)
    ((o ** 2).sum() + s ** 2).backward(create_graph=True)
    gx, gw = x.grad, w.grad
    firsts = [gx.numpy(), gw.numpy()]
    x.clear_grad()
    w.clear_grad()
    ((gx ** 2).sum() + (gw ** 2).sum()).backward()
    return firsts + [x.grad.numpy(), w.grad.numpy()]


def test_recompute_penalty_by_backward_matches_the_direct_block():
    # the parameters' second-order terms that pass through the block's outputs arrive by
    # accumulation (the reentrant design: ask for them with backward(), not grad())
    for a, b in zip(_penalty_by_backward(True), _penalty_by_backward(False)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
