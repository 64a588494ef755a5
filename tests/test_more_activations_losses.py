"""Activations and losses added after the Paddle 3.3.1 sweep: values and gradients measured
on Paddle 3.3.1 (float32, pinned below), and float64 gradients against finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.activation import (celu, glu, hardshrink, prelu, softshrink,
                                    thresholded_relu)
from jitgrad.testing import check_grads

XS = [-1.5, -0.5, -0.2, 0.3, 0.5, 2.0]


def _leaf(a, dtype="float32"):
    return paddle.to_tensor(np.array(a, dtype=dtype), stop_gradient=False)


def _value_and_grad(fn, *arrays, seed=None):
    """fn's output and the gradients of sum(out * seed) (seed defaults to ones)."""
    ts = [_leaf(a) for a in arrays]
    out = fn(*ts)
    w = np.ones(out.shape, "float32") if seed is None else np.array(seed, "float32")
    (out * paddle.to_tensor(w)).sum().backward()
    return out.numpy(), [t.grad.numpy() if t.grad is not None else None for t in ts]


def _close(got, want):
    np.testing.assert_allclose(got, np.array(want, dtype=np.float32), rtol=1e-6, atol=1e-7)


# ---- activations ---------------------------------------------------------------------------

# Paddle 3.3.1: (function, kwargs, output of XS, gradient of sum(out))
ACTIVATIONS = [
    (hardshrink, {}, [-1.5, -0.5, 0.0, 0.0, 0.5, 2.0], [1, 1, 0, 0, 1, 1]),
    (hardshrink, {"threshold": 0.3}, [-1.5, -0.5, 0.0, 0.30000001192092896, 0.5, 2.0],
     [1, 1, 0, 1, 1, 1]),
    (softshrink, {}, [-1.0, 0, 0, 0, 0, 1.5], [1, 0, 0, 0, 0, 1]),
    (softshrink, {"threshold": 0.2}, [-1.2999999523162842, -0.30000001192092896, 0.0,
                                      0.10000000894069672, 0.30000001192092896,
                                      1.7999999523162842], [1, 1, 0, 1, 1, 1]),
    (celu, {}, [-0.7768698334693909, -0.39346933364868164, -0.18126922845840454,
                0.30000001192092896, 0.5, 2.0],
     [0.22313016653060913, 0.6065306663513184, 0.8187307715415955, 1, 1, 1]),
    (celu, {"alpha": 0.5}, [-0.47510647773742676, -0.31606027483940125, -0.1648399829864502,
                            0.30000001192092896, 0.5, 2.0],
     [0.049787066876888275, 0.3678794503211975, 0.6703200340270996, 1, 1, 1]),
    (thresholded_relu, {}, [0, 0, 0, 0, 0, 2.0], [0, 0, 0, 0, 0, 1]),
    (thresholded_relu, {"threshold": 0.3, "value": -1.0}, [-1.0, -1.0, -1.0, -1.0, 0.5, 2.0],
     [0, 0, 0, 0, 1, 1]),
]


@pytest.mark.parametrize("fn,kw,want,want_grad", ACTIVATIONS,
                         ids=[f"{a[0].__name__}-{a[1]}" for a in ACTIVATIONS])
def test_activation_values_and_gradients_match_paddle(fn, kw, want, want_grad):
    out, (g,) = _value_and_grad(lambda x: fn(x, **kw), XS)
    assert out.dtype == np.float32
    _close(out, want)
    _close(g, want_grad)


def test_shrinks_at_the_threshold_follow_paddle():
    # Paddle 3.3.1: hardshrink keeps x at |x| == threshold (gradient 1), softshrink gives 0
    # there (gradient 0); thresholded_relu gives value at x == threshold (float32 compare).
    out, (g,) = _value_and_grad(hardshrink, [-0.5, 0.5])
    _close(out, [-0.5, 0.5])
    _close(g, [1, 1])
    out, (g,) = _value_and_grad(softshrink, [-0.5, 0.5])
    _close(out, [0, 0])
    _close(g, [0, 0])
    out, (g,) = _value_and_grad(lambda x: thresholded_relu(x, 0.3, 2.0), [0.3, 1.0])
    _close(out, [2.0, 1.0])
    _close(g, [0, 1])


def test_hardshrink_negative_threshold_keeps_everything():
    out, _ = _value_and_grad(lambda x: hardshrink(x, -0.5), XS)      # Paddle 3.3.1
    _close(out, np.float32(XS))


def test_celu_negative_alpha():
    # Paddle 3.3.1: celu(x, -1.0) at -2, 0.3: -6.389056205749512, 0.3; grads 7.38905..., 1
    out, (g,) = _value_and_grad(lambda x: celu(x, -1.0), [-2.0, 0.3])
    _close(out, [-6.389056205749512, 0.30000001192092896])
    _close(g, [7.389056205749512, 1.0])


def test_glu_halves_the_last_axis_by_default():
    x = [[0.5, -1.0, 2.0, 0.25], [-0.5, 1.5, 0.0, -2.0]]
    out, (g,) = _value_and_grad(glu, x, seed=[[1, 2], [3, 4]])   # Paddle 3.3.1
    _close(out, [[0.44039851427078247, -0.562176525592804], [-0.25, 0.17880438268184662]])
    _close(g, [[0.8807970285415649, 1.124353051185608, 0.052496813237667084,
                -0.4922681450843811],
               [1.5, 0.4768116772174835, -0.375, 0.6299614906311035]])
    out, (g,) = _value_and_grad(lambda t: glu(t, axis=0), x)        # Paddle 3.3.1
    _close(out, [[0.1887703388929367, -0.8175744414329529, 1.0, 0.02980072982609272]])
    _close(g, [[0.3775406777858734, 0.8175744414329529, 0.5, 0.11920291930437088],
               [0.11750185489654541, -0.14914646744728088, 0.5, 0.026248395442962646]])


def test_prelu_per_channel_channel_first_and_last():
    x = [[[-1.0, 2.0], [0.5, -0.5]], [[-2.0, -3.0], [1.0, 4.0]]]
    out, (gx, gw) = _value_and_grad(prelu, x, [0.1, 0.2])          # Paddle 3.3.1, NCL
    _close(out, [[[-0.1, 2.0], [0.5, -0.1]], [[-0.2, -0.3], [1.0, 4.0]]])
    _close(gx, [[[0.1, 1.0], [1.0, 0.2]], [[0.1, 0.1], [1.0, 1.0]]])
    _close(gw, [-6.0, -0.5])
    out, (gx, gw) = _value_and_grad(lambda a, w: prelu(a, w, data_format="NLC"), x, [0.1, 0.2])
    _close(out, [[[-0.1, 2.0], [0.5, -0.1]], [[-0.2, -0.6], [1.0, 4.0]]])    # Paddle 3.3.1
    _close(gx, [[[0.1, 1.0], [1.0, 0.2]], [[0.1, 0.2], [1.0, 1.0]]])
    _close(gw, [-3.0, -3.5])


def test_prelu_single_weight_gradient_at_zero_is_the_weight():
    out, (gx, gw) = _value_and_grad(prelu, [-2.0, 0.0, 3.0], [0.25], seed=[1, 2, 3])
    _close(out, [-0.5, 0.0, 3.0])          # Paddle 3.3.1
    _close(gx, [0.25, 0.5, 3.0])
    _close(gw, [-2.0])
    assert gw.shape == (1,)
    out = prelu(paddle.to_tensor(np.float32(-2.0)), paddle.to_tensor([0.3]))
    assert out.shape == []                 # a [1] weight does not broadcast a 0-d x up
    _close(out.numpy(), -0.6000000238418579)


@pytest.mark.parametrize("call,err", [
    (lambda: softshrink(paddle.to_tensor([1.0]), -1.0), ValueError),
    (lambda: celu(paddle.to_tensor([1.0]), 0.0), ValueError),
    (lambda: hardshrink(paddle.to_tensor([1, 2])), TypeError),
    (lambda: glu(paddle.to_tensor([[1.0, 2.0, 3.0]])), ValueError),
    (lambda: glu(paddle.to_tensor([[1.0, 2.0]]), axis=2), ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([0.1, 0.2, 0.3])),
     ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([[0.1]])), ValueError),
    (lambda: prelu(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.1, 0.2])), ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([0.1, 0.2]), "NCX"),
     ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]),
                   paddle.to_tensor(np.array([0.1], "float64"))), TypeError),
])
def test_bad_arguments_raise(call, err):
    with pytest.raises(err):
        call()


X64 = np.array([[-1.7, -0.8, -0.35, 0.15], [0.4, 0.9, 1.6, 2.3]])
GRAD_CASES = {
    "hardshrink": (lambda x: hardshrink(x, 0.5), [X64]),
    "softshrink": (lambda x: softshrink(x, 0.5), [X64]),
    "celu": (lambda x: celu(x, 0.7), [X64]),
    "celu_negative_alpha": (lambda x: celu(x, -1.3), [X64]),
    "thresholded_relu": (lambda x: thresholded_relu(x, 0.2, 0.5), [X64]),
    "glu": (lambda x: glu(x), [X64]),
    "glu_axis0": (lambda x: glu(x, 0), [X64]),
    "prelu_channel": (lambda x, w: prelu(x, w), [X64.reshape(2, 2, 2), [0.2, -0.3]]),
    "prelu_nhwc": (lambda x, w: prelu(x, w, "NHWC"), [X64.reshape(1, 2, 1, 4),
                                                      [0.1, 0.2, 0.3, 0.4]]),
    "prelu_single": (lambda x, w: prelu(x, w), [X64, [0.25]]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(name):
    fn, arrays = GRAD_CASES[name]
    check_grads(fn, *arrays, order=2)
