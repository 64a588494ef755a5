"""Gathers and scatters along an axis (take_along_axis, index_select, put_along_axis,
embedding) compute their flat positions from a stride (ops/shape._along_axis_positions):
values and gradients equal numpy's along every axis, negative indices included, and an
index out of range raises IndexError naming the op."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
SHAPE = (3, 4, 5)


def _data():
    return np.arange(60, dtype=np.float32).reshape(SHAPE) / 7


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_take_along_axis_with_negative_indices_matches_numpy(axis):
    a = _data()
    n = SHAPE[axis]
    shape = list(SHAPE)
    shape[axis] = 2
    idx = (np.arange(np.prod(shape)).reshape(shape) % (2 * n)) - n     # -n .. n-1
    x = TT(a, stop_gradient=False)
    y = paddle.take_along_axis(x, TT(idx), axis)
    np.testing.assert_array_equal(y.numpy(), np.take_along_axis(a, idx, axis))
    y.sum().backward()
    expected = np.zeros_like(a)
    np.add.at(expected.reshape(-1),
              np.take_along_axis(np.arange(60).reshape(SHAPE), idx, axis).ravel(), 1)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_index_select_with_negative_indices_matches_numpy(axis):
    a = _data()
    idx = np.array([-1, 0, 1, -1])
    x = TT(a, stop_gradient=False)
    y = paddle.index_select(x, TT(idx), axis)
    np.testing.assert_array_equal(y.numpy(), np.take(a, idx, axis=axis))
    y.sum().backward()
    counts = np.bincount(idx % SHAPE[axis], minlength=SHAPE[axis]).astype(np.float32)
    view = [1, 1, 1]
    view[axis] = SHAPE[axis]
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(counts.reshape(view), SHAPE))


@pytest.mark.parametrize("axis", [0, 2])
def test_put_along_axis_with_negative_indices_matches_numpy(axis):
    a = _data()
    shape = list(SHAPE)
    shape[axis] = 1
    idx = np.full(shape, -1)
    v = np.full(shape, 100.0, np.float32)
    x = TT(a, stop_gradient=False)
    vt = TT(v, stop_gradient=False)
    y = paddle.put_along_axis(x, TT(idx), vt, axis)
    expected = a.copy()
    np.put_along_axis(expected, idx, v, axis)
    np.testing.assert_array_equal(y.numpy(), expected)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (expected != 100.0).astype(np.float32))
    np.testing.assert_array_equal(vt.grad.numpy(), np.ones(shape, np.float32))


@pytest.mark.parametrize("bad", [4, -5])
def test_index_out_of_range_raises_index_error_naming_the_op(bad):
    x = TT(_data())
    idx = np.zeros((3, 1, 5), np.int64)
    idx[1, 0, 2] = bad
    with pytest.raises(IndexError, match=f"take_along_axis: index {bad} is out of bounds "
                                         "for axis 1 with size 4"):
        paddle.take_along_axis(x, TT(idx), 1)
    with pytest.raises(IndexError, match="put_along_axis: index"):
        paddle.put_along_axis(x, TT(idx), 1.0, 1)
    with pytest.raises(IndexError, match="index_select: index"):
        paddle.index_select(x, TT(np.array([0, bad])), 1)


def test_embedding_rows_and_gradient_with_negative_and_repeated_ids():
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    weight = TT(w, stop_gradient=False)
    ids = np.array([[1, -1], [1, 0]])
    y = paddle.nn.functional.embedding(TT(ids), weight)
    np.testing.assert_array_equal(y.numpy(), w[ids % 4])
    y.sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy()[:, 0], [1, 2, 0, 1])
    with pytest.raises(IndexError, match=r"embedding: ids must lie in \[0, 4\)"):
        paddle.nn.functional.embedding(TT(np.array([4])), weight)
