"""The compiled special-function forwards (vm/forward_special.py) against the numpy versions
the ops use before Numba is loaded: float32 results equal to theirs (both round a float64
value), float64 ones within a few ulp, edge values (poles, +-1, inf, nan) the same."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import math as M
from jitgrad.ops import special as S

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf

EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1e-300, 1e-5, 0.5, 1.0, 9.999, 10.0, 1e5, math.inf,
         -math.inf, math.nan]


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _both(x, kernel, numpy_fn, *args):
    got = M.special_kernel(x, kernel, *args)
    assert got is not None and got.dtype == x.dtype and got.shape == x.shape
    with np.errstate(all="ignore"):
        want = np.asarray(numpy_fn(x), dtype=x.dtype)
    return got, want


def _close(got, want, rtol):
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = np.isfinite(want)
    assert np.array_equal(got[~ok & ~np.isnan(want)], want[~ok & ~np.isnan(want)])
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_polygamma(dtype, n):
    rng = np.random.default_rng(n)
    x = np.concatenate([rng.uniform(0.01, 30, 300), rng.uniform(-20, 0, 105), EDGES])
    x = x.astype(dtype).reshape(-1, 4)[:, 1:]                    # not contiguous
    got = S._psi_compiled(n, x)
    assert got is not None and got.dtype == x.dtype and got.shape == x.shape
    with np.errstate(all="ignore"):
        want = np.asarray(S._polygamma64(n, x), dtype=dtype)
    # near psi's root and near poles only absolute accuracy is meaningful
    scale = np.maximum(np.abs(want), 1.0)
    ok = np.isfinite(want)
    assert np.all(np.abs(got - want)[ok] <= 4e-13 * scale[ok] * (1 + np.abs(x[ok]))) \
        if dtype == np.float64 else np.all(np.abs(got - want)[ok] <= 1.2e-7 * scale[ok])
    _close(got[~ok], want[~ok], 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lgamma_erf_gelu(dtype):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-6, 6, 400), EDGES]).astype(dtype)
    rtol = 0 if dtype == np.float32 else 4e-15
    got, want = _both(x, "lgamma", S._lgamma64)          # near its zeros: absolute error
    _close(got, want, 1e-6)
    assert np.all(np.abs(got - want)[np.isfinite(want)] <=
                  (rtol or 3e-8) * np.maximum(np.abs(want), 1)[np.isfinite(want)])
    _close(*_both(x, "erf", lambda v: np.frompyfunc(math.erf, 1, 1)(v.astype(np.float64))),
           rtol)
    gelu = np.frompyfunc(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))), 1, 1)
    _close(*_both(x, "gelu", lambda v: gelu(v.astype(np.float64))), 1e-13)
    slope = np.frompyfunc(lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2))) + v * math.exp(
        -0.5 * v * v) / math.sqrt(2 * math.pi), 1, 1)
    _close(*_both(x, "gelu_deriv", lambda v: slope(v.astype(np.float64))), 1e-13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_without_libm_special_values_and_tails(dtype):
    """The kernel's own erf (no libm call): float32 correctly rounded (exhaustively so:
    perf/check_erf_exhaustive.py), float64 within an ulp of math.erf, the edges exact."""
    rng = np.random.default_rng(3)
    tiny = 10.0 ** rng.uniform(-323 if dtype == np.float64 else -45, 0, 2000)
    x = np.concatenate([rng.uniform(-7, 7, 4000), tiny, -tiny, [
        0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 0.875, 6.0, 5.99, 1e30, -1e30,
        np.nextafter(0.875, 0), 3.9, -3.9]]).astype(dtype)
    got = M.special_kernel(x, "erf")
    want = np.array([math.erf(float(v)) for v in x])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.signbit(got), np.signbit(want))
    ok = ~np.isnan(want)
    if dtype == np.float32:
        assert np.array_equal(got[ok], want[ok].astype(np.float32))
    else:
        assert np.all(np.abs(got - want)[ok] <= np.spacing(np.abs(want[ok])))


def test_erfinv():
    rng = np.random.default_rng(2)
    y = np.concatenate([rng.uniform(-1, 1, 2000), 1 - 10.0 ** -rng.uniform(2, 15, 200),
                        [0.0, -0.0, 1.0, -1.0, 1.5, -3.0, math.nan, math.inf]])
    with np.errstate(all="ignore"):
        want = S._erfinv64(y)
        want32 = S._erfinv64(y.astype(np.float32)).astype(np.float32)
    got32 = S._erfinv(y.astype(np.float32))
    assert np.array_equal(got32, want32, equal_nan=True)          # both correctly rounded
    got = S._erfinv(y)
    _close(got, want, 2e-3)                 # the numpy version is less accurate in the tails
    inner = np.abs(y) < 0.5
    np.testing.assert_allclose(got[inner], want[inner], rtol=1e-14)
    # the tails: erfc of the result gives 1 - |y| back (mpmath: ~3e-16 relative error)
    tail = (np.abs(y) >= 0.5) & (np.abs(y) < 1)
    back = np.array([math.erfc(abs(v)) for v in got[tail]])
    np.testing.assert_allclose(back, 1 - np.abs(y[tail]), rtol=2e-13)


def test_ops_use_the_kernels_and_keep_gradients():
    x = paddle.to_tensor([0.3, 0.7, 1.9], stop_gradient=False)
    for f in (paddle.lgamma, paddle.digamma, paddle.erfinv, paddle.erf,
              paddle.nn.functional.gelu):
        y = f(x * 0.5)
        (g,) = paddle.grad(y.sum(), [x])
        assert np.isfinite(g.numpy()).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_remainder_by_a_scalar_is_numpys_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-50, 50, 500), rng.standard_normal(200) * 1e7,
                        rng.integers(-100, 100, 200) * float(dtype(0.7)), EDGES,
                        [-e for e in EDGES]]).astype(dtype)
    for d in (0.7, -0.7, 1.0, -3.3, 2.5e-7, 12345.678, 0.0, -0.0, math.inf, -math.inf,
              math.nan):
        got, want = _both(x, "remainder", lambda a: np.remainder(a, dtype(d)),
                          np.array([d], dtype), dtype == np.float32)
        assert np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(np.signbit(got[~np.isnan(want)]),
                              np.signbit(want[~np.isnan(want)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nu, scaled", [(0, False), (1, False), (0, True), (1, True)])
def test_bessel(dtype, nu, scaled):
    from jitgrad.ops import bessel as B
    x = np.concatenate([np.array(EDGES + [-3.0, 14.99, 15.0, 15.01, -16.0, 700.0, -800.0]),
                        np.random.default_rng(nu).uniform(-40, 40, 2000)]).astype(dtype)
    got, want = _both(x, "bessel", lambda v: B._bessel64(v, nu, scaled), nu, scaled)
    if dtype == np.float32:         # (only exp's last float64 bit may differ: numpy's, libm's)
        assert np.array_equal(got, want, equal_nan=True)
    else:
        _close(got, want, 1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_output_and_factor_in_one_pass(name, dtype):
    """bessel_pair (through paddle.<name>) gives the numpy path's output and saved factor bit
    for bit: the series, the asymptotic branch beyond 15, overflow, zeros, inf and nan."""
    from jitgrad.ops import bessel as B
    from jitgrad.ops.registry import REGISTRY
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-20, 20, 600), rng.uniform(-120, 120, 100),
                        rng.uniform(-1e-3, 1e-3, 50), EDGES, [15.0, -15.0, 15.000001, 700.0,
                                                              -0.0, 1e-310]])
    x = x.astype(dtype)
    x = np.stack([x, x]).T                                      # not contiguous: x[:, 0]
    op = REGISTRY[name]
    t = paddle.to_tensor(x, stop_gradient=False)[:, 0]
    data = np.ascontiguousarray(x[:, 0])
    with np.errstate(all="ignore"):
        y = getattr(paddle, name)(t)
        want = op.forward(data)
        (factor,) = op.save((True,), want, data)
        ref = np.asarray(B._bessel64(data, int(name[1]), name.endswith("e")), dtype)
    # (numpy's float64 exp may differ from the C library's in the last bit: test_bessel)
    for got, w in ((y._data, want), (y._node.saved[0], factor)) + (
            ((want, ref),) if dtype == np.float32 else ()):
        np.testing.assert_array_equal(got, w)
        assert np.array_equal(np.signbit(got), np.signbit(w))
