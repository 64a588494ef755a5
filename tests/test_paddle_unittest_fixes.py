"""What Paddle 3.3.1's own dygraph unit tests (perf/paddle_unittests.py) pin down: the
wording of the in-place ops' argument errors (their tests match it with assertRaisesRegex),
and the documented differences the runner checks in their place (README, "Where it
deliberately differs")."""

import re

import numpy as np
import pytest

import jitgrad as paddle

# ---- errors with Paddle's wording (test_inplace.py's regexes, verbatim) -----------------------

def test_ldexp_inplace_non_tensor_x_raises_typeerror_with_paddles_wording():
    with pytest.raises(TypeError, match=re.escape(f"x must be tensor type, but got {int}")):
        paddle.ldexp_(1, 1)


def test_ldexp_inplace_non_tensor_y_raises_typeerror_with_paddles_wording_and_keeps_x():
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    with pytest.raises(TypeError, match=re.escape(f"y must be tensor type, but got {int}")):
        paddle.ldexp_(x, 1)
    assert x.numpy().tolist() == [1.0, 2.0]
    assert x.inplace_version == 0


def test_ldexp_inplace_with_tensors_still_works():
    x = paddle.to_tensor(np.array([1.0, 3.0], "float32"))
    out = paddle.ldexp_(x, paddle.to_tensor(np.array([2, 1], "int32")))
    assert out is x
    assert x.numpy().tolist() == [4.0, 6.0]


@pytest.mark.parametrize("y", [[2], paddle.to_tensor(2.0)])
def test_pow_inplace_non_number_raises_typeerror_with_paddles_wording(y):
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    with pytest.raises(TypeError,
                       match=re.escape(f"y must be scalar type, but received: {type(y)} ")):
        paddle.pow_(x, y)
    with pytest.raises(TypeError, match="y must be scalar type"):
        x.pow_(y)
    assert x.numpy().tolist() == [1.0, 2.0]
    assert x.inplace_version == 0


# ---- the documented differences perf/paddle_unittests.py's DELIBERATE checks ------------------

def test_int_tensor_cannot_require_gradients_before_gcd_inplace():
    var = paddle.to_tensor(np.array([[1, 0], [1, 1]])).astype("int32")
    with pytest.raises(TypeError):
        var.stop_gradient = False
    assert var.stop_gradient is True


def test_pylayer_without_backward_raises_notimplementederror_at_backward():
    class NoBackward(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 5

    x = paddle.to_tensor(np.ones([2, 3], "float64"), stop_gradient=False)
    a, b = NoBackward.apply(x)
    with pytest.raises(NotImplementedError, match="NoBackward"):
        (a + b).mean().backward()


@pytest.mark.parametrize("dtype,has_grad", [("bool", False), ("uint8", False),
                                            ("int32", False), ("int64", False),
                                            ("float16", True), ("float64", True)])
def test_pylayer_cast_output_gets_a_gradient_path_only_when_float(dtype, has_grad):
    class Cast(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, dtype):
            return paddle.cast(x, dtype)

        @staticmethod
        def backward(ctx, dy):
            return dy

    x = paddle.to_tensor(np.array([[0.5, -1.5, 2.0]], "float32"), stop_gradient=False)
    z = Cast.apply(x, dtype)
    assert z.stop_gradient is (not has_grad)
    if has_grad:
        paddle.cast(z, "float32").sum().backward()
        assert x.grad.numpy().tolist() == [[1.0, 1.0, 1.0]]
        assert x.grad.dtype == paddle.float32
    else:
        assert x.grad is None
