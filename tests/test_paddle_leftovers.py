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


# ---- a 0-d tensor operand of an in-place op promotes as a tensor -----------------------

def test_inplace_zero_dim_float64_operand_makes_x_float64():
    # Paddle 3.3.1: x_f32.multiply_(0-d float64) makes x float64 (the out-of-place x * it
    # stays float32: there a 0-d tensor counts like a number)
    f64 = TT(0.5, dtype="float64")
    for op, want in (("multiply_", [0.75, 1.5]), ("add_", [2.0, 3.5]),
                     ("subtract_", [1.0, 2.5]), ("divide_", [3.0, 6.0]),
                     ("remainder_", [0.0, 0.0]), ("floor_divide_", [3.0, 6.0])):
        x = TT([1.5, 3.0])
        assert getattr(x, op)(f64) is x
        assert x.dtype == paddle.float64, op
        np.testing.assert_array_equal(x.numpy(), want)
    x = TT([1.5, -3.0])
    x.copysign_(TT(-1.0, dtype="float64"))
    assert x.dtype == paddle.float64
    np.testing.assert_array_equal(x.numpy(), [-1.5, -3.0])
    x = TT([1.5, 3.0])
    x.hypot_(TT(2.0, dtype="float64"))
    assert x.dtype == paddle.float64
    np.testing.assert_allclose(x.numpy(), [2.5, np.sqrt(13.0)], rtol=1e-15)
    x = TT([1.5, 3.0], dtype="float16")
    x.multiply_(TT(2.0))
    assert x.dtype == paddle.float32
    assert (TT([1.5, 3.0]) * f64).dtype == paddle.float32
    x = TT([1.5, 3.0], dtype="float64")         # a narrower 0-d operand: x keeps float64
    x.multiply_(TT(2.0))
    assert x.dtype == paddle.float64


def test_inplace_zero_dim_float64_operand_gradients():
    # Paddle 3.3.1: y becomes float64, x's gradient comes back float32, the operand's
    # float64
    x = TT([1.5, 3.0], stop_gradient=False)
    w = TT(2.0, dtype="float64", stop_gradient=False)
    y = x * 1
    y.multiply_(w)
    assert y.dtype == paddle.float64
    y.sum().backward()
    assert x.grad.dtype == paddle.float32 and w.grad.dtype == paddle.float64
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(w.grad.numpy(), 4.5)


def test_inplace_zero_dim_operand_of_another_kind_raises():
    # Paddle 3.3.1: TypeError (its tensor-tensor promotion); out of place, int64 + 0-d
    # float32 is float32 and int64 * 0-d int32 int64
    for x, y in ((TT([3, 5]), TT(2.5)), (TT([3, 5]), TT(2, dtype="int32")),
                 (TT([True, False]), TT(2.5)), (TT([1.5, 3.0]), TT(2))):
        for op in ("add_", "multiply_", "divide_"):
            with pytest.raises(TypeError, match=op + ": cannot combine tensors"):
                getattr(x.clone(), op)(y)
    x = TT([3, 5])
    x.divide_(TT(2))                            # int / int: float32, as out of place
    assert x.dtype == paddle.float32
    np.testing.assert_array_equal(x.numpy(), [1.5, 2.5])
    x = TT([3, 5])
    x.add_(2.5)                                 # a Python number: the out-of-place rule
    assert x.dtype == paddle.float32
    np.testing.assert_array_equal(x.numpy(), [5.5, 7.5])
    with pytest.raises(TypeError, match="lcm_: cannot combine"):
        TT([4, 6]).lcm_(TT(3, dtype="int32"))


def test_copysign_promotes_tensor_operands_as_arithmetic():
    # Paddle 3.3.1: float32 x, float64 y: float64 (copysign_ too); a 0-d y counts like a
    # number; int with float refused; a Python number keeps x's dtype
    x = TT([1.5, -3.0])
    y64 = TT([-1.0, 1.0], dtype="float64")
    r = paddle.copysign(x, y64)
    assert r.dtype == paddle.float64
    np.testing.assert_array_equal(r.numpy(), [-1.5, 3.0])
    r = paddle.copysign(TT(1.5), y64)
    assert r.dtype == paddle.float64
    np.testing.assert_array_equal(r.numpy(), [-1.5, 1.5])
    assert paddle.copysign(x, TT(-1.0, dtype="float64")).dtype == paddle.float32
    r = paddle.copysign(TT([1, -3]), TT(-2.5))
    assert r.dtype == paddle.float32
    np.testing.assert_array_equal(r.numpy(), [-1.0, -3.0])
    r = paddle.copysign(TT([1, -3]), 2.5)
    assert r.dtype == paddle.int64
    np.testing.assert_array_equal(r.numpy(), [1, 3])
    with pytest.raises(TypeError, match="cannot combine tensors"):
        paddle.copysign(TT([1, -3]), TT([-1.0, 1.0]))
    with pytest.raises(TypeError, match="cannot combine tensors"):
        paddle.copysign(x, TT([-1, 1]))
    x = TT([1.5, -3.0], stop_gradient=False)
    z = x * 1
    z.copysign_(y64)
    assert z.dtype == paddle.float64
    z.sum().backward()
    assert x.grad.dtype == paddle.float32
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, -1.0])


# ---- PyLayer ----------------------------------------------------------------------------

def _layer(ret):
    class L(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y=None):
            return x * 2 if y is None else x * y

        @staticmethod
        def backward(ctx, dy):
            return ret(dy)
    return L


def test_pylayer_backward_returning_a_list_raises_for_tensor_inputs():
    # Paddle 3.3.1: ValueError 'We can only support Tensor or None for backward output,
    # but got list' (a tuple is one gradient per input)
    x = TT([1.0, 2.0], stop_gradient=False)
    y = TT([3.0, 4.0], stop_gradient=False)
    for ret, args in ((lambda dy: [dy * 2], (x,)), (lambda dy: [dy, dy], (x, y))):
        out = _layer(ret).apply(*args).sum()
        with pytest.raises(ValueError, match="return a tuple, not a list"):
            out.backward()
    _layer(lambda dy: (dy, dy * 3)).apply(x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])


def test_pylayer_backward_list_is_one_list_arguments_gradients():
    # Paddle 3.3.1: forward(ctx, [x, y]); backward returning [dx, dy] or ([dx, dy],)
    class L(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, xs):
            return xs[0] * xs[1]

        @staticmethod
        def backward(ctx, dy):
            return [dy, dy * 2]
    x = TT([1.0, 2.0], stop_gradient=False)
    y = TT([3.0, 4.0], stop_gradient=False)
    L.apply([x, y]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0])


# ---- to_tensor of a Tensor ----------------------------------------------------------------

def test_to_tensor_of_a_tensor_warns_once_per_process(monkeypatch):
    # Paddle 3.3.1: UserWarning 'To copy construct from a tensor, ...' at the first
    # paddle.to_tensor(tensor) of the process, none after it nor for paddle.Tensor(t)
    from jitgrad.core import tensor as core_tensor
    monkeypatch.setattr(core_tensor, "_copy_warned", False)
    x = TT([1.0, 2.0], stop_gradient=False)
    with pytest.warns(UserWarning, match=r"use sourceTensor.clone\(\).detach\(\), rather "
                      r"than paddle.to_tensor\(sourceTensor\)") as record:
        y = paddle.to_tensor(x)
        paddle.to_tensor(x, dtype="float64")
        paddle.Tensor(x)
    assert len([w for w in record if "copy construct" in str(w.message)]) == 1
    assert record[0].filename == __file__
    assert y.stop_gradient is True and y.dtype == paddle.float32
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])


# ---- Paddle's private gradient setters ----------------------------------------------------

def test_private_set_grad_ivar_is_for_parameters_only():
    # Paddle 3.3.1: TypeError '_set_grad_ivar is only supported for Parameter Tensor'; a
    # Parameter's .grad takes the value
    x = TT([3.0, 5.0], stop_gradient=False)
    with pytest.raises(TypeError, match="only supported for Parameter"):
        x._set_grad_ivar(TT([1.0, 1.0]))
    p = paddle.create_parameter([2], "float32")
    p._set_grad_ivar(TT([1.0, 2.0]))
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, 2.0])
    assert p.grad.dtype == paddle.float32


def test_private_copy_gradient_from_sets_grad_of_same_dtype():
    # Paddle 3.3.1: x.grad takes src's values; another dtype raises
    x = TT([3.0, 5.0], stop_gradient=False)
    (x * x).sum().backward()
    x._copy_gradient_from(TT([1.0, 2.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="src has dtype float64"):
        x._copy_gradient_from(TT([1.0, 1.0], dtype="float64"))
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0])
