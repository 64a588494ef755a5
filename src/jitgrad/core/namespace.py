"""Namespace modules (paddle.linalg, paddle.optimizer.lr, paddle.tensor.<submodule>) and the
wording of a missing name in those and in jitgrad, jitgrad.nn, jitgrad.nn.functional.

A Namespace is a module object, so `from jitgrad.tensor.math import add` works too. Asking
one for a name it lacks says so in jitgrad's words: "jitgrad.linalg has no 'eigh' (not
implemented in jitgrad; Paddle 3.3.1 has paddle.linalg.eigh)", or that Paddle has no such
name either (paddle_names.py lists Paddle's, measured). The paddle.tensor submodules are
built in jitgrad/tensor.py.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable



def _names() -> dict[str, tuple[str, ...]]:
    """Paddle's name lists, loaded when first needed (a missing name, a tensor submodule)."""
    from .paddle_names import NAMES
    return NAMES

def missing(where: str, paddle_key: str, attr: str, present: Any = ()) -> AttributeError:
    """The error for `where.attr`: Paddle 3.3.1 has paddle.<paddle_key>.attr but jitgrad does
    not, or neither has it (with the closest names among `present`)."""
    paddle_name = f"paddle.{paddle_key}" if paddle_key else "paddle"
    if attr in _names().get(paddle_key, ()):
        why = f"not implemented in jitgrad; Paddle 3.3.1 has {paddle_name}.{attr}"
    else:
        import difflib
        close = difflib.get_close_matches(attr, [n for n in present if not n.startswith("_")],
                                          n=3)
        why = f"nor has Paddle 3.3.1's {paddle_name}" + \
            (f"; did you mean {', '.join(close)}?" if close else "")
    return AttributeError(f"{where} has no {attr!r} ({why})")


def module_getattr(module_name: str, paddle_key: str, lazy: dict[str, str] | None = None
                   ) -> Callable[[str], Any]:
    """A module-level __getattr__ (PEP 562) that words a missing name as missing() does.
    lazy maps names to the submodule (relative) that holds them, imported on first use: the
    submodule itself if the name is its own, else its attribute of that name."""
    def __getattr__(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")
        if lazy and attr in lazy:
            import importlib
            sub = importlib.import_module(lazy[attr], module_name)
            value = sub if sub.__name__.rsplit(".", 1)[-1] == attr else getattr(sub, attr)
            setattr(sys.modules[module_name], attr, value)
            return value
        raise missing(module_name, paddle_key, attr, dir(sys.modules[module_name]))
    return __getattr__


class Namespace(types.ModuleType):
    """Members given up front, or found by `resolve(name)` among Paddle's names for it."""

    def __init__(self, name: str, paddle_key: str, members: dict[str, Any] | None = None,
                 resolve: Callable[[str], Any] | None = None, doc: str | None = None) -> None:
        super().__init__(name, doc)
        self._paddle_key, self._resolve = paddle_key, resolve
        for key, value in (members or {}).items():
            setattr(self, key, value)

    def _paddle_names(self) -> tuple[str, ...]:
        return _names().get(self._paddle_key, ())

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or attr.startswith("_paddle") or attr == "_resolve":
            raise AttributeError(attr)
        if self._resolve is not None and attr in self._paddle_names():
            value = self._resolve(attr)
            if value is not None:
                setattr(self, attr, value)
                return value
        raise missing(self.__name__, self._paddle_key, attr, self.__dir__())

    def __dir__(self) -> list[str]:
        own = [k for k in self.__dict__ if not k.startswith("_")]
        if self._resolve is not None:
            own += [n for n in self._paddle_names() if self._resolve(n) is not None]
        return sorted(set(own))

    def __repr__(self) -> str:
        return f"<namespace {self.__name__!r}>"


def from_simple(name: str, paddle_key: str, ns: Any, doc: str | None = None) -> Namespace:
    """A Namespace holding the members of a types.SimpleNamespace (or another Namespace)."""
    members = {k: v for k, v in vars(ns).items() if not k.startswith("_")}
    return Namespace(name, paddle_key, members, doc=doc)
