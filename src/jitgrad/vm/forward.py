"""Compiled forward kernels for large arrays: a bias row added to a matrix, and relu.

numpy runs both ~1.5x slower than a plain loop on a 256 x 512 float32 activation (its
broadcast add calls the inner loop once per row; maximum checks for NaN): ~60 us of W5b's
~5.5 ms training step (perf/README.md). Importing Numba for them would cost ~0.2 s, so the
ops call them only once the backward interpreter has loaded it (ops/elementwise.py).
Both give numpy's values bit for bit, NaN and -0.0 included. They write into arrays numpy
allocated: an array Numba allocates made the next BLAS call that read it ~10% slower.
"""

from __future__ import annotations

from ._numba import jit


@jit
def add_row(x, b, out):  # pragma: no cover - compiled
    """out = x + b for x, out (m, n) C-contiguous and b (n,)."""
    m, n = x.shape
    for i in range(m):
        xi, oi = x[i], out[i]
        for j in range(n):
            oi[j] = xi[j] + b[j]


@jit
def relu(x, out):  # pragma: no cover - compiled
    """out = np.maximum(x, 0) for 1-D contiguous x, out: x where x > 0 or x is NaN, else +0."""
    for i in range(x.size):
        v = x[i]
        if v > 0 or v != v:
            out[i] = v
        else:
            out[i] = 0

