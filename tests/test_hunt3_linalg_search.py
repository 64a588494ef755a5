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
