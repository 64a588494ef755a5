"""Exhaustive checks of vm/forward_special.py's libm-free erf and erfinv (not a test: minutes).

    /work/venv/bin/python perf/check_erf_exhaustive.py            # all checks
    /work/venv/bin/python perf/check_erf_exhaustive.py --fit      # re-derive the coefficients

- erf, float32: all 2^32 inputs against float32(math.erf(float64(x))), and the saved factor
  (vm/forward_activation.py's erf) against ops/math.py's numpy rule
  float32(float32(exp(-float32(x * x))) * float32(2/sqrt(pi))) with libm's exp;
- erf, float64: ulp distance to math.erf on a dense sample (tails, tiny, subnormal, specials);
- erfinv, float32: all inputs against the former libm-based kernel (kept below: Giles' start,
  one Halley step on math.erf/erfc) and against a float64 reference (three steps) rounded.
--fit: the coefficients, by interpolation at Chebyshev nodes solved in 90-digit decimal
arithmetic, against erf's Taylor series summed in decimal (no mpmath, no library tables).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

# ---- fitting (--fit) -----------------------------------------------------------------------


def fit() -> None:
    from decimal import Decimal as D, getcontext
    getcontext().prec = 90

    def pi():
        lasts, t, s, n, na, d, da = 0, D(3), 3, 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
        return +s
    PI = pi()

    def dexp(x):
        k = 0
        while abs(x) > D("0.01"):
            x /= 2
            k += 1
        s = t = D(1)
        n = 1
        while abs(t) > D(10) ** -95:
            t = t * x / n
            s += t
            n += 1
        for _ in range(k):
            s = s * s
        return s

    def derf(x):
        x2, t, s, n = x * x, x, x, 0
        while True:
            n += 1
            t = -t * x2 / n
            s += t / (2 * n + 1)
            if abs(t) < D(10) ** -85 and n > 5:
                return s * 2 / PI.sqrt()

    def solve(A, b):
        n = len(b)
        M = [row[:] + [bb] for row, bb in zip(A, b)]
        for i in range(n):
            p = max(range(i, n), key=lambda r: abs(M[r][i]))
            M[i], M[p] = M[p], M[i]
            for r in range(i + 1, n):
                f = M[r][i] / M[i][i]
                for c in range(i, n + 1):
                    M[r][c] -= f * M[i][c]
        x = [D(0)] * n
        for i in range(n - 1, -1, -1):
            x[i] = (M[i][n] - sum(M[i][c] * x[c] for c in range(i + 1, n))) / M[i][i]
        return x

    def interp(vs, fs, deg, center=D(0)):
        return [float(c) for c in solve([[(v - center) ** k for k in range(deg + 1)]
                                          for v in vs], fs)]

    def nodes(a, b, n):
        return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)

    T, X, K = 0.875, 6.0, 3.0
    xs = [D(float(v)) for v in np.sqrt(nodes(0, T * T, 13))]          # erf(x) = x + x R(x^2)
    c = interp([x * x for x in xs], [derf(x) / x - 1 for x in xs], 12)
    print("_erf_small", c)
    ua, ub = (T - K) / (T + K), (X - K) / (X + K)                      # erfcx in u
    xs = [D(float(K * (1 + u) / (1 - u))) for u in nodes(ua, ub, 18)]
    c = interp([(x - D(K)) / (x + D(K)) for x in xs],
               [dexp(x * x) * (1 - derf(x)) for x in xs], 17, D((ua + ub) / 2))
    print("_TAIL_C", (ua + ub) / 2, "_erfc_tail", c)
    rs = [D(float(r)) for r in nodes(-math.log(2) / 2 * 1.0005, math.log(2) / 2 * 1.0005, 11)]          # exp = 1 + r + r^2 Q
    print("_exp_neg", interp(rs, [(dexp(r) - 1 - r) / (r * r) for r in rs], 10))


# ---- checks --------------------------------------------------------------------------------


def main() -> None:
    import jitgrad
    jitgrad.warmup(quiet=True)
    import numba
    from jitgrad.vm import forward_activation as A, forward_special as F

    @numba.njit(parallel=True)
    def erf_ref(x, out, dref):
        c = np.float32(2.0 / math.sqrt(math.pi))
        for i in numba.prange(x.size):
            v = np.float64(x[i])
            out[i] = np.float32(math.erf(v))
            xx = x[i] * x[i]
            dref[i] = np.float32(math.exp(-np.float64(xx))) * c

    @numba.njit
    def halley(r, a):
        f = (1.0 - a) - math.erfc(r) if a > 0.5 else math.erf(r) - a
        slope = 2.0 / math.sqrt(math.pi) * math.exp(-r * r)
        if slope == 0.0:
            return 0.0
        u = f / slope
        return u / (1.0 + r * u)

    @numba.njit(parallel=True)
    def erfinv_old(y, out, steps):
        """The former kernel (libm's erf, erfc, exp; log(t) inline), `steps` Halley steps."""
        for i in numba.prange(y.size):
            t = np.float64(y[i])
            a = abs(t)
            if not a < 1.0:
                out[i] = math.copysign(math.inf, t) if a == 1.0 else math.nan
                continue
            w = -math.log((1.0 - a) * (1.0 + a))
            if w < 5.0:
                w = w - 2.5
                p = 2.81022636e-08
                for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                          -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
                    p = c + p * w
            else:
                w = math.sqrt(w) - 3.0
                p = -0.000200214257
                for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                          -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
                    p = c + p * w
            r = p * a
            for k in range(steps + 10):
                step = halley(r, a)
                r = r - step
                if k + 1 >= steps and abs(step) <= 1e-6 * r:
                    break
            out[i] = math.copysign(r, t)

    def same(a, b):
        return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))

    t0 = time.time()
    chunk = 1 << 24
    bad_erf, bad_d, worst = 0, 0, []
    inv_old, inv_ref, inv_worst = 0, 0, []
    for start in range(0, 1 << 32, chunk):
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        got, d = np.empty_like(x), np.empty_like(x)
        A.erf(x, got, d, np.float32(2.0 / math.sqrt(math.pi)))
        want, dref = np.empty_like(x), np.empty_like(x)
        erf_ref(x, want, dref)
        m = ~same(got, want)
        bad_erf += int(m.sum())
        worst += [(float(v), float(g), float(w)) for v, g, w in zip(x[m], got[m], want[m])][:5]
        bad_d += int((~same(d, dref)).sum())
        # erfinv: the same chunk as y (|y| < 1 and the rest)
        t = np.empty(x.size)
        F.erfinv_start(x, t)
        np.log(t, out=t)
        gi = np.empty_like(x)
        F.erfinv(x, gi, 1, t)
        old, ref = np.empty_like(x), np.empty(x.size)
        erfinv_old(x, old, 1)
        erfinv_old(x.astype(np.float64), ref, 3)
        m = ~same(gi, old)
        inv_old += int(m.sum())
        inv_worst += [(float(v), float(g), float(o), float(r)) for v, g, o, r in
                      zip(x[m], gi[m], old[m], ref[m])][:5]
        inv_ref += int((~same(gi, ref.astype(np.float32))).sum())
        if start % (1 << 28) == 0:
            print(f"  {start >> 24:3d}/256 chunks, {time.time() - t0:.0f} s", flush=True)
    print(f"erf float32: {bad_erf} mismatches of 2^32 vs float32(math.erf); first {worst[:10]}")
    print(f"erf float32 factor: {bad_d} mismatches vs the numpy rule (libm exp)")
    print(f"erfinv float32: {inv_old} mismatches vs the former kernel, {inv_ref} vs the "
          f"float64 reference rounded; first (y, new, old, ref64) {inv_worst[:10]}")

    # float64 erf: a dense sample
    rng = np.random.default_rng(0)
    tiny = 10.0 ** rng.uniform(-323.5, 0, 2_000_000)
    x = np.concatenate([rng.uniform(-7, 7, 4_000_000), rng.standard_normal(2_000_000),
                        tiny, -tiny, np.linspace(0.87, 0.88, 100_001),
                        np.linspace(5.8, 6.2, 100_001), np.array([
                            0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
                            2.2250738585072014e-308, 0.875, np.nextafter(0.875, 0), 6.0,
                            np.nextafter(6.0, 0), 1e300, -1e300])])
    got, d = np.empty_like(x), np.empty_like(x)
    A.erf(x, got, d, 2.0 / math.sqrt(math.pi))
    want = np.array([math.erf(v) for v in x])
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    ulp = np.abs(got - want)[~nan] / np.spacing(np.abs(want[~nan]))
    k = int(np.argmax(ulp))
    signs = np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))
    dwant = np.exp(-(x * x)) * (2.0 / math.sqrt(math.pi))
    dulp = np.abs(d - dwant)[~nan] / np.spacing(np.abs(dwant[~nan]))
    print(f"erf float64: {x.size} inputs, max {ulp.max():.2f} ulp from math.erf at "
          f"{x[~nan][k]!r}, {np.mean(ulp > 0):.4f} differ, signs equal {signs}; factor max "
          f"{dulp.max():.2f} ulp from numpy's exp(-(x*x)) * 2/sqrt(pi)")
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    fit() if "--fit" in sys.argv else main()
