"""The compiled forwards of pad over the last two axes (vm/forward_window.py pad_hw) and of
global average pooling (row_means): values bit for bit the numpy paths' (np.pad, reduce.py's
_mean_forward), and the recorded nodes and gradients those of the numpy paths."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import padding, pool
from jitgrad.ops.core import compiled_kernels
from jitgrad.ops.reduce import _mean_forward

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
           "circular": "wrap"}


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Load the backward interpreter (and so Numba): the ops then take the kernels."""
    paddle.warmup(quiet=True)
    yield


def _no_kernels(monkeypatch):
    for m in (padding, pool):
        monkeypatch.setattr(m, "compiled_kernels", lambda module: None)


PADS = [((8, 8, 16, 16), [1, 1, 2, 2], "NCHW"), ((2, 3, 5, 4), [0, 2, 1, 0], "NCHW"),
        ((3, 7), [2, 1], "NCHW"), ((5,), [1, 3], "NCHW"), ((2, 3, 4, 5), [0, 0, 3, 0], "NCHW"),
        ((2, 3, 4, 5), [2, 1, 0, 0], "NCHW"), ((1, 1, 1, 1), [0, 0, 0, 0], "NCHW"),
        ((2, 3, 6), [0, 0, 1, 1, 2, 1], "NCHW"), ((2, 4, 6, 3), [1, 2, 2, 1], "NHWC"),
        ((2, 3, 33, 17), [3, 2, 1, 4], "NCHW"), ((4, 8, 20, 30), [3, 2, 1, 4], "NCHW"),
        ((40, 7, 48), [0, 0, 2, 1, 1, 3], "NCHW"), ((3, 2, 40, 49), [1, 1, 1, 1], "NCHW")]


def _widths(shape, pad, fmt):
    return padding._pad_widths(len(shape), pad, fmt)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape,pad,fmt", PADS)
def test_pad_hw_bitwise(shape, pad, fmt, mode, dtype):
    rng = np.random.default_rng(len(shape) + sum(pad))
    widths = _widths(shape, pad, fmt)
    if mode == "reflect" and any((a or c) and (a >= s or c >= s)
                                 for s, (a, c) in zip(shape, widths)):
        pytest.skip("reflect padding wider than the axis")
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    if dtype == np.float32:
        a.flat[:3] = [-0.0, np.nan, -np.inf]
    ref = np.pad(a, widths, mode=NP_MODE[mode])
    for x in (a, np.asfortranarray(a)):
        out = F.pad(paddle.to_tensor(x), pad, mode=mode, data_format=fmt).numpy()
        assert out.dtype == ref.dtype and out.shape == ref.shape
        assert out.tobytes() == np.ascontiguousarray(ref).tobytes()


def test_pad_hw_plan_taken():
    """The row's pads go through pad_hw (and the kernel is loaded)."""
    assert compiled_kernels("forward_window") is not None
    x = np.zeros((8, 8, 16, 16), np.float32)
    for mode in NP_MODE:
        plan = padding._cached_plan(x, [1, 1, 2, 2], mode, "NCHW")
        assert plan.hw is not None
        assert not plan.hw[0].flags.writeable
    assert padding._cached_plan(np.zeros((40, 7, 48), np.float32), [0, 0, 2, 1, 1, 3],
                                "constant", "NCHW").hw is not None
    # a pad of H, W and C (NHWC's three padded axes) is not one, nor rows of more than 48,
    # nor a small constant pad (numpy's np.zeros and copy), nor an int16 one
    assert padding._cached_plan(x, [1, 1, 2, 2], "reflect", "NHWC").hw is None
    assert padding._cached_plan(np.zeros((3, 2, 40, 49), np.float32), [1, 1, 1, 1],
                                "reflect", "NCHW").hw is None
    assert padding._cached_plan(np.zeros((3, 7), np.float32), [1, 1], "constant",
                                "NCHW").hw is None
    assert padding._cached_plan(np.zeros((3, 7), np.float32), [1, 1], "reflect",
                                "NCHW").hw is not None
    assert padding._cached_plan(x.astype(np.int16), [1, 1, 2, 2], "reflect", "NCHW").hw is None


@pytest.mark.parametrize("mode", ["constant", "reflect"])
def test_pad_nodes_and_grads_match_numpy_path(mode, monkeypatch):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    c = rng.standard_normal((2, 3, 10, 7)).astype(np.float32)

    def run():
        x = paddle.to_tensor(a, stop_gradient=False)
        y = F.pad(x * 1.5, [1, 1, 2, 2], mode=mode)
        node = y._node
        (y * paddle.to_tensor(c)).sum().backward()
        return y.numpy(), node.op.name, dict(node.attrs), x.grad.numpy()

    fast = run()
    _no_kernels(monkeypatch)
    slow = run()
    assert fast[0].tobytes() == slow[0].tobytes()
    assert fast[1] == slow[1]
    assert fast[2].keys() == slow[2].keys()
    for k in fast[2]:
        assert np.array_equal(np.asarray(fast[2][k]), np.asarray(slow[2][k]))
    assert fast[3].tobytes() == slow[3].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", list(range(1, 20)) + [64, 127, 128, 129, 135, 256, 257, 383,
                                                     1000, 1024, 4099, 70000])
def test_row_means_bitwise(n, dtype):
    rng = np.random.default_rng(n)
    kernels = compiled_kernels("forward_window")
    for rows in (1, 2, 3, 5):
        x = (rng.standard_normal(rows * n) * 10 ** rng.uniform(-4, 4, rows * n)).astype(dtype)
        if rows == 3:
            x[:n] = -0.0                    # 0 + -0: +0, as numpy's reduction from 0
            x[n] = np.nan if n > 1 else x[n]
            x[2 * n] = np.inf
        for shape in ((rows, 1, 1, n), (rows, 1, n, 1), (1, rows, 1, n)):
            x4 = x.reshape(shape)
            ref = _mean_forward(x4, (2, 3), True)
            out = np.empty(x4.shape[:2] + (1, 1), dtype)
            kernels.row_means(x, out.reshape(-1), n)
            assert out.tobytes() == ref.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(8, 8, 16, 16), (2, 3, 5, 7), (3, 1, 1, 1), (1, 2, 20, 20)])
def test_global_avg_pool(shape, dtype, monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape).astype(dtype)

    def run(x_np, **kw):
        x = paddle.to_tensor(x_np, stop_gradient=False)
        y = F.adaptive_avg_pool2d(x, 1, **kw)
        node = y._node
        y.sum().backward()
        return y.numpy(), node.op.name, dict(node.attrs), x.grad.numpy()

    ref = np.mean(a, axis=(2, 3), keepdims=True)
    fast = run(a)
    assert fast[0].tobytes() == _mean_forward(a, (2, 3), True).tobytes()
    np.testing.assert_allclose(fast[0], ref, rtol=1e-6)
    fast_f = run(np.asfortranarray(a))          # not C-contiguous: _mean_forward
    _no_kernels(monkeypatch)
    slow = run(a)
    for got in (fast, fast_f):
        assert got[0].tobytes() == slow[0].tobytes()
        assert got[1] == slow[1] == "mean"
        assert got[2] == slow[2]
        assert got[3].tobytes() == slow[3].tobytes()


def test_global_avg_pool_falls_back():
    """Other output sizes, layouts and dtypes keep the general path (and its errors)."""
    a = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    x = paddle.to_tensor(a)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, [1, 1]).numpy(),
                               a.mean(axis=(2, 3), keepdims=True))
    nhwc = F.adaptive_avg_pool2d(paddle.to_tensor(a.transpose(0, 2, 3, 1)), 1,
                                 data_format="NHWC")
    np.testing.assert_allclose(nhwc.numpy(), a.mean(axis=(2, 3))[:, None, None, :])
    with pytest.raises(TypeError):
        F.adaptive_avg_pool2d(paddle.to_tensor(a.astype(np.int32)), 1)
