"""Reductions over a list of axes: numpy's values bit for bit, Paddle's errors, one node."""

import numpy as np
import pytest

import jitgrad as paddle


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [[2, 3], (1, 3), [0, 1, 2], [-1], (0,)])
def test_mean_over_axes_equals_numpy_bit_for_bit(dtype, axis):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((3, 5, 7, 9)) * 1e3).astype(dtype)
    for keepdim in (False, True):
        got = paddle.mean(paddle.to_tensor(x), axis=axis, keepdim=keepdim).numpy()
        want = np.mean(x, axis=tuple(axis), keepdims=keepdim).astype(dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_mean_over_axes_gradient_is_one_over_the_count():
    x = paddle.to_tensor(np.ones((2, 3, 4), "float32"), stop_gradient=False)
    paddle.mean(x, axis=[1, 2]).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.full((2, 3, 4), 1 / 12, "float32"))


@pytest.mark.parametrize("axis, error", [([0, 5], ValueError), ([1, 1], ValueError),
                                         ([0.5], TypeError), ([[0]], TypeError),
                                         ((-4,), ValueError)])
def test_bad_axis_lists_raise(axis, error):
    x = paddle.to_tensor(np.ones((2, 3, 4), "float32"))
    for reduce in (paddle.mean, paddle.sum):
        with pytest.raises(error):
            reduce(x, axis=axis)


def test_same_axes_as_list_and_tuple_give_the_same_result():
    x = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4))
    a = paddle.sum(x, axis=[0, 2]).numpy()
    b = paddle.sum(x, axis=(2, 0)).numpy()
    assert np.array_equal(a, np.array([60.0, 92.0, 124.0], "float32")) and np.array_equal(a, b)


def test_numpy_integer_axes_still_accepted():
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    assert paddle.sum(x, axis=[np.int64(1)]).numpy().tolist() == [3.0, 12.0]


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, axis, keepdim", [((8, 1), None, False), ((3, 5, 7), [1], False),
                                                  ((3, 5, 7), [0, 2], True), ((), None, False)])
def test_interpreted_rule_equals_the_transpose_chain_bit_for_bit(name, dtype, shape, axis,
                                                                 keepdim):
    from jitgrad.ops.linear import _recorded, run_arrays
    rng = np.random.default_rng(3)
    x = paddle.to_tensor(rng.standard_normal(shape).astype(dtype), stop_gradient=False)
    node = getattr(paddle, name)(x, axis=axis, keepdim=keepdim)._node
    chain = node.op.extra["linear"].transpose(
        _recorded(((x._data.shape,), node.out_data.shape, node.saved, (x._data.dtype,))),
        **node.attrs)
    for scale in (1e-30, 1.0, 1e30):
        g = (rng.standard_normal(node.out_data.shape) * scale).astype(dtype)
        (got,) = node.op.interp(node, g, (True,))
        want = run_arrays(chain, g)
        assert got.shape == want.shape == x._data.shape and got.dtype == want.dtype
        assert np.array_equal(got, want)
