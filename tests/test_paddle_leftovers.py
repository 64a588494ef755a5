"""Paddle 3.3.1 behaviours left over by the bug hunts (hunt9, hunt10), measured there and
pinned here: each test names the behaviour and asserts Paddle's values and dtypes."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


# ---- `.grad` assignment ------------------------------------------------------------------

def test_set_grad_on_non_leaf_raises():
    # Paddle 3.3.1: SystemError 'Only leaf Tensor can be set grad' (retained or not)
    x = TT([1.0, 2.0], stop_gradient=False)
    y = x * 2
    with pytest.raises(RuntimeError, match="only a leaf tensor's gradient can be set"):
        y.grad = TT([5.0, 5.0])
    y.retain_grads()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="MultiplyGradNode"):
        y.grad_ = TT([5.0, 5.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])
    x.detach().grad = TT([5.0, 5.0])            # a detached tensor is a leaf: accepted


def test_assigned_grad_stops_gradient_while_its_accumulator_lives():
    # Paddle 3.3.1: `.grad` after `x.grad = t` reports stop_gradient=True, after later
    # backwards and clear_grad() too, so in-place changes of it work; a fresh
    # accumulator (dropped, then a backward) is a backward's: False
    x = TT([1.0, 2.0], stop_gradient=False)
    x.grad = TT([5.0, 5.0])
    assert x.grad.stop_gradient is True
    x.grad.multiply_(TT(2.0))
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 10.0])
    (x * x).sum().backward()
    assert x.grad.stop_gradient is True
    np.testing.assert_array_equal(x.grad.numpy(), [12.0, 14.0])
    x.clear_grad()
    assert x.grad.stop_gradient is True
    x.clear_gradient(False)
    (x * x).sum().backward()
    assert x.grad.stop_gradient is False
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    x.grad = TT([1.0, 1.0])         # into a backward's accumulator: it stays a backward's
    assert x.grad.stop_gradient is False


# ---- pow of an integer tensor by a float -------------------------------------------------

def test_pow_function_of_int_tensor_truncates_float_exponent():
    # Paddle 3.3.1: paddle.pow / x.pow / pow_ keep int64 and truncate the exponent; the
    # operator x ** 2.9 is float32
    x = TT([3, 5])
    for r in (paddle.pow(x, 2.9), x.pow(2.9), paddle.pow(x, np.float64(2.9))):
        assert r.dtype == paddle.int64
        np.testing.assert_array_equal(r.numpy(), [9, 25])
    r = paddle.pow(x, 0.5)
    assert r.dtype == paddle.int64
    np.testing.assert_array_equal(r.numpy(), [1, 1])
    r = x ** 2.9
    assert r.dtype == paddle.float32
    np.testing.assert_allclose(r.numpy(), [3 ** 2.9, 5 ** 2.9], rtol=1e-6)
    r = paddle.pow(x, TT(2.9))                  # a tensor exponent: float32, not truncated
    assert r.dtype == paddle.float32
    np.testing.assert_allclose(r.numpy(), [3 ** 2.9, 5 ** 2.9], rtol=1e-6)
    x.pow_(2.9)
    assert x.dtype == paddle.int64
    np.testing.assert_array_equal(x.numpy(), [9, 25])
