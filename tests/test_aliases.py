"""Paddle 3.x's other names for existing ops (ops/aliases.py) give the original op's values,
dtypes and gradients; values below were measured on Paddle 3.3.1."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
X = np.array([[1.5, -2.0, 0.5], [3.0, -0.25, 2.0]], "float32")
Y = np.array([[0.5, 1.0, 2.0], [4.0, 0.5, 1.5]], "float32")

# alias call, original call
SAME = {
    "clamp": (lambda x, y: paddle.clamp(x, -0.5, 0.5), lambda x, y: paddle.clip(x, -0.5, 0.5)),
    "sub": (lambda x, y: paddle.sub(x, y), lambda x, y: x - y),
    "sub_alpha": (lambda x, y: paddle.sub(x, y, alpha=2), lambda x, y: x - 2 * y),
    "mul": (lambda x, y: x.mul(y), lambda x, y: x * y),
    "div": (lambda x, y: paddle.div(x, y), lambda x, y: x / y),
    "true_divide": (lambda x, y: paddle.true_divide(x, y), lambda x, y: x / y),
    "negative": (lambda x, y: paddle.negative(x), lambda x, y: -x),
    "permute": (lambda x, y: x.permute(1, 0), lambda x, y: paddle.transpose(x, [1, 0])),
    "swapaxes": (lambda x, y: paddle.swapaxes(x, [1, 0]), lambda x, y: x.T),
    "matrix_transpose": (lambda x, y: paddle.matrix_transpose(x), lambda x, y: x.T),
    "ravel": (lambda x, y: paddle.ravel(x), lambda x, y: paddle.flatten(x)),
    "cat": (lambda x, y: paddle.cat([x, y], 1), lambda x, y: paddle.concat([x, y], axis=1)),
    "reverse": (lambda x, y: paddle.reverse(x, 1), lambda x, y: paddle.flip(x, 1)),
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_alias_gives_the_original_values_and_gradients(name):
    alias, original = SAME[name]
    results = []
    for fn in (alias, original):
        x, y = TT(X, stop_gradient=False), TT(Y, stop_gradient=False)
        out = fn(x, y)
        (out * out).sum().backward()
        results.append((out.numpy(), x.grad.numpy(), None if y.grad is None else y.grad.numpy()))
    (a, ga, ha), (b, gb, hb) = results
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ga, gb)
    assert (ha is None) == (hb is None)
    if ha is not None:
        np.testing.assert_array_equal(ha, hb)


def test_div_rounding_modes():
    x, y = TT([-7.0, 7.0, -7.5]), TT([2.0, 2.0, 2.0])
    assert paddle.div(x, y, rounding_mode="trunc").tolist() == [-3.0, 3.0, -3.0]
    assert paddle.div(x, y, rounding_mode="floor").tolist() == [-4.0, 3.0, -4.0]
    xi, yi = TT([-7, 7]), TT([2, 2])
    trunc = paddle.div(xi, yi, rounding_mode="trunc")
    assert trunc.dtype == paddle.int64 and trunc.tolist() == [-3, 3]
    assert paddle.div(xi, yi).tolist() == [-3.5, 3.5]          # Paddle 3.3.1: float32
    with pytest.raises(ValueError, match="rounding_mode"):
        paddle.div(x, y, rounding_mode="round")


def test_comparison_aliases():
    a, b = TT([1, 2, 3]), TT([2, 2, 2])
    assert paddle.eq(a, b).tolist() == [False, True, False]
    assert paddle.ne(a, b).tolist() == [True, False, True]
    assert paddle.gt(a, b).tolist() == paddle.greater(a, b).tolist() == [False, False, True]
    assert paddle.ge(a, b).tolist() == [False, True, True]
    assert paddle.lt(a, b).tolist() == paddle.less(a, b).tolist() == [True, False, False]
    assert paddle.le(a, b).tolist() == [True, True, False]


def test_positive_refuses_bool_and_empty_gives_the_shape_and_dtype():
    with pytest.raises(TypeError, match="bool"):
        paddle.positive(TT([True]))
    e = paddle.empty([2, 3], dtype="int32")
    assert e.shape == [2, 3] and e.dtype == paddle.int32
    assert paddle.empty_like(TT(X)).shape == [2, 3]


def test_cast_methods_and_requires_grad():
    x = TT([1.7, -2.2])
    assert x.int().tolist() == [1, -2] and x.int().dtype == paddle.int32
    assert x.long().dtype == paddle.int64 and x.double().dtype == paddle.float64
    assert x.bool().tolist() == [True, True] and x.float().dtype == paddle.float32
    assert x.ndimension() == 1
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad and not x.stop_gradient
    x.requires_grad = False
    assert x.stop_gradient
    with pytest.raises(TypeError, match="True or False"):
        x.requires_grad = "yes"


def test_torch_style_tensor_methods():
    x = TT(X, stop_gradient=False)
    assert x.cpu() is x and x.contiguous() is x and x.is_contiguous()
    assert x.view([3, 2]).shape == [3, 2] and x.view_as(TT(np.zeros(6))).shape == [6]
    assert x.view("int32").dtype == paddle.int32
    assert x.to("float64").dtype == paddle.float64 and x.to("cpu") is x
    assert x.to(dtype="float64").dtype == paddle.float64
    assert x.type_as(TT([1])).dtype == paddle.int64
    assert x.new_zeros([2, 2]).dtype == paddle.float32
    assert x.new_ones([3], dtype="int32").tolist() == [1, 1, 1]
    assert x.new_full([2], 3).tolist() == [3.0, 3.0]
    assert x.element_size() == 4 and x.itemsize == 4
    assert x.repeat(2, 1).shape == [4, 3] and x.repeat([1, 2]).shape == [2, 6]
    assert x.mT.tolist() == X.T.tolist()
    with pytest.raises(ValueError, match="CPU"):
        x.cuda()
    with pytest.raises(ValueError, match="CPU"):
        x.to("gpu")
    y = x.view([3, 2]) * 2.0                  # view is reshape: the gradient flows back
    y.sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2
