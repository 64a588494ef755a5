"""The cached-plan fast paths of pad (ops/padding.py), pixel_shuffle (ops/resample.py),
flatten (ops/shape.py) and unfold (ops/more_indexing.py):

- values exactly numpy's (np.pad, the reshape-transpose-reshape spelling, reshape, the
  window gather), for every pad mode and layout, C-ordered and transposed-view inputs;
- gradients against closed forms, on integer-valued data (every sum exact);
- two fresh graphs of one shape in a row: a program-cache hit, each its own gradient;
- the plans' tables read-only, owning their data, never a view handed to the user, and
  the caches bounded; errors as before, and nothing cached for them.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import more_indexing, padding, resample, shape as shape_ops

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
           "circular": "wrap"}


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Load the backward interpreter (and Numba): pad takes its compiled kernel."""
    paddle.warmup(quiet=True)


def _ints(shape: tuple, seed: int, dtype=np.float32) -> np.ndarray:
    """Small integer values: products with other small integers and their sums are exact."""
    return np.random.default_rng(seed).integers(-8, 9, shape).astype(dtype)


def _step(fn, a: np.ndarray, c: np.ndarray, view: bool = False) -> tuple:
    """(fn(x) as numpy, d sum(fn(x) * c) / da): x is `a`, or with view=True the transpose
    view of a leaf holding a's transpose (x's data then not C-contiguous)."""
    perm = list(range(a.ndim))[::-1]
    if view:
        leaf = paddle.to_tensor(np.ascontiguousarray(a.transpose(perm)), stop_gradient=False)
        x = paddle.transpose(leaf, perm)
        assert not x._data.flags.c_contiguous
    else:
        leaf = x = paddle.to_tensor(a, stop_gradient=False)
    y = fn(x)
    (y * paddle.to_tensor(c)).sum().backward()
    g = leaf.grad.numpy()
    return y.numpy(), (g.transpose(np.argsort(perm)) if view else g)


def _widths(ndim: int, pad: list, channels_last: bool = False) -> list:
    if len(pad) == 2 * ndim:
        return [(pad[2 * i], pad[2 * i + 1]) for i in range(ndim)]
    w = [(0, 0)] * ndim
    last = ndim - 2 if channels_last else ndim - 1
    for i in range(len(pad) // 2):
        w[last - i] = (pad[2 * i], pad[2 * i + 1])
    return w


def _pad_grad(shape: tuple, widths: list, mode: str, c: np.ndarray) -> np.ndarray:
    """pad's gradient: c summed onto the input element each output element copies."""
    pos = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        src = np.pad(pos, widths, constant_values=-1)
    else:
        src = np.pad(pos, widths, mode=NP_MODE[mode])
    keep = src.ravel() >= 0
    g = np.bincount(src.ravel()[keep], weights=c.ravel()[keep], minlength=pos.size)
    return g.reshape(shape).astype(c.dtype)


PADS = [((8, 8, 16, 16), [1, 1, 2, 2], "NCHW"), ((8, 16, 16, 8), [1, 1, 2, 2], "NHWC"),
        ((2, 3, 7), [2, 1], "NCL"), ((2, 7, 3), [2, 1], "NLC"),
        ((2, 3, 4, 5, 6), [1, 2, 0, 1, 3, 0], "NCDHW"),
        ((2, 4, 5, 6, 3), [1, 2, 0, 1, 3, 0], "NDHWC"),
        ((3, 5), [2, 1, 0, 3], "NCHW"), ((2, 3, 4), [0, 0, 1, 2, 2, 1], "NCHW")]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad,fmt", PADS)
@pytest.mark.parametrize("view", [False, True])
def test_pad_values_and_gradient_match_numpy(mode, shape, pad, fmt, view):
    w = _widths(len(shape), pad, fmt in ("NHWC", "NLC", "NDHWC"))
    a = _ints(shape, 1)
    c = _ints(tuple(s + p + q for s, (p, q) in zip(shape, w)), 2)
    y, g = _step(lambda x: F.pad(x, pad, mode=mode, data_format=fmt), a, c, view)
    assert np.array_equal(y, np.pad(a, w, mode=NP_MODE[mode]))
    assert np.array_equal(g, _pad_grad(shape, w, mode, c))


@pytest.mark.parametrize("shape,pad", [((4, 8, 64, 64), [1, 1, 1, 1]), ((2, 3, 4), [1, 2])])
@pytest.mark.parametrize("kernels", [True, False])
def test_pad_constant_large_and_small_with_and_without_the_kernel(shape, pad, kernels,
                                                                  monkeypatch):
    """Over 64K output elements a constant pad's values come from pad4 (once Numba is
    loaded), below from numpy: both numpy's np.pad."""
    if not kernels:
        monkeypatch.setattr(padding, "compiled_kernels", lambda module: None)
    w = _widths(len(shape), pad)
    a = _ints(shape, 17)
    c = _ints(tuple(s + p + q for s, (p, q) in zip(shape, w)), 18)
    y, g = _step(lambda x: F.pad(x, pad), a, c)
    assert np.array_equal(y, np.pad(a, w)) and np.array_equal(g, _pad_grad(shape, w,
                                                                            "constant", c))
    plan = padding._PLANS[(shape, a.dtype, tuple(pad), "constant", "NCHW", True)]
    assert (plan.kernel is not None) == (y.size > padding._NUMPY_CONSTANT_MAX)


def test_pad_constant_value_fills_the_border_and_keeps_the_gradient():
    a, c = _ints((2, 3, 4, 5), 3), _ints((2, 3, 7, 6), 4)
    y, g = _step(lambda x: F.pad(x, [1, 0, 2, 1], value=-2.5), a, c)
    w = [(0, 0), (0, 0), (2, 1), (1, 0)]
    assert np.array_equal(y, np.pad(a, w, constant_values=-2.5))
    assert np.array_equal(g, _pad_grad(a.shape, w, "constant", c))


def test_pad_keeps_negative_zero_and_nan():
    a = np.array([[np.nan, -0.0, np.inf], [1.0, -np.inf, -0.0]], np.float32)
    for mode in NP_MODE:
        got = F.pad(paddle.to_tensor(a), [1, 1], mode=mode).numpy()
        want = np.pad(a, [(0, 0), (1, 1)], mode=NP_MODE[mode])
        assert np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("mode", ["constant", "reflect"])
def test_pad_two_fresh_graphs_hit_the_cache_each_with_its_gradient(mode):
    w = [(0, 0), (0, 0), (2, 2), (1, 1)]
    for k in range(3):
        before = paddle.cache_info().hits
        a, c = _ints((2, 3, 5, 4), 10 + k), _ints((2, 3, 9, 6), 20 + k)
        y, g = _step(lambda x: F.pad(x, [1, 1, 2, 2], mode=mode), a, c)
        assert np.array_equal(y, np.pad(a, w, mode=NP_MODE[mode]))
        assert np.array_equal(g, _pad_grad(a.shape, w, mode, c))
        if k:
            assert paddle.cache_info().hits == before + 1


def test_pad_plan_is_shared_read_only_and_never_the_output():
    x = paddle.to_tensor(_ints((2, 3, 5, 4), 5), stop_gradient=False)
    for mode in NP_MODE:
        y1, y2 = F.pad(x, [1, 1, 2, 1], mode=mode), F.pad(x, [1, 1, 2, 1], mode=mode)
        plan = padding._PLANS[(x._data.shape, x._data.dtype, (1, 1, 2, 1), mode, "NCHW",
                               True)]
        assert y1._node.attrs is plan.attrs and y2._node.attrs is plan.attrs
        if mode == "constant":      # (pad_constant's attrs are structure: no table)
            assert plan.attrs == {"widths": ((0, 0), (0, 0), (2, 1), (1, 1)),
                                  "shape": (2, 3, 8, 6)}
        else:
            table = plan.attrs["idx"]
            assert table.flags.owndata and not table.flags.writeable
        assert y1._data.flags.writeable and not np.shares_memory(y1._data, y2._data)
        y1._data[...] = 99                          # a user writing the output changes
        assert not np.array_equal(F.pad(x, [1, 1, 2, 1], mode=mode).numpy(),   # no plan
                                  y1._data)


def test_pad_plans_are_bounded():
    x = paddle.to_tensor(np.zeros((2, 3), np.float32))
    for k in range(padding._PLANS_KEPT + 5):
        F.pad(x, [0, k])
        assert len(padding._PLANS) <= padding._PLANS_KEPT


def test_pad_with_numpy_ints_or_a_tensor_matches_python_ints():
    a = _ints((2, 3, 4, 5), 6)
    want = np.pad(a, [(0, 0), (0, 0), (0, 1), (1, 2)])
    for pad in ([np.int64(1), 2, 0, 1], paddle.to_tensor(np.array([1, 2, 0, 1])), (1, 2, 0, 1)):
        assert np.array_equal(F.pad(paddle.to_tensor(a), pad).numpy(), want)


def test_pad_errors_are_raised_and_not_cached():
    x = paddle.to_tensor(np.zeros((2, 3, 4), np.float32))
    n = len(padding._PLANS)
    with pytest.raises(ValueError, match="negative"):
        F.pad(x, [-1, 1])
    with pytest.raises(ValueError, match="smaller"):
        F.pad(x, [4, 0], mode="reflect")
    with pytest.raises(ValueError, match="mode"):
        F.pad(x, [1, 0], mode="mirror")
    assert len(padding._PLANS) == n


# ---- pixel_shuffle ---------------------------------------------------------------------

def _shuffle(a: np.ndarray, r: int) -> np.ndarray:
    N, C, H, W = a.shape
    return a.reshape(N, C // (r * r), r, r, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(
        N, C // (r * r), H * r, W * r)


def _unshuffle(a: np.ndarray, r: int) -> np.ndarray:
    N, C, H, W = a.shape
    return a.reshape(N, C, H // r, r, W // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(
        N, C * r * r, H // r, W // r)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((8, 8, 16, 16), 2), ((1, 18, 2, 3), 3),
                                     ((2, 3, 4, 4), 1)])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("view", [False, True])
def test_pixel_shuffle_values_and_gradient_match_numpy(shape, r, fmt, view):
    last = fmt == "NHWC"
    nchw = _ints(shape, 7)
    a = np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)) if last else nchw
    want = _shuffle(nchw, r)
    c_nchw = _ints(want.shape, 8)
    c = c_nchw.transpose(0, 2, 3, 1) if last else c_nchw
    y, g = _step(lambda x: F.pixel_shuffle(x, r, data_format=fmt), a, c, view)
    assert np.array_equal(y, want.transpose(0, 2, 3, 1) if last else want)
    g_nchw = _unshuffle(c_nchw, r)
    assert np.array_equal(g, g_nchw.transpose(0, 2, 3, 1) if last else g_nchw)


def test_pixel_shuffle_records_the_public_ops_three_nodes():
    """reshape, transpose, reshape as before: the gradient one gather (the transpose's)."""
    x = paddle.to_tensor(_ints((2, 8, 3, 5), 9), stop_gradient=False)
    y = F.pixel_shuffle(x, 2)
    t = y._node.inputs[0]
    assert [y._node.op.name, t._node.op.name, t._node.inputs[0]._node.op.name] == \
        ["reshape", "transpose", "reshape"]
    assert t._node.attrs == {"perm": (0, 1, 4, 2, 5, 3)} and y.shape == [2, 2, 6, 10]


def test_pixel_shuffle_two_fresh_graphs_hit_the_cache_each_with_its_gradient():
    for k in range(3):
        before = paddle.cache_info().hits
        a, c = _ints((2, 8, 4, 3), 30 + k), _ints((2, 2, 8, 6), 40 + k)
        y, g = _step(lambda x: F.pixel_shuffle(x, 2), a, c)
        assert np.array_equal(y, _shuffle(a, 2)) and np.array_equal(g, _unshuffle(c, 2))
        if k:
            assert paddle.cache_info().hits == before + 1


def test_pixel_shuffle_then_unshuffle_is_the_identity():
    nchw = _ints((2, 18, 4, 5), 11)
    for fmt in ("NCHW", "NHWC"):
        a = nchw if fmt == "NCHW" else np.ascontiguousarray(nchw.transpose(0, 2, 3, 1))
        x = paddle.to_tensor(a)
        y = F.pixel_unshuffle(F.pixel_shuffle(x, 3, data_format=fmt), 3, data_format=fmt)
        assert np.array_equal(y.numpy(), a)


def test_pixel_shuffle_plans_are_bounded_and_errors_not_cached():
    for k in range(resample._SHUFFLES_KEPT + 5):
        F.pixel_shuffle(paddle.to_tensor(np.zeros((1, 4, 1, k + 1), np.float32)), 2)
        assert len(resample._SHUFFLES) <= resample._SHUFFLES_KEPT
    n = len(resample._SHUFFLES)
    with pytest.raises(ValueError, match="divisible"):
        F.pixel_shuffle(paddle.to_tensor(np.zeros((1, 6, 2, 2), np.float32)), 2)
    assert len(resample._SHUFFLES) == n


# ---- flatten ---------------------------------------------------------------------------

@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("view", [False, True])
def test_flatten_every_axis_pair_matches_numpy(ndim, view):
    shape = (2, 3, 4, 5)[:ndim]
    a = _ints(shape, 12)
    for s in range(-ndim, ndim):
        for e in range(-ndim, ndim):
            s0, e0 = s % ndim, e % ndim
            if s0 > e0:
                with pytest.raises(ValueError, match="after"):
                    paddle.flatten(paddle.to_tensor(a), s, e)
                continue
            new = shape[:s0] + (int(np.prod(shape[s0:e0 + 1])),) + shape[e0 + 1:]
            c = _ints(new, 13)
            y, g = _step(lambda x: paddle.flatten(x, s, e), a, c, view and ndim > 1)
            assert np.array_equal(y, a.reshape(new)) and np.array_equal(g, c.reshape(shape))


def test_flatten_of_a_0d_tensor_is_1d_and_an_unchanged_shape_returns_x():
    x = paddle.to_tensor(np.float32(3.0))
    assert paddle.flatten(x).shape == [1]
    v = paddle.to_tensor(np.arange(4, dtype=np.float32))
    assert paddle.flatten(v) is v


@pytest.mark.parametrize("shape,start,stop,want", [
    ((2, 0, 3), 0, 1, [0, 3]), ((3, 4, 0), 0, 1, [12, 0]), ((0, 3, 4), 1, 2, [0, 12]),
    ((2, 3, 0), 0, -1, [0])])
def test_flatten_a_zero_size_dim_as_paddle(shape, start, stop, want):
    """(Paddle 3.3.1's shapes; before, reshape read the merged 0 as "keep that dim".)"""
    x = paddle.to_tensor(np.zeros(shape, np.float32))
    for a, b in ((start, stop), (np.int64(start), np.int64(stop))):
        assert paddle.flatten(x, a, b).shape == want


def test_flatten_two_fresh_graphs_hit_the_cache_each_with_its_gradient():
    for k in range(3):
        before = paddle.cache_info().hits
        a, c = _ints((2, 3, 4), 50 + k), _ints((2, 12), 60 + k)
        y, g = _step(lambda x: paddle.flatten(x, 1), a, c)
        assert np.array_equal(y, a.reshape(2, 12)) and np.array_equal(g, c.reshape(2, 3, 4))
        if k:
            assert paddle.cache_info().hits == before + 1


def test_flatten_cache_is_bounded():
    for k in range(shape_ops._FLATTENED_MAX + 5):
        paddle.flatten(paddle.to_tensor(np.zeros((1, k + 1), np.float32)))
        assert len(shape_ops._FLATTENED) <= shape_ops._FLATTENED_MAX


# ---- unfold (windows along an axis) ------------------------------------------------------

def _windows(shape: tuple, axis: int, size: int, step: int) -> np.ndarray:
    """The flat input position of each element of unfold's result, from numpy's view."""
    pos = np.arange(int(np.prod(shape))).reshape(shape)
    win = np.lib.stride_tricks.sliding_window_view(pos, size, axis=axis)
    key = [slice(None)] * len(shape)
    key[axis] = slice(None, None, step)
    return win[tuple(key)]


@pytest.mark.parametrize("shape,axis,size,step", [((32, 64), 1, 8, 4), ((32, 64), 0, 5, 3),
                                                  ((4, 5, 6), 2, 2, 1), ((4, 5, 6), 1, 5, 2),
                                                  ((7,), 0, 3, 2), ((4, 5, 6), 0, 4, 7)])
@pytest.mark.parametrize("view", [False, True])
def test_unfold_values_and_gradient_match_numpy(shape, axis, size, step, view):
    a = _ints(shape, 14)
    win = _windows(shape, axis, size, step)
    c = _ints(win.shape, 15)
    y, g = _step(lambda x: paddle.unfold(x, axis - len(shape) if view else axis, size, step),
                 a, c, view and len(shape) > 1)
    assert np.array_equal(y, a.ravel()[win])
    want = np.bincount(win.ravel(), weights=c.ravel(), minlength=a.size)
    assert np.array_equal(g, want.reshape(shape).astype(np.float32))


def test_unfold_two_fresh_graphs_hit_the_cache_each_with_its_gradient():
    win = _windows((6, 16), 1, 8, 4)
    for k in range(3):
        before = paddle.cache_info().hits
        a, c = _ints((6, 16), 70 + k), _ints(win.shape, 80 + k)
        y, g = _step(lambda x: paddle.unfold(x, 1, 8, 4), a, c)
        assert np.array_equal(y, a.ravel()[win])
        want = np.bincount(win.ravel(), weights=c.ravel(), minlength=a.size)
        assert np.array_equal(g, want.reshape(a.shape).astype(np.float32))
        if k:
            assert paddle.cache_info().hits == before + 1


def test_unfold_table_is_read_only_and_never_the_output():
    x = paddle.to_tensor(_ints((6, 16), 16), stop_gradient=False)
    y1, y2 = paddle.unfold(x, 1, 8, 4), paddle.unfold(x, 1, 8, 4)
    table = more_indexing._WINDOWS[((6, 16), 1, 8, 4)][0]["idx"]
    assert table.flags.owndata and not table.flags.writeable
    assert y1._node.attrs["idx"] is table and y2._node.attrs["idx"] is table
    assert y1._data.flags.writeable and not np.shares_memory(y1._data, y2._data)
    y1._data[...] = 99
    assert np.array_equal(paddle.unfold(x, 1, 8, 4).numpy(), y2.numpy())


def test_unfold_cache_is_bounded_in_entries_and_bytes(monkeypatch):
    x = paddle.to_tensor(np.zeros((4, 64), np.float32))
    for k in range(more_indexing._WINDOWS_KEPT + 5):
        paddle.unfold(x, 1, 2 + k % 60, 1 + k // 60)
        assert len(more_indexing._WINDOWS) <= more_indexing._WINDOWS_KEPT
    monkeypatch.setattr(more_indexing, "_WINDOWS_BYTES", 4096)
    more_indexing._WINDOWS.clear()
    monkeypatch.setattr(more_indexing, "_windows_bytes", 0)
    paddle.unfold(x, 1, 8, 4)                   # 4 * 15 * 8 positions: 3840 bytes, kept
    paddle.unfold(x, 1, 9, 4)                   # 4 * 14 * 9: 4032 more: the cache emptied
    assert list(more_indexing._WINDOWS) == [((4, 64), 1, 9, 4)]
    y = paddle.unfold(x, 1, 32, 1)              # 4 * 33 * 32 * 8 bytes: over, not kept
    assert y.shape == [4, 33, 32] and ((4, 64), 1, 32, 1) not in more_indexing._WINDOWS
    assert more_indexing._windows_bytes <= 4096


def test_unfold_of_ints_and_errors_as_before():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert np.array_equal(paddle.unfold(paddle.to_tensor(a), 1, 2, 2).numpy(),
                          a.reshape(3, 2, 2))
    n = len(more_indexing._WINDOWS)
    with pytest.raises(ValueError, match="size"):
        paddle.unfold(paddle.to_tensor(a), 1, 5, 1)
    assert len(more_indexing._WINDOWS) == n
