"""Exhaustive check of vm/float32_math.py's fused kernels against the passes they replace
(not a test: minutes a kernel here).

    /work/venv/bin/python perf/check_fused_exhaustive.py                    # all five
    /work/venv/bin/python perf/check_fused_exhaustive.py softplus celu      # some
    /work/venv/bin/python perf/check_fused_exhaustive.py --every 16         # every 16th

For float32 bit patterns, each fused kernel's outputs have the same bits as the earlier
multi-pass path, run in the same process from the kernels it used (which stay, for
float64 and before Numba is loaded): NaN signs and payloads included.
  erfinv       out and factor against forward_special.erfinv_start, numpy's float64 log,
               forward_special.erfinv (one Halley step) and rounded.exp(out * out) times
               float32(sqrt(pi) / 2): every pattern with |y| <= 1, every 97th other one;
  softplus     out and factor, (beta, threshold) (1, 20), (2, 5) and (1, inf) (the last is
               soft_margin's), against forward_activation.softplus_parts, numpy's exp,
               rounded.log1p, forward_activation.softplus and -rounded.expm1;
  log_sigmoid  out and factor, against neg_abs, numpy's exp, rounded.log1p,
               forward_activation.log_sigmoid and -rounded.expm1;
  celu         out and factor, alpha 1, 0.5 and -1.5, against celu_parts, rounded.expm1,
               rounded.exp and forward_activation.celu;
  log1p_exp    against rounded.log1p(rounded.exp(x)) (logaddexp's).
All 2^32 patterns but for erfinv.

Measured 2026-12-07 05:10-06:09 UTC (AVX2, numpy 2.4.6, the kernels of commits cc6e4c6,
9284778, 01a6268), on the shared host: erfinv 0 differing of 2,153,018,402 inputs (all
2,130,706,434 with |y| <= 1, every 97th other; output and factor); log1p_exp 0 of 2^32
(192 s), log_sigmoid 0 (172 s), softplus 0 for each of its three attribute sets (509 s),
celu 0 for each of its three alphas (397 s).
2026-12-07 11:22-11:37 UTC (AVX-512 host, f6546b7: _expm1 one reduced series, inlined in
softplus, log_sigmoid and celu without FMA contraction): log_sigmoid 0 of 2^32 (159 s),
celu 0 for each alpha (227 s), softplus 0 for each attribute set (178 s); log1p_exp
(its first pass is the contracted exp kernel) 0 of 2^32 (42 s).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/perf/", 1)[0] + "/src")

import jitgrad  # noqa: E402
from jitgrad.ops import rounded  # noqa: E402
from jitgrad.ops.core import compiled_kernels  # noqa: E402

CHUNK = 1 << 24
EVERY = 1           # --every N: only every N-th bit pattern (a quicker, sparser sweep)
T = np.float32
ONE, ZERO, MINUS_ONE, MINUS_INF = T(1), T(0), T(-1), T(-np.inf)


def _diff(a: np.ndarray, b: np.ndarray) -> int:
    return int((a.view(np.uint32) != b.view(np.uint32)).sum())


def _chunks():
    for start in range(0, 1 << 32, CHUNK * EVERY):
        bits = np.arange(start, start + CHUNK * EVERY, EVERY, dtype=np.uint64)
        yield bits.astype(np.uint32).view(T)


def erfinv(fs, f32, k) -> int:
    c = T(math.sqrt(math.pi) / 2)
    bad = 0

    def one(y: np.ndarray) -> int:
        t = np.empty(y.size)
        fs.erfinv_start(y, t)
        np.log(t, out=t)
        ref = np.empty_like(y)
        fs.erfinv(y, ref, 1, t)
        reff = rounded.exp(ref * ref) * (math.sqrt(math.pi) / 2)
        o, f = np.empty_like(y), np.empty_like(y)
        f32.erfinv(y, o, f, c)
        return _diff(ref, o) + _diff(reff, f)

    top = 0x3F800000 + 1                # the patterns of 0 ... 1
    for sign in (0, 0x80000000):
        for lo in range(0, top, CHUNK * EVERY):
            bits = np.arange(lo, min(lo + CHUNK * EVERY, top), EVERY, dtype=np.uint64) | sign
            bad += one(bits.astype(np.uint32).view(T))
        rest = np.arange(top, 0x80000000, 97, dtype=np.uint64) | sign
        bad += one(rest.astype(np.uint32).view(T))
    return bad


def softplus(fs, f32, k) -> int:
    bad = 0
    o2, f2 = np.empty(CHUNK, T), np.empty(CHUNK, T)     # (the chunks' size)
    for x in _chunks():
        for beta, th, scaled in ((T(1), T(20), False), (T(2), T(5), True),
                                 (T(1), T(np.inf), False)):
            a = np.empty_like(x)
            k.softplus_parts(x, a, beta, scaled)
            np.exp(a, out=a)
            lg = rounded.log1p(a)
            out, b = np.empty_like(x), np.empty_like(x)
            k.softplus(x, out, b, lg, beta, th, scaled, ZERO, MINUS_ONE, MINUS_INF)
            fac = np.negative(rounded.expm1(b))
            f32.softplus(x, a, o2, f2, beta, th, scaled, MINUS_ONE)
            bad += _diff(out, o2) + _diff(fac, f2)
    return bad


def log_sigmoid(fs, f32, k) -> int:
    bad = 0
    o2, f2 = np.empty(CHUNK, T), np.empty(CHUNK, T)     # (the chunks' size)
    for x in _chunks():
        a = np.empty_like(x)
        k.neg_abs(x, a)
        np.exp(a, out=a)
        lg = rounded.log1p(a)
        out = np.empty_like(x)
        k.log_sigmoid(x, out, lg, ZERO)
        fac = np.negative(rounded.expm1(out))
        f32.log_sigmoid(x, a, o2, f2)
        bad += _diff(out, o2) + _diff(fac, f2)
    return bad


def celu(fs, f32, k) -> int:
    bad = 0
    o2, f2 = np.empty(CHUNK, T), np.empty(CHUNK, T)     # (the chunks' size)
    for x in _chunks():
        for alpha in (1.0, 0.5, -1.5):
            z, w = np.empty_like(x), np.empty_like(x)
            k.celu_parts(x, T(alpha), T(1 / alpha), ZERO, z, w)
            z, w = rounded.expm1(z), rounded.exp(w)
            out, f = np.empty_like(x), np.empty_like(x)
            k.celu(x, out, f, z, w, T(alpha), ONE)
            f32.celu(x, o2, f2, T(alpha), T(1 / alpha))
            bad += _diff(out, o2) + _diff(f, f2)
    return bad


def log1p_exp(fs, f32, k) -> int:
    bad = 0
    out = np.empty(CHUNK, T)       # (the chunks' size)
    for x in _chunks():
        f32.log1p_exp(x, out)
        bad += _diff(rounded.log1p(rounded.exp(x)), out)
    return bad


CHECKS = {"erfinv": erfinv, "softplus": softplus, "log_sigmoid": log_sigmoid, "celu": celu,
          "log1p_exp": log1p_exp}


def main() -> int:
    global EVERY
    args = sys.argv[1:]
    if args[:1] == ["--every"]:
        EVERY, args = int(args[1]), args[2:]
    jitgrad.warmup()
    kernels = (compiled_kernels("forward_special"), compiled_kernels("float32_math"),
               compiled_kernels("forward_activation"))
    failed = 0
    for name in args or CHECKS:
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            bad = CHECKS[name](*kernels)
        print(f"{name}: {bad} differing values ({time.perf_counter() - t0:.0f} s)", flush=True)
        failed += bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
