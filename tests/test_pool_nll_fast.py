"""The fast paths of max pooling, nll_loss and nearest upsampling give the values of the
paths they replace, bit for bit:

- vm/forward.py first_max's window scans (3 x 3 and 2 x 2 literal ones, one window at a
  time for non-overlapping windows, a NaN check first): the numpy strided-view search
  (ops/maxpool.py first_max, the path before Numba is loaded), ties, NaN, -inf and signed
  zeros included, and Paddle's -FLT_MAX floor under padding;
- max_pool2d's one-frame call for int arguments (pool.py): the same node (flat int
  attributes), values and gradients as the general path, and a program-cache hit;
- nll's weighted_total (nll_loss's mean and sum): numpy's product, pairwise sum and NaN
  rule;
- vm/forward_window.py repeat2d (interpolate nearest by integer factors): np.repeat.
"""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import maxpool as M
from jitgrad.ops import nll as NL
from jitgrad.ops import resample as RS


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _kernels():
    from jitgrad.ops.elementwise import _compiled_forward
    k = _compiled_forward()
    if k is None:                                   # pragma: no cover
        pytest.skip("the compiled forward kernels are not loaded")
    return k


def _data(rng, shape, mode, dtype):
    x = rng.standard_normal(shape)
    if mode == "ties":
        x = np.round(x)
    elif mode == "-inf":
        x[rng.random(shape) < 0.3] = -np.inf
    elif mode == "nan":
        x[rng.random(shape) < 0.1] = np.nan
    elif mode == "zeros":
        x = np.where(rng.random(shape) < 0.5, 0.0, -0.0)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["plain", "ties", "-inf", "nan", "zeros"])
def test_compiled_first_max_equals_the_numpy_search(mode, dtype):
    kernels = _kernels()
    rng = np.random.default_rng(7)
    done = set()
    for trial in range(400):
        N, C = (int(v) for v in rng.integers(1, 3, 2))
        H, W = (int(v) for v in rng.integers(1, 12, 2))
        kh, kw = int(rng.choice([1, 2, 3, 3, 4])), int(rng.choice([1, 2, 3, 3, 5]))
        sh, sw = (int(v) for v in rng.integers(1, 5, 2))
        pt, pl = int(rng.integers(0, kh)), int(rng.integers(0, kw))
        pb, pr = int(rng.integers(0, kh + 2)), int(rng.integers(0, kw + 2))
        Ho, Wo = (H + pt + pb - kh) // sh + 1, (W + pl + pr - kw) // sw + 1
        if Ho <= 0 or Wo <= 0:
            continue
        x = _data(rng, (N, C, H, W), mode, dtype)
        padded = bool(pt or pb or pl or pr)
        low = M._LOWEST if padded and trial % 2 else -np.inf
        best = np.empty((N, C, Ho, Wo), dtype)
        arg = np.empty((N, C, Ho, Wo), np.int32)
        kernels.first_max(x, kh, kw, sh, sw, pt, pl, low, best, arg)
        want, want_arg = M.first_max(M._padded(x, ((pt, pb), (pl, pr))), (kh, kw), (sh, sw))
        if low > -np.inf:
            np.maximum(want, want.dtype.type(low), out=want)
        np.testing.assert_array_equal(arg, want_arg)
        same = (best.view(np.uint8) == want.view(np.uint8)).reshape(best.shape + (-1,))
        zero = (best == 0) & (want == 0)        # numpy's maximum keeps either zero's sign
        assert (same.all(axis=-1) | zero | (np.isnan(best) & np.isnan(want))).all()
        done.add("3x3" if (kh, kw) == (3, 3) else "2x2" if (kh, kw) == (2, 2) else
                 "disjoint" if sh >= kh and sw >= kw else "columns")
    assert done == {"3x3", "2x2", "disjoint", "columns"}     # every scan was exercised


def _step(fn, x0, w0):
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = paddle.to_tensor(w0, stop_gradient=False)
    y = fn(x * w)
    (y * y).sum().backward()
    return y, x.grad.numpy(), w.grad.numpy()


@pytest.mark.parametrize("args", [(3, 2, 1), (2, None, 0), (3, 1, 1), (4, 4, 0), (5, 2, 2)])
def test_max_pool2d_int_arguments_take_one_node_equal_to_the_general_path(args):
    k, s, p = args
    rng = np.random.default_rng(3)
    x0 = np.round(rng.standard_normal((2, 3, 9, 10)).astype(np.float32))    # with ties
    w0 = rng.uniform(0.5, 1.5, (3, 1, 1)).astype(np.float32)
    fast = lambda h: F.max_pool2d(h, k, s, p)                               # noqa: E731
    general = lambda h: F.max_pool2d(h, [k, k], None if s is None else [s, s],  # noqa: E731
                                     [p, p])
    for _ in range(2):                  # (the first call registers the attributes)
        y1, gx1, gw1 = _step(fast, x0, w0)
    y2, gx2, gw2 = _step(general, x0, w0)
    assert y1._node.op is y2._node.op and y1._node.attrs == y2._node.attrs
    assert all(type(v) is int for v in y1._node.attrs.values())
    for a, b in ((y1.numpy(), y2.numpy()), (gx1, gx2), (gw1, gw2)):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_max_pool2d_fast_path_reuses_the_program_and_keeps_the_errors():
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((2, 2, 8, 8)).astype(np.float32)
    w0 = np.ones((2, 1, 1), np.float32)
    fn = lambda h: F.max_pool2d(h, 3, 2, 1)                                   # noqa: E731
    _step(fn, x0, w0)
    before = paddle.cache_info().hits
    _step(fn, x0, w0)
    _step(fn, x0, w0)
    assert paddle.cache_info().hits - before >= 2
    for _ in range(2):
        with pytest.raises(ValueError, match="4-D"):
            F.max_pool2d(paddle.to_tensor(x0[0]), 3, 2, 1)
        with pytest.raises(TypeError, match="float"):
            F.max_pool2d(paddle.to_tensor(x0.astype(np.int64)), 3, 2, 1)
        with pytest.raises(ValueError, match="larger"):
            F.max_pool2d(paddle.to_tensor(x0), 12, 2, 1)   # 8 + 2 < 12 by a stride


def test_adaptive_max_pool2d_equal_windows_are_max_pooling():
    rng = np.random.default_rng(5)
    x0 = np.round(rng.standard_normal((2, 3, 8, 12)).astype(np.float32) * 2)
    w0 = np.ones((3, 1, 1), np.float32)
    y1, gx1, _ = _step(lambda h: F.adaptive_max_pool2d(h, [2, 3]), x0, w0)
    y2, gx2, _ = _step(lambda h: F.max_pool2d(h, [4, 4], [4, 4]), x0, w0)
    assert y1._node.attrs == y2._node.attrs
    assert np.array_equal(y1.numpy(), y2.numpy()) and np.array_equal(gx1, gx2)
    y3, mask = F.adaptive_max_pool2d(paddle.to_tensor(x0), [2, 3], return_mask=True)
    assert np.array_equal(y3.numpy(), y1.numpy())
    flat = x0.reshape(2, 3, -1)
    assert np.array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1), -1),
                          y1.numpy().reshape(2, 3, -1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_total_is_numpys_product_sum_and_nan_rule(dtype):
    kernels = _kernels()
    rng = np.random.default_rng(6)
    for n in list(range(1, 140)) + [255, 256, 257, 1000, 2048, 4099, 8192, 10007, 70001]:
        for mode in range(3):
            x = (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(dtype)
            coef = np.zeros(n, dtype)
            coef[rng.integers(0, n, max(1, n // 7))] = rng.standard_normal(max(1, n // 7))
            if mode == 1:
                x[rng.integers(0, n, max(1, n // 5))] = -np.inf    # weight-0 classes at -inf
            if mode == 2:
                coef = rng.standard_normal(n).astype(dtype)
            with np.errstate(all="ignore"):
                prod = coef * x
                want = -(prod.sum())
                if want != want:
                    prod = np.multiply(coef, x, out=np.zeros_like(prod), where=coef != 0)
                    want = -(prod.sum())
                got = -kernels.weighted_total(x, coef, np.empty(n, dtype))
            assert np.asarray(got, dtype).tobytes() == np.asarray(want, dtype).tobytes()


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_values_and_gradients_equal_the_numpy_path(reduction, monkeypatch):
    rng = np.random.default_rng(8)
    z0 = rng.standard_normal((16, 10)).astype(np.float32)
    z0[3, 4] = -np.inf                          # a weight-0 class at -inf adds 0, not NaN
    lab = rng.integers(0, 10, 16)
    lab[3] = 2

    def run():
        z = paddle.to_tensor(z0, stop_gradient=False)
        loss = F.nll_loss(z, paddle.to_tensor(lab), reduction=reduction)
        loss.backward()
        return loss.numpy(), z.grad.numpy()
    got = run()
    monkeypatch.setattr(NL, "_plain_total", lambda x, coef: None)       # numpy's path
    want = run()
    assert np.isfinite(got[0]).all()
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_repeat2d_is_np_repeat(dtype):
    from jitgrad.ops.core import compiled_kernels
    kernels = compiled_kernels("forward_window")
    rng = np.random.default_rng(9)
    for _ in range(100):
        shape = tuple(int(v) for v in rng.integers(1, 4, 2)) + \
            tuple(int(v) for v in rng.integers(1, 8, 2))
        rh, rw = (int(v) for v in rng.integers(1, 5, 2))
        x = _data(rng, shape, ["plain", "nan", "zeros"][_ % 3], dtype)
        want = np.repeat(np.repeat(x, rh, axis=2), rw, axis=3)
        got = np.empty_like(want)
        kernels.repeat2d(x, rh, rw, got)
        assert got.tobytes() == want.tobytes()


def test_interpolate_nearest_upsampling_equals_the_numpy_repeat(monkeypatch):
    rng = np.random.default_rng(10)
    x0 = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    x0[0, 0, 1, 1] = np.nan
    c = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)

    def run():
        x = paddle.to_tensor(x0, stop_gradient=False)
        y = F.interpolate(x, scale_factor=[2, 3])
        (y * paddle.to_tensor(c)).sum().backward()
        return y.numpy(), x.grad.numpy()
    got = run()
    from jitgrad.ops import core
    real = core.compiled_kernels
    monkeypatch.setattr(core, "compiled_kernels",
                        lambda m: None if m == "forward_window" else real(m))
    want = run()
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()
    assert RS._nearest_factor(5, 10, 0.5, False) == 2 and RS._nearest_factor(5, 7, 5 / 7,
                                                                             False) == 0
