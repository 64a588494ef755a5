"""ops/assemble.py: shapes and values as measured on Paddle 3.3.1 (gradients are checked
against finite differences in test_composite_ops.py)."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
V = TT([1.0, 2.0, 3.0])
M = TT(np.arange(6, dtype="float32").reshape(2, 3))


def shapes(ts):
    return [t.shape for t in ts]


def test_stacks_follow_numpy_rules_for_1d_inputs():
    assert paddle.hstack([V, V]).shape == [6]
    assert paddle.hstack([M, M]).shape == [2, 6]
    assert paddle.vstack([V, V]).shape == paddle.row_stack([V, V]).shape == [2, 3]
    assert paddle.dstack([V, V]).shape == [1, 3, 2]
    assert paddle.dstack([M, M]).shape == [2, 3, 2]
    assert paddle.column_stack([V, V]).tolist() == [[1, 1], [2, 2], [3, 3]]
    assert paddle.column_stack([M, M]).shape == [2, 6]


def test_atleast_nd():
    assert paddle.atleast_1d(TT(1.0)).shape == [1]
    assert paddle.atleast_2d(V).shape == [1, 3]
    assert paddle.atleast_3d(V).shape == [1, 3, 1]
    assert paddle.atleast_3d(M).shape == [2, 3, 1]
    assert shapes(paddle.atleast_1d(V, TT(2.0))) == [[3], [1]]


def test_tensor_split_by_count_and_by_indices():
    r = paddle.arange(7)
    assert shapes(paddle.tensor_split(r, 3)) == [[3], [2], [2]]
    assert [t.tolist() for t in paddle.tensor_split(r, [2, 5])] == [[0, 1], [2, 3, 4], [5, 6]]
    assert shapes(paddle.tensor_split(r, [-2, 9])) == [[5], [2], [0]]
    assert shapes(paddle.hsplit(M, 3)) == [[2, 1]] * 3
    assert shapes(paddle.hsplit(M, 2)) == [[2, 2], [2, 1]]      # uneven, as Paddle's
    assert shapes(paddle.vsplit(M, 2)) == [[1, 3], [1, 3]]
    with pytest.raises(ValueError, match="at least 3 dims"):
        paddle.dsplit(M, 2)
    with pytest.raises(ValueError, match="positive"):
        paddle.tensor_split(r, 0)


def test_narrow():
    assert paddle.narrow(M, 1, 1, 2).tolist() == [[1, 2], [4, 5]]
    assert paddle.narrow(M, -1, -2, 2).tolist() == [[1, 2], [4, 5]]
    with pytest.raises(ValueError, match="do not fit"):
        paddle.narrow(M, 1, 2, 2)


def test_broadcasting_helpers_and_add_n():
    assert shapes(paddle.broadcast_tensors([V, M])) == [[2, 3], [2, 3]]
    assert paddle.broadcast_shape([2, 1, 3], [4, 3]) == [2, 4, 3]
    with pytest.raises(ValueError, match="do not broadcast"):
        paddle.broadcast_shape([2], [3])
    assert paddle.add_n([M, M, M]).tolist() == [[0, 3, 6], [9, 12, 15]]
    with pytest.raises(ValueError, match="shape"):
        paddle.add_n([M, V])


def test_tensordot_axes_forms():
    x = TT(np.arange(24, dtype="float32").reshape(2, 3, 4))
    y = TT(np.arange(12, dtype="float32").reshape(3, 4))
    want = np.tensordot(x.numpy(), y.numpy(), 2)
    np.testing.assert_array_equal(paddle.tensordot(x, y).numpy(), want)
    np.testing.assert_array_equal(paddle.tensordot(x, y, [[1, 2], [0, 1]]).numpy(), want)
    assert paddle.tensordot(M, M, 0).shape == [2, 3, 2, 3]
    with pytest.raises(ValueError, match="size"):
        paddle.tensordot(x, y, [[1, 2], [1, 0]])


def test_diag_embed_and_diagflat():
    d = paddle.diag_embed(TT([[1.0, 2.0], [3.0, 4.0]]), offset=1)
    assert d.shape == [2, 3, 3]
    assert d.numpy()[1].tolist() == [[0, 3, 0], [0, 0, 4], [0, 0, 0]]
    assert paddle.diag_embed(M, offset=-2, dim1=0, dim2=2).shape == [5, 2, 5]
    assert paddle.diagflat(TT([[1.0, 2.0]]), -1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]


def test_split_parts_are_the_getitem_nodes_slicing_records():
    """split, chunk and _slice_along record getitem nodes directly: the same key and
    saved index map as x[:, a:b] (so such graphs share Programs), the same gradient."""
    x = paddle.to_tensor(np.arange(24.0).reshape(4, 6), stop_gradient=False)
    parts = paddle.split(x, [2, -1, 1], axis=1)
    for p, sl in zip(parts, [slice(0, 2), slice(2, 5), slice(5, 6)]):
        q = x[:, sl]
        assert p._node.op is q._node.op and p._node.attrs == q._node.attrs
        np.testing.assert_array_equal(p._node.saved[0], q._node.saved[0])
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    (parts[0].sum() * 2 + (parts[2] * 3).sum()).backward()
    want = np.zeros((4, 6))
    want[:, :2], want[:, 5] = 2, 3
    np.testing.assert_array_equal(x.grad.numpy(), want)
