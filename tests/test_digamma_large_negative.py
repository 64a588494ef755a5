"""digamma / polygamma at large negative arguments: the reflection formula
psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) cot^(n)(pi x) (vm/forward_special.py), so every
input finishes at once (the recurrence took |x| steps: float64 x = -1e15 - 0.5 hung), and the
values at +-inf and nan.

Paddle 3.3.1 measured 2026-12-05 (/work/peers/bin/python, CPU, float64 unless noted):
  digamma(-1e15 - 0.5) = 34.538776394910684, digamma(-1e15 - 0.25) = 37.68036904850048,
  digamma(-2**52 + 0.5) = 36.04365338911715, digamma(-3e7 - 0.5) = 17.216707972959764,
  digamma(-1e6 - 0.5) = 13.815511557963816, digamma(-12345.25) = 12.56265980713847,
  digamma(-8388607.5) = 15.942385152878742, digamma(-4194304.5) = 15.24923821073735;
  float32: -1e15 - 0.5 and -3e7 - 0.5 round to integers there (poles: nan); the largest
  float32 non-integers are below 2^23 (-8388607.5);
  polygamma(x, n >= 1) at x = -1e15 - 0.5 never returned (Cephes' zeta steps |x| times:
  polygamma(-1e8 - 0.5, 1) took 3.1 s), so those are pinned to closed forms;
  polygamma(x, 1) at -12345.25: 19.739127802644507; polygamma(x, 3) at half-integers from
  -1e6 - 0.5 down: 194.81818206800483 (2 pi^4);
  digamma(+inf) = inf, digamma(-inf) = nan, polygamma(+inf, n >= 1) = nan,
  polygamma(-inf, n) = inf for odd n, -inf for even n, nan -> nan.
jitgrad keeps polygamma(+inf, n >= 1) = 0, the limit (README, "Paddle compatibility": a
deliberate difference, listed in perf/paddle_cases/special_points.py's KNOWN table).
"""

import math
import time

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import special as S

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")

PI2 = math.pi ** 2
HUGE = [-1e15 - 0.5, -1e15 - 0.25, -2.0 ** 52 + 0.5, -3e7 - 0.5, -1e6 - 0.5, -12345.25,
        -8388607.5, -4194304.5]
PADDLE_DIGAMMA = [34.538776394910684, 37.68036904850048, 36.04365338911715,
                  17.216707972959764, 13.815511557963816, 12.56265980713847,
                  15.942385152878742, 15.24923821073735]


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _t(values, dtype="float64", grad=False):
    return paddle.to_tensor(np.array(values, dtype), stop_gradient=not grad)


def _psi_n_big(n, z):
    """psi_n(z) for z >= 1e4 by its asymptotic series' first terms (the rest < 1e-16 rel)."""
    if n == 0:
        return math.log(z) - 0.5 / z - 1 / (12 * z * z)
    f = math.factorial
    return (-1) ** (n + 1) * (f(n - 1) / z ** n + f(n) / (2 * z ** (n + 1))
                              + f(n + 1) / (12 * z ** (n + 2)))


def test_digamma_of_huge_negative_non_integers_is_paddles_and_finishes():
    x = np.array(HUGE * 2000)                            # 16000 elements
    # the kernels compiled first, on ordinary float64 values (the same signature): a cold
    # Numba cache's compile took 22 s of the 20 in one CI run
    paddle.digamma(paddle.to_tensor(np.array([-1.5, 2.5])))
    start = time.perf_counter()
    got = paddle.digamma(paddle.to_tensor(x)).numpy()
    assert time.perf_counter() - start < 20              # (was |x| steps an element)
    np.testing.assert_allclose(got[:8], PADDLE_DIGAMMA, rtol=5e-16, atol=0)


def test_float32_digamma_is_the_float64_value_rounded_and_nan_where_x_rounds_to_a_pole():
    x32 = np.array(HUGE, np.float32)
    assert x32[0] == -999999986991104.0 and x32[3] == -3e7      # integers: poles
    got = paddle.digamma(paddle.to_tensor(x32)).numpy()
    assert np.isnan(got[[0, 1, 2, 3]]).all()            # (Paddle: nan at -1e15 - 0.5, -3e7 - 0.5)
    # Paddle's float32 values at -8388607.5, -4194304.5, -12345.25 equal these; at
    # -1e6 - 0.5 its float32 arithmetic gives 13.815510749816895, one float32 ulp lower
    assert got[4:].tolist() == np.float32(PADDLE_DIGAMMA[4:]).tolist()


@pytest.mark.parametrize("k", [1e15, 123456789.0, 1e6, 10000.0])
def test_polygamma_at_huge_negative_half_integers_are_the_closed_forms(k):
    # cot(pi x) = 0 at x = -k - 1/2: psi(x) = psi(k + 3/2), psi_1(x) = pi^2 - psi_1(k + 3/2),
    # psi_2(x) = psi_2(k + 3/2), psi_3(x) = 2 pi^4 - psi_3(k + 3/2)
    x, z = -k - 0.5, k + 1.5
    got = [float(paddle.polygamma(_t([x]), n).numpy()[0]) for n in range(4)]
    want = [_psi_n_big(0, z), PI2 - _psi_n_big(1, z), _psi_n_big(2, z),
            2 * math.pi ** 4 - _psi_n_big(3, z)]
    np.testing.assert_allclose(got, want, rtol=5e-16, atol=0)
    # and psi_2 is exactly the kernel's psi_2(k + 3/2): the cot term is 0.0
    assert got[2] == float(paddle.polygamma(_t([z]), 2).numpy()[0])


def test_polygamma_at_huge_negative_quarter_integers_are_the_closed_forms():
    # cot(pi x) = -1 at x = -k - 1/4: psi(x) = psi(k + 5/4) + pi,
    # psi_1(x) = 2 pi^2 - psi_1(k + 5/4), psi_2(x) = psi_2(k + 5/4) + 4 pi^3
    for k in (12345.0, 1e12):
        x, z = -k - 0.25, k + 1.25
        got = [float(paddle.polygamma(_t([x]), n).numpy()[0]) for n in range(3)]
        want = [_psi_n_big(0, z) + math.pi, 2 * PI2 - _psi_n_big(1, z),
                _psi_n_big(2, z) + 4 * math.pi ** 3]
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    # Paddle 3.3.1 at -12345.25: polygamma(x, 1) = 19.739127802644507 (as ours, 1e-15)
    got = float(paddle.polygamma(_t([-12345.25]), 1).numpy()[0])
    assert got == pytest.approx(19.739127802644507, rel=1e-15, abs=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_at_huge_negative_arguments_are_bounded_and_the_closed_forms(dtype):
    x = [-1e6 - 0.5, -12345.25, -8388607.5]
    want1 = [PI2 - _psi_n_big(1, 1e6 + 1.5), 2 * PI2 - _psi_n_big(1, 12346.25),
             PI2 - _psi_n_big(1, 8388608.5)]
    rtol = 1e-15 if dtype == "float64" else 6e-8
    t = _t(x, dtype, grad=True)
    (g,) = paddle.grad(paddle.digamma(t).sum(), [t])      # digamma' = trigamma (saved)
    np.testing.assert_allclose(g.numpy(), want1, rtol=rtol, atol=0)
    # Paddle 3.3.1's float32 digamma gradient is garbage there (-9.999989742937032e-07 at
    # -1e6 - 0.5); its float64 one is 9.869603401090357 (summed over 1e6 steps)
    (g,) = paddle.grad(paddle.lgamma(t).sum(), [t])       # lgamma' = digamma (saved)
    np.testing.assert_allclose(g.numpy(), paddle.digamma(_t(x, dtype)).numpy(), rtol=0)
    (g,) = paddle.grad(paddle.polygamma(t, 1).sum(), [t])  # psi_1' = psi_2
    want2 = [_psi_n_big(2, 1e6 + 1.5), _psi_n_big(2, 12346.25) + 4 * math.pi ** 3,
             _psi_n_big(2, 8388608.5)]
    np.testing.assert_allclose(g.numpy(), want2, rtol=rtol, atol=0)
    t = _t([-1e15 - 0.5], "float64", grad=True)
    (g,) = paddle.grad(paddle.polygamma(t, 3).sum(), [t])  # psi_3' = psi_4 (no pair kernel)
    assert float(g) == pytest.approx(_psi_n_big(4, 1e15 + 1.5), rel=1e-15)   # (cot = 0)


def test_even_polygammas_at_moderate_negative_half_integers_are_exact():
    # the recurrence's sum cancelled there (before: psi_2(-9969.5) 1.7e-7 off relative,
    # psi_4(-97.5) 1.2e-6 off, psi_2(-5/2) = -0.10820405164172818, 56 ulp); now the
    # reflection: psi_2n(-k - 1/2) is psi_2n(k + 3/2) bit for bit
    for n in (2, 4):
        for k in (2, 97, 9969):
            got = paddle.polygamma(_t([-k - 0.5]), n).numpy()[0]
            assert got == paddle.polygamma(_t([k + 1.5]), n).numpy()[0]
    # psi_2(7/2) = -14 zeta(3) + 2 (8 + 8/27 + 8/125) = -0.108204051641727403...
    got = paddle.polygamma(_t([-2.5]), 2).numpy()[0]
    assert got == pytest.approx(-0.10820405164172740, rel=5e-16, abs=0)


def test_moderate_negative_digamma_and_odd_polygammas_are_unchanged():
    # the kernels' values before the reflection (bit for bit; Paddle 3.3.1 gives the same
    # digamma and trigamma at -0.5 and -2.5, and psi_3 within 2 ulp)
    x = [-0.5, -2.5, -3.7, -12.3, -99.75, -1234.567, -9999.5]
    want = {
        0: [0.03648997397857645, 1.1031566406452433, -0.8450768588704194, 4.832199881811456,
            1.4660785584358953, 6.447675121166508, 9.210340372392857],
        1: [8.934802200544679, 9.539246644989124, 14.84242186412428, 15.00132835475216,
            19.729233822543144, 10.319311423827706, 9.869504401089442],
        3: [193.40909103400244, 194.74787621918762, 768.9946494408656, 769.0199635541322,
            1558.5454545590633, 231.60734629869935, 194.81818206800287]}
    for n, values in want.items():
        assert paddle.polygamma(_t(x), n).numpy().tolist() == values


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pair_general_and_numpy_versions_agree_at_large_negative_arguments(dtype):
    rng = np.random.default_rng(4)
    x = np.concatenate([-(10.0 ** rng.uniform(4, 15.6, 500)), rng.uniform(-1e4, 0, 200),
                        HUGE, [-10000.5, -9999.5, -1e4 - 1 / 1024]]).astype(dtype)
    x = x[np.floor(x) != x]
    d, d1 = S._psi_pair(x, 0, True)
    _, d2 = S._psi_pair(x, 1, True)
    assert np.array_equal(S._lgamma_compiled(x, True)[1], d)
    for n, got in ((0, d), (1, d1), (2, d2)):        # the general kernels: bit for bit
        assert np.array_equal(S._psi_compiled(n, x), got)
    for n in (0, 1, 2, 3, 5):
        got = S._psi_compiled(n, x)
        with np.errstate(all="ignore"):
            want = S._polygamma64(n, x)
        assert np.isfinite(got).all()
        if dtype == np.float64:                      # (near zeros: absolute)
            np.testing.assert_allclose(got, want, rtol=4e-13, atol=1e-13)
        else:
            np.testing.assert_allclose(got, want.astype(dtype), rtol=1.2e-7, atol=1e-30)


def test_infinities_and_nan():
    x = _t([math.inf, -math.inf, math.nan])
    d = paddle.digamma(x).numpy()                        # Paddle: inf, nan, nan
    assert d[0] == math.inf and np.isnan(d[1:]).all()
    for n in (1, 2, 3, 4):
        got = paddle.polygamma(x, n).numpy()
        # Paddle: nan at +inf (jitgrad: 0, the limit; deliberate), (-1)^(n+1) inf at -inf
        assert got[0] == 0.0 and got[1] == (math.inf if n % 2 else -math.inf)
        assert np.isnan(got[2])
        with np.errstate(all="ignore"):
            assert np.array_equal(S._polygamma64(n, x.numpy()), got, equal_nan=True)
