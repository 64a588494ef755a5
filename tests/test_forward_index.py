"""The index ops' fast forwards (index_select / gather / scatter / take's tables by
vm/forward_gather.py select_positions, topk / cummax / sort's picks by row_picks,
repeat_interleave's cached table, take_along_axis's flat pick): outputs, node attributes and
saved arrays bit for bit the numpy path's, the same errors for indices out of range, and
gradients as before."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import composites, core, lookup, search, shape

_real = core.compiled_kernels


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Load the backward interpreter (and so Numba): the ops then take the kernels."""
    paddle.warmup(quiet=True)
    yield


def _no_gather(module):
    return None if module == "forward_gather" else _real(module)


@pytest.fixture
def numpy_path(monkeypatch):
    """A context in which the forward_gather kernels are unavailable (the numpy path)."""
    def enter():
        for m in (shape, search, lookup, composites):
            if hasattr(m, "compiled_kernels"):
                monkeypatch.setattr(m, "compiled_kernels", _no_gather)
    return enter


def _record(fn):
    """(output, take_flat / put_flat attrs as arrays, saved arrays) of fn's last node."""
    out = fn()
    if isinstance(out, tuple):
        out = out[0]
    node = out._node
    if node is None:                    # (an integer tensor: no node)
        return out._data.copy(), {}, (), None
    attrs = {k: (np.asarray(v) if isinstance(v, np.ndarray) else v)
             for k, v in node.attrs.items()}
    saved = tuple(np.asarray(s) for s in node.saved if s is not None) if node.saved else ()
    return out._data.copy(), attrs, saved, node.op.name


def _same(a, b):
    oa, aa, sa, na = a
    ob, ab, sb, nb = b
    assert na == nb
    assert oa.dtype == ob.dtype and oa.shape == ob.shape
    assert oa.tobytes() == ob.tobytes()
    assert aa.keys() == ab.keys()
    for k in aa:
        if isinstance(aa[k], np.ndarray):
            assert aa[k].dtype == ab[k].dtype and aa[k].shape == ab[k].shape, k
            assert np.array_equal(aa[k], ab[k]), k
        else:
            assert aa[k] == ab[k] and type(aa[k]) is type(ab[k]), k
    assert len(sa) == len(sb)
    for u, v in zip(sa, sb):
        assert u.dtype == v.dtype and u.shape == v.shape and u.tobytes() == v.tobytes()


def _both(fn, numpy_path):
    fast = _record(fn)
    numpy_path()
    _same(fast, _record(fn))


def _x(shape, dtype, rng, layout="C"):
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    if layout == "F":
        a = np.asfortranarray(a)
    elif layout == "strided":
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    t = paddle.Tensor._make(a)
    if a.dtype.kind == "f":
        t.stop_gradient = False
    return t


DTYPES = [np.float32, np.float64, np.int32, np.int64]
SHAPES_AX = [((32, 64), 1), ((32, 64), 0), ((5,), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
             ((2, 3, 4), 0), ((3, 0, 2), 2), ((1, 1, 7), 2)]


@pytest.mark.parametrize("shp,ax", SHAPES_AX)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_index_select_bitwise(shp, ax, dtype, layout, numpy_path):
    rng = np.random.default_rng(0)
    x = _x(shp, dtype, rng, layout)
    n = shp[ax]
    idx = rng.integers(-n, n, 9) if n else np.zeros(0, np.int64)
    _both(lambda: paddle.index_select(x, paddle.to_tensor(idx), axis=ax), numpy_path)


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64, np.uint8])
def test_gather_bitwise(idx_dtype, numpy_path):
    rng = np.random.default_rng(1)
    x = _x((7, 5, 3), np.float32, rng)
    idx = rng.integers(0, 7, 11).astype(idx_dtype)
    _both(lambda: paddle.gather(x, idx, axis=0), numpy_path)


def test_gather_zero_d_index(numpy_path):
    x = _x((4, 6), np.float64, np.random.default_rng(2))
    _both(lambda: paddle.gather(x, np.array(-2), axis=1), numpy_path)


@pytest.mark.parametrize("reps", [1, 2, 3, 0])
@pytest.mark.parametrize("shp,ax", [((32, 64), 1), ((4, 5), 0), ((2, 3, 4), 2), ((6,), 0)])
def test_repeat_interleave_int_bitwise(reps, shp, ax):
    """The cached table and np.repeat's values against the per-slice-count path (which
    builds index_select's table)."""
    x = _x(shp, np.float32, np.random.default_rng(3))
    fast = _record(lambda: paddle.repeat_interleave(x, reps, axis=ax))
    counts = paddle.to_tensor(np.full(shp[ax], reps, np.int64))
    _same(fast, _record(lambda: paddle.repeat_interleave(x, counts, axis=ax)))
    assert not fast[1]["idx"].flags.writeable or fast[1]["idx"].size == 0


def test_repeat_interleave_flattened_and_layouts():
    rng = np.random.default_rng(4)
    for layout in ("C", "F", "strided"):
        x = _x((3, 4), np.float64, rng, layout)
        for ax in (None, 0, 1, -1):
            got = paddle.repeat_interleave(x, 2, axis=ax)._data
            want = np.repeat(x._data if ax is not None else x._data.ravel(), 2,
                             axis=ax if ax is not None else 0)
            assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("shp", [(32, 64), (1, 1), (3, 0), (0, 4)])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_scatter_bitwise(shp, layout, numpy_path):
    rng = np.random.default_rng(5)
    x = _x(shp, np.float32, rng, layout)
    n = shp[0]
    idx = rng.permutation(n)[:min(n, 8)] - (n if n > 2 else 0) * (rng.random(min(n, 8)) > 0.5)
    u = _x((idx.size,) + shp[1:], np.float32, rng)
    _both(lambda: paddle.scatter(x, paddle.to_tensor(idx.astype(np.int64)), u), numpy_path)
    _both(lambda: paddle.scatter(x, paddle.to_tensor(idx.astype(np.int64)), u,
                                 overwrite=False), numpy_path)


@pytest.mark.parametrize("n_idx", [0, 1, 100])
def test_take_bitwise(n_idx, numpy_path):
    rng = np.random.default_rng(6)
    x = _x((32, 64), np.float32, rng)
    idx = rng.integers(-2048, 2048, (n_idx // 10 + 1, 10) if n_idx == 100 else n_idx)
    _both(lambda: paddle.take(x, paddle.to_tensor(idx)), numpy_path)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_axis_and_index_sample_bitwise(layout, dtype, numpy_path):
    rng = np.random.default_rng(7)
    x = _x((6, 9), dtype, rng, layout)
    idx = rng.integers(-9, 9, (6, 4))
    ti = paddle.to_tensor(idx)
    fast = [_record(lambda: paddle.take_along_axis(x, ti, axis=1)),
            _record(lambda: paddle.index_sample(x, paddle.to_tensor(idx % 9)))]
    numpy_path()
    _same(fast[0], _record(lambda: paddle.take_along_axis(x, ti, axis=1)))
    _same(fast[1], _record(lambda: paddle.index_sample(x, paddle.to_tensor(idx % 9))))
    # against numpy itself
    assert fast[0][0].tobytes() == np.take_along_axis(x._data, idx, 1).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_row_picks_bitwise(dtype, layout, numpy_path):
    """topk, cummax, cummin and sort along the last axis: their take_flat nodes."""
    rng = np.random.default_rng(8)
    x = _x((32, 64), dtype, rng, layout)
    x._data[3, 5] = x._data[3, 9]                 # a tie
    fns = [lambda: paddle.topk(x, 8, axis=1), lambda: paddle.topk(x, 3, largest=False),
           lambda: paddle.cummax(x, axis=1), lambda: paddle.cummin(x, axis=-1),
           lambda: paddle.sort(x, axis=1), lambda: paddle.sort(x, descending=True)]
    fast = [_record(f) for f in fns]
    numpy_path()
    for f, want in zip(fns, fast):
        _same(want, _record(f))


def test_topk_nan_rows():
    """A NaN anywhere sends topk to the sort path (NaN is the largest), as before."""
    x = paddle.to_tensor(np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.0, -1.0, 5.0]],
                                  np.float32))
    v, i = paddle.topk(x, 2, axis=1)
    assert np.array_equal(i.numpy(), [[1, 2], [3, 0]])
    assert np.isnan(v.numpy()[0, 0]) and v.numpy()[0, 1] == 3.0
    assert np.array_equal(v.numpy()[1], [5.0, 4.0])


# ---- errors kept -----------------------------------------------------------------------------

@pytest.mark.parametrize("kernels", [True, False])
def test_errors_kept(kernels, numpy_path):
    if not kernels:
        numpy_path()
    x = _x((4, 5), np.float32, np.random.default_rng(9))
    with pytest.raises(IndexError, match="index_select: index 5 is out of bounds for axis 1 "
                                         "with size 5"):
        paddle.index_select(x, paddle.to_tensor(np.array([0, 5])), axis=1)
    with pytest.raises(IndexError, match="index_select: index -6 is out of bounds"):
        paddle.index_select(x, paddle.to_tensor(np.array([-6, 1])), axis=1)
    with pytest.raises(IndexError, match="index_select: index 4 is out of bounds for axis 0"):
        paddle.gather(x, paddle.to_tensor(np.array([4])), axis=0)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        paddle.scatter(x, paddle.to_tensor(np.array([4])), _x((1, 5), np.float32,
                                                              np.random.default_rng(0)))
    with pytest.raises(ValueError, match="take: an index is out of range for 20 elements"):
        paddle.take(x, paddle.to_tensor(np.array([20])))
    with pytest.raises(ValueError, match="take: an index is out of range"):
        paddle.take(x, paddle.to_tensor(np.array([-21])))
    with pytest.raises(IndexError, match="take_along_axis: index 5 is out of bounds"):
        paddle.take_along_axis(x, paddle.to_tensor(np.array([[5]] * 4)), axis=1)
    with pytest.raises(IndexError, match="take_along_axis: index 9 is out of bounds"):
        paddle.index_sample(x, paddle.to_tensor(np.array([[9]] * 4)))
    with pytest.raises(ValueError, match="repeat_interleave: repeats must not be negative"):
        paddle.repeat_interleave(x, -1, axis=1)
    with pytest.raises(TypeError, match="index_select: index must be an integer tensor"):
        paddle.index_select(x, paddle.to_tensor(np.array([0.0])), axis=1)


def test_negative_indices_values():
    x = _x((4, 5), np.float64, np.random.default_rng(10))
    d = x._data
    assert np.array_equal(paddle.index_select(x, np.array([-1, 0, -5]), axis=1).numpy(),
                          d[:, [4, 0, 0]])
    assert np.array_equal(paddle.take(x, np.array([-1, -20, 3])).numpy(),
                          d.ravel()[[19, 0, 3]])
    assert np.array_equal(paddle.gather(x, np.array([-1]), axis=0).numpy(), d[[3]])


# ---- gradients and the program cache ---------------------------------------------------------

@pytest.mark.parametrize("name", ["index_select", "gather", "repeat_interleave", "scatter",
                                  "take", "take_along_axis", "index_sample", "topk", "cummax"])
def test_gradients_and_cache(name):
    rng = np.random.default_rng(11)
    xd = rng.standard_normal((6, 8)).astype(np.float32)
    i1 = np.array([1, 3, 3, 0, -1])
    i2 = rng.integers(0, 8, (6, 3))
    fns = {
        "index_select": lambda x: paddle.index_select(x, i1, axis=1),
        "gather": lambda x: paddle.gather(x, i1, axis=0),
        "repeat_interleave": lambda x: paddle.repeat_interleave(x, 3, axis=1),
        "scatter": lambda x: paddle.scatter(x, np.array([4, 1]), x[:2] * 2.0),
        "take": lambda x: paddle.take(x, np.array([[0, -1], [47, 5]])),
        "take_along_axis": lambda x: paddle.take_along_axis(x, i2, axis=1),
        "index_sample": lambda x: paddle.index_sample(x, i2),
        "topk": lambda x: paddle.topk(x, 3, axis=1)[0],
        "cummax": lambda x: paddle.cummax(x, axis=1)[0],
    }
    f = fns[name]

    def grad(data):
        x = paddle.to_tensor(data, stop_gradient=False)
        y = f(x)
        w = paddle.to_tensor(np.arange(1, y.size + 1, dtype=np.float32).reshape(y.shape))
        (y * w).sum().backward()
        return x.grad.numpy()

    g1 = grad(xd)
    # the reference: the same composite's gradient by finite reasoning (a linear map):
    # each output element's weight lands on the element it was read from
    x = paddle.to_tensor(xd, stop_gradient=False)
    y = f(x)
    tbl = y._node.attrs.get("idx")
    if y._node.op.name == "take_flat":
        want = np.zeros(xd.size, np.float32)
        np.add.at(want, tbl, np.arange(1, y.size + 1, dtype=np.float32))
        assert np.array_equal(g1.ravel(), want)
    g2 = grad(xd * 1.5)                 # a second step of the same shapes (a cache hit)
    if y._node.op.name == "take_flat":
        assert np.array_equal(g1, g2) or name in ("topk", "cummax")


def test_fast_paths_taken():
    """The compiled paths these tests compare against numpy's are the ones taken."""
    pos = shape._select_compiled((4, 5), np.array([1, -1]), 1)
    assert pos is not None and np.array_equal(pos, [[1, 4], [6, 9], [11, 14], [16, 19]])
    assert shape._select_compiled((4, 5), np.array([5]), 1) is None        # out of range
    assert shape._select_compiled((4, 5), np.array([1], np.int32), 1) is None
    x = _x((3, 4), np.float32, np.random.default_rng(12))
    y = search.pick_rows(x, np.array([[3], [0], [2]]), (3, 1))
    assert np.array_equal(y.numpy().ravel(), x._data[[0, 1, 2], [3, 0, 2]])
    assert np.array_equal(y._node.attrs["idx"], [3, 4, 10])


# ---- put_flat: 'assign' and the extremes in one compiled call --------------------------------

def _put_cases(dtype, rng):
    x = _x((6, 10), dtype, rng)
    x._data[1, 3] = x._data[1, 4]                              # ties with the own value
    rep = np.array([[3, 3, 0], [4, 3, 4], [9, 9, 9], [0, 1, 2], [5, 5, 1], [2, 7, 2]])
    v = _x((6, 3), dtype, rng)
    v._data[1, 0] = x._data[1, 3]
    v._data[2, :] = v._data[2, 0]                              # ties among the sent values
    vn = _x((6, 3), dtype, rng)
    vn._data[0, 1] = np.nan                                    # a NaN sent
    vn._data[3, 0] = -0.0
    xn = _x((6, 10), dtype, rng)
    xn._data[4, 5] = np.nan                                    # a NaN start
    xn._data[3, 0] = 0.0
    return x, xn, rep, v, vn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["assign", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_flat_fused_bitwise(dtype, reduce, include_self, monkeypatch):
    from jitgrad.ops import indexing
    rng = np.random.default_rng(13)
    x, xn, rep, v, vn = _put_cases(dtype, rng)
    ti = paddle.to_tensor(rep)
    if reduce == "assign":
        fns = [lambda: paddle.put_along_axis(x, ti, v, axis=1),
               lambda: paddle.put_along_axis(xn, ti, vn, axis=1),
               lambda: paddle.put_along_axis(x, ti, 2.5, axis=1),
               lambda: paddle.scatter(x, np.array([5, 0, 5]), x[:3] * 3.0)]
    else:
        fns = [lambda: paddle.scatter_reduce(x, 1, ti, v, reduce, include_self=include_self),
               lambda: paddle.scatter_reduce(xn, 1, ti, vn, reduce,
                                             include_self=include_self),
               lambda: paddle.put_along_axis(xn, ti, vn, axis=1, reduce=reduce,
                                             include_self=include_self)]
    fast = [_record(f) for f in fns]
    assert all(len(r[2]) == 2 for r in fast)
    monkeypatch.setattr(indexing, "_put_compiled", lambda *a: None)
    for f, want in zip(fns, fast):
        _same(want, _record(f))                 # the op's forward and save, its kernels
    monkeypatch.setattr(indexing, "compiled_kernels", lambda module: None)
    for f, want in zip(fns, fast):
        _same(want, _record(f))                 # numpy alone


def test_put_flat_fused_taken_and_fallbacks():
    from jitgrad.ops import indexing
    d = np.arange(6.0, dtype=np.float32)
    idx = np.array([0, 5, 5])
    v = np.array([7.0, 8.0, 9.0], np.float32)
    out, (kept, written) = indexing._put_compiled(d, v, idx, "assign")
    assert np.array_equal(out, [7, 1, 2, 3, 4, 9]) and np.array_equal(written, [1, 0, 1])
    assert np.array_equal(kept, [0, 1, 1, 1, 1, 0])
    assert indexing._put_compiled(d, v, np.array([0, 6, 1]), "assign") is None
    assert indexing._put_compiled(d, v, np.array([0, -1, 1]), "amax") is None
    assert indexing._put_compiled(d, v.astype(np.float64), idx, "assign") is None
    assert indexing._put_compiled(d, v, idx, "add") is None
    # an index out of range still raises the op's own error
    x = paddle.to_tensor(d, stop_gradient=False)
    with pytest.raises(IndexError):
        indexing.put_flat(x, np.array([6]), paddle.to_tensor(v[:1]))
    with pytest.raises(IndexError, match="put_along_axis: index 6 is out of bounds"):
        paddle.put_along_axis(x, np.array([6]), paddle.to_tensor(v[:1]), axis=0)
    # a negative flat position: the op's own path (its masks raise there), as before
    with pytest.raises(IndexError):
        indexing.put_flat(x, np.array([-1]), paddle.to_tensor(v[:1]))
