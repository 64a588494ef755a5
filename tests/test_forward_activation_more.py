"""mish as one node (ops/activation.py's mish_op) and its compiled forward, and softplus's
factor without its own loop (vm/forward_activation.py): the numpy path's values bit for bit,
NaN, infinities, signed zeros, the threshold and empty arrays included."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import activation
from jitgrad.ops.registry import REGISTRY


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


def _inputs(dtype):
    t = np.dtype(dtype).type
    edges = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 20.0, -20.0, 1.0, -1.0, 0.5, -0.5,
             2.0, -2.0, 1e-30, -1e-30, 1e-45, -1e-45, 30.0, -30.0, 88.0, -88.0, 89.0, -104.0,
             710.0, -745.0, 1e30, -1e30]
    near = [np.nextafter(t(v), t(np.inf)) for v in edges if np.isfinite(v)] + \
        [np.nextafter(t(v), t(-np.inf)) for v in edges if np.isfinite(v)]
    rng = np.random.default_rng(0)
    with np.errstate(all="ignore"):
        return np.concatenate([np.array(edges + near, dtype), rng.uniform(-8, 8, 300).astype(
            dtype), rng.uniform(-25, 25, 300).astype(dtype)]).reshape(-1, 1)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)             # (NaN matches NaN)
    assert np.array_equal(np.signbit(a), np.signbit(b))


def _numpy_path(op, data, **attrs):
    with np.errstate(all="ignore"):
        out = op.forward(data, **attrs)
        (factor,) = op.save((True,), out, data, **attrs)
    return out, factor


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mish_kernels_give_the_numpy_values(dtype):
    op = REGISTRY["mish"]
    x = _inputs(dtype)
    for data in (x, np.concatenate([x, x], 1)[:, ::-1].T, x[:0], x[0, 0]):
        leaf = paddle.to_tensor(data, stop_gradient=False)
        y = F.mish(leaf)
        assert y._node.op is op and y._node.inputs[0] is leaf
        want_out, want_factor = _numpy_path(op, np.asarray(data))
        _same_bits(y._data, np.asarray(want_out))
        _same_bits(y._node.saved[0], np.asarray(want_factor))
        with paddle.no_grad():
            _same_bits(F.mish(leaf)._data, np.asarray(want_out))
        _same_bits(F.mish(paddle.to_tensor(data))._data, np.asarray(want_out))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mish_keeps_the_composite_forward(dtype):
    """One node, the values of x * tanh(softplus(x)) as the three ops recorded them."""
    x = _inputs(dtype)
    t = paddle.to_tensor(x)
    with np.errstate(all="ignore"):
        want = (t * paddle.tanh(F.softplus(t)))._data
    _same_bits(F.mish(t)._data, want)


def test_mish_without_numba_kernels_is_the_numpy_path(monkeypatch):
    x = _inputs("float32")
    want_out, want_factor = _numpy_path(REGISTRY["mish"], x)
    monkeypatch.setattr(activation, "compiled_input", lambda *a: None)
    y = F.mish(paddle.to_tensor(x, stop_gradient=False))
    _same_bits(y._data, want_out)
    _same_bits(y._node.saved[0], want_factor)


def test_mish_gradient_matches_its_composite_and_torch_formula():
    x64 = np.linspace(-25, 25, 403)
    for dtype, rtol in (("float64", 1e-13), ("float32", 3e-6)):
        x = paddle.to_tensor(x64.astype(dtype), stop_gradient=False)
        c = paddle.to_tensor(np.linspace(0.5, 1.5, 403).astype(dtype))
        grads = []
        for _ in range(3):              # fresh graphs: interpreted, then the cached program
            x.clear_grad()
            (F.mish(x) * c).sum().backward()
            grads.append(x.grad.numpy())
        sp = np.logaddexp(0, x64)
        t = np.tanh(sp)
        want = c.numpy() * (t + x64 * (1 - t * t) / (1 + np.exp(-x64)))
        for g in grads:
            np.testing.assert_allclose(g, want, rtol=rtol, atol=1e-7)
        xc = paddle.to_tensor(x64.astype(dtype), stop_gradient=False)
        comp = (xc * paddle.tanh(F.softplus(xc)) * c).sum()
        comp.backward()
        np.testing.assert_allclose(grads[0], xc.grad.numpy(), rtol=rtol, atol=1e-7)
        # the rule in jitgrad ops (create_graph): the same values to rounding
        g1 = paddle.grad((F.mish(x) * c).sum(), x, create_graph=True)[0]
        np.testing.assert_allclose(g1.numpy(), want, rtol=rtol, atol=1e-7)


def test_mish_second_derivative():
    x64 = np.linspace(-4, 4, 41)
    x = paddle.to_tensor(x64, stop_gradient=False)
    g1 = paddle.grad(F.mish(x).sum(), x, create_graph=True)[0]
    g2 = paddle.grad(g1.sum(), x)[0].numpy()
    h = 1e-5
    def d1(v):
        sp = np.logaddexp(0, v)
        t = np.tanh(sp)
        return t + v * (1 - t * t) / (1 + np.exp(-v))
    np.testing.assert_allclose(g2, (d1(x64 + h) - d1(x64 - h)) / (2 * h), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 2.0), (-0.7, 0.1), (1.0, np.inf),
                                             (1.0, -np.inf), (0.5, 0.0), (1.0, np.nan),
                                             (1.0, 1e39)])
def test_softplus_factor_is_the_numpy_paths_sigmoid(beta, threshold, dtype):
    """The compiled factor (sigmoid(beta x) from the output's exp values) has the numpy
    path's bits, 1 above the threshold, NaN and infinities included."""
    op = REGISTRY["softplus"]
    x = _inputs(dtype)
    for data in (x, x[:0]):
        leaf = paddle.to_tensor(data, stop_gradient=False)
        with np.errstate(all="ignore"):
            y = F.softplus(leaf, beta, threshold)
        want_out, want_factor = _numpy_path(op, data, beta=beta, threshold=threshold)
        _same_bits(y._data, want_out)
        _same_bits(y._node.saved[0], want_factor)
        with np.errstate(all="ignore"):       # (twice: the cached scalars)
            _same_bits(F.softplus(leaf, beta, threshold)._node.saved[0], want_factor)


@pytest.mark.parametrize("dtype, rtol", [("float32", 2.5e-7), ("float64", 1e-15)])
def test_softplus_factor_is_sigmoid_of_beta_x(dtype, rtol):
    """The saved factor is sigmoid(z) to an ulp or so (z = beta x as the op rounds it; a
    float64 reference), 1 where z > threshold, and so is the gradient. (The former factor
    -expm1(-beta out) was 1.9e-7 off at most here, this one 1.7e-7.)"""
    x64 = np.linspace(-30, 30, 601)
    for beta, threshold in ((1.0, 20.0), (2.0, 5.0), (-0.7, 3.0)):
        leaf = paddle.to_tensor(x64.astype(dtype), stop_gradient=False)
        y = F.softplus(leaf, beta, threshold)
        z = (np.dtype(dtype).type(beta) * x64.astype(dtype)).astype(np.float64)   # (the op's)
        want = np.where(z > threshold, 1.0, 1.0 / (1.0 + np.exp(-z)))
        np.testing.assert_allclose(y._node.saved[0], want, rtol=rtol, atol=1e-37)
        y.sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), want, rtol=rtol, atol=1e-37)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_sigmoid_kernels_give_the_numpy_values(dtype):
    op = REGISTRY["log_sigmoid"]
    x = _inputs(dtype)
    for data in (x, np.concatenate([x, x], 1)[:, ::-1].T, x[:0], x[0, 0]):
        leaf = paddle.to_tensor(data, stop_gradient=False)
        y = F.log_sigmoid(leaf)
        want_out, want_factor = _numpy_path(op, np.asarray(data))
        _same_bits(y._data, np.asarray(want_out))
        _same_bits(y._node.saved[0], np.asarray(want_factor))   # (NaN signs too)
        with paddle.no_grad():
            _same_bits(F.log_sigmoid(leaf)._data, np.asarray(want_out))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanhshrink_is_one_node_with_the_composite_forward(dtype):
    op = REGISTRY["tanhshrink"]
    x = _inputs(dtype)
    for data in (x, np.concatenate([x, x], 1)[:, ::-1].T, x[:0], x[0, 0]):
        leaf = paddle.to_tensor(data, stop_gradient=False)
        y = F.tanhshrink(leaf)
        assert y._node.op is op and y._node.inputs[0] is leaf
        assert isinstance(y._data, np.ndarray) and y._data.dtype == data.dtype
        want_out, want_factor = _numpy_path(op, np.asarray(data))
        _same_bits(y._data, np.asarray(want_out))
        _same_bits(y._node.saved[0], np.asarray(want_factor))
        t = paddle.to_tensor(data)
        _same_bits(y._data, (t - paddle.tanh(t))._data)        # the composite's values
        with paddle.no_grad():
            _same_bits(F.tanhshrink(leaf)._data, np.asarray(want_out))


def test_tanhshrink_gradient_is_tanh_squared():
    x64 = np.linspace(-5, 5, 201)
    for dtype, rtol in (("float64", 1e-14), ("float32", 1e-6)):
        x = paddle.to_tensor(x64.astype(dtype), stop_gradient=False)
        c = paddle.to_tensor(np.linspace(0.5, 1.5, 201).astype(dtype))
        for _ in range(3):
            x.clear_grad()
            (F.tanhshrink(x) * c).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), c.numpy() * np.tanh(x64) ** 2,
                                       rtol=rtol, atol=1e-30)
        g1 = paddle.grad((F.tanhshrink(x) * c).sum(), x, create_graph=True)[0]
        np.testing.assert_allclose(g1.numpy(), c.numpy() * np.tanh(x64) ** 2, rtol=rtol,
                                   atol=1e-30)
        g2 = paddle.grad(g1.sum(), x)[0].numpy()
        t = np.tanh(x64)
        np.testing.assert_allclose(g2, c.numpy() * 2 * t * (1 - t * t), rtol=rtol * 10,
                                   atol=1e-12 if dtype == "float64" else 1e-6)  # (1 - t t)


COMPILED = sorted(name for name, op in REGISTRY.items() if op.extra.get("compiled"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", COMPILED)
def test_compiled_unary_ops_on_0d_and_empty_arrays(name, dtype):
    """apply_unary's kernels (their numpy arrays made in place, their scalars cached) on a
    0-d and an empty input, twice each: the numpy path's values."""
    from jitgrad.ops import derivative
    op = REGISTRY[name]
    attrs = {"celu": {"alpha": 0.5}, "clip": {"lo": -0.5, "hi": 0.7},
             "elu": {"alpha": 1.6732632423543772, "scale": 1.0507009873554805},
             "gelu": {"approximate": False}, "hardshrink": {"threshold": 0.5},
             "hardsigmoid": {"slope": 1 / 6, "offset": 0.5}, "hardtanh": {"lo": -1.0, "hi": 1.0},
             "leaky_relu": {"slope": 0.01}, "relu6": {"threshold": 6.0},
             "softshrink": {"threshold": 0.5},
             "thresholded_relu": {"threshold": 1.0, "value": 0.0}}.get(name, {})
    for data in (np.array(-0.75, dtype), np.array(1.25, dtype), np.zeros((0, 3), dtype)):
        for _ in range(2):
            leaf = paddle.to_tensor(data, stop_gradient=False)
            y = derivative.apply_unary(op, leaf, dict(attrs))
            want_out, want_factor = _numpy_path(op, data, **attrs)
            _same_bits(y._data, np.asarray(want_out))
            _same_bits(y._node.saved[0], np.asarray(want_factor))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cached_scalars_keep_signed_zero_and_nan_attributes_apart(dtype):
    x = paddle.to_tensor(np.array([-2.0, -0.5, 0.0, 1.0], dtype), stop_gradient=False)
    for slope in (0.0, -0.0, 0.0, np.nan, 0.25, -0.0):
        with np.errstate(all="ignore"):
            y = F.leaky_relu(x, slope)
            want = REGISTRY["leaky_relu"].forward(x._data, slope=slope)
        _same_bits(y._data, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softplus_cached_scalars_keep_the_sign_of_a_zero_beta(dtype):
    op = REGISTRY["softplus"]
    x = _inputs(dtype)
    for beta in (0.0, -0.0, 0.0, -0.0):
        leaf = paddle.to_tensor(x, stop_gradient=False)
        with np.errstate(all="ignore"):
            y = F.softplus(leaf, beta, 20.0)
        want_out, want_factor = _numpy_path(op, x, beta=beta, threshold=20.0)
        _same_bits(y._data, want_out)
        _same_bits(y._node.saved[0], want_factor)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, call, attrs", [
    ("elu", lambda t: F.elu(t), {"alpha": 1.0, "scale": 1.0}),
    ("elu", lambda t: F.elu(t, 0.3), {"alpha": 0.3, "scale": 1.0}),
    ("elu", lambda t: F.selu(t), {"alpha": 1.6732632423543772, "scale": 1.0507009873554805}),
    ("elu", lambda t: F.selu(t, -0.5, 2.0), {"alpha": 2.0, "scale": -0.5}),
    ("elu", lambda t: F.elu(t, 0.0), {"alpha": 0.0, "scale": 1.0}),
    ("elu", lambda t: F.elu(t, -0.0), {"alpha": -0.0, "scale": 1.0}),
    ("silu", lambda t: F.silu(t), {}),
    ("celu", lambda t: F.celu(t), {"alpha": 1.0}),
    ("celu", lambda t: F.celu(t, 0.5), {"alpha": 0.5}),
    ("celu", lambda t: F.celu(t, -1.5), {"alpha": -1.5}),
    ("celu", lambda t: F.celu(t, 3.7), {"alpha": 3.7}),
])
def test_public_compiled_paths_give_the_numpy_values(name, call, attrs, dtype):
    """elu/selu, silu and celu call their kernels directly (not through apply_unary): the
    numpy forward's and factor's values, contiguous or not, 0-d, empty, twice (the cached
    scalars), with and without a gradient."""
    op = REGISTRY[name]
    x = _inputs(dtype)
    for data in (x, np.concatenate([x, x], 1)[:, ::-1].T, x[:0], x[5, 0], x[7, 0]):
        for _ in range(2):
            leaf = paddle.to_tensor(data, stop_gradient=False)
            with np.errstate(all="ignore"):
                y = call(leaf)
            assert y._node.op is op and y._node.attrs == attrs
            want_out, want_factor = _numpy_path(op, np.asarray(data), **attrs)
            _same_bits(y._data, np.asarray(want_out))
            _same_bits(y._node.saved[0], np.asarray(want_factor))
            with paddle.no_grad(), np.errstate(all="ignore"):
                _same_bits(call(leaf)._data, np.asarray(want_out))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, call, attrs", [
    ("relu6", lambda t: F.relu6(t), {"threshold": 6.0}),
    ("leaky_relu", lambda t: F.leaky_relu(t), {"slope": 0.01}),
    ("leaky_relu", lambda t: F.leaky_relu(t, -0.3), {"slope": -0.3}),
    ("leaky_relu", lambda t: F.leaky_relu(t, 0.0), {"slope": 0.0}),
    ("leaky_relu", lambda t: F.leaky_relu(t, -0.0), {"slope": -0.0}),
    ("hardtanh", lambda t: F.hardtanh(t), {"lo": -1.0, "hi": 1.0}),
    ("hardtanh", lambda t: F.hardtanh(t, -0.1, 0.3), {"lo": -0.1, "hi": 0.3}),
    ("hardsigmoid", lambda t: F.hardsigmoid(t), {"slope": 0.1666667, "offset": 0.5}),
    ("hardsigmoid", lambda t: F.hardsigmoid(t, -0.2, 0.3), {"slope": -0.2, "offset": 0.3}),
    ("hardswish", lambda t: F.hardswish(t), {}),
    ("hardshrink", lambda t: F.hardshrink(t), {"threshold": 0.5}),
    ("hardshrink", lambda t: F.hardshrink(t, 0.0), {"threshold": 0.0}),
    ("softshrink", lambda t: F.softshrink(t), {"threshold": 0.5}),
    ("softshrink", lambda t: F.softshrink(t, 0.0), {"threshold": 0.0}),
    ("thresholded_relu", lambda t: F.thresholded_relu(t), {"threshold": 1.0, "value": 0.0}),
    ("thresholded_relu", lambda t: F.thresholded_relu(t, -0.5, 2.0),
     {"threshold": -0.5, "value": 2.0}),
    ("softsign", lambda t: F.softsign(t), {}),
    ("gelu", lambda t: F.gelu(t), {"approximate": False}),
    ("gelu", lambda t: F.gelu(t, True), {"approximate": True}),     # (its own no-grad kernel)
])
def test_public_plain_kernel_paths_give_the_numpy_values(name, call, attrs, dtype):
    """The ops whose kernel takes no numpy arrays, through their public functions (_f's
    written-out pass): the numpy values, as above."""
    test_public_compiled_paths_give_the_numpy_values(name, call, attrs, dtype)


def test_public_paths_fall_back_to_apply_unary_without_their_kernels(monkeypatch):
    x = _inputs("float32")
    cases = [("elu", F.selu, {"alpha": 1.6732632423543772, "scale": 1.0507009873554805}),
             ("silu", F.silu, {}), ("celu", lambda t: F.celu(t, 0.5), {"alpha": 0.5}),
             ("softsign", F.softsign, {}), ("leaky_relu", F.leaky_relu, {"slope": 0.01})]
    monkeypatch.setattr(activation, "compiled_input", lambda *a: None)
    for name, call, attrs in cases:
        y = call(paddle.to_tensor(x, stop_gradient=False))
        want_out, want_factor = _numpy_path(REGISTRY[name], x, **attrs)
        _same_bits(y._data, want_out)
        _same_bits(y._node.saved[0], want_factor)
