"""The one place that owns Numba options, on-disk caching and its fallbacks.

Measured choices (NUMBA_NOTES.md): error_model='numpy' lets division vectorise (5-10x);
fastmath limited to reassoc/nsz: nnan/ninf silently break isnan/isinf, and 'contract' fuses
g += a*b into an FMA whose rounding differs from Paddle's (the seed softmax example gave
0.19661196 instead of Paddle's 0.19661200);
cache=True turns a ~10 s compile into a ~0.5 s load in later processes.

Set JITGRAD_NO_CACHE=1 to compile without the on-disk cache (useful while editing kernels:
Numba does not notice edits to helpers imported from other files).
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Callable

OPTIONS: dict[str, Any] = dict(
    error_model="numpy",
    fastmath={"reassoc", "nsz"},
    boundscheck=False,
    nogil=True,
)


class _NoScipy:
    """A meta-path entry under which `import scipy.linalg` fails at once (see below)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "scipy.linalg" or name.startswith("scipy.linalg."):
            raise ModuleNotFoundError(f"jitgrad kept Numba from importing {name}")
        return None


def _load_numba_numpy_support() -> None:
    """Import numba.np.arraymath now, with scipy.linalg hidden from it.

    Numba's first compile or cache load imports that module, whose import-time BLAS probe
    imports scipy.linalg when scipy is installed: 0.2 s of a 0.7 s cold start here (W6
    without the tiered start), only to choose np.correlate's and np.convolve's inner loop
    in Numba-compiled code (a plain loop instead of BLAS's dot; same values). jitgrad never
    calls them and binds its own GEMM (blas.py). Skipped when scipy.linalg or that module
    is already imported; every later `import scipy.linalg` works as usual.
    """
    import sys
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.meta_path.insert(0, _NoScipy)     # type: ignore[arg-type]
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(_NoScipy)    # type: ignore[arg-type]


_load_numba_numpy_support()


def caching_enabled() -> bool:
    return os.environ.get("JITGRAD_NO_CACHE", "") in ("", "0")


def jit(fn: Callable | None = None, **overrides: Any) -> Any:
    """`numba.njit` with jitgrad's options; falls back to no disk cache if it can't write one."""
    import numba

    def wrap(f: Callable) -> Any:
        opts = {**OPTIONS, "cache": caching_enabled(), **overrides}
        try:
            return numba.njit(**opts)(f)
        except RuntimeError as e:        # "cannot cache function ...: no locator available"
            if not opts.get("cache"):
                raise
            warnings.warn(
                f"jitgrad: cannot write Numba's compile cache ({e}); kernels will be compiled "
                "in every new process. Set NUMBA_CACHE_DIR to a writable directory to fix "
                "this.", RuntimeWarning, stacklevel=3)
            return numba.njit(**{**opts, "cache": False})(f)

    return wrap if fn is None else wrap(fn)
