"""Gradient conventions Paddle users rely on (PADDLE_SEMANTICS.md K), as exact values."""

import subprocess
import sys

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def grad_of(fn, values, dtype="float32"):
    x = TT(values, dtype=dtype, stop_gradient=False)
    paddle.sum(fn(x)).backward()
    return x.grad.tolist()


def test_max_and_min_ties_split_the_gradient_equally():
    assert grad_of(paddle.max, [3.0, 1.0, 3.0]) == [0.5, 0.0, 0.5]
    assert grad_of(paddle.min, [1.0, 1.0, 3.0, 1.0]) == pytest.approx([1 / 3, 1 / 3, 0, 1 / 3])
    assert grad_of(lambda x: paddle.max(x, axis=1), [[1.0, 2.0, 2.0], [5.0, 0.0, 1.0]]) == \
        [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]


def test_maximum_and_minimum_ties_give_half_to_each_side():
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    y = TT([1.0, 5.0, 0.0], stop_gradient=False)
    paddle.sum(paddle.maximum(x, y)).backward()
    assert x.grad.tolist() == [0.5, 0.0, 1.0] and y.grad.tolist() == [0.5, 1.0, 0.0]
    x.clear_grad(), y.clear_grad()
    paddle.sum(paddle.minimum(x, y)).backward()
    assert x.grad.tolist() == [0.5, 1.0, 0.0] and y.grad.tolist() == [0.5, 0.0, 1.0]


def test_kinks_relu_and_abs_have_zero_gradient_at_zero():
    assert grad_of(paddle.relu, [-1.0, 0.0, 2.0]) == [0.0, 0.0, 1.0]
    assert grad_of(paddle.abs, [-1.0, 0.0, 2.0]) == [-1.0, 0.0, 1.0]


def test_clip_is_inclusive_at_both_bounds():
    assert grad_of(lambda x: paddle.clip(x, -1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0]) == \
        [0.0, 1.0, 1.0, 1.0, 0.0]


def test_broadcast_gradients_sum_back_to_the_input_shape():
    for shape in [(3,), (2, 1), (1, 3), ()]:
        y = TT(np.ones(shape, np.float32), stop_gradient=False)
        x = TT(np.ones((2, 3), np.float32))
        paddle.sum(x * y).backward()
        assert y.grad.shape == list(shape)
        assert np.all(y.grad.numpy() == 6 / max(int(np.prod(shape)), 1))


def test_sum_and_mean_drop_the_axis_unless_keepdim():
    x = TT(np.ones((2, 3), np.float32), stop_gradient=False)
    assert paddle.sum(x, axis=1).shape == [2]
    assert paddle.mean(x, axis=0, keepdim=True).shape == [1, 3]
    paddle.mean(x, axis=[0, 1]).backward()
    assert x.grad.numpy().tolist() == [[np.float32(1 / 6)] * 3] * 2


def test_where_routes_the_gradient_by_the_condition():
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    y = TT([4.0, 5.0, 6.0], stop_gradient=False)
    paddle.sum(paddle.where(x > 1.5, x, y) * 2).backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0] and y.grad.tolist() == [2.0, 0.0, 0.0]


@pytest.mark.parametrize("xs, ys, out", [
    ((3,), (3,), []), ((2, 3), (3,), [2]), ((3,), (3, 2), [2]),
    ((4, 2, 3), (3, 5), [4, 2, 5]), ((2, 1, 2, 3), (3, 3, 4), [2, 3, 2, 4]),
])
def test_matmul_shapes_and_gradients(xs, ys, out):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(xs), rng.standard_normal(ys)
    x, y = TT(a, stop_gradient=False), TT(b, stop_gradient=False)
    z = paddle.matmul(x, y)
    assert z.shape == out
    g = rng.standard_normal(out)
    z.backward(TT(g))
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    g2 = np.reshape(g, np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) +
                    (a2.shape[-2], b2.shape[-1]))
    gx = g2 @ np.swapaxes(b2, -1, -2)
    gy = np.swapaxes(a2, -1, -2) @ g2
    gx = gx.reshape((-1,) + a2.shape).sum(0) if gx.ndim > a2.ndim else gx
    while gy.ndim > b2.ndim:
        gy = gy.sum(0)
    gx = gx.sum(axis=tuple(i for i, s in enumerate(a2.shape[:-2]) if s == 1), keepdims=True) \
        if gx.shape != a2.shape else gx
    gy = gy.sum(axis=tuple(i for i, s in enumerate(b2.shape[:-2]) if s == 1), keepdims=True) \
        if gy.shape != b2.shape else gy
    np.testing.assert_allclose(x.grad.numpy(), gx.reshape(a.shape), rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), gy.reshape(b.shape), rtol=1e-10)


def test_matmul_transpose_flags():
    a = np.arange(6.0).reshape(3, 2)
    x = TT(a, stop_gradient=False)
    y = TT(np.arange(12.0).reshape(4, 3), stop_gradient=False)
    z = paddle.matmul(x, y, transpose_x=True, transpose_y=True)
    np.testing.assert_allclose(z.numpy(), a.T @ np.arange(12.0).reshape(4, 3).T)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (np.ones((2, 4)) @ y.numpy()).T)


def test_softmax_and_log_softmax_are_stable_for_large_inputs():
    x = TT([1000.0, 1001.0, 1002.0], stop_gradient=False)
    p = paddle.nn.functional.softmax(x)
    assert np.all(np.isfinite(p.numpy()))
    paddle.sum(paddle.nn.functional.log_softmax(x) * TT([1.0, 0.0, 0.0])).backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 0, 0] - p.numpy(), rtol=1e-5, atol=1e-6)


def test_shape_ops():
    x = TT(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    assert paddle.reshape(x, [3, -1]).shape == [3, 2]
    assert paddle.flatten(x).shape == [6]
    assert paddle.unsqueeze(x, 0).shape == [1, 2, 3]
    assert paddle.squeeze(paddle.unsqueeze(x, [0, 3])).shape == [2, 3]
    t = paddle.transpose(x, [1, 0])
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]
    (t * TT(np.arange(6.0).reshape(3, 2))).sum().backward()
    assert x.grad.tolist() == [[0, 2, 4], [1, 3, 5]]


def test_pow_with_tensor_and_scalar_exponents():
    x = TT([2.0, 3.0], stop_gradient=False)
    (x ** 3).sum().backward()
    assert x.grad.tolist() == [12.0, 27.0]
    x.clear_grad()
    e = TT([2.0, 1.0], stop_gradient=False)
    paddle.pow(x, e).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 1.0])
    np.testing.assert_allclose(e.grad.numpy(), [4 * np.log(2), 3 * np.log(3)], rtol=1e-6)


def test_import_is_lazy_about_numba():
    code = "import sys, jitgrad; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
