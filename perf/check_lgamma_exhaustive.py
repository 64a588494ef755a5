"""Exhaustive checks of vm/forward_special.py's lgamma and digamma kernels (not a test: minutes).

    /work/venv/bin/python perf/check_lgamma_exhaustive.py            # all checks
    /work/venv/bin/python perf/check_lgamma_exhaustive.py --fit      # re-derive R's coefficients
    /work/venv/bin/python perf/check_lgamma_exhaustive.py --quick    # every 64th chunk only

- lgamma, float32: all 2^32 inputs, the new kernels (lgamma_args, numpy's log,
  lgamma_finish; without and with digamma) against the former forward, the `lgamma`
  kernel: float32(libm's lgamma(float64(x))), the float64 reference rounded once, so the
  ulps from it are the ulps from that reference;
- digamma and its neighbours, float32: the lgamma op's output and saved factor (digamma)
  from the kernels it runs with a gradient, the digamma op's output and factor (psi_pair
  n = 0: digamma, trigamma) and polygamma(x, 1)'s (psi_pair n = 1: trigamma, polygamma 2),
  each against the former kernels (polygamma_shift, numpy's log, polygamma_series); on
  every input except the negative non-integers below -64 (their per-element recurrence
  runs |x| steps, up to 2^23: 16 of each chunk's instead). The forwards without a
  gradient (psi_pair without the pair) are checked on the float64 sample and in
  tests/test_special_fast.py: the same inline helpers. The poles below -2^63 and -inf are
  counted apart: there the former kernels gave digamma 2.2517... (their pole test took
  Numba's math.floor, an int64, undefined beyond 2^63), the new ones nan, as Paddle 3.3.1
  and the numpy version;
- float64: lgamma's relative error against math.lgamma on a dense sample over [-50, 1e6]
  (absolute error where |lgamma| < 1e-3, near its zeros), with the special points; a
  40-digit reference on a smaller sample (ours and libm's error side by side); digamma's
  kernels against the former ones bit for bit on the same sample.
--fit: R in lgamma(2 + t) = t R(t), |t| <= 1/2, by interpolation at Chebyshev nodes solved
in 80-digit decimal arithmetic against Stirling's series at z + 40 (no mpmath, no tables).
"""

from __future__ import annotations

import math
import sys
import time
from decimal import Decimal as D
from decimal import getcontext
from fractions import Fraction

import numpy as np

# ---- high precision (--fit, and the float64 reference) ----------------------------------------


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 .. B_n from sum_{j <= m} C(m + 1, j) B_j = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, j) * b[j] for j in range(m)) / (m + 1))
    return b


def _decimal_pi() -> D:
    """pi = 16 atan(1/5) - 4 atan(1/239), the series summed in decimal."""
    def atan_inv(k: int) -> D:
        x = D(1) / k
        x2, term, total, n = x * x, x, x, 1
        while True:
            term, n = -term * x2, n + 2
            if abs(term / n) < D(10) ** -(getcontext().prec + 2):
                return total
            total += term / n
    return 16 * atan_inv(5) - 4 * atan_inv(239)


class Lgamma:
    """log Gamma(z) for z > 0 in decimal arithmetic of `digits`: Stirling's series at
    w = z + shift (30 terms: below 1e-50 relative for w >= 40), minus log z (z + 1) ...
    (z + shift - 1)."""

    def __init__(self, digits: int = 80, shift: int = 40, terms: int = 30) -> None:
        getcontext().prec = digits
        self.shift = shift
        b = _bernoulli(2 * terms)
        self.coef = [D(b[2 * k].numerator) / D(b[2 * k].denominator) / (2 * k * (2 * k - 1))
                     for k in range(1, terms + 1)]
        self.half_log_2pi = (2 * _decimal_pi()).ln() / 2

    def __call__(self, z: D) -> D:
        w = z + self.shift
        s = (w - D("0.5")) * w.ln() - w + self.half_log_2pi
        wp, w2 = w, w * w
        for c in self.coef:
            s += c / wp
            wp *= w2
        prod = D(1)
        for j in range(self.shift):
            prod *= z + j
        return s - prod.ln()


def fit(deg: int = 19) -> list[float]:
    """R's coefficients (degree 0 first), printed with R's relative error on a grid."""
    lg = Lgamma()

    def solve(a: list, b: list) -> list:
        n = len(b)
        m = [row[:] + [bb] for row, bb in zip(a, b)]
        for i in range(n):
            p = max(range(i, n), key=lambda r: abs(m[r][i]))
            m[i], m[p] = m[p], m[i]
            for r in range(i + 1, n):
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
        x = [D(0)] * n
        for i in range(n - 1, -1, -1):
            x[i] = (m[i][n] - sum(m[i][c] * x[c] for c in range(i + 1, n))) / m[i][i]
        return x

    nodes = 0.5 * np.cos(np.pi * (np.arange(deg + 1) + 0.5) / (deg + 1))
    ts = [D(float(t)) for t in nodes]
    c = solve([[t ** k for k in range(deg + 1)] for t in ts], [lg(2 + t) / t for t in ts])
    c = [float(v) for v in c]
    grid = [D(float(t)) for t in np.linspace(-0.5, 0.5, 400)]
    err = max(abs(sum(D(ck) * t ** k for k, ck in enumerate(c)) * t / lg(2 + t) - 1)
              for t in grid)
    print(f"R, degree {deg} (degree 0 first), max relative error {float(err):.2e}:")
    print(c)
    return c


# ---- the kernels, old and new ----------------------------------------------------------------


def _kernels():
    import jitgrad
    jitgrad.warmup(quiet=True)
    from jitgrad.ops import special as S
    from jitgrad.vm import forward_special as F
    return S, F


def old_psi(S, F, n: int, x: np.ndarray) -> np.ndarray:
    """The former polygamma forward: polygamma_shift, numpy's log, polygamma_series."""
    flat = x.reshape(-1)
    zs, accs = np.empty(flat.size), np.empty(flat.size)
    F.polygamma_shift(flat, n, S._SHIFT_TO, zs, accs)
    out = np.empty(flat.size, x.dtype)
    with np.errstate(all="ignore"):
        F.polygamma_series(flat, out, n, *S._series(n), zs, accs,
                           np.log(zs) if n == 0 else zs)
    return out


def old_lgamma(F, x: np.ndarray) -> np.ndarray:
    out = np.empty(x.size, x.dtype)
    F.lgamma(x, out)
    return out


def new_outputs(S, x: np.ndarray, psi: bool = True, alone: bool = True) -> dict:
    """The new kernels' outputs as the ops get them, name -> array: lgamma alone (psi
    False) or with the lgamma op's saved factor (digamma) and the digamma family (alone:
    also psi_n without psi_(n+1), the no-gradient forward)."""
    lg, dg = S._lgamma_compiled(x, psi)
    if not psi:
        return {"lgamma": lg}
    got = {"lgamma (with digamma)": lg, "lgamma'": dg}
    got["digamma"], got["digamma'"] = S._psi_pair(x, 0, True)
    got["polygamma1"], got["polygamma1'"] = S._psi_pair(x, 1, True)
    if alone:
        got["digamma alone"] = S._psi_pair(x, 0, False)[0]
        got["polygamma1 alone"] = S._psi_pair(x, 1, False)[0]
    return got


def old_outputs(S, F, x: np.ndarray, psi: bool = True, alone: bool = True,
                lgamma: np.ndarray | None = None) -> dict:
    """What the former kernels give for the same names (lgamma: the C library's values of
    x when known)."""
    lg = old_lgamma(F, x) if lgamma is None else lgamma
    if not psi:
        return {"lgamma": lg}
    p0, p1, p2 = (old_psi(S, F, n, x) for n in (0, 1, 2))
    got = {"lgamma (with digamma)": lg, "lgamma'": p0, "digamma": p0, "digamma'": p1,
           "polygamma1": p1, "polygamma1'": p2}
    if alone:
        got.update({"digamma alone": p0, "polygamma1 alone": p1})
    return got


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal bits, or both nan."""
    if a.dtype == np.float32:
        eq = a.view(np.uint32) == b.view(np.uint32)
    else:
        eq = a.view(np.uint64) == b.view(np.uint64)
    return eq | (np.isnan(a) & np.isnan(b))


def _ulps32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in float32 ulps (ordered bit patterns; equal infinities 0, nan pairs 0,
    nan against a number 2^31)."""
    def key(v):
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    d = np.abs(key(a) - key(b))
    both = np.isnan(a) & np.isnan(b)
    one = np.isnan(a) ^ np.isnan(b)
    return np.where(both, 0, np.where(one, 1 << 31, d))


class _Tally:
    """Per output name: mismatches with the former kernels, the first few, and the
    histogram of ulps (0, 1, 2, more) from the former value = the float64 value rounded."""

    def __init__(self) -> None:
        self.bad: dict = {}
        self.first: dict = {}
        self.hist: dict = {}
        self.worst: dict = {}

    def add(self, name: str, x: np.ndarray, new: np.ndarray, old: np.ndarray) -> None:
        bad = ~_same(new, old)
        self.bad[name] = self.bad.get(name, 0) + int(bad.sum())
        first = self.first.setdefault(name, [])
        first += [(float(v), float(a), float(b)) for v, a, b in
                  zip(x[bad][:5], new[bad][:5], old[bad][:5])][:5 - len(first)]
        u = _ulps32(new, old)
        h = np.bincount(np.minimum(u, 3), minlength=4)
        self.hist[name] = self.hist.get(name, 0) + h
        self.worst[name] = max(self.worst.get(name, 0), int(u.max()) if u.size else 0)

    def report(self) -> None:
        for name in self.bad:
            h = self.hist[name]
            print(f"  {name:22s} new != former: {self.bad[name]}; ulps: 0: {h[0]}, 1: {h[1]}, "
                  f"2: {h[2]}, more: {h[3]} (max {self.worst[name]}); first {self.first[name]}")


def check_float32(quick: bool) -> None:
    """All 2^32 float32 inputs (--quick: every 64th chunk of 2^24). The former kernels
    compute in float64 and round once: their float32 value is the float64 reference
    (math.lgamma, the float64 digamma kernels) rounded, so ulps from it count both."""
    S, F = _kernels()
    t0 = time.time()
    chunk, part = 1 << 24, 1 << 16          # (kernels on parts: their arrays stay in cache)
    starts = range(0, 1 << 32, chunk)
    if quick:
        starts = starts[::64]
    tally = _Tally()
    psi_inputs, pole_values = 0, {}
    rng = np.random.default_rng(0)
    for start in starts:
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        with np.errstate(invalid="ignore"):           # (signalling nans)
            far = (x < -64) & (x != np.floor(x))      # (digamma's |x|-step recurrence)
        sample = rng.choice(x[far], size=16, replace=False) if far.sum() >= 16 else x[far]
        xs = np.concatenate([x[~far], sample])
        psi_inputs += xs.size
        for k in range(0, x.size, part):          # lgamma alone: every input
            sub = x[k:k + part]
            new, libm = new_outputs(S, sub, False)["lgamma"], old_lgamma(F, sub)
            tally.add("lgamma", sub, new, libm)
        for k in range(0, xs.size, part):         # with digamma: the lgamma op's gradient
            sub = xs[k:k + part]
            new, old = new_outputs(S, sub, alone=False), old_outputs(S, F, sub, alone=False)
            # the poles below -2^63 and -inf: the former kernels' pole test floor(x) == x
            # took Numba's math.floor, an int64 (undefined there)
            missed = sub < -2.0 ** 63
            for name in new:
                a, b, v = new[name], old[name], sub
                if name != "lgamma (with digamma)" and missed.any():
                    differ = ~_same(a[missed], b[missed])
                    seen = pole_values.setdefault(name, [0, set()])
                    seen[0] += int(differ.sum())
                    pairs = (a[missed].view(np.uint32).astype(np.uint64) << 32) | \
                        b[missed].view(np.uint32)
                    seen[1].update(np.unique(pairs).tolist())      # (both values' bits)
                    a, b, v = a[~missed], b[~missed], sub[~missed]
                tally.add(name, v, a, b)
        if start % (1 << 28) == 0:
            print(f"  {start >> 24:3d}/256 chunks, {time.time() - t0:.0f} s", flush=True)
    print(f"float32: {len(starts) * chunk} inputs for lgamma; {psi_inputs} for the lgamma op's "
          f"saved digamma and the digamma family (the negative non-integers below -64: 16 "
          f"of each chunk's)")
    tally.report()
    print("  x < -2^63 and -inf (poles; the former kernels' pole test was undefined there: "
          "Numba's math.floor gives an int64): name: differ, {(new, former) values}")
    for name, (differ, bits) in pole_values.items():
        values = {tuple(np.array([p >> 32, p & 0xFFFFFFFF], np.uint32).view(np.float32)
                        .tolist()) for p in bits}
        print(f"    {name:20s} {differ}, {values}")
    print(f"{time.time() - t0:.0f} s")


def check_float64(n_dense: int = 10_000_000, n_decimal: int = 20_000) -> None:
    S, F = _kernels()
    t0 = time.time()
    rng = np.random.default_rng(1)
    pieces = [rng.uniform(-50, 50, n_dense * 3 // 10),
              10 ** rng.uniform(-3, 6, n_dense * 3 // 10),
              rng.uniform(0, 12, n_dense * 2 // 10),
              1 + rng.uniform(-1e-3, 1e-3, n_dense // 20),
              2 + rng.uniform(-1e-3, 1e-3, n_dense // 20),
              1 + 10 ** rng.uniform(-17, -3, n_dense // 40) * rng.choice([-1, 1], n_dense // 40),
              2 + 10 ** rng.uniform(-16, -3, n_dense // 40) * rng.choice([-1, 1], n_dense // 40),
              10 ** rng.uniform(-320, -3, n_dense // 20),
              np.arange(-50.0, 1e6 + 1, 1.0)[:n_dense // 10],
              np.arange(-50.0, 1e6, 0.5)[::7]]
    edges = [0.5, 1.5, 2.5, 3.5, 9.5, 10.0, 1e-3, 2.0 ** 64, 2.0 ** 63]
    edges = np.array(edges + [np.nextafter(e, s) for e in edges for s in (0, np.inf)])
    special = np.array([0.0, -0.0, -1.0, -2.0, -3.0, -50.0, np.inf, -np.inf, np.nan, 5e-324,
                        -5e-324, 2.2250738585072014e-308, 1e-300, 1e300, 2.5e305, 3e305,
                        np.finfo(np.float64).max, 1.0, 2.0])
    x = np.concatenate(pieces + [edges, special])
    new = new_outputs(S, x)
    old = old_outputs(S, F, x)
    ref = old.pop("lgamma (with digamma)")
    lg = new.pop("lgamma (with digamma)")
    assert np.array_equal(lg, new_outputs(S, x, psi=False)["lgamma"], equal_nan=True)
    fin = np.isfinite(ref)
    assert np.array_equal(np.isnan(lg), np.isnan(ref)), "nan where libm has none (or not)"
    assert np.array_equal(lg[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)]), "inf differs"
    near = fin & (np.abs(ref) < 1e-3)
    far = fin & ~near
    rel = np.abs(lg[far] - ref[far]) / np.abs(ref[far])
    k = int(np.argmax(rel))
    ab = np.abs(lg[near] - ref[near])
    j = int(np.argmax(ab)) if ab.size else 0
    print(f"float64 lgamma: {x.size} inputs over [-50, 1e6] + tiny, huge, specials; "
          f"{np.mean(lg != ref):.3f} differ from math.lgamma")
    print(f"  |lgamma| >= 1e-3: max relative error {rel.max():.2e} at {x[far][k]!r}; "
          f"> 4e-15: {int((rel > 4e-15).sum())}; > 1e-15: {int((rel > 1e-15).sum())}")
    if ab.size:
        print(f"  |lgamma| < 1e-3 ({int(near.sum())} inputs): max absolute error "
              f"{ab.max():.2e} at {x[near][j]!r} (relative there "
              f"{(ab / np.maximum(np.abs(ref[near]), 1e-300)).max():.2e} at most)")
    sp, sp_libm = new_outputs(S, special, psi=False)["lgamma"], old_lgamma(F, special)
    print(f"  special points {special.tolist()}: the same bits as libm's "
          f"{bool(_same(sp, sp_libm).all())}")
    for name in new:
        bad = ~_same(new[name], old[name]) & (x != -np.inf)
        print(f"  {name:18s} new != former: {int(bad.sum())}")
    # a 40-digit reference on a smaller sample: ours and libm's errors side by side
    lgd = Lgamma(digits=40, shift=30, terms=20)
    xs = np.concatenate([rng.uniform(0, 12, n_decimal // 2),
                         10 ** rng.uniform(-3, 6, n_decimal // 2)])
    ours = new_outputs(S, xs, psi=False)["lgamma"]
    libm = old_lgamma(F, xs)
    exact = np.array([float(lgd(D(float(v)))) for v in xs])
    # (the decimal value rounded to float64: its own error below half an ulp)
    def ulps(a):
        return np.abs(a - exact) / np.spacing(np.abs(exact))
    print(f"  40-digit reference, {xs.size} inputs in (0, 1e6): ours max {ulps(ours).max():.2f} "
          f"ulp (mean {ulps(ours).mean():.3f}), libm's max {ulps(libm).max():.2f} "
          f"(mean {ulps(libm).mean():.3f})")
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    if "--fit" in sys.argv:
        fit()
    else:
        check_float64(1_000_000 if "--quick" in sys.argv else 10_000_000,
                      2_000 if "--quick" in sys.argv else 20_000)
        check_float32("--quick" in sys.argv)
