"""A new structure's first backward runs the array rules of normalize_affine (layer_norm,
batch_norm, group_norm: x's gradient by the NORM_BWD kernel, the weight's and bias's by
numpy sums), of softmax / log_softmax (their row kernel) and of max_pool2d (POOL_BWD):
the compiled Program's gradients, within float32 rounding where a kernel sums (its sums
may reassociate differently inlined in the interpreter than called alone)."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import interpreted_and_compiled

F = paddle.nn.functional
TT = paddle.to_tensor

LAYERS = {
    "layer_norm": ((6, 8), lambda x, w, b: F.layer_norm(x, [8], w, b), 8),
    "batch_norm": ((4, 3, 5, 5), lambda x, w, b: F.batch_norm(
        x, TT(np.zeros(3, np.float32)), TT(np.ones(3, np.float32)), w, b, training=True), 3),
    "batch_norm_1d": ((7, 3), lambda x, w, b: F.batch_norm(
        x, TT(np.zeros(3, np.float32)), TT(np.ones(3, np.float32)), w, b, training=True), 3),
    "group_norm": ((2, 4, 3, 3), lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b), 4),
}


def _grads(name):
    shape, fn, c = LAYERS[name]
    rng = np.random.default_rng(7)
    x = TT(rng.standard_normal(shape).astype(np.float32), stop_gradient=False)
    w = TT(rng.uniform(0.5, 1.5, c).astype(np.float32), stop_gradient=False)
    b = TT(rng.standard_normal(c).astype(np.float32), stop_gradient=False)
    y = fn(x, w, b)
    (y * TT(rng.standard_normal(y.shape).astype(np.float32))).sum().backward()
    return [t.grad.numpy() for t in (x, w, b)]


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_the_interpreted_rule_gives_the_compiled_gradients(name, fresh_cache):
    interpreted, compiled = interpreted_and_compiled(lambda: _grads(name))
    for a, b in zip(interpreted, compiled):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_before_numba_loads_the_rule_is_the_vjp(monkeypatch, fresh_cache):
    from jitgrad.core import config
    from jitgrad.ops import normalization
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    with_kernel = _grads("layer_norm")
    monkeypatch.setattr(normalization, "compiled_kernels", lambda module: None)
    paddle.cache_clear()
    without = _grads("layer_norm")
    for a, b in zip(with_kernel, without):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_rows_interpreted_give_the_compiled_gradient(fn, axis, fresh_cache):
    rng = np.random.default_rng(11)
    xa = rng.standard_normal((5, 6, 4)).astype(np.float32)
    c = rng.standard_normal((5, 6, 4)).astype(np.float32)

    def grad():
        x = TT(xa, stop_gradient=False)
        (getattr(F, fn)(x, axis=axis) * TT(c)).sum().backward()
        return x.grad.numpy()

    interpreted, compiled = interpreted_and_compiled(grad)
    np.testing.assert_allclose(interpreted, compiled, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=1, ceil_mode=True)])
def test_max_pool_interpreted_gives_the_compiled_gradient(kw, fresh_cache):
    rng = np.random.default_rng(13)
    xa = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)

    def grad():
        x = TT(xa, stop_gradient=False)
        y = F.max_pool2d(x, **kw)
        (y * TT(np.linspace(-1, 1, y.size, dtype=np.float32).reshape(y.shape))).sum().backward()
        return x.grad.numpy()

    interpreted, compiled = interpreted_and_compiled(grad)
    np.testing.assert_array_equal(interpreted, compiled)
