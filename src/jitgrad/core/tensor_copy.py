"""copy.copy and copy.deepcopy of a Tensor (Tensor.__copy__ and __deepcopy__)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any


def deep_copy(t: Any, memo: dict, base: type) -> Any:
    """A new leaf of the same class (a Parameter stays a Parameter) with a copy of the
    values, t's stop_gradient, deep copies of any attribute a subclass of `base` (Tensor)
    adds (Parameter.trainable, need_clip) and, as Paddle 3.3.1 names it, t's name +
    `_deepcopy_N` (an optimizer keys its state by name: a model and its copy must not
    share one). As in Paddle 3.3.1, a non-leaf is copied too (its graph is not) and the
    gradient is not: the copy's first backward gives its gradient, not a sum with t's.
    Hooks and the version count are not copied."""
    from ..utils import unique_name
    new = type(t)._make(t._data.copy(), t._stop_gradient)
    memo[id(t)] = new               # a structure holding t twice gets one copy
    if type(t) is not base:
        for name, value in _extra_attributes(t, base):
            setattr(new, name, deepcopy(value, memo))
    new.name = t.name + unique_name.generate("_deepcopy")
    return new


# Slots a pickle leaves out: the graph, the gradient, hooks and version bookkeeping belong
# to this process's tape (a non-leaf's node holds local functions, which cannot pickle).
_NOT_PICKLED = frozenset(("_node", "_grad", "_retain", "_hooks", "_shadows", "_vgroup"))


def reduce_ex(t: Any, protocol: int) -> tuple:
    """Tensor.__reduce_ex__: a leaf of the same class with t's values, stop_gradient, name
    and a subclass's attributes (a Parameter stays one, trainable and all). As Paddle
    3.3.1's pickle, a non-leaf comes back as a leaf and the gradient is not kept."""
    rebuild, args, state = object.__reduce_ex__(t, max(protocol, 2))[:3]
    attrs, slots = state if isinstance(state, tuple) else (state, None)
    slots = {k: v for k, v in (slots or {}).items() if k not in _NOT_PICKLED}
    slots["_node"] = slots["_grad"] = slots["_retain"] = slots["_hooks"] = None
    slots["_version"] = 0
    return rebuild, args, (attrs, slots)


def shallow_copy(t: Any) -> Any:
    """copy.copy(t): a new leaf of the same class sharing t's values (writes are copy on
    write, so neither sees the other's), with t's name, stop_gradient and a subclass's
    attributes, but not its gradient, graph or hooks. As Paddle 3.3.1, whose copy.copy
    rebuilds the tensor: a backward through the copy gives the copy a gradient of its own
    and leaves t's (and a non-leaf t's graph) alone."""
    rebuild, args, state = reduce_ex(t, 2)
    new = rebuild(*args)
    attrs, slots = state
    for name, value in slots.items():
        object.__setattr__(new, name, value)
    if attrs:
        new.__dict__.update(attrs)
    return new


def _extra_attributes(t: Any, base: type) -> list[tuple[str, Any]]:
    """The attributes a subclass of `base` adds (slots or a __dict__) that t has set."""
    out = []
    for cls in type(t).__mro__:
        if cls is base or cls is object:
            continue
        for name in cls.__dict__.get("__slots__", ()):
            if name not in ("__weakref__", "__dict__") and hasattr(t, name):
                out.append((name, getattr(t, name)))
    out.extend(getattr(t, "__dict__", {}).items())
    return out
