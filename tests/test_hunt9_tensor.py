"""Tensor indexing, in-place methods, attributes and operators measured on Paddle 3.3.1 by a
ninth hunt (repros in the hunt's scratch directory)."""

import numpy as np
import pytest

import jitgrad as paddle


def test_vector_products_are_0d_arrays():
    # Paddle 3.3.1: x @ x of two vectors is a 0-d float32 tensor whose .numpy() is a 0-d
    # ndarray (np.matmul gives a numpy scalar, which leaked into the tensor)
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    m = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    for y in (x @ x, paddle.matmul(x, x), paddle.dot(x, x),
              paddle.matmul(x, x, transpose_x=True), paddle.linalg.multi_dot([x, m, x])):
        assert type(y.numpy()) is np.ndarray and y.shape == [] and y.dtype == paddle.float32
    y = x @ x
    assert y.item() == 5.0
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_inplace_float_result_of_an_int_tensor_takes_its_dtype():
    # Paddle 3.3.1: exp_, log_, divide_ of an int64 x make x float32 (jitgrad cast the
    # result back: exp_ of [1, 2] was [2, 7], divide_ [3, 4] / [2, 8] was [1, 0])
    x = paddle.to_tensor([1, 2])
    assert x.exp_() is x
    assert x.dtype == paddle.float32
    np.testing.assert_allclose(x.numpy(), [2.7182817, 7.389056], rtol=1e-6)
    x = paddle.to_tensor([3, 4])
    x.divide_(paddle.to_tensor([2, 8]))
    assert x.dtype == paddle.float32
    np.testing.assert_array_equal(x.numpy(), [1.5, 0.5])
    x = paddle.to_tensor([1, 2])
    with paddle.no_grad():
        x.log_()
    np.testing.assert_allclose(x.numpy(), [0.0, 0.6931472], rtol=1e-6)
    # (where Paddle has no integer kernel, sqrt_ and the others: the float values, not
    # truncated ones)
    x = paddle.to_tensor([4, 5])
    x.sqrt_()
    np.testing.assert_allclose(x.numpy(), [2.0, 2.236068], rtol=1e-6)


def test_inplace_float32_with_float64_operand_becomes_float64():
    # Paddle 3.3.1: x.add_(y) of a float32 x and a float64 y makes x float64; the gradient
    # reaches a float32 leaf in float32: d/da sum((2a + y)^2) = 4 (2a + y)
    a = paddle.to_tensor([1.5, 3.0], stop_gradient=False)
    y = paddle.to_tensor([0.1, 0.2], dtype="float64", stop_gradient=False)
    x = a * 2.0
    assert x.add_(y) is x
    assert x.dtype == paddle.float64
    np.testing.assert_allclose(x.numpy(), [3.1, 6.2])
    (x * x).sum().backward()
    assert a.grad.dtype == paddle.float32 and y.grad.dtype == paddle.float64
    np.testing.assert_allclose(a.grad.numpy(), [12.4, 24.8], rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), [6.2, 12.4], rtol=1e-6)
    for m in ("subtract_", "multiply_", "divide_"):
        x = paddle.to_tensor([1.5, 3.0])
        getattr(x, m)(paddle.to_tensor([2.0, 2.0], dtype="float64"))
        assert x.dtype == paddle.float64, m


def test_int_scale_and_pow_keep_the_dtype_with_truncated_factors():
    # Paddle 3.3.1's integer kernels: scale and bias, and pow_'s exponent, are truncated to
    # integers; the result keeps x's dtype (jitgrad gave float32 [2.7, 4.7, 6.7] for scale)
    x = paddle.to_tensor([1, 2, 3])
    for y, want in ((x.scale(2.7, -1.7), [1, 3, 5]),
                    (paddle.scale(x, -1.5, 0.0, bias_after_scale=False), [-1, -2, -3]),
                    (paddle.scale(x, paddle.to_tensor(2.5)), [2, 4, 6]),
                    (paddle.scale(x, 2, bias=0.7), [2, 4, 6])):
        assert y.dtype == paddle.int64
        np.testing.assert_array_equal(y.numpy(), want)
    y = paddle.scale(paddle.to_tensor([1, 2], dtype="int32"), 1.9, 0.9)
    assert y.dtype == paddle.int32
    np.testing.assert_array_equal(y.numpy(), [1, 2])
    x = paddle.to_tensor([3, 5])
    assert x.scale_(2.5, 1.5) is x
    np.testing.assert_array_equal(x.numpy(), [7, 11])
    x = paddle.to_tensor([3, 5])
    x.pow_(2.9)
    assert x.dtype == paddle.int64
    np.testing.assert_array_equal(x.numpy(), [9, 25])
    x = paddle.to_tensor([3, 5])
    x.clip_(3.5, 4.5)                    # clip_ casts back (Paddle), clip is float32
    assert x.dtype == paddle.int64
    np.testing.assert_array_equal(x.numpy(), [3, 4])


@pytest.mark.parametrize("grad", [False, True])
def test_setitem_none_raises(grad):
    # Paddle 3.3.1: ValueError ("The assign value allows Tensor, numpy.ndarray, integer,
    # float, complex or bool"); jitgrad wrote NaN
    x = paddle.zeros([3])
    if grad:
        x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False) * 1
    with pytest.raises(ValueError):
        x[0] = None
    assert not np.isnan(x.numpy()).any()


def test_comparison_with_none_or_a_list_is_not_elementwise():
    # Paddle 3.3.1 (and torch): x == None is False, x != None True, x == [1.0, 5.0] False,
    # x < [1.0, 5.0] a TypeError; jitgrad compared element by element (so `if x == None`
    # raised for a tensor of two elements)
    x = paddle.to_tensor([1.0, 2.0])
    for o in (None, [1.0, 5.0], (1.0, 5.0), {}, [1.0]):
        assert (x == o) is False and (x != o) is True
        with pytest.raises(TypeError):
            _ = x < o
    assert x in [None, x] and x not in [None, [1.0, 2.0]]
    # numbers and arrays still compare element by element
    np.testing.assert_array_equal((x == np.array([1.0, 5.0])).numpy(), [True, False])
    np.testing.assert_array_equal((x == np.float32(1.0)).numpy(), [True, False])
    np.testing.assert_array_equal((x >= True).numpy(), [True, True])


def test_empty_list_index_selects_nothing():
    # Paddle 3.3.1: x[[]] of a [3, 4] tensor has shape [0, 4]; jitgrad raised TypeError
    # (numpy makes [] a float64 array)
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    x.stop_gradient = False
    y = x[[]]
    assert y.shape == [0, 4] and y.dtype == paddle.float32
    assert x[:, []].shape == [3, 0]      # (numpy and torch; Paddle 3.3.1 gives [4, 0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


def test_place_is_paddles_place_object():
    # Paddle 3.3.1: x.place is a Place (printed Place(cpu)) with is_cpu_place() and the
    # other devices' queries, equal to paddle.CPUPlace(); jitgrad's was the str "Place(cpu)"
    x = paddle.to_tensor([1.0])
    p = x.place
    assert str(p) == repr(p) == "Place(cpu)"
    assert p.is_cpu_place() and not p.is_gpu_place() and not p.is_xpu_place()
    assert not p.is_custom_place() and p.gpu_device_id() == 0
    assert p == paddle.CPUPlace() and paddle.CPUPlace() == p and p != "cpu"
    assert paddle.to_tensor([2.0], place=p).place == p
    assert str(x).startswith("Tensor(shape=[1], dtype=float32, place=Place(cpu),")
    lin = paddle.nn.Linear(2, 2)
    lin.to(device=x.place)
