"""njit-callable GEMM on numpy's own bundled OpenBLAS (or MKL when installed: blas_lib.py).

Why (NUMBA_NOTES.md section 5): inside @njit, ``np.dot``/``@`` need scipy, absent
in CI; with scipy they use scipy's OpenBLAS, a second busy-waiting thread pool
next to numpy's (256^3: 0.37 ms became 12-24 ms). So we bind numpy's ILP64
``cblas_?gemm`` as an LLVM symbol called via ``types.ExternalFunction``, which,
unlike a ctypes pointer, keeps callers ``cache=True``. Without it (other numpy
build, or ``JITGRAD_BLAS=fallback``) gemm runs a loop kernel. Compiled code
links to the aliases ``jitgrad_sgemm``/``jitgrad_dgemm``, always registered (in
fallback mode to a slow ctypes trampoline): a caller cached where BLAS was bound
would otherwise segfault when loaded where it is not.
"""
import ctypes

import numpy as np
from llvmlite import binding as ll
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from . import blas_lib
from ._numba import jit

__all__ = ["gemm", "trsm", "set_num_threads", "BLAS_NAME"]

_FLAGS = dict(error_model="numpy", fastmath={"reassoc", "contract", "nsz"}, boundscheck=False,
              nogil=True)
_ROW, _NT, _TR = 101, 111, 112  # CblasRowMajor, CblasNoTrans, CblasTrans
# gemm dispatch, from float32 in-njit medians on the 2-vCPU box (loop vs BLAS):
# matrices -> BLAS, whose call costs only ~0.05 us (4x4x4 0.08 vs 0.06 us, 8x8x8
# 0.14 vs 0.08, 16^3 0.8 vs 0.17, 64^3 25 vs 5.5); m or n == 1 -> loop kernel,
# OpenBLAS gemm is slow there (1x1x1 0.011 vs 0.05, 1x1x1024 0.05 vs 1.4,
# 64x1x64 0.25 vs 0.7, 1x1024x1024 55 vs 120).


def _jit(fn):
    """vm/_numba.jit (its guarded disk cache and fallbacks) with the flags above."""
    return jit(fn, **_FLAGS)


@_jit
def _tr(X, r, c):
    """X[:r*c] viewed as r x c, transposed, as a new contiguous 1-D array."""
    return np.ascontiguousarray(X[: r * c].reshape((r, c)).T).reshape(r * c)


@_jit
def _loop_core(A, B, C, m, n, k, ta, tb):
    """C += op(A) @ op(B) with loops whose inner loop is contiguous (vectorises)."""
    if not tb and (n >= 8 or n >= k):
        axpy = True  # native layout, long enough rows
    elif tb and not ta and (k >= 8 or k >= n):
        axpy = False  # native layout for dot products
    else:  # pack the operand whose layout does not fit the longer inner loop
        axpy = n >= k
        if axpy and tb:
            B = _tr(B, n, k)
        if not axpy:
            if ta:
                A = _tr(A, k, m)
            if not tb:
                B = _tr(B, k, n)
    if axpy:  # i-p-j: C row i += op(A)[i, p] * B row p
        for i in range(m):
            c = C[i * n:(i + 1) * n]
            for p in range(k):
                a = A[p * m + i] if ta else A[i * k + p]
                b = B[p * n:(p + 1) * n]
                for j in range(n):
                    c[j] += a * b[j]
    else:  # C[i, j] += dot(A row i, B row j)
        for i in range(m):
            a = A[i * k:(i + 1) * k]
            for j in range(n):
                b = B[j * k:(j + 1) * k]
                s = C[i * n + j]
                for p in range(k):
                    s += a[p] * b[p]
                C[i * n + j] = s


@_jit
def _loop_gemm(A, B, C, m, n, k, ta, tb, acc):
    """Loop-kernel GEMM, same contract as gemm (k >= 1)."""
    if not acc:
        C[: m * n] = 0
    # A vector operand has the same layout transposed or not: normalise the flags.
    swap = n == 1 and m > 1  # C is also 1 x m: compute C^T = op(B)^T @ op(A)^T
    if swap:
        A, B, m, n = B, A, n, m
    tb = (not ta if swap else bool(tb) or n == 1) and k > 1
    ta = bool(ta) and m > 1 and k > 1
    _loop_core(A, B, C, m, n, k, ta, tb)  # one call site: no literal-typed respecialisation


def _trampoline(ct):
    """ctypes callback with cblas_?gemm's ILP64 signature (tight, alpha=1) running the
    loop kernel. Only code cached where numpy's BLAS was bound reaches it: slow, correct."""
    ptr = ctypes.POINTER(ct)

    def f(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
        A, B, C = (np.ctypeslib.as_array(ctypes.cast(p, ptr), (size,))
                   for p, size in ((A, m * k), (B, k * n), (C, m * n)))
        _loop_gemm(A, B, C, m, n, k, ta == _TR, tb == _TR, beta != 0)
    return ctypes.CFUNCTYPE(None, *blas_lib.gemm_argtypes(ct))(f)


@_jit
def _loop_trsm(A, B, m, n, left, upper, trans, unit):
    """Loop-kernel triangular solve, same contract as trsm (the fallback without BLAS).
    op(A)[i, j] = A[j, i] when trans; op(A) is lower triangular iff upper == trans."""
    lower = upper == trans
    if left:                # op(A) X = B, A m x m: substitution over B's rows
        for s in range(m):
            i = s if lower else m - 1 - s
            bi = B[i * n:(i + 1) * n]
            lo, hi = (0, i) if lower else (i + 1, m)
            for j in range(lo, hi):
                a = A[j * m + i] if trans else A[i * m + j]
                bj = B[j * n:(j + 1) * n]
                for c in range(n):
                    bi[c] -= a * bj[c]
            if not unit:
                d = A[i * m + i]
                for c in range(n):
                    bi[c] = bi[c] / d
    else:                   # X op(A) = B, A n x n: substitution over B's columns
        for s in range(n):
            j = n - 1 - s if lower else s
            lo, hi = (j + 1, n) if lower else (0, j)
            for r in range(m):
                v = B[r * n + j]
                for i in range(lo, hi):
                    v -= B[r * n + i] * (A[j * n + i] if trans else A[i * n + j])
                B[r * n + j] = v if unit else v / A[j * n + j]


def _trsm_trampoline(ct):
    """ctypes callback with cblas_?trsm's ILP64 signature (row major, alpha 1) running the
    loop kernel: as _trampoline, for code cached where a BLAS trsm was bound."""
    ptr = ctypes.POINTER(ct)

    def f(order, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb):
        left = side == blas_lib.LEFT
        k = m if left else n
        A = np.ctypeslib.as_array(ctypes.cast(A, ptr), (k * k,))
        B = np.ctypeslib.as_array(ctypes.cast(B, ptr), (m * n,))
        _loop_trsm(A, B, m, n, left, uplo == blas_lib.UPPER, ta == blas_lib.TRANS,
                   diag == blas_lib.UNIT)
    return ctypes.CFUNCTYPE(None, *blas_lib.trsm_argtypes(ct))(f)


_found = blas_lib.FOUND
if _found is not None:
    BLAS_NAME, _addrs, _set_threads = _found.name, _found.addrs, _found.set_threads
else:
    BLAS_NAME, _set_threads = "fallback", None
    _keep = (_trampoline(ctypes.c_float), _trampoline(ctypes.c_double))
    _addrs = [ctypes.cast(f, ctypes.c_void_p).value for f in _keep]
TRSM_BOUND = _found is not None and _found.trsm_addrs is not None
if TRSM_BOUND:
    _trsm_addrs = _found.trsm_addrs
else:
    _keep_trsm = (_trsm_trampoline(ctypes.c_float), _trsm_trampoline(ctypes.c_double))
    _trsm_addrs = [ctypes.cast(f, ctypes.c_void_p).value for f in _keep_trsm]
ll.add_symbol("jitgrad_strsm", _trsm_addrs[0])
ll.add_symbol("jitgrad_dtrsm", _trsm_addrs[1])
_STRSM, _DTRSM = (types.ExternalFunction(name, types.void(
    types.int32, types.int32, types.int32, types.int32, types.int32, types.int64, types.int64,
    ft, types.intp, types.int64, types.intp, types.int64))
    for name, ft in (("jitgrad_strsm", types.float32), ("jitgrad_dtrsm", types.float64)))
ll.add_symbol("jitgrad_sgemm", _addrs[0])
ll.add_symbol("jitgrad_dgemm", _addrs[1])
_SGEMM, _DGEMM = (types.ExternalFunction(name, types.void(  # pointers passed as intp
    types.int32, types.int32, types.int32, types.int64, types.int64, types.int64, ft,
    types.intp, types.int64, types.intp, types.int64, ft, types.intp, types.int64))
    for name, ft in (("jitgrad_sgemm", types.float32), ("jitgrad_dgemm", types.float64)))


def set_num_threads(n):
    """Set the thread count of the bound BLAS's pool; returns False if none is bound."""
    if _set_threads is None:
        return False
    _set_threads(ctypes.c_int(int(n)))
    return True


def _xgemm(A, B, C, m, n, k, ta, tb, acc):
    """Typing stub: the overload below picks sgemm/dgemm from the array dtype."""


@overload(_xgemm, jit_options=_FLAGS)
def _xgemm_ov(A, B, C, m, n, k, ta, tb, acc):
    ok = all(isinstance(X, types.Array) and X.ndim == 1 and X.layout == "C" for X in (A, B, C))
    dt = A.dtype if ok and A.dtype == B.dtype == C.dtype else None
    if dt not in (types.float32, types.float64):
        raise TypingError("gemm: A, B, C must be 1-D C-contiguous arrays, all float32 "
                          "or all float64; got %s, %s, %s" % (A, B, C))
    if BLAS_NAME == "fallback":
        return lambda A, B, C, m, n, k, ta, tb, acc: _loop_gemm(A, B, C, m, n, k, ta, tb, acc)
    ext = _SGEMM if dt == types.float32 else _DGEMM
    one, zero = dt.cast_python_value(1), dt.cast_python_value(0)
    row, nt, tr = np.int32(_ROW), np.int32(_NT), np.int32(_TR)

    def impl(A, B, C, m, n, k, ta, tb, acc):
        ext(row, tr if ta else nt, tr if tb else nt, m, n, k, one,
            A.ctypes.data, m if ta else k, B.ctypes.data, k if tb else n,
            one if acc else zero, C.ctypes.data, n)
    return impl


@_jit
def gemm(A, B, C, m, n, k, ta, tb, acc):
    """C[:m*n] (+)= op(A) @ op(B), row-major, on 1-D C-contiguous float32/float64 arrays.

    op(A) is m x k (A holds k x m when ta), op(B) is k x n (B holds n x k when tb);
    acc: C += ... (beta=1), else C = ... (beta=0). Raises ValueError if an operand
    is too small.
    """
    if m <= 0 or n <= 0:
        return
    if k < 0 or A.size < m * k or B.size < k * n or C.size < m * n:
        raise ValueError("gemm: operand smaller than m*k, k*n or m*n")
    if k == 0:
        if not acc:
            C[: m * n] = 0
    elif m == 1 or n == 1:
        _loop_gemm(A, B, C, m, n, k, ta, tb, acc)
    else:
        _xgemm(A, B, C, m, n, k, ta, tb, acc)


def _xtrsm(A, B, m, n, left, upper, trans, unit):
    """Typing stub: the overload below picks strsm/dtrsm from the array dtype."""


@overload(_xtrsm, jit_options=_FLAGS)
def _xtrsm_ov(A, B, m, n, left, upper, trans, unit):
    ok = all(isinstance(X, types.Array) and X.ndim == 1 and X.layout == "C" for X in (A, B))
    dt = A.dtype if ok and A.dtype == B.dtype else None
    if dt not in (types.float32, types.float64):
        raise TypingError("trsm: A and B must be 1-D C-contiguous arrays, both float32 "
                          "or both float64; got %s, %s" % (A, B))
    if not TRSM_BOUND:
        return lambda A, B, m, n, left, upper, trans, unit: _loop_trsm(
            A, B, m, n, left, upper, trans, unit)
    ext = _STRSM if dt == types.float32 else _DTRSM
    one = dt.cast_python_value(1)
    row = np.int32(blas_lib.ROW)
    sl, sr = np.int32(blas_lib.LEFT), np.int32(blas_lib.RIGHT)
    up, lo = np.int32(blas_lib.UPPER), np.int32(blas_lib.LOWER)
    tr, nt = np.int32(blas_lib.TRANS), np.int32(blas_lib.NOTRANS)
    un, nu = np.int32(blas_lib.UNIT), np.int32(blas_lib.NONUNIT)

    def impl(A, B, m, n, left, upper, trans, unit):
        ext(row, sl if left else sr, up if upper else lo, tr if trans else nt,
            un if unit else nu, m, n, one, A.ctypes.data, m if left else n, B.ctypes.data, n)
    return impl


@_jit
def trsm(A, B, m, n, left, upper, trans, unit):
    """B[:m*n] := op(T)^-1 B (left) or B op(T)^-1 (right), row-major, in place, on 1-D
    C-contiguous float32/float64 arrays: T the upper (or lower) triangle of A, m x m when
    left, else n x n (the other triangle is not read), its diagonal taken as ones when
    unit; op(T) = T^T when trans. Raises ValueError if an operand is too small."""
    if m <= 0 or n <= 0:
        return
    k = m if left else n
    if A.size < k * k or B.size < m * n:
        raise ValueError("trsm: operand smaller than the triangle or m*n")
    _xtrsm(A, B, m, n, left, upper, trans, unit)
