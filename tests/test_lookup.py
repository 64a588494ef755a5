"""ops/lookup.py: values, indices and tie rules as measured on Paddle 3.3.1 (gradients are
checked against finite differences in test_composite_ops.py)."""

import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_searchsorted_and_bucketize():
    s, v = TT([1.0, 3.0, 5.0, 7.0]), TT([[0.0, 3.0, 6.0], [8.0, 5.0, 1.0]])
    assert paddle.searchsorted(s, v).tolist() == [[0, 1, 3], [4, 2, 0]]
    assert paddle.searchsorted(s, v, right=True).tolist() == [[0, 2, 3], [4, 3, 1]]
    assert paddle.searchsorted(s, v, side="right").tolist() == [[0, 2, 3], [4, 3, 1]]
    assert paddle.searchsorted(s, v, out_int32=True).dtype == paddle.int32
    rows = TT([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    assert paddle.searchsorted(rows, TT([[2.0, 5.0], [1.0, 7.0]])).tolist() == [[1, 2], [0, 3]]
    assert paddle.bucketize(v, s).tolist() == [[0, 1, 3], [4, 2, 0]]
    with pytest.raises(ValueError, match="side"):
        paddle.searchsorted(s, v, side="middle")


def test_bincount_isin_and_triangle_indices():
    x = TT([1, 1, 3, 0, 7])
    assert paddle.bincount(x).tolist() == [1, 2, 0, 1, 0, 0, 0, 1]
    assert paddle.bincount(x, minlength=10).shape == [10]
    w = paddle.bincount(x, weights=TT([0.5, 1.0, 2.0, 3.0, 4.0]))
    assert w.dtype == paddle.float32 and w.tolist() == [3.0, 1.5, 0, 2.0, 0, 0, 0, 4.0]
    with pytest.raises(ValueError, match="negative"):
        paddle.bincount(TT([1, -1]))
    assert paddle.isin(x, TT([1, 7])).tolist() == [True, True, False, False, True]
    assert paddle.isin(x, TT([1, 7]), invert=True).tolist() == [False, False, True, True, False]
    assert paddle.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert paddle.triu_indices(3, None, -1).tolist() == [[0, 0, 0, 1, 1, 1, 2, 2],
                                                         [0, 1, 2, 0, 1, 2, 1, 2]]


def test_kthvalue_picks_the_kth_smallest_and_its_gradient_goes_there():
    m = TT([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]], stop_gradient=False)
    vals, idx = paddle.kthvalue(m, 2, axis=1)
    assert vals.tolist() == [2.0, 8.0] and idx.tolist() == [2, 2]
    vals.sum().backward()
    assert m.grad.tolist() == [[0, 0, 1], [0, 0, 1]]
    assert paddle.kthvalue(m, 1)[0].tolist() == [1.0, 7.0]            # the last axis
    assert paddle.kthvalue(m, 1, keepdim=True)[0].shape == [2, 1]
    with pytest.raises(ValueError, match="out of range"):
        paddle.kthvalue(m, 4)


def test_mode_takes_the_smallest_most_frequent_value_and_its_last_index():
    x = TT([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 5.0, 5.0]], stop_gradient=False)
    vals, idx = paddle.mode(x)
    assert vals.tolist() == [2.0, 4.0] and idx.tolist() == [2, 1]
    vals.sum().backward()                               # Paddle 3.3.1: to the picked index
    assert x.grad.tolist() == [[0, 0, 1, 0], [0, 1, 0, 0]]
    vals, idx = paddle.mode(TT([[3.0, 3.0, 1.0, 1.0], [2.0, 7.0, 7.0, 2.0]]), axis=0,
                            keepdim=True)
    assert vals.tolist() == [[2.0, 3.0, 1.0, 1.0]] and idx.tolist() == [[1, 0, 0, 0]]


def test_cummax_and_cummin_let_a_later_equal_value_take_over():
    c = TT([[1.0, 3.0, 2.0], [0.0, -1.0, 4.0]], stop_gradient=False)
    vals, idx = paddle.cummax(c, axis=1)
    assert vals.tolist() == [[1, 3, 3], [0, 0, 4]] and idx.tolist() == [[0, 1, 1], [0, 0, 2]]
    vals.sum().backward()
    assert c.grad.tolist() == [[1, 2, 0], [2, 0, 1]]
    vals, idx = paddle.cummin(c)                                        # flattened
    assert vals.tolist() == [1, 1, 1, 0, -1, -1] and idx.tolist() == [0, 0, 0, 3, 4, 4]
    assert paddle.cummax(TT([1.0, 3.0, 3.0, 2.0]), axis=0)[1].tolist() == [0, 1, 2, 2]
    assert paddle.cummin(TT([3.0, 1.0, 1.0, 2.0]), axis=0)[1].tolist() == [0, 1, 2, 2]
    assert paddle.cummax(TT([1.0, 2.0]), axis=0, dtype="int32")[1].dtype == paddle.int32


def test_take_index_sample_and_index_fill():
    t = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    assert paddle.take(t, TT([0, 5, -1])).tolist() == [1.0, 6.0, 6.0]
    assert paddle.take(t, TT([7, -8]), mode="wrap").tolist() == [2.0, 5.0]
    assert paddle.take(t, TT([7, -8]), mode="clip").tolist() == [6.0, 1.0]
    with pytest.raises(ValueError, match="out of range"):
        paddle.take(t, TT([7]))
    assert paddle.index_sample(t, TT([[0, 2], [1, 1]])).tolist() == [[1, 3], [5, 5]]
    f = paddle.index_fill(t, TT([0, 2]), 1, -1.0)
    assert f.tolist() == [[-1, 2, -1], [-1, 5, -1]]
    f.sum().backward()
    assert t.grad.tolist() == [[0, 1, 0], [0, 1, 0]]
