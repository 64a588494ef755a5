"""Compiled forwards of put_flat's extremes (scatter_reduce / put_along_axis with 'amax' or
'amin'): the reduced values, and the winners' weights the backward multiplies by.

numpy needs np.fmax.at plus a unique, a bincount and five more passes for the weights
(~25 us of a 32 x 64 scatter_reduce step whose whole forward in torch takes ~17 us); two
loops do it. Bit for bit numpy's values (ops/indexing.py `_put_extreme`,
`_extreme_weights`; tests/test_forward_scatter.py checks NaN, +-0, infinities and ties):
np.fmax keeps its first argument only when it is greater (a tie, +0 against -0 included,
takes the value sent), a NaN sent never wins. Used once the backward has loaded Numba.
"""

from __future__ import annotations

import numpy as np

from ._numba import jit


@jit(fastmath=False)
def put_extreme(flat, idx, v, big, src):  # pragma: no cover - compiled
    """flat[idx[i]] = fmax (fmin when not big) of itself and v[i], in order; with `src` each
    target first takes the first value sent to it; a target that starts NaN ends NaN."""
    n = flat.size
    if src:
        seen = np.zeros(n, np.bool_)
        for i in range(idx.size):
            j = idx[i]
            if not seen[j]:
                seen[j] = True
                flat[j] = v[i]
    nan_start = np.zeros(n, np.bool_)
    for j in range(n):
        nan_start[j] = flat[j] != flat[j]
    for i in range(idx.size):
        j = idx[i]
        a, b = flat[j], v[i]
        if b != b:                      # a NaN sent never wins
            continue
        if a != a or not ((a > b) if big else (a < b)):
            flat[j] = b
    for j in range(n):
        if nan_start[j]:
            flat[j] = np.nan


@jit(fastmath=False)
def extreme_weights(best, x, v, idx, src, w_self, w_v):  # pragma: no cover - compiled
    """Each target's k tied winners (its own value among them unless `src`) get 1 / k, the
    others 0; an untouched position keeps weight 1 (w_self [n], w_v [len(idx)])."""
    n = best.size
    k = np.zeros(n)
    targeted = np.zeros(n, np.bool_)
    for i in range(idx.size):
        j = idx[i]
        targeted[j] = True
        if v[i] == best[j]:
            k[j] += 1.0
    for j in range(n):
        if targeted[j]:
            own = (not src) and x[j] == best[j]
            if own:
                k[j] += 1.0
            if k[j] < 1.0:
                k[j] = 1.0
            w_self[j] = 1.0 / k[j] if own else 0.0
        else:
            k[j] = 1.0
            w_self[j] = 1.0
    for i in range(idx.size):
        j = idx[i]
        w_v[i] = 1.0 / k[j] if v[i] == best[j] else 0.0


@jit(fastmath=False)
def put_extreme_weights(x, idx, v, big, src, out, w_self, w_v):  # pragma: no cover
    """put_flat's extremes whole: out = x reduced by put_extreme, then extreme_weights' two
    weight arrays (all flat, C-contiguous). False, nothing written, for an index outside
    [0, n) (the caller's numpy path)."""
    n = x.size
    for i in range(idx.size):
        if idx[i] < 0 or idx[i] >= n:
            return False
    for j in range(n):
        out[j] = x[j]
    put_extreme(out, idx, v, big, src)
    extreme_weights(out, x, v, idx, src, w_self, w_v)
    return True
