"""paddle.jit: jitgrad runs eagerly (its compiled part is the backward), so to_static returns
the function or layer itself and the program-translation switches are accepted and do
nothing. Saving a translated program is not supported: save the state_dict instead."""

from __future__ import annotations

from typing import Any, Callable


def to_static(function: Any = None, input_spec: Any = None, build_strategy: Any = None,
              backend: Any = "CINN", **kwargs: Any) -> Any:
    """The function (or Layer) unchanged; as a decorator with arguments, the decorator."""
    if function is None:
        return lambda fn: fn
    if not callable(function):
        raise TypeError(f"to_static: expected a function or Layer, got "
                        f"{type(function).__name__}")
    return function


def not_to_static(func: Callable | None = None) -> Any:
    return func if func is not None else (lambda fn: fn)


def ignore_module(modules: Any) -> None:
    return None


def enable_to_static(enable_to_static_bool: bool) -> None:
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError("enable_to_static: the argument must be a bool")


def _unsupported(what: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"paddle.jit.{what} saves or loads a translated static program, which jitgrad "
            f"(eager only) does not make; use paddle.save(layer.state_dict(), path) and "
            f"layer.set_state_dict(paddle.load(path))")
    fn.__name__ = what
    return fn


save = _unsupported("save")
load = _unsupported("load")
