"""In-place ops against Paddle 3.3.1's unit tests: an in-place op never broadcasts x to a
bigger shape (ValueError before anything is computed), x is positional-only (addmm_'s own
x= keyword), cumsum_/cumprod_ flatten and cast x as Paddle does, inplace_version counts
Paddle's in-place steps, and the error types match Paddle's."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def ints(values, dtype="int32"):
    return TT(np.array(values, dtype))


# ---- broadcasting x to a bigger shape --------------------------------------------------------

CHANGING = ["logical_and_", "logical_or_", "logical_xor_", "equal_", "not_equal_",
            "less_than_", "less_equal_", "greater_than_", "greater_equal_", "less_"]
BITWISE = ["bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
           "bitwise_right_shift_", "gcd_", "lcm_"]
ARITH = ["add_", "subtract_", "multiply_", "divide_", "remainder_", "floor_divide_",
         "hypot_", "copysign_", "gammainc_", "gammaincc_"]


@pytest.mark.parametrize("name", CHANGING)
def test_compare_and_logical_inplace_refuse_to_broadcast_x(name):
    x = TT(np.ones([10, 1, 20], "float32"))
    with pytest.raises(ValueError, match=r"broadcast output \[10, 20, 20\].*inplace tensor "
                                         r"\[10, 1, 20\]"):
        getattr(paddle, name)(x, TT(np.ones([10, 20, 1], "float32")))
    assert x.shape == [10, 1, 20] and x.dtype == paddle.float32 and x.inplace_version == 0


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_gcd_lcm_inplace_refuse_to_broadcast_x(name):
    x = ints(np.ones([3, 1, 4]))
    with pytest.raises(ValueError, match="broadcast output"):
        getattr(paddle, name)(x, ints(np.ones([3, 4, 1])))
    assert x.shape == [3, 1, 4] and x.inplace_version == 0


@pytest.mark.parametrize("name", ARITH)
def test_arithmetic_inplace_refuse_to_broadcast_x(name):
    x = TT(np.ones([3], "float32"))
    with pytest.raises(ValueError, match=r"broadcast output \[2, 3\]"):
        getattr(paddle, name)(x, TT(np.ones([2, 3], "float32")))
    assert x.shape == [3] and x.inplace_version == 0


def test_broadcast_is_checked_before_the_dtype():
    with pytest.raises(ValueError, match="broadcast output"):        # not gcd's TypeError
        paddle.gcd_(TT(np.ones([1, 10], "float32")), TT(np.ones([20, 1], "float32")))
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.bitwise_and_(TT(np.ones([1, 3], "float32")), TT(np.ones([2, 1], "float32")))
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.ldexp_(TT(np.ones([3], "float32")), ints(np.ones([2, 3])))


def test_lerp_masked_fill_where_refuse_to_broadcast_x():
    x = TT(np.ones([1, 3], "float32"))
    big = TT(np.ones([2, 3], "float32"))
    with pytest.raises(ValueError, match="broadcast output"):
        x.lerp_(big, 0.5)
    with pytest.raises(ValueError, match="broadcast output"):
        x.lerp_(x * 1.0, big)
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.masked_fill_(x, TT(np.ones([2, 3], bool)), 1.0)
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.where_(TT(np.ones([2, 3], bool)), x, x * 2.0)
    assert x.shape == [1, 3] and x.inplace_version == 0


def test_operands_that_do_not_broadcast_raise_valueerror():
    with pytest.raises(ValueError, match="could not be broadcast"):
        paddle.less_than_(TT(np.ones([2, 3], "float32")), TT(np.ones([4], "float32")))


def test_inplace_broadcasting_y_up_to_x_still_works():
    x = TT(np.arange(6, dtype="float32").reshape(2, 3))
    assert paddle.less_than_(x, TT(np.array([1.0, 4.0, 4.0], "float32"))) is x
    assert x.dtype == paddle.bool and x.tolist() == [[True, True, True], [False, False, False]]
    y = ints([[12, 18, 7], [30, 21, 64]])
    paddle.gcd_(y, ints([8, 27, 48]))
    assert y.tolist() == [[4, 9, 1], [2, 3, 16]]


# ---- x is positional-only; addmm_ / addmm shape checks ---------------------------------------

def test_addmm_inplace_takes_x_and_y_by_keyword():
    v = TT(np.ones([2, 2], "float32"))
    a = TT(np.arange(6, dtype="float32").reshape(2, 3))
    b = TT(np.arange(6, dtype="float32").reshape(3, 2))
    assert paddle.addmm_(v, x=a, y=b, alpha=2.0) is v
    assert v.tolist() == (1 + 2 * np.arange(6).reshape(2, 3) @ np.arange(6).reshape(3, 2)
                          ).tolist()
    w = TT(np.zeros([2, 2], "float32"))
    assert w.addmm_(x=a, y=b) is w and paddle.addmm_(input=w, x=a, y=b) is w
    assert w.tolist() == (2 * np.arange(6).reshape(2, 3) @ np.arange(6).reshape(3, 2)).tolist()


def test_inplace_wrappers_take_the_tensor_by_keyword_too():
    x = TT([1.0, 2.0])
    assert paddle.subtract_(x=x, y=TT([1.0, 1.0])) is x and x.tolist() == [0.0, 1.0]
    with pytest.raises(TypeError, match="missing its tensor argument"):
        paddle.subtract_(y=TT([1.0, 1.0]))


@pytest.mark.parametrize("fn", [paddle.addmm, paddle.addmm_])
@pytest.mark.parametrize("shapes, match", [
    (([10, 10], [10], [10, 10]), "2-D"),
    (([10, 10], [10, 10], [12, 10]), "width"),
    (([6], [10, 10], [10, 10]), "does not broadcast"),
    (([1, 5], [12, 10], [10, 10]), "dimension 1"),
    (([3, 2], [2, 3], [3, 2]), "dimension 0"),
    (([1, 2, 2], [2, 3], [3, 2]), "1-D or 2-D"),
])
def test_addmm_checks_shapes_as_paddle(fn, shapes, match):
    v, a, b = (TT(np.ones(s, "float32")) for s in shapes)
    with pytest.raises(ValueError, match=match):
        fn(v, a, b)


def test_addmm_inplace_refuses_an_input_that_would_broadcast():
    v = TT(np.ones([1, 2], "float32"))
    with pytest.raises(ValueError, match="inplace tensor"):
        paddle.addmm_(v, TT(np.ones([2, 3], "float32")), TT(np.ones([3, 2], "float32")))
    assert paddle.addmm(v, TT(np.ones([2, 3], "float32")),
                        TT(np.ones([3, 2], "float32"))).shape == [2, 2]


# ---- cumsum_ / cumprod_ ----------------------------------------------------------------------

def test_cumsum_inplace_without_axis_flattens_x():
    x = TT(np.arange(6, dtype="float32").reshape(2, 3, 1))
    assert paddle.cumsum_(x) is x
    assert x.shape == [6] and x.tolist() == [0, 1, 3, 6, 10, 15] and x.inplace_version == 1


def test_cumsum_inplace_dtype_casts_x_and_counts_the_cast():
    x = TT(np.arange(6, dtype="float32").reshape(2, 3, 1))
    paddle.cumsum_(x, dtype="float64")
    assert x.dtype == paddle.float64 and x.shape == [6] and x.inplace_version == 2
    y = TT(np.ones([2, 3, 1], "float32"))
    paddle.cumsum_(y, -1, dtype="float32")              # same dtype: no cast step
    assert y.shape == [2, 3, 1] and y.inplace_version == 1
    i = ints([[1, 2], [3, 4]])
    paddle.cumsum_(i)                                   # int32 stays int32
    assert i.dtype == paddle.int32 and i.tolist() == [1, 3, 6, 10]


def test_cumprod_inplace_dtype_and_flatten_versions():
    x = TT(np.full([2, 3, 1], 2.0, "float32"))
    paddle.cumprod_(x, -1, dtype="float64")
    assert x.dtype == paddle.float64 and x.shape == [2, 3, 1] and x.inplace_version == 2
    y = TT(np.full([2, 3], 2.0, "float32"))
    paddle.cumprod_(y)                                  # flatten_ + cumprod_
    assert y.shape == [6] and y.tolist() == [2, 4, 8, 16, 32, 64] and y.inplace_version == 2
    z = TT(np.full([2, 3], 2.0, "float32"))
    paddle.cumprod_(z, dtype="float64")
    assert z.dtype == paddle.float64 and z.shape == [6] and z.inplace_version == 3


def test_cumsum_inplace_flatten_and_cast_keep_the_gradient():
    a = TT(np.arange(1, 7, dtype="float32").reshape(2, 3), stop_gradient=False)
    y = a * 1.0
    paddle.cumsum_(y, dtype="float64")
    (y * y).sum().backward()
    assert y.shape == [6] and y.dtype == paddle.float64
    assert a.grad.dtype == paddle.float32
    assert a.grad.tolist() == [[112.0, 110.0, 104.0], [92.0, 72.0, 42.0]]


# ---- inplace_version: Paddle's in-place steps -----------------------------------------------

def test_inplace_versions_count_paddles_steps():
    def version(fn, x):
        fn(x)
        return x.inplace_version
    f = lambda: TT(np.full([2, 3], 0.5, "float32"))
    assert version(lambda x: paddle.hypot_(x, f()), f()) == 3
    assert version(lambda x: paddle.index_fill_(x, TT([0, 2]), 1, -1.0), f()) == 3
    assert version(lambda x: paddle.index_fill_(x, TT(np.zeros([0], "int64")), 1, -1.0),
                   f()) == 0
    assert version(lambda x: paddle.nan_to_num_(x), f()) == 3
    assert version(lambda x: paddle.ldexp_(x, ints([1, 2, 3])), f()) == 2
    assert version(lambda x: paddle.gammainc_(x, f()), f()) == 3
    assert version(lambda x: paddle.masked_fill_(x, x > 0, 1.0), f()) == 1
    assert version(lambda x: paddle.where_(x > 0, x, f()), f()) == 1
    assert version(lambda x: paddle.lcm_(x, ints([[2, 3, 4], [5, 6, 7]])),
                   ints([[1, 2, 3], [4, 5, 6]])) == 4
    assert version(lambda x: x.bernoulli_(), f()) == 3
    assert version(lambda x: x.cauchy_(), f()) == 6


@pytest.mark.parametrize("a, b, want, version", [
    ([12, 18, 7], [8, 27, 0], [4, 9, 7], 7), ([0, 0, 5], [0, 3, 5], [0, 3, 5], 3),
    ([100, 1, 34], [75, 1, 55], [25, 1, 1], 19), ([-12, 18, 3], [8, -27, 9], [4, 9, 3], 7)])
def test_gcd_inplace_version_follows_paddles_euclid_rounds(a, b, want, version):
    x = ints(a)
    assert paddle.gcd_(x, ints(b)) is x
    assert x.tolist() == want and x.inplace_version == version


def test_extra_versions_keep_backward_and_stale_checks_working():
    a = TT(np.arange(1, 7, dtype="float32"), stop_gradient=False)
    y = a * 1.0
    paddle.hypot_(y, TT(np.full([6], 2.0, "float32")))
    assert y.inplace_version == 3
    (y * y).sum().backward()                            # d(x^2 + 4)/dx = 2x
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.arange(1, 7), rtol=1e-6)
    b = TT(np.arange(1, 4, dtype="float32"), stop_gradient=False)
    z = b * 1.0
    w = z * z                                           # reads z's version 0
    paddle.nan_to_num_(z)
    with pytest.raises(RuntimeError, match="version 0, now 3"):
        w.sum().backward()


def test_ldexp_inplace_casts_x_like_paddle():
    x = ints([[3, 1, 7]])
    paddle.ldexp_(x, ints([[2, 7, 2]]))
    assert x.dtype == paddle.float32 and x.tolist() == [[12.0, 128.0, 28.0]]
    y = TT(np.ones([3], "float32"))
    paddle.ldexp_(y, TT(np.array([1.0, 2.0, 3.0])))     # a float64 y makes x float64
    assert y.dtype == paddle.float64 and y.tolist() == [2.0, 4.0, 8.0]
    assert y.inplace_version == 2


# ---- error types -----------------------------------------------------------------------------

def test_hypot_ldexp_inplace_need_tensors():
    t = TT(np.ones([2], "float32"))
    with pytest.raises(TypeError):
        paddle.hypot_(t, 3.0)
    with pytest.raises(TypeError):
        paddle.hypot_(3.0, t)
    with pytest.raises(TypeError):
        paddle.ldexp_(1, 1)
    assert t.inplace_version == 0


def test_pow_inplace_takes_only_a_python_number():
    t = TT(np.full([2], 3.0, "float32"))
    for y in ([2], t, np.float32(2.0)):
        with pytest.raises(TypeError, match="Python int or float"):
            paddle.pow_(t, y)
    assert t.pow_(2) is t and t.tolist() == [9.0, 9.0]


def test_where_inplace_errors_are_valueerrors():
    cond = TT([[False, True, False], [False, True, False]])
    x = TT(np.ones([2, 3], "float32"))
    for a, b in ((1, 2), (None, None), (x, 2.0), (x, np.ones([2, 3], "float32"))):
        with pytest.raises(ValueError, match="must be a Tensor"):
            paddle.where_(cond, a, b)
    with pytest.raises(ValueError, match="bool"):
        paddle.where_(ints(np.ones([2, 3])), x, x)
    assert paddle.where_(cond, x, x * 0.0) is x and x.tolist() == [[0, 1, 0], [0, 1, 0]]


# ---- assign(x, output) -----------------------------------------------------------------------

def test_assign_output_takes_the_shape_and_dtype_of_x():
    var = TT(np.zeros((4, 2, 3), dtype=np.float32))
    assert paddle.assign(paddle.ones(shape=[3]), var) is var
    assert var.shape == [3] and var.numpy().sum() == 3.0 and var.inplace_version == 1
    out = TT(np.zeros([3], "float32"))
    paddle.assign(TT(np.ones([3], "float64")), out)
    assert out.dtype == paddle.float64 and out.inplace_version == 1


def test_assign_into_another_shape_carries_the_gradient():
    a = TT(np.ones([3], "float32"), stop_gradient=False)
    out = paddle.zeros([4, 2])
    assert paddle.assign(a * 2.0, out) is out
    (out * out).sum().backward()
    assert out.shape == [3] and a.grad.tolist() == [8.0, 8.0, 8.0]
