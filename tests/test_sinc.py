"""sinc is one registry op (ops/numeric.py): its saved slope is accurate near 0, where the
quotient rule's two terms cancel."""

import math

import numpy as np

import jitgrad as paddle


def _slope(a: np.ndarray) -> np.ndarray:
    x = paddle.to_tensor(a, stop_gradient=False)
    paddle.sinc(x).sum().backward()
    return x.grad.numpy()


def test_sinc_at_zero_is_one_with_zero_slope():
    x = paddle.to_tensor(np.array([0.0, 1.0, -0.5], "float32"), stop_gradient=False)
    y = paddle.sinc(x)
    np.testing.assert_allclose(y.numpy(), [1.0, 0.0, 2 / math.pi], atol=1e-7)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -1.0, 4 / math.pi], rtol=1e-6)


def test_sinc_slope_near_zero_keeps_float32_precision():
    a = np.array([1e-3, -2e-4, 0.1], "float32")
    u = math.pi * a.astype(np.float64)
    want = math.pi * (u * np.cos(u) - np.sin(u)) / (u * u)
    np.testing.assert_allclose(_slope(a), want, rtol=2e-7)


def test_sinc_second_derivative_at_one():
    # sinc''(x) = -pi^2 sinc(x) - 2 sinc'(x) / x; at 1: sinc = 0, sinc' = -1
    x = paddle.to_tensor(np.array([1.0]), stop_gradient=False)
    (g,) = paddle.grad(paddle.sinc(x).sum(), x, create_graph=True)
    (h,) = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [2.0], rtol=1e-12)


def _slope64(x: np.ndarray) -> np.ndarray:
    """sinc'(x) in float64, its series near 0 (pi^2 x / 3 leading)."""
    u = math.pi * x
    with np.errstate(all="ignore"):
        return np.where(np.abs(u) < 1e-3, -math.pi ** 2 * x / 3,
                        math.pi * (u * np.cos(u) - np.sin(u)) / (u * u))


def test_sinc_create_graph_slope_and_its_derivative_keep_float32_precision_near_zero():
    # the eager rule (create_graph) took the quotient rule everywhere: at x = 1e-4 in
    # float32 it gave -5.96e-4 for -3.29e-4
    a = np.array([1e-4, -3e-3, 0.0, 0.1, 0.4, 1.3, -2.7], "float32")
    x = paddle.to_tensor(a, stop_gradient=False)
    g, = paddle.grad(paddle.sinc(x).sum(), x, create_graph=True)
    x64 = a.astype(np.float64)
    np.testing.assert_allclose(g.numpy(), _slope64(x64), rtol=3e-6, atol=1e-12)
    h, = paddle.grad(g.sum(), x)
    step = 1e-5                         # sinc'' by central differences of the float64 slope
    second = (_slope64(x64 + step) - _slope64(x64 - step)) / (2 * step)
    np.testing.assert_allclose(h.numpy(), second, rtol=3e-5)
