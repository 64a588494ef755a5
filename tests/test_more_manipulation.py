"""ops/more_manipulation.py: values as measured on Paddle 3.3.1, gradients against finite
differences on every backward path (jitgrad.testing.check_grads)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor
RNG = np.random.default_rng(0)


def test_unflatten_splits_one_dim():
    t = paddle.arange(24, dtype="float32").reshape([2, 12])
    assert paddle.unflatten(t, 1, [3, -1]).shape == [2, 3, 4]
    assert paddle.unflatten(t, -1, (2, 2, 3)).shape == [2, 2, 2, 3]
    assert t.unflatten(0, [1, 2]).shape == [1, 2, 12]
    with pytest.raises(ValueError, match="cannot reshape"):
        paddle.unflatten(t, 1, [5, -1])
    check_grads(lambda x: paddle.unflatten(x, 0, [2, 3]), RNG.standard_normal((6, 2)))


def test_block_diag_places_blocks_on_the_diagonal():
    a = TT([[1.0, 2.0]], stop_gradient=False)
    b = TT([3.0], stop_gradient=False)
    c = TT(4.0, stop_gradient=False)
    m = paddle.block_diag([a, b, c])
    assert m.tolist() == [[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    (m * paddle.arange(12, dtype="float32").reshape([3, 4])).sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0]] and b.grad.tolist() == [6.0] and c.grad.item() == 11
    with pytest.raises(ValueError, match="share one dtype"):
        paddle.block_diag([TT([1, 2]), TT([[1.5]])])
    check_grads(lambda x, y: paddle.block_diag([x, y]), RNG.standard_normal((2, 3)),
                RNG.standard_normal((2, 2)))


def test_cartesian_prod_lists_every_combination():
    p = TT([1.0, 2.0], stop_gradient=False)
    q = TT([3.0, 4.0, 5.0], stop_gradient=False)
    cp = paddle.cartesian_prod([p, q])
    assert cp.tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    cp.sum().backward()
    assert p.grad.tolist() == [3.0, 3.0] and q.grad.tolist() == [2.0, 2.0, 2.0]
    assert paddle.cartesian_prod([p]) is p
    with pytest.raises(ValueError, match="1-D"):
        paddle.cartesian_prod([p, paddle.ones([2, 2])])


def test_take_along_dim_is_take_along_axis():
    a = TT(np.arange(6, dtype="float32").reshape(2, 3))
    assert paddle.take_along_dim(a, TT([[0], [2]]), 1).tolist() == [[0.0], [5.0]]
