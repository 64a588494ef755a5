"""vm/forward_activation.py's kernels give, in one pass, what the numpy forward and the
saved derivative factor give (ops/derivative.py's apply_unary): bit for bit, signed zeros,
NaN, infinities and every boundary included."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import derivative
from jitgrad.ops.registry import REGISTRY

COMPILED = sorted(name for name, op in REGISTRY.items() if op.extra.get("compiled"))

# the attributes of each compiled op, the defaults and others that move the boundaries
ATTRS = {
    "celu": [{"alpha": 1.0}, {"alpha": 0.5}, {"alpha": -1.5}, {"alpha": 3.7}],
    "clip": [{"lo": -0.5, "hi": 0.7}, {"lo": 0.0, "hi": 0.0}, {"lo": -np.inf, "hi": 0.1}],
    "elu": [{"alpha": 1.0, "scale": 1.0},
            {"alpha": 1.6732632423543772, "scale": 1.0507009873554805}],
    "erf": [{}],
    "gelu": [{"approximate": False}, {"approximate": True}],
    "hardshrink": [{"threshold": 0.5}, {"threshold": 0.0}],
    "hardsigmoid": [{"slope": 1 / 6, "offset": 0.5}, {"slope": -0.2, "offset": 0.3}],
    "hardswish": [{}],
    "i0": [{}],
    "i0e": [{}],
    "i1": [{}],
    "i1e": [{}],
    "hardtanh": [{"lo": -1.0, "hi": 1.0}, {"lo": -0.1, "hi": 0.3}],
    "leaky_relu": [{"slope": 0.01}, {"slope": -0.3}, {"slope": 0.0}],
    "relu6": [{"threshold": 6.0}, {"threshold": 0.1}],
    "silu": [{}],
    "sinc": [{}],
    "softsign": [{}],
    "softshrink": [{"threshold": 0.5}, {"threshold": 0.0}],
    "thresholded_relu": [{"threshold": 1.0, "value": 0.0}, {"threshold": -0.5, "value": 2.0}],
}


def test_the_compiled_ops():
    assert COMPILED == sorted(ATTRS)


def _inputs(dtype):
    t = np.dtype(dtype).type
    edges = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 3.0, -3.0, 6.0, 1.0, -1.0, 0.5,
             -0.5, 0.7, 0.1, -0.1, 0.3, 2.0, -2.0, 1e-30, -1e-30, 1e30, -1e30]
    near = [np.nextafter(t(v), t(np.inf)) for v in edges if np.isfinite(v)] + \
        [np.nextafter(t(v), t(-np.inf)) for v in edges if np.isfinite(v)]
    rng = np.random.default_rng(0)
    return np.concatenate([np.array(edges + near, dtype),
                           rng.uniform(-8, 8, 300).astype(dtype)]).reshape(-1, 1)


def _same_bits(a, b):
    np.testing.assert_array_equal(a, b)             # (NaN matches NaN)
    assert np.array_equal(np.signbit(a), np.signbit(b))


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", COMPILED)
def test_kernel_gives_the_numpy_forward_and_factor_bit_for_bit(name, dtype):
    op = REGISTRY[name]
    x = _inputs(dtype)
    for attrs in ATTRS[name]:
        leaf = paddle.to_tensor(x, stop_gradient=False)
        with np.errstate(all="ignore"):
            y = derivative.apply_unary(op, leaf, dict(attrs))
            want_out = op.forward(x, **attrs)
            (want_factor,) = op.save((True,), want_out, x, **attrs)
        _same_bits(y._data, want_out)
        _same_bits(y._node.saved[0], want_factor)
        assert y._node.saved[0].dtype == x.dtype


@pytest.mark.parametrize("name, exact", [("hardswish", True), ("leaky_relu", True),
                                         ("clip", True), ("silu", False), ("gelu", False)])
def test_a_compiled_activation_trains_as_its_ops_level_rule(name, exact):
    f = (lambda t: paddle.clip(t, -1.0, 2.0)) if name == "clip" else \
        getattr(paddle.nn.functional, name)
    x = paddle.to_tensor(np.linspace(-4, 4, 12, dtype="float32").reshape(3, 4),
                         stop_gradient=False)
    c = paddle.arange(12, dtype="float32").reshape([3, 4])
    grads = []
    for _ in range(3):                  # fresh graphs: interpreted, then the cached program
        x.clear_grad()
        (f(x) * c).sum().backward()
        grads.append(x.grad.numpy())
    # the rule in jitgrad ops (create_graph): the same values, to rounding where it takes
    # another route to the transcendentals (sigmoid, erf)
    want = paddle.grad((f(x) * c).sum(), x, create_graph=True)[0].numpy()
    for g in grads:
        if exact:
            np.testing.assert_array_equal(g, want)
        else:
            np.testing.assert_allclose(g, want, rtol=2e-6, atol=1e-7)


def test_a_non_contiguous_input_is_copied_first():
    base = paddle.to_tensor(np.arange(-6.0, 6.0, dtype="float32").reshape(3, 4))
    t = base.transpose([1, 0])
    y = paddle.nn.functional.leaky_relu(t, 0.5)
    np.testing.assert_array_equal(y.numpy(), np.where(t.numpy() >= 0, t.numpy(),
                                                      np.float32(0.5) * t.numpy()))


# ---- ops whose compiled forward calls numpy's transcendentals between compiled loops --------
# (softplus, the tanh gelu, logaddexp, huber: their public functions take the compiled path)

def _factors(y):
    return [f for f in y._node.saved if f is not None]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, call, attrs", [
    ("softplus", lambda t: F.softplus(t), {"beta": 1.0, "threshold": 20.0}),
    ("softplus", lambda t: F.softplus(t, 2.0, 2.0), {"beta": 2.0, "threshold": 2.0}),
    ("softplus", lambda t: F.softplus(t, -0.7, 0.1), {"beta": -0.7, "threshold": 0.1}),
    ("softplus", lambda t: F.softplus(t, 1.0, np.inf), {"beta": 1.0, "threshold": np.inf}),
    ("gelu", lambda t: F.gelu(t, approximate=True), {"approximate": True}),
])
def test_staged_unary_kernels_give_the_numpy_values(name, call, attrs, dtype):
    op = REGISTRY[name]
    x = _inputs(dtype)
    for data in (x, np.concatenate([x, x], 1)[:, ::-1].T):         # (and not contiguous)
        leaf = paddle.to_tensor(data, stop_gradient=False)
        with np.errstate(all="ignore"):
            y = call(leaf)
            want_out = op.forward(data, **attrs)
            (want_factor,) = op.save((True,), want_out, data, **attrs)
        _same_bits(y._data, want_out)
        (factor,) = _factors(y)
        _same_bits(factor, want_factor)
        assert factor.dtype == y._data.dtype == data.dtype
    with paddle.no_grad():
        _same_bits(call(paddle.to_tensor(x))._data, op.forward(x, **attrs))


def _pairs(dtype):
    """Every pair of the edge values (NaN, infinities, signed zeros ...) and random ones."""
    x = _inputs(dtype).ravel()
    e = x[:60]
    rng = np.random.default_rng(1)
    r = rng.uniform(-3, 3, (2, 201)).astype(dtype)
    return (np.concatenate([np.repeat(e, 60), x, r[0]]).reshape(-1, 2),
            np.concatenate([np.tile(e, 60), x[::-1], r[1]]).reshape(-1, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, call, attrs", [
    ("logaddexp", lambda a, b: paddle.logaddexp(a, b), {}),
    ("huber", lambda a, b: F.smooth_l1_loss(a, b, reduction="none"), {"delta": 1.0}),
    ("huber", lambda a, b: F.smooth_l1_loss(a, b, reduction="none", delta=0.1),
     {"delta": 0.1}),
    ("huber", lambda a, b: F.smooth_l1_loss(a, b, reduction="none", delta=2.7),
     {"delta": 2.7}),
])
def test_binary_kernels_give_the_numpy_values(name, call, attrs, dtype):
    op = REGISTRY[name]
    x, y = _pairs(dtype)
    for needs in ((True, True), (True, False), (False, True)):
        a = paddle.to_tensor(x, stop_gradient=not needs[0])
        b = paddle.to_tensor(y.T.copy().T, stop_gradient=not needs[1])   # (not contiguous)
        with np.errstate(all="ignore"):
            r = call(a, b)
            want_out = op.forward(x, y, **attrs)
            want = op.save(needs, want_out, x, y, **attrs)
        _same_bits(r._data, want_out)
        for got, w, need in zip(r._node.saved, want, needs):
            assert (got is None) == (not need)
            if need:
                _same_bits(got, w)
                assert got.dtype == x.dtype


def test_binary_kernels_leave_broadcasting_to_the_numpy_path():
    a = paddle.to_tensor(np.linspace(-2, 2, 6, dtype="float32").reshape(2, 3),
                         stop_gradient=False)
    b = paddle.to_tensor(np.float32([0.5, -1.0, 3.0]), stop_gradient=False)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(paddle.logaddexp(a, b).numpy(),
                                      np.logaddexp(a.numpy(), b.numpy()))
    (F.smooth_l1_loss(a, b) + paddle.logaddexp(a, b).sum()).backward()
    assert a.grad is not None and b.grad.shape == [3]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, weights, fmt", [
    ((8, 5, 3, 4), 5, "NCHW"), ((2, 7, 5), 5, "NLC"), ((3, 4, 6), 4, "NCL"),
    ((383, 2), 1, "NCHW"), ((), 1, "NCHW")])
def test_prelu_kernel_gives_the_numpy_values(shape, weights, fmt, dtype):
    """prelu's one pass (vm/forward_activation.py): np.where's output and both factors, bit
    for bit, NaN, infinities and signed zeros included, channel first or last."""
    op = REGISTRY["prelu"]
    x = np.resize(_inputs(dtype).ravel(), shape).astype(dtype)
    w = np.array([0.25, -0.5, 0.0, -0.0, 3.0, np.nan, np.inf][:weights], dtype)
    for needs in ((True, True), (True, False), (False, True)):
        a = paddle.to_tensor(x, stop_gradient=not needs[0])
        b = paddle.to_tensor(w, stop_gradient=not needs[1])
        r = F.prelu(a, b, data_format=fmt)
        node = r._node
        d, e = node.inputs[0]._data, node.inputs[1]._data
        with np.errstate(all="ignore"):
            want_out = op.forward(d, e)
            want = op.save(needs, want_out, d, e)
        _same_bits(r._data, want_out)
        for got, want_f, need in zip(node.saved, want, needs):
            assert (got is None) == (not need)
            if need:
                _same_bits(got, want_f)
                assert got.dtype == x.dtype and got.shape == x.shape


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, axis", [((32, 64), 1), ((4, 6, 5), 1), ((6, 3), 0),
                                         ((8,), 0), ((2, 3, 4), 2), ((2, 0, 4), 2)])
def test_glu_and_sigmoid_kernels_give_the_numpy_values(shape, axis, dtype, monkeypatch):
    """glu's one pass (output and its saved factor [s, a s'(b)]) and sigmoid's, around
    numpy's exp: the numpy passes' values bit for bit, NaN, infinities, signed zeros."""
    from jitgrad.ops import activation, elementwise
    x = np.resize(_inputs(dtype).ravel(), shape).astype(dtype)
    with np.errstate(all="ignore"):
        out, (f,) = activation._glu_forward(x, axis)
        s = elementwise._sigmoid(x)
        monkeypatch.setattr(activation, "compiled_input", lambda *a: None)
        monkeypatch.setattr(elementwise, "compiled_input", lambda *a: None)
        want_out, (want_f,) = activation._glu_forward(x, axis)
        want_s = elementwise._sigmoid(x)
    for got, want in ((out, want_out), (f, want_f), (s, want_s)):
        _same_bits(got, want)
        assert got.dtype == x.dtype and got.shape == want.shape
    assert f.shape == x.shape


def test_glu_is_one_node_with_the_gradient_of_its_composite():
    x = paddle.to_tensor(np.linspace(-3, 3, 24).reshape(2, 6, 2), stop_gradient=False)
    c = np.arange(12.0).reshape(2, 3, 2)
    y = F.glu(x, axis=1)
    assert y._node.op.name == "glu"
    (y * paddle.to_tensor(c)).sum().backward()
    a, b = x.numpy()[:, :3], x.numpy()[:, 3:]
    s = 1 / (1 + np.exp(-b))
    np.testing.assert_allclose(x.grad.numpy(), np.concatenate([c * s, c * a * s * (1 - s)], 1),
                               rtol=1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bce_logits_kernel_gives_the_numpy_values(dtype, monkeypatch):
    """binary_cross_entropy_with_logits' one pass around numpy's exp and log1p: the numpy
    passes' output and factors bit for bit, NaN where NaN (where x and y are both NaN the
    sum's NaN may carry either one's sign: IEEE leaves it open)."""
    from jitgrad.ops import bce
    x, y = _pairs(dtype)
    with np.errstate(all="ignore"):
        got = bce._logits_forward(x, y)
        monkeypatch.setattr(bce, "compiled_input", lambda *a: None)
        want = bce._logits_forward(x, y)
    for g, w in zip((got[0],) + got[1], (want[0],) + want[1]):
        assert g.dtype == w.dtype and g.shape == w.shape
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.isnan(g), nan)
        _same_bits(g[~nan], w[~nan])


# ---- numpy's float32 exp inside sigmoid's and silu's one pass --------------------------------

def _exp_inputs():
    """float32: _inputs, exp's saturation and denormal edges and their neighbours, random
    bits (NaNs of both signs and payloads among them)."""
    edges = np.array([88.72283935546875, -103.97208404541015625, 88.3762626647949, -87.33654,
                      -126 * np.log(2), -149 * np.log(2), 20.0, -20.0], np.float32)
    near = (edges[:, None].view(np.int32) + np.arange(-8, 9, dtype=np.int32)).view(np.float32)
    bits = np.random.default_rng(5).integers(0, 2 ** 32, 4000, dtype=np.uint64)
    return np.concatenate([_inputs(np.float32).ravel(), edges, -edges, near.ravel(),
                           -near.ravel(), bits.astype(np.uint32).view(np.float32)])


def _emulated_and_plain(f, x, monkeypatch):
    """f of x with and without a gradient, first with numpy's exp emulated in the kernels,
    then with the np.exp passes: [(y, y without a gradient, np.exp calls)] for each."""
    from jitgrad.ops import elementwise
    results = []
    for emulated in (True, False):
        monkeypatch.setattr(elementwise, "_EXP_EMULATED", [emulated])
        calls = []
        real = np.exp
        monkeypatch.setattr(np, "exp", lambda *a, **k: calls.append(1) or real(*a, **k))
        with np.errstate(all="ignore"):
            y = f(paddle.to_tensor(x, stop_gradient=False))
            y_plain = f(paddle.to_tensor(x))
        monkeypatch.setattr(np, "exp", real)
        results.append((y, y_plain, calls))
    return results


@pytest.mark.parametrize("shape", [(), (7,), (33, 65), (0,), (2, 0, 3)])
@pytest.mark.parametrize("name", ["sigmoid", "silu"])
def test_float32_sigmoid_and_silu_take_numpys_exp_in_one_pass(name, shape, monkeypatch):
    """No np.exp call: the kernel's own numpy exp, with the three-pass path's bits (neg_abs,
    np.exp, a loop): the output and silu's saved slope, NaN signs included, with and
    without a gradient."""
    f = getattr(F, name)
    x = np.resize(_exp_inputs(), shape).astype(np.float32)
    (got, got_plain, calls), (want, want_plain, plain_calls) = _emulated_and_plain(
        f, x, monkeypatch)
    assert calls == [] and plain_calls == [1, 1]
    for a, b in ((got._data, want._data), (got_plain._data, want_plain._data)):
        assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert got_plain._node is None
    assert len(got._node.saved) == len(want._node.saved)
    for a, b in zip(got._node.saved, want._node.saved):
        assert a.shape == b.shape and a.tobytes() == b.tobytes()


def test_the_numpy_exp_emulation_is_checked_against_np_exp(monkeypatch):
    """numpy_exp_emulated compares the kernel with np.exp once; an exp of other bits (the C
    library's, through float64) keeps sigmoid's and silu's three passes."""
    from jitgrad.ops import elementwise
    monkeypatch.setattr(elementwise, "_EXP_EMULATED", [])
    assert elementwise.numpy_exp_emulated()
    real = np.exp
    monkeypatch.setattr(elementwise, "_EXP_EMULATED", [])
    monkeypatch.setattr(np, "exp", lambda x, out=None: real(x.astype(np.float64)).astype(x.dtype))
    assert not elementwise.numpy_exp_emulated()
    monkeypatch.setattr(np, "exp", real)
    assert not elementwise.numpy_exp_emulated()      # (checked once)
    x = _exp_inputs()
    with np.errstate(all="ignore"):
        want = elementwise._sigmoid(x)
        monkeypatch.setattr(elementwise, "compiled_input", lambda *a: None)
        plain = elementwise._sigmoid(x)
    assert want.tobytes() == plain.tobytes()


@pytest.mark.parametrize("name, call", [
    ("softplus", F.softplus), ("softplus", lambda t: F.softplus(t, 2.0, 5.0)),
    ("log_sigmoid", F.log_sigmoid), ("mish", F.mish),
    ("bce", lambda t: F.binary_cross_entropy_with_logits(
        t, paddle.to_tensor(np.linspace(0, 1, t.size).reshape(t.shape).astype(np.float32)),
        reduction="none"))])
def test_float32_exp_of_minus_abs_takes_numpys_exp_in_one_pass(name, call, monkeypatch):
    """Their exp(-|x|) (exp(-|beta x|)) in one pass (vm/numpy_exp.py's exp_neg_abs, no
    np.exp call) with neg_abs's and np.exp's bits: outputs and saved factors, NaN signs
    included, with and without a gradient."""
    x = np.resize(_exp_inputs(), (41, 50)).astype(np.float32)
    (got, got_plain, calls), (want, want_plain, plain_calls) = _emulated_and_plain(
        call, x, monkeypatch)
    assert len(calls) == 0 and len(plain_calls) != 0
    assert got._data.tobytes() == want._data.tobytes()
    assert got_plain._data.tobytes() == want_plain._data.tobytes()
    for a, b in zip(got._node.saved, want._node.saved):
        assert (a is None) == (b is None)
        if b is not None:
            assert a.tobytes() == b.tobytes()
