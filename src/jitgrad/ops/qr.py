"""paddle.linalg.qr with gradients: one registry op for m >= n whose output packs [Q; R]
(decompositions.py explains the packing); a wide matrix is a composite on its left square
block. The compiled backward is two GEMMs, a triangle mirror and a triangular solve with R
(TRSM: no inverse of R) on saved Q, R."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from .core import apply, const
from .decompositions import _cases, _check_matrix, _extract, _part, _rand, _sym_into
from .indexing import _take, concat
from .linalg import matmul
from .matrix import _batch, _gemm, _mT, _swapT
from .registry import defop
from . import triangular
from .shape import _flat_positions

# The op takes m >= n (reduced: Q [m, n], R [n, n]); packed [Q; R] is [..., m + n, n]. A
# wide matrix [X | Y] is X's QR with R = [R1 | Q^T Y], a composite.


def _triu_half(n: int) -> np.ndarray:
    """Upper triangle with the diagonal halved: M o this plus its transpose copies M's upper
    triangle onto the lower one."""
    return np.triu(np.ones((n, n))) - 0.5 * np.eye(n)


def _qr_forward(x: np.ndarray) -> np.ndarray:
    q, r = np.linalg.qr(x)
    return np.concatenate([q, r], axis=-2).astype(x.dtype)


def _qr_save(out: np.ndarray, x: np.ndarray) -> tuple:
    m = x.shape[-2]
    return np.ascontiguousarray(out[..., :m, :]), np.ascontiguousarray(out[..., m:, :])


def _qr_vjp(g, out, x):
    m, n = x.shape[-2:]
    Q, R = _part(out, 0, m), _part(out, m, m + n)
    gQ, gR = _part(g, 0, m), _part(g, m, m + n)
    M = matmul(gR, R, transpose_y=True) - matmul(Q, gQ, transpose_x=True)
    Mh = M * const(_triu_half(n), x._data.dtype)
    B = gQ + matmul(Q, Mh + _mT(Mh))
    return (_mT(triangular.solve(R, _mT(B), True, False, False)),)     # B R^-T


def _lower_qr(b, node, g, gins):
    """gx = (gQ + Q copyutl(M)) R^-T, M = gR R^T - Q^T gQ (copyutl: the upper triangle
    mirrored onto the lower); R^-T by a triangular solve from the right."""
    x = node.inputs[0]._data
    m, n = x.shape[-2:]
    nb, batch, shape = _batch(x.shape), x.shape[:-2], node.out_data.shape
    nn, qshape = batch + (n, n), batch + (m, n)
    Q, R = (b.value(v) for v in node.saved)
    gQ, gR = _extract(b, g, shape, 0, m), _extract(b, g, shape, m, m + n)
    M, N, Mh, C = (b.alloc(nn) for _ in range(4))
    _gemm(b, M, gR, R, n, n, n, False, True, nb, acc=False)
    _gemm(b, N, Q, gQ, n, n, m, True, False, nb, acc=False)
    b.emit("AXPY", M, N, k=-1.0)
    b.emit("MUL", Mh, M, b.static_value(np.broadcast_to(_triu_half(n), nn)), acc=False)
    _sym_into(b, C, Mh, nn)
    B = b.alloc(qshape)
    b.emit("AXPY", B, gQ, acc=False)
    _gemm(b, B, Q, C, m, n, n, False, False, nb)
    triangular.emit_trsm(b, B, R, B, m, n, nb, False, True, True, False, n * n, m * n)
    b.emit("AXPY", gins[0], B)


def _qr_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_qr's products by
    numpy's matmul and its solve on the saved Q, R."""
    Q, R = node.saved
    m, n = Q.shape[-2:]
    g = np.asarray(g)
    gQ, gR = g[..., :m, :], g[..., m:, :]
    Mh = (gR @ _swapT(R) - _swapT(Q) @ gQ) * _triu_half(n).astype(Q.dtype)
    B = gQ + Q @ (Mh + _swapT(Mh))
    return (triangular.solve_arrays(R, B, True, True, False, left=False),)


qr_op = defop("qr",
              fused="linear algebra: the QR gradient",
              min_ndim=2, forward=_qr_forward, save=_qr_save, vjp=_qr_vjp,
              lower=_lower_qr, interp=_qr_interp, quiet=True,
              cases=_cases([_rand((3, 3), 7), _rand((4, 2), 8), _rand((2, 3, 2), 9)]))


def qr(x: Tensor, mode: str = "reduced", name: str | None = None
       ) -> Tensor | tuple[Tensor, Tensor]:
    """QR by Householder reflections (LAPACK's signs: R's diagonal may be negative).
    mode 'reduced': Q [.., m, k], R [.., k, n]; 'complete': Q [.., m, m], R [.., m, n];
    'r': R alone. Every mode is differentiable; the columns of a complete Q beyond n
    complete an orthonormal basis, which is not unique, and carry no gradient."""
    _check_matrix(x, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    m, n = x.shape[-2:]
    if m >= n:
        packed = apply(qr_op, x)
        Q, R = _part(packed, 0, m), _part(packed, m, m + n)
        if mode == "complete" and m > n:
            q = np.linalg.qr(x._data, mode="complete")[0][..., n:]
            Q = concat([Q, const(q, x._data.dtype)], axis=-1)
            R = concat([R, const(np.zeros(x._data.shape[:-2] + (m - n, n)), x._data.dtype)],
                       axis=-2)
    else:
        pos = _flat_positions(tuple(x.shape))
        packed = apply(qr_op, _take(x, pos[..., :m]))
        Q, R1 = _part(packed, 0, m), _part(packed, m, 2 * m)
        R = concat([R1, matmul(Q, _take(x, pos[..., m:]), transpose_x=True)], axis=-1)
    return R if mode == "r" else (Q, R)
