"""The eager shortcuts taken for speed keep the general path's behaviour."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_matmul_shape_errors_survive_the_2d_shortcut():
    a = TT(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="do not fit"):
        paddle.matmul(a, TT(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="do not fit"):
        paddle.matmul(a, TT(np.ones((2, 3), np.float32)), transpose_x=True, transpose_y=True)
    with pytest.raises(ValueError, match="at least 1 dim"):
        paddle.matmul(TT(np.float32(2.0)), a)
    got = paddle.matmul(a, TT(np.ones((4, 3), np.float32)), transpose_y=True)
    np.testing.assert_array_equal(got.numpy(), np.full((2, 4), 3.0, np.float32))
    got = paddle.matmul(a, TT(np.ones((2, 5), np.float32)), transpose_x=True)
    assert got.shape == [3, 5]


def test_same_dtype_shortcut_and_mixed_float_promotion():
    x32 = TT(np.ones(3, np.float32), stop_gradient=False)
    x64 = TT(np.ones(3, np.float64))
    assert (x32 + x32).dtype == paddle.float32
    assert (x32 + x64).dtype == paddle.float64
    assert (x32 + 1).dtype == paddle.float32


def test_plain_backward_keeps_the_front_door_rules():
    n = TT(np.array([1, 2], np.int64))
    with pytest.raises(TypeError, match="float"):
        n.backward()
    c = TT(np.ones(2, np.float32))                 # stop_gradient: a silent no-op
    c.backward()
    x = TT(np.array([1.0, -2.0], np.float32), stop_gradient=False)
    y = paddle.sum(x * x)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0])
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_clear_grad_zeroes_the_shared_gradient_in_place():
    x = TT(np.array([1.0, 3.0], np.float32), stop_gradient=False)
    paddle.sum(x * x).backward()
    g = x.grad
    x.clear_grad()
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    paddle.sum(x * x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])
