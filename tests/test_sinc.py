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
