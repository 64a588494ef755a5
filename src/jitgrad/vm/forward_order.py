"""Compiled forwards of the order statistics: where the k-th smallest, the top k, the median
and the running maximum of each row are.

numpy has no stable selection: the ops took a stable argsort of every row (~18 us for
32 x 64 float32, against ~3.4 us for np.sort of the values), then a handful of small array
operations per call, which made median, kthvalue, topk and cummax steps slower than
torch's. Here the caller sorts the values with np.sort, and one pass per row finds the
index a stable argsort would put at each rank: among equal values, the lower index first
(topk sorts nothing: top_rows keeps the k best of each row in one pass).
Rows with NaN are the caller's (numpy's order puts NaN last; the kernels return False on
seeing one and the op falls back to its numpy path). Like vm/forward.py, they run only
once the backward interpreter has imported Numba; helpers stay in this file (Numba's cache
does not notice edits to helpers imported from other files).
"""

from __future__ import annotations

import numpy as np

from ._numba import jit


@jit(inline="always")
def _stable_index(row, s, r):  # pragma: no cover - compiled
    """The index a stable ascending argsort of `row` puts at rank r (s: row sorted)."""
    v = s[r]
    before = 0                          # elements below v: ranks before v's first one
    for j in range(row.size):
        if row[j] < v:
            before += 1
    t = r - before
    for j in range(row.size):
        if row[j] == v:
            if t == 0:
                return j
            t -= 1
    return -1


@jit
def kth_index(a, s, r, idx):  # pragma: no cover - compiled
    """idx[i] = the index of row i's element at stable ascending rank r (a, s: [m, n], s
    each row of a sorted). False if a row holds NaN (idx then undefined)."""
    for i in range(a.shape[0]):
        if s[i, s.shape[1] - 1] != s[i, s.shape[1] - 1]:     # NaN sorts last
            return False
        idx[i] = _stable_index(a[i], s[i], r)
    return True


@jit
def top_rows(a, k, largest, idx, pos, vals):  # pragma: no cover - compiled
    """Per row i of a [m, n]: idx[i, :k] what a stable argsort of -row (largest) or of row
    puts first, vals[i] those values and pos[i * k:(i + 1) * k] their flat positions in a
    (a take_flat node's table), in one pass without sorting the row: the k best so far
    kept in order, a new value going after those it does not beat (equal values in index
    order). False on NaN (the caller's numpy path)."""
    m, n = a.shape
    for i in range(m):
        row, ir, vr = a[i], idx[i], vals[i]
        c = 0                           # kept so far (c <= k)
        for j in range(n):
            v = row[j]
            if v != v:
                return False
            if c == k and ((v <= vr[k - 1]) if largest else (v >= vr[k - 1])):
                continue                # (does not beat the k-th)
            q = c - 1 if c < k else k - 2
            while q >= 0 and ((vr[q] < v) if largest else (vr[q] > v)):
                vr[q + 1] = vr[q]
                ir[q + 1] = ir[q]
                q -= 1
            vr[q + 1] = v
            ir[q + 1] = j
            if c < k:
                c += 1
        base = i * n
        for p in range(k):
            pos[i * k + p] = base + ir[p]
    return True


@jit
def median_rows(a, s, avg, one_hot, val, lo, w):  # pragma: no cover - compiled
    """Per row of a (s: its rows sorted): the median val (avg: of the two middle elements
    of an even count; else the lower one), the index lo of the lower middle element (a
    stable sort's), and the gradient weights w: one_hot, all to lo;
    else shared equally by the middle elements and every element equal to the median.
    False on NaN."""
    m, n = a.shape
    for i in range(m):
        row, si = a[i], s[i]
        if si[n - 1] != si[n - 1]:
            return False
        li = _stable_index(row, si, (n - 1) // 2)
        hj = _stable_index(row, si, n // 2) if avg else li
        if avg:
            v = (row[li] + row[hj]) / 2
        else:
            v = row[li]
        val[i] = v
        lo[i] = li
        wi = w[i]
        if one_hot:
            for j in range(n):
                wi[j] = 0
            wi[li] = 1
            continue
        vi = val[i]                     # (rounded to the row's dtype, as numpy's)
        count = 0
        for j in range(n):
            if row[j] == vi or j == li or j == hj:
                count += 1
        share = 1.0 / count
        for j in range(n):
            wi[j] = share if (row[j] == vi or j == li or j == hj) else 0.0
    return True


@jit
def stabilize(a, order):  # pragma: no cover - compiled
    """Make order[i], an argsort of row i of a by an unstable sort, the stable one: each run
    of equal values (NaNs equal to each other) gets its indices in increasing order."""
    m, n = a.shape
    for i in range(m):
        row, o = a[i], order[i]
        p = 0
        while p < n - 1:
            v = row[o[p]]
            q = p + 1
            while q < n and (row[o[q]] == v or (v != v and row[o[q]] != row[o[q]])):
                q += 1
            for r in range(p + 1, q):   # insertion sort of the run's indices
                j = o[r]
                s = r - 1
                while s >= p and o[s] > j:
                    o[s + 1] = o[s]
                    s -= 1
                o[s + 1] = j
            p = q


# ---- a stable float32 argsort by one integer sort --------------------------------------------
# Each element's bits become a 32-bit key in the values' order (negative floats' bits
# inverted, positive ones' sign bit set; -0 as +0, every NaN as the largest key: numpy's
# order, NaN last), shifted up, its column index below: numpy's sort of these uint64 keys
# (its SIMD sort, ~6 us for 32 x 64 where argsort took ~33) orders the row stably, equal
# values by index, and the low halves are the stable argsort (stabilize's result).

_KEY_ABS = np.uint64(0x7FFFFFFF)
_KEY_SIGN = np.uint64(0x80000000)
_KEY_LOW = np.uint64(0xFFFFFFFF)
_KEY_INF = np.uint64(0x7F800000)
_KEY_ZERO = np.uint64(0)
_KEY_SHIFT = np.uint64(32)


@jit(fastmath=False)
def order_keys(bits, keys):  # pragma: no cover - compiled
    """keys[i, j] = key(bits[i, j]) << 32 | j for the float32 rows whose bits (uint32) are
    `bits` [m, n], n < 2^32 (key: above)."""
    m, n = bits.shape
    for i in range(m):
        b, k = bits[i], keys[i]
        for j in range(n):
            v = np.uint64(b[j])
            mag = v & _KEY_ABS
            v = v if mag != _KEY_ZERO else _KEY_ZERO
            key = (v ^ _KEY_LOW) if (v & _KEY_SIGN) != _KEY_ZERO else (v | _KEY_SIGN)
            key = key if mag <= _KEY_INF else _KEY_LOW
            k[j] = (key << _KEY_SHIFT) | np.uint64(j)


@jit(fastmath=False)
def order_of_keys(keys, order):  # pragma: no cover - compiled
    """order = the low 32 bits of the sorted keys (flat, same size), as int64."""
    for i in range(keys.size):
        order[i] = np.int64(keys[i] & _KEY_LOW)
