"""Graphviz DOT text for a recorded graph: the backward graph and the reference forward graph.

The layout follows what Paddle writes under dump_backward_graph_path: backward nodes named
`MatmulGradNode`, one `GradNodeAccumulation` per leaf that receives a gradient, edges from an
op's grad node to its inputs' grad nodes labelled `Place(cpu)\\nfloat32[2, 2]`; the forward
graph has op nodes (`Matmul`) and edges from inputs to outputs labelled `float32 [2, 2]`.
Node ids are numbered in walk order, so the same graph always gives the same text;
`addresses=True` adds Paddle-style `Ptr: 0x...` lines (useful in dumps, not deterministic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..core import tape

if TYPE_CHECKING:
    from ..core.tensor import Tensor


def _roots(roots: Tensor | Iterable[Tensor]) -> list[Tensor]:
    from ..core.tensor import Tensor
    if isinstance(roots, Tensor):
        return [roots]
    if not isinstance(roots, (list, tuple)):
        raise TypeError(f"roots must be a Tensor or a list/tuple of Tensors, got "
                        f"{type(roots).__name__}")
    for i, t in enumerate(roots):
        if not isinstance(t, Tensor):
            raise TypeError(f"roots[{i}] must be a Tensor, got {type(t).__name__}")
    return list(roots)


def _quote(text: str) -> str:
    """A DOT string literal; newlines become DOT's `\\n` escape."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _meta(t: Tensor, sep: str) -> str:
    shape = ", ".join(str(d) for d in t._data.shape)
    return f"{t._data.dtype.name}{sep}[{shape}]"


def _forward_name(op_name: str) -> str:
    return "".join(p.capitalize() for p in op_name.split("_"))


class _Ids:
    """Stable DOT ids: n0, n1, ... in the order objects are first seen."""

    def __init__(self) -> None:
        self.ids: dict[int, str] = {}

    def __call__(self, obj: object) -> tuple[str, bool]:
        key = id(obj)
        new = key not in self.ids
        if new:
            self.ids[key] = f"n{len(self.ids)}"
        return self.ids[key], new


def backward_graph_dot(roots: Tensor | Iterable[Tensor], addresses: bool = False) -> str:
    """The backward graph the roots would run, as DOT text (Paddle's dump layout).

    One node per grad node reached through tensors that need a gradient, one
    `GradNodeAccumulation` per leaf that needs one; each edge runs from a grad node to the
    grad node of one of its inputs, labelled with the gradient's place, dtype and shape.
    """
    roots = _roots(roots)
    ids = _Ids()
    nodes: list[str] = []
    edges: list[str] = []

    def node_for(t: Tensor) -> str:
        """The grad node a gradient for t flows into (its op's, or its accumulation)."""
        target = t._node if t._node is not None else t
        nid, new = ids(target)
        if new:
            name = t._node.grad_name if t._node is not None else "GradNodeAccumulation"
            label = name + (f"\nPtr: {hex(id(target))}" if addresses else "")
            shape = "box" if t._node is not None else "ellipse"
            nodes.append(f"  {nid} [label={_quote(label)}, shape={shape}];")
        return nid

    for r in roots:
        if not r._stop_gradient:
            node_for(r)
    for node in tape.reachable_nodes(roots):
        src = ids(node)[0]              # named already: newest first, users before inputs
        for t, need in zip(node.inputs, node.needs):
            if not need:                # (no recorded edge: the gradient stops here)
                continue
            dst = node_for(t)
            label = f"{t.place}\n{_meta(t, '')}"
            edges.append(f"  {src} -> {dst} [label={_quote(label)}];")
    return _digraph(nodes, edges)


def forward_graph_dot(roots: Tensor | Iterable[Tensor], addresses: bool = False) -> str:
    """The recorded forward computation behind the roots, as DOT text.

    Op nodes are boxes named after the op (`Matmul`); leaf tensors (inputs and constants)
    are ellipses and each root gets an `output` node. Edges run from an input to the op that
    reads it, labelled with the tensor's dtype and shape.
    """
    roots = _roots(roots)
    ids = _Ids()
    nodes: list[str] = []
    edges: list[str] = []
    seen: dict[int, tape.Node] = {}
    stack = [r._node for r in roots if r._node is not None]
    while stack:                                   # every recorded node, stop_gradient or not
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(t._node for t in node.inputs if t._node is not None)
    order = sorted(seen.values(), key=lambda n: n.seq)   # oldest first: inputs before users

    def source(t: Tensor) -> str:
        obj = t._node if t._node is not None else t
        nid, new = ids(obj)
        if new and t._node is None:
            kind = "leaf" if not t._stop_gradient else "constant"
            label = f"{t._name}\n{kind}" if t._name else kind     # (a name given, not made)
            nodes.append(f"  {nid} [label={_quote(label)}, shape=ellipse];")
        return nid

    for node in order:
        nid, _ = ids(node)
        label = _forward_name(node.op.name)
        if addresses:
            label += f"\nGradNode: {hex(id(node))}"
        nodes.append(f"  {nid} [label={_quote(label)}, shape=box];")
    for node in order:
        for t in node.inputs:
            edges.append(f"  {source(t)} -> {ids(node)[0]} [label={_quote(_meta(t, ' '))}];")
    for i, r in enumerate(roots):
        out = f"out{i}"
        nodes.append(f"  {out} [label={_quote('output ' + str(i))}, shape=plaintext];")
        edges.append(f"  {source(r)} -> {out} [label={_quote(_meta(r, ' '))}];")
    return _digraph(nodes, edges)


def _digraph(nodes: list[str], edges: list[str]) -> str:
    return "\n".join(["digraph G {", *nodes, *edges, "} // end G"]) + "\n"
