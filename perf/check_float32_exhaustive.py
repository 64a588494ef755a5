"""Exhaustive check of vm/float32_math.py (not a test: ~2 minutes a function here).

    /work/venv/bin/python perf/check_float32_exhaustive.py              # all thirteen
    /work/venv/bin/python perf/check_float32_exhaustive.py cosh sinh    # some

For every one of the 2^32 float32 bit patterns, each kernel's output has the same bits as
the numpy path it replaces (ops/rounded.py's): numpy's float64 function of float64(x),
rounded to float32, with rounded.INVALID_NAN for a log, log2 or log10 of a negative number
(Paddle's NaN; numpy's sign there differs between builds). NaN signs and payloads
included. numpy's float64 functions call the C library here, which the kernels' rounding
test falls back to; on a machine where numpy has its own float64 versions (AVX-512
builds), the two could differ in the last float64 bit, and so near a float32 rounding
boundary: this script says so.

Measured 2026-12-06 11:21-11:40 UTC (5addd57's kernels, AVX2, numpy 2.4.6), two processes:
0 of 2^32 inputs differ for each of the thirteen; 93-195 s a function, tan 517 s (half of
its inputs, |x| >= 2^19 and non-finite, go to the C library in both).
2026-12-07 08:05 UTC, AVX-512 host, with INVALID_NAN: log, log2, log10 0 of 2^32 differ.
2026-12-07 11:01-11:22 UTC, AVX-512 host (znver4), the FMA-contracted kernels (be9f059,
f6546b7's sinh): 0 of 2^32 differ for eleven; asinh 4 and acosh 2 (+-4.190058e18,
+-2.749153e28), where this numpy's float64 arcsinh and arccosh are an ulp off the C
library's (math.acosh(4.190058e18) = 43.5723934173584, numpy 43.57239341735839) on a float32
rounding boundary: the kernels give the C library's float32, as e9f0e86's did.
"""

from __future__ import annotations

import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/perf/", 1)[0] + "/src")

from jitgrad.ops.rounded import INVALID_NAN  # noqa: E402
from jitgrad.vm import float32_math  # noqa: E402

NAMES = ("exp", "log", "expm1", "log1p", "log2", "log10", "cosh", "sinh", "atanh", "asinh",
         "acosh", "atan", "tan")
NUMPY = {"atanh": "arctanh", "asinh": "arcsinh", "acosh": "arccosh", "atan": "arctan"}
CHUNK = 1 << 24


def check(name: str) -> int:
    kernel, ref = getattr(float32_math, name), getattr(np, NUMPY.get(name, name))
    bad = 0
    t0 = time.perf_counter()
    out = np.empty(CHUNK, np.float32)
    for start in range(0, 1 << 32, CHUNK):
        x = np.arange(start, start + CHUNK, dtype=np.uint64).astype(np.uint32).view(np.float32)
        kernel(x, out)
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64)).astype(np.float32)
        if name in INVALID_NAN:
            want[x < 0] = INVALID_NAN[name]
        differ = out.view(np.uint32) != want.view(np.uint32)
        if differ.any():
            idx = np.flatnonzero(differ)
            bad += idx.size
            for i in idx[:3]:
                print(f"  {name}({x[i]!r}): kernel {out[i]!r}, numpy {want[i]!r}", flush=True)
    print(f"{name}: {bad} of 2^32 differ ({time.perf_counter() - t0:.0f} s)", flush=True)
    return bad


def main() -> int:
    names = sys.argv[1:] or NAMES
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise SystemExit(f"unknown function(s) {unknown}; choose from {NAMES}")
    return 1 if sum(check(n) for n in names) else 0


if __name__ == "__main__":
    sys.exit(main())
