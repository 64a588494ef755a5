"""Audit items against PADDLE_SEMANTICS.md: 0-d shapes, silent nan/inf, argument errors,
missing Paddle names."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def leaf(values, dtype="float64"):
    return TT(values, dtype=dtype, stop_gradient=False)


# ---- 0-d tensors (Paddle's test_zero_dim_tensor) -------------------------------------------

@pytest.mark.parametrize("fn", [paddle.cumsum, paddle.cumprod])
def test_scan_of_a_0d_tensor_along_axis_0_is_0d(fn):
    x = leaf(3.0)
    for axis in (0, -1):
        out = fn(x, axis)
        assert out.shape == [] and out.item() == 3.0
    assert fn(x).shape == [1]                   # no axis: flattened, as in Paddle
    (fn(x, 0) + fn(x, -1) + fn(x).sum()).backward()
    assert x.grad.shape == [] and x.grad.item() == 3.0
    with pytest.raises(ValueError, match="out of range for a 0-d"):
        fn(x, 1)
    check_grads(lambda t: fn(t, 0) * t, 0.7)


def test_gather_with_a_0d_index_drops_the_axis():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    i = TT(1)
    assert paddle.gather(x, i).tolist() == [4.0, 5.0, 6.0]
    assert paddle.gather(x, i, axis=1).tolist() == [2.0, 5.0]
    assert paddle.gather(x, i, axis=-1).shape == [2]
    assert paddle.gather(leaf([1.0, 3.0, 5.0]), TT(2)).shape == []
    paddle.gather(x, i, axis=1).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    check_grads(lambda t: paddle.gather(t, TT(1), axis=1) ** 2, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(ValueError, match="0-d and has no axis"):
        paddle.gather(leaf(3.0), TT(0))


# ---- nan/inf without numpy's RuntimeWarnings (Paddle is silent) -----------------------------

def test_forwards_return_nan_and_inf_without_warnings():
    import warnings
    x = leaf([-1.0, 0.0, 4.0], "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {"log": paddle.log(x), "sqrt": paddle.sqrt(x), "div": x / 0.0,
               "log2": paddle.log2(x), "rsqrt": paddle.rsqrt(x), "recip": paddle.reciprocal(x),
               "pow": x ** -1.0, "mod": x % 0.0, "exp": paddle.exp(TT([100.0])),
               "acosh": paddle.acosh(x)}
        with pytest.raises(RuntimeWarning):           # the filter is live: numpy itself warns
            np.log(np.array([-1.0]))
    assert {k: v.dtype for k, v in got.items()} == {k: paddle.float32 for k in got}
    vals = {k: v.tolist() for k, v in got.items()}
    assert np.isnan(vals["log"][0]) and vals["log"][1:] == [-np.inf, pytest.approx(1.3862944)]
    assert np.isnan(vals["sqrt"][0]) and vals["sqrt"][1:] == [0.0, 2.0]
    assert vals["div"][0] == -np.inf and np.isnan(vals["div"][1]) and vals["div"][2] == np.inf
    assert vals["recip"] == vals["pow"] == [-1.0, np.inf, 0.25] and vals["exp"] == [np.inf]
    assert np.isnan(vals["mod"]).all() and vals["rsqrt"][1:] == [np.inf, 0.5]


# ---- argument errors a user can act on -------------------------------------------------------

def test_softmax_axis_must_be_an_int():
    F = paddle.nn.functional
    x = TT(np.ones((2, 3)))
    for fn in (F.softmax, F.log_softmax, paddle.softmax):
        for bad in (1.5, "1", True):
            with pytest.raises(TypeError, match="axis must be an int"):
                fn(x, axis=bad)
    assert F.softmax(x, axis=np.int64(1)).tolist() == [[pytest.approx(1 / 3)] * 3] * 2


@pytest.mark.parametrize("eq, shapes, err, match", [
    ("ij,jk", [(2, 3)], ValueError, "2 operand subscript.*1 operand"),
    ("ij->i", [(2, 3), (2, 3)], ValueError, "1 operand subscript.*2 operand"),
    ("ijk->i", [(2, 3)], ValueError, "do not fit"),
    ("i$j->i", [(2, 3)], ValueError, r"invalid equation.*'\$'"),
    ("ij->k", [(2, 3)], ValueError, "'k' of 'ij->k' appear in no operand"),
    ("ij->ii", [(2, 3)], ValueError, "repeats a subscript"),
    ("ij->i->j", [(2, 3)], ValueError, "invalid equation"),
    ("ij,ij->i", [(2, 3), (3, 2)], ValueError, "sizes 2 and 3"),
])
def test_einsum_wrong_equations_say_what_is_wrong(eq, shapes, err, match):
    with pytest.raises(err, match=match):
        paddle.einsum(eq, *[paddle.ones(list(s), "float64") for s in shapes])


def test_einsum_non_str_equation_or_non_tensor_operand():
    x = paddle.ones([2, 2])
    with pytest.raises(TypeError, match="equation must be a str"):
        paddle.einsum(3, x)
    with pytest.raises(TypeError, match="operand 1 must be a Tensor"):
        paddle.einsum("ij,jk->ik", x, [[1.0, 2.0], [3.0, 4.0]])
    assert paddle.einsum("ij,jk->ik", x, x).tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_normal_and_randint_argument_errors():
    with pytest.raises(TypeError, match="shape must be a list or tuple"):
        paddle.normal(0.0, 1.0, shape="3")
    with pytest.raises(TypeError, match="mean must be a float or a Tensor"):
        paddle.normal("a", 1.0, shape=[3])
    with pytest.raises(ValueError, match="std must be >= 0"):
        paddle.normal(0.0, -1.0, shape=[3])
    with pytest.raises(ValueError, match="do not broadcast"):
        paddle.normal(paddle.zeros([2]), paddle.ones([3]))
    with pytest.raises(ValueError, match=r"low \(5\) must be less than high \(2\)"):
        paddle.randint(5, 2, [3])
    with pytest.raises(TypeError, match="low must be an int"):
        paddle.randint(0.5, 5, [3])
    with pytest.raises(ValueError, match="negative dimension"):
        paddle.randint(0, 5, [-2])
    with pytest.raises(TypeError, match="shape must hold ints"):
        paddle.zeros([2, 1.5])


def test_normal_with_tensor_mean_takes_its_shape_and_dtype():
    paddle.seed(7)
    mean = TT([[0.0, 100.0]] * 500, dtype="float64")
    out = paddle.normal(mean, 0.5, shape=[3])           # shape is ignored, as in Paddle
    assert out.shape == [500, 2] and out.dtype == paddle.float64
    m = out.numpy().mean(axis=0)
    assert abs(m[0]) < 0.1 and abs(m[1] - 100.0) < 0.1
    assert paddle.normal(shape=np.array([2, 2])).shape == [2, 2]
    r = paddle.randint(3, shape=[1000])
    assert r.dtype == paddle.int64 and set(r.tolist()) == {0, 1, 2}


# ---- Paddle names ported code uses ----------------------------------------------------------

def test_shape_rank_and_element_size():
    x = paddle.ones([2, 3, 4])
    s, r = paddle.shape(x), paddle.rank(x)
    assert s.tolist() == [2, 3, 4] and s.dtype == paddle.int64 and s.shape == [3]
    assert r.item() == 3 and r.dtype == paddle.int32 and r.shape == []
    assert paddle.shape(TT(1.0)).shape == [0] and paddle.rank(TT(1.0)).item() == 0
    assert [TT(np.zeros(2, d)).element_size() for d in ("float32", "float64", "int64", "int32",
                                                         "bool", "float16")] == [4, 8, 8, 4, 1, 2]
    with pytest.raises(TypeError, match="input must be a Tensor"):
        paddle.shape([1, 2])


def test_mm_and_scale_gradients():
    a, b = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]]
    assert paddle.mm(TT(a), TT(b)).tolist() == (np.array(a) @ np.array(b)).tolist()
    check_grads(lambda x, y: paddle.mm(x, y), a, b)
    x = leaf([1.0, -2.0])
    assert paddle.scale(x, 3.0, 1.0).tolist() == [4.0, -5.0]
    assert paddle.scale(x, 3.0, 1.0, bias_after_scale=False).tolist() == [6.0, -3.0]
    assert x.scale(2.0).tolist() == [2.0, -4.0]
    check_grads(lambda x, s: paddle.scale(x, s, 0.5, bias_after_scale=False), [1.0, -2.0], 1.5)


def test_assign_copies_and_carries_the_gradient():
    x = leaf([1.0, 2.0])
    y = paddle.assign(x)
    assert y is not x and y.tolist() == [1.0, 2.0] and not y.stop_gradient
    (y * TT([3.0, 4.0], dtype="float64")).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    a = np.array([1.0, 2.0])
    t = paddle.assign(a)
    a[0] = 9.0
    assert t.tolist() == [1.0, 2.0] and t.dtype == paddle.float64
    assert paddle.assign([1, 2]).dtype == paddle.int64
    out = paddle.zeros([2], "float64")
    x = leaf([5.0, 6.0])
    assert paddle.assign(x * 2, output=out) is out and out.tolist() == [10.0, 12.0]
    (out * out).sum().backward()                        # out now carries x's graph
    assert x.grad.tolist() == [40.0, 48.0]
    small = paddle.zeros([2])                 # output takes x's shape and dtype (Paddle 3.3.1)
    assert paddle.assign(TT([1.0, 2.0, 3.0], dtype="float64"), output=small) is small
    assert small.shape == [3] and small.dtype == paddle.float64 and small.inplace_version == 1


@pytest.mark.parametrize("vm", ["numba", "reference"])
def test_backward_to_inf_is_silent_on_every_interpreter(vm, monkeypatch):
    """log at 0: the gradient is inf, returned without numpy's RuntimeWarning (as Paddle)."""
    import warnings
    from jitgrad import vm as V
    with V.using(vm):
        x = paddle.to_tensor([0.0, 2.0], stop_gradient=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            paddle.log(x).sum().backward()
        assert x.grad.numpy().tolist() == [np.inf, 0.5]
