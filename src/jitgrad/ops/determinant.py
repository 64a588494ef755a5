"""Determinants: slogdet ([sign, log|det|] from one LU) and det are registry entries whose
compiled backward is one broadcast multiply by a saved matrix (inverse^T, or the cofactor
matrix for det, which stays right at singular matrices)."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from ..core import tape
from .core import NO_ATTRS, apply_xy, const
from .linalg import matmul
from .matrix import _inv_or_nan, _mT, _small_lu, _square, inverse, inverse_op
from .registry import defop
from .shape import reshape, unsqueeze


def _inv_T(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(_inv_or_nan(x), -1, -2).astype(x.dtype, copy=False)


def _mat(g: Tensor) -> Tensor:
    """A batch of scalars as a batch of 1 x 1 matrices."""
    return reshape(g, g.shape + [1, 1])


def _lower_bcast_mul(b, node, g, gins):
    """gx[..., i, j] += g[...] * saved[..., i, j]."""
    x = node.inputs[0]._data
    b.spread_mul(gins[0], g, b.value(node.saved[0]), x.shape[:-2] + (1, 1), x.shape)


def _bcast_mul_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_bcast_mul's product
    on arrays, each matrix's g times its saved matrix (the vjp inverted x again)."""
    return (np.multiply(np.asarray(g)[..., None, None], node.saved[0]),)


def _slogdet_interp(node, g, want):
    """_lower_slogdet's product on arrays: g[1] (log|det|'s) times the saved inverse^T."""
    return (np.multiply(np.asarray(g)[1][..., None, None], node.saved[0]),)


def _slogdet(x: np.ndarray) -> np.ndarray:
    """[sign(det), log|det|] stacked on a new leading axis: one LU per matrix gives both."""
    sign, logabs = np.linalg.slogdet(x)
    return np.stack([sign, logabs]).astype(x.dtype, copy=False)


def _slogdet_vjp(g, out, x):
    """Only log|det| (out[1]) carries a gradient: g[1] * inv(x)^T."""
    g1 = g[1]
    if np.all(np.isfinite(out._data[1])):
        return (_mat(g1) * _mT(inverse(x)),)
    return (_mat(g1) * const(_inv_T(x._data), x._data.dtype),)   # NaN where singular


def _lower_slogdet(b, node, g, gins):
    """gx[..., i, j] += g[1, ...] * saved[..., i, j] (the sign row g[0] has no gradient)."""
    x = node.inputs[0]._data
    batch = x.shape[:-2]
    b.spread_mul(gins[0], g, b.value(node.saved[0]), batch + (1, 1), x.shape,
                 start=int(np.prod(batch, dtype=np.int64)))


slogdet_op = defop(
    "slogdet",
    fused="linear algebra: sign and log|det| from one LU, the inverse transpose saved",
    min_ndim=2, forward=_slogdet, save=lambda out, x: (_inv_T(x),),
    lower=_lower_slogdet, interp=_slogdet_interp, vjp=_slogdet_vjp,
    cases=inverse_op.cases[:2])


def _others_prod(s: np.ndarray) -> np.ndarray:
    """prod over j != i of s[.., j], without dividing (s may hold zeros)."""
    one = np.ones(s.shape[:-1] + (1,), s.dtype)
    left = np.cumprod(np.concatenate([one, s[..., :-1]], -1), -1)
    right = np.cumprod(np.concatenate([one, s[..., :0:-1]], -1), -1)[..., ::-1]
    return left * right


def _cofactor(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """d det / dx: det * inv(x)^T, or for a singular matrix the same cofactor matrix from its
    SVD x = U diag(s) V^T, det(U) det(V) U diag(prod_{j != i} s_j) V^T (nonzero at rank
    n - 1)."""
    sing = d == 0
    c = np.empty(x.shape, x.dtype)
    if not sing.any():                  # (the common case: no masks, no copies of x)
        return np.multiply(np.swapaxes(np.linalg.inv(x), -1, -2), d[..., None, None], out=c)
    if not sing.all():
        c[~sing] = np.swapaxes(np.linalg.inv(x[~sing]), -1, -2) * d[~sing][..., None, None]
    if sing.any():
        u, s, vh = np.linalg.svd(x[sing])
        sign = np.linalg.det(u) * np.linalg.det(vh)
        c[sing] = sign[..., None, None] * (u * _others_prod(s)[..., None, :]) @ vh
    return c


def _cofactor_t(x: Tensor) -> Tensor:
    """_cofactor in jitgrad ops, for singular matrices (differentiable through the SVD)."""
    from .decompositions import svd
    from .stats import prod
    U, S, VH = svd(x)
    n, dt = x.shape[-1], x._data.dtype
    sign = np.linalg.det(U._data) * np.linalg.det(VH._data)
    eye = const(np.eye(n), dt)
    others = prod(unsqueeze(S, -2) * (1.0 - eye) + eye, axis=-1)        # row i skips s_i
    return matmul(U * unsqueeze(others, -2), VH) * const(sign[..., None, None], dt)


def _det_vjp(g, out, x):
    if np.all(out._data != 0):
        return (_mat(g * out) * _mT(inverse(x)),)
    return (_mat(g) * _cofactor_t(x),)


det_op = defop(
    "det",
    fused="linear algebra: the cofactor matrix (singular inputs included)",
    min_ndim=2, forward=lambda x: np.asarray(np.linalg.det(x), dtype=x.dtype),
    save=lambda out, x: (_cofactor(x, out),), lower=_lower_bcast_mul,
    interp=_bcast_mul_interp, vjp=_det_vjp,
    cases=inverse_op.cases + ({"shapes": ((3, 3),), "smooth": True,
                               "values": [[[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]]]},))


def _recording(x: Tensor) -> bool:
    return tape.is_grad_enabled() and not x._stop_gradient


def det(x: Tensor, name: str | None = None) -> Tensor:
    """Determinant of each matrix. Its gradient is the cofactor matrix, also for singular
    matrices (Paddle 3.3.1 gives zeros there, wrong at rank n - 1)."""
    _square(x, "det")
    recording = _recording(x)
    lu = _small_lu(x._data, None, recording)
    if lu is None or lu.singular:       # (numpy's path: a singular matrix's cofactors)
        return apply_xy(det_op, x)
    d = np.asarray(lu.sign * np.exp(lu.logabs), x._data.dtype)
    saved = (np.swapaxes(lu.inverse, -1, -2) * d[..., None, None],) if recording else None
    return apply_xy(det_op, x, None, NO_ATTRS, d, saved)


def slogdet(x: Tensor, name: str | None = None) -> Tensor:
    """Paddle's slogdet: a tensor [2, ...] holding sign(det) and log|det| (only the second
    carries a gradient)."""
    _square(x, "slogdet")
    recording = _recording(x)
    lu = _small_lu(x._data, None, recording)
    if lu is None or lu.singular:       # (numpy's path: sign 0, log|det| -inf)
        return apply_xy(slogdet_op, x)
    out = np.stack([lu.sign, lu.logabs]).astype(x._data.dtype, copy=False)
    saved = (np.swapaxes(lu.inverse, -1, -2),) if recording else None
    return apply_xy(slogdet_op, x, None, NO_ATTRS, out, saved)
