"""paddle.tensor: the Tensor class and Paddle's tensor submodules (paddle.tensor.math,
paddle.tensor.creation.fill_constant, paddle.tensor.abs ...). The Tensor class itself
lives in core/tensor.py.

The submodules (math, manipulation, creation, linalg, search, logic, stat, random,
attribute) expose, under Paddle's names for each, the jitgrad functions of those names:
their members are looked up on first use, so ops added to jitgrad later appear there
without a list to keep in step.
"""


import sys as _sys
import types as _types
from typing import Any as _Any
from typing import Callable as _Callable

from .core.namespace import Namespace
from .core.tensor import Tensor, user_to_tensor as to_tensor

__all__ = ["Tensor", "to_tensor"]

TENSOR_SUBMODULES = ("math", "manipulation", "creation", "linalg", "search", "logic", "stat",
                     "random", "attribute")


def _tensor_resolver(sub: str) -> _Callable[[str], _Any]:
    def resolve(name: str) -> _Any:
        import jitgrad
        from .ops import legacy_creation
        if name in ("fill_constant", "gaussian"):
            return getattr(legacy_creation, name)
        if sub == "creation" and name in ("resize_", "set_"):   # (Tensor methods elsewhere)
            from .ops import inplace_more
            return getattr(inplace_more, name)
        if sub == "linalg" and name in jitgrad.linalg.__dict__:
            return jitgrad.linalg.__dict__[name]
        value = jitgrad.__dict__.get(name)
        return value if callable(value) and not isinstance(value, _types.ModuleType) else None
    return resolve


TENSOR = {sub: Namespace(f"jitgrad.tensor.{sub}", f"tensor.{sub}",
                         resolve=_tensor_resolver(sub),
                         doc=f"Paddle's paddle.tensor.{sub}: jitgrad's functions of those names.")
          for sub in TENSOR_SUBMODULES}
for _sub, _ns in TENSOR.items():
    _sys.modules.setdefault(_ns.__name__, _ns)


def __getattr__(name: str) -> _Any:
    """jitgrad.tensor.<name> beyond this module's own names. Dunder names (the import
    system asks for __path__ on every `from .tensor import`) fail at once."""
    if name.startswith("__"):
        raise AttributeError(f"module 'jitgrad.tensor' has no attribute {name!r}")
    if name in TENSOR:
        return TENSOR[name]
    for sub, ns in TENSOR.items():
        if name in ns._paddle_names():
            return getattr(ns, name)       # the function, or "not implemented in jitgrad"
    raise AttributeError(f"module 'jitgrad.tensor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__ + list(TENSOR))
