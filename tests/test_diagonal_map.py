"""diagonal, trace and diag take their position tables from one read-only table per shape
and arguments (matrix._diagonal_map): numpy's values, gradients and errors."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.matrix import _diagonal_map
from jitgrad.testing import check_grads


@pytest.mark.parametrize("shape, offset, a1, a2", [((4, 5), 0, 0, 1), ((4, 5), 2, 0, 1),
                                                    ((4, 5), -3, 0, 1), ((2, 3, 4), 1, 2, 0),
                                                    ((3, 3), 5, 0, 1), ((2, 3, 4), 0, -1, -2)])
def test_diagonal_gives_numpys_values_each_call(shape, offset, a1, a2):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for _ in range(2):
        got = paddle.diagonal(paddle.to_tensor(x), offset, a1, a2)
        np.testing.assert_array_equal(got.numpy(), np.diagonal(x, offset, a1, a2))
    idx, _ = _diagonal_map(shape, offset, a1, a2)
    assert idx is _diagonal_map(shape, offset, a1, a2)[0] and not idx.flags.writeable


def test_trace_and_diag_values_and_gradients():
    x = np.random.default_rng(0).standard_normal((5, 5))
    assert paddle.trace(paddle.to_tensor(x), 1).item() == np.trace(x, 1)
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(paddle.diag(paddle.to_tensor(v), -1).numpy(), np.diag(v, -1))
    np.testing.assert_array_equal(paddle.diag(paddle.to_tensor(v), 1, 7.0).numpy(),
                                  np.diag(v, 1) + 7.0 * (1 - np.eye(4, k=1)))
    check_grads(lambda t: paddle.diagonal(t, 1), x)
    check_grads(lambda t: paddle.trace(t) * paddle.trace(t), x)
    check_grads(lambda t: paddle.diag(t, 1), v)


def test_diagonal_rejects_bad_axes_as_numpy_does():
    t = paddle.to_tensor(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        paddle.diagonal(t, 0, 0, 0)
    with pytest.raises((ValueError, IndexError)):
        paddle.diagonal(t, 0, 0, 5)
    with pytest.raises(TypeError):
        paddle.diagonal(t, [1])
    paddle.diagonal(t, 1)                           # (a float offset is not the int's map)
    with pytest.raises(TypeError):
        paddle.diagonal(t, 1.0)
