"""ops/numeric.py: values and edge conventions as measured on Paddle 3.3.1 (gradients are
checked against finite differences in test_composite_ops.py)."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
NAN = float("nan")


def test_fmax_ignores_nan_and_sends_ties_to_x():
    x = TT([1.0, NAN, 3.0, NAN, 2.0], stop_gradient=False)
    y = TT([2.0, 1.0, NAN, NAN, 2.0], stop_gradient=False)
    out = paddle.fmax(x, y)
    np.testing.assert_array_equal(out.numpy(), [2.0, 1.0, 3.0, NAN, 2.0])
    out.sum().backward()
    assert x.grad.tolist() == [0, 0, 1, 1, 1] and y.grad.tolist() == [1, 1, 0, 0, 0]
    np.testing.assert_array_equal(paddle.fmin(x, y).numpy(), [1.0, 1.0, 3.0, NAN, 2.0])


def test_hypot_and_sinc_at_zero():
    x = TT([0.0, 3.0], stop_gradient=False)
    h = paddle.hypot(x, TT([0.0, 4.0]))
    assert h.tolist() == [0.0, 5.0]
    h.sum().backward()
    assert np.isnan(x.grad.numpy()[0]) and x.grad.numpy()[1] == pytest.approx(0.6)
    s = TT([0.0, 0.5, 1.0], stop_gradient=False)
    out = paddle.sinc(s)
    np.testing.assert_allclose(out.numpy(), [1.0, 2 / np.pi, 0.0], atol=1e-7)
    out.sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), [0.0, -4 / np.pi, -1.0], rtol=1e-6)


def test_logcumsumexp_is_stable_and_flattens_without_axis():
    x = TT([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    np.testing.assert_allclose(paddle.logcumsumexp(x, axis=1).numpy(),
                               [[1.0, 2.3132617, 3.4076061], [0.0, 0.3132617, 5.0091743]],
                               rtol=1e-6)
    assert paddle.logcumsumexp(x).shape == [6]
    big = paddle.logcumsumexp(TT([1000.0, 1000.0]), axis=0)
    np.testing.assert_allclose(big.numpy(), [1000.0, 1000.0 + np.log(2)], rtol=1e-7)
    # a leading -inf stays -inf (Paddle 3.3.1 prints float32's lowest) with a zero gradient
    z = TT([-np.inf, 1.0], stop_gradient=False)
    out = paddle.logcumsumexp(z, axis=0)
    assert out.tolist() == [-np.inf, 1.0]
    out.sum().backward()
    assert z.grad.tolist() == [0.0, 1.0]


def test_trapezoid_forms():
    y = TT([1.0, 2.0, 4.0])
    assert paddle.trapezoid(y).item() == 4.5
    assert paddle.trapezoid(y, dx=0.5).item() == 2.25
    assert paddle.trapezoid(y, x=TT([0.0, 1.0, 3.0])).item() == 7.5
    assert paddle.trapezoid(TT([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]]), axis=0).tolist() == \
        [0.5, 0.5, 4.0]
    assert paddle.cumulative_trapezoid(y).tolist() == [1.5, 4.5]
    with pytest.raises(ValueError, match="not both"):
        paddle.trapezoid(y, x=TT([0.0, 1.0, 2.0]), dx=1.0)


def test_renorm_scales_only_the_slices_over_the_limit():
    r = paddle.renorm(TT([[1.0, 2.0], [3.0, 4.0], [0.1, 0.1]]), 2, 0, 2.0)
    np.testing.assert_allclose(r.numpy(), [[0.8944272, 1.7888544], [1.2, 1.6], [0.1, 0.1]],
                               rtol=1e-6)


def test_vander_logspace_and_predicates():
    assert paddle.vander(TT([1.0, 2.0, 3.0])).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert paddle.vander(TT([1, 2]), 3, increasing=True).tolist() == [[1, 1, 1], [1, 2, 4]]
    assert paddle.logspace(0, 2, 3).tolist() == [1.0, 10.0, 100.0]
    assert paddle.logspace(0, 2, 3).dtype == paddle.float32
    assert paddle.logspace(0, 3, 4, base=2, dtype="int64").tolist() == [1, 2, 4, 8]
    # integer dtypes truncate (Paddle 3.3.1): start, stop and base first, the powers after
    assert paddle.logspace(0, 1, 4, dtype="int64").tolist() == [1, 2, 4, 10]
    assert paddle.logspace(0, 2, 5, dtype="int32").tolist() == [1, 3, 10, 31, 100]
    assert paddle.logspace(0.5, 2.5, 3, base=2.7, dtype="int64").tolist() == [1, 2, 4]
    assert paddle.logspace(-1, 1, 3, dtype="int32").tolist() == [0, 1, 10]
    assert paddle.logspace(0, 3, 4, base=-2, dtype="int64").tolist() == [1, -2, 4, -8]
    assert paddle.signbit(TT([-0.0, 0.0, -1.0, 2.0])).tolist() == [True, False, True, False]
    assert paddle.isneginf(TT([-np.inf, np.inf, 1.0])).tolist() == [True, False, False]
    assert paddle.isposinf(TT([-np.inf, np.inf, 1.0])).tolist() == [False, True, False]
    assert paddle.isposinf(TT([1, 2])).tolist() == [False, False]
    assert paddle.isreal(TT([1.0, 2.0])).tolist() == [True, True]
