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
