"""The parts of one split: a retained part gets zeros when a sibling gets a gradient.

Paddle's split (chunk, unbind, tensor_split, hsplit ...) is one node with several outputs,
and its backward fills every output's gradient, zeros for the unused ones; a part that
called retain_grads() then shows zeros, not None (measured on Paddle 3.3.1, backward()
and grad() alike; Paddle's own test_imperative_auto_prune checks it). jitgrad records
each part as its own slice, so a part nothing used is never visited: `fill` gives it its
zeros after the backward, when some sibling was on the backward's path.
"""

from __future__ import annotations

import weakref
from typing import Sequence

import numpy as np

from ..core import tape
from ..core.grad_store import detach_graph_grad
from ..core.hooks import RETAINED, retained_tensors
from ..core.tensor import Tensor

class _Groups(dict):
    """A part's node -> weak references to all the parts of its split, keyed by a weak
    reference to the node whose callback drops the entry with the node (WeakKeyDictionary's
    scheme, on a plain dict: a write is one line in note's loop, where
    WeakKeyDictionary.__setitem__'s frame per part cost ~1/4 of unbind's per-part
    overhead). A weak reference hashes and compares as its live referent, so a lookup is
    by a new weak reference to the node."""

    def forget(self, key: weakref.ref) -> None:
        self.pop(key, None)


_groups = _Groups()
_ref = weakref.ref


def note(parts: list[Tensor]) -> list[Tensor]:
    """Remember that `parts` came from one split (when they have a gradient path)."""
    if parts and parts[0]._node is not None:
        refs = tuple(map(_ref, parts))
        groups, forget = _groups, _groups.forget
        for p in parts:
            n = p._node
            if n is not None:
                groups[_ref(n, forget)] = refs
    return parts


def fill(roots: Sequence[Tensor]) -> None:
    """After a backward from `roots`: zeros for the retained parts it did not reach whose
    sibling it did. Looks only at the retained tensors (there are usually none), not at
    every live split: a backward costs the same with 1 or 300 graphs alive."""
    if not RETAINED or not _groups:            # (plain dicts: a C truth test)
        return
    waiting = {}
    for t in retained_tensors():
        refs = _groups.get(_ref(t._node)) if _retained(t) else None
        if refs is not None:
            waiting[id(refs)] = refs
    if not waiting:
        return
    visited = {id(n) for n in tape.reachable_nodes(roots)}
    for refs in waiting.values():
        parts = [p for p in (r() for r in refs) if p is not None]
        if not any(p._node is not None and id(p._node) in visited for p in parts):
            continue
        for p in parts:
            if _retained(p) and id(p._node) not in visited:
                detach_graph_grad(p)
                p._grad = np.zeros(p._data.shape, p._data.dtype)


def _retained(t: Tensor | None) -> bool:
    return t is not None and bool(t._retain) and t._node is not None
