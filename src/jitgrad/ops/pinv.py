"""paddle.linalg.pinv with gradients: a registry op whose backward is GEMMs on the
pseudo-inverse P and x (no division by singular value gaps, so repeated singular values
are fine).

pinv(x) = V_r S_r^-1 U_r^T keeps the r singular values above rcond * max. Its gradient is
that of the map x -> pinv(x_r), x_r being x with the others set to zero: Golub and
Pereyra's formula gives the pinv part, exact where the rank does not change; when rcond
cuts singular values that are not zero, x_r itself moves with x, and a second stage (the
truncation's own backward) follows, with coefficients saved by the forward. The public
function decides which Program applies (attribute `truncated`), so the common case pays
only for the first stage. Paddle differentiates through its SVD and agrees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from .core import apply, const
from .decompositions import _check_matrix, _part, _rand, svd
from .linalg import matmul
from .matrix import _batch, _gemm, _mT, _square, _swapT
from .registry import defop
from .shape import unsqueeze


def _hermitian_matrix(x: np.ndarray) -> np.ndarray:
    """The symmetric matrix in x's lower triangle (what hermitian=True reads)."""
    low = np.tril(x)
    return low + np.swapaxes(np.tril(x, -1), -1, -2)


def _kept(s: np.ndarray, rcond: Any) -> np.ndarray:
    cutoff = np.asarray(rcond)[..., None] * s.max(axis=-1, initial=0.0, keepdims=True)
    return s > cutoff


def _trunc_coefficients(s: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """D1, D2 of the truncation's backward: inner = D1 o X + D2 o X^T (X = U^T g V). A kept
    i and a dropped j couple by s_i^2 / (s_i^2 - s_j^2) and s_i s_j / (s_i^2 - s_j^2) (a
    gap that never closes: s_i > cutoff >= s_j); two kept or two dropped do not."""
    mi, mj = kept[..., :, None], kept[..., None, :]
    si, sj = s[..., :, None], s[..., None, :]
    a, b = mi & ~mj, ~mi & mj
    den = np.where(a | b, si * si - sj * sj, 1.0)
    c1 = (mi & mj) + np.where(a, si * si, 0) / den - np.where(b, sj * sj, 0) / den
    c2 = np.where(a | b, si * sj, 0) / den * np.where(a, 1.0, -1.0)
    return (c1 - mi - mj).astype(s.dtype), c2.astype(s.dtype)


def _svd_np(a: np.ndarray, hermitian: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """U, s, V (a = U diag(s) V^T, thin); from eigh for a symmetric matrix, as numpy's."""
    if hermitian:
        w, v = np.linalg.eigh(a)
        return v, np.abs(w), v * np.where(w < 0, -1.0, 1.0).astype(a.dtype)[..., None, :]
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u, s, np.swapaxes(vh, -1, -2)


def _pinv_forward(x: np.ndarray, rcond: Any, hermitian: bool, truncated: bool) -> np.ndarray:
    return np.linalg.pinv(x, rcond=rcond, hermitian=hermitian).astype(x.dtype)


def _pinv_save(out, x, rcond, hermitian, truncated) -> tuple:
    """(the symmetric matrix, when hermitian) + (U, V, U_r, V_r, D1, D2, when truncated)."""
    a = _hermitian_matrix(x) if hermitian else x
    saved = (a,) if hermitian else ()
    if truncated:
        u, s, v = _svd_np(a, hermitian)
        kept = _kept(s, rcond)
        keep = kept[..., None, :].astype(x.dtype)
        saved += tuple(np.ascontiguousarray(t, dtype=x.dtype) for t in
                       (u, v, u * keep, v * keep) + _trunc_coefficients(s, kept))
    return saved


def _golub_pereyra(g: Tensor, P: Tensor, x: Tensor) -> Tensor:
    """-P^T g P^T + (I - x P) g^T P P^T + P^T P g^T (I - P x)."""
    h = matmul(P, g, transpose_x=True)
    L = matmul(matmul(g, P, transpose_x=True), P, transpose_y=True)
    Mx = matmul(P, matmul(P, g, transpose_y=True), transpose_x=True)
    return (L - matmul(x, matmul(P, L)) + Mx - matmul(matmul(Mx, P), x)
            - matmul(h, P, transpose_y=True))


def _pinv_vjp(g, out, x, rcond, hermitian, truncated):
    a = x + const(_hermitian_matrix(x._data) - x._data, x._data.dtype) if hermitian else x
    gx = _golub_pereyra(g, out, a)
    if truncated:
        n = a.shape[-1]
        if hermitian:
            packed = _eigh_packed(a)
            w, V = _part(packed, 0), _part(packed, 1, n + 1)
            sign = const(np.where(w._data < 0, -1.0, 1.0), a._data.dtype)
            U, s, V = V, w * sign, V * unsqueeze(sign, -2)
        else:
            U, s, VH = svd(a)
            V = _mT(VH)
        kept = _kept(s._data, rcond)
        mi, mj = (const(kept[..., :, None], a._data.dtype),
                  const(kept[..., None, :], a._data.dtype))
        si, sj = unsqueeze(s, -1), unsqueeze(s, -2)
        ab = mi * (1.0 - mj) + (1.0 - mi) * mj              # kept with dropped, either way
        den = si * si - sj * sj + (1.0 - ab)
        d1 = (mi * mj + (mi * (1.0 - mj) * si * si - (1.0 - mi) * mj * sj * sj) / den
              - mi - mj)
        d2 = (mi * (1.0 - mj) - (1.0 - mi) * mj) * si * sj / den
        X = matmul(matmul(U, gx, transpose_x=True), V)
        inner = d1 * X + d2 * _mT(X)
        gx = (matmul(matmul(U, inner) + matmul(gx, V * mj), V, transpose_y=True)
              + matmul(U * mj, matmul(U, gx, transpose_x=True)))
    return ((gx + _mT(gx)) * 0.5 if hermitian else gx,)


def _eigh_packed(a: Tensor) -> Tensor:
    from .decompositions import eigh_op
    return apply(eigh_op, a, uplo="L")


def _lower_pinv(b, node, g, gins):
    """The vjp's formula: ten GEMMs, six more when truncated (x [.., m, n], P, g [.., n, m])."""
    x, attrs, saved = node.inputs[0]._data, node.attrs, node.saved
    m, n = x.shape[-2:]
    nb, batch = _batch(x.shape), x.shape[:-2]
    A = b.value(saved[0] if attrs["hermitian"] else x)
    P = b.value(node.out_data)
    mm, nn, mn = batch + (m, m), batch + (n, n), batch + (m, n)
    h, K, MxP = (b.alloc(mm) for _ in range(3))
    PL, PGt = b.alloc(nn), b.alloc(nn)
    pos, neg, Mx = b.alloc(mn), b.alloc(mn), b.alloc(mn)
    _gemm(b, K, g, P, m, m, n, True, False, nb, acc=False)         # g^T P
    _gemm(b, pos, K, P, m, n, m, False, True, nb, acc=False)       # L = g^T P P^T
    _gemm(b, PL, P, pos, n, n, m, False, False, nb, acc=False)     # P L
    _gemm(b, neg, A, PL, m, n, n, False, False, nb, acc=False)     # x P L
    _gemm(b, PGt, P, g, n, n, m, False, True, nb, acc=False)       # P g^T
    _gemm(b, Mx, P, PGt, m, n, n, True, False, nb, acc=False)      # Mx = P^T P g^T
    b.emit("AXPY", pos, Mx)
    _gemm(b, MxP, Mx, P, m, m, n, False, False, nb, acc=False)     # Mx P
    _gemm(b, neg, MxP, A, m, n, m, False, False, nb)               # Mx P x
    _gemm(b, h, P, g, m, m, n, True, False, nb, acc=False)         # P^T g
    _gemm(b, neg, h, P, m, n, m, False, True, nb)                  # P^T g P^T
    b.emit("AXPY", pos, neg, k=-1.0)                               # pos = Golub-Pereyra
    if attrs["truncated"]:
        pos = _lower_truncation(b, node, pos, mn)
    if not attrs["hermitian"]:
        b.emit("AXPY", gins[0], pos)
        return
    b.emit("AXPY", gins[0], pos, k=0.5)
    b.swap_last_axes(gins[0], pos, mn, 0.5)


def _lower_truncation(b, node, gB, mn: tuple):
    """U (D1 o X + D2 o X^T) V^T + gB V_r V^T + U_r U^T gB, X = U^T gB V."""
    U, V, Ur, Vr, D1, D2 = (b.value(v) for v in node.saved[-6:])
    m, n = mn[-2:]
    k, nb, batch = node.saved[-6].shape[-1], _batch(mn), mn[:-2]
    kn, kk, mk = batch + (k, n), batch + (k, k), batch + (m, k)
    T1, X, XT, inner, S, out = (b.alloc(kn), b.alloc(kk), b.alloc(kk), b.alloc(kk),
                                b.alloc(mk), b.alloc(mn))
    _gemm(b, T1, U, gB, k, n, m, True, False, nb, acc=False)       # U^T gB
    _gemm(b, X, T1, V, k, k, n, False, False, nb, acc=False)
    b.swap_last_axes(XT, X, kk)
    b.emit("MUL", inner, X, D1, acc=False)
    b.emit("MUL", inner, XT, D2)
    _gemm(b, S, U, inner, m, k, k, False, False, nb, acc=False)
    _gemm(b, S, gB, Vr, m, k, n, False, False, nb)
    _gemm(b, out, S, V, m, n, k, False, True, nb, acc=False)
    _gemm(b, out, Ur, T1, m, n, k, False, False, nb)
    return out


def _pinv_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_pinv's products by
    numpy's matmul on P, x and the saved factors (the vjp ran them through apply, and the
    truncation's SVD again)."""
    attrs, saved = node.attrs, node.saved
    A = saved[0] if attrs["hermitian"] else node.inputs[0]._data
    P, g = node.out_data, np.asarray(g)
    L = (_swapT(g) @ P) @ _swapT(P)
    neg = A @ (P @ L)
    Mx = _swapT(P) @ (P @ _swapT(g))
    neg += (Mx @ P) @ A
    neg += (_swapT(P) @ g) @ _swapT(P)
    gx = (L + Mx) - neg                     # (Golub and Pereyra's formula)
    if attrs["truncated"]:
        gx = _truncation_interp(saved[-6:], gx)
    if not attrs["hermitian"]:
        return (gx,)
    half = gx.dtype.type(0.5)
    return (gx * half + _swapT(gx) * half,)


def _truncation_interp(saved: tuple, gB: np.ndarray) -> np.ndarray:
    """_lower_truncation on arrays."""
    U, V, Ur, Vr, D1, D2 = saved
    T1 = _swapT(U) @ gB
    X = T1 @ V
    inner = X * D1
    inner += _swapT(X) * D2
    S = U @ inner
    S += gB @ Vr
    out = S @ _swapT(V)
    out += Ur @ T1
    return out


def _full_rank(shape: tuple, seed: int) -> np.ndarray:
    return _rand(shape, seed) + 1.5 * np.eye(*shape[-2:])


def _case(v: Any, rcond: float = 1e-15, hermitian: bool = False, truncated: bool = False
          ) -> dict:
    return {"shapes": (np.shape(v),), "smooth": True, "values": [v],
            "attrs": {"rcond": rcond, "hermitian": hermitian, "truncated": truncated}}


pinv_op = defop(
    "pinv",
    fused="linear algebra: the pseudo-inverse gradient",
    min_ndim=2, forward=_pinv_forward, save=_pinv_save, vjp=_pinv_vjp,
    lower=_lower_pinv, interp=_pinv_interp,
    cases=(_case(_full_rank((3, 2), 11)), _case(_full_rank((2, 3), 12)),
           _case(_full_rank((2, 2, 2), 13)),
           _case(np.diag([2.0, 1.0, 0.4]) + 0.1 * _rand((3, 3), 14), 0.3, truncated=True),
           _case(np.diag([2.0, 0.3]) @ _rand((2, 3), 15) + [[0.5, 0, 0], [0, 1, 0]], 0.5,
                 truncated=True)))


def _rcond(rcond: Any) -> Any:
    if isinstance(rcond, Tensor):
        rcond = rcond._data
    arr = np.asarray(rcond)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"pinv: rcond must be a float or a float Tensor, got {arr.dtype}")
    return float(arr) if arr.size == 1 else arr.astype(np.float64)


def pinv(x: Tensor, rcond: float | Tensor = 1e-15, hermitian: bool = False,
         name: str | None = None) -> Tensor:
    """Moore-Penrose pseudo-inverse [.., n, m]: singular values at or below rcond times the
    largest count as zero. hermitian reads x's lower triangle as a symmetric matrix (its
    gradient is then symmetric, as Paddle's)."""
    _check_matrix(x, "pinv")
    if hermitian:
        _square(x, "pinv(hermitian=True)")
    rcond, hermitian = _rcond(rcond), bool(hermitian)
    truncated = False
    if tape.is_grad_enabled() and not x._stop_gradient and x._data.size:
        a = _hermitian_matrix(x._data) if hermitian else x._data
        s = (np.abs(np.linalg.eigvalsh(a)) if hermitian
             else np.linalg.svd(a, compute_uv=False))
        truncated = bool(np.any(~_kept(s, rcond) & (s > 0)))
    return apply(pinv_op, x, rcond=rcond, hermitian=hermitian, truncated=truncated)
