"""vm/forward_binary.py's compiled forwards of where, maximum, minimum, fmax, fmin, logaddexp,
pow and pow_scalar give what their numpy paths give, bit for bit: outputs, the factors
each node saves (None for an input needing no gradient) and the where node's condition (fmax,
fmin), over shapes, both float dtypes, NaN, infinities, signed zeros and ties; the nodes recorded
are the same, and so are the gradients."""

import contextlib

import numpy as np
import pytest
from bitwise import same_bits

import jitgrad as paddle
from jitgrad import vm
from jitgrad.ops import core
from jitgrad.ops.numeric import _fmax_compiled
from jitgrad.testing import check_grads

SPECIAL = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5,
           3.0, -3.0, 1e-30, -1e-30, 1e30, -1e30, 1e-40, 700.0, -700.0, 90.0, -90.0]
DTYPES = (np.float32, np.float64)
SHAPES = [(), (1,), (7,), (3, 5), (33, 65), (2, 1, 17), (0,), (2, 0, 3)]
NEEDS = ((True, True), (True, False), (False, True), (False, False))


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


@contextlib.contextmanager
def _numpy_path():
    """The ops' numpy paths: compiled_input finds no forward_binary kernels inside."""
    saved = core._KERNELS.pop("forward_binary", None)
    real = vm.compiled_forwards
    vm.compiled_forwards = lambda module: None if module == "forward_binary" else real(module)
    try:
        yield
    finally:
        vm.compiled_forwards = real
        if saved is not None:
            core._KERNELS["forward_binary"] = saved


def _pairs(shape, dtype, seed=0):
    """x, y of `shape`: every pair of SPECIAL values (cycled), ties and near-ties, random."""
    n = int(np.prod(shape))
    s = np.array(SPECIAL, np.float64)
    k = s.size
    rng = np.random.default_rng(seed)
    x = np.concatenate([np.repeat(s, k), rng.uniform(-3, 3, 300)])
    y = np.concatenate([np.tile(s, k), rng.uniform(-3, 3, 300)])
    y[k * k::3] = x[k * k::3]                       # ties among the random ones
    x, y = x.astype(dtype), y.astype(dtype)
    y[k * k + 1::5] = np.nextafter(x[k * k + 1::5], dtype(np.inf))
    off = rng.integers(0, x.size)
    return (np.resize(np.roll(x, off), n).reshape(shape),
            np.resize(np.roll(y, off), n).reshape(shape))


def _leaf(a, need):
    return paddle.to_tensor(a, stop_gradient=not need)


def _run(call, arrays, needs, numpy_path):
    with np.errstate(all="ignore"):
        tensors = [_leaf(a, n) for a, n in zip(arrays, needs)]
        if numpy_path:
            with _numpy_path():
                return call(*tensors)
        return call(*tensors)


def _same_result(got, want, nan_bits):
    same_bits(got._data, want._data, nan_bits)
    assert (got._node is None) == (want._node is None)
    if want._node is None:
        return
    g, w = got._node, want._node
    assert g.op is w.op and g.needs == w.needs and len(g.inputs) == len(w.inputs)
    assert g.attrs.keys() == w.attrs.keys()
    for key in w.attrs:
        if isinstance(w.attrs[key], np.ndarray):
            same_bits(g.attrs[key], w.attrs[key], True)
        else:
            assert repr(g.attrs[key]) == repr(w.attrs[key])        # (nan too)
    assert len(g.saved) == len(w.saved)
    for a, b in zip(g.saved, w.saved):
        assert (a is None) == (b is None)
        if b is not None:
            same_bits(a, b, nan_bits)


def _where(x, y):
    """where with a condition of x's shape (every third element true)."""
    cond = (np.arange(int(np.prod(x.shape))) % 3 == 0).reshape(x.shape)
    return paddle.where(paddle.to_tensor(cond), x, y)


BINARY = {
    "where": (_where, True),
    "maximum": (paddle.maximum, True),
    "minimum": (paddle.minimum, True),
    "fmax": (paddle.fmax, True),
    "fmin": (paddle.fmin, True),
    "logaddexp": (paddle.logaddexp, False),
    "pow": (paddle.pow, False),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_compiled_path_gives_the_numpy_paths_bits(name, shape, dtype):
    call, nan_bits = BINARY[name]
    for seed in (0, 1):
        x, y = _pairs(shape, dtype, seed)
        if name == "pow" and seed:
            x = np.abs(x)                           # (positive bases: no nan from them)
        for needs in NEEDS:
            got = _run(call, (x, y), needs, False)
            want = _run(call, (x, y), needs, True)
            _same_result(got, want, nan_bits)
            with paddle.no_grad():
                same_bits(_run(call, (x, y), needs, False)._data, want._data, nan_bits)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [3.0, 2.0, 0.5, -1.0, -2.0, 1.5, -0.5, 4.0, 7.0, 0.25, 1 / 3,
                               -3.0, 2.5, 0.0, 1.0, 2.0 ** 60, 1e39, np.nan, np.inf])
def test_pow_scalar_compiled_path_gives_the_numpy_paths_bits(p, dtype):
    for shape in SHAPES:
        for seed in (0, 1):
            x, _ = _pairs(shape, dtype, seed)
            for pp in (p, int(p)) if float(p).is_integer() and abs(p) < 100 else (p,):
                def power(t, pp=pp):
                    return t ** pp
                got = _run(power, (x,), (True,), False)
                want = _run(power, (x,), (True,), True)
                _same_result(got, want, False)
                with paddle.no_grad():
                    same_bits(_run(power, (x,), (True,), False)._data, want._data, False)


def _svml_squares(dtype, count=64):
    """Values whose np.power(x, 2) along a strided exponent (no fast path) is not x * x:
    where np.power's fast path for a zero-stride exponent 2 changes the value."""
    rng = np.random.default_rng(3)
    x = (np.abs(rng.standard_normal(1 << 18)) * 3).astype(dtype)
    with np.errstate(all="ignore"):
        diff = x[np.power(x, np.full_like(x, 2)) != x * x]
    return diff[:count] if diff.size else x[:count]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (64,), (8, 8)])
def test_pow_exponents_of_numpys_fast_paths(shape, dtype):
    """Exponents 2, 0.5, -1, 1 (and y - 1 of them) at sizes 1 and more: np.power's zero-
    stride fast paths (a 0-d or one-element exponent) must be taken as the numpy path takes
    them."""
    values = _svml_squares(dtype)
    n = int(np.prod(shape))
    for e in (3.0, 2.0, 1.5, 0.5, -1.0, 1.0, 0.0, 2.5):
        for i in range(0, values.size, max(n, 1)):
            x = np.resize(values[i:i + max(n, 1)], n).reshape(shape).astype(dtype)
            y = np.full(shape, e, dtype)
            for needs in NEEDS[:3]:
                _same_result(_run(paddle.pow, (x, y), needs, False),
                             _run(paddle.pow, (x, y), needs, True), False)
            def power(t, e=e):
                return t ** e
            _same_result(_run(power, (x,), (True,), False),
                         _run(power, (x,), (True,), True), False)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_other_layouts_broadcasting_and_mixed_dtypes(name):
    call, nan_bits = BINARY[name]
    x, y = _pairs((6, 40), np.float32)
    cases = [(np.asfortranarray(x), y), (x[:, ::2], y[:, 1::2]), (x[::-1], np.asfortranarray(y)),
             (x, y[:1]), (x[:, :1], y), (x[0], y), (x, y[0, 0]),
             (x.astype(np.float64), y), (x, y.astype(np.float64))]
    for a, b in cases:
        for needs in NEEDS[:3]:
            got = _run(call, (a, b), needs, False)
            want = _run(call, (a, b), needs, True)
            _same_result(got, want, nan_bits)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_one_tensor_as_both_inputs(name):
    call, nan_bits = BINARY[name]
    x, _ = _pairs((5, 9), np.float32)
    with np.errstate(all="ignore"):
        t = _leaf(x, True)
        got = call(t, t)
        with _numpy_path():
            want = call(t, t)
    _same_result(got, want, nan_bits)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_gradients_agree_with_the_numpy_path_and_finite_differences(name):
    call, _ = BINARY[name]
    x, y = _pairs((5, 9), np.float64, 2)
    x = np.where(np.isfinite(x), x, 0.25)
    y = np.where(np.isfinite(y), y, -0.75)
    if name == "pow":
        x = np.abs(x) + 0.5
    grads = []
    for numpy_path in (False, True):
        a, b = _leaf(x, True), _leaf(y, True)
        ctx = _numpy_path() if numpy_path else contextlib.nullcontext()
        with ctx, np.errstate(all="ignore"):
            (call(a, b) * paddle.to_tensor(np.linspace(-1, 2, 45).reshape(5, 9))).sum() \
                .backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for g, w in zip(*grads):
        same_bits(g, w, False)
    rng = np.random.default_rng(0)
    u, v = rng.uniform(0.5, 2.0, (2, 3, 4))
    check_grads(call, u, v + 0.05)
    check_grads(lambda t: t ** 3, u - 1.0)
    check_grads(lambda t: t ** 2.5, u)


def test_the_kernels_run_and_record_the_numpy_paths_nodes():
    """The compiled paths are taken (not the numpy one) for same-shape float inputs."""
    x, y = _pairs((4, 8), np.float32)
    a, b = _leaf(x, True), _leaf(np.abs(y) + 1, True)
    calls = []
    real = core._KERNELS["forward_binary"]

    class Spy:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(real, name)
    core._KERNELS["forward_binary"] = Spy()
    try:
        with np.errstate(all="ignore"):
            names = [paddle.maximum(a, b)._node.op.name, paddle.minimum(a, b)._node.op.name,
                     paddle.fmax(a, b)._node.op.name, paddle.fmin(a, b)._node.op.name,
                     paddle.logaddexp(a, b)._node.op.name, paddle.pow(b, a)._node.op.name,
                     (a ** 3)._node.op.name, (a ** 2.5)._node.op.name]
    finally:
        core._KERNELS["forward_binary"] = real
    assert names == ["maximum", "minimum", "where", "where", "logaddexp", "pow", "pow_scalar",
                     "pow_scalar"]
    assert {"maximum", "minimum", "fmax", "logaddexp_slopes", "pow_slopes",
            "pow_scalar", "pow_scalar_cube32" if a.dtype == paddle.float32
            else "pow_scalar_cube"} <= set(calls)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cube_calls_numpys_power_once_with_the_numpy_paths_bits(dtype, monkeypatch):
    """x ** 3 needing a gradient: numpy's power for the output only; the factor 3 x^2 is the
    square of numpy's |x| (np.power(|x|, 2) is numpy's square), NaN signs included (LLVM
    would fold |x| |x| into x x, which keeps -nan's sign)."""
    x, _ = _pairs((33, 65), dtype)
    x = np.concatenate([x.ravel(), _svml_squares(dtype), -_svml_squares(dtype)])
    want = _run(lambda t: t ** 3, (x,), (True,), True)
    from jitgrad.ops import elementwise
    elementwise._power_two_is_square(np.dtype(dtype))      # (its one check: np.power once)
    powers = []
    real = np.power
    monkeypatch.setattr(np, "power", lambda *a, **k: powers.append(a[1]) or real(*a, **k))
    got = _run(lambda t: t ** 3, (x,), (True,), False)
    monkeypatch.undo()
    assert powers == ([] if np.dtype(dtype) == np.float32 else [3])    # (cube32: none)
    _same_result(got, want, True)


def _nearest_cube32(v):
    """The float32 nearest v ** 3 (v a float32), from the exact cube."""
    from fractions import Fraction
    from jitgrad.ops.elementwise import _nearest_float32
    if not np.isfinite(v):
        return np.copysign(np.abs(v), v)                # (inf, nan: themselves, x's sign)
    return np.copysign(_nearest_float32(Fraction(float(abs(v))) ** 3), v)


def test_float32_cube_is_correctly_rounded_on_both_paths():
    """float32 x ** 3 is the float32 nearest the exact cube (numpy's SVML power is 1 ulp
    off for ~20% of inputs): the compiled kernel, the numpy path and without a gradient
    alike, tiny (subnormal) cubes, overflow, NaN signs and signed zeros included."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-2, 2, 3000), rng.standard_normal(200) * 1e-13,
                        rng.standard_normal(50) * 1e-15, [6.98e12, -6.98e12, 7e12, 1e20, 3,
                        -1.5, 0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf]]).astype(np.float32)
    want = np.array([_nearest_cube32(v) for v in x], np.float32)
    assert (np.power(np.abs(x[:3000]), np.float32(3)) != np.abs(want[:3000])).any()  # (SVML)
    for numpy_path in (False, True):
        got = _run(lambda t: t ** 3, (x,), (True,), numpy_path)
        same_bits(got._data, want, True)
        np.testing.assert_array_equal(got._node.saved[0], 3 * (np.abs(x) * np.abs(x)))
    same_bits(paddle.to_tensor(x).pow(3)._data, want, True)


def test_round_cube_takes_the_side_of_the_error_at_a_float32_tie():
    """A float64 cube exactly halfway between two float32 rounds toward its error's side
    (float32() alone would round it to the even one), also at the tie with inf."""
    from jitgrad.vm import forward_binary as fb
    tie = 1.5 + 2.0 ** -24                                  # between 1.5 and 1.5 + 2^-23
    assert fb.round_cube(tie, 1e-30) == np.float32(1.5 + 2.0 ** -23)
    assert fb.round_cube(tie, -1e-30) == np.float32(1.5)
    assert fb.round_cube(tie, 0.0) == np.float32(1.5)      # (an exact tie: to even)
    top = 2.0 ** 128 - 2.0 ** 103                           # FLT_MAX + half its ulp
    assert fb.round_cube(top, -1.0) == np.finfo(np.float32).max
    assert fb.round_cube(top, 1.0) == np.inf
    assert fb.round_cube(1.25, 1e-30) == np.float32(1.25)  # (a float32: no tie)


def test_cube_takes_two_powers_where_numpy_has_no_square_fast_path(monkeypatch):
    """Where np.power(x, 2) were not x * x (a numpy without that fast path), x ** 3 keeps
    numpy's second power call for its factor."""
    from jitgrad.ops import elementwise
    monkeypatch.setitem(elementwise._SQUARES, np.dtype(np.float32), False)
    x = _svml_squares(np.float32)
    want = _run(lambda t: t ** 3, (x,), (True,), True)
    got = _run(lambda t: t ** 3, (x,), (True,), False)
    _same_result(got, want, True)
    monkeypatch.undo()
    assert elementwise._power_two_is_square(np.dtype(np.float32))
    assert elementwise._power_two_is_square(np.dtype(np.float64))


@pytest.mark.parametrize("compiled", [True, False])
def test_fmax_and_fmin_of_0d_tensors_are_0d(compiled, monkeypatch):
    """Paddle 3.3.1: paddle.fmax(0-d, 0-d).shape == [] (the numpy path made [1] before)."""
    from jitgrad.ops import numeric
    if not compiled:
        monkeypatch.setattr(numeric, "compiled_input", lambda *a: None)
    a = paddle.to_tensor(1.0, stop_gradient=False)
    b = paddle.to_tensor(float("nan"), stop_gradient=False)
    for f in (paddle.fmax, paddle.fmin):
        out = f(a, b)
        assert out.shape == [] and out.item() == 1.0
        out.backward()
    assert a.grad.item() == 2.0 and b.grad.item() == 0.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs, ws", [((8, 8, 16, 16), (8, 1, 1)), ((4, 3, 400), (3, 1)),
                                    ((2, 5, 7, 9, 11), (5, 1, 1, 1))])
def test_per_channel_scale_kernel_gives_numpys_product(xs, ws, dtype):
    """x (N, C, ...) * w (C, 1, ...), the per-channel scale of a batch: vm/forward.py's
    mul_channels (numpy's values bit for bit, specials included) once Numba is loaded."""
    from jitgrad.ops import elementwise
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    x.reshape(-1)[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    w.reshape(-1)[0] = -0.0
    assert elementwise._mul_channels(x, w) is not None
    with np.errstate(all="ignore"):
        got = paddle.to_tensor(x, stop_gradient=False) * paddle.to_tensor(w)
        want = x * w
    np.testing.assert_array_equal(got.numpy(), want)
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want))


ROW_PAIRS = [((32, 64), (64,)), ((32, 64), (1, 64)), ((8, 8, 16, 16), (16, 16)),
             ((2, 3, 5), (1, 1, 5)), ((4, 7), (7,)), ((3, 1), (1,)), ((2, 0), (0,)),
             ((5, 3), (5, 1)), ((3, 4), (2, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, fn", [("add", np.add), ("subtract", np.subtract),
                                      ("multiply", np.multiply), ("divide", np.divide)])
@pytest.mark.parametrize("big, small", ROW_PAIRS)
def test_row_broadcast_gives_numpys_values_both_ways(big, small, name, fn, dtype):
    """x op row and row op x (a bias, a per-feature scale): vm/forward.row_op where one
    shape is a trailing part of the other, numpy where not ((5, 1), or shapes that do not
    fit: numpy's own error), bit for bit with specials, and the gradients as numpy's."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal(big).astype(dtype)
    r = rng.uniform(0.5, 2.0, small).astype(dtype)
    x.reshape(-1)[:len(SPECIAL[:x.size])] = SPECIAL[:x.size]
    r.reshape(-1)[:3] = [-0.0, np.inf, np.nan][:r.size]
    op = getattr(paddle, name)
    for a, b in ((x, r), (r, x)):
        with np.errstate(all="ignore"):
            try:
                want = fn(a, b)
            except ValueError as e:
                with pytest.raises(ValueError, match="broadcast"):
                    op(paddle.to_tensor(a), paddle.to_tensor(b))
                assert "broadcast" in str(e)
                continue
            ta = paddle.to_tensor(a, stop_gradient=False)
            tb = paddle.to_tensor(b, stop_gradient=False)
            got = op(ta, tb)
        same_bits(got.numpy(), want)
        if a.size and b.size:               # gradients on values away from the specials
            check_grads(op, rng.uniform(0.5, 2.0, a.shape), rng.uniform(0.5, 2.0, b.shape))


def test_row_broadcast_takes_the_kernel_only_where_it_applies(monkeypatch):
    from jitgrad.vm import forward
    calls = []
    kernel = forward.row_op
    monkeypatch.setattr(forward, "row_op", lambda *a: calls.append(a[3]) or kernel(*a))
    f32 = np.ones((4, 6), np.float32)
    row = np.full(6, 2.0, np.float32)
    t, r = paddle.to_tensor(f32), paddle.to_tensor(row)
    assert (t - r).numpy().tolist() == [[-1.0] * 6] * 4
    assert (r / t).numpy().tolist() == [[2.0] * 6] * 4
    assert calls == [1, 5]
    paddle.to_tensor(f32.astype(np.float16)) * paddle.to_tensor(row.astype(np.float16))
    paddle.to_tensor(f32.astype(np.int32)) + paddle.to_tensor(row.astype(np.int32))
    t * paddle.to_tensor(np.float32(3.0))                    # a 0-d operand: numpy
    t + t                                                    # one shape: numpy
    assert calls == [1, 5]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_where_with_a_0d_operand_gives_the_numpy_paths_bits(shape, dtype):
    """masked_fill's case: a 0-d value on one side, the condition's shape on the other."""
    x, y = _pairs(shape, dtype)
    for scalar in (np.asarray(x.reshape(-1)[0] if x.size else 1.5, dtype),
                   np.asarray(np.nan, dtype)):
        for a, b in ((scalar, y), (x, scalar)):
            for needs in NEEDS:
                got = _run(_where_like(shape), (a, b), needs, False)
                want = _run(_where_like(shape), (a, b), needs, True)
                _same_result(got, want, True)


def _where_like(shape):
    cond = (np.arange(int(np.prod(shape))) % 3 == 0).reshape(shape)
    return lambda a, b: paddle.where(paddle.to_tensor(cond), a, b)


def test_masked_fill_takes_the_compiled_where(monkeypatch):
    from jitgrad.vm import forward_binary
    calls = []
    kernel = forward_binary.where_pick
    monkeypatch.setattr(forward_binary, "where_pick", lambda *a: calls.append(1) or kernel(*a))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = paddle.to_tensor(x, stop_gradient=False)
    out = paddle.masked_fill(t, paddle.to_tensor(x > 2), -1.0)
    assert calls == [1]
    np.testing.assert_array_equal(out.numpy(), np.where(x > 2, -1.0, x))
    out.sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), (x <= 2).astype(np.float32))


def test_where_with_a_strided_or_broadcast_condition_gives_numpys_values():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 4, 6))
    for cond in (rng.random((2, 6, 4)).transpose(0, 2, 1) > 0.5, rng.random(6) > 0.5):
        tx = paddle.to_tensor(x, stop_gradient=False)
        ty = paddle.to_tensor(y, stop_gradient=False)
        out = paddle.where(paddle.to_tensor(cond), tx, ty)
        np.testing.assert_array_equal(out.numpy(), np.where(cond, x, y))
        out.sum().backward()
        full = np.broadcast_to(cond, x.shape)
        np.testing.assert_array_equal(tx.grad.numpy(), full.astype(np.float64))
        np.testing.assert_array_equal(ty.grad.numpy(), (~full).astype(np.float64))


BROADCAST_PAIRS = [((64, 1, 2), (1, 64, 2)), ((16, 1, 3), (1, 16, 3)), ((40, 1), (1, 40)),
                   ((2, 9, 1, 4), (2, 1, 9, 4)), ((9, 1, 1), (1, 7, 3)), ((5, 30), (5, 1)),
                   ((1, 30), (5, 1, 1)), ((3, 1, 5, 1, 2), (1, 4, 1, 6, 2)), ((3, 50), (50,))]
BROADCAST_OPS = {"add": paddle.add, "subtract": paddle.subtract, "multiply": paddle.multiply,
                 "divide": paddle.divide, "maximum": paddle.maximum,
                 "minimum": paddle.minimum}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BROADCAST_OPS))
@pytest.mark.parametrize("xs, ys", BROADCAST_PAIRS)
def test_broadcast_kernels_give_the_numpy_paths_bits(xs, ys, name, dtype):
    """Two shapes that broadcast ((N, 1, D) against (1, N, D) ...): vm/forward_binary.py's
    broadcast_op and broadcast_minmax give numpy's output and the numpy path's saved tie
    weights bit for bit, specials, ties and division by zero included, either order."""
    call = BROADCAST_OPS[name]
    x = _pairs(xs, dtype, 0)[0]
    y = _pairs(ys, dtype, 1)[1]
    y.reshape(-1)[:3] = x.reshape(-1)[:3]           # (ties)
    for a, b in ((x, y), (y, x)):
        for needs in NEEDS:
            got = _run(call, (a, b), needs, False)
            want = _run(call, (a, b), needs, True)
            _same_result(got, want, True)


def test_broadcast_plan_collapses_axes_and_declines_what_it_cannot_take():
    from jitgrad.ops.elementwise import _broadcast_plan
    shape, grid = _broadcast_plan((64, 1, 2), (1, 64, 2))
    assert shape == (64, 64, 2)
    assert grid.tolist() == [1, 64, 64, 2, 0, 2, 0, 1, 0, 0, 2, 1]
    # (B, N, 1, D) * (B, 1, N, D): B's axis stays apart (y steps over it, not over N)
    assert _broadcast_plan((8, 32, 1, 4), (8, 1, 32, 4))[1].tolist() == \
        [8, 32, 32, 4, 128, 4, 0, 1, 128, 0, 4, 1]
    # axes of size 1 dropped, axes stepping together merged: (2, 30, 4) + (4,) is (60, 4)
    assert _broadcast_plan((2, 1, 30, 4), (4,))[1].tolist() == [1, 1, 60, 4, 0, 0, 4, 1,
                                                               0, 0, 0, 1]
    assert _broadcast_plan((3, 4), (5, 4)) is None                  # numpy's error
    assert _broadcast_plan((8, 1), (1, 8)) is None                  # small: numpy
    assert _broadcast_plan((2, 1, 2, 1, 2, 1, 2), (1, 2, 1, 2, 1, 2, 1)) is None


def test_broadcast_kernel_is_taken_and_its_gradients_are_the_numpy_paths(monkeypatch):
    from jitgrad.vm import forward_binary
    calls = []
    for name in ("broadcast_op", "broadcast_minmax"):
        kernel = getattr(forward_binary, name)
        monkeypatch.setattr(forward_binary, name,
                            lambda *a, kernel=kernel, name=name: calls.append(name) or
                            kernel(*a))
    rng = np.random.default_rng(4)
    x, y = rng.uniform(0.5, 2.0, (2, 12, 3)), rng.uniform(0.5, 2.0, (2, 12, 3))
    c = paddle.to_tensor(rng.standard_normal((12, 12, 3)))
    for call in BROADCAST_OPS.values():
        grads = []
        for numpy_path in (False, True):
            a, b = _leaf(x[0], True), _leaf(y[1], True)
            with _numpy_path() if numpy_path else contextlib.nullcontext():
                (call(a[:, None, :], b[None, :, :]) * c).sum().backward()
            grads.append((a.grad.numpy(), b.grad.numpy()))
        for g, w in zip(*grads):
            same_bits(g, w, False)
    assert calls == ["broadcast_op"] * 4 + ["broadcast_minmax"] * 2
    check_grads(lambda a, b: paddle.divide(a[:, None, :], b[None, :, :]), x[0][:6], y[1][:6])
