"""Tensors: dtypes and promotion, printing, conversions, operators (PADDLE_SEMANTICS.md A)."""

import operator

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_to_tensor_default_dtypes():
    assert TT([1.0, 2.0]).dtype == paddle.float32
    assert TT([1, 2]).dtype == paddle.int64
    assert TT([True]).dtype == paddle.bool
    assert TT(np.array([1.0])).dtype == paddle.float64
    assert TT(np.array([1], np.int32)).dtype == paddle.int32
    assert TT([1.0]).stop_gradient is True
    assert paddle.get_default_dtype() == "float32"


def test_dtype_compares_by_identity_and_prints_with_prefix():
    t = TT([1.0])
    assert t.dtype == paddle.float32
    assert not (t.dtype == "float32")
    assert str(t.dtype) == "paddle.float32"


def test_shape_is_a_list():
    assert TT([[1.0, 2.0]]).shape == [1, 2]
    assert TT(3.0).shape == []


def test_int_tensor_times_python_float_gives_float32():
    assert (TT([1, 2]) * 1.5).dtype == paddle.float32
    assert (TT([1, 2]) / TT([2, 2])).dtype == paddle.float32
    assert (TT([1, 2]) / TT([2, 2])).tolist() == [0.5, 1.0]


def test_float32_with_float64_gives_float64():
    assert (TT([1.0]) + TT(np.array([1.0]))).dtype == paddle.float64


def test_int_tensor_with_float_tensor_raises_type_error():
    with pytest.raises(TypeError, match="astype"):
        TT([1, 2]) + TT([1.0, 2.0])


def test_python_scalar_keeps_float32():
    assert (TT([1.0]) * 2.0).dtype == paddle.float32
    assert (2 * TT([1.0])).dtype == paddle.float32


def test_reductions_and_scalar_indexing_give_0d():
    x = TT([[1.0, 2.0], [3.0, 4.0]])
    assert paddle.sum(x).shape == [] and x.mean().shape == []
    assert x[0, 1].shape == [] and x[0].shape == [2]
    assert paddle.matmul(TT([1.0, 2.0]), TT([3.0, 4.0])).shape == []


def test_float_on_one_element_tensors_and_item_on_one_element():
    # (a shape-[1] tensor too: tests/test_autograd_api_paddle.py has why)
    assert float(TT(2.5)) == 2.5 and float(TT([2.5])) == 2.5
    with pytest.raises(TypeError, match="one-element"):
        float(TT([1.0, 2.0]))
    assert TT([2.5]).item() == 2.5
    with pytest.raises(ValueError):
        TT([1.0, 2.0]).item()


def test_print_matches_paddle():
    x = TT([1.0, 2.0], stop_gradient=False)
    assert str(x) == ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,"
                      "\n       [1., 2.])")
    assert str(TT(2.0)).endswith("\n       2.)")
    m = TT([[9.0, 10.0], [21.0, 22.0]])
    assert str(m).endswith("[[9. , 10.],\n        [21., 22.]])")


def test_print_mixed_and_signed_columns():
    assert str(TT([0.0, 0.69314718])).endswith("[0.        , 0.69314718])")
    assert str(TT([-0.19661194, 0.196612])).endswith("[-0.19661194,  0.19661200])")


def test_print_int_and_bool():
    assert str(TT([1, 20])).endswith("[1 , 20])")
    assert "dtype=int64" in str(TT([1]))
    assert str(TT([True, False])).endswith("[True , False])")


def test_print_summarises_large_tensors():
    s = str(TT(np.arange(2000, dtype=np.float32)))
    assert "..." in s and s.endswith("[0.   , 1.   , 2.   , ..., 1997., 1998., 1999.])")


def test_format_0d_and_format_spec():
    assert "{}".format(TT(10.0)) == "10.0"
    assert "{:.2f}".format(TT(2.5)) == "2.50"


def test_numpy_tolist_detach_clone():
    x = TT([1.0, 2.0], stop_gradient=False)
    a = x.numpy()
    a[0] = 100
    assert x.tolist() == [1.0, 2.0]
    assert x.detach().stop_gradient and x.clone().stop_gradient is False


def test_operators_and_reflected_numpy_scalars():
    x = TT([1.0, 2.0])
    assert (x + 1).tolist() == [2, 3] and (1 - x).tolist() == [0, -1]
    assert (x * x).tolist() == [1, 4] and (2 / x).tolist() == [2, 1]
    assert (x ** 2).tolist() == [1, 4] and (-x).tolist() == [-1, -2]
    assert (np.float32(3) * x).tolist() == [3, 6]
    assert isinstance(np.float32(3) * x, paddle.Tensor)
    assert (x > 1).tolist() == [False, True] and (x == 2).tolist() == [False, True]
    assert np.asarray(x).tolist() == [1.0, 2.0]


def test_indexing_with_slices_and_steps():
    x = TT(np.arange(12, dtype=np.float32).reshape(3, 4), stop_gradient=False)
    y = x[1:, ::2]
    assert y.tolist() == [[4, 6], [8, 10]]
    y.sum().backward()
    assert x.grad.tolist() == [[0, 0, 0, 0], [1, 0, 1, 0], [1, 0, 1, 0]]


def test_repeated_integer_index_accumulates_gradient():
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    x[[0, 0, 2]].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


def test_no_grad_context_and_decorator():
    x = TT([1.0], stop_gradient=False)
    with paddle.no_grad():
        assert (x * 2).stop_gradient

    @paddle.no_grad()
    def f(t):
        return t * 2

    assert f(x).stop_gradient
    assert (x * 2).stop_gradient is False


def test_no_grad_decorates_generators():
    x = TT([1.0], stop_gradient=False)

    @paddle.no_grad()
    def gen():
        yield x * 2
        yield x * 3

    assert all(t.stop_gradient for t in gen())
    assert paddle.is_grad_enabled()


def test_bare_no_grad_is_a_type_error():
    with pytest.raises(TypeError):
        with paddle.no_grad:
            pass


def test_to_tensor_inside_no_grad_still_requires_grad():
    with paddle.no_grad():
        x = TT([1.0], stop_gradient=False)
    assert x.stop_gradient is False


def test_nn_functional_exposes_activations():
    F = paddle.nn.functional
    x = TT([-1.0, 0.0, 2.0])
    assert F.relu(x).tolist() == [0.0, 0.0, 2.0]
    np.testing.assert_allclose(F.softmax(x).numpy().sum(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(F.log_softmax(x).numpy(),
                               np.log(F.softmax(x).numpy()), rtol=1e-5)
    assert F.tanh is paddle.tanh and F.sigmoid is paddle.sigmoid


# ---- a 0-d tensor in arithmetic counts like a Python number (Paddle 3.3.1, measured) ------

def _t(v, dt):
    return paddle.to_tensor(v, dtype=dt)


@pytest.mark.parametrize("nd, zd, want", [
    ("float32", "float64", "float32"), ("float64", "float32", "float64"),
    ("int32", "int64", "int32"), ("int64", "int32", "int64"),
    ("float32", "int64", "float32"), ("int32", "float64", "float64"),
    ("int64", "float32", "float32"), ("bool", "int32", "int32"), ("bool", "float64", "float64"),
    ("int32", "bool", "int32")])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "pow", "remainder"])
def test_a_0d_tensor_promotes_like_a_number_in_arithmetic(nd, zd, want, op):
    a, z = _t([1, 2] if nd != "bool" else [True, False], nd), _t(3 if zd != "bool" else True, zd)
    f = getattr(paddle, op)
    if op == "remainder" and "bool" in (nd, zd):
        return
    want = getattr(paddle, want)
    assert f(a, z).dtype == want and f(z, a).dtype == want
    assert f(a, z).shape == [2]


@pytest.mark.parametrize("a, b, want", [
    ("float64", "float32", "float64"), ("int64", "int32", "int64"),
    ("int64", "float32", "float32"), ("bool", "int32", "int32")])
def test_two_0d_tensors_promote_as_usual_within_a_kind(a, b, want):
    want = getattr(paddle, want)
    assert (_t(2, a) + _t(3, b)).dtype == want
    assert (_t(3, b) * _t(2, a)).dtype == want


@pytest.mark.parametrize("a, b", [("int32", "int64"), ("int16", "int32"), ("uint8", "int64"),
                                  ("bool", "int64"), ("float32", "int64")])
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.floordiv, operator.mod, operator.pow, operator.eq,
                                operator.lt, paddle.maximum, paddle.minimum,
                                paddle.logical_and, paddle.equal])
def test_two_tensors_of_different_non_float_dtypes_are_refused(a, b, op):
    # Paddle 3.3.1 promotes between floats only: "Type promotion only support calculations
    # between floating-point numbers ..." (TypeError)
    x = _t([1, 2] if a != "bool" else [True, False], a)
    y = _t([1, 2] if b != "bool" else [True, False], b)
    with pytest.raises(TypeError, match="cannot combine tensors of dtype"):
        op(x, y)
    with pytest.raises(TypeError, match="cannot combine tensors of dtype"):
        op(y, x)


def test_bitwise_operators_refuse_two_int_dtypes_and_where_refuses_them_too():
    i32, i64 = _t([1, 2], "int32"), _t([1, 3], "int64")
    with pytest.raises(TypeError, match="int32 and int64"):
        i32 | i64
    with pytest.raises(TypeError, match="int32 and int64"):
        paddle.where(_t([True, False], "bool"), i32, i64)
    assert (i32 | _t([4, 4], "int32")).tolist() == [5, 6]
    assert (_t([1.0, 2.0], "float32") < _t([1.5, 1.5], "float64")).tolist() == [True, False]
    assert (i64 == _t(1, "int32")).tolist() == [True, False]     # a 0-d side: a number


def test_true_division_by_a_0d_tensor():
    assert (_t([1, 2], "int64") / _t(3, "int64")).dtype == paddle.float32
    assert (_t([1.5, 2.5], "float32") / _t(2, "int64")).tolist() == [0.75, 1.25]
    assert (_t([1.5, 2.5], "float32") / _t(2.0, "float64")).dtype == paddle.float32


def test_maximum_and_floor_divide_keep_the_usual_promotion_within_a_kind():
    f32, z64 = _t([1.5, 2.5], "float32"), _t(2.0, "float64")
    assert paddle.maximum(f32, z64).dtype == paddle.float64
    assert (f32 // z64).dtype == paddle.float64
    assert (f32 // _t(2, "int64")).dtype == paddle.float32
    i = _t([1, 2, 3], "int32") // _t(3, "int64")        # a 0-d int of another width
    assert i.dtype == paddle.int64 and i.tolist() == [0, 0, 1]


def test_the_0d_operand_gets_its_gradient_in_its_own_dtype():
    x = paddle.to_tensor([1.5, 2.5], "float32", stop_gradient=False)
    s = paddle.to_tensor(2.0, "float64", stop_gradient=False)
    y = (x * s).sum()
    assert y.dtype == paddle.float32
    y.backward()
    assert x.grad.dtype == paddle.float32 and x.grad.tolist() == [2.0, 2.0]
    assert s.grad.dtype == paddle.float64 and s.grad.shape == [] and float(s.grad) == 4.0


def test_dtypes_print_as_paddle_and_repr_as_its_datatype_enum():
    # Paddle 3.3.1: str paddle.float32, repr <DataType.FLOAT32: 10> (seen in print([x.dtype]))
    assert str(paddle.float32) == "paddle.float32" and f"{paddle.int64}" == "paddle.int64"
    assert repr(paddle.float32) == "<DataType.FLOAT32: 10>"
    assert str([TT([1]).dtype, paddle.bool]) == "[<DataType.INT64: 9>, <DataType.BOOL: 1>]"


def test_conj_and_angle_of_real_tensors_as_paddle():
    x = paddle.to_tensor([-2.0, -0.0, 0.0, 3.0, float("nan"), -float("inf")],
                         stop_gradient=False)
    a = paddle.angle(x)
    assert np.array_equal(a.numpy(), np.float32([np.pi, 0, 0, 0, np.nan, np.pi]),
                          equal_nan=True) and a.dtype == paddle.float32
    a.sum().backward()
    assert x.grad.tolist() == [0.0] * 6                       # Paddle 3.3.1: zeros
    with pytest.raises(TypeError):
        paddle.angle(paddle.to_tensor([1, 2]))
    y = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
    c = y.conj()
    (c * c).sum().backward()
    assert c.tolist() == [1.0, -2.0] and y.grad.tolist() == [2.0, -4.0]
    assert paddle.conj(paddle.to_tensor([-2, 3])).tolist() == [-2, 3]


def test_multinomial_is_a_tensor_method_too():
    p = paddle.to_tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert p.multinomial(2, replacement=True).tolist() == [[1, 1], [2, 2]]


def test_methods_are_on_the_class_from_import():
    # Paddle 3.3.1: paddle.Tensor.sum(x) and hasattr(paddle.Tensor, "astype")
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert paddle.Tensor.sum(x).item() == 6.0
    for name in ("astype", "exp", "mean", "clone", "add_", "uniform_", "set_value", "cast"):
        assert hasattr(paddle.Tensor, name), name


def test_full_truncates_and_wraps_a_value_into_an_integer_dtype():
    # Paddle 3.3.1 (and torch) cast the value as C does
    assert paddle.full([2], -1, dtype="uint8").tolist() == [255, 255]
    assert paddle.full([2], 300, dtype="uint8").tolist() == [44, 44]
    assert paddle.full([2], 70000, dtype="int16").tolist() == [4464, 4464]
    assert paddle.full([2], 2.7, dtype="int32").tolist() == [2, 2]
    assert paddle.full([2], -2.7, dtype="uint8").tolist() == [254, 254]
    x = paddle.to_tensor(np.array([1, 2], "uint8"))
    with pytest.raises(ValueError, match="out of range"):      # full_like refuses, as Paddle
        paddle.full_like(x, -1)


def test_every_tensor_has_a_unique_name():
    a, b = paddle.to_tensor([1.0], stop_gradient=False), paddle.to_tensor([2.0])
    c = a + b                                   # a recorded op's result
    assert a.name.startswith("generated_tensor_") and c.name.startswith("eager_tmp_")
    assert len({a.name, b.name, c.name}) == 3 and a.name == a.name
    a.name = "mine"
    assert a.name == "mine"
    with pytest.raises(TypeError, match="str"):
        a.name = 3


def test_buffers_load_by_tensor_name_each_into_its_own():
    # was silently wrong: both buffers were named '', so a name-keyed checkpoint held one
    class M(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", paddle.to_tensor([1.0, 2.0]))
            self.register_buffer("b", paddle.to_tensor([3.0, 4.0]))
    m = M()
    by_name = {v.name: v.clone() for v in m.state_dict().values()}
    assert len(by_name) == 2
    m.a.set_value(paddle.zeros([2]))
    m.b.set_value(paddle.zeros([2]))
    assert m.set_state_dict(by_name, use_structured_name=False) == ([], [])
    assert m.a.tolist() == [1.0, 2.0] and m.b.tolist() == [3.0, 4.0]
