"""The eager forward's shortcuts (perf issue 5, W5a) keep the general path's results and errors."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import tape

TT = paddle.to_tensor


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (5,), (3, 7), (2, 3, 4), (1, 1000)])
def test_sum_and_mean_forwards_equal_numpys_bit_for_bit(dtype, shape):
    x = (np.random.default_rng(1).standard_normal(shape) * 10).astype(dtype)
    axes = [None] + list(range(len(shape))) + ([[0, len(shape) - 1]] if len(shape) > 1 else [])
    for axis in axes:
        for keepdim in (False, True):
            np_axis = None if axis is None or not shape else tuple(np.atleast_1d(axis))
            got = paddle.sum(TT(x), axis=axis, keepdim=keepdim).numpy()
            want = np.asarray(np.sum(x, axis=np_axis, keepdims=keepdim))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            got = paddle.mean(TT(x), axis=axis, keepdim=keepdim).numpy()
            want = np.asarray(np.mean(x, axis=np_axis, keepdims=keepdim).astype(dtype))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_mean_of_float16_big_endian_and_empty_tensors_keep_numpys_rules():
    h = np.arange(6, dtype=np.float16).reshape(2, 3)
    got = paddle.mean(TT(h), axis=1).numpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.mean(h, axis=1).astype(np.float16))
    big = np.arange(6, dtype=">f4").reshape(2, 3) / 7        # not native: numpy's own path
    for axis in (None, 1):
        got = paddle.mean(TT(big), axis=axis).numpy()
        want = np.asarray(np.mean(big, axis=axis).astype(big.dtype))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.warns(RuntimeWarning, match="empty"):
        assert np.isnan(paddle.mean(TT(np.zeros((0,), np.float32))).item())


@pytest.mark.parametrize("name", ["tanh", "exp", "log", "sqrt", "sin", "cos", "sigmoid",
                                  "relu", "neg", "abs", "square", "sum", "mean"])
def test_unwrapped_public_ops_name_a_non_tensor_argument(name):
    fn = getattr(paddle, name)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'x' must be a Tensor, got "
                                        r"list of float; convert data with paddle.to_tensor"):
        fn([1.0, 2.0])
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'x' must be a Tensor, got "
                                        r"ndarray"):
        fn(np.ones(2, np.float32))


@pytest.mark.parametrize("name", ["tanh", "exp", "log", "sqrt", "sin", "cos", "sigmoid",
                                  "expm1", "log1p", "log2", "log10", "rsqrt", "reciprocal",
                                  "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh",
                                  "acosh", "atanh", "erf", "logit", "logsumexp"])
def test_float_math_on_int_and_bool_tensors_computes_in_float32(name):
    # Paddle 3.3.1 autocasts (with a warning); was TypeError here
    for values in ([1, 2], [True, False]):
        got = getattr(paddle, name)(TT(values))
        want = getattr(paddle, name)(TT(np.array(values, np.float32)))
        assert got.dtype == paddle.float32 and got.stop_gradient
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_int_tensors_still_work_where_they_did():
    n = TT(np.array([-2, 3], np.int64))
    np.testing.assert_array_equal(paddle.neg(n).numpy(), [2, -3])
    np.testing.assert_array_equal(paddle.abs(n).numpy(), [2, 3])
    np.testing.assert_array_equal(paddle.relu(n).numpy(), [0, 3])
    assert paddle.sum(TT(np.array([True, True, False]))).numpy().dtype == np.int64


def test_node_versions_and_site_for_one_two_and_three_inputs(call_sites):
    x = TT(np.ones(3, np.float32), stop_gradient=False)
    y = TT(np.ones(3, np.float32), stop_gradient=False)
    z = TT(np.ones((2, 3), np.float32), stop_gradient=False)
    with paddle.no_grad():
        x.add_(y)                                   # x at version 1
    here = __file__
    a = paddle.tanh(x)
    b = x * y
    c = paddle.concat([x[None], y[None], z])
    assert a._node.versions == (1, 0)
    assert b._node.versions == (1, 0, 0)
    nodes = {n.op.name: n for n in tape.reachable_nodes([c])}
    cat = [n for n in nodes.values() if len(n.inputs) == 3]
    assert cat and cat[0].versions == (0, 0, 0, 0)
    for t in (a, b, c):
        assert tape.site_line(t._node.site)[0] == here


def _line_of(marker):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line and "_line_of" not in line)


def test_call_sites_of_public_ops_composites_and_direct_apply_point_here(call_sites):
    from jitgrad.ops.core import apply
    from jitgrad.ops.elementwise import exp_op
    import jitgrad.nn.functional as F
    x = TT(np.ones((1, 3), np.float32), stop_gradient=False)
    w = TT(np.ones((3, 2), np.float32), stop_gradient=False)
    ys = [paddle.tanh(x), x + x, x - 1.0, paddle.matmul(x, w), x @ w, -x,          # SITE_A
          paddle.sum(x), paddle.mean(x), paddle.sum(x, axis=1), F.relu6(x)]      # SITE_B
    lin = F.linear(x, w, TT(np.ones(2, np.float32), stop_gradient=False))       # SITE_C
    direct = apply(exp_op, x)                                                    # SITE_D
    for y, marker in [(y, "# SITE_A") for y in ys[:6]] + [(y, "# SITE_B") for y in ys[6:]] + \
            [(lin, "# SITE_C"), (direct, "# SITE_D")]:
        assert tape.site_line(y._node.site)[:2] == (__file__, _line_of(marker)), marker
    for node in tape.reachable_nodes([lin]):                    # linear's matmul and add
        assert tape.site_line(node.site)[:2] == (__file__, _line_of("# SITE_C"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_tensor_scalar_shortcut_keeps_the_tensors_dtype_and_the_operand_order(dtype):
    t = TT(np.array([1.5, -2.0, 4.0], dtype), stop_gradient=False)
    for v in (2.0, 3, -1, 0.1):
        for got, want, first in [(t * v, t._data * dtype(v), t), (v - t, dtype(v) - t._data, None),
                                 (t / v, t._data / dtype(v), t), (v + t, dtype(v) + t._data, None)]:
            assert got.dtype == t.dtype
            np.testing.assert_array_equal(got.numpy(), want)
            node = got._node
            if dtype is np.float16 and node.op.name == "cast":
                # (computed in float32 and rounded once: cast -> op -> cast, ops/core.in_float32)
                node = node.inputs[0]._node
            a, b = node.inputs
            if dtype is np.float16 and node.op.compute16:       # (multiply, divide)
                a, b = [u._node.inputs[0] if u._node is not None else u for u in (a, b)]
                dtype_c = np.float32
            else:
                dtype_c = dtype
            const, var = (b, a) if first is t else (a, b)
            assert var is t and const._data.shape == () and const._data.dtype == dtype_c
            assert const.stop_gradient and const._data == dtype(v)


def test_scalars_the_shortcut_leaves_to_paddles_promotion():
    n = TT(np.array([1, 2], np.int64))
    assert (n * 2).dtype == paddle.int64 and (n * 2.5).dtype == paddle.float32
    assert (n / 2).dtype == paddle.float32
    t = TT(np.ones(2, np.float32))
    assert (t * np.float64(2.0)).dtype == paddle.float32     # a numpy scalar: general path
    assert (t * True).dtype == paddle.float32
    with pytest.raises(TypeError, match="index"):       # (Python's str repeat by t, as
        t * "2"                                         # Paddle's __mul__ leaves it)
    with pytest.raises(TypeError, match="unsupported operand"):
        t + "2"


def test_apply_xy_records_exactly_when_the_general_apply_does():
    from jitgrad.ops.core import NO_ATTRS
    c = TT(np.ones((2, 3), np.float32))                         # stop_gradient constant
    v = TT(np.ones((2, 3), np.float32), stop_gradient=False)
    assert (c + c)._node is None and paddle.tanh(c)._node is None
    for a, b in ((c, v), (v, c), (v, v)):
        y = a * b
        assert y._node is not None and y._node.inputs == (a, b) and not y.stop_gradient
        assert y._node.attrs == {} and y._node.attrs is NO_ATTRS
        assert y._node.out_ref() is y and y._node.out_data is y._data
    with paddle.no_grad():
        assert (v + v)._node is None and paddle.sum(v)._node is None
    assert NO_ATTRS == {}


def test_apply_xy_versions_when_only_the_second_input_was_written():
    x = TT(np.ones(3, np.float32), stop_gradient=False)
    y = TT(np.ones(3, np.float32), stop_gradient=False)
    with paddle.no_grad():
        y.add_(x)
        y.add_(x)                                    # y at version 2
    assert (x * y)._node.versions == (0, 2, 0)
    assert (y * x)._node.versions == (2, 0, 0)
    assert (x * x)._node.versions == (0, 0, 0) and paddle.exp(x)._node.versions == (0, 0)


def test_shared_attrs_of_matmul_and_full_reductions_are_right_and_unchanged():
    x = TT(np.arange(6, dtype=np.float64).reshape(2, 3), stop_gradient=False)
    w = TT(np.arange(6, dtype=np.float64).reshape(3, 2), stop_gradient=False)
    a, b = paddle.matmul(x, w), x @ w
    assert a._node.attrs == {"transpose_x": False, "transpose_y": False}
    assert a._node.attrs is b._node.attrs                       # one shared dict
    t = paddle.matmul(x, x, transpose_y=True)
    assert t._node.attrs == {"transpose_x": False, "transpose_y": True}
    np.testing.assert_allclose(t.numpy(), x._data @ x._data.T)
    s, m = paddle.sum(x), paddle.mean(x)
    assert s._node.attrs == m._node.attrs == {"axes": None, "keepdim": False}
    assert paddle.sum(x, axis=1)._node.attrs == {"axes": (1,), "keepdim": False}
    (paddle.sum(t) + s + m + paddle.sum(a)).backward()
    # d/dx [sum(x x^T) + sum(x) + mean(x) + sum(x w)]: 2 * colsum broadcast + 1 + 1/6 + w row sums
    want = 2 * np.broadcast_to(x._data.sum(0), (2, 3)) + 1 + 1 / 6 + w._data.sum(1)
    np.testing.assert_allclose(x.grad.numpy(), want)
    assert a._node.attrs == {"transpose_x": False, "transpose_y": False}     # not written


def _helper_tanh(x):
    return paddle.tanh(x)                                                        # SITE_H


def test_call_sites_stay_right_when_the_recording_function_changes(call_sites):
    # new_node and apply_xy remember the last user function seen: alternating callers,
    # and composites (whose inner ops walk out of jitgrad) in between, keep their own sites.
    import jitgrad.nn.functional as F
    x = TT(np.ones((1, 3), np.float32), stop_gradient=False)
    for _ in range(2):
        a = paddle.tanh(x)                                                       # SITE_E
        b = _helper_tanh(x)
        c = F.relu6(x)                                                           # SITE_F
        d = paddle.exp(_helper_tanh(x))                                          # SITE_G
        e = paddle.stack([_helper_tanh(x), x])                                   # SITE_I
        for node in tape.reachable_nodes([e]):      # stack's reshape and concat: two
            if node.op.name != "tanh":              # jitgrad frames above apply_xy's caller
                assert tape.site_line(node.site)[:2] == (__file__, _line_of("# SITE_I"))
        assert tape.site_line(a._node.site)[:2] == (__file__, _line_of("# SITE_E"))
        assert tape.site_line(b._node.site)[1:] == (_line_of("# SITE_H"), "_helper_tanh")
        assert tape.site_line(c._node.site)[:2] == (__file__, _line_of("# SITE_F"))
        assert tape.site_line(d._node.site)[:2] == (__file__, _line_of("# SITE_G"))
        assert tape.site_line(d._node.inputs[0]._node.site)[1] == _line_of("# SITE_H")


def test_one_grad_mode_instance_entered_again_while_in_use_restores_each_level():
    ng, eg = paddle.no_grad(), paddle.enable_grad()
    assert paddle.is_grad_enabled()
    with ng:
        with eg:
            assert paddle.is_grad_enabled()
            with ng:                                    # the same instance, nested
                assert not paddle.is_grad_enabled()
                with eg:
                    assert paddle.is_grad_enabled()
                assert not paddle.is_grad_enabled()
            assert paddle.is_grad_enabled()
        assert not paddle.is_grad_enabled()
    assert paddle.is_grad_enabled()

    @paddle.no_grad()
    def depth(n):                                       # one instance, entered n deep
        assert not paddle.is_grad_enabled()
        return 0 if n == 0 else 1 + depth(n - 1)
    assert depth(4) == 4 and paddle.is_grad_enabled()
    with pytest.raises(ZeroDivisionError):
        with ng:
            1 / 0
    assert paddle.is_grad_enabled()
    with pytest.raises(TypeError, match=r"no_grad takes no arguments: write @no_grad\(\)"):
        paddle.no_grad(depth)


def test_method_forms_become_methods_with_the_functions_results_and_errors(call_sites):
    x = TT(np.array([[0.5, -1.0, 2.0]], np.float32), stop_gradient=False)
    a = x.sum()                                                                  # SITE_M
    assert paddle.Tensor.__dict__.get("sum") is paddle.ops.METHODS["sum"]       # bound now
    b = x.sum(axis=1, keepdim=True)
    c = x.tanh()
    np.testing.assert_array_equal(a.numpy(), paddle.sum(x).numpy())
    np.testing.assert_array_equal(b.numpy(), paddle.sum(x, axis=1, keepdim=True).numpy())
    np.testing.assert_array_equal(c.numpy(), np.tanh(x._data))
    assert tape.site_line(a._node.site)[:2] == (__file__, _line_of("# SITE_M"))
    (a + c.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 + (1 - np.tanh(x._data) ** 2), rtol=1e-6)
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_op'"):
        x.no_such_op()
    with pytest.raises(AttributeError):
        x._shadows                       # an unset slot is not mistaken for a method
    assert isinstance(paddle.Tensor.__dict__["shape"], property)
    assert x.shape == [1, 3] and x.size == 3 and x.ndim == 2          # not replaced


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reflected_operators_give_the_functions_results_gradients_and_errors(dtype):
    t = TT(np.array([1.5, -2.0, 4.0], dtype), stop_gradient=False)
    arr = np.array([2.0, 3.0, 5.0], dtype)
    for got, want in [(1 - t, 1 - t._data), (2.5 / t, dtype(2.5) / t._data), (3 * t, 3 * t._data),
                      (1 + t, 1 + t._data), (arr - t, arr - t._data), (arr / t, arr / t._data),
                      (np.float32(2) * t, np.float32(2) * t._data)]:
        np.testing.assert_array_equal(got.numpy(), want.astype(got._data.dtype))
        assert got._node is not None
    n = TT(np.array([1, 2], np.int64))
    assert (3 - n).dtype == paddle.int64 and (3 / n).dtype == paddle.float32
    np.testing.assert_allclose((3 / n).numpy(), [3.0, 1.5])
    (1 - t * t).sum().backward()                   # d/dt (1 - t^2) = -2t
    np.testing.assert_allclose(t.grad.numpy(), -2 * t._data)
    t.clear_grad()
    (2.0 / t).sum().backward()                      # -2 / t^2
    np.testing.assert_allclose(t.grad.numpy(), -2 / t._data ** 2, rtol=1e-6)
    with pytest.raises(TypeError, match="unsupported operand"):
        "2" - t


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_of_two_float_matrices_equals_numpys_matmul_bit_for_bit(dtype):
    # matmul's shortcut for two float matrices (ndarray.dot): the same BLAS call as np.matmul
    # (with MKL bound, large products call MKL instead: equal to its result, close to numpy's)
    from jitgrad.ops.linalg import _forward
    from jitgrad.vm import blas_lib
    rng = np.random.default_rng(3)
    for m, k, n in [(1, 16, 32), (1, 32, 1), (3, 5, 7), (16, 64, 1), (33, 257, 65), (64, 31, 128),
                    (0, 3, 2), (2, 0, 3), (1, 1, 1)]:
        a = (rng.standard_normal((m, k)) * 3).astype(dtype)
        b = (rng.standard_normal((k, n)) * 3).astype(dtype)
        x, y = TT(a, stop_gradient=False), TT(b)
        want = np.matmul(x._data, y._data)
        by_mkl = blas_lib.forward_matmul(a, b)
        if by_mkl is not None:
            np.testing.assert_allclose(by_mkl, want, rtol=1e-4, atol=1e-3)
            want = by_mkl
        for got in (paddle.matmul(x, y), x @ y):
            assert got.dtype == x.dtype and got._data.shape == want.shape
            np.testing.assert_array_equal(got.numpy(), want)
        # (a layout changes BLAS's kernel, so each is compared with np.matmul of the same)
        for A, B in [(np.asfortranarray(a), b), (a, np.asfortranarray(b))]:
            np.testing.assert_array_equal(_forward(A, B, False, False), np.matmul(A, B))
        at = np.ascontiguousarray(a.T)
        np.testing.assert_array_equal(_forward(a, at, False, False), np.matmul(a, at))
        for view in (np.repeat(a, 2, axis=1)[:, ::2], a.T.T, a[:, :]):   # views: np.matmul
            np.testing.assert_array_equal(_forward(view, b, False, False), np.matmul(view, b))
            vt = paddle.transpose(TT(view.T.copy(), stop_gradient=False), [1, 0])
            got = paddle.matmul(vt, TT(b))
            np.testing.assert_array_equal(got.numpy(), np.matmul(vt._data, b))
    mixed = paddle.matmul(TT(np.ones((2, 3), np.float32)), TT(np.ones((3, 2), np.float64)))
    assert mixed.dtype == paddle.float64 and np.all(mixed.numpy() == 3)
    with pytest.raises(ValueError, match=r"matmul: shapes .* do not fit \(inner dims 16 and 15"):
        paddle.matmul(TT(np.ones((1, 16), dtype)), TT(np.ones((15, 32), dtype)))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum"])
def test_binary_ops_on_operands_one_dim_apart_match_numpy_and_its_errors(name):
    rng = np.random.default_rng(5)
    fn, npf = getattr(paddle, name), getattr(np, name)
    for xs, ys in [((1, 32), (32,)), ((4, 3), (3,)), ((4, 3), (1,)), ((3,), ()),
                   ((2, 3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((0, 3), (3,)), ((3,), (4, 3))]:
        a = rng.standard_normal(xs).astype(np.float32) + 3
        b = rng.standard_normal(ys).astype(np.float32) + 3
        x, y = TT(a, stop_gradient=False), TT(b, stop_gradient=False)
        out = fn(x, y)
        want = npf(a, b)
        assert out._data.shape == want.shape and out._data.dtype == want.dtype
        np.testing.assert_array_equal(out.numpy(), want)
        assert out._node.inputs == (x, y) and out._node.out_data is out._data
        if a.size and b.size:
            out.sum().backward()
            assert x.grad.shape == list(xs) and y.grad.shape == list(ys)
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with "
                                         r"shapes \(2,3\) \(4,\)"):
        fn(TT(np.ones((2, 3), np.float32)), TT(np.ones(4, np.float32)))


def test_apply_xy_sets_the_fields_tensor_make_and_new_node_set():
    # apply_xy writes Tensor._make and tape.new_node out inline: a field added to either
    # must be added there too, or nodes and outputs recorded through it would lack it.
    from jitgrad.ops.core import apply
    from jitgrad.ops.elementwise import exp_op
    from jitgrad.core.tensor import Tensor

    def fields(obj, slots):
        return {s: getattr(obj, s) for s in slots
                if s not in ("__weakref__", "__dict__") and hasattr(obj, s)}
    x = TT(np.ones(3, np.float32), stop_gradient=False)
    general, fast = apply(exp_op, x), paddle.exp(x)          # new_node + _make / apply_xy
    tf_general, tf_fast = fields(general, Tensor.__slots__), fields(fast, Tensor.__slots__)
    assert tf_general.keys() == tf_fast.keys()
    assert all(tf_general[k] is tf_fast[k] or k in ("_data", "_node") for k in tf_fast)
    nf_general = fields(general._node, tape.Node.__slots__)
    nf_fast = fields(fast._node, tape.Node.__slots__)
    assert nf_general.keys() == nf_fast.keys()
    for k in ("op", "attrs", "saved", "inputs", "versions", "freed", "programs", "epoch"):
        assert nf_general[k] == nf_fast[k], k
    assert nf_fast["seq"] == nf_general["seq"] + 1 and nf_fast["out_ref"]() is fast


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_bias_add_run_compiled_kernels_equal_to_numpys(dtype, monkeypatch):
    from jitgrad import vm
    from jitgrad.vm import forward
    vm.warmup((dtype,), quiet=True)           # Numba loaded: the ops use the kernels
    calls = []
    for name in ("relu", "row_op"):
        kernel = getattr(forward, name)
        monkeypatch.setattr(forward, name, lambda *a, k=kernel, n=name: calls.append(n) or k(*a))
    rng = np.random.default_rng(5)
    for shape in ((300, 256), (2, 3), (1, 1)):
        x = rng.standard_normal(shape).astype(dtype)
        x.reshape(-1)[:5] = [np.nan, -0.0, 0.0, -np.inf, np.inf][:x.size]
        b = rng.standard_normal(shape[1]).astype(dtype)
        got = paddle.nn.functional.relu(TT(x)).numpy()
        assert got.tobytes() == np.maximum(x, 0).tobytes()       # NaN kept, -0.0 -> +0.0
        assert (TT(x) + TT(b)).numpy().tobytes() == (x + b).tobytes()
    assert calls == ["relu", "row_op"] * 3
