"""The fast forwards of the moving ops (vm/forward_gather.py's kernels once Numba is loaded,
slice and concatenate copies otherwise): values bit for bit numpy's reference expression,
gradients as before, and a second same-shape step a program-cache hit."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops.core import compiled_kernels

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
           "circular": "wrap"}


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Load the backward interpreter (and so Numba): the ops then take the kernels."""
    paddle.warmup(quiet=True)
    yield


def _data(shape, dtype, rng, layout):
    a = rng.standard_normal(shape) * 10
    a = a.astype(dtype) if dtype is not bool else a > 0
    if layout == "F":
        a = np.asfortranarray(a)
    elif layout == "strided":
        big = np.repeat(a, 2, axis=-1)
        a = big[..., ::2]
    return a


def _widths(ndim, pad):
    if len(pad) == 2 * ndim:
        return [(pad[2 * i], pad[2 * i + 1]) for i in range(ndim)]
    w = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        w[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return w


PADS = [((8, 8, 16, 16), [1, 1, 2, 2]), ((3, 5), [2, 1]), ((2, 3, 4, 5, 6), [1, 2, 0, 1, 3, 0]),
        ((2, 3, 4), [1, 1, 1, 0, 0, 2]), ((1, 1, 3), [0, 2]), ((2, 4, 3, 5), [2, 2, 1, 1]),
        ((2, 2, 2, 2, 2, 2), [1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0])]


@pytest.fixture(params=["compiled", "numpy"])
def path(request, monkeypatch):
    """Each value test twice: with vm/forward_gather.py's kernels and with numpy's path."""
    if request.param == "numpy":
        from jitgrad.ops import indexing, padding, shape
        for m in (indexing, padding, shape):
            monkeypatch.setattr(m, "compiled_kernels", lambda module: None)
    return request.param


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PADS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int16, bool])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_pad_values_bit_identical(mode, shape, pad, dtype, layout, path):
    w = _widths(len(shape), pad)
    if mode == "reflect" and any((a or c) and (a >= s or c >= s) for s, (a, c) in zip(shape, w)):
        pytest.skip("reflect wider than the axis")
    a = _data(shape, dtype, np.random.default_rng(len(shape)), layout)
    got = F.pad(paddle.to_tensor(a), pad, mode=mode).numpy()
    want = np.pad(a, w, mode=NP_MODE[mode])
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)


def test_pad_circular_wider_than_axis():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    got = F.pad(paddle.to_tensor(a), [7, 9], mode="circular").numpy()
    assert np.array_equal(got, np.pad(a, [(0, 0), (7, 9)], mode="wrap"))


def test_pad_constant_value_and_nan():
    a = np.array([[np.nan, -0.0, np.inf], [1.0, -np.inf, 2.0]], np.float32)
    got = F.pad(paddle.to_tensor(a), [1, 2, 1, 0], value=3.5).numpy()
    want = np.pad(a, [(1, 2), (1, 0)], constant_values=3.5)
    assert np.array_equal(got, want, equal_nan=True)     # (-0.0 + the 0 added is +0.0)
    got = F.pad(paddle.to_tensor(a), [1, 2, 1, 0]).numpy()
    want = np.pad(a, [(1, 2), (1, 0)])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("shape,shifts,axis", [
    ((32, 64), 3, 1), ((32, 64), -5, 1), ((32, 64), 70, 0), ((4, 5, 6), [1, -2], [0, 2]),
    ((4, 5, 6), [2, 3], [1, 1]), ((4, 5, 6), 7, None), ((4, 5, 6), -13, None),
    ((4, 5), 0, 1), ((4, 5), 5, 1), ((3, 4), [1, 2], [-1, -2]), ((7,), 3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_roll_values(shape, shifts, axis, dtype, layout):
    a = _data(shape, dtype, np.random.default_rng(1), layout)
    got = paddle.roll(paddle.to_tensor(a), shifts, axis=axis).numpy()
    want = np.roll(a, shifts, axis=axis)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_stack_and_concat_values(axis, n, dtype):
    rng = np.random.default_rng(2)
    arrs = [_data((3, 4), dtype, rng, "C" if i % 2 else "strided") for i in range(n)]
    got = paddle.stack([paddle.to_tensor(a) for a in arrs], axis=axis).numpy()
    assert np.array_equal(got, np.stack(arrs, axis=axis))
    if -2 <= axis < 2:
        got = paddle.concat([paddle.to_tensor(a) for a in arrs], axis=axis).numpy()
        assert np.array_equal(got, np.concatenate(arrs, axis=axis))


def test_stack_grads_and_errors():
    rng = np.random.default_rng(3)
    a = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    for axis in (0, 1, 2, -1):
        c = rng.standard_normal(np.stack([a.numpy(), b.numpy()], axis=axis).shape)
        (paddle.stack([a, b], axis=axis) * paddle.to_tensor(c)).sum().backward()
        ga, gb = np.take(c, 0, axis=axis), np.take(c, 1, axis=axis)
        assert np.array_equal(a.grad.numpy(), ga) and np.array_equal(b.grad.numpy(), gb)
        a.clear_grad()
        b.clear_grad()
    with pytest.raises(ValueError):
        paddle.stack([a, paddle.to_tensor(np.ones((4, 3)))])
    with pytest.raises(ValueError):
        paddle.concat([a, paddle.to_tensor(np.ones((4, 3)))], axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_put_along_axis_and_scatter_sum(dtype, axis, path):
    rng = np.random.default_rng(4)
    a = _data((6, 7), dtype, rng, "C")
    k = 3
    shape = (k, 7) if axis == 0 else (6, k)
    idx = rng.integers(-a.shape[axis], a.shape[axis], shape)      # repeats, negatives
    v = _data(shape, dtype, rng, "C")
    got = paddle.put_along_axis(paddle.to_tensor(a), paddle.to_tensor(idx),
                                paddle.to_tensor(v), axis=axis).numpy()
    want = a.copy()
    np.put_along_axis(want, idx, v, axis=axis)
    assert np.array_equal(got, want)
    got = paddle.scatter_reduce(paddle.to_tensor(a), axis, paddle.to_tensor(idx),
                                paddle.to_tensor(v), "sum").numpy()
    want = a.copy()
    ax = axis % 2
    pos = np.take_along_axis(np.arange(a.size).reshape(a.shape), idx % a.shape[ax], axis=ax)
    np.add.at(want.reshape(-1), pos.ravel(), v.ravel())
    assert np.array_equal(got, want)


def test_put_along_axis_out_of_range_raises(path):
    a = paddle.to_tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError):
        paddle.put_along_axis(a, paddle.to_tensor(np.array([[4]])), 1.0, axis=1)
    with pytest.raises(IndexError):
        paddle.put_along_axis(a, paddle.to_tensor(np.array([[-5]])), 1.0, axis=1)


def test_put_along_axis_repeated_grads(path):
    """'assign' with repeated indices: the last value lands and only it gets a gradient;
    overwritten positions of x get none."""
    x = paddle.to_tensor(np.arange(8, dtype=np.float64).reshape(2, 4), stop_gradient=False)
    v = paddle.to_tensor(np.array([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0]]), stop_gradient=False)
    idx = paddle.to_tensor(np.array([[1, 1, 3], [0, 2, 0]]))
    y = paddle.put_along_axis(x, idx, v, axis=1)
    assert np.array_equal(y.numpy(), [[0, 20, 2, 30], [3, 5, 2, 7]])
    (y * paddle.to_tensor(np.arange(1.0, 9.0).reshape(2, 4))).sum().backward()
    assert np.array_equal(x.grad.numpy(), [[1, 0, 3, 0], [0, 6, 0, 8]])
    assert np.array_equal(v.grad.numpy(), [[0, 2, 4], [0, 7, 5]])


def test_setitem_values_and_grads(path):
    rng = np.random.default_rng(5)
    xa, va = rng.standard_normal((12, 5)), rng.standard_normal((8, 5))
    x = paddle.to_tensor(xa, stop_gradient=False)
    v = paddle.to_tensor(va, stop_gradient=False)
    h = x * 1.0
    h[4:12] = v
    want = xa.copy()
    want[4:12] = va
    assert np.array_equal(h.numpy(), want)
    h.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.r_[np.ones((4, 5)), np.zeros((8, 5))])
    assert np.array_equal(v.grad.numpy(), np.ones((8, 5)))


def _cache_hits(step):
    before = paddle.cache_info().hits
    step()
    step()
    return paddle.cache_info().hits - before


CASES = {
    "pad_reflect": lambda h: F.pad(h, [1, 1, 2, 2], mode="reflect"),
    "pad": lambda h: F.pad(h, [1, 1, 2, 2]),
    "pad_circular": lambda h: F.pad(h, [2, 1, 0, 3], mode="circular"),
    "roll": lambda h: paddle.roll(h, 3, axis=3),
    "stack": lambda h: paddle.stack([h, h * 2.0], axis=1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_steps_hit_the_cache_with_correct_grads(name, path):
    rng = np.random.default_rng(6)
    xa = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    x = paddle.to_tensor(xa, stop_gradient=False)
    op = CASES[name]
    c = paddle.to_tensor(rng.standard_normal(op(x).shape).astype(np.float32))
    grads = []

    def step():
        (op(x) * c).sum().backward()
        grads.append(x.grad.numpy().copy())
        x.clear_grad()

    step()
    assert _cache_hits(step) >= 2
    # the reference gradient: the same op recorded with the numpy fallback's values is
    # linear, so the gradient is the op's transpose applied to c (checked numerically)
    assert all(np.array_equal(g, grads[0]) for g in grads)
    eps = np.zeros_like(xa)
    i = (1, 2, 3, 4)
    eps[i] = 1.0
    lin = float((op(paddle.to_tensor(eps)) * c).sum().numpy())
    assert np.isclose(grads[0][i], lin, rtol=1e-5, atol=1e-6)


def test_put_and_scatter_steps_hit_the_cache(path):
    rng = np.random.default_rng(7)
    m = paddle.to_tensor(rng.standard_normal((8, 6)).astype(np.float32), stop_gradient=False)
    v = paddle.to_tensor(rng.standard_normal((8, 2)).astype(np.float32), stop_gradient=False)
    idx = paddle.to_tensor(np.stack([rng.permutation(6)[:2] for _ in range(8)]))
    c = paddle.to_tensor(rng.standard_normal((8, 6)).astype(np.float32))
    for how in ("put", "sum"):
        grads = []

        def step(how=how, grads=grads):
            y = paddle.put_along_axis(m, idx, v, axis=1) if how == "put" else \
                paddle.scatter_reduce(m, 1, idx, v, "sum")
            (y * c).sum().backward()
            grads.append((m.grad.numpy().copy(), v.grad.numpy().copy()))
            m.clear_grad()
            v.clear_grad()

        step()
        assert _cache_hits(step) >= 2
        cn, ix = c.numpy(), idx.numpy()
        gv = np.take_along_axis(cn, ix, axis=1)
        gm = cn.copy()
        if how == "put":
            np.put_along_axis(gm, ix, 0.0, axis=1)
        for gm_got, gv_got in grads:
            assert np.array_equal(gm_got, gm) and np.array_equal(gv_got, gv)


def test_kernels_loaded():
    assert compiled_kernels("forward_gather") is not None
