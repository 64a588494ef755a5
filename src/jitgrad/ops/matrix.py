"""Linear algebra beyond matmul. inverse, solve and cholesky are registry entries: inverse
and solve save the inverse they need and their compiled backward is a few GEMMs; cholesky's
backward solves with its factor (triangular.py's TRSM rows); each vjp is written with
jitgrad ops so it can be differentiated again. dot, bmm, einsum, trace and diag are
composites; outer is one node (outer_product.py). Determinants are in determinant.py;
decompositions in decompositions.py, qr.py, pinv.py and least_squares.py; triangular
solves in triangular.py."""

from __future__ import annotations

import builtins
import functools
import math
import string
from typing import NamedTuple

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from ..core import tape
from .core import (NO_ATTRS, apply, apply_xy, binary_operands, checks_own_tensor_args,
                   compiled_kernels, const, remember, require_float, tensor_arg_error)
from .indexing import _take
from .linalg import _F32, _F64, _NO_TRANSPOSE, _np_matmul, matmul, matmul_op
from .outer_product import _forward as _outer_forward, outer_op
from .registry import defop
from . import triangular
from .shape import reshape_exact
from .shape import (_flat_positions, _scatter_flat, _take_flat, broadcast_to, reshape,
                    reshape_to, transpose, transpose_op, unsqueeze)


def _mT(x: Tensor) -> Tensor:
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def _square(x: Tensor, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    require_float(x, what)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{what} needs square matrices [..., n, n], got shape {x.shape}")


def _gemm(b, out, A, B, m, n, k, ta, tb, nb, acc=None):
    """out_j (+)= op(A_j) @ op(B_j) for each of nb batches of dense matrices."""
    p = b.table([nb, m, n, k, int(ta), int(tb), m * k, k * n, m * n])
    b.emit("GEMM", out, A, B, p=p, acc=acc)


def _swapT(a: np.ndarray) -> np.ndarray:
    """A batch of matrices transposed (a view): the array rules' A^T."""
    return np.swapaxes(a, -1, -2)


def _batch(shape: tuple) -> int:
    return math.prod(shape[:-2])


# ---- inverse -------------------------------------------------------------------------------

def _lower_inverse(b, node, g, gins):
    """gx = -(inv^T @ g @ inv^T): two GEMMs and a scaled add."""
    shape = node.out_data.shape
    n, nb = shape[-1], _batch(shape)
    inv = b.value(node.out_data)
    t1, t2 = b.alloc(shape), b.alloc(shape)
    _gemm(b, t1, inv, g, n, n, n, True, False, nb, acc=False)
    _gemm(b, t2, t1, inv, n, n, n, False, True, nb, acc=False)
    b.emit("AXPY", gins[0], t2, k=-1.0)


def _inverse_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_inverse's products
    by numpy's matmul on the saved inverse (the vjp ran them through apply)."""
    inv = node.out_data
    return (np.negative((_swapT(inv) @ g) @ _swapT(inv)),)


def _spd_values(n: int, batch: tuple = ()) -> np.ndarray:
    rng = np.random.default_rng(n)
    a = rng.uniform(-0.5, 0.5, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _wellcond(n: int, batch: tuple = ()) -> np.ndarray:
    rng = np.random.default_rng(n + 7)
    return rng.uniform(-0.5, 0.5, batch + (n, n)) + 2 * np.eye(n)


def _singular(name: str, why: str) -> ValueError:
    return ValueError(f"{name}: the matrix is singular, so it has no inverse (numpy: {why})")


def _nonsingular(name: str, fn):
    """fn with numpy's LinAlgError for a singular matrix raised as a ValueError that names
    the op (as Paddle's 'Input is not invertible')."""
    def forward(*arrays):
        try:
            return fn(*arrays)
        except np.linalg.LinAlgError as e:
            raise _singular(name, str(e)) from None
    return forward


SMALL_N = 16        # matrices up to this size: vm/forward_linalg.py's LU, not LAPACK's
_LU_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class SmallLU(NamedTuple):
    """What one compiled LU per matrix gives (_small_lu)."""
    singular: bool              # some matrix has a zero (or NaN) pivot: nothing else is set
    solution: np.ndarray        # x^-1 y, [..., n, k]
    inverse: np.ndarray | None  # x^-1, when asked for
    sign: np.ndarray            # sign(det x), [...], float64
    logabs: np.ndarray          # log|det x|, [...], float64


def _small_lu(x: np.ndarray, y: np.ndarray | None, want_inv: bool) -> SmallLU | None:
    """One compiled LU per matrix of a batch of small float32/float64 matrices
    (vm/forward_linalg.py) once Numba is loaded: x^-1 y (y None: no right-hand side),
    x^-1 if want_inv, and the determinants. None: take numpy's path. x and y have one
    dtype and one batch shape."""
    n = x.shape[-1]
    if n > SMALL_N or x.dtype not in _LU_DTYPES or (y is not None and y.dtype != x.dtype) \
            or x.size == 0:
        return None
    kernels = compiled_kernels("forward_linalg")
    if kernels is None:
        return None
    batch = x.shape[:-2]
    M = x.size // (n * n)
    a = np.ascontiguousarray(x).reshape(M, n, n)
    k = 0 if y is None else y.shape[-1]
    b = np.empty((M, n, 0), x.dtype) if y is None else np.ascontiguousarray(y).reshape(M, n, k)
    out = np.empty((M, n, k), x.dtype)
    inv = np.empty((M if want_inv else 0, n, n), x.dtype)
    sign, logabs = np.empty(M), np.empty(M)
    singular = kernels.lu_solve(a, b, out, inv, sign, logabs) >= 0
    return SmallLU(singular, out.reshape(batch + (n, k)),
                   inv.reshape(batch + (n, n)) if want_inv else None,
                   sign.reshape(batch), logabs.reshape(batch))


inverse_op = defop(
    "inverse",
    fused="linear algebra: -A^-T G A^-T by two GEMMs",
    min_ndim=2, forward=_nonsingular("inverse", np.linalg.inv), lower=_lower_inverse,
    interp=_inverse_interp,
    vjp=lambda g, out, x: (-matmul(matmul(out, g, transpose_x=True), out, transpose_y=True),),
    cases=({"shapes": ((3, 3),), "smooth": True, "values": [_wellcond(3)]},
           {"shapes": ((2, 2, 2),), "smooth": True, "values": [_wellcond(2, (2,))]},
           {"shapes": ((1, 1),), "smooth": True, "values": [[[1.5]]]}))


def inverse(x: Tensor, name: str | None = None) -> Tensor:
    _square(x, "inverse")
    lu = _small_lu(x._data, None, True)
    if lu is None:
        return apply_xy(inverse_op, x)
    if lu.singular:
        raise _singular("inverse", "Singular matrix")
    return apply_xy(inverse_op, x, None, NO_ATTRS, lu.inverse)


def _inv_or_nan(a: np.ndarray) -> np.ndarray:
    """inv(a), NaN for the singular matrices of the batch (where a gradient is undefined)."""
    try:
        return np.linalg.inv(a).astype(a.dtype, copy=False)
    except np.linalg.LinAlgError:
        flat = a.reshape((-1,) + a.shape[-2:])
        out = np.full_like(flat, np.nan)
        for i, m in enumerate(flat):
            try:
                out[i] = np.linalg.inv(m)
            except np.linalg.LinAlgError:
                pass
        return out.reshape(a.shape)


# ---- solve ---------------------------------------------------------------------------------

def _solve_vjp(g, out, x, y):
    gy = matmul(inverse(x), g, transpose_x=True)
    return -matmul(gy, out, transpose_y=True), gy


def _lower_solve(b, node, g, gins):
    """gy = inv(x)^T @ g; gx = -gy @ out^T (x [.., n, n], y and out [.., n, k])."""
    x, out = node.inputs[0]._data, node.out_data
    n, k, nb = x.shape[-1], out.shape[-1], _batch(x.shape)
    gy = gins[1] if gins[1] is not None and gins[1].off not in b.written else b.alloc(out.shape)
    _gemm(b, gy, b.value(node.saved[0]), g, n, k, n, True, False, nb, acc=False)
    if gins[1] is not None and gy is not gins[1]:
        b.emit("AXPY", gins[1], gy)
    if gins[0] is not None:
        t = b.alloc(x.shape)
        _gemm(b, t, gy, b.value(out), n, n, k, False, True, nb, acc=False)
        b.emit("AXPY", gins[0], t, k=-1.0)


def _solve_interp(node, g, want):
    """The interpreted rule: _lower_solve's products by numpy's matmul on the saved inverse
    (the vjp inverted x again)."""
    gy = _swapT(node.saved[0]) @ g
    return (np.negative(gy @ _swapT(node.out_data)) if want[0] else None,
            gy if want[1] else None)


solve_op = defop(
    "solve",
    fused="linear algebra: a solve with A^T and a GEMM",
    min_ndim=2, nin=2,
    forward=_nonsingular("solve", lambda x, y: np.linalg.solve(x, y).astype(
        np.result_type(x, y))),
    save=lambda out, x, y: (np.linalg.inv(x).astype(out.dtype, copy=False),),
    vjp=_solve_vjp, lower=_lower_solve, interp=_solve_interp,
    cases=({"shapes": ((3, 3), (3, 2)), "smooth": True,
            "values": [_wellcond(3), [[1., 2.], [0., -1.], [0.5, .3]]]},
           {"shapes": ((2, 2, 2), (2, 2, 1)), "smooth": True,
            "values": [_wellcond(2, (2,)), [[[1.], [2.]], [[-1.], [.5]]]]}))


def solve(x: Tensor, y: Tensor, left: bool = True, name: str | None = None) -> Tensor:
    """x^{-1} y for square x [.., n, n] and y [.., n, k] or [.., n] (batch dims broadcast);
    with left=False, y x^{-1} for y [.., k, n]."""
    x, y = binary_operands(x, y)
    _square(x, "solve")
    if not left:
        if y.ndim < 2 or y.shape[-1] != x.shape[-1]:
            raise ValueError(f"solve(left=False) solves out @ x = y: y must be [.., k, "
                             f"{x.shape[-1]}] for x {x.shape}, got {y.shape}")
        return _mT(solve(_mT(x), _mT(y)))
    vec = y.ndim == 1 or (y.ndim == x.ndim - 1 and y.shape == x.shape[:-1])   # Paddle's rule
    if vec:
        y = unsqueeze(y, -1)
    if y.shape[-2] != x.shape[-1]:
        raise ValueError(f"solve: shapes {x.shape} and {y.shape} do not fit")
    batch = list(np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2])))
    if x.shape[:-2] != batch:
        x = broadcast_to(x, batch + x.shape[-2:])
    if y.shape[:-2] != batch:
        y = broadcast_to(y, batch + y.shape[-2:])
    recording = tape.is_grad_enabled() and not (x._stop_gradient and y._stop_gradient)
    lu = _small_lu(x._data, y._data, recording)
    if lu is None:
        out = apply_xy(solve_op, x, y)
    elif lu.singular:
        raise _singular("solve", "Singular matrix")
    else:                           # (the inverse its backward reads, from the same LU)
        out = apply_xy(solve_op, x, y, NO_ATTRS, lu.solution,
                       (lu.inverse,) if recording else None)
    return reshape(out, out.shape[:-1]) if vec else out


# ---- cholesky ------------------------------------------------------------------------------

def _phi_mask(n: int) -> np.ndarray:
    """Lower triangle with the diagonal halved."""
    return np.tril(np.ones((n, n))) - 0.5 * np.eye(n)


def _chol_forward(x: np.ndarray, uplo: str = "L") -> np.ndarray:
    # uplo "L" reads the lower triangle (LAPACK's, Paddle's), "sym" the symmetric part
    # (x + x^T) / 2. The gradient is symmetric in both: the derivative along symmetric
    # changes of x (Paddle's, torch's); the true derivative of the "sym" forward, which the
    # generated tests use (eigh's convention, ops/decompositions.py)
    if uplo == "sym":
        x = 0.5 * (x + np.swapaxes(x, -1, -2))
    try:
        return np.linalg.cholesky(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise ValueError("cholesky: the matrix is not positive definite") from None


def _small_cholesky(x: np.ndarray) -> np.ndarray | None:
    """L for a batch of small float32/float64 matrices from one compiled pass per matrix
    in float64, rounded once (vm/forward_linalg.py; numpy's batched cholesky costs ~1 us a
    matrix in gufunc setup: 32 8x8 matrices ~30 us); None: LAPACK's path."""
    n = x.shape[-1]
    if n > SMALL_N or x.size == 0 or x.dtype not in _LU_DTYPES:
        return None
    kernels = compiled_kernels("forward_linalg")
    if kernels is None:
        return None
    M = x.size // (n * n)
    L = np.empty(x.shape, x.dtype)
    if kernels.cholesky_factor(np.ascontiguousarray(x).reshape(M, n, n),
                               L.reshape(M, n, n)) >= 0:
        raise ValueError("cholesky: the matrix is not positive definite")
    return L


# The gradient: with P = Phi(L^T G) (the lower triangle, its diagonal halved), S =
# L^-T P L^-1 by two triangular solves (no inverse: BLAS trsm, n^3 flops each, where the
# inverse LAPACK's getri made was 2 n^3 and the two GEMMs reading it 4 n^3), and the
# symmetric gradient (S + S^T) / 2.

def _chol_vjp(g, out, x, uplo="L"):
    n = x.shape[-1]
    p = matmul(out, g, transpose_x=True) * const(_phi_mask(n), x._data.dtype)
    t = triangular.solve(out, p, False, True, False)                # L^-T P
    s = _mT(triangular.solve(out, _mT(t), False, True, False))      # (L^-T (L^-T P)^T)^T
    return ((s + _mT(s)) * 0.5,)


def _lower_chol(b, node, g, gins):
    shape = node.out_data.shape
    n, nb = shape[-1], _batch(shape)
    L = b.value(node.out_data)
    t1, t2 = b.alloc(shape), b.alloc(shape)
    _gemm(b, t1, L, g, n, n, n, True, False, nb, acc=False)
    b.emit("MUL", t2, t1, b.static_value(np.broadcast_to(_phi_mask(n), shape)), acc=False)
    triangular.emit_trsm(b, t1, L, t2, n, n, nb, True, False, True, False, n * n, n * n)
    triangular.emit_trsm(b, t1, L, t1, n, n, nb, False, False, False, False, n * n, n * n)
    b.emit("AXPY", gins[0], t1, k=0.5)
    b.swap_last_axes(gins[0], t1, shape, 0.5)


def _chol_interp(node, g, want):
    """The interpreted rule: _lower_chol's products and solves in numpy and BLAS."""
    L = node.out_data
    p = (_swapT(L) @ g) * _phi_mask(L.shape[-1]).astype(L.dtype)
    t = triangular.solve_arrays(L, p, False, True, False)
    s = triangular.solve_arrays(L, t, False, False, False, left=False)
    half = L.dtype.type(0.5)
    return (s * half + _swapT(s) * half,)


cholesky_op = defop(
    "cholesky",
    fused="linear algebra: the gradient by two triangular solves with the factor",
    min_ndim=2, forward=_chol_forward, lower=_lower_chol, interp=_chol_interp,
    vjp=_chol_vjp,
    cases=({"shapes": ((3, 3),), "smooth": True, "values": [_spd_values(3)],
            "attrs": {"uplo": "sym"}},
           {"shapes": ((2, 2, 2),), "smooth": True, "values": [_spd_values(2, (2,))],
            "attrs": {"uplo": "sym"}}))


def cholesky(x: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The Cholesky factor of a symmetric positive definite matrix: L with x = L L^T, read
    from x's lower triangle, or U with x = U^T U, read from its upper one, when upper (as
    Paddle: the other triangle is not read). The gradient is the symmetric one."""
    _square(x, "cholesky")
    if upper:
        return _mT(cholesky(_mT(x)))
    found = _small_cholesky(x._data) if not x._stop_gradient and tape.is_grad_enabled() \
        else None
    return apply(cholesky_op, x) if found is None else apply_xy(cholesky_op, x, None,
                                                                NO_ATTRS, found)


# ---- composites ------------------------------------------------------------------------------

def dot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Inner product of vectors, or row by row for [N, D] inputs."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        xd, yd = x._data, y._data
        if xd.ndim == 1 and yd.dtype is xd.dtype and xd.dtype.kind == "f" and \
                xd.shape == yd.shape:   # matmul's node for two float vectors, its call
            return apply_xy(matmul_op, x, y, _NO_TRANSPOSE, np.asarray(_np_matmul(xd, yd)))
    x, y = binary_operands(x, y)
    if x.shape != y.shape or x.ndim not in (1, 2):
        raise ValueError(f"dot needs two 1-D or 2-D tensors of the same shape, got {x.shape} "
                         f"and {y.shape}")
    if x.ndim == 1 and x._data.dtype.kind == "f":
        return matmul(x, y)             # one node, one BLAS call
    return R.sum(x * y, axis=-1)


def bmm(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    if x.ndim != 3 or y.ndim != 3 or x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise ValueError(f"bmm needs [b, m, k] and [b, k, n] tensors, got {x.shape} and "
                         f"{y.shape}")
    return matmul(x, y)


def mv(x: Tensor, vec: Tensor, name: str | None = None) -> Tensor:
    return matmul(x, vec)


@checks_own_tensor_args
def outer(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Every product of an element of x (flattened) with one of y: [x.size, y.size]. Two
    float32 or float64 tensors of one dtype: one node (ops/outer_product.py); otherwise
    x as a column times y as a row (reshape, reshape, matmul: the same values)."""
    if not isinstance(x, Tensor):
        raise tensor_arg_error("outer", "x", x)
    if not isinstance(y, Tensor):
        raise tensor_arg_error("outer", "y", y)
    xd, yd = x._data, y._data
    dt = xd.dtype
    if (dt is _F32 or dt is _F64) and yd.dtype is dt:
        return apply_xy(outer_op, x, y, NO_ATTRS, _outer_forward(xd, yd))
    return matmul(reshape(x, [-1, 1]), reshape(y, [1, -1]))


def diagonal(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1,
             name: str | None = None) -> Tensor:
    if type(offset) is int and type(axis1) is int and type(axis2) is int:
        idx, shape = _diagonal_map(x._data.shape, offset, axis1, axis2)
        return _take_flat(x, idx, shape)
    return _take(x, np.diagonal(_flat_positions(x._data.shape), offset, axis1, axis2))


@functools.lru_cache(maxsize=64)
def _diagonal_map(shape: tuple, offset: int, axis1: int, axis2: int) -> tuple:
    """The flat positions of a diagonal of an array of `shape`, read-only and shared (one
    per shape and arguments: a training loop takes the same diagonal every step, and the
    backward binds a table it saw last time without copying it), and the diagonal's
    shape. numpy's errors for bad arguments."""
    pos = np.diagonal(_flat_positions(shape), offset, axis1, axis2)
    idx = pos.ravel().copy()
    idx.setflags(write=False)
    return idx, pos.shape


def trace(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
          ) -> Tensor:
    return R.sum(diagonal(x, offset, axis1, axis2), axis=-1)


def diag(x: Tensor, offset: int = 0, padding_value: float = 0, name: str | None = None
         ) -> Tensor:
    """A vector's diagonal matrix, or a matrix's diagonal; a 0-d x is read as a vector of
    one (Paddle 3.3.1)."""
    if x.ndim == 0:
        x = reshape(x, [1])
    if x.ndim == 2:
        return diagonal(x, offset)
    if x.ndim != 1:
        raise ValueError(f"diag needs a 1-D or 2-D tensor, got shape {x.shape}")
    n = x.shape[0] + builtins.abs(offset)
    target = _diagonal_map((n, n), offset, 0, 1)[0] if type(offset) is int else \
        np.diagonal(_flat_positions((n, n)), offset).copy()
    out = _scatter_flat(x, target, (n, n))
    if padding_value:
        mask = np.full((n, n), padding_value, dtype=x._data.dtype)
        mask.reshape(-1)[target] = 0
        out = out + const(mask, x._data.dtype)
    return out


# ---- einsum: transposes, reshapes and one batched matmul per pair of operands ---------------

def _parse(equation: str, operands: list[Tensor]) -> tuple[list[str], str]:
    """The operands' subscripts (ellipses spelled out) and the output's, cached per
    (equation, operand ranks): a training loop parses the same equation every step."""
    if type(equation) is str:
        for t in operands:
            if not isinstance(t, Tensor):
                break
        else:
            key = (equation, tuple([t._data.ndim for t in operands]))
            found = _PARSED.get(key)
            if found is None:
                found = _parse_uncached(equation, operands)
                remember(_PARSED, key, found, _CACHE_MAX)
            return found
    return _parse_uncached(equation, operands)


_PARSED: dict = {}      # (equation, ranks) -> _parse's (subscripts, output)
_CACHE_MAX = 1024


def _parse_uncached(equation: str, operands: list[Tensor]) -> tuple[list[str], str]:
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a str like 'ij,jk->ik', got "
                        f"{type(equation).__name__}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum: operand {i} must be a Tensor, got {type(t).__name__}")
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    bad = sorted({c for c in lhs.replace("...", "") + out.replace("...", "")
                  if c not in string.ascii_letters and c != ","})
    if bad or "->" in out or "," in out:
        raise ValueError(f"einsum: invalid equation {equation!r}: subscripts are letters, "
                         "'...' and ',' between operands, with one optional '->' before the "
                         "output" + (f" (found {''.join(bad)!r})" if bad else ""))
    subs = lhs.split(",")
    if len(subs) != len(operands):
        raise ValueError(f"einsum: the equation {equation!r} has {len(subs)} operand "
                         f"subscript(s) but {len(operands)} operand(s) were given")
    missing = sorted(set(out.replace("...", "")) - set(lhs))
    if missing:
        raise ValueError(f"einsum: output subscript(s) {''.join(missing)!r} of {equation!r} "
                         "appear in no operand")
    if len(set(out.replace("...", ""))) != len(out.replace("...", "")):
        raise ValueError(f"einsum: the output of {equation!r} repeats a subscript")
    spare = [c for c in string.ascii_letters if c not in eq]
    nell = builtins.max([t.ndim - len(s.replace("...", "")) for s, t in zip(subs, operands)
                         if "..." in s] or [0])
    ell = "".join(spare[:nell])
    fixed = []
    for s, t in zip(subs, operands):
        if "..." in s:
            k = t.ndim - len(s.replace("...", ""))
            s = s.replace("...", ell[nell - k:])
        if len(s) != t.ndim:
            raise ValueError(f"einsum: subscripts {s!r} do not fit an operand of shape "
                             f"{t.shape}")
        fixed.append(s)
    if arrow:
        out = out.replace("...", ell)
    else:
        letters = "".join(fixed)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    return tuple(fixed), out


def _single(x: Tensor, s: str, keep: str) -> tuple[Tensor, str]:
    """Take diagonals of repeated letters and sum letters not in `keep`."""
    key = (s, keep)
    noop = _NOOP.get(key)
    if noop is None:                # (no repeated letter, every letter kept: cached)
        noop = len(set(s)) == len(s) and builtins.all(c in keep for c in s)
        remember(_NOOP, key, noop, _CACHE_MAX)
    if noop:
        return x, s
    while len(set(s)) < len(s):
        c = next(c for c in s if s.count(c) > 1)
        i, j = s.index(c), s.index(c, s.index(c) + 1)
        x = diagonal(x, 0, i, j)
        s = s[:i] + s[i + 1:j] + s[j + 1:] + c
    drop = [i for i, c in enumerate(s) if c not in keep]
    if drop:
        x = R.sum(x, axis=drop)
        s = "".join(c for c in s if c in keep)
    return x, s


def _permute(x: Tensor, s: str, order: str) -> Tensor:
    if s == order:
        return x
    return transpose(x, [s.index(c) for c in order])


_NOOP: dict = {}        # (subscripts, kept letters) -> whether _single changes nothing


def _pair(a: Tensor, sa: str, b: Tensor, sb: str, out: str) -> tuple[Tensor, str]:
    """The contraction of two operands: the nodes _pair_nodes records, from a plan cached
    per (subscripts, shapes) when no dim is 0 (reshape's 0 means "keep that dim")."""
    ash, bsh = a._data.shape, b._data.shape
    if 0 in ash or 0 in bsh:
        return _pair_nodes(a, sa, b, sb, out)
    key = (sa, sb, out, ash, bsh)
    plan = _PAIRS.get(key)
    if plan is None:
        plan = _pair_plan(sa, sb, out, ash, bsh)
        remember(_PAIRS, key, plan, _CACHE_MAX)
    if plan is False:               # (a letter broadcast outside the batch: as before)
        return _pair_nodes(a, sa, b, sb, out)
    perm_a, perm_b, bc_a, bc_b, two_d, batched, s_y = plan
    if perm_a is not None:
        a = apply_xy(transpose_op, a, None, perm_a, np.transpose(a._data, perm_a["perm"]))
    if perm_b is not None:
        b = apply_xy(transpose_op, b, None, perm_b, np.transpose(b._data, perm_b["perm"]))
    if bc_a is not None:
        a = broadcast_to(a, bc_a)
    if bc_b is not None:
        b = broadcast_to(b, bc_b)
    if two_d is not None and a._data.dtype is b._data.dtype:
        ra, rb, ry, s2 = two_d
        a2 = reshape_to(a, ra)
        b2 = reshape_to(b, rb)
        y = apply_xy(matmul_op, a2, b2, _NO_TRANSPOSE, _np_matmul(a2._data, b2._data))
        return reshape_to(y, ry), s2
    ra, rb, ry = batched
    return reshape_to(matmul(reshape_to(a, ra), reshape_to(b, rb)), ry), s_y


_PAIRS: dict = {}       # (subscripts, output letters, shapes) -> _pair_plan's


def _pair_plan(sa: str, sb: str, out: str, ash: tuple, bsh: tuple) -> tuple:
    """_pair_nodes's steps for operands of these shapes (no dim 0): the transposes' attrs
    (None: none), the broadcasts' shapes (None: none), the no-batch-letter 2-D product's
    reshape attrs and subscripts (None: a batch letter), the batched product's; False for a
    size-1 dim against a larger one outside the batch letters (left to _pair_nodes)."""
    size, batch, contract, fa, fb = _letters(sa, ash, sb, bsh, out)
    oa, ob = "".join(batch + fa + contract), "".join(batch + contract + fb)
    perm_a = None if sa == oa else {"perm": tuple(sa.index(c) for c in oa)}
    perm_b = None if sb == ob else {"perm": tuple(sb.index(c) for c in ob)}
    pa = tuple(ash[sa.index(c)] for c in oa)        # the shapes after the transposes
    pb = tuple(bsh[sb.index(c)] for c in ob)
    for p, o in ((pa, oa), (pb, ob)):
        for n, c in zip(p, o):
            if n != size[c] and c not in batch:
                return False        # (_pair_nodes's reshape raises)
    nb = len(batch)
    nbatch = tuple(size[c] for c in batch)
    bc_a = None if pa[:nb] == nbatch else nbatch + pa[nb:]
    bc_b = None if pb[:nb] == nbatch else nbatch + pb[nb:]

    def prod(cs: list[str]) -> int:
        return math.prod([size[c] for c in cs])

    two_d = None
    if not batch:
        two_d = ({"shape": (prod(fa), prod(contract))}, {"shape": (prod(contract), prod(fb))},
                 {"shape": tuple(size[c] for c in fa + fb)}, "".join(fa + fb))
    batched = ({"shape": (prod(batch), prod(fa), prod(contract))},
               {"shape": (prod(batch), prod(contract), prod(fb))},
               {"shape": nbatch + tuple(size[c] for c in fa + fb)})
    return perm_a, perm_b, bc_a, bc_b, two_d, batched, "".join(batch + fa + fb)


def _letters(sa: str, ash: tuple, sb: str, bsh: tuple, out: str) -> tuple:
    """A contraction's letters: their sizes (a size-1 dim broadcasts; other sizes must
    agree), then the batch letters (in both and kept), the contracted ones (in both, not
    kept) and those of a alone and of b alone, each in its operand's order."""
    size: dict = {}
    for sh, s in ((ash, sa), (bsh, sb)):
        for c, n in zip(s, sh):
            if size.get(c, 1) != 1 and n != 1 and size[c] != n:
                raise ValueError(f"einsum: dimension {c!r} has sizes {size[c]} and {n}")
            size[c] = n if size.get(c, 1) == 1 else size[c]     # (a 0 too: not max)
    batch = [c for c in sa if c in sb and c in out]
    contract = [c for c in sa if c in sb and c not in out]
    return (size, batch, contract, [c for c in sa if c not in sb],
            [c for c in sb if c not in sa])


def _pair_nodes(a: Tensor, sa: str, b: Tensor, sb: str, out: str) -> tuple[Tensor, str]:
    """Transposes, reshapes and one (batched) matmul contracting two operands."""
    size, batch, contract, fa, fb = _letters(sa, a._data.shape, sb, b._data.shape, out)
    a = _permute(a, sa, "".join(batch + fa + contract))
    b = _permute(b, sb, "".join(batch + contract + fb))
    nbatch = [size[c] for c in batch]
    if a.shape[:len(batch)] != nbatch:
        a = broadcast_to(a, nbatch + a.shape[len(batch):])
    if b.shape[:len(batch)] != nbatch:
        b = broadcast_to(b, nbatch + b.shape[len(batch):])
    prod = lambda cs: math.prod([size[c] for c in cs])  # noqa: E731
    if not batch and a._data.dtype is b._data.dtype:
        # no batch letter: one 2-D product (np.matmul's one gemm, as for the batch of 1
        # below; not matmul's ndarray.dot, nor its large-product BLAS, which may round
        # otherwise), a reshape node fewer for an operand already of its matrix shape
        a2 = reshape_exact(a, [prod(fa), prod(contract)])
        b2 = reshape_exact(b, [prod(contract), prod(fb)])
        y = apply_xy(matmul_op, a2, b2, _NO_TRANSPOSE, _np_matmul(a2._data, b2._data))
        return reshape_exact(y, [size[c] for c in fa + fb]), "".join(fa + fb)
    a3 = reshape_exact(a, [prod(batch), prod(fa), prod(contract)])
    b3 = reshape_exact(b, [prod(batch), prod(contract), prod(fb)])
    y = reshape_exact(matmul(a3, b3), nbatch + [size[c] for c in fa + fb])
    return y, "".join(batch + fa + fb)


def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation for any number of operands (contracted pairwise, left to right),
    with repeated indices (diagonals), implicit output and '...'. Composite: transposes,
    reshapes and batched matmuls, so gradients and double gradients come from those."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ops = list(operands)
    if not ops:
        raise ValueError("einsum needs at least one operand")
    subs, out = _parse(equation, ops)
    x, s = None, ""
    for i, (t, st) in enumerate(zip(ops, subs)):
        later = out + "".join(subs[i + 1:])
        t, st = _single(t, st, later + (s if x is not None else ""))
        if x is None:
            x, s = t, st
            continue
        x, s = _single(x, s, later + st)
        x, s = _pair(x, s, t, st, later)
    x, s = _single(x, s, out)
    return _permute(x, s, out)
