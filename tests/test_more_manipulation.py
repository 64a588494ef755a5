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


def _weighted(z):
    return (z * paddle.arange(z.size, dtype="float32").reshape(z.shape)).sum()


def test_select_scatter_replaces_one_index_along_an_axis():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    v = TT([1.0, 2.0, 3.0], stop_gradient=False)
    z = paddle.select_scatter(x, v, 1, 2)
    assert z.tolist() == [[0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 3, 0]]
    _weighted(z).backward()
    assert x.grad.tolist() == [[0, 1, 0, 3], [4, 5, 0, 7], [8, 9, 0, 11]]
    assert v.grad.tolist() == [2.0, 6.0, 10.0]
    assert paddle.select_scatter(paddle.zeros([3, 4]), paddle.ones([4]), 0, -1).tolist()[2] == \
        [1.0] * 4
    with pytest.raises(IndexError, match="index 7 is out of range"):
        paddle.select_scatter(x, v, 1, 7)
    with pytest.raises(ValueError, match="the region they replace"):
        paddle.select_scatter(x, paddle.ones([2]), 1, 0)


def test_slice_scatter_replaces_a_strided_slice():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    v = TT(np.ones((3, 2), "float32"), stop_gradient=False)
    z = paddle.slice_scatter(x, v, [1], [0], [4], [2])
    assert z.tolist() == [[1, 0, 1, 0]] * 3
    _weighted(z).backward()
    assert x.grad.tolist() == [[0, 1, 0, 3], [0, 5, 0, 7], [0, 9, 0, 11]]
    assert v.grad.tolist() == [[0, 2], [4, 6], [8, 10]]
    check_grads(lambda a, b: paddle.slice_scatter(a, b, [0, 1], [1, 1], [3, 3], [1, 1]),
                RNG.standard_normal((3, 4)), RNG.standard_normal((2, 2)))


def test_diagonal_scatter_replaces_a_diagonal_and_differentiates_it():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    y = TT([7.0, 8.0, 9.0], stop_gradient=False)
    z = paddle.diagonal_scatter(x, y, 1)
    assert z.tolist() == [[0, 7, 0, 0], [0, 0, 8, 0], [0, 0, 0, 9]]
    _weighted(z).backward()
    assert x.grad.tolist() == [[0, 0, 2, 3], [4, 5, 0, 7], [8, 9, 10, 0]]
    assert y.grad.tolist() == [1.0, 6.0, 11.0]       # Paddle 3.3.1 gives y none
    check_grads(lambda a, b: paddle.diagonal_scatter(a, b, 0, 1, 2),
                RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 3)))


def test_msort_sorts_along_the_first_axis():
    m = paddle.msort(TT([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]]))
    assert m.tolist() == [[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]]


def test_index_put_assigns_or_accumulates_at_index_tuples():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    v = TT([5.0, 6.0, 7.0], stop_gradient=False)
    rows, cols = TT([0, 2, 0]), TT([1, 3, 1])
    z = paddle.index_put(x, (rows, cols), v)
    assert z.numpy()[0, 1] == 7.0 and z.numpy()[2, 3] == 6.0      # the last duplicate lands
    _weighted(z).backward()
    assert x.grad.numpy()[0, 1] == 0 and x.grad.numpy()[2, 3] == 0
    assert v.grad.tolist() == [0.0, 11.0, 1.0]       # the overwritten 5 reaches nothing
    acc = paddle.index_put(paddle.zeros([3, 4]), (rows, cols), TT([5.0, 6.0, 7.0]),
                           accumulate=True)
    assert acc.numpy()[0, 1] == 12.0
    assert paddle.index_put(paddle.zeros([3, 4]), (TT([1]),), TT([9.0])).tolist()[1] == [9.0] * 4
    with pytest.raises(IndexError, match="index_put"):
        paddle.index_put(x, (TT([5]),), v)


def test_masked_scatter_fills_masked_places_in_order():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    m = TT(np.array([[True, False, True, False], [False, False, True, True],
                     [True, False, False, False]]))
    v = TT(np.arange(1, 8, dtype="float32"), stop_gradient=False)
    z = paddle.masked_scatter(x, m, v)
    assert z.tolist() == [[1, 0, 2, 0], [0, 0, 3, 4], [5, 0, 0, 0]]
    _weighted(z).backward()
    assert v.grad.tolist() == [0.0, 2.0, 6.0, 7.0, 8.0, 0.0, 0.0]
    assert x.grad.tolist() == [[0, 1, 0, 3], [4, 5, 0, 0], [0, 9, 10, 11]]
    with pytest.raises(ValueError, match="the mask selects 5"):
        paddle.masked_scatter(x, m, TT([1.0, 2.0, 3.0]))


def test_scatter_add_adds_src_along_a_dim():
    x = TT(np.zeros((3, 4), "float32"), stop_gradient=False)
    s = TT(np.ones((3, 3), "float32"), stop_gradient=False)
    z = paddle.scatter_add(x, 1, TT([[0, 1, 0], [2, 2, 3], [3, 0, 0]]), s)
    assert z.tolist() == [[2, 1, 0, 0], [0, 0, 2, 1], [2, 0, 0, 1]]
    _weighted(z).backward()
    assert s.grad.tolist() == [[0, 1, 0], [6, 6, 7], [11, 8, 8]]
    assert x.grad.tolist() == np.arange(12).reshape(3, 4).tolist()
    check_grads(lambda a, b: paddle.scatter_add(a, 0, TT([[0, 1], [2, 2]]), b),
                RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)))


def test_view_reshapes_or_reinterprets_bytes():
    x = TT(np.arange(6, dtype="float32"), stop_gradient=False)
    v = paddle.view(x, [2, 3])
    assert v.shape == [2, 3] and not v.stop_gradient
    _weighted(v).backward()
    assert x.grad.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert paddle.view_as(x, paddle.ones([3, 2])).shape == [3, 2]
    assert paddle.view(TT([1.0], dtype="float32"), "int32").tolist() == [1065353216]


def test_unique_consecutive_keeps_one_of_each_run():
    x = TT([1, 1, 2, 2, 3, 1, 1, 2])
    assert paddle.unique_consecutive(x).tolist() == [1, 2, 3, 1, 2]
    u, inv, cnt = paddle.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and cnt.tolist() == [2, 2, 1, 2, 1]
    assert inv.dtype == paddle.int64
    rows = paddle.unique_consecutive(TT([[1, 1], [1, 1], [2, 3]]), axis=0)
    assert rows.tolist() == [[1, 1], [2, 3]]


def test_crop_takes_a_box_at_offsets():
    c = TT(np.arange(12, dtype="float32").reshape(3, 4), stop_gradient=False)
    box = paddle.crop(c, shape=[2, 2], offsets=[1, 1])
    assert box.tolist() == [[5.0, 6.0], [9.0, 10.0]]
    box.sum().backward()
    assert c.grad.tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0]]
    assert paddle.crop(c, shape=[-1, 2], offsets=[1, 2]).tolist() == [[6, 7], [10, 11]]
    assert paddle.crop(c, shape=[2, 3]).tolist() == [[0, 1, 2], [4, 5, 6]]
    with pytest.raises(ValueError, match="do not fit dim 0"):
        paddle.crop(c, shape=[3, 3], offsets=[1, 1])
