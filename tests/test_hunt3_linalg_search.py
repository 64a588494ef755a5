"""Behaviours measured on Paddle 3.3.1 by a third hunt (linear algebra, search, shapes)."""

import numpy as np
import pytest

import jitgrad as paddle


def test_unique_inverse_indexes_the_flattened_input():
    x = paddle.to_tensor([[2, 1, 2], [0, 1, 1]])
    out, inv = paddle.unique(x, return_inverse=True)
    assert out.tolist() == [0, 1, 2]
    assert inv.shape == [6] and inv.tolist() == [2, 1, 2, 0, 1, 1]
    _, _, inv0, _ = paddle.unique(paddle.to_tensor(1.5), return_index=True,
                                  return_inverse=True, return_counts=True)
    assert inv0.shape == [1]


@pytest.mark.parametrize("row, value, index", [
    ([np.nan, np.nan, 1.0, 3.0], 1.0, 2), ([np.nan, 1.0], 1.0, 1),
    ([3.0, np.nan, 3.0, np.nan, np.nan], 3.0, 2), ([1.0, np.nan, np.nan, 1.0], 1.0, 3)])
def test_mode_counts_each_nan_once(row, value, index):
    v, i = paddle.mode(paddle.to_tensor(np.array(row, "float32")))
    assert (float(v), int(i)) == (value, index)


def test_mode_of_nans_only_is_nan_at_the_first():
    v, i = paddle.mode(paddle.to_tensor(np.array([np.nan, np.nan], "float32")))
    assert np.isnan(float(v)) and int(i) == 0


@pytest.mark.parametrize("f", [paddle.tril, paddle.triu])
def test_triangles_of_a_vector_are_refused(f):
    with pytest.raises(ValueError, match="at least 2 dims"):
        f(paddle.to_tensor([1.0, 2.0, 3.0]))


def test_diag_of_a_0d_tensor_is_a_1x1_matrix():
    assert paddle.diag(paddle.to_tensor(1.5)).tolist() == [[1.5]]


@pytest.mark.parametrize("axis", [0, -1])
def test_argmax_of_a_0d_tensor_with_keepdim_has_shape_1(axis):
    s = paddle.to_tensor(1.5)
    assert paddle.argmax(s, axis=axis, keepdim=True).shape == [1]
    assert paddle.argmin(s, axis=axis, keepdim=True).shape == [1]
    assert paddle.argmax(s, axis=axis).shape == []


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8"])
def test_sum_in_an_int_dtype_asked_for_keeps_it_and_wraps(dtype):
    x = paddle.to_tensor(np.array([[100, 120], [100, 4]], "int64"))
    s = paddle.sum(x, axis=0, dtype=dtype)
    assert s.dtype == getattr(paddle, dtype)
    assert s.tolist() == np.array([200, 124]).astype(dtype).tolist()


@pytest.mark.parametrize("args, want", [
    ((-5, 5, 4, "int32"), [-5, -1, 1, 5]), ((0, -1, 3, "int64"), [0, 0, -1]),
    ((2.5, -3.5, 5, "int32"), [2, 0, 0, -1, -3])])
def test_integer_linspace_truncates_as_paddle(args, want):
    assert paddle.linspace(*args).tolist() == want


def test_float32_linspace_counts_the_second_half_down_from_stop():
    # Paddle 3.3.1's kernel, in float32: [0, 3.3333333, 6.666667, 10]
    got = paddle.linspace(0, 10, 4, "float32").numpy()
    step = np.float32(10) / np.float32(3)
    np.testing.assert_array_equal(got, np.array([0, step, np.float32(10) - step, 10],
                                                "float32"))


def test_nuclear_norm_of_a_matrix_without_axis():
    m = np.arange(12.0).reshape(3, 4) % 5
    x = paddle.to_tensor(m, stop_gradient=False)
    n = paddle.linalg.norm(x, p="nuc")
    np.testing.assert_allclose(float(n), np.linalg.norm(m, "nuc"), rtol=1e-14)
    n.backward()
    u, _, vt = np.linalg.svd(m, full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), u @ vt, atol=1e-12)      # d nuc / dX = U V^T


@pytest.mark.parametrize("p", [np.inf, -np.inf])
def test_inf_norms_over_nothing_are_zero(p):
    x = paddle.zeros([0, 3])
    assert float(paddle.linalg.vector_norm(x, p=p)) == 0.0
    assert paddle.linalg.vector_norm(x, p=p, axis=0).tolist() == [0.0, 0.0, 0.0]


def test_logcumsumexp_of_ints_is_float32():
    y = paddle.logcumsumexp(paddle.to_tensor([3, 1, 2]))
    assert y.dtype == paddle.float32
    np.testing.assert_allclose(y.numpy(), np.logaddexp.accumulate([3.0, 1.0, 2.0]), rtol=1e-6)


def test_round_to_decimals_and_index_add_alpha():
    x = paddle.to_tensor([1.2345, 2.5555])
    assert paddle.round(x, decimals=2).tolist() == np.array([1.23, 2.56], "float32").tolist()
    y = paddle.index_add(paddle.zeros([3]), paddle.to_tensor([0, 0]), 0, paddle.ones([2]),
                         alpha=2.0)
    assert y.tolist() == [4.0, 0.0, 0.0]


def test_an_int_to_a_negative_int_power_truncates():
    assert (paddle.to_tensor([2, -1, 1]) ** paddle.to_tensor([-1, -1, -2])).tolist() == \
        [0, -1, 1]
    assert (2 ** paddle.to_tensor([3, -4, 5])).tolist() == [8, 0, 32]
    assert paddle.eye(paddle.to_tensor(2)).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_a_0d_numpy_array_counts_like_a_number():
    x, i = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1, 2])
    assert (x + np.array(2.5)).dtype == paddle.float32                     # Paddle 3.3.1
    assert (x * np.array(2, "int64")).tolist() == [2.0, 4.0]
    y = i * np.array(2.5, "float32")
    assert y.dtype == paddle.float32 and y.tolist() == [2.5, 5.0]


def test_int_to_float_promotion_is_float32_under_a_float64_default():
    paddle.set_default_dtype("float64")
    try:
        i32 = paddle.to_tensor([1, 2], "int32")
        assert (i32 * 1.5).dtype == paddle.float32
        assert (i32 / i32).dtype == paddle.float32 and (i32 / 2).dtype == paddle.float32
    finally:
        paddle.set_default_dtype("float32")


def test_bool_tensor_with_python_bools_stays_bool():
    b = paddle.to_tensor([True, False])
    assert (b + True).dtype == paddle.bool and (b + True).tolist() == [True, True]
    assert (b * True).tolist() == [True, False]
    assert (b * 2).dtype == paddle.int64
    assert (b ** 2).dtype == paddle.int64 and (b ** 2).tolist() == [1, 0]


def test_astype_to_the_same_dtype_is_the_tensor_itself():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a.astype("float32")
    assert b is a and b.is_leaf                                            # Paddle 3.3.1
    (b * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    assert paddle.cast(a, "float32") is not a


@pytest.mark.parametrize("dtype, tiny", [("float64", 1e-310), ("float32", 1e-40)])
def test_i1e_gradient_at_a_subnormal_is_one_half(dtype, tiny):
    # i1e'(x) = i0e(x) - i1e(x) sign(x) - i1e(x) / x: 1 / x overflowed at a subnormal x
    x = paddle.to_tensor(np.array([tiny, -tiny, 0.5], dtype), stop_gradient=False)
    paddle.i1e(x).sum().backward()
    g = x.grad.numpy()
    np.testing.assert_allclose(g[:2], [0.5, 0.5], rtol=1e-6)
    np.testing.assert_allclose(g[2], 0.17577286, rtol=1e-6)                  # Paddle, torch


@pytest.mark.parametrize("x", [-1e-30, -1e-15, -1e-10, -1e-5])
def test_polygamma_of_even_order_just_below_zero_is_its_pole_term(x):
    # psi_2(x) = -2 / x^3 + psi_2(1 + x) - ...: the pole term dominates (mpmath, Paddle, torch)
    y = paddle.polygamma(paddle.to_tensor(np.array([x])), 2)
    np.testing.assert_allclose(y.numpy(), [-2.0 / x ** 3 - 2.404113806319188], rtol=1e-12)
