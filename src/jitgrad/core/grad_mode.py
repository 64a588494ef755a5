"""Grad mode switches: `no_grad`, `enable_grad`, `set_grad_enabled` (contexts and decorators).

The mode itself is `tape.MODE.grad_enabled` (per thread), which every recorded op reads;
these classes only set and restore it. As decorators they set the mode for each call of
the function and restore the caller's afterwards (for a generator: around each step, so
the consumer's code between steps runs in its own mode).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from . import tape


def decorate(fn: Callable, mode: bool, name: str) -> Callable:
    """`fn` running in grad mode `mode`, the caller's mode restored after each call."""
    if not callable(fn):
        raise TypeError(f"{name}() decorates a function, got {fn!r}")
    switch = tape._set_grad_enabled
    if inspect.isgeneratorfunction(fn):
        return _same_signature(fn, _generator(fn, mode, switch))
    return _same_signature(fn, _function(fn, mode, switch))


def _generator(fn: Callable, mode: bool, switch: Callable) -> Callable:
    @functools.wraps(fn)
    def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
        gen = fn(*args, **kwargs)
        value = None
        while True:
            prev = switch(mode)
            try:
                item = gen.send(value)
            except StopIteration as stop:
                return stop.value
            finally:
                switch(prev)
            value = yield item
    return gen_wrapper


def _function(fn: Callable, mode: bool, switch: Callable) -> Callable:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        prev = switch(mode)
        try:
            return fn(*args, **kwargs)
        finally:
            switch(prev)
    return wrapper


def _same_signature(fn: Callable, wrapper: Callable) -> Callable:
    """inspect.getfullargspec(wrapper) == that of fn, as Paddle's decorators keep it
    (getfullargspec does not follow functools.wraps' __wrapped__)."""
    try:
        wrapper.__signature__ = inspect.signature(fn)
    except (TypeError, ValueError):     # pragma: no cover - a builtin without one
        pass
    return wrapper


class _GradModeContext:
    """Base of no_grad / enable_grad: a context manager and a decorator (generators too)."""

    # The modes to restore live on the thread's own stack (tape.MODE.prev), not on the
    # instance: one instance can be entered again while in use (a decorated recursive
    # function) or by two threads at once (a module-level `NO_GRAD = no_grad()`).
    __slots__ = ()
    _mode = True

    def __init__(self, *args: Any) -> None:
        if args:        # `@no_grad` without parentheses passes the function here
            raise TypeError(f"{type(self).__name__} takes no arguments: write "
                            f"@{type(self).__name__}() with parentheses, or "
                            f"`with {type(self).__name__}():`")

    def __enter__(self) -> None:        # _set_grad_enabled, inlined (training loops' updates)
        mode = tape.MODE
        mode.prev.append(mode.grad_enabled)
        mode.grad_enabled = self._mode

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        mode = tape.MODE
        mode.grad_enabled = mode.prev.pop()

    def __call__(self, fn: Callable) -> Callable:
        return decorate(fn, self._mode, type(self).__name__)


class no_grad(_GradModeContext):
    """Ops run inside record nothing: `with no_grad():` or `@no_grad()`."""

    __slots__ = ()
    _mode = False

    def __init_subclass__(cls) -> None:  # pragma: no cover - keeps the class final
        raise TypeError("no_grad cannot be subclassed")


class enable_grad(_GradModeContext):
    """Re-enables recording inside a no_grad block."""

    __slots__ = ()
    _mode = True


class set_grad_enabled:
    """Grad mode on or off: a plain call sets it (`paddle.set_grad_enabled(False)`), a `with`
    block restores the previous mode at its end, and `@set_grad_enabled(mode)` runs each
    call of the function in `mode`, restoring the caller's mode afterwards.

    Decorating undoes the switch the constructor made (it runs once, when the function is
    defined), as torch does. Paddle 3.3.1's decorator is broken: it leaves that switch in
    place, runs the function in whatever mode is current, and after each call sets the
    mode that was current when the function was decorated (measured; README).
    """

    __slots__ = ("mode", "_prev")

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            mode = _truth(mode)
        self.mode = mode
        self._prev = tape._set_grad_enabled(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        tape._set_grad_enabled(self._prev)

    def __call__(self, fn: Callable) -> Callable:
        tape._set_grad_enabled(self._prev)      # decorating is not a plain call
        return decorate(fn, self.mode, "set_grad_enabled")


def _truth(mode: Any) -> bool:
    """set_grad_enabled's mode given as a number, numpy bool or one-element Tensor: its truth
    value, as Paddle 3.3.1 takes it (`set_grad_enabled(0)` turns recording off). None and
    strings raise (3.3.1 takes None as False and refuses strings)."""
    import numbers

    import numpy as np
    if isinstance(mode, (numbers.Number, np.bool_)) or (
            hasattr(mode, "_data") and getattr(mode._data, "size", 0) == 1):
        return bool(mode)
    raise TypeError(f"set_grad_enabled expects a bool, got {mode!r}")
