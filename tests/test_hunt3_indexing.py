"""Indexing and scatter behaviours measured on Paddle 3.3.1 by a third hunt."""

import numpy as np
import pytest

import jitgrad as paddle


def _x():
    return paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4),
                            stop_gradient=False)


@pytest.mark.parametrize("key, want", [
    ((1, slice(None), [0, 2]), [[12, 14], [16, 18], [20, 22]]),           # not numpy's [2, 3]
    ((-1, slice(None), [0, 2]), [[12, 14], [16, 18], [20, 22]]),
    ((1, slice(None), [True, False, True, False]), [[12, 14], [16, 18], [20, 22]]),
    ((slice(None), 1, [0, 2]), [[4, 6], [16, 18]]),                        # adjacent: as numpy
    ((1, slice(0, 2), [[0, 1], [2, 3]]), [[[12, 13], [14, 15]], [[16, 17], [18, 19]]])])
def test_an_int_is_basic_indexing_next_to_an_index_array(key, want):
    x = _x()
    y = x[key]
    np.testing.assert_array_equal(y.numpy(), want)
    y.sum().backward()
    g = np.zeros((2, 3, 4), "float32")
    np.add.at(g.reshape(-1), np.asarray(want, int).ravel(), 1)             # values are positions
    np.testing.assert_array_equal(x.grad.numpy(), g)


def test_a_0d_tensor_index_counts_as_an_int():
    x = _x()
    assert x[paddle.to_tensor(1), :, [0, 2]].shape == [3, 2]


def test_setitem_writes_in_the_same_order():
    z = paddle.zeros([2, 3, 4])
    z[1, :, [0, 2]] = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert z[1].tolist() == [[1, 0, 2, 0], [3, 0, 4, 0], [5, 0, 6, 0]]
    w = paddle.zeros([2, 3, 4])
    v = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], stop_gradient=False)
    w.stop_gradient = False
    w = w * 1.0
    w[1, :, [0, 2]] = v
    (w * paddle.arange(24, dtype="float32").reshape([2, 3, 4])).sum().backward()
    assert v.grad.tolist() == [[12, 14], [16, 18], [20, 22]]


@pytest.mark.parametrize("reduce", ["assign", "add", "multiply", "mean", "amax", "amin"])
def test_put_along_axis_without_broadcast_writes_only_the_indexed_rows(reduce):
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3) + 1, stop_gradient=False)
    v = paddle.to_tensor([[90.0, 80.0]], stop_gradient=False)
    y = paddle.put_along_axis(x, paddle.to_tensor([[1, 2]]), v, 1, reduce=reduce,
                              broadcast=False)
    np.testing.assert_array_equal(y.numpy()[1:], np.arange(3, 12).reshape(3, 3) + 1)
    (y * paddle.arange(12, dtype="float32").reshape([4, 3])).sum().backward()
    assert x.grad.numpy()[1:].tolist() == np.arange(3, 12).reshape(3, 3).tolist()


def test_put_and_take_along_axis_without_broadcast_as_paddle():
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3), stop_gradient=False)
    v = paddle.to_tensor([[90.0, 80.0]], stop_gradient=False)
    y = paddle.put_along_axis(x, paddle.to_tensor([[1, 2]]), v, 1, broadcast=False)
    assert y.tolist() == [[0, 90, 80], [3, 4, 5], [6, 7, 8], [9, 10, 11]]      # Paddle 3.3.1
    (y * paddle.arange(12, dtype="float32").reshape([4, 3])).sum().backward()
    assert v.grad.tolist() == [[1, 2]]
    t = paddle.take_along_axis(x, paddle.to_tensor([[3, 1], [0, 0]]), 0, broadcast=False)
    assert t.tolist() == [[9, 4], [0, 1]]
    with pytest.raises(ValueError, match="must not be larger"):
        paddle.take_along_axis(x, paddle.to_tensor([[0, 1, 2, 0]]), 0, broadcast=False)


def test_masked_fill_keeps_an_int_or_bool_tensors_dtype():
    x = paddle.to_tensor([1, 2, 3])
    y = paddle.masked_fill(x, x > 1, 2.7)
    assert y.dtype == paddle.int64 and y.tolist() == [1, 2, 2]            # Paddle 3.3.1
    b = paddle.masked_fill(x > 1, x > 2, 0.0)
    assert b.dtype == paddle.bool and b.tolist() == [False, True, False]
