"""paddle.linalg.lstsq and matrix_power: composites of pinv (pinv.py), svdvals, inverse and
matmul, so their gradients need no rules of their own."""

from __future__ import annotations

import builtins

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .core import const, require_float
from .decompositions import _check_matrix, svdvals
from .elementwise import clone, where
from .linalg import matmul
from .matrix import _square, inverse
from .pinv import pinv

# ---- lstsq ---------------------------------------------------------------------------------

_DRIVERS = (None, "gels", "gelsy", "gelsd", "gelss")


def lstsq(x: Tensor, y: Tensor, rcond: float | None = None, driver: str | None = None,
          name: str | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(solution, residuals, rank, singular_values) of min ||x @ solution - y||, with
    Paddle's outputs per driver (None is 'gelsy'): residuals (sum of squares per column of
    y, [.., k]) only from 'gels', 'gelsd', 'gelss' when m > n and x has full rank, else
    empty; rank (int32) from all but 'gels' (empty int64); singular values only from
    'gelsd', 'gelss'. The solution is the minimum-norm one, pinv(x, rcond) @ y, so it and
    the residuals are differentiable (Paddle 3.3.1 records no gradient). rcond None means
    eps * max(m, n); ranks are decided on singular values for every driver."""
    _check_matrix(x, "lstsq")
    if not isinstance(y, Tensor):
        raise TypeError(f"lstsq: y must be a Tensor, got {type(y).__name__}")
    require_float(y, "lstsq")
    if y.ndim < 2:
        raise ValueError(f"lstsq: y must be [..., m, k], got shape {y.shape}")
    if x._data.dtype != y._data.dtype:
        raise TypeError(f"lstsq: x and y must have one dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}")
    if driver not in _DRIVERS:
        raise ValueError(f"lstsq: driver must be one of {_DRIVERS}, got {driver!r}")
    m, n = x.shape[-2:]
    if y.shape[-2] != m:
        raise ValueError(f"lstsq: x [.., {m}, {n}] and y {y.shape} need the same m")
    dt = x._data.dtype
    if rcond is None:
        rcond = float(np.finfo(dt).eps) * builtins.max(m, n)
    s = np.linalg.svd(x._data, compute_uv=False)
    big = s.max(axis=-1, initial=0.0, keepdims=True)
    rank = (s > rcond * big).sum(axis=-1).astype(np.int32)
    full = bool(np.all(rank == builtins.min(m, n)))
    if driver == "gels" and not full:
        raise ValueError("lstsq: driver 'gels' needs x of full rank; use 'gelsd' (or the "
                         "default) for rank-deficient x")
    solution = matmul(pinv(x, rcond=rcond), y)
    empty = const(np.zeros(0), dt)
    residuals = empty
    if driver not in (None, "gelsy") and m > n and full:
        residuals = R.sum((matmul(x, solution) - y) ** 2, axis=-2)
    rank_t = const(np.zeros(0), np.int64) if driver == "gels" else const(rank, np.int32)
    sv = svdvals(x) if driver in ("gelsd", "gelss") else empty
    return solution, residuals, rank_t, sv


# ---- matrix_power --------------------------------------------------------------------------


def matrix_power(x: Tensor, n: int, name: str | None = None) -> Tensor:
    """x multiplied by itself n times (by squaring); n < 0 powers the inverse, n == 0 gives
    identity matrices (whose gradient is zero, as Paddle's)."""
    _square(x, "matrix_power")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    n = int(n)
    if n == 0:
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x._data.dtype), x._data.shape)
        return where(np.ones(x._data.shape, bool), const(eye, x._data.dtype), x)
    if n < 0:
        if x._data.size and np.any(np.linalg.det(x._data) == 0):
            raise ValueError("matrix_power: a negative power needs invertible matrices")
        x, n = inverse(x), -n
    if n == 1:
        return clone(x)                 # a new tensor, as Paddle's
    result, base = None, x
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            return result
        base = matmul(base, base)

