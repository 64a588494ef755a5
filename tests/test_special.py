"""ops/special.py against closed forms (finite-difference gradients of every order come from
the registry table: test_op_gradients.py)."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor
EULER = 0.5772156649015329


def test_values_at_known_points_in_float64():
    x = TT([0.5, 1.0, 2.0], dtype="float64")
    np.testing.assert_allclose(paddle.lgamma(x).numpy(), [math.log(math.sqrt(math.pi)), 0, 0],
                               atol=1e-15)
    np.testing.assert_allclose(paddle.digamma(x).numpy(),
                               [-EULER - 2 * math.log(2), -EULER, 1 - EULER], rtol=1e-14)
    np.testing.assert_allclose(paddle.polygamma(x, 1).numpy()[1], math.pi ** 2 / 6, rtol=1e-14)
    np.testing.assert_allclose(paddle.polygamma(x, 2).numpy()[1], -2.4041138063191885,
                               rtol=1e-14)                     # -2 zeta(3)
    assert paddle.gammaln(x).tolist() == paddle.lgamma(x).tolist()


def test_negative_arguments_use_the_recurrence():
    # psi_1(-1.5) = psi_1(0.5) + 1/0.5^2 + 1/1.5^2 and psi_1(0.5) = pi^2 / 2
    got = paddle.polygamma(TT([-1.5], dtype="float64"), 1).numpy()[0]
    assert got == pytest.approx(math.pi ** 2 / 2 + 4 + 4 / 9, rel=1e-13)
    assert paddle.lgamma(TT([-2.5], dtype="float64")).numpy()[0] == \
        pytest.approx(math.lgamma(-2.5), rel=1e-15)


def test_poles_match_paddle():
    p = TT([0.0, -1.0, -2.0])
    assert paddle.lgamma(p).tolist() == [math.inf] * 3
    d = paddle.digamma(p).numpy()
    assert d[0] == -math.inf and np.isnan(d[1:]).all()
    assert paddle.polygamma(p, 1).tolist() == [math.inf] * 3
    assert paddle.polygamma(p, 2).tolist() == [-math.inf] * 3


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
def test_digamma_at_signed_zeros_is_the_limit_from_that_side(compiled):
    # Paddle 3.3.1: digamma(+0) = -inf, digamma(-0) = +inf (was -inf for both)
    from jitgrad.ops import special
    x = np.array([0.0, -0.0], "float32")
    if compiled:
        paddle.warmup(quiet=True)
        got = special._psi_compiled(0, x)
    else:
        got = special._polygamma64(0, x)
    assert got.tolist() == [-math.inf, math.inf]
    t = TT(x, stop_gradient=False)
    y = paddle.lgamma(t)
    y.backward(paddle.ones_like(y))
    assert t.grad.tolist() == [-math.inf, math.inf]


def test_erfinv_inverts_erf_and_has_infinite_ends():
    y = TT([-0.9, 0.0, 0.5, 0.999999], dtype="float64")
    x = paddle.erfinv(y).numpy()
    np.testing.assert_allclose([math.erf(v) for v in x], y.numpy(), atol=1e-15)
    ends = paddle.erfinv(TT([1.0, -1.0, 1.5])).numpy()
    assert ends[0] == math.inf and ends[1] == -math.inf and np.isnan(ends[2])


def test_integer_input_computes_in_float32_and_n_is_checked():
    assert paddle.lgamma(TT([1, 2, 5])).dtype == paddle.float32
    assert paddle.lgamma(TT([1, 2, 5])).numpy()[2] == pytest.approx(math.log(24), rel=1e-6)
    with pytest.raises(ValueError, match="non-negative int"):
        paddle.polygamma(TT([1.0]), -1)


def test_second_derivatives_exist():
    check_grads(paddle.lgamma, [0.7, 2.3], order=2)
    check_grads(lambda x: paddle.erfinv(x), [-0.4, 0.6], order=2)
