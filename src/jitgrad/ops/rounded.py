"""exp, log, expm1, log1p, log2, log10, cosh, sinh, atanh, asinh, acosh, atan and tan on
arrays: for float32, the C library's float64 value rounded once; for float64, numpy's own.

Why float64 for float32: numpy's SIMD float32 exp is 1 ulp off (exp(1) gives 2.71828198,
Paddle and the correctly rounded value 2.71828175), and without AVX-512 its float32 sinh,
cosh, expm1, log1p, tan, arctan ... are scalar C library loops (15-25 ns an element; torch's
take 1-2). Once Numba is loaded (the first backward loads it), vm/float32_math.py gives the
same values in one vectorised pass (1.2-2.5 ns an element, against the detour's 6-13); before,
numpy computes them in float64. Every op whose forward or saved factor uses one of these
calls it here, on both of its paths, so the two agree bit for bit (where numpy's float64
functions are the C library's, as on AVX2; an AVX-512 numpy has its own, which can differ
in the last bit, and so in the float32 rounding of rare inputs next to a boundary).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .core import _F32, compiled_kernels
from ..vm import threads


# The NaN a float32 log, log2 or log10 of a negative number gives: Paddle 3.3.1's (measured
# on x86-64: -nan, -nan, nan). numpy's float64 functions differ there between builds (an
# AVX-512 numpy's log gives -nan, an AVX2 one's nan), so the numpy path sets it too.
INVALID_NAN = {"log": -np.float32(np.nan), "log2": -np.float32(np.nan),
               "log10": np.float32(np.nan)}


def _rounded(fn: Callable, kernel: str) -> Callable:
    invalid = INVALID_NAN.get(kernel)

    def forward(x: np.ndarray) -> np.ndarray:
        if x.dtype is not _F32 and x.dtype != _F32:
            return fn(x)
        kernels = compiled_kernels("float32_math")
        if kernels is None:
            out = fn(x.astype(np.float64)).astype(np.float32)
            if invalid is not None:
                negative = x < 0
                if negative.any():          # (out may be a numpy scalar: not written in)
                    out = np.where(negative, invalid, out)
            return out
        if not (x.flags.c_contiguous and x.flags.writeable):
            x = np.array(x, order="C")          # (read-only: another compiled variant)
        out = np.empty(x.shape, np.float32)     # (never x: the kernel reads x twice)
        compiled = getattr(kernels, kernel)
        if x.size >= threads.PAR_MIN and x.size >= threads.par_min():
            threads.split(_on_slices(compiled), (x.reshape(-1), out.reshape(-1)), x.size,
                          BLOCK)
        else:
            compiled(x.reshape(-1), out.reshape(-1))
        return out
    forward.__name__ = forward.__qualname__ = kernel
    forward.__doc__ = f"numpy's {kernel}(x); for float32 of float64(x), rounded; a new array."
    return forward


# vm/float32_math.py's block: an element's value never depends on which block or part it
# is in (a doubt redoes that element alone), so parts start at multiples of it only to
# keep whole blocks together
BLOCK = 4096


def _on_slices(fn: Callable) -> Callable:
    """fn(x, out) as threads.split calls it: elements lo..hi-1 (the kernels release the
    GIL, so a million-element exp takes about half the time on two cores)."""
    def part(x: np.ndarray, out: np.ndarray, lo: int, hi: int) -> None:
        fn(x[lo:hi], out[lo:hi])
    return part


exp = _rounded(np.exp, "exp")
log = _rounded(np.log, "log")
expm1 = _rounded(np.expm1, "expm1")
log1p = _rounded(np.log1p, "log1p")
log2 = _rounded(np.log2, "log2")
log10 = _rounded(np.log10, "log10")
cosh = _rounded(np.cosh, "cosh")
sinh = _rounded(np.sinh, "sinh")
atanh = _rounded(np.arctanh, "atanh")
asinh = _rounded(np.arcsinh, "asinh")
acosh = _rounded(np.arccosh, "acosh")
atan = _rounded(np.arctan, "atan")
tan = _rounded(np.tan, "tan")
