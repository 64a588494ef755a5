"""`paddle.autograd.saved_tensors_hooks(pack_hook, unpack_hook)`: transform the values a
backward will read when they are recorded, and get them back when it runs.

Measured on Paddle 3.3.1 (tests/test_autograd_api_paddle.py pins each):
- pack runs when an op is recorded inside the block, once per tensor its gradient saves,
  and once per tensor a PyLayer's forward passes to ctx.save_for_backward. Ops recorded
  outside the block are not packed, whatever block a later backward runs in.
- unpack runs when a backward needs them: on every backward through the op (each retained
  replay, each grad() call), never at record time; a PyLayer's on every saved_tensor().
  The gradient is computed with what unpack returns.
- one pair of hooks at a time: entering a second block inside one raises ValueError.

In jitgrad an op's recorded values are its input Tensors and its output. pack sees, as
Tensors, those its gradient rule reads (the op's `grad_reads`, by default all: a few more
than Paddle saves, e.g. multiply's output). The node gets a stand-in OpDef (same name)
whose rule unpacks, then runs the op's own rule; it is uncacheable, and the compiled
backward runs it as a callback between Program segments (node_call.py), so the rest of
the graph stays compiled. The node's extra saved arrays are dropped (the rule does not
need them). With create_graph=True the rule runs on the original tensors, which are the
graph's edges, after calling unpack and checking its shape: unpack must return the same
content (Paddle's contract), and the recorded backward stays differentiable. The graph
keeps its forward tensors (they are its edges), so packing does not free their memory.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..compile import node_call
from ..core import tape
from .core import out_tensor, sum_to
from .registry import OpDef
from ..core.tensor import Tensor

PACKED = "_packed"                  # node.attrs key: (unpack, ((role, packed), ...))


class saved_tensors_hooks:
    """`with saved_tensors_hooks(pack, unpack):` ops recorded inside save `pack(t)` in place
    of each tensor t their backward reads, and the backward computes with `unpack(saved)`.

    Example:
        >>> import jitgrad as paddle
        >>> a = paddle.ones([2]); a.stop_gradient = False
        >>> with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), paddle.to_tensor):
        ...     y = a * 3.0
        >>> y.sum().backward()
        >>> a.grad.tolist()
        [3.0, 3.0]
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any],
                 unpack_hook: Callable[[Any], Tensor]) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(pack_hook, unpack_hook) takes two callables, "
                            f"got {type(pack_hook).__name__} and {type(unpack_hook).__name__}")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        if tape._saved_hooks is not None:
            raise ValueError("saved_tensors_hooks: only one pair of hooks is allowed at a "
                             "time (as in Paddle); leave the outer block first")
        tape._saved_hooks = (self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc: Any) -> None:
        tape._saved_hooks = None


def pack_node(node: tape.Node, out: Tensor) -> None:
    """Called by ops/core.py for each node recorded inside the block (out: its result)."""
    pack, unpack = tape._saved_hooks
    op = node.op
    reads = op.extra.get("grad_reads") if "grad_reads_of" not in op.extra else \
        tape.grad_reads(node)
    roles: list = [i for i in range(len(node.inputs)) if reads is None or i in reads]
    if reads is None or "out" in reads:
        roles.append("out")
    saved = tuple((role, paused(pack, out if role == "out" else node.inputs[role]))
                  for role in roles)
    node.attrs = {**node.attrs, PACKED: (unpack, saved)}
    node.op = packed_op(op)
    node.saved = ()


_PACKED_OPS: dict[str, OpDef] = {}


def packed_op(op: OpDef) -> OpDef:
    """The stand-in OpDef for nodes of `op` recorded under the hooks (one per op)."""
    w = _PACKED_OPS.get(op.name)
    if w is None or w.extra["packed_from"] is not op:
        rule = op.vjp

        def vjp(g: Tensor, out: Tensor, *inputs: Tensor, _packed: tuple, **attrs: Any) -> Any:
            unpack, saved = _packed
            values = {role: unpacked(unpack, p, _original(role, out, inputs)._data.shape,
                                     _original(role, out, inputs)._data.dtype,
                                     f"the saved {_what(role)} of {op.name}")
                      for role, p in saved}
            if not tape.is_grad_enabled():      # (create_graph: the graph's own tensors)
                inputs = tuple(values.get(i, t) for i, t in enumerate(inputs))
                out = values.get("out", out)
            return rule(g, out, *inputs, **attrs)

        # (not the op's array rule either: it reads the saved values without unpacking them,
        # and the node's own saved arrays are dropped; the interpreter runs vjp instead)
        extra = {k: v for k, v in op.extra.items() if k not in ("bound_attrs", "forward_saves",
                                                           "save_needs", "interp")}
        extra.update(packed_from=op, node_call=_run_rule,
                     uncacheable="saved_tensors_hooks (its rule runs in Python to unpack the "
                     "saved values)")
        w = _PACKED_OPS[op.name] = OpDef(op.name, op.forward, vjp, node_call.lower, op.nin,
                                         doc=op.doc, extra=extra)
    return w


def _run_rule(node: tape.Node, g: Tensor, reached: Any) -> list:
    """A packed node's input gradients inside a compiled Program (compile/node_call.py)."""
    tape.check_rule_reads(node)
    res = node.op.vjp(g, out_tensor(node), *node.inputs, **node.attrs)
    return [None if r is None else sum_to(r, t._data.shape) for r, t in zip(res, node.inputs)]


def _original(role: Any, out: Tensor, inputs: tuple) -> Tensor:
    return out if role == "out" else inputs[role]


def _what(role: Any) -> str:
    return "output" if role == "out" else f"input {role}"


def paused(hook: Callable, arg: Any) -> Any:
    """hook(arg) with the hooks paused: the ops a pack or unpack hook runs are not packed
    (Paddle 3.3.1: `pack = lambda t: t * 1` packs each saved tensor once; it recursed
    forever here)."""
    hooks, tape._saved_hooks = tape._saved_hooks, None
    try:
        return hook(arg)
    finally:
        tape._saved_hooks = hooks


def unpacked(unpack: Callable, packed: Any, shape: tuple, dtype: np.dtype, what: str) -> Tensor:
    """unpack(packed), checked: a Tensor of the saved value's shape, in its dtype."""
    t = paused(unpack, packed)
    if not isinstance(t, Tensor):
        raise TypeError(f"unpack_hook must return a Tensor, got {type(t).__name__} for {what}")
    if tuple(t._data.shape) != tuple(shape):
        raise ValueError(f"unpack_hook returned shape {list(t.shape)} for {what}, which had "
                         f"shape {list(shape)}; it must return the packed tensor's content")
    if t._data.dtype != dtype:
        t = Tensor._make(t._data.astype(dtype))
    return t
