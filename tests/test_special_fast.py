"""lgamma and digamma in one pass (vm/forward_special.py's lgamma_args / lgamma_finish and
psi_pair_shift / psi_pair_series, ops/special.py's _lgamma_compiled and _psi_pair):

- float32 lgamma equals the C library's lgamma rounded (the former forward, kept as the
  `lgamma` kernel) bit for bit, on the regions where the new series, the reduction and the
  float32 rounding test change over, near the zeros, tiny, huge and special values
  (perf/check_lgamma_exhaustive.py checks all 2^32 inputs);
- float64 lgamma within 4e-15 relative of math.lgamma (absolute near its zeros);
- digamma, trigamma and polygamma 2 from the pair kernels equal the former kernels'
  (polygamma_shift, numpy's log, polygamma_series) bit for bit, in both dtypes;
- the ops save those as their derivative factors: gradients equal the derivative ops'
  values, with and without the one-pass path (no gradient needed, no_grad), and second
  derivatives still record.
"""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import special as S

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")


@pytest.fixture(scope="module")
def kernels():
    paddle.warmup(quiet=True)
    from jitgrad.vm import forward_special as F
    return F


def _inputs(dtype, seed=0):
    """Inputs over every region of the new kernels (and their edges), flattened."""
    rng = np.random.default_rng(seed)
    edges = [0.5, 1.5, 2.5, 3.5, 9.5, 10.0, 1e-3, 2.0 ** 64, 1.0, 2.0]
    near = [np.nextafter(np.asarray(e, dtype), np.asarray(s, dtype)) for e in edges
            for s in (0, np.inf)]
    tiny = np.finfo(dtype).tiny
    x = np.concatenate([
        rng.uniform(0.4, 3.4, 3000), rng.uniform(0, 12, 3000), rng.uniform(-30, 30, 1000),
        10 ** rng.uniform(-30, 30, 2000), 1 + rng.uniform(-1e-3, 1e-3, 500),
        2 + rng.uniform(-1e-3, 1e-3, 500), edges, near,
        [0.0, -0.0, -1.0, -2.0, -50.0, math.inf, -math.inf, math.nan, tiny, tiny / 8,
         np.finfo(dtype).max, -2.5, -0.5]]).astype(dtype)
    return x


def _libm_lgamma(F, x):
    x = np.ascontiguousarray(x)
    out = np.empty_like(x)
    F.lgamma(x.reshape(-1), out.reshape(-1))
    return out


def _former_psi(F, n, x):
    """The former polygamma forward (the kernels stay for n > 1 and as this reference)."""
    zs, accs = np.empty(x.size), np.empty(x.size)
    F.polygamma_shift(x, n, S._SHIFT_TO, zs, accs)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        F.polygamma_series(x, out, n, *S._series(n), zs, accs, np.log(zs) if n == 0 else zs)
    return out


def _bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    same &= np.signbit(a) == np.signbit(b)
    assert same.all(), list(zip(a[~same][:5], b[~same][:5]))


@pytest.mark.parametrize("psi", [False, True])
def test_float32_lgamma_is_the_c_librarys_rounded(kernels, psi):
    x = _inputs(np.float32)
    got, d = S._lgamma_compiled(x, psi)
    _bits_equal(got, _libm_lgamma(kernels, x))
    assert (d is None) == (not psi)


def test_float32_lgamma_near_rounding_boundaries_falls_back(kernels):
    # float32 inputs whose lgamma lies close to a float32 midpoint: the series alone may
    # round either way there; the rounding test hands them to the C library
    x = np.arange(0x3F000000, 0x3F000000 + (1 << 20), dtype=np.uint32).view(np.float32)
    got = S._lgamma_compiled(x, False)[0]
    _bits_equal(got, _libm_lgamma(kernels, x))


def test_float64_lgamma_is_within_4e_15_of_math_lgamma(kernels):
    x = _inputs(np.float64, seed=1)
    got = S._lgamma_compiled(x, True)[0]
    want = _libm_lgamma(kernels, x)
    fin = np.isfinite(want)
    _bits_equal(got[~fin], want[~fin])                         # inf at the poles, nan
    near = fin & (np.abs(want) < 1e-3)
    rel = np.abs(got - want)[fin & ~near] / np.abs(want[fin & ~near])
    assert rel.max() <= 4e-15
    assert np.abs(got - want)[near].max() <= 1e-18
    assert np.array_equal(got, S._lgamma_compiled(x, False)[0], equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_digamma_family_equals_the_former_kernels(kernels, dtype):
    x = _inputs(dtype, seed=2)
    x = x[x != -np.inf]         # (the former kernels' value there was undefined)
    former = {n: _former_psi(kernels, n, x) for n in (0, 1, 2)}
    _bits_equal(S._lgamma_compiled(x, True)[1], former[0])
    for n in (0, 1):
        out, factor = S._psi_pair(x, n, True)
        _bits_equal(out, former[n])
        _bits_equal(factor, former[n + 1])
        _bits_equal(S._psi_pair(x, n, False)[0], former[n])
        _bits_equal(S._psi_compiled(n, x), former[n])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_negative_integers_and_minus_infinity_are_poles(kernels, dtype):
    # the former kernels' pole test floor(x) == x used Numba's math.floor, an int64: below
    # -2^63 and at -inf it was undefined (digamma gave 2.2517... in large arrays); Paddle
    # 3.3.1 and the numpy version give nan, +inf, -inf as at the other poles
    x = np.array([-np.inf, -3e38, -1e19, -2.0 ** 63, -3.0, -0.0, 0.0], dtype)
    x = np.concatenate([np.full(4096, 1.5, dtype), x])     # (a vectorised loop's length)
    d, d1 = S._psi_pair(x, 0, True)
    assert np.isnan(d[-7:-2]).all() and d[-2] == math.inf and d[-1] == -math.inf
    assert d1[-7:].tolist() == [math.inf] * 7
    assert S._psi_pair(x, 1, True)[1][-7:].tolist() == [-math.inf] * 7
    lg, dg = S._lgamma_compiled(x, True)
    assert lg[-7:].tolist() == [math.inf] * 7
    _bits_equal(dg, d)
    with np.errstate(all="ignore"):
        _bits_equal(d[-7:], S._polygamma64(0, x[-7:]).astype(dtype))


def test_series_coefficients_are_ops_specials(kernels):
    for n in (0, 1, 2):
        assert kernels._PSI_COEF[n] == tuple(S._series(n)[2].tolist())
    assert kernels._SHIFT_TO == S._SHIFT_TO


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma1"])
def test_gradients_are_the_saved_derivatives(kernels, name, dtype):
    op, deriv = {"lgamma": (paddle.lgamma, paddle.digamma),
                 "digamma": (paddle.digamma, lambda t: paddle.polygamma(t, 1)),
                 "polygamma1": (lambda t: paddle.polygamma(t, 1),
                                lambda t: paddle.polygamma(t, 2))}[name]
    x0 = np.concatenate([_inputs(np.float32, seed=3)[:2000], [0.0, -1.0, 0.25]]).astype(dtype)
    x0 = x0[np.isfinite(x0) & (np.abs(x0) < 1e6)].reshape(-1, 1)
    x = paddle.to_tensor(x0, stop_gradient=False)
    y = op(x)
    with paddle.no_grad():
        y_plain = op(paddle.to_tensor(x0))
    _bits_equal(y.numpy(), y_plain.numpy())
    y.backward(paddle.ones_like(y))
    _bits_equal(x.grad.numpy(), deriv(paddle.to_tensor(x0)).numpy())
    assert y.numpy().dtype == np.dtype(dtype)


def test_second_derivative_of_lgamma_records(kernels):
    x = paddle.to_tensor([0.7, 2.3, 5.5], dtype="float64", stop_gradient=False)
    (g,) = paddle.grad(paddle.lgamma(x).sum(), [x], create_graph=True)
    (h,) = paddle.grad(g.sum(), [x])
    want = S._psi(1, np.array([0.7, 2.3, 5.5]))
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(g.numpy(), S._psi(0, np.array([0.7, 2.3, 5.5])), rtol=0)


def test_non_contiguous_and_zero_dim_inputs(kernels):
    x = np.linspace(0.1, 20, 64, dtype=np.float32).reshape(8, 8)[:, ::2]
    got, d = S._lgamma_compiled(x, True)
    assert got.shape == x.shape and d.shape == x.shape
    _bits_equal(got, _libm_lgamma(kernels, x))
    z = np.array(3.5, np.float64)
    assert S._lgamma_compiled(z, True)[0].shape == ()
    assert S._lgamma_compiled(z, True)[0] == pytest.approx(math.lgamma(3.5), rel=1e-15)
    assert S._lgamma_compiled(np.empty(0, np.float32), True)[0].shape == (0,)
