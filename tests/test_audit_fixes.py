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
