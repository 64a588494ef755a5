"""Where a tensor's `.grad` comes from beyond its accumulator array.

After backward(create_graph=True) a gradient is a Tensor with a graph of its own, which
`.grad` returns while the accumulator still holds its values; and the `.grad` wrappers a
user holds write through to the accumulator (`x.grad.zero_()`). Both are kept here, keyed
by id with weak references, so a Tensor carries no slot for them.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor


# ---- differentiable .grad after backward(create_graph=True) ---------------------------------
# {id(tensor): (weakref(tensor), gradient Tensor with a graph)}. `_grad` holds a copy of the
# gradient's values, so in-place accumulation by any backward path never changes values the
# recorded graph saved; `.grad` returns the graph tensor only while `_grad` still holds
# exactly its values (any later accumulation or clear_grad() makes it a plain gradient).
GRAPH_GRADS: dict[int, tuple[Any, Tensor]] = {}


def graph_grad(t: Tensor) -> Tensor | None:
    entry = GRAPH_GRADS.get(id(t))
    if entry is None or entry[0]() is not t or t._grad is None:
        return None
    g = entry[1]._data
    if g.shape != t._grad.shape or not np.array_equal(g, t._grad):
        return None
    return entry[1]


def set_graph_grad(t: Tensor, g: Tensor) -> None:
    key = id(t)

    def drop(ref: Any) -> None:
        entry = GRAPH_GRADS.get(key)
        if entry is not None and entry[0] is ref:
            del GRAPH_GRADS[key]
    GRAPH_GRADS[key] = (weakref.ref(t, drop), g)
    t._grad = np.array(g._data, dtype=t._data.dtype, copy=True, order="C")


def detach_graph_grad(t: Tensor) -> None:
    """Forget t's differentiable gradient before `_grad` changes (frees the graph early)."""
    if GRAPH_GRADS:
        GRAPH_GRADS.pop(id(t), None)


def deliver_grad(t: Tensor, val: np.ndarray, kind: str) -> None:
    """Hand a backward's result for t over: a leaf accumulates (Paddle), a retained non-leaf
    is overwritten, and a grad() target is left to the caller."""
    if kind == "leaf" and t._grad is not None:
        detach_graph_grad(t)
        np.add(t._grad, val, out=t._grad, casting="unsafe")
    elif kind != "target":
        detach_graph_grad(t)
        # (np.array, not astype: a 0-d gradient from the numpy rules may be a numpy
        # scalar, which the next backward could not accumulate into)
        t._grad = np.array(val, dtype=t._data.dtype, copy=True, order="C")


# ---- accumulators that `x.grad = t` made: their `.grad` reads stop_gradient=True (Paddle) ---
# Paddle 3.3.1's `.grad` is the tensor first put into the accumulator: an assigned one stops
# gradient (so `x.grad.multiply_(s)` works; a backward's does not), for as long as that
# accumulator lives (later backwards add into it, clear_grad zeroes it). Keyed by the
# array's id, held weakly: a new accumulator (clear_gradient(False), then a backward) is
# not in it.
_ASSIGNED: dict[int, Any] = {}


def note_assigned(acc: np.ndarray) -> None:
    key = id(acc)

    def drop(ref: Any) -> None:
        if _ASSIGNED.get(key) is ref:
            del _ASSIGNED[key]
    _ASSIGNED[key] = weakref.ref(acc, drop)


def was_assigned(acc: np.ndarray) -> bool:
    """Whether `x.grad = t` made this accumulator (note_assigned)."""
    if not _ASSIGNED:
        return False
    ref = _ASSIGNED.get(id(acc))
    return ref is not None and ref() is acc


class ViewLinks:
    """{view: owner} for tensors that stand for another one's storage, held weakly on both
    sides (an entry goes when its view does): `x.grad`'s wrappers here, `x.data`'s views in
    ops/inplace.py, whose in-place writes reach their owners."""

    def __init__(self) -> None:
        self._links: dict[int, tuple[Any, Any]] = {}

    def note(self, view: Tensor, owner: Tensor) -> None:
        key, links = id(view), self._links

        def drop(ref: Any) -> None:
            entry = links.get(key)
            if entry is not None and entry[0] is ref:
                del links[key]
        links[key] = (weakref.ref(view, drop), weakref.ref(owner))

    def owner(self, view: Tensor) -> Tensor | None:
        entry = self._links.get(id(view))
        if entry is None or entry[0]() is not view:
            return None
        return entry[1]()


# ---- `x.grad` wrappers share the accumulator (Paddle): in-place ops on one write through ---
# ops/inplace.py asks grad_owner() so that `x.grad.zero_()` or `x.grad.multiply_(s)` under
# no_grad change x's gradient, not a copy.
_grad_views = ViewLinks()


def note_grad_view(view: Tensor, owner: Tensor) -> None:
    _grad_views.note(view, owner)


def grad_owner(t: Tensor) -> Tensor | None:
    """The tensor whose `.grad` `t` still is (its accumulator's wrapper, or its
    differentiable gradient after create_graph=True), or None."""
    owner = _grad_views.owner(t)
    if owner is None or owner._grad is None:
        return None
    return owner if owner._grad is t._data or graph_grad(owner) is t else None
