"""Nodes whose backward runs Python inside a compiled Program.

A PyLayer's backward is user code, and an op recorded under `saved_tensors_hooks` must call
the user's unpack hook: neither has kernels. Their lowering (`lower`) emits a segment
callback instead, and the rest of the Program stays compiled. The callback (`NodeCall`)
reads the node's output gradient from the arena, runs the node's rule under no_grad, and
writes (or adds) each input's gradient into its slot. Graphs holding such nodes are never
cached (their OpDefs declare `uncacheable`): a Program names them by position in this
graph only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import grad_mode, tape
from ..core.tensor import Tensor


def lower(b: Any, node: tape.Node, g: Any, gins: list) -> None:
    """No kernels: a callback runs the node's rule at this point of the Program."""
    first, seen = [], set()
    for gi in gins:     # an input passed twice adds its second gradient to the first
        first.append(gi is not None and gi.off not in b.written and gi.off not in seen)
        if gi is not None:
            seen.add(gi.off)
    first = tuple(first)
    k = b.graph.node_index()[id(node)]
    spec = ("call", k, tuple(g), tuple(None if gi is None else tuple(gi) for gi in gins),
            first)
    b.breakpoint(spec, pin=[g] + [gi for gi in gins if gi])
    for gi in gins:
        if gi is not None:
            b.written.add(gi.off)


def make_call(spec: tuple, graph: Any) -> "NodeCall":
    """The callback a Program's spec from `lower` stands for, in `graph`."""
    from .builder import Slot
    _, k, g, gins, first = spec
    return NodeCall(graph.nodes[k], Slot(*g), [None if gi is None else Slot(*gi)
                                               for gi in gins], list(first), graph)


class NodeCall:
    """Segment callback: arena[g] -> the node's rule -> arena[gins] (+= unless first write).

    `none` lists the inputs a PyLayer's backward returned None for in the last call: they
    got no gradient (Paddle leaves such a .grad None), which `undefined_grads` traces.
    """

    def __init__(self, node: tape.Node, g: Any, gins: list, first: list, graph: Any) -> None:
        self.node, self.g, self.gins, self.first = node, g, gins, first
        self.none: list[int] = []
        self.py_layer = "py_layer" in node.op.extra
        # a PyLayer's outputs reached by this graph (the others get no gradient)
        self.reached = graph.node_index() if self.py_layer else None

    def __call__(self, arena: np.ndarray) -> None:
        node, g = self.node, self.g
        gt = Tensor._make(arena[g.off:g.off + g.n].reshape(g.shape)
                          .astype(node.out_data.dtype))
        with grad_mode.no_grad():        # the op's runner: extra["node_call"] (no ops import here)
            res = node.op.extra["node_call"](node, gt, self.reached)
        self.none = [i for i, (gi, r) in enumerate(zip(self.gins, res))
                     if gi is not None and r is None] if self.py_layer else []
        for gi, r, first in zip(self.gins, res, self.first):
            if gi is None:
                continue
            val = np.zeros(gi.n) if r is None else r._data.reshape(-1)
            if first:
                arena[gi.off:gi.off + gi.n] = val
            else:
                arena[gi.off:gi.off + gi.n] += val

    def __repr__(self) -> str:
        what = "PyLayer backward" if self.py_layer else "rule, unpacking saved tensors"
        return f"<{self.node.grad_name} ({what}) [{self.g.off}] -> " \
               f"{[gi.off for gi in self.gins if gi is not None]}>"


def undefined_grads(binding: Any) -> set[int]:
    """ids of the output tensors no gradient reached because every path to them went
    through a PyLayer backward that returned None: their .grad stays None (Paddle), where
    the arena holds zeros. Empty (and nearly free) when no backward returned None."""
    none = {(id(cb.node), i) for cb in binding.callbacks
            if isinstance(cb, NodeCall) for i in cb.none}
    if not none:
        return set()
    graph = binding.graph
    key = lambda t: id(t._node) if t._node is not None else id(t)     # noqa: E731
    defined = {key(r) for r in graph.roots}
    for node in sorted(graph.nodes, key=lambda n: n.seq, reverse=True):
        if id(node) in defined:
            defined.update(key(t) for i, t in enumerate(node.inputs)
                           if (id(node), i) not in none)
    return {id(t) for t in binding.out_tensors if key(t) not in defined}
