"""Compiled forward of outer (ops/outer_product.py): every product of an element of x with
one of y, in one loop.

numpy's spelling of it, the product of x as a column and y as a row (np.matmul of [m, 1]
and [1, n], what outer computed as reshape, reshape and matmul nodes), costs ~3-4 us for
32 x 64 float32 (a broadcast multiply ~2.3 us: a strided loop per row); this loop ~0.5 us
with its call. Its values are np.matmul's bit for bit: x[i] * y[j] + 0 (the product,
rounded, then added to the zero the product's sum starts from: a -0.0 product, also an
underflowed one, gives +0.0, as np.matmul does; NaN, infinities otherwise as the product),
no fastmath (it would fold the + 0). tests/test_forward_matrix_ops.py compares them with
np.matmul over both float dtypes and special values. Used once the backward has loaded
Numba (ops/core.py compiled_input).
"""

from __future__ import annotations

from ._numba import jit


@jit(fastmath=False)
def outer(x, y, out, zero):  # pragma: no cover - compiled
    """out[i * n + j] = x[i] * y[j] + zero for 1-D x [m], y [n] and flat out [m n]; zero is
    0 in x's dtype."""
    n = y.size
    for i in range(x.size):
        u = x[i]
        o = out[i * n:i * n + n]
        for j in range(n):
            o[j] = u * y[j] + zero
