"""The eager forward's shortcuts (perf issue 5, W5a) keep the general path's results and errors."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import tape

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


@pytest.mark.parametrize("name", ["tanh", "exp", "log", "sqrt", "sin", "cos", "sigmoid"])
def test_float_only_unary_ops_reject_int_tensors(name):
    with pytest.raises(TypeError, match=rf"{name} expects a float tensor, got int64"):
        getattr(paddle, name)(TT([1, 2]))


def test_int_tensors_still_work_where_they_did():
    n = TT(np.array([-2, 3], np.int64))
    np.testing.assert_array_equal(paddle.neg(n).numpy(), [2, -3])
    np.testing.assert_array_equal(paddle.abs(n).numpy(), [2, 3])
    np.testing.assert_array_equal(paddle.relu(n).numpy(), [0, 3])
    assert paddle.sum(TT(np.array([True, True, False]))).numpy().dtype == np.int64


def test_node_versions_and_site_for_one_two_and_three_inputs():
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


def test_call_sites_of_public_ops_composites_and_direct_apply_point_here():
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
            a, b = got._node.inputs
            const, var = (b, a) if first is t else (a, b)
            assert var is t and const._data.shape == () and const._data.dtype == dtype
            assert const.stop_gradient and const._data == dtype(v)


def test_scalars_the_shortcut_leaves_to_paddles_promotion():
    n = TT(np.array([1, 2], np.int64))
    assert (n * 2).dtype == paddle.int64 and (n * 2.5).dtype == paddle.float32
    assert (n / 2).dtype == paddle.float32
    t = TT(np.ones(2, np.float32))
    assert (t * np.float64(2.0)).dtype == paddle.float32     # a numpy scalar: general path
    assert (t * True).dtype == paddle.float32
    with pytest.raises(TypeError, match="unsupported operand"):
        t * "2"
