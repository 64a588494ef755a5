"""Which BLAS library jitgrad's GEMMs call, found without importing Numba.

numpy's own bundled OpenBLAS by default (one thread pool with numpy's, no scipy). With
Intel's MKL installed (`pip install "jitgrad[mkl]"`, which brings `mkl`), its sgemm is about
10% faster on the 256x512x512 products of an MLP training step than this OpenBLAS on the
Xeons we measure on (perf/README.md, W5b); then the forward's large float matrix products
call it too, so a step uses one library and one thread pool. JITGRAD_BLAS chooses:
`openblas` (numpy's), `mkl`, `fallback` (no BLAS: loop kernels), unset: MKL if installed.

Both are bound through their ILP64 CBLAS entry points (64-bit sizes), whose signatures agree.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
import warnings
from typing import Any, Callable, NamedTuple

import numpy as np

__all__ = ["Found", "find", "FOUND", "forward_matmul", "forward_trsm"]


class Found(NamedTuple):
    name: str                                  # "<sgemm symbol>/<dgemm symbol> in <path>"
    kind: str                                  # "openblas" or "mkl"
    addrs: list                                # sgemm, dgemm addresses
    set_threads: Callable | None               # sets the library's thread count
    sgemm: Any                                 # ctypes functions (the forward's calls)
    dgemm: Any
    trsm_addrs: list | None = None             # strsm, dtrsm addresses (None: not found)
    strsm: Any = None                          # ctypes cblas_?trsm (the forward's solves)
    dtrsm: Any = None


# (gemm pattern, set_num_threads symbol): numpy>=2 wheels, then numpy 1.22-1.26 wheels.
_OPENBLAS = [("scipy_cblas_%sgemm64_", "scipy_openblas_set_num_threads64_"),
             ("cblas_%sgemm64_", "openblas_set_num_threads64_")]
_MKL = [("cblas_%sgemm_64", "MKL_Set_Num_Threads")]


def _numpy_paths():
    root = os.path.dirname(np.__file__)
    for d in (os.path.join(root, os.pardir, "numpy.libs"),  # manylinux / Windows wheels
              os.path.join(root, ".libs"), os.path.join(root, ".dylibs")):  # old / macOS
        yield from sorted(glob.glob(os.path.join(d, "*openblas*")))
    # Any other build: dlsym on numpy's extension module also searches the
    # libraries it links (POSIX), i.e. exactly the BLAS numpy itself uses.
    core = "_core" if os.path.isdir(os.path.join(root, "_core")) else "core"  # numpy 2 / 1
    yield from glob.glob(os.path.join(root, core, "_multiarray_umath*"))


def _mkl_paths():
    """libmkl_rt where pip's `mkl` wheel puts it (the environment's lib folder)."""
    for d in dict.fromkeys((os.path.join(sys.prefix, "lib"),
                            os.path.join(sys.base_prefix, "lib"))):
        yield from sorted(glob.glob(os.path.join(d, "libmkl_rt.so*")))
        yield from sorted(glob.glob(os.path.join(d, "mkl_rt*.dll")))


def gemm_argtypes(ct: Any) -> list:
    """ILP64 `cblas_?gemm`'s argument types, alpha and beta of the ctypes float type `ct`."""
    i32, i64, vp = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    return [i32, i32, i32, i64, i64, i64, ct, vp, i64, vp, i64, ct, vp, i64]


def trsm_argtypes(ct: Any) -> list:
    """ILP64 `cblas_?trsm`'s argument types (order, side, uplo, transA, diag, m, n, alpha,
    A, lda, B, ldb), alpha of the ctypes float type `ct`."""
    i32, i64, vp = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    return [i32, i32, i32, i32, i32, i64, i64, ct, vp, i64, vp, i64]


def _functions(lib: Any, names: list, argtypes: Callable) -> list | None:
    """The ctypes functions `names` of lib (float32's, float64's), typed; None if absent."""
    if not all(hasattr(lib, s) for s in names):
        return None
    fns = []
    for s, ct in zip(names, (ctypes.c_float, ctypes.c_double)):
        f = getattr(lib, s)
        f.argtypes = argtypes(ct)
        f.restype = None
        fns.append(f)
    return fns


def _bind(kind: str, paths, candidates) -> Found | None:
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for pattern, threads in candidates:
            names = [pattern % "s", pattern % "d"]
            fns = _functions(lib, names, gemm_argtypes)
            if fns is None:
                continue
            addrs = [ctypes.cast(f, ctypes.c_void_p).value for f in fns]
            trsm = _functions(lib, [n.replace("gemm", "trsm") for n in names], trsm_argtypes)
            setter = getattr(lib, threads, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
            layer = getattr(lib, "MKL_Set_Threading_Layer", None)
            if kind == "mkl" and layer is not None and not os.environ.get(
                    "MKL_THREADING_LAYER") and not glob.glob(
                    os.path.join(os.path.dirname(path), "*iomp5*")):
                layer(ctypes.c_int(1))          # no Intel OpenMP next to it: sequential
            return Found("%s/%s in %s" % (names[0], names[1], os.path.realpath(path)), kind,
                         addrs, setter, fns[0], fns[1],
                         None if trsm is None else
                         [ctypes.cast(f, ctypes.c_void_p).value for f in trsm],
                         *(trsm or (None, None)))
    return None


CHOICES = ("", "openblas", "mkl", "fallback")


def find(choice: str | None = None) -> Found | None:
    """The BLAS to bind: JITGRAD_BLAS's choice (see the module docstring), None for none."""
    if choice is None:
        from ..core import config
        choice = config.SETTINGS.blas
    choice = choice.lower()
    if choice not in CHOICES:
        raise ValueError(f"JITGRAD_BLAS={choice!r}: choose 'openblas', 'mkl' or 'fallback' "
                         "(or leave it unset: MKL if installed, else numpy's OpenBLAS)")
    if choice == "fallback":
        return None
    if choice in ("", "mkl"):
        found = _bind("mkl", _mkl_paths(), _MKL)
        if found is not None:
            return found
        if choice == "mkl":
            warnings.warn("JITGRAD_BLAS=mkl, but no MKL library was found in this environment "
                          "(pip install mkl); using numpy's OpenBLAS", RuntimeWarning,
                          stacklevel=2)
    return _bind("openblas", _numpy_paths(), _OPENBLAS)


FOUND = find()

# The forward's own products: with MKL bound, large 2-D float products call it (numpy's dot
# would call OpenBLAS: a second library and thread pool in one training step).
FORWARD_MIN = 64 ** 3            # m * n * k: below this numpy's dot call is cheaper
_FORWARD = FOUND is not None and FOUND.kind == "mkl"


def forward_matmul(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """x @ y through the bound MKL for two C-contiguous float matrices of one dtype (float32
    or float64) with m * n * k >= FORWARD_MIN; None when that does not apply (the caller
    uses numpy, which calls its OpenBLAS)."""
    if not _FORWARD:
        return None
    m, k = x.shape
    n = y.shape[1]
    if m * n * k < FORWARD_MIN or y.shape[0] != k or not (x.flags.c_contiguous and
                                                           y.flags.c_contiguous):
        return None
    out = np.empty((m, n), x.dtype)
    f = FOUND.sgemm if x.dtype == np.float32 else FOUND.dgemm
    f(101, 111, 111, m, n, k, 1.0, x.ctypes.data, k, y.ctypes.data, n, 0.0,
      out.ctypes.data, n)
    return out


def conv_forward_blocks(wt: np.ndarray, cols: np.ndarray, out: np.ndarray, block: int
                        ) -> bool:
    """out[n, j] = wt[j]^T @ cols[n, j] for wt [G, R, O/G], cols [N, G, R, S] and out
    [N, G, O/G, S] (C-contiguous, one float dtype): per sample and group, one GEMM per
    block of `block` rows of cols, each after the first added to out (beta 1), to run on
    numpy's OpenBLAS's small-matrix kernel (ops/conv_product.py; vm/forward_window.py's
    conv_product_blocks makes the same calls once Numba is loaded). False, nothing written,
    when numpy's OpenBLAS is not the bound library."""
    if FOUND is None or FOUND.kind != "openblas":
        return False
    f = FOUND.sgemm if out.dtype == np.float32 else FOUND.dgemm
    N, G, R, S = cols.shape
    Og, size = wt.shape[2], out.itemsize
    wa, ca, oa = wt.ctypes.data, cols.ctypes.data, out.ctypes.data
    for n in range(N):
        for j in range(G):
            c = ca + (n * G + j) * R * S * size
            o = oa + (n * G + j) * Og * S * size
            for k0 in range(0, R, block):
                f(101, 112, 111, Og, S, min(block, R - k0), 1.0, wa + (j * R + k0) * Og * size,
                  Og, c + k0 * S * size, S, 0.0 if k0 == 0 else 1.0, o, S)
    return True


# CBLAS enums: row major; left / right side; upper / lower; no transpose / transpose; unit
ROW, LEFT, RIGHT, UPPER, LOWER, NOTRANS, TRANS, NONUNIT, UNIT = (
    101, 141, 142, 121, 122, 111, 112, 131, 132)


def forward_trsm(a: np.ndarray, b: np.ndarray, upper: bool, trans: bool, unit: bool,
                 left: bool = True) -> bool:
    """b[m] := op(T[m])^-1 b[m] (left) or b[m] op(T[m])^-1 in place for each m, one BLAS
    trsm a matrix: T the upper (or lower) triangle of a[m] (its diagonal taken as ones when
    unit; the other triangle is not read), op(T) = T^T when trans. b [M, p, q] and a [M, k,
    k] (k = p left, q right) C-contiguous, one float dtype. False, nothing written, when no
    BLAS with trsm is bound (JITGRAD_BLAS=fallback): the caller solves with numpy."""
    if FOUND is None or FOUND.trsm_addrs is None:
        return False
    f = FOUND.strsm if a.dtype == np.float32 else FOUND.dtrsm
    M, p, q = b.shape
    if p == 0 or q == 0:
        return True
    k = p if left else q
    sa, sb = k * k * a.itemsize, p * q * b.itemsize
    pa, pb = a.ctypes.data, b.ctypes.data
    side, uplo, tr, diag = LEFT if left else RIGHT, UPPER if upper else LOWER, \
        TRANS if trans else NOTRANS, UNIT if unit else NONUNIT
    for m in range(M):
        f(ROW, side, uplo, tr, diag, p, q, 1.0, pa + m * sa, k, pb + m * sb, q)
    return True
