"""Paddle 3.x's torch-style keyword aliases on the public functions: `paddle.sum(x, dim=0)`,
`paddle.add(input=a, other=b)`, `F.softmax(x, dim=-1)`, `paddle.zeros(size=[2])`,
`paddle.linalg.norm(x, ord=1)`, `paddle.where(c, input=a, other=b)` run as Paddle 3.3.1
runs them (its param-alias decorators).

The aliases are derived from each function's own signature, once, at import: `dim` names
`axis` (`dim1`/`dim2`: `axis1`/`axis2`), `ord` names `p`, `size` names a first parameter
`shape`, `input` a parameter `x`, and `other` (`tensor`, `vec2`, `mat2`) a parameter `y`.
They are read only after the call failed: a keyword the function does not have raises a
TypeError before its body runs, and the call is made again with the names it has. The
public op functions do this in the wrapper that already checks their Tensor arguments
(ops/core.check_tensor_args); the others get a wrapper of their own when an alias applies.
The Tensor methods and the functions jitgrad calls internally are not wrapped.
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
    """{alias: parameter} for fn's signature (empty when none applies, or fn takes
    **kwargs: an alias could be one of them)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
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


def renamed(fn: Callable, mapping: dict[str, str], kwargs: dict) -> dict | None:
    """kwargs with its aliases under fn's own names; None when it has none."""
    if mapping.keys().isdisjoint(kwargs):
        return None
    out = dict(kwargs)
    for alias in mapping.keys() & kwargs.keys():
        target = mapping[alias]
        if target in out:
            raise TypeError(f"{fn.__name__}() got both {alias!r} and {target!r} (the same "
                            f"argument)")
        out[target] = out.pop(alias)
    return out


_WRAPPERS: dict[Callable, Callable] = {}     # one wrapper per function (paddle.cross is
#                                              paddle.linalg.cross)


def with_aliases(fn: Callable) -> Callable:
    """fn taking its aliases as keywords too (fn itself when it has none, or when its
    wrapper already reads them: param_aliases)."""
    if hasattr(fn, "param_aliases"):
        return fn
    found = _WRAPPERS.get(fn)
    if found is not None:
        return found
    mapping = aliases_of(fn)
    if not mapping:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError:
            again = renamed(fn, mapping, kwargs) if kwargs else None
            if again is None:
                raise
        return fn(*args, **again)

    call.param_aliases = mapping        # type: ignore[attr-defined]
    _WRAPPERS[fn] = call
    return call


def install(module: types.ModuleType, names: Any = None) -> None:
    """Replace module's public functions (or those in `names`) by their aliased forms."""
    for name in list(vars(module) if names is None else names):
        if name.startswith("_"):
            continue
        fn = getattr(module, name, None)
        if isinstance(fn, types.FunctionType):
            wrapped = with_aliases(fn)
            if wrapped is not fn:
                setattr(module, name, wrapped)
