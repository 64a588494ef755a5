"""matmul (1-D, 2-D, batched with broadcasting, transpose_x / transpose_y)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.tensor import Tensor, bind_operators
from .core import apply_xy, binary_operands, sum_to, sum_to_array
from .linear import shaped
from .registry import defop

_np_matmul = np.matmul


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _forward(x: np.ndarray, y: np.ndarray, transpose_x: bool, transpose_y: bool
             ) -> np.ndarray:
    if not (transpose_x or transpose_y):
        dt = x.dtype
        if x.ndim == 2 and y.ndim == 2 and (dt is _F32 or dt is _F64) and y.dtype is dt \
                and x.base is None and y.base is None:
            return x.dot(y)             # as matmul's first lines (see there)
        return _np_matmul(x, y) if x.ndim > 1 or y.ndim > 1 else np.asarray(_np_matmul(x, y))
    # (a 1-D operand is never transposed)
    out = _mm_arrays(x, y, transpose_x and x.ndim >= 2, transpose_y and y.ndim >= 2)
    return out if x.ndim > 1 or y.ndim > 1 else np.asarray(out)


def _as_matrices(x: Any, y: Any, tx: bool, ty: bool):
    """Promote 1-D operands as Paddle does: x to a row (1, K), y to a column (K, 1)."""
    xs, ys = tuple(x.shape), tuple(y.shape)
    if len(xs) == 1:
        xs, tx = (1, xs[0]), False
    if len(ys) == 1:
        ys, ty = (ys[0], 1), False
    m, k = (xs[-1], xs[-2]) if tx else xs[-2:]
    n = ys[-2] if ty else ys[-1]
    if len(xs) == 2 and len(ys) == 2:
        return xs, ys, tx, ty, m, k, n, ()
    batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    return xs, ys, tx, ty, m, k, n, tuple(batch)


def _products(g, x, y, tx_, ty_, want, ops):
    """matmul's gradient, written once over `ops` (_TENSOR_OPS for the vjp on Tensors,
    _ARRAY_OPS for the interpreter on arrays): each wanted input's product with g."""
    mm, reshape, sum_to_, shape = ops
    xs, ys, tx, ty, m, k, n, batch = _as_matrices(x, y, tx_, ty_)
    # (a reshape only where the shapes differ: the common 2-D case records none)
    x2 = x if shape(x) == tuple(xs) else reshape(x, xs)
    y2 = y if shape(y) == tuple(ys) else reshape(y, ys)
    g2 = g if shape(g) == batch + (m, n) else reshape(g, batch + (m, n))
    gx = gy = None
    if want[0]:
        gx = sum_to_(mm(g2, y2, False, not ty) if not tx else mm(y2, g2, ty, True), xs)
        gx = gx if shape(gx) == shape(x) else reshape(gx, shape(x))
    if want[1]:
        gy = sum_to_(mm(x2, g2, not tx, False) if not ty else mm(g2, x2, True, tx), ys)
        gy = gy if shape(gy) == shape(y) else reshape(gy, shape(y))
    return gx, gy


def _vjp(g, out, x, y, transpose_x, transpose_y):
    global _TENSOR_OPS
    if _TENSOR_OPS is None:             # (shape imports this module)
        _TENSOR_OPS = _tensor_ops()
    return _products(g, x, y, transpose_x, transpose_y, (True, True), _TENSOR_OPS)


def _interp(node, g, want):
    x, y = node.inputs
    a = node.attrs
    return _products(g, x._data, y._data, a["transpose_x"], a["transpose_y"], want,
                     _ARRAY_OPS)


def _tensor_ops():
    from .shape import reshape
    return (matmul, reshape, sum_to, lambda t: t._data.shape)


def _mm_arrays(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    """a @ b with either transposed (at least 2-D where transposed): the forward's
    transposed products and the interpreter's (`.T` for a matrix: np.swapaxes is a
    Python-level call)."""
    if ta:
        a = a.T if a.ndim == 2 else np.swapaxes(a, -1, -2)
    if tb:
        b = b.T if b.ndim == 2 else np.swapaxes(b, -1, -2)
    return _np_matmul(a, b)


_TENSOR_OPS: Any = None
_ARRAY_OPS = (_mm_arrays, np.reshape, sum_to_array, lambda a: a.shape)


def _operand(b, arr, shape, nb, batch):
    """(slot, batch stride) of a saved operand, materialising partial broadcasts."""
    if len(shape) == 2:                                 # (own == 1: the common 2-D case)
        own = 1
    else:
        own = math.prod(shape[:-2])
    mat = shape[-2] * shape[-1]
    # the array itself when no reshape is needed: a reshaped non-contiguous operand (a
    # transposed input) is a new array the lowering cannot name, and the graph's Program
    # could not be cached. A 1-D operand (a row or a column of the product) is placed as
    # it is and its slot relabelled (a slot is flat: the same elements in the same order)
    if arr.ndim == 1 and own == 1:
        return shaped(b.value(arr), tuple(shape[-2:])), (mat if nb == 1 else 0)
    if own == nb:
        return b.value(arr if arr.shape == shape else arr.reshape(shape)), mat
    if own == 1:
        s2 = shape[-2:]
        return b.value(arr if arr.shape == s2 else arr.reshape(s2)), 0
    return b.value(arr if arr.shape == shape else arr.reshape(shape),
                   batch + shape[-2:]), mat


def _gemm(b, dest, shape, A, sa, B, sb, mm, nn, kk, ta, tb, nb, batch):
    own = 1 if len(shape) == 2 else math.prod(shape[:-2])
    mat = shape[-2] * shape[-1]
    target, sc = (dest, mat) if own == nb else (dest, 0) if own == 1 else \
        (b.alloc(batch + shape[-2:]), mat)
    p = b.table([nb, mm, nn, kk, ta, tb, sa, sb, sc])
    if target is dest:
        b.emit("GEMM", dest, A, B, p=p)
    else:
        b.emit("GEMM", target, A, B, p=p, acc=False)
        b.reduce_into(dest, target)


def _lower(b, node, g, gins):
    # (module-level helpers, not closures: once per matmul node of each new structure)
    ins, attrs = node.inputs, node.attrs
    x, y = ins[0]._data, ins[1]._data
    xs, ys, tx, ty, m, k, n, batch = _as_matrices(x, y, attrs["transpose_x"],
                                                  attrs["transpose_y"])
    nb = math.prod(batch)
    gmat = m * n
    if gins[0] is not None:
        Y, sy = _operand(b, y, ys, nb, batch)
        if not tx:
            _gemm(b, gins[0], xs, g, gmat, Y, sy, m, k, n, False, not ty, nb, batch)
        else:
            _gemm(b, gins[0], xs, Y, sy, g, gmat, k, m, n, ty, True, nb, batch)
    if gins[1] is not None:
        X, sx = _operand(b, x, xs, nb, batch)
        if not ty:
            _gemm(b, gins[1], ys, X, sx, g, gmat, k, n, m, not tx, False, nb, batch)
        else:
            _gemm(b, gins[1], ys, g, gmat, X, sx, n, k, m, True, tx, nb, batch)


def _matmul_reads(needs: tuple) -> tuple:
    return (1,) * needs[0] + (0,) * needs[1]


matmul_op = defop(
    "matmul",
    fused="GEMM: bilinear, each gradient a GEMM with the other input",
    forward=_forward,
    nin=2, vjp=_vjp, lower=_lower, interp=_interp, min_ndim=1,
    # each input's gradient reads the other input: one that needs no gradient may change
    # in place before the backward (Paddle 3.3.1's linear interpolate and affine_grid
    # allow it; they are matmuls by a constant here)
    grad_reads_for=_matmul_reads,
    cases=tuple({"shapes": s, "attrs": {"transpose_x": tx, "transpose_y": ty}}
                for s, tx, ty in (
                    (((2, 3), (3, 4)), False, False), (((3, 2), (3, 4)), True, False),
                    (((2, 3), (4, 3)), False, True), (((3, 2), (4, 3)), True, True),
                    (((3,), (3,)), False, False), (((2, 3), (3,)), False, False),
                    (((3,), (3, 2)), False, False), (((2, 2, 3), (3, 4)), False, False),
                    (((2, 1, 2, 3), (3, 4, 3)), False, True))))


# The attributes of every plain x @ y node (one dict, never written: see core.NO_ATTRS).
_NO_TRANSPOSE = {"transpose_x": False, "transpose_y": False}


_FORWARD_MIN = 64 ** 3          # vm.blas_lib.FORWARD_MIN (not imported: it loads the BLAS)


def _big_matmul(xd: Any, yd: Any) -> Any:
    """A large float product through the backward's BLAS when that is not numpy's (MKL);
    None otherwise. Imported on first use so that `import jitgrad` loads no BLAS."""
    from ..vm import blas_lib
    return blas_lib.forward_matmul(xd, yd)


def matmul(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False,
           name: str | None = None) -> Tensor:
    """Matrix product with numpy's broadcasting; 1-D @ 1-D gives a 0-d tensor."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and   # binary_operands leaves
            x._data.dtype is y._data.dtype):                          # these as they are
        x, y = binary_operands(x, y)
    try:
        if transpose_x is False and transpose_y is False:       # _forward's first lines
            xd, yd = x._data, y._data
            dt = xd.dtype
            if xd.ndim == 2 and yd.ndim == 2 and (dt is _F32 or dt is _F64) and \
                    yd.dtype is dt and xd.base is None and yd.base is None:
                # ndarray.dot makes the same BLAS call as np.matmul for two float matrices
                # of one dtype that own their (C or Fortran ordered) data, with less
                # dispatch: ~0.3 us of a (1, 16) @ (16, 32) product's 0.6. Bitwise equal:
                # tests/test_eager_forward.py. (A strided view: np.matmul does not call
                # BLAS, np.dot copies and does, rounding differently.)
                if xd.shape[0] * xd.shape[1] * yd.shape[1] >= _FORWARD_MIN:
                    out = _big_matmul(xd, yd)
                    if out is not None:
                        return apply_xy(matmul_op, x, y, _NO_TRANSPOSE, out)
                return apply_xy(matmul_op, x, y, _NO_TRANSPOSE, xd.dot(yd))
            out = _np_matmul(xd, yd)
            if xd.ndim == 1 and yd.ndim == 1:   # (np.matmul gives a numpy scalar there:
                out = np.asarray(out)           # a 0-d tensor holds a 0-d array)
            return apply_xy(matmul_op, x, y, _NO_TRANSPOSE, out)
        return apply_xy(matmul_op, x, y, {"transpose_x": bool(transpose_x),
                                          "transpose_y": bool(transpose_y)})
    except ValueError as e:             # shapes that do not fit: numpy refused them
        numpy_error = e
    _check_operands(x, y, transpose_x, transpose_y)     # raises ours, outside the except
    raise numpy_error


def _check_operands(x: Tensor, y: Tensor, transpose_x: bool, transpose_y: bool) -> None:
    if x._data.ndim == 0 or y._data.ndim == 0:
        raise ValueError(f"matmul needs tensors with at least 1 dim, got shapes {x.shape} "
                         f"and {y.shape}")
    xd, yd = x._data, y._data
    bx, by = xd.shape[:-2], yd.shape[:-2]
    if len(bx) and len(by) and any(a != b and a != 1 and b != 1
                                   for a, b in zip(bx[::-1], by[::-1])):
        raise ValueError(f"matmul: batch dims {list(bx)} and {list(by)} of shapes {x.shape} "
                         f"and {y.shape} do not broadcast (each pair must be equal or 1)")
    xs, ys, tx, ty, m, k, n, _ = _as_matrices(xd, yd, transpose_x, transpose_y)
    k2 = ys[-1] if ty else ys[-2]
    if k != k2:
        raise ValueError(f"matmul: shapes {x.shape} and {y.shape} do not fit (inner dims "
                         f"{k} and {k2}, transpose_x={transpose_x}, transpose_y={transpose_y})")


bind_operators(__matmul__=matmul)
