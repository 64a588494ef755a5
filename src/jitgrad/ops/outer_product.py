"""outer(x, y) as one node: every product of an element of x (flattened, m of them) with one
of y (n), an [m, n] matrix.

The composite it replaces reshaped x to a column and y to a row and multiplied them
(reshape, reshape, matmul: three nodes). The forward gives np.matmul's values of that
product bit for bit (vm/forward_matrix.py's loop once Numba is loaded, np.matmul itself
before); the gradients are the product's: gx = g @ y (a GEMM with y as the [1, n] row,
transposed), gy = x^T @ g (x as the [m, 1] column, transposed), each read at its input's
shape, the same GEMMs the matmul node's backward ran.
"""

from __future__ import annotations

import numpy as np

from .core import compiled_input
from .linalg import _np_matmul, matmul
from .linear import shaped
from .registry import defop
from .shape import reshape


def _forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xf = x.reshape(-1)
    yf = y.reshape(-1)
    found = compiled_input("forward_matrix", xf, yf)
    if found is None:
        return _np_matmul(xf.reshape(-1, 1), yf.reshape(1, -1))
    kernels, xf, yf = found
    dt = xf.dtype
    out = np.empty((xf.shape[0], yf.shape[0]), dt)
    kernels.outer(xf, yf, out.reshape(-1), dt.type(0))
    return out


def _vjp(g, out, x, y):
    gx = reshape(matmul(g, reshape(y, [1, -1]), transpose_y=True), list(x.shape))
    gy = reshape(matmul(reshape(x, [-1, 1]), g, transpose_x=True), list(y.shape))
    return gx, gy


def _interp(node, g, want):
    x, y = node.inputs[0]._data, node.inputs[1]._data
    g = g.reshape(node.out_data.shape)
    gx = _np_matmul(g, y.reshape(1, -1).T).reshape(x.shape) if want[0] else None
    gy = _np_matmul(x.reshape(-1, 1).T, g).reshape(y.shape) if want[1] else None
    return gx, gy


def _lower(b, node, g, gins):
    """gx [m, 1] += g [m, n] @ (y as [1, n])^T; gy [1, n] += (x as [m, 1])^T @ g: matmul's
    GEMM tables for those operands (ops/linalg.py _gemm, one matrix)."""
    x, y = node.inputs[0]._data, node.inputs[1]._data
    m, n = x.size, y.size
    if gins[0] is not None:
        b.emit("GEMM", shaped(gins[0], (m, 1)), g, shaped(b.value(y), (1, n)),
               p=b.table([1, m, 1, n, 0, 1, m * n, n, m]))
    if gins[1] is not None:
        b.emit("GEMM", shaped(gins[1], (1, n)), shaped(b.value(x), (m, 1)), g,
               p=b.table([1, 1, n, m, 1, 0, m, m * n, n]))


outer_op = defop(
    "outer",
    fused="a GEMM: the product of x as a column and y as a row, each gradient a GEMM with "
          "the other input",
    nin=2, forward=_forward, vjp=_vjp, lower=_lower, interp=_interp,
    cases=({"shapes": ((3,), (4,))}, {"shapes": ((1,), (1,))}, {"shapes": ((2, 3), (2,))},
           {"shapes": ((), (3,))}, {"shapes": ((4,), (1, 2, 2))}))

