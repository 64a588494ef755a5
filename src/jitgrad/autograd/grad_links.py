"""Zero-gradient links from a first-order gradient to the inputs Paddle's double-grad node
takes, so that differentiating that gradient gives zeros, not None, for them.

With create_graph=True, Paddle records each op's gradient as a double-grad node whose
inputs are the op's inputs: `dx = grad(x * c, x, create_graph=True)` is `g * c`, yet
`dx.sum().backward()` leaves zeros in `x.grad`, not None (measured on Paddle 3.3.1; its
test_imperative_double_grad checks it for matmul). Which inputs it takes is per op,
measured: multiply and divide link each input's gradient to that input (not when the other
factor is a Python number: Paddle records `scale` then); matmul does only when both inputs
need a gradient (its dx and dy come from one node, which reads both). Other ops
(add, sum, reshape, ...) link nothing; tanh, exp and the like need no link, their
gradients read the input anyway.

Only nodes of the forward pass get links: the nodes a create_graph backward records carry
a tape.BackwardSite and get none, as Paddle's triple-grad nodes return None for the inputs
they do not read. A link is the `grad_link` op: its first input unchanged,
a zero (constant) gradient for the second.
"""

from __future__ import annotations

import numpy as np

from ..core import tape
from ..ops.core import apply
from ..ops.registry import SELECTS, defop
from ..core.tensor import Tensor

def _lower(b, node, g, gins) -> None:
    """c's gradient is g; x's is zero: nothing to emit (the prologue zeroes an input only
    this node reaches)."""
    if gins[0] is not None:
        b.contribute(gins[0], node.out_data.shape, "AXPY", g)


def _interp(node, g, want):
    """The interpreted rule (a double-grad graph's first backward): g for c, zeros for x."""
    x = node.inputs[1]._data
    return g, (np.zeros(x.shape, x.dtype) if want[1] else None)


grad_link_op = defop(
    "grad_link",
    fused="an engine link: its second input gets an explicit zero gradient, not none",
    grad_reads=(), forward=lambda c, x: c.copy(), nin=2, float16_exact=SELECTS,
    vjp=lambda g, out, c, x: (g, Tensor._make(np.zeros(x._data.shape, x._data.dtype))),
    lower=_lower, interp=_interp,
    doc="c, recorded as depending on x with a zero derivative (a double-grad node's input)")

def _scalar(t: Tensor) -> bool:
    """A Python number's stand-in (a 0-d constant): Paddle scales by it, linking nothing."""
    return t._data.ndim == 0 and t._stop_gradient and t._node is None


def tie(node: tape.Node, contribs: tuple, carries: list[bool]) -> tuple:
    """`contribs` (the node's rule's result, create_graph) with Paddle's links added."""
    name = node.op.name
    if name not in ("multiply", "divide", "matmul", "conv_product") or \
            type(node.site) is tape.BackwardSite:
        return contribs
    x, y = node.inputs[:2]
    if name == "matmul" or name == "conv_product":       # (a convolution's matmul)
        if not all(carries[:2]):
            return contribs
    elif _scalar(x) or _scalar(y):
        return contribs
    out = list(contribs)
    for i, c in enumerate(out[:2]):     # dx reads y (and dy x) already: link each to its own
        if c is not None and carries[i] and not _reads(c, node.inputs[i]):
            out[i] = apply(grad_link_op, c, node.inputs[i])
    return tuple(out)


def _reads(c: Tensor, x: Tensor) -> bool:
    """Does the gradient c's own node read x already (x * x: dx = g * x)? Then the link
    adds nothing: x's gradient path exists."""
    node = c._node
    return node is not None and any(t is x for t in node.inputs)
