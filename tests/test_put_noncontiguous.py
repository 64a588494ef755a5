"""Writes by position (setitem, scatter, put_along_axis, index_add, index_put) into a tensor
whose values are not in C order (a transpose's view): the forward copies x in C order, so
its flat positions write the result, not a temporary copy (they silently did nothing)."""

import numpy as np

import jitgrad as paddle

A = np.arange(12, dtype="float32").reshape(3, 4)


def _transposed():
    """A [4, 3] tensor whose array is a transposed view, and the leaf it comes from."""
    w = paddle.to_tensor(A, stop_gradient=False)
    return paddle.transpose(w * 1.0, [1, 0]), w


def test_setitem_writes_into_a_transposed_tensor_and_routes_the_gradient():
    h, w = _transposed()
    v = paddle.to_tensor(np.array([10.0, 20.0, 30.0], "float32"), stop_gradient=False)
    h[0] = v
    want = A.T.copy()
    want[0] = [10, 20, 30]
    np.testing.assert_array_equal(h.numpy(), want)
    (h * paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3))).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [0.0, 1.0, 2.0])
    g = np.arange(12, dtype="float32").reshape(4, 3)
    g[0] = 0                                    # overwritten: no gradient to w there
    np.testing.assert_array_equal(w.grad.numpy(), g.T)


def test_put_along_axis_into_a_transposed_tensor():
    idx = np.array([[0], [2], [1], [0]])
    h, _ = _transposed()
    want = A.T.copy()
    np.put_along_axis(want, idx, 100.0, 1)
    np.testing.assert_array_equal(paddle.put_along_axis(h, paddle.to_tensor(idx), 100.0, 1)
                                  .numpy(), want)
    h, _ = _transposed()
    want = A.T.copy()
    np.add.at(want, (np.arange(4)[:, None], idx), 1.0)
    ones = paddle.to_tensor(np.ones((4, 1), "float32"))
    np.testing.assert_array_equal(paddle.put_along_axis(h, paddle.to_tensor(idx), ones, 1,
                                                        reduce="add").numpy(), want)


def test_scatter_index_add_and_index_put_into_a_transposed_tensor():
    want = A.T.copy()
    want[[1, 3]] = 7.0
    h, _ = _transposed()
    got = paddle.scatter(h, paddle.to_tensor(np.array([1, 3])),
                         paddle.to_tensor(np.full((2, 3), 7.0, "float32")))
    np.testing.assert_array_equal(got.numpy(), want)
    want = A.T.copy()
    want[1] += 2.0
    h, _ = _transposed()
    got = paddle.index_add(h, paddle.to_tensor(np.array([1, 1])), 0,
                           paddle.to_tensor(np.ones((2, 3), "float32")))
    np.testing.assert_array_equal(got.numpy(), want)
    want = A.T.copy()
    want[[0, 2]] = 5.0
    h, _ = _transposed()
    got = paddle.index_put(h, (paddle.to_tensor(np.array([0, 2])),),
                           paddle.to_tensor(np.full((3,), 5.0, "float32")))
    np.testing.assert_array_equal(got.numpy(), want)
