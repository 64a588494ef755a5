"""numpy's floating-point warnings off around a function: Paddle returns nan and inf
silently, so ops whose forward or gradient can meet log(-1), 1/0 or overflow run quiet."""

from __future__ import annotations

from typing import Any, Callable

try:        # numpy >= 2: errstate is a context variable; setting it directly costs ~0.2 us
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _QUIET = _make_extobj(all="ignore")
except ImportError:                                 # pragma: no cover - older numpy
    _extobj_contextvar = None


def quiet(fn: Callable) -> Callable:
    """fn with numpy's floating-point warnings off (np.errstate costs ~1 us a call)."""
    import functools

    import numpy as np
    if _extobj_contextvar is None:                  # pragma: no cover
        @functools.wraps(fn)
        def slow(*args: Any, **kwargs: Any) -> Any:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        return slow

    @functools.wraps(fn)
    def quiet_fn(*args: Any, **kwargs: Any) -> Any:
        token = _extobj_contextvar.set(_QUIET)
        try:
            return fn(*args, **kwargs)
        finally:
            _extobj_contextvar.reset(token)
    return quiet_fn
