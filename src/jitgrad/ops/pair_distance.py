"""Two composites of pairs of inputs as one node each: cdist's matrix-product path for two
matrices, and kron (below).

What cdist's composite computes for x [m, d] and y [n, d] (p = 2 through the product):
sqrt(max(-2 x y^T + |y|^2 + |x|^2, 0)), 0 where that is 0 (norm_root's guard), its values
bit for bit (the same numpy operations in the same order), recorded as one node instead of
eight (multiply, sum, matmul, multiply, add, add, clip, sqrt). With s = -1 / out (0 where
out is 0: Paddle's zero gradient at a zero distance) and gs = g * s, saved in the forward:
dx = gs @ y - x * rowsum(gs), dy = gs^T @ x - y * colsum(gs).
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import apply_xy, const, remember
from .elementwise import multiply_op
from .linalg import matmul, matmul_op
from .linear import shaped
from .registry import defop
from .shape import reshape


def _forward(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, tuple]:
    dt = x.dtype
    xn = np.add.reduce(np.multiply(x, x), (1,), keepdims=True)
    yt = np.add.reduce(np.multiply(y, y), (1,)).reshape(1, y.shape[0])
    res = np.multiply(matmul_op.forward(x, y, transpose_x=False, transpose_y=True),
                      np.asarray(-2.0, dt))
    res = np.add(np.add(res, yt), xn)
    s = np.clip(res, 0.0, np.inf).astype(dt, copy=False)
    pos = s != 0
    out = np.sqrt(s)
    out[~pos] = 0.0                 # (norm_root's where: +0 where s is 0, nan stays nan)
    w = np.zeros_like(out)
    np.divide(np.asarray(-1.0, dt), out, out=w, where=pos)
    return out, (w,)


def _vjp(g, out, x, y):
    """On Tensors (the create_graph backward): s = -1 / out through out, so that second
    derivatives see it."""
    pos = out._data != 0
    safe = E.where(const(pos, np.bool_), out, 1.0)
    gs = E.where(const(pos, np.bool_), -g / safe, 0.0)
    n = out._data.shape[1]
    gx = matmul(gs, y) - x * R.sum(gs, axis=1, keepdim=True)
    gy = matmul(gs, x, transpose_x=True) - y * reshape(R.sum(gs, axis=0), [n, 1])
    return gx, gy


def _interp(node, g, want):
    x, y = node.inputs[0]._data, node.inputs[1]._data
    gs = np.multiply(g.reshape(node.out_data.shape), node.saved[0])
    gx = gs @ y - x * gs.sum(1, keepdims=True) if want[0] else None
    gy = gs.T @ x - y * gs.sum(0)[:, None] if want[1] else None
    return gx, gy


def _lower(b, node, g, gins):
    """gs = g * s; gx += gs @ y (GEMM), gx += x * -rowsum(gs) (GATHER_MUL); gy likewise with
    gs^T and the column sums."""
    x, y = node.inputs[0]._data, node.inputs[1]._data
    (m, d), n = x.shape, y.shape[0]
    gs = b.alloc((m, n))
    b.emit("MUL", gs, g, b.value(node.saved[0]), acc=False)
    for dest, own, other, k, kk, trans in ((gins[0], x, y, m, n, 0), (gins[1], y, x, n, m, 1)):
        if dest is None:
            continue
        b.emit("GEMM", dest, gs, b.value(other),
               p=b.table([1, k, d, kk, trans, 0, m * n, kk * d, k * d]))
        sums = b.alloc((k, 1) if not trans else (1, k))
        b.reduce_into(sums, gs)
        neg = b.alloc((k, 1))
        b.emit("AXPY", neg, sums, k=-1.0, acc=False)
        b.spread_mul(dest, neg, b.value(own), (k, 1), (k, d))


sq_distance_op = defop(
    "euclid_cdist",
    fused="cdist's product form: a GEMM with the other input plus the inputs scaled by the "
          "row or column sums of the saved -1 / out weights",
    nin=2, forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower, interp=_interp,
    quiet=True, min_ndim=2,
    cases=({"shapes": ((3, 2), (4, 2))}, {"shapes": ((1, 3), (2, 3))},
           {"shapes": ((5, 1), (1, 1))},
           # a zero distance: gradient 0 there (Paddle's cdist), not nan
           {"shapes": ((2, 3), (2, 3)),
            "values": [[[0.5, 1.0, -1.0], [1.0, -2.0, 2.0]],
                       [[0.5, 1.0, -1.0], [0.25, 0.0, 1.5]]]}))


def euclid_cdist(x: Tensor, y: Tensor) -> Tensor:
    """cdist(x, y) through the product, for float matrices x [m, d], y [n, d] of one dtype
    with m, n, d > 0, as one node."""
    return apply_xy(sq_distance_op, x, y)


# ---- kron: every product of an element of x with one of y, as one node -------------------
# The composite reshapes x to [s0, 1, s1, 1, ..] and y to [1, t0, 1, t1, ..], multiplies
# and reshapes the product to [s0 t0, s1 t1, ..]: four nodes. The same numpy multiply here
# (values bit for bit), one node whose gradients are the product's, summed over the other
# input's axes: gx = sum over y's axes of g * y, gy = sum over x's axes of g * x.

_KRON: dict = {}        # (x's shape, y's shape) -> (x4, y4, out4, out shape, x axes, y axes)


def _kron_shapes(xs: tuple, ys: tuple) -> tuple:
    found = _KRON.get((xs, ys))
    if found is None:
        nd = max(len(xs), len(ys))
        xp = (1,) * (nd - len(xs)) + tuple(xs)
        yp = (1,) * (nd - len(ys)) + tuple(ys)
        x4 = tuple(v for s in xp for v in (s, 1))
        y4 = tuple(v for t in yp for v in (1, t))
        out4 = tuple(v for s, t in zip(xp, yp) for v in (s, t))
        found = (x4, y4, out4, tuple(s * t for s, t in zip(xp, yp)),
                 tuple(range(0, 2 * nd, 2)), tuple(range(1, 2 * nd, 2)))
        remember(_KRON, (xs, ys), found, 1024)
    return found


def _kron_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x4, y4, _, shape, _, _ = _kron_shapes(x.shape, y.shape)
    return multiply_op.forward(x.reshape(x4), y.reshape(y4)).reshape(shape)


def _kron_vjp(g, out, x, y):
    x4, y4, out4, _, xa, ya = _kron_shapes(tuple(x.shape), tuple(y.shape))
    g4 = reshape(g, list(out4))
    gx = reshape(R.sum(g4 * reshape(y, list(y4)), axis=list(ya), keepdim=True), x.shape)
    gy = reshape(R.sum(g4 * reshape(x, list(x4)), axis=list(xa), keepdim=True), y.shape)
    return gx, gy


def _kron_interp(node, g, want):
    x, y = node.inputs[0]._data, node.inputs[1]._data
    x4, y4, out4, _, xa, ya = _kron_shapes(x.shape, y.shape)
    g4 = g.reshape(out4)
    gx = (g4 * y.reshape(y4)).sum(ya, keepdims=True).reshape(x.shape) if want[0] else None
    gy = (g4 * x.reshape(x4)).sum(xa, keepdims=True).reshape(y.shape) if want[1] else None
    return gx, gy


def _kron_lower(b, node, g, gins):
    """tmp = g * the other input broadcast (GATHER_MUL), summed into the input's gradient
    over the other input's axes."""
    x, y = node.inputs[0]._data, node.inputs[1]._data
    x4, y4, out4, _, _, _ = _kron_shapes(x.shape, y.shape)
    for dest, own4, other, other4 in ((gins[0], x4, y, y4), (gins[1], y4, x, x4)):
        if dest is None:
            continue
        tmp = b.alloc(out4)
        b.spread_mul(tmp, b.value(other), g, other4, out4)
        b.reduce_into(shaped(dest, own4), tmp)


kron_op = defop(
    "kron",
    fused="an outer product of two inputs: each gradient the output gradient times the "
          "other input, summed over the other input's axes",
    nin=2, forward=_kron_forward, vjp=_kron_vjp, lower=_kron_lower, interp=_kron_interp,
    cases=({"shapes": ((), ())}, {"shapes": ((2, 2), (1, 3))}, {"shapes": ((3,), (2,))},
           {"shapes": ((2, 3), (3,))}, {"shapes": ((2,), (2, 1, 2))},
           {"shapes": ((1, 2), (3, 1))}))


def kron(x: Tensor, y: Tensor) -> Tensor:
    """Paddle's kron of two float tensors of one dtype, as one node."""
    return apply_xy(kron_op, x, y)
