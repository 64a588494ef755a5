"""Derivative factors the backward computes from forward values (ops/factor_kernels.py's
expressions): atan's 1 / (x * x + 1), reciprocal's -(out * out), abs's sign(x) ... The
forward saves nothing for them, and every backward path gives the bits the saved factor
gave: g * d(x, out) evaluated by numpy in the forward's dtype."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import factor_kernels as FK
from jitgrad.ops.derivative import NumpyMath
from jitgrad.ops.registry import REGISTRY

from backward_paths import PATHS, backward, interpreted_and_compiled, leaf

# op -> (function, domain of x) ; atan2 takes y too
UNARY = {
    "abs": (paddle.abs, (-2.0, 2.0)), "acos": (paddle.acos, (-0.9, 0.9)),
    "acosh": (paddle.acosh, (1.1, 3.0)), "asin": (paddle.asin, (-0.9, 0.9)),
    "asinh": (paddle.asinh, (-3.0, 3.0)), "atan": (paddle.atan, (-3.0, 3.0)),
    "atanh": (paddle.atanh, (-0.9, 0.9)), "expm1": (paddle.expm1, (-2.0, 2.0)),
    "log10": (paddle.log10, (0.1, 3.0)), "log1p": (paddle.log1p, (-0.9, 3.0)),
    "log2": (paddle.log2, (0.1, 3.0)), "reciprocal": (paddle.reciprocal, (0.2, 3.0)),
    "rsqrt": (paddle.rsqrt, (0.2, 3.0)), "tan": (paddle.tan, (-1.2, 1.2)),
}


def _saved_factor_gradient(name, g, *inputs):
    """What the forward's saved factor gave: g * d(numpy, inputs, out), per input."""
    op = REGISTRY[name]
    out = op.forward(*inputs)
    m = NumpyMath(out.dtype)
    with np.errstate(all="ignore"):
        return [g * np.asarray(d(m, *inputs, out), out.dtype) for d in op.extra["deriv"]]


def _inputs(name, dtype, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = UNARY[name][1]
    return rng.uniform(lo, hi, (4, 8)).astype(dtype)


def test_these_ops_trace_to_expressions_and_save_nothing():
    for name in list(UNARY) + ["atan2"]:
        op = REGISTRY[name]
        derivs = op.extra["deriv"]
        plans = [FK.trace(d, tuple(range(len(derivs))) + ("out",)) for d in derivs]
        assert all(p is not None and p[0] == "EXPR" for p in plans), name
        assert op.save is None, name
    x = leaf(np.array([0.5, -1.5], "float32"))
    assert paddle.atan(x)._node.saved == ()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_is_the_saved_factors_bit_for_bit_on_every_path(name, dtype):
    fn = UNARY[name][0]
    x0 = _inputs(name, dtype)
    g = np.random.default_rng(1).uniform(-2, 2, x0.shape).astype(dtype)
    want = _saved_factor_gradient(name, g, x0)[0]
    for path in PATHS:
        x = leaf(x0, dtype)
        backward((fn(x) * paddle.to_tensor(g)).sum(), path)
        got = x.grad.numpy()
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {dtype} {path}")


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_interpreted_equals_compiled(name):
    x0 = _inputs(name, "float32", seed=2)

    def grads():
        x = leaf(x0)
        UNARY[name][0](x).sum().backward()
        return x.grad.numpy()
    interpreted, compiled = interpreted_and_compiled(grads)
    np.testing.assert_array_equal(interpreted, compiled)


def test_atan2_gradients_of_both_inputs_with_broadcasting():
    rng = np.random.default_rng(3)
    x0 = rng.uniform(0.5, 2.0, (3, 4)).astype("float32")
    y0 = rng.uniform(0.5, 2.0, (4,)).astype("float32")
    g = rng.uniform(-1, 1, (3, 4)).astype("float32")
    gx, gy = _saved_factor_gradient("atan2", g, x0, y0)
    for path in PATHS:
        x, y = leaf(x0), leaf(y0)
        backward((paddle.atan2(x, y) * paddle.to_tensor(g)).sum(), path)
        np.testing.assert_array_equal(x.grad.numpy(), gx, err_msg=path)
        np.testing.assert_allclose(y.grad.numpy(), gy.sum(axis=0), rtol=1e-6, err_msg=path)
    # closed form: d/dx atan2(x, y) = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2)
    x, y = leaf([1.0], "float64"), leaf([2.0], "float64")
    paddle.atan2(x, y).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 / 5], rtol=1e-15)
    np.testing.assert_allclose(y.grad.numpy(), [-1 / 5], rtol=1e-15)


def test_abs_gradient_at_zero_nan_and_inf_is_numpys_sign():
    # sign: 0 at either zero (Paddle 3.3.1's abs gradient at 0 is 0), a NaN for a NaN
    x0 = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -3.0, 2.0], "float32")
    for path in PATHS:
        x = leaf(x0)
        backward(paddle.abs(x).sum(), path)
        np.testing.assert_array_equal(x.grad.numpy(), [0, 0, np.nan, -1, 1, -1, 1],
                                      err_msg=path)


def test_edges_give_inf_and_nan_silently_as_before():
    # atanh at +-1: 1 / (1 - 1) = inf; rsqrt-based asin at 1: inf; log1p at -1: inf
    for fn, v, want in ((paddle.atanh, 1.0, np.inf), (paddle.asin, 1.0, np.inf),
                        (paddle.log1p, -1.0, np.inf), (paddle.acosh, 1.0, np.inf)):
        for path in PATHS:
            x = leaf(np.array([v], "float32"))
            backward(fn(x).sum(), path)
            assert x.grad.numpy()[0] == want, (fn.__name__, path)


def test_finite_differences_agree():
    rng = np.random.default_rng(4)
    for name, (fn, (lo, hi)) in UNARY.items():
        if name == "abs":
            continue
        x0 = rng.uniform(lo + 0.05, hi - 0.05, 5)
        x = leaf(x0, "float64")
        fn(x).sum().backward()
        h = 1e-6
        fd = (fn(paddle.to_tensor(x0 + h)).numpy() - fn(paddle.to_tensor(x0 - h)).numpy()) / 2 / h
        np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6, err_msg=name)


def test_second_order_through_an_expression_factor():
    # d2/dx2 atan(x) = -2x / (1 + x^2)^2
    x = leaf(np.array([0.5, -1.0], "float64"), "float64")
    (g,) = paddle.grad(paddle.atan(x).sum(), x, create_graph=True)
    (h,) = paddle.grad(g.sum(), x)
    v = np.array([0.5, -1.0])
    np.testing.assert_allclose(h.numpy(), -2 * v / (1 + v * v) ** 2, rtol=1e-14)


def test_a_retained_replay_keeps_the_factor_chain_unfolded():
    # fold.py folds a chain into a * D; a factor's arithmetic is no such product
    x0 = np.linspace(-2, 2, 5000).astype("float32")
    x = leaf(x0)
    y = paddle.atan(x * 1.5).sum()
    for _ in range(3):
        y.backward(retain_graph=True)
    want = 3 * _saved_factor_gradient("atan", np.float32(1.5), x0 * np.float32(1.5))[0]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)
