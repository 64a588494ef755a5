"""logit and log_sigmoid take compiled passes once Numba is loaded (ops/math.py,
ops/activation.py): their outputs and saved factors are the numpy forward's and deriv's
(the registry op applied directly), bit for bit."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops.activation import log_sigmoid_op
from jitgrad.ops.core import apply
from jitgrad.ops.math import logit_op


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _values(dtype, lo, hi):
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, 1e-30, -1e-30, 88.0, -88.0,
             700.0, -700.0, 1e30, -1e30]
    rng = np.random.default_rng(0)
    return np.concatenate([edges, rng.uniform(lo, hi, 500)]).astype(dtype)


def _same(a, b):
    np.testing.assert_array_equal(a, b)
    finite = ~np.isnan(a)
    assert np.array_equal(np.signbit(a[finite]), np.signbit(b[finite]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("public, op, lo, hi", [(paddle.logit, logit_op, -0.5, 1.5),
                                                 (F.log_sigmoid, log_sigmoid_op, -40, 40)])
def test_compiled_pass_gives_the_numpy_values_and_factor(public, op, lo, hi, dtype):
    x = paddle.to_tensor(_values(dtype, lo, hi), stop_gradient=False)
    fast, slow = public(x), apply(op, x)
    _same(fast.numpy(), slow.numpy())
    _same(fast._node.saved[0], slow._node.saved[0])


def test_logit_nan_outside_the_unit_interval_without_warnings():
    x = paddle.to_tensor(np.array([-0.5, 0.0, 0.25, 1.0, 2.0], "float32"), stop_gradient=False)
    with np.errstate(all="raise"):
        y = paddle.logit(x)
    y.sum().backward()
    np.testing.assert_array_equal(y.numpy(), np.array([np.nan, -np.inf, np.log(1 / 3), np.inf,
                                                       np.nan], "float32"))
    np.testing.assert_array_equal(x.grad.numpy(), np.array([np.nan, np.inf, 1 / (0.25 * 0.75),
                                                            np.inf, np.nan], "float32"))
