"""Paddle 3.3.1's paddle.linalg functions beyond the core ones (cholesky_solve,
cholesky_inverse, triangular_solve, lu, lu_unpack, lu_solve, matrix_exp, matrix_rank, cond,
cov, corrcoef, householder_product, ormqr, svd_lowrank, pca_lowrank): composites of the ops
already here (matmul, solve, inverse, qr, svd, svdvals, eigvalsh, tril/triu, where ...), so
their gradients come from those ops' rules, to every order. Non-differentiable outputs (lu's
pivots and infos, matrix_rank) are computed in numpy. NAMES are bound in jitgrad.linalg,
METHOD_NAMES also as Tensor methods (ops/__init__.py), as Paddle binds them. Behaviours
noted "(Paddle)" were measured on Paddle 3.3.1."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import triangular
from . import reduce as R
from .core import const
from .decompositions import svdvals
from .indexing import concat, take_along_axis, tril, triu
from .linalg import matmul
from .matrix import _mT, inverse, solve
from .shape import broadcast_to, reshape, unsqueeze

NAMES: list[str] = ["cholesky_solve", "cholesky_inverse", "triangular_solve", "lu",
                    "lu_unpack", "lu_solve", "matrix_exp", "matrix_rank", "cond", "cov",
                    "corrcoef", "householder_product", "ormqr", "svd_lowrank", "pca_lowrank"]
# Tensor methods, as hasattr(paddle.Tensor, name) on Paddle 3.3.1
METHOD_NAMES: list[str] = ["cholesky_solve", "cholesky_inverse", "lu", "lu_unpack", "cond",
                           "cov", "corrcoef", "householder_product", "ormqr", "svd_lowrank",
                           "pca_lowrank"]


def _tensor(x: Any, fn: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def _float(x: Any, fn: str, arg: str = "x") -> Tensor:
    _tensor(x, fn, arg)
    if x._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"{fn}: {arg} must be float32 or float64, got {x.dtype.name}; "
                        "cast it with .astype('float32')")
    return x


def _matrices(x: Tensor, fn: str, arg: str = "x", square: bool = True) -> None:
    if x.ndim < 2:
        raise ValueError(f"{fn}: {arg} must be a matrix or a batch of matrices "
                         f"[.., m, n], got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{fn}: {arg} must be square in its last two dims, got shape "
                         f"{x.shape}")


def _same_dtype(x: Tensor, y: Tensor, fn: str) -> None:
    if x._data.dtype != y._data.dtype:
        raise TypeError(f"{fn}: x and y must have the same dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}")


def _eye(n: int, dt: np.dtype, m: int | None = None) -> Tensor:
    return const(np.eye(n, n if m is None else m, dtype=dt), dt)


# ---- triangular and Cholesky solves -------------------------------------------------------

def _triangular_operands(x: Tensor, y: Tensor, fn: str) -> tuple[Tensor, Tensor]:
    """x [.., n, n] and y [.., n, k] broadcast to one batch shape."""
    if y.shape[-2] != x.shape[-1]:
        raise ValueError(f"{fn}: the matrix is {x.shape[-2]}x{x.shape[-1]} but the right-hand "
                         f"side has {y.shape[-2]} rows (shape {y.shape})")
    try:
        batch = list(np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2])))
    except ValueError:
        raise ValueError(f"{fn}: the batch dims of {x.shape} and {y.shape} do not broadcast "
                         "(each pair must be equal or 1)") from None
    if x.shape[:-2] != batch:
        x = broadcast_to(x, batch + x.shape[-2:])
    if y.shape[:-2] != batch:
        y = broadcast_to(y, batch + y.shape[-2:])
    return x, y


def _tri(x: Tensor, y: Tensor, upper: bool, transpose: bool, unit: bool, fn: str) -> Tensor:
    """op(T)^-1 y for T the upper (or lower) triangle of x, batch dims broadcast."""
    x, y = _triangular_operands(x, y, fn)
    try:
        return triangular.solve(x, y, upper, transpose, unit)
    except ValueError:
        raise ValueError(f"{fn}: the triangular matrix is singular (a zero on its diagonal)"
                         ) from None


def triangular_solve(x: Tensor, y: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name: str | None = None) -> Tensor:
    """out with op(A) out = y, A the upper (default) or lower triangle of x [.., n, n] (its
    diagonal taken as ones when unitriangular), op(A) = A^T when transpose; y [.., n, k],
    batch dims broadcast. The other triangle of x is not read and gets no gradient. One
    BLAS trsm a matrix (ops/triangular.py)."""
    _float(x, "triangular_solve", "x")
    _float(y, "triangular_solve", "y")
    _same_dtype(x, y, "triangular_solve")
    _matrices(x, "triangular_solve", "x")
    _matrices(y, "triangular_solve", "y", square=False)
    return _tri(x, y, upper, transpose, unitriangular, "triangular_solve")


def cholesky_solve(x: Tensor, y: Tensor, upper: bool = False, name: str | None = None
                   ) -> Tensor:
    """out with A out = x, A = L L^T given its Cholesky factor y = L (lower, default) or
    y = U with A = U^T U (upper). x [.., n, k] is the right-hand side (Paddle's order: x
    first), batch dims broadcast. Only y's triangle is read, and gets the gradient: two
    triangular solves (LAPACK's potrs)."""
    _float(x, "cholesky_solve", "x")
    _float(y, "cholesky_solve", "y")
    _same_dtype(x, y, "cholesky_solve")
    _matrices(x, "cholesky_solve", "x", square=False)
    _matrices(y, "cholesky_solve", "y")
    z = _tri(y, x, upper, upper, False, "cholesky_solve")    # L^-T (L^-1 x), or
    return _tri(y, z, upper, not upper, False, "cholesky_solve")    # U^-1 (U^-T x)


def cholesky_inverse(x: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """inv(x x^T) (inv(x^T x) when upper) for a Cholesky factor x [n, n]: the inverse of
    the matrix it factors. As Paddle's, the whole of x is read (not only its triangle) and
    only a 2-D x is taken."""
    _float(x, "cholesky_inverse", "x")
    if x.ndim != 2:
        raise ValueError(f"cholesky_inverse: x must be 2-D [n, n], got shape {x.shape}")
    _matrices(x, "cholesky_inverse")
    a = matmul(x, x, transpose_x=True) if upper else matmul(x, x, transpose_y=True)
    try:
        return inverse(a)
    except ValueError:
        raise ValueError("cholesky_inverse: x is singular (a zero on its diagonal), so the "
                         "matrix it factors has no inverse") from None


# ---- LU -----------------------------------------------------------------------------------

def _lu_pivots(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Partial pivoting as LAPACK's getrf: the 1-based row interchanges [.., k] (int32),
    the row order perm [.., m] with (P^T A) = A[perm], and info [..] (the 1-based index of
    the first exactly-zero pivot, 0 if none; int32)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    w = np.array(a, copy=True).reshape((-1, m, n))
    nb = w.shape[0]
    perm = np.tile(np.arange(m), (nb, 1))
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(np.abs(w[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        w[rows, j], w[rows, p] = w[rows, p], w[rows, j].copy()
        perm[rows, j], perm[rows, p] = perm[rows, p], perm[rows, j].copy()
        d = w[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        w[:, j + 1:, j] /= np.where(zero, 1, d)[:, None]
        w[:, j + 1:, j + 1:] -= w[:, j + 1:, j, None] * w[:, j, None, j + 1:]
    return (piv.reshape(batch + (k,)), perm.reshape(batch + (m,)), info.reshape(batch))


def _eliminate(a: Tensor) -> Tensor:
    """The packed L\\U of a [.., m, n] by Gaussian elimination without pivoting (its rows
    already in pivot order): a composite, so its gradient is the LU factorization's."""
    m, n = a.shape[-2:]
    k = min(m, n)
    dt = a._data.dtype
    batch = a.shape[:-2]
    s = a
    u_rows, l_cols = [], []
    for j in range(k):
        pivot = s[..., 0:1, 0:1]
        one_if_zero = const((pivot._data == 0).astype(dt), dt)   # getrf leaves 0 pivots
        col = s[..., 1:, 0:1] / (pivot + one_if_zero)            # [.., m-j-1, 1]
        row = s[..., 0:1, :]                                      # [.., 1, n-j]
        u_rows.append(concat([const(np.zeros(batch + [1, j], dt), dt), row], axis=-1)
                      if j else row)
        l_cols.append(concat([const(np.zeros(batch + [j + 1, 1], dt), dt), col], axis=-2))
        if j + 1 < k:
            s = s[..., 1:, 1:] - matmul(col, row[..., 1:])
    upper = concat(u_rows, axis=-2) if k > 1 else u_rows[0]
    if m > k:
        upper = concat([upper, const(np.zeros(batch + [m - k, n], dt), dt)], axis=-2)
    lower = concat(l_cols, axis=-1) if k > 1 else l_cols[0]
    if n > k:
        lower = concat([lower, const(np.zeros(batch + [m, n - k], dt), dt)], axis=-1)
    return upper + lower


def lu(x: Tensor, pivot: bool = True, get_infos: bool = False, name: str | None = None
       ) -> tuple[Tensor, ...]:
    """The LU factorization with partial pivoting of x [.., m, n]: (LU, pivots) or
    (LU, pivots, infos) with get_infos. LU [.., m, n] packs L (unit lower, diagonal not
    stored) and U; pivots [.., min(m, n)] int32 are LAPACK's 1-based row interchanges (row
    i swapped with row pivots[i] - 1, in order); infos [..] int32 is 0, or the 1-based
    index of the first zero pivot. Only pivot=True exists on the CPU (Paddle)."""
    _float(x, "lu", "x")
    _matrices(x, "lu", square=False)
    if not pivot:
        raise ValueError("lu: pivot=False (LU without pivoting) is not implemented on the "
                         "CPU (as Paddle 3.3.1); use pivot=True")
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        raise ValueError(f"lu: x must not be empty, got shape {x.shape}")
    piv, perm, info = _lu_pivots(x._data)
    idx = np.broadcast_to(perm[..., None], tuple(x.shape[:-1]) + (n,))
    packed = _eliminate(take_along_axis(x, Tensor._make(np.ascontiguousarray(idx)), axis=-2))
    out = (packed, Tensor._make(piv))
    return out + (Tensor._make(info),) if get_infos else out


def _pivots_array(pivots: Any, fn: str) -> np.ndarray:
    _tensor(pivots, fn, "pivots")
    p = pivots._data
    if p.dtype != np.int32:
        raise ValueError(f"{fn}: pivots must be int32 (as lu returns them), got "
                         f"{pivots.dtype.name}; cast them with .astype('int32')")
    return p


def _permutation(piv: np.ndarray, m: int) -> np.ndarray:
    """The row order perm [.., m] that the 1-based interchanges piv [.., k] make."""
    batch, k = piv.shape[:-1], piv.shape[-1]
    flat = piv.reshape((-1, k)).astype(np.int64) - 1
    if flat.size and (flat.min() < 0 or flat.max() >= m):
        raise ValueError(f"pivots must lie in [1, {m}], got values from {flat.min() + 1} to "
                         f"{flat.max() + 1}")
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(k):
        p = flat[:, j]
        perm[rows, j], perm[rows, p] = perm[rows, p], perm[rows, j].copy()
    return perm.reshape(batch + (m,))


def _perm_matrix(perm: np.ndarray, dt: np.dtype) -> np.ndarray:
    """P [.., m, m] with P[perm[i], i] = 1, so that A = P L U."""
    m = perm.shape[-1]
    return (perm[..., :, None] == np.arange(m)).swapaxes(-1, -2).astype(dt)


def lu_unpack(x: Tensor, y: Tensor, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """(P, L, U) from lu's packed x [.., m, n] and pivots y, with A = P L U: P [.., m, m]
    (x's dtype), L [.., m, k] unit lower, U [.., k, n] upper, k = min(m, n). An output not
    asked for (unpack_ludata / unpack_pivots False) is an empty [0] tensor (Paddle)."""
    _float(x, "lu_unpack", "x")
    _matrices(x, "lu_unpack", square=False)
    piv = _pivots_array(y, "lu_unpack")
    m, n = x.shape[-2:]
    k = min(m, n)
    dt = x._data.dtype
    empty = Tensor._make(np.zeros((0,), dt))
    if unpack_pivots:
        if piv.shape[-1:] != (k,):
            raise ValueError(f"lu_unpack: pivots must be [.., {k}] for x {x.shape}, got "
                             f"{list(piv.shape)}")
        P = Tensor._make(_perm_matrix(_permutation(piv, m), dt))
    else:
        P = empty
    if unpack_ludata:
        L = tril(x[..., :, :k], -1) + _eye(m, dt, k)
        U = triu(x[..., :k, :])
    else:
        L = U = empty
    return P, L, U


def lu_solve(b: Tensor, lu: Tensor, pivots: Tensor, trans: str = "N",
             name: str | None = None) -> Tensor:
    """out with A out = b (trans='N') or A^T out = b ('T'; 'C' is the same for real
    inputs), A = P L U given by lu's packed lu [.., n, n] and pivots (Paddle's order: b
    first). b [.., n, k]; batch dims broadcast."""
    _float(b, "lu_solve", "b")
    _float(lu, "lu_solve", "lu")
    _same_dtype(b, lu, "lu_solve")
    _matrices(lu, "lu_solve", "lu")
    if b.ndim < 2:
        raise ValueError(f"lu_solve: b must be [.., n, k] (at least 2-D), got shape {b.shape}")
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    n = lu.shape[-1]
    piv = _pivots_array(pivots, "lu_solve")
    if piv.shape != tuple(lu.shape[:-1]):
        raise ValueError(f"lu_solve: pivots must be {lu.shape[:-1]} for lu {lu.shape}, got "
                         f"{list(piv.shape)}")
    dt = lu._data.dtype
    P = const(_perm_matrix(_permutation(piv, n), dt), dt)
    # L (unit lower) and U (upper) are lu's two triangles: triangular solves on lu
    if trans == "N":           # x = U^-1 L^-1 P^T b
        z = _tri(lu, matmul(P, b, transpose_x=True), False, False, True, "lu_solve")
        return _tri(lu, z, True, False, False, "lu_solve")
    z = _tri(lu, b, True, True, False, "lu_solve")        # x = P L^-T U^-T b
    return matmul(P, _tri(lu, z, False, True, True, "lu_solve"))


# ---- matrix exponential -------------------------------------------------------------------

_PADE = {3: [120.0, 60.0, 12.0],
         5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
         7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
         9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
             110880.0, 3960.0, 90.0],
         13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
              1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
              33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0]}
# (l1-norm bounds for the degrees, the last degree's, the degrees): Paddle's (JAX's) choice
_EXPM = {np.float32: ((4.258730016922831e-001, 1.880152677804762e000), 3.925724783138660,
                      (3, 5, 7)),
         np.float64: ((1.495585217958292e-002, 2.539398330063230e-001,
                       9.504178996162932e-001, 2.097847961257068e000), 5.371920351148152,
                      (3, 5, 7, 9, 13))}


def _pade(a: Tensor, deg: int, eye: Tensor) -> tuple[Tensor, Tensor]:
    """The numerator's odd part u and even part v of the degree-deg Padé approximant."""
    b = _PADE[deg]
    a2 = matmul(a, a)
    if deg == 13:
        a4 = matmul(a2, a2)
        a6 = matmul(a4, a2)
        tu = matmul(a6, a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 \
            + b[1] * eye
        v = matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
            + b[2] * a2 + b[0] * eye
        return matmul(a, tu), v
    powers = [eye, a2]
    while len(powers) < (deg + 1) // 2:
        powers.append(matmul(powers[-1], a2))
    top = len(powers) - 1                  # u's top power has coefficient 1
    tu = powers[top] + sum((b[2 * i + 1] * powers[i] for i in range(1, top)),
                           start=b[1] * eye)
    v = sum((b[2 * i] * powers[i] for i in range(1, top + 1)), start=b[0] * eye)
    return matmul(a, tu), v


def matrix_exp(x: Tensor, name: str | None = None) -> Tensor:
    """exp(x) of square matrices x [.., n, n] by scaling and squaring with a Padé
    approximant whose degree follows each matrix's 1-norm (Paddle's algorithm, JAX's);
    a 0-D or [.., 1, 1] x is exp(x) elementwise."""
    _tensor(x, "matrix_exp", "x")
    if x._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"matrix_exp: x must be float32 or float64, got {x.dtype.name}")
    if x.ndim == 0:
        return E.exp(x)
    _matrices(x, "matrix_exp")
    n = x.shape[-1]
    if n == 1:
        return E.exp(x)
    dt = x._data.dtype.type
    bounds, maxnorm, degrees = _EXPM[dt]
    l1 = np.abs(x._data).sum(axis=-2).max(axis=-1)[..., None, None]      # [.., 1, 1]
    if not np.all(np.isfinite(l1)):
        return Tensor._make(np.full(x._data.shape, np.nan, dt))
    with np.errstate(divide="ignore"):
        sq = np.maximum(np.floor(np.log(l1 / dt(maxnorm)) / np.log(dt(2.0))), 0).astype(dt)
    eye = _eye(n, dt)
    degree = np.full(l1.shape, degrees[-1])
    for bound, deg in zip(bounds[::-1], degrees[-2::-1]):
        degree = np.where(l1 < dt(bound), deg, degree)
    u = v = None
    for deg in degrees:
        if not np.any(degree == deg):
            continue
        a = x / const(np.power(dt(2.0), sq), dt) if deg == degrees[-1] else x
        ud, vd = _pade(a, deg, eye)
        pick = np.broadcast_to(degree == deg, x._data.shape)
        u = ud if u is None else E.where(pick, ud, u)
        v = vd if v is None else E.where(pick, vd, v)
    out = solve(v - u, u + v)
    for i in range(int(sq.max())):
        out = E.where(np.broadcast_to(sq > i, x._data.shape), matmul(out, out), out)
    return out


# ---- rank and condition number ------------------------------------------------------------

def _threshold(v: Any, dt: np.dtype, fn: str, arg: str) -> np.ndarray:
    if isinstance(v, Tensor):
        return v._data.astype(dt)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
        raise TypeError(f"{fn}: {arg} must be a float or a Tensor, got {type(v).__name__}")
    return np.asarray(v, dt)


def matrix_rank(x: Tensor, tol: float | Tensor | None = None, hermitian: bool = False,
                atol: float | Tensor | None = None, rtol: float | Tensor | None = None,
                name: str | None = None) -> Tensor:
    """The number of singular values (|eigenvalues| of the lower triangle when hermitian)
    above a threshold, int64 [..] (broadcast with a Tensor tol/atol/rtol's shape). The
    threshold: tol if given; else max(atol, rtol * s_max) if atol or rtol is given (atol
    default 0; rtol default 0 where atol > 0, else eps * max(m, n)); else
    eps * max(m, n) * s_max (Paddle). tol and atol/rtol are exclusive. No gradient."""
    _float(x, "matrix_rank", "x")
    _matrices(x, "matrix_rank", square=hermitian)
    if tol is not None and (atol is not None or rtol is not None):
        raise ValueError("matrix_rank: give tol alone, or atol and/or rtol without tol")
    dt = x._data.dtype
    m, n = x.shape[-2:]
    a = x._data
    if m == 0 or n == 0:
        s = np.zeros(a.shape[:-2] + (0,), dt)
    elif hermitian:
        s = np.abs(np.linalg.eigvalsh(a, "L")).astype(dt)
    else:
        s = np.linalg.svd(a, compute_uv=False).astype(dt)
    smax = s.max(axis=-1, initial=0)
    eps = np.finfo(dt).eps * max(m, n)
    if tol is not None:
        thresh = _threshold(tol, dt, "matrix_rank", "tol")
    elif atol is not None or rtol is not None:
        at = np.asarray(0, dt) if atol is None else _threshold(atol, dt, "matrix_rank", "atol")
        if rtol is None:
            rt = np.where(at > 0, dt.type(0), dt.type(eps))
        else:
            rt = _threshold(rtol, dt, "matrix_rank", "rtol")
        thresh = np.maximum(at, rt * smax)
    else:
        thresh = eps * smax
    out = np.sum(s > np.asarray(thresh)[..., None], axis=-1)
    return Tensor._make(np.asarray(out, np.int64))


def cond(x: Tensor, p: float | str | None = None, name: str | None = None) -> Tensor:
    """The condition number of x [.., m, n] in the norm p: None or 2 (s_max / s_min, any
    shape), -2 (s_min / s_max), or, for square x, 'fro', 'nuc', 1, -1, inf, -inf
    (norm(x) * norm(inv(x)); a singular x raises). Differentiable."""
    _float(x, "cond", "x")
    _matrices(x, "cond", square=False)
    if p is None:
        p = 2
    if isinstance(p, str):
        ok = p in ("fro", "nuc")
    else:
        ok = isinstance(p, (int, float, np.number)) and not isinstance(p, (bool, np.bool_)) \
            and p in (1, -1, 2, -2, np.inf, -np.inf)
    if not ok:
        raise ValueError(f"cond: unsupported p={p!r}; p must be one of 'fro', 'nuc', 1, -1, "
                         "2, -2, inf, -inf or None")
    if p in (2, -2) and not isinstance(p, str):
        s = svdvals(x)
        hi, lo = R.max(s, axis=-1), R.min(s, axis=-1)
        return hi / lo if p == 2 else lo / hi
    _matrices(x, f"cond (p={p!r})")
    try:
        xi = inverse(x)
    except ValueError:
        raise ValueError(f"cond: x is singular, so its condition number in the p={p!r} norm "
                         "needs an inverse that does not exist") from None

    def norm(a: Tensor) -> Tensor:
        if p == "fro":
            return E.sqrt(R.sum(R.sum(a * a, axis=-1), axis=-1))
        if p == "nuc":
            return R.sum(svdvals(a), axis=-1)
        sums = R.sum(E.abs(a), axis=-2 if p in (1, -1) else -1)
        return R.max(sums, axis=-1) if p in (1, np.inf) else R.min(sums, axis=-1)
    return norm(x) * norm(xi)


# ---- covariance ---------------------------------------------------------------------------

def _weights(w: Any, nx: Tensor, obs: int, what: str, integer: bool) -> Tensor:
    _tensor(w, "cov", what)
    if w.ndim > 1:
        raise ValueError(f"cov: {what} must be 1-D (one weight per observation), got shape "
                         f"{w.shape}")
    if (w.shape[0] if w.ndim else 1) != obs:
        raise ValueError(f"cov: {what} must have one weight per observation ({obs}), got "
                         f"{w.shape[0] if w.ndim else 1}")
    d = w._data
    if d.size and d.min() < 0:
        raise ValueError(f"cov: {what} must not be negative, got min {d.min()}")
    if integer and not np.all(d == np.round(d.astype(np.float64))):
        raise ValueError("cov: fweights must hold integers (frequency weights)")
    if not integer and d.dtype.kind != "f":
        raise TypeError(f"cov: aweights must be float32 or float64, got {w.dtype.name}")
    return w.astype(nx._data.dtype)


def cov(x: Tensor, rowvar: bool = True, ddof: bool = True, fweights: Tensor | None = None,
        aweights: Tensor | None = None, name: str | None = None) -> Tensor:
    """The covariance matrix of the variables of x [n_vars, n_obs] (rows, or columns when
    rowvar=False) or of a 1-D x (one variable), as numpy.cov with integer frequency
    weights fweights and float weights aweights [n_obs]; ddof=True divides by N - 1 (the
    weighted equivalent with weights). Size-1 dims of the result are squeezed (a 0-D
    variance for one variable). As Paddle's, rowvar=False leaves a [1, n] x as it is."""
    _float(x, "cov", "x")
    if x.ndim not in (1, 2):
        raise ValueError(f"cov: x must be 1-D or 2-D, got shape {x.shape}")
    nx = reshape(x, [1, -1]) if x.ndim == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = _mT(nx)
    obs = nx.shape[1]
    dt = nx._data.dtype
    w = aw = None
    if fweights is not None:
        w = _weights(fweights, nx, obs, "fweights", True)
    if aweights is not None:
        aw = _weights(aweights, nx, obs, "aweights", False)
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = R.sum(w)
        if float(w_sum._data) == 0:
            raise ValueError("cov: the weights sum to zero, so they cannot be normalized")
        nx_w = nx * w
        avg = R.sum(nx_w, axis=1) / w_sum
    else:
        w_sum = const(np.asarray(obs, dt), dt)
        nx_w = nx
        avg = R.sum(nx, axis=1) / w_sum
    if w is not None and aw is not None and ddof:
        factor = w_sum - R.sum(w * aw) / w_sum
    else:
        factor = w_sum - float(ddof)
    factor = E.clip(factor, min=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = matmul(nx - unsqueeze(avg, 1), nx_w, transpose_y=True) / factor
    keep = [s for s in out.shape if s != 1]
    return reshape(out, keep) if keep != out.shape else out


def corrcoef(x: Tensor, rowvar: bool = True, name: str | None = None) -> Tensor:
    """Pearson correlation coefficients: cov(x, rowvar) scaled by the standard deviations
    and clipped to [-1, 1] (numpy.corrcoef); 1-variable input gives c / c, a 0-D 1 (nan for a
    zero or non-finite variance)."""
    _float(x, "corrcoef", "x")
    if x.ndim not in (1, 2):
        raise ValueError(f"corrcoef: x must be 1-D or 2-D, got shape {x.shape}")
    c = cov(x, rowvar)
    with np.errstate(divide="ignore", invalid="ignore"):
        if c.ndim == 0:
            return c / c
        d = E.sqrt(take_along_axis(c, Tensor._make(np.arange(c.shape[0])[:, None]), axis=1))
        c = c / d                                   # d [n, 1]: rows
        c = c / reshape(d, [1, -1])                 # columns
    return E.clip(c, min=-1.0, max=1.0)


# ---- Householder product ------------------------------------------------------------------

def householder_product(x: Tensor, tau: Tensor, name: str | None = None) -> Tensor:
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T with v_i the i-th
    column of x [.., m, n] below the diagonal and a 1 on it (LAPACK's orgqr; geqrf's
    output). tau [.., k], k <= n <= m, the batch dims equal x's."""
    _float(x, "householder_product", "x")
    _float(tau, "householder_product", "tau")
    _same_dtype(x, tau, "householder_product")
    if x.ndim < 2 or tau.ndim != x.ndim - 1:
        raise ValueError(f"householder_product: x must be [.., m, n] and tau [.., k] with "
                         f"one dim fewer, got {x.shape} and {tau.shape}")
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    if m < n:
        raise ValueError(f"householder_product: x must have at least as many rows as "
                         f"columns, got shape {x.shape}")
    if k > n:
        raise ValueError(f"householder_product: tau has {k} entries but x only {n} columns")
    if x.shape[:-2] != tau.shape[:-1]:
        raise ValueError(f"householder_product: the batch dims of x {x.shape[:-2]} and tau "
                         f"{tau.shape[:-1]} differ")
    dt = x._data.dtype
    batch = x.shape[:-2]
    q = broadcast_to(_eye(m, dt), batch + [m, m]) if batch else _eye(m, dt)
    for i in range(min(k, n)):
        parts = [const(np.zeros(batch + [i, 1], dt), dt)] if i else []
        parts.append(const(np.ones(batch + [1, 1], dt), dt))
        if i + 1 < m:
            parts.append(x[..., i + 1:, i:i + 1])
        v = concat(parts, axis=-2) if len(parts) > 1 else parts[0]
        t = unsqueeze(unsqueeze(tau[..., i], -1), -1)
        q = q - matmul(matmul(q, v), v, transpose_y=True) * t
    return q[..., :, :n]


def ormqr(x: Tensor, tau: Tensor, y: Tensor, left: bool = True, transpose: bool = False,
          name: str | None = None) -> Tensor:
    """op(Q) @ y (left) or y @ op(Q), op(Q) = Q^T with transpose, where Q [.., m, k] =
    householder_product(x, tau): x [.., m, k] and tau [.., k] as geqrf returns them
    (LAPACK's ormqr without forming Q; here Q is formed and multiplied, so the gradient
    reaches x, tau and y through householder_product and matmul; Paddle 3.3.1's backward
    fails for x, writing into it). This is Paddle 3.3.1's product: Q is the first k columns
    of the m x m orthogonal matrix, so for a square x it equals LAPACK's and torch.ormqr's,
    and for a tall x (m > k) it is the product with those k columns (torch.ormqr multiplies
    by all m). y's rows (left) or columns must be the size op(Q) needs: k for Q @ y, m for
    Q^T @ y, m for y @ Q, k for y @ Q^T (Paddle 3.3.1's own checks for the right-hand
    products of a tall x contradict its matmul, which then fails). Batch dims must match."""
    for v, arg in ((x, "x"), (tau, "tau"), (y, "y")):
        _float(v, "ormqr", arg)
    if not (x._data.dtype == tau._data.dtype == y._data.dtype):
        raise TypeError(f"ormqr: x, tau and y must have one dtype, got {x.dtype.name}, "
                        f"{tau.dtype.name} and {y.dtype.name}")
    if x.ndim < 2 or y.ndim != x.ndim or tau.ndim != x.ndim - 1:
        raise ValueError(f"ormqr: x must be [.., m, k], tau [.., k] and y [.., rows, cols] "
                         f"with x's batch dims, got shapes {x.shape}, {tau.shape} and "
                         f"{y.shape}")
    m, k = x.shape[-2:]
    if m < k:
        raise ValueError(f"ormqr: x must have at least as many rows as columns (Q [m, k] has "
                         f"k orthonormal columns), got shape {x.shape}")
    if tau.shape[-1] != k:
        raise ValueError(f"ormqr: tau must have one entry per column of x ({k}), got shape "
                         f"{tau.shape}")
    if not (x.shape[:-2] == tau.shape[:-1] == y.shape[:-2]):
        raise ValueError(f"ormqr: x, tau and y must have the same batch dims, got shapes "
                         f"{x.shape}, {tau.shape} and {y.shape}")
    left, transpose = bool(left), bool(transpose)
    need = m if left == transpose else k
    have = y.shape[-2] if left else y.shape[-1]
    if have != need:
        op = "Q^T" if transpose else "Q"
        product = f"{op} @ y" if left else f"y @ {op}"
        raise ValueError(f"ormqr: {product} with Q [{m}, {k}] (x's shape) needs y with "
                         f"{need} {'rows' if left else 'columns'}, got shape {y.shape}")
    q = householder_product(x, tau)
    if transpose:
        q = _mT(q)
    return matmul(q, y) if left else matmul(y, q)


# ---- randomized low-rank SVD and PCA ------------------------------------------------------

def _lowrank_args(x: Any, q: Any, niter: Any, fn: str) -> tuple[int, int, int]:
    """(m, n, q) after Paddle 3.3.1's checks: q defaults to min(6, m, n)."""
    _float(x, fn, "x")
    if x.ndim < 2:
        raise ValueError(f"{fn}: x must be a matrix or a batch of matrices [.., m, n], got "
                         f"shape {x.shape}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif isinstance(q, bool) or not isinstance(q, (int, np.integer)):
        raise TypeError(f"{fn}: q must be an int (the rank to find, a little over the "
                        f"expected one), got {q!r}")
    elif (fn == "pca_lowrank" or min(m, n)) and not 0 <= q <= min(m, n):
        raise ValueError(f"{fn}: q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if isinstance(niter, bool) or not isinstance(niter, (int, np.integer)) or niter < 0:
        raise ValueError(f"{fn}: niter(={niter!r}) must be non-negative integer")
    return m, n, int(q)


def _approximate_basis(x: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal basis Q [.., m, q] of x's (or x - M's) range, from a Gaussian sketch
    x R, R [n, q], and niter power iterations, each product re-orthonormalized by a QR
    (Halko, Martinsson and Tropp 2009, Algorithm 4.4; Paddle's _get_approximate_basis)."""
    from .creation import randn
    from .qr import qr

    def times(a: Tensor, ma: Tensor | None, b: Tensor) -> Tensor:
        return matmul(a, b) if ma is None else matmul(a, b) - matmul(ma, b)

    r = randn([x.shape[-1], q], dtype=x.dtype)
    xt, mt = _mT(x), None if M is None else _mT(M)
    basis = qr(times(x, M, r))[0]
    for _ in range(niter):
        basis = qr(times(xt, mt, basis))[0]
        basis = qr(times(x, M, basis))[0]
    return basis


def svd_lowrank(x: Tensor, q: int | None = None, niter: int = 2, M: Tensor | None = None,
                name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """(U [.., m, q], S [.., q], V [.., n, q]) with x - M ~= U diag(S) V^T (M defaults to
    0 and broadcasts to x): the randomized SVD of Halko et al. (2009), as Paddle 3.3.1 and
    torch compute it: an orthonormal basis Q of x's range from a Gaussian sketch and niter
    power iterations (_approximate_basis), then the exact SVD of the small Q^T x. For x of
    rank <= q the result is x's SVD to rounding (S its top q singular values, the rest 0);
    for larger rank, an approximation that niter improves. q defaults to min(6, m, n).
    The sketch draws from jitgrad's generator (paddle.seed), so U, S and V are not
    Paddle's numbers, and singular vectors may differ in sign. Composed of matmul, qr and
    svd, so it is differentiable (with the sketch fixed: seed before each call to
    differentiate numerically); Paddle 3.3.1's backward crashes in qr's."""
    m, n, q = _lowrank_args(x, q, niter, "svd_lowrank")
    if M is not None:
        _float(M, "svd_lowrank", "M")
        if M._data.dtype != x._data.dtype:
            raise TypeError(f"svd_lowrank: M must have x's dtype {x.dtype.name}, got "
                            f"{M.dtype.name}")
        try:
            M = broadcast_to(M, x.shape)
        except ValueError:
            raise ValueError(f"svd_lowrank: M (the mean, [.., 1, n]) must broadcast to x's "
                             f"shape {x.shape}, got {M.shape}") from None
    if q == 0 or m == 0 or n == 0:          # nothing to find: empty factors (Paddle's shapes)
        dt, batch = x._data.dtype, tuple(x.shape[:-2])
        return (const(np.zeros(batch + (m, 0), dt), dt), const(np.zeros(batch + (0,), dt), dt),
                const(np.zeros(batch + (n, 0), dt), dt))
    from .decompositions import svd
    mt = None if M is None else _mT(M)
    if m < n or n > q:                      # the basis of x^T's range: Q [.., n, q]
        basis = _approximate_basis(_mT(x), q, niter, mt)
        b = matmul(x, basis) if M is None else matmul(x, basis) - matmul(M, basis)
        u, s, vh = svd(b)                   # b [.., m, q] = U S (Q^T V)^T
        return u, s, matmul(basis, _mT(vh))
    basis = _approximate_basis(x, q, niter, M)      # m >= n and q == n: Q [.., m, q]
    xt = _mT(x)
    b = matmul(xt, basis) if M is None else matmul(xt, basis) - matmul(mt, basis)
    u, s, vh = svd(_mT(b))                  # b^T [.., q, n] = Q^T x
    return matmul(basis, u), s, _mT(vh)


def pca_lowrank(x: Tensor, q: int | None = None, center: bool = True, niter: int = 2,
                name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V): svd_lowrank of x with each column's mean (over the rows, axis -2)
    subtracted when center is True, so V's columns are the principal directions and
    S**2 / (m - 1) the variances along them. q defaults to min(6, m, n). Randomized and
    differentiable as svd_lowrank."""
    m, n, q = _lowrank_args(x, q, niter, "pca_lowrank")
    if not center or not (q and m and n):          # (an empty x has no mean to take)
        return svd_lowrank(x, q, niter=niter)
    return svd_lowrank(x - R.mean(x, axis=-2, keepdim=True), q, niter=niter)
