"""Exhaustive check of vm/numpy_exp.py's emulation of numpy's float32 exp (not a test: ~30
s here), the exp inside the one-pass float32 kernels of sigmoid, silu and softmax.

    /work/venv/bin/python perf/check_numpy_exp_exhaustive.py

For every one of the 2^32 float32 bit patterns, the kernel `numpy_exp` gives np.exp's bits
(NaN signs and payloads included). np.exp is whatever this numpy build and CPU dispatch to;
ops/elementwise.py's numpy_exp_emulated checks a sample of them at run time and keeps
numpy's own pass where they differ.

Measured 2026-12-07 13:30 UTC (AVX-512 host, znver4, numpy 2.4.6, its AVX512F exp body):
0 of 2^32 inputs differ (prototype 13:20: 0 as well, float64 scalef and float32 scalef).
"""

from __future__ import annotations

import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/perf/", 1)[0] + "/src")

from jitgrad.vm import numpy_exp  # noqa: E402

CHUNK = 1 << 26


def main() -> None:
    out = np.empty(CHUNK, np.float32)
    bad, start = 0, time.time()
    for lo in range(0, 1 << 32, CHUNK):
        x = np.arange(lo, lo + CHUNK, dtype=np.uint64).astype(np.uint32).view(np.float32)
        numpy_exp.numpy_exp(x, out)
        with np.errstate(all="ignore"):
            want = np.exp(x)
        differ = out.view(np.uint32) != want.view(np.uint32)
        if differ.any():
            i = np.flatnonzero(differ)[:5]
            print("differ at", x[i].view(np.uint32), "kernel", out[i], "numpy", want[i])
        bad += int(differ.sum())
    print(f"numpy_exp: {bad} of 2^32 inputs differ ({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
