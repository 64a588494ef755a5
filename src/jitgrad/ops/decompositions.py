"""Eigen and singular value decompositions with gradients (paddle.linalg.eigh, eigvalsh,
svd, svdvals; qr.py follows the same pattern).

An op has one output, so each factorisation is one registry op whose output packs its
factors as rows of one array (eigh: [w; V], svd: [U; s; V]); the public
functions slice them out, and a loss on any factor reaches the op's gradient. The compiled
backward is a few GEMMs on saved factors; the vjp is the same formula in jitgrad ops, on the
packed output, so it differentiates again. eigvalsh and svdvals are ops of their own: their
gradient (V diag(g) V^T, U diag(g) V^T) needs no eigenvalue gaps, so at a repeated eigenvalue
it stays exact for losses symmetric in the repeated values (their sum, sum(f(w))).

Gaps: the eigenvector and singular vector terms divide by w_j - w_i (s_j^2 - s_i^2). A pair
that is exactly equal contributes 0 there instead of NaN: right for losses symmetric in the
repeated eigenvalues and for whole repeated eigenspaces (their projector); other losses have
no derivative there. Near a repeated value those terms grow like 1 / gap, as the true
derivative does.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from .core import apply, const, require_float
from .indexing import _take, concat
from .linalg import matmul
from .matrix import _batch, _gemm, _mT, _square, _swapT
from .registry import defop
from .shape import _flat_positions, unsqueeze

# ---- shared helpers ------------------------------------------------------------------------


def _rows(shape: tuple, start: int, stop: int | None = None,
          flat: np.ndarray | None = None) -> np.ndarray:
    """Flat positions of rows [start, stop) of each packed matrix (one row, squeezed, when
    stop is None): a view of `flat` (the positions of `shape`) when given."""
    pos = _flat_positions(shape) if flat is None else flat
    return pos[..., start, :] if stop is None else pos[..., start:stop, :]


def _part(t: Tensor, start: int, stop: int | None = None) -> Tensor:
    return _take(t, _rows(tuple(t.shape), start, stop))


def _extract(b, g, shape: tuple, start: int, stop: int | None = None):
    """A fresh slot holding rows [start, stop) of the packed gradient g."""
    flat = _flat_positions(shape)
    pos = _rows(shape, start, stop, flat)
    out = b.alloc(pos.shape)
    b.take_positions(out, g, pos, flat)
    return out


def _sym_into(b, dest, src, shape: tuple, k: float = 1.0) -> None:
    """dest (+)= k * (src + src^T) for a batch of square matrices."""
    b.emit("AXPY", dest, src, k=k)
    b.swap_last_axes(dest, src, shape, k)


def _scale(b, out, vec, mat, shape: tuple, axis: int) -> None:
    """out (+)= mat scaled by vec along its columns (axis -1: mat[.., i, j] * vec[.., j]) or
    rows (axis -2: mat[.., i, j] * vec[.., i])."""
    small = shape[:-2] + ((1, shape[-1]) if axis == -1 else (shape[-2], 1))
    b.spread_mul(out, vec, mat, small, shape)


def _diag_into(b, dest, vec, shape: tuple) -> None:
    """dest[.., i, i] += vec[.., i]."""
    pos = np.diagonal(_flat_positions(shape), axis1=-2, axis2=-1)
    b.scatter(dest, vec, pos.ravel())


def _inv_gaps(w: np.ndarray) -> np.ndarray:
    """F[.., i, j] = 1 / (w_j - w_i), 0 where they are equal (the diagonal among them)."""
    d = w[..., None, :] - w[..., :, None]
    nz = d != 0
    return np.where(nz, 1.0 / np.where(nz, d, 1), 0).astype(w.dtype)


def _inv_gaps_t(w: Tensor) -> Tensor:
    """_inv_gaps in jitgrad ops (differentiable in w)."""
    d = unsqueeze(w, -2) - unsqueeze(w, -1)
    mask = const(d._data != 0, d._data.dtype)
    return mask / (d + (1.0 - mask))


def _check_matrix(x: Tensor, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    require_float(x, what)
    if x.ndim < 2:
        raise ValueError(f"{what} needs matrices [..., m, n], got shape {x.shape}")


def _cases(values: list) -> tuple:
    return tuple({"shapes": (np.shape(v),), "smooth": True, "values": [v]} for v in values)


def _rand(shape: tuple, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


# ---- eigh, eigvalsh --------------------------------------------------------------------------
# uplo "L"/"U" reads that triangle (Paddle's UPLO), "sym" the symmetric part (x + x^T) / 2.
# The gradient is symmetric in every case: the derivative along symmetric perturbations, as
# Paddle's and torch's. It is the true derivative of the "sym" forward (the generated tests
# use it); with "L"/"U" on a matrix that is not symmetric it is that convention.


def _eigh_np(x: np.ndarray, uplo: str) -> tuple[np.ndarray, np.ndarray]:
    if uplo == "sym":
        x = (x + np.swapaxes(x, -1, -2)) * 0.5
    w, v = np.linalg.eigh(x, UPLO="L" if uplo == "sym" else uplo)
    return w.astype(x.dtype), v.astype(x.dtype)


def _eigh_forward(x: np.ndarray, uplo: str) -> np.ndarray:
    w, v = _eigh_np(x, uplo)
    return np.concatenate([w[..., None, :], v], axis=-2)


def _eigh_save(out: np.ndarray, x: np.ndarray, uplo: str) -> tuple:
    return np.ascontiguousarray(out[..., 1:, :]), _inv_gaps(out[..., 0, :])


def _eigh_vjp(g, out, x, uplo):
    n = x.shape[-1]
    w, V = _part(out, 0), _part(out, 1, n + 1)
    gw, gV = _part(g, 0), _part(g, 1, n + 1)
    X = _inv_gaps_t(w) * matmul(V, gV, transpose_x=True)
    inner = matmul(V, (X + _mT(X)) * 0.5) + V * unsqueeze(gw, -2)
    return (matmul(inner, V, transpose_y=True),)


def _lower_eigh(b, node, g, gins):
    """gx = V ((X + X^T) / 2 + diag(gw)) V^T with X = F o (V^T gV)."""
    shape = node.out_data.shape
    n, nb = shape[-1], _batch(shape)
    mshape = shape[:-2] + (n, n)
    V, F = b.value(node.saved[0]), b.value(node.saved[1])
    gw, gV = _extract(b, g, shape, 0), _extract(b, g, shape, 1, n + 1)
    P, X, inner, T = (b.alloc(mshape) for _ in range(4))
    _gemm(b, P, V, gV, n, n, n, True, False, nb, acc=False)
    b.emit("MUL", X, P, F, acc=False)
    _sym_into(b, inner, X, mshape, k=0.5)
    _diag_into(b, inner, gw, mshape)
    _gemm(b, T, V, inner, n, n, n, False, False, nb, acc=False)
    _gemm(b, gins[0], T, V, n, n, n, False, True, nb)


def _diag_added(m: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """m with vec added to each matrix's diagonal, in place (_diag_into on arrays)."""
    n = m.shape[-1]
    m.reshape(m.shape[:-2] + (n * n,))[..., ::n + 1] += vec
    return m


def _eigh_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_eigh's products by
    numpy's matmul on the saved V and gaps (the vjp sliced the packed output and rebuilt
    the gaps in Tensor ops)."""
    V, F = node.saved
    g = np.asarray(g)
    if not g[..., 1:, :].any():         # no loss on V (eigvalsh's rule: one product, not 3)
        return ((V * g[..., 0:1, :]) @ _swapT(V),)
    half = V.dtype.type(0.5)
    X = (_swapT(V) @ g[..., 1:, :]) * F
    inner = _diag_added(X * half + _swapT(X) * half, g[..., 0, :])
    return ((V @ inner) @ _swapT(V),)


_EIGH_CASES = tuple({**c, "attrs": {"uplo": "sym"}} for c in _cases(
    [_rand((3, 3), 1), _rand((2, 3, 3), 2), [[0.7]]]))

eigh_op = defop("eigh",
                fused="linear algebra: the eigenvector gradient",
                min_ndim=2, forward=_eigh_forward, save=_eigh_save, vjp=_eigh_vjp,
                lower=_lower_eigh, interp=_eigh_interp, cases=_EIGH_CASES)


def _eigvalsh_forward(x: np.ndarray, uplo: str) -> np.ndarray:
    return np.linalg.eigvalsh((x + np.swapaxes(x, -1, -2)) * 0.5 if uplo == "sym" else x,
                              UPLO="L" if uplo == "sym" else uplo).astype(x.dtype)


def _eigvalsh_vjp(g, out, x, uplo):
    V = _part(apply(eigh_op, x, uplo=uplo), 1, x.shape[-1] + 1)
    return (matmul(V * unsqueeze(g, -2), V, transpose_y=True),)


def _lower_eigvalsh(b, node, g, gins):
    """gx = (V diag(g)) V^T."""
    shape = node.saved[0].shape
    n, nb = shape[-1], _batch(shape)
    V, T = b.value(node.saved[0]), b.alloc(shape)
    _scale(b, T, g, V, shape, -1)
    _gemm(b, gins[0], T, V, n, n, n, False, True, nb)


def _scaled_outer_interp(node, g, want):
    """The interpreted rule of eigvalsh and svdvals: (U diag(g)) V^T on the saved vectors
    (U = V for eigvalsh), as their lowered rows (the vjps ran eigh / svd again)."""
    U, V = node.saved[0], node.saved[-1]
    return ((U * np.asarray(g)[..., None, :]) @ _swapT(V),)


eigvalsh_op = defop(
    "eigvalsh",
    fused="linear algebra: the eigenvalue gradient",
    min_ndim=2, forward=_eigvalsh_forward,
    save=lambda out, x, uplo: (_eigh_np(x, uplo)[1],),
    vjp=_eigvalsh_vjp, lower=_lower_eigvalsh, interp=_scaled_outer_interp,
    cases=_EIGH_CASES)


def _uplo(UPLO: str, what: str) -> str:
    if UPLO not in ("L", "U"):
        raise ValueError(f"{what}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def eigh(x: Tensor, UPLO: str = "L", name: str | None = None) -> tuple[Tensor, Tensor]:
    """(eigenvalues ascending [..., n], eigenvectors as columns [..., n, n]) of the symmetric
    matrix held in x's UPLO triangle. The gradient is symmetric (Paddle's convention);
    eigenvectors' signs are LAPACK's, so differentiate losses that do not depend on them."""
    _square(x, "eigh")
    packed = apply(eigh_op, x, uplo=_uplo(UPLO, "eigh"))
    return _part(packed, 0), _part(packed, 1, x.shape[-1] + 1)


def eigvalsh(x: Tensor, UPLO: str = "L", name: str | None = None) -> Tensor:
    """eigh's eigenvalues; without eigenvectors in the loss their gradient needs no gaps."""
    _square(x, "eigvalsh")
    return apply(eigvalsh_op, x, uplo=_uplo(UPLO, "eigvalsh"))


# ---- svd, svdvals ----------------------------------------------------------------------------
# Thin SVD x = U diag(s) V^T, k = min(m, n); packed [U; s; V] is [..., m + 1 + n, k].


def _svd_forward(x: np.ndarray) -> np.ndarray:
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.concatenate([u, s[..., None, :], np.swapaxes(vh, -1, -2)], axis=-2
                          ).astype(x.dtype)


def _svd_save(out: np.ndarray, x: np.ndarray) -> tuple:
    m = x.shape[-2]
    s = out[..., m, :]
    U, V = np.ascontiguousarray(out[..., :m, :]), np.ascontiguousarray(out[..., m + 1:, :])
    return U, V, s.copy(), _inv_gaps(s * s), (1.0 / s).astype(x.dtype)


def _svd_vjp(g, out, x):
    m, n = x.shape[-2:]
    k = min(m, n)
    U, s, V = _part(out, 0, m), _part(out, m), _part(out, m + 1, m + 1 + n)
    gU, gs, gV = _part(g, 0, m), _part(g, m), _part(g, m + 1, m + 1 + n)
    F = _inv_gaps_t(s * s)
    P1, P2 = matmul(U, gU, transpose_x=True), matmul(V, gV, transpose_x=True)
    X, Y = F * P1, F * P2
    srow, scol = unsqueeze(s, -2), unsqueeze(s, -1)
    inner = (X + _mT(X)) * srow + scol * (Y + _mT(Y)) + \
        unsqueeze(gs, -1) * const(np.eye(k), x._data.dtype)
    left = matmul(U, inner)
    if m > k:                   # (I - U U^T) gU S^-1
        left = left + (gU - matmul(U, P1)) / srow
    gx = matmul(left, V, transpose_y=True)
    if n > k:                   # U S^-1 gV^T (I - V V^T)
        gx = gx + matmul(U, (gV - matmul(V, P2)) / srow, transpose_y=True)
    return (gx,)


def _lower_svd(b, node, g, gins):
    """gx = U inner V^T + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T), inner =
    (X + X^T) S + S (Y + Y^T) + diag(gs), X = F o U^T gU, Y = F o V^T gV."""
    x = node.inputs[0]._data
    m, n = x.shape[-2:]
    k, nb, batch = min(m, n), _batch(x.shape), x.shape[:-2]
    shape = node.out_data.shape
    kk, uk, vk = batch + (k, k), batch + (m, k), batch + (n, k)
    U, V, s, F, sinv = (b.value(v) for v in node.saved)
    gU, gs, gV = (_extract(b, g, shape, 0, m), _extract(b, g, shape, m),
                  _extract(b, g, shape, m + 1, m + 1 + n))
    P1, P2, X, Y, J, K, inner = (b.alloc(kk) for _ in range(7))
    _gemm(b, P1, U, gU, k, k, m, True, False, nb, acc=False)
    _gemm(b, P2, V, gV, k, k, n, True, False, nb, acc=False)
    b.emit("MUL", X, P1, F, acc=False)
    b.emit("MUL", Y, P2, F, acc=False)
    _sym_into(b, J, X, kk)
    _sym_into(b, K, Y, kk)
    _scale(b, inner, s, J, kk, -1)
    _scale(b, inner, s, K, kk, -2)
    _diag_into(b, inner, gs, kk)
    T = b.alloc(uk)
    _gemm(b, T, U, inner, m, k, k, False, False, nb, acc=False)
    if m > k:
        R = b.alloc(uk)
        b.emit("AXPY", R, gU, acc=False)
        W = b.alloc(uk)
        _gemm(b, W, U, P1, m, k, k, False, False, nb, acc=False)
        b.emit("AXPY", R, W, k=-1.0)
        _scale(b, T, sinv, R, uk, -1)
    _gemm(b, gins[0], T, V, m, n, k, False, True, nb)
    if n > k:
        R = b.alloc(vk)
        b.emit("AXPY", R, gV, acc=False)
        W = b.alloc(vk)
        _gemm(b, W, V, P2, n, k, k, False, False, nb, acc=False)
        b.emit("AXPY", R, W, k=-1.0)
        Rs = b.alloc(vk)
        _scale(b, Rs, sinv, R, vk, -1)
        _gemm(b, gins[0], U, Rs, m, n, k, False, True, nb)


def _svd_interp(node, g, want):
    """The interpreted rule: _lower_svd's products by numpy's matmul on the saved factors
    (the vjp sliced the packed output and rebuilt the gaps in Tensor ops)."""
    U, V, s, F, sinv = node.saved
    m, n = U.shape[-2], V.shape[-2]
    k = min(m, n)
    g = np.asarray(g)
    gU, gs, gV = g[..., :m, :], g[..., m, :], g[..., m + 1:, :]
    if not (gU.any() or gV.any()):      # a loss on s alone (svdvals' rule: one product)
        return ((U * gs[..., None, :]) @ _swapT(V),)
    P1, P2 = _swapT(U) @ gU, _swapT(V) @ gV
    X, Y = P1 * F, P2 * F
    inner = s[..., None, :] * (X + _swapT(X))
    inner += s[..., :, None] * (Y + _swapT(Y))
    T = U @ _diag_added(inner, gs)
    if m > k:
        T += sinv[..., None, :] * (gU - U @ P1)
    gx = T @ _swapT(V)
    if n > k:
        gx += U @ _swapT(sinv[..., None, :] * (gV - V @ P2))
    return (gx,)


_SVD_VALUES = [_rand((3, 2), 3), _rand((2, 3), 4), _rand((2, 3, 3), 5), _rand((4, 1), 6)]

svd_op = defop("svd",
               fused="linear algebra: the SVD gradient",
               min_ndim=2, forward=_svd_forward, save=_svd_save, vjp=_svd_vjp,
               lower=_lower_svd, interp=_svd_interp, quiet=True, cases=_cases(_SVD_VALUES))


def _svdvals_save(out: np.ndarray, x: np.ndarray) -> tuple:
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return u.astype(x.dtype), np.ascontiguousarray(np.swapaxes(vh, -1, -2)).astype(x.dtype)


def _svdvals_vjp(g, out, x):
    m, n = x.shape[-2:]
    packed = apply(svd_op, x)
    U, V = _part(packed, 0, m), _part(packed, m + 1, m + 1 + n)
    return (matmul(U * unsqueeze(g, -2), V, transpose_y=True),)


def _lower_svdvals(b, node, g, gins):
    """gx = (U diag(g)) V^T."""
    U, V = node.saved
    m, n, k, nb = U.shape[-2], V.shape[-2], U.shape[-1], _batch(U.shape)
    T = b.alloc(U.shape)
    _scale(b, T, g, b.value(U), U.shape, -1)
    _gemm(b, gins[0], T, b.value(V), m, n, k, False, True, nb)


svdvals_op = defop(
    "svdvals",
    fused="linear algebra: U^T-weighted outer products",
    min_ndim=2, save=_svdvals_save, vjp=_svdvals_vjp, lower=_lower_svdvals,
    interp=_scaled_outer_interp,
    forward=lambda x: np.linalg.svd(x, compute_uv=False).astype(x.dtype),
    cases=_cases(_SVD_VALUES))


def svd(x: Tensor, full_matrices: bool = False, name: str | None = None
        ) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, VH) with x = U diag(S) VH, S descending. With full_matrices the columns of U
    (rows of VH) beyond min(m, n) complete an orthonormal basis, which is not unique: as in
    Paddle they carry no gradient."""
    _check_matrix(x, "svd")
    m, n = x.shape[-2:]
    k = min(m, n)
    packed = apply(svd_op, x)
    U, S, V = _part(packed, 0, m), _part(packed, m), _part(packed, m + 1, m + 1 + n)
    VH = _mT(V)
    if full_matrices and m != n:
        u, _, vh = np.linalg.svd(x._data, full_matrices=True)
        if m > k:
            U = concat([U, const(u[..., k:], x._data.dtype)], axis=-1)
        else:
            VH = concat([VH, const(vh[..., k:, :], x._data.dtype)], axis=-2)
    return U, S, VH


def svdvals(x: Tensor, name: str | None = None) -> Tensor:
    """Singular values, descending; their gradient U diag(g) V^T needs no gaps."""
    _check_matrix(x, "svdvals")
    return apply(svdvals_op, x)
