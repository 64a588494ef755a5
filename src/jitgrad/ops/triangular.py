"""The triangular solve op: out = op(T)^-1 y for T a triangle of x, by BLAS trsm.

A registry entry (not a composite of solve) because the solve needs no LU: BLAS trsm is
n^2 k flops against LU's 2/3 n^3 plus the inverse solve's backward read (2 n^3), and its
backward is another triangular solve and one GEMM. The forward calls numpy's bundled
OpenBLAS's cblas_?trsm through vm/blas_lib.py (numpy's solve on the triangle when no BLAS
is bound), the compiled backward the TRSM opcode (vm/blas.py's trsm), the interpreted and
Tensor rules the same solves. paddle.linalg.triangular_solve and cholesky_solve
(more_linalg.py) and cholesky's gradient (matrix.py) are built on it.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.tensor import Tensor
from .core import apply_xy, compiled_kernels
from .indexing import tril, triu
from .linalg import matmul
from .registry import defop
from .shape import transpose


def _mT(x: Tensor) -> Tensor:
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def _triangle(a: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """The triangle of a batch of matrices that a solve reads (ones on its diagonal when
    unit)."""
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        n = a.shape[-1]
        t = t * (1 - np.eye(n, dtype=a.dtype)) + np.eye(n, dtype=a.dtype)
    return t


def solve_arrays(x: np.ndarray, y: np.ndarray, upper: bool, transpose: bool,
                 unit: bool, left: bool = True) -> np.ndarray:
    """op(T)^-1 y (y op(T)^-1 when not left) on arrays: y [.., p, q] and x [.., k, k] (k = p
    left, q right) of one float dtype and one batch shape, T x's upper (or lower) triangle,
    op(T) = T^T when transpose. One BLAS trsm a matrix (a batch: one compiled loop of them
    once Numba is loaded); numpy's solve on the triangle without a BLAS."""
    from ..vm import blas_lib
    p, q = y.shape[-2:]
    k = p if left else q
    batch = y.shape[:-2]
    out = np.array(y, dtype=y.dtype, order="C", copy=True)
    M = math.prod(batch)                # (not -1: a reshape cannot infer it next to a 0)
    a = np.ascontiguousarray(x).reshape((M, k, k))
    b = out.reshape((M, p, q))
    if batch and out.size:
        kernels = compiled_kernels("forward_linalg")     # (a batch: one compiled call)
        if kernels is not None:
            kernels.trsm_batch(a, b, upper, transpose, unit, left)
            return out
    if blas_lib.forward_trsm(a, b, upper, transpose, unit, left):
        return out
    t = _triangle(a, upper, unit)
    if transpose == left:               # the matrix that multiplies from the left
        t = np.swapaxes(t, -1, -2)
    if not left:                        # y op(T)^-1 = (op(T)^-T y^T)^T
        b = np.swapaxes(b, -1, -2)
    for i in range(t.shape[0]):
        try:
            b[i] = np.linalg.solve(t[i], b[i])
        except np.linalg.LinAlgError:   # (a zero on the diagonal: NaN for that matrix,
            b[i] = np.nan               # where trsm gives inf or NaN)
    return out


def _forward(x: np.ndarray, y: np.ndarray, upper: bool = True, transpose: bool = False,
             unitriangular: bool = False) -> np.ndarray:
    if not unitriangular:
        d = np.diagonal(x, 0, -2, -1)
        if d.size and not np.all(d):
            raise ValueError("triangular_solve: the triangular matrix is singular (a zero on "
                             "its diagonal)")
    return solve_arrays(x, y, upper, transpose, unitriangular)


def _mask(n: int, upper: bool, unit: bool, dt: np.dtype) -> np.ndarray:
    """Ones on the triangle a solve reads (its diagonal too unless unit), zeros elsewhere."""
    ones = np.ones((n, n), dt)
    return np.triu(ones, 1 if unit else 0) if upper else np.tril(ones, -1 if unit else 0)


def _vjp(g, out, x, y, upper=True, transpose=False, unitriangular=False):
    """gy = op(T)^-T g; gT = -gy out^T (op(T) = T^T: -out gy^T), on T's triangle."""
    gy = apply_xy(triangular_solve_op, x, g, {"upper": upper, "transpose": not transpose,
                                              "unitriangular": unitriangular})
    gt = matmul(out, gy, transpose_y=True) if transpose else \
        matmul(gy, out, transpose_y=True)
    k = 1 if unitriangular else 0
    return (-(triu(gt, k) if upper else tril(gt, -k)), gy)


def _interp(node, g, want):
    a = node.attrs
    x, out = node.inputs[0]._data, node.out_data
    upper, transpose, unit = a["upper"], a["transpose"], a["unitriangular"]
    gy = solve_arrays(x, g, upper, not transpose, unit)
    gx = None
    if want[0]:
        gt = out @ np.swapaxes(gy, -1, -2) if transpose else gy @ np.swapaxes(out, -1, -2)
        gx = gt * -_mask(x.shape[-1], upper, unit, x.dtype)
    return gx, (gy if want[1] else None)


def emit_trsm(b, out, A, B, m, n, nb, left, upper, trans, unit, sa, sb) -> None:
    """A TRSM row (vm/opcodes.py): out_j = op(T_j)^-1 B_j (left) or B_j op(T_j)^-1, j <
    nb; out_j and B_j [m, n] (B_j at stride sb), T_j from A_j at stride sa."""
    p = b.table([nb, m, n, int(left), int(upper), int(trans), int(unit), sa, sb])
    b.emit("TRSM", out, A, B, p=p, acc=False)


def _lower(b, node, g, gins):
    """gy = op(T)^-T g (TRSM), gx = -(gy out^T) on T's triangle (GEMM, MUL by the mask)."""
    a = node.attrs
    x, out = node.inputs[0]._data, node.out_data
    upper, transpose, unit = a["upper"], a["transpose"], a["unitriangular"]
    n, k = out.shape[-2:]
    nb = math.prod(out.shape[:-2])
    gy_in = gins[1]
    gy = gy_in if gy_in is not None and gy_in.off not in b.written else b.alloc(out.shape)
    emit_trsm(b, gy, b.value(x), g, n, k, nb, True, upper, not transpose, unit, n * n, n * k)
    if gy_in is not None and gy is not gy_in:
        b.emit("AXPY", gy_in, gy)
    if gins[0] is not None:
        t = b.alloc(x.shape)
        slot = b.value(out)
        first, second = (slot, gy) if transpose else (gy, slot)
        p = b.table([nb, n, n, k, 0, 1, n * k, n * k, n * n])
        b.emit("GEMM", t, first, second, p=p, acc=False)
        mask = np.broadcast_to(_mask(n, upper, unit, x.dtype), x.shape)
        b.emit("MUL", gins[0], t, b.static_value(mask), k=-1.0)


def _cases() -> tuple:
    rng = np.random.default_rng(3)
    a = rng.uniform(-0.5, 0.5, (3, 3)) + 2 * np.eye(3)
    y = rng.uniform(-1, 1, (3, 2))
    ab = rng.uniform(-0.5, 0.5, (2, 3, 3)) + 2 * np.eye(3)
    yb = rng.uniform(-1, 1, (2, 3, 1))
    return tuple({"shapes": (xs, ys), "smooth": True, "values": [av, yv],
                  "attrs": {"upper": up, "transpose": tr, "unitriangular": un}}
                 for (xs, ys, av, yv) in (((3, 3), (3, 2), a, y), ((2, 3, 3), (2, 3, 1), ab, yb))
                 for up, tr, un in ((True, False, False), (False, True, False),
                                    (False, False, True)))


triangular_solve_op = defop(
    "triangular_solve",
    fused="linear algebra: a triangular solve with op(T)^T (TRSM) and a GEMM",
    min_ndim=2, nin=2, forward=_forward, vjp=_vjp, lower=_lower, interp=_interp,
    grad_reads=(0, "out"), cases=_cases())


def solve(x: Tensor, y: Tensor, upper: bool, transpose: bool, unitriangular: bool) -> Tensor:
    """op(T)^-1 y for x [.., n, n], y [.., n, k] with one batch shape and dtype (checked by
    the caller)."""
    return apply_xy(triangular_solve_op, x, y, {"upper": bool(upper),
                                                "transpose": bool(transpose),
                                                "unitriangular": bool(unitriangular)})
