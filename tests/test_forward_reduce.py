"""One-pass compiled forwards of max / min (with their tie-split weights), the Euclidean
norm, logsumexp and cumsum (vm/forward_reduce.py): the numpy path's outputs and saved
arrays bit for bit (ties, signed zeros, NaN, infinities, every axis layout the kernels
take, and the fallbacks for those they do not), one node per op, gradients unchanged."""

import itertools

import numpy as np
import pytest
from bitwise import graph_nodes, same_bits

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import reduce as R
from jitgrad.ops import scan as C
from jitgrad.ops import stats as S
from jitgrad.ops.registry import REGISTRY
from jitgrad.testing import check_grads

SPECIAL = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -1e30, -1.0, 3.0, 1e-20])
DTYPES = (np.float32, np.float64)


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


def _values(shape, dtype, kind, seed=0):
    """kind 0: uniform in [-2, 2); 1: a quarter of them special; 2: small integers (ties);
    3: +0 and -0 only; 4: zeros of both signs, -1 and NaN; 5: magnitude ~1e19 (squares
    overflow float32); 6: infinities and ones; 7: magnitude ~50 (exp spans float32)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, shape)
    if kind == 1 and x.size:
        idx = rng.integers(0, x.size, max(1, x.size // 4))
        x.flat[idx] = rng.choice(SPECIAL, idx.size)
    elif kind == 2:
        x = rng.integers(-2, 3, shape).astype(float)
    elif kind == 3:
        x = rng.choice([0.0, -0.0], shape)
    elif kind == 4:
        x = rng.choice([0.0, -0.0, -1.0, np.nan], shape)
    elif kind == 5:
        x = x * 1e19
    elif kind == 6:
        x = rng.choice([np.inf, -np.inf, 1.0], shape)
    elif kind == 7:
        x = x * 50
    return np.asarray(x, dtype)


KINDS = range(8)
SHAPES = [(1,), (5,), (17,), (32, 64), (2, 3, 4), (4, 1), (1, 4), (3, 7, 5, 2), (100, 3),
          (2, 130), (7, 300), (3, 1, 2)]


def _axis_sets(ndim):
    """None and every non-empty set of axes (gaps included: those fall back)."""
    return [None] + [c for r in range(1, ndim + 1)
                     for c in itertools.combinations(range(ndim), r)]


def _leaf(a):
    t = paddle.to_tensor(a)
    t.stop_gradient = False
    return t


def _check_extreme(x, axes, keepdim):
    for is_max, fn in ((True, np.max), (False, np.min)):
        got = R._extreme_forward(x, axes, keepdim, is_max)
        if got is None:             # a layout the kernel does not take
            assert R._groups(x.shape, axes, keepdim) is None or not x.flags.c_contiguous
            continue
        want = np.asarray(fn(x, axis=axes, keepdims=keepdim))
        same_bits(got[0], want, nan_bits=True)
        same_bits(got[1][0], R._tie_mask(want, x, axes), nan_bits=True)


def _check_pair(got, want):
    same_bits(got[0], want[0])
    same_bits(got[1][0], want[1][0])


# ---- bit for bit against the numpy path ------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_reductions_give_the_numpy_paths_outputs_and_saves(shape, dtype):
    for kind in KINDS:
        x = _values(shape, dtype, kind)
        with np.errstate(all="ignore"):
            for axes in _axis_sets(len(shape)):
                for keepdim in (False, True):
                    _check_extreme(x, axes, keepdim)
                    _check_pair(S._l2_norm_forward(x, axes, keepdim),
                                S._l2_forward(x, axes, keepdim))
                    _check_pair(S._logsumexp_forward(x, axes, keepdim),
                                S._logsumexp_np(x, axes, keepdim))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cumsum_gives_numpys_sequential_sums(shape, dtype):
    for kind in KINDS:
        x = _values(shape, dtype, kind)
        with np.errstate(all="ignore"):
            for axis in range(len(shape)):
                for reverse in (False, True):
                    same_bits(C._cumsum_forward(x, axis, reverse),
                               C._cumsum_np(x, axis, reverse))


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_rows_and_whole_arrays(dtype):
    """numpy's pairwise sums past 128 elements (a split at a multiple of 8) and past its
    8192-element buffer; the max's eight lanes with a tail."""
    for shape, axes in (((3, 20000), (1,)), ((2, 300, 40), (1, 2)), ((500, 30), None),
                        ((100003,), None), ((4, 9001), (1,)), ((7000, 3), (0,)),
                        ((3, 129), (1,)), ((5, 257), None)):
        for kind in (0, 2, 7):
            x = _values(shape, dtype, kind)
            for keepdim in (False, True):
                _check_extreme(x, axes, keepdim)
                _check_pair(S._l2_norm_forward(x, axes, keepdim),
                            S._l2_forward(x, axes, keepdim))
                _check_pair(S._logsumexp_forward(x, axes, keepdim),
                            S._logsumexp_np(x, axes, keepdim))
            for axis in range(len(shape)):
                same_bits(C._cumsum_forward(x, axis, False), C._cumsum_np(x, axis, False))


def test_the_kernels_take_the_common_layouts_and_fall_back_otherwise():
    x = _values((4, 5, 6), np.float32, 0)
    for axes in (None, (2,), (1, 2), (0,), (1,), (0, 1), (0, 1, 2)):
        assert R._extreme_forward(x, axes, False, True) is not None
    assert R._extreme_forward(x, (0, 2), False, True) is None          # a gap
    assert R._groups((4, 5, 6), (1,), True) == (4, 5, 6, (4, 1, 6))
    assert R._groups((4, 5, 6), None, False) == (1, 120, 1, ())
    assert R._groups((0, 3), (1,), False) is None                       # empty
    assert R._groups((), None, False) is None                           # 0-d
    f = np.asfortranarray(x)                                            # not C-contiguous
    assert R._extreme_forward(f, (2,), False, True) is None
    assert R._extreme_forward(x.astype(np.float16), (2,), False, True) is None
    # the norm and logsumexp take trailing axes only (numpy's pairwise sums are per row)
    _check_pair(S._l2_norm_forward(x, (1,), False), S._l2_forward(x, (1,), False))
    _check_pair(S._logsumexp_forward(f, (2,), True), S._logsumexp_np(f, (2,), True))
    same_bits(C._cumsum_forward(f, 1, True), C._cumsum_np(f, 1, True))


def test_the_common_layouts_do_not_fall_back(monkeypatch):
    def numpy_path(*args):
        raise AssertionError("the numpy path ran")
    monkeypatch.setattr(S, "_l2_forward", numpy_path)
    monkeypatch.setattr(S, "_logsumexp_np", numpy_path)
    monkeypatch.setattr(C, "_cumsum_np", numpy_path)
    for dtype in DTYPES:
        x = _values((4, 5, 6), dtype, 1)
        for axes in (None, (2,), (1, 2)):
            S._l2_norm_forward(x, axes, False)
            S._logsumexp_forward(x, axes, True)
        for axis in range(3):
            C._cumsum_forward(x, axis, True)
        t = _leaf(x)
        paddle.norm(t, p=2, axis=-1)
        paddle.logsumexp(t, axis=[1, 2])
        paddle.cumsum(t, axis=0)


# ---- the ops: one node, the kernels' values and saves --------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_max_and_min_record_one_node_with_numpys_saves(dtype):
    for kind in (0, 1, 2, 3, 4):
        x = _values((6, 5), dtype, kind, seed=3)
        cases = ((paddle.max, np.max, "max"), (paddle.min, np.min, "min"),
                 (paddle.amax, np.max, "max"), (paddle.amin, np.min, "min"))
        for op, fn, name in cases:
            for axis, keepdim in ((1, False), (-1, True), (0, False), (None, False),
                                  (None, True), ([0, 1], False), ([1], True)):
                y = op(_leaf(x), axis=axis, keepdim=keepdim)
                axes = R.norm_axis(axis, 2)
                with np.errstate(all="ignore"):
                    want = np.asarray(fn(x, axis=axes, keepdims=keepdim))
                    ww = R._tie_mask(want, x, axes)
                same_bits(y._data, want, nan_bits=True)
                assert graph_nodes(y) == 1 and y._node.op is REGISTRY[name]
                assert y._node.attrs == {"axes": axes, "keepdim": keepdim}
                same_bits(y._node.saved[0], ww, nan_bits=True)
                with paddle.no_grad():
                    same_bits(op(_leaf(x), axis=axis, keepdim=keepdim)._data, want,
                               nan_bits=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_norms_logsumexp_and_cumsum_record_one_node(dtype):
    x = _values((8, 16), dtype, 1, seed=4)
    with np.errstate(all="ignore"):
        for axis, keepdim in ((1, False), (None, False), (-1, True), (0, False)):
            axes = R.norm_axis(axis, 2)
            for y, want in ((paddle.norm(_leaf(x), p=2, axis=axis, keepdim=keepdim),
                             S._l2_forward(x, axes, keepdim)),
                            (paddle.linalg.vector_norm(_leaf(x), 2.0, axis, keepdim),
                             S._l2_forward(x, axes, keepdim)),
                            (paddle.logsumexp(_leaf(x), axis=axis, keepdim=keepdim),
                             S._logsumexp_np(x, axes, keepdim))):
                assert graph_nodes(y) == 1
                assert y._node.attrs == {"axes": axes, "keepdim": keepdim}
                same_bits(y._data, want[0])
                same_bits(y._node.saved[0], want[1][0])
        for axis in (0, 1, -1):
            y = paddle.cumsum(_leaf(x), axis=axis)
            assert graph_nodes(y) == 1 and y._node.op is REGISTRY["cumsum"]
            assert y._node.attrs == {"axis": axis % 2, "reverse": False}
            same_bits(y._data, np.cumsum(x, axis=axis))
        n = F.normalize(_leaf(x), axis=1)
        same_bits(n._data, (paddle.to_tensor(x) / paddle.maximum(
            paddle.to_tensor(S._l2_forward(x, (1,), True)[0]), paddle.to_tensor(1e-12,
                                                                                   dtype)))._data)


def test_cumsum_of_other_dtypes_and_axes_keeps_its_rules():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    y = paddle.cumsum(paddle.to_tensor(x), axis=1)
    assert y.dtype == paddle.int64
    np.testing.assert_array_equal(y.numpy(), np.cumsum(x, axis=1))
    f = _values((2, 3), np.float32, 0)
    same_bits(paddle.cumsum(_leaf(f))._data, np.cumsum(f))
    same_bits(paddle.cumsum(_leaf(f), axis=1, dtype="float64")._data,
               np.cumsum(f.astype(np.float64), axis=1))
    with pytest.raises(ValueError):
        paddle.cumsum(_leaf(f), axis=2)


def test_gradients_through_the_kernels_all_orders():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5))
    for axis in (1, 0, None):
        check_grads(lambda t, axis=axis: paddle.norm(t, p=2, axis=axis), a, order=2)
        check_grads(lambda t, axis=axis: paddle.logsumexp(t, axis=axis), a, order=2)
        check_grads(lambda t, axis=axis: paddle.max(t, axis=axis), a, order=2)
    check_grads(lambda t: paddle.cumsum(t, axis=1), a, order=2)
    check_grads(lambda t: F.normalize(t, axis=1), a, order=2)
    ties = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 0.5]])
    t = _leaf(ties)
    paddle.max(t, axis=1).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [[0, 0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


# ---- sum of a large float array: numpy's pairwise sum, its leaves eight lanes at a time -----

def _sum_inputs(dtype, n, seed):
    """n values of several kinds: normal, huge (the rounding order shows), all -0.0, zeros
    and denormals of both signs, specials (NaN, infinities) and random float32 bits."""
    rng = np.random.default_rng(seed)
    kinds = [rng.standard_normal(n) * 10, rng.standard_normal(n) * 1e30, np.full(n, -0.0),
             rng.choice(np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40]), n),
             rng.choice(SPECIAL, n),
             rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)]
    with np.errstate(all="ignore"):
        return [k.astype(dtype) for k in kinds]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4096,), (8, 2048), (5, 1001), (65536,), (65537,),
                                   (256, 257), (3, 40001), (2, 3, 11111)])
def test_large_float_sum_is_numpys_without_its_reduce(shape, dtype, monkeypatch):
    """x.sum() of a large contiguous float array: numpy's add.reduce bits (vm/forward.py's
    pairwise_sum plus numpy's starting 0: -0.0 sums to +0.0), without calling it, but for a
    NaN total (numpy's NaN bits come from the order its compiled code adds two NaNs in);
    the gradient unchanged; a non-contiguous view takes numpy's reduce."""
    n = int(np.prod(shape))
    for x in _sum_inputs(dtype, n, n):
        x = x.reshape(shape)
        with np.errstate(all="ignore"):
            want = np.add.reduce(x, None, out=...)
        calls = []
        real = R._add_reduce
        monkeypatch.setattr(R, "_add_reduce", lambda *a, **k: calls.append(1) or real(*a, **k))
        t = paddle.to_tensor(x, stop_gradient=False)
        with np.errstate(all="ignore"):
            s = t.sum()
        monkeypatch.setattr(R, "_add_reduce", real)
        assert s._data.shape == () and s._data.dtype == x.dtype
        assert s._data.tobytes() == want.tobytes()
        assert calls == ([1] if np.isnan(want) else [])
        s.backward()
        assert t.grad.numpy().tobytes() == np.ones(shape, dtype).tobytes()
    view = paddle.to_tensor(np.arange(2 * n, dtype=dtype))[::2]
    assert view.sum().item() == float(np.arange(0, 2 * n, 2, dtype=dtype).sum())


@pytest.mark.parametrize("dtype", DTYPES)
def test_pairwise_sum_is_numpys_at_every_split(dtype):
    """vm/forward.py's pairwise_sum gives np.add.reduce's bits at every length to 1100
    (leaves of 8 to 128 elements, unequal siblings, a sibling too long to be a leaf) and at
    a few large ones."""
    from jitgrad.vm import forward
    rng = np.random.default_rng(11)
    for n in list(range(1, 1101)) + [4097, 65536, 100003]:
        x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)).astype(dtype)
        got = np.asarray(forward.pairwise_sum(x), dtype)
        assert got.tobytes() == np.add.reduce(x).tobytes(), n


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_float_mean_is_numpys_without_its_reduce(dtype, monkeypatch):
    """x.mean() of a large contiguous float array: the large sum's total (numpy's), then
    _mean_forward's float64 division; numpy's reduce only for a NaN total."""
    for x in _sum_inputs(dtype, 70001, 3):
        with np.errstate(all="ignore"):
            want = R._mean_forward(x, None, False)
        calls = []
        real = R._add_reduce
        monkeypatch.setattr(R, "_add_reduce", lambda *a, **k: calls.append(1) or real(*a, **k))
        with np.errstate(all="ignore"):
            got = paddle.to_tensor(x).mean()._data
        monkeypatch.setattr(R, "_add_reduce", real)
        assert got.shape == () and got.dtype == x.dtype and got.tobytes() == want.tobytes()
        assert calls == ([1] if np.isnan(want) else [])
