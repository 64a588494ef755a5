"""Paddle 3.x's torch-style keyword aliases on the public functions: `paddle.sum(x, dim=0)`,
`paddle.add(input=a, other=b)`, `F.softmax(x, dim=-1)`, `paddle.zeros(size=[2])`,
`paddle.linalg.norm(x, ord=1)`, `paddle.where(c, input=a, other=b)` run as Paddle 3.3.1
runs them (its param-alias decorators).

The aliases are derived from each function's own signature, once, at import: `dim` names
`axis` (`dim1`/`dim2`: `axis1`/`axis2`), `ord` names `p`, `size` names a first parameter
`shape`, `input` a parameter `x`, and `other` (`tensor`, `vec2`, `mat2`) a parameter `y`.
A function with none of those keeps no wrapper. The Tensor methods and the
functions jitgrad calls internally are not wrapped (one call frame less on the hot paths).
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable

_RENAMES = {"dim": "axis", "dim1": "axis1", "dim2": "axis2", "ord": "p"}
_SECOND = ("other", "tensor", "vec2", "mat2")
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def aliases_of(fn: Callable) -> dict[str, str]:
    """{alias: parameter} for fn's signature (empty when none applies)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    names = set(params)
    found = {a: t for a, t in _RENAMES.items() if a not in names and t in names}
    pos = [p.name for p in params.values() if p.kind in _POSITIONAL]
    if pos and pos[0] == "shape" and "size" not in names:
        found["size"] = "shape"
    if "x" in pos and "input" not in names:
        found["input"] = "x"
    if "y" in pos:
        found.update((a, "y") for a in _SECOND if a not in names)
    return found


_WRAPPERS: dict[Callable, Callable] = {}     # one wrapper per function (paddle.cross is
#                                              paddle.linalg.cross)


def with_aliases(fn: Callable) -> Callable:
    """fn taking its aliases as keywords too (fn itself when it has none)."""
    found = _WRAPPERS.get(fn)
    if found is not None:
        return found
    mapping = aliases_of(fn)
    if not mapping:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias in mapping.keys() & kwargs.keys():
                target = mapping[alias]
                if target in kwargs:
                    raise TypeError(f"{fn.__name__}() got both {alias!r} and {target!r} "
                                    f"(the same argument)")
                kwargs[target] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    call.param_aliases = mapping        # type: ignore[attr-defined]
    _WRAPPERS[fn] = call
    return call


def install(module: types.ModuleType, names: Any = None) -> None:
    """Replace module's public functions (or those in `names`) by their aliased forms."""
    for name in list(vars(module) if names is None else names):
        if name.startswith("_"):
            continue
        fn = getattr(module, name, None)
        if isinstance(fn, types.FunctionType) and not hasattr(fn, "param_aliases"):
            wrapped = with_aliases(fn)
            if wrapped is not fn:
                setattr(module, name, wrapped)
