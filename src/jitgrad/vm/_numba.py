"""The one place that owns Numba options, on-disk caching and its fallbacks.

Measured choices (NUMBA_NOTES.md): error_model='numpy' lets division vectorise (5-10x);
fastmath limited to reassoc/nsz: nnan/ninf silently break isnan/isinf, and 'contract' fuses
g += a*b into an FMA whose rounding differs from Paddle's (the seed softmax example gave
0.19661196 instead of Paddle's 0.19661200);
cache=True turns a ~10 s compile into a ~0.5 s load in later processes; the cache is
cache_guard.py's, so a broken cache file costs one recompile instead of every backward, and a
read-only pre-filled NUMBA_CACHE_DIR is loaded from instead of being ignored.

Set JITGRAD_NO_CACHE=1 to compile without the on-disk cache (useful while editing kernels:
Numba does not notice edits to helpers imported from other files, unless the caller names
their file in `stamp_with` as interpreter.py does for kernels.py; tests/test_kernel_stamps.py
checks that every kernel does).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from .compile_notice import listen

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
listen()        # a slow kernel compile says so (compile_notice.py)


# True once this process compiles a kernel instead of loading it from the disk cache (a
# cache miss, or no cache): vm.__init__ then waits for its loader at exit.
compiles_here = False


def note_compile() -> None:
    global compiles_here
    compiles_here = True


def caching_enabled() -> bool:
    from ..core import config
    return config.SETTINGS.disk_cache


def jit(fn: Callable | None = None, *, stamp_with: tuple[str, ...] = (),
        **overrides: Any) -> Any:
    """`numba.njit` with jitgrad's options and its guarded disk cache (cache_guard.py);
    without a cache, with one warning, if no cache location can be used. `stamp_with`:
    other source files whose @jit functions this one calls; their stamps join its cache
    key, since Numba's covers the function's own file only."""
    import numba

    def wrap(f: Callable) -> Any:
        opts = {**OPTIONS, "cache": caching_enabled(), **overrides}
        cache = opts.pop("cache")
        disp = numba.njit(**opts)(f)
        if not cache:
            note_compile()
        else:
            try:
                _enable_cache(disp, stamp_with)
            except RuntimeError as e:    # "cannot cache function ...: no locator available"
                note_compile()
                warn_once("no-locator", (
                    f"jitgrad: cannot write Numba's compile cache ({e}); kernels will be "
                    "compiled in every new process. Set NUMBA_CACHE_DIR to a writable "
                    "directory to fix this."))
        return disp

    return wrap if fn is None else wrap(fn)


def _enable_cache(disp: Any, stamp_with: tuple[str, ...] = ()) -> None:
    """What `cache=True` does (Dispatcher.enable_caching), with cache_guard's cache class;
    plain Numba caching if this Numba lacks the internals it builds on."""
    try:
        from .cache_guard import GuardedCache
    except Exception:                    # noqa: BLE001 - Numba's caching internals moved
        GuardedCache = None
    if GuardedCache is None or not hasattr(disp, "_cache"):
        note_compile()                   # (plain caching: whether it loads is unknown)
        disp.enable_caching()
        return
    disp._cache = GuardedCache(disp.py_func, stamp_with)


_warned: set[str] = set()


def warn_once(kind: str, message: str) -> None:
    """One RuntimeWarning per kind of cache trouble per process, not one per kernel."""
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def saves_to_disk(disp: Any) -> bool:
    """Whether `disp` (a jitted function) saves what it compiles in a disk cache."""
    cache = getattr(disp, "_cache", None)
    return getattr(cache, "cache_path", None) is not None and not getattr(cache, "read_only",
                                                                         False)
