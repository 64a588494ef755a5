"""PyLayer: a user-defined op with a Python forward and backward, as in Paddle.

`apply` runs `forward` without recording, then records one tape node whose rule calls the
user's `backward`. The eager path (create_graph=True) calls it inline, so a backward
written in jitgrad ops is differentiable again. The compiled path leaves the interpreter
only for this node: the lowering places a segment callback (`PyLayerCall`) where the node's
kernels would go, and the rest of the Program stays compiled.

Several Tensor outputs are packed into one flat node output and handed out as slices of it,
so the node sees all output gradients at once, as `backward(ctx, *grads)` expects.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from . import tape
from .ops.registry import OpDef
from .tensor import Tensor


class PyLayerContext:
    """The `ctx` passed to forward and backward: carries saved tensors between them."""

    def __init__(self) -> None:
        self._saved: tuple = ()
        self.needs_input_grad: tuple = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self._saved = tensors

    def saved_tensor(self) -> tuple:
        return self._saved


class PyLayer:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `apply`.

    Example:
        >>> import jitgrad as paddle
        >>> class Cube(paddle.autograd.PyLayer):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         (x,) = ctx.saved_tensor()
        ...         return dy * 3 * x * x
        >>> x = paddle.to_tensor([2.0], stop_gradient=False)
        >>> Cube.apply(x).backward()
        >>> x.grad.tolist()
        [12.0]
    """

    @staticmethod
    def forward(ctx: PyLayerContext, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a PyLayer subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx: PyLayerContext, *grads: Tensor) -> Any:
        raise NotImplementedError("a PyLayer subclass must define backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = PyLayerContext()
        inputs = tuple(a for a in args if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(not t._stop_gradient for t in inputs)
        with tape.no_grad():
            outs = cls.forward(ctx, *args, **kwargs)
        single = isinstance(outs, Tensor)
        out_list = [outs] if single else list(outs) if isinstance(outs, (list, tuple)) else None
        if out_list is None:
            raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple/list of "
                            f"Tensors, got {type(outs).__name__}")
        differentiable = [i for i, o in enumerate(out_list)
                          if isinstance(o, Tensor) and o._data.dtype.kind == "f"]
        if not (tape.is_grad_enabled() and any(ctx.needs_input_grad) and differentiable):
            return outs
        op = _opdef(cls)
        if single:
            node = tape.Node(op, inputs, {"ctx": ctx, "layout": None}, (), outs._data)
            result = Tensor._make(outs._data, False, node)
            node.out_ref = weakref.ref(result)
            return result
        layout, start = [], 0
        for i in differentiable:
            n = out_list[i]._data.size
            layout.append((i, np.arange(start, start + n), out_list[i]._data.shape))
            start += n
        dtype = np.result_type(*[out_list[i]._data.dtype for i in differentiable])
        packed = np.concatenate([out_list[i]._data.astype(dtype).ravel()
                                 for i in differentiable])
        node = tape.Node(op, inputs, {"ctx": ctx, "layout": tuple(layout),
                                      "n_out": len(out_list)}, (), packed)
        flat = Tensor._make(packed, False, node)
        node.out_ref = weakref.ref(flat)
        from .ops.shape import _take_flat
        for i, idx, shape in layout:
            out_list[i] = _take_flat(flat, idx, shape)
        return tuple(out_list) if isinstance(outs, tuple) else out_list


def _opdef(cls: type) -> OpDef:
    """One unregistered OpDef per PyLayer subclass (named after it for graph dumps)."""
    op = cls.__dict__.get("_jitgrad_op")
    if op is None:
        def vjp(g: Tensor, out: Tensor, *inputs: Tensor, ctx: PyLayerContext,
                layout: Any, n_out: int = 1) -> tuple:
            return _call_backward(cls, ctx, g, inputs, layout, n_out)
        op = OpDef(_snake(cls.__name__), _no_forward, vjp, _lower, nin=-1,
                   doc=f"PyLayer {cls.__qualname__}",
                   extra={"py_layer": cls, "uncacheable": "a PyLayer (its backward is user code)"})
        cls._jitgrad_op = op
    return op


def _snake(name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return out or "py_layer"


def _no_forward(*_: Any, **__: Any) -> Any:
    raise RuntimeError("a PyLayer node is created by PyLayer.apply, not by apply()")


def _call_backward(cls: type, ctx: PyLayerContext, g: Tensor, inputs: tuple, layout: Any,
                   n_out: int) -> tuple:
    if layout is None:
        grads: list = [g]
    else:
        from .ops.shape import _take_flat
        grads = [None] * n_out
        for i, idx, shape in layout:
            grads[i] = _take_flat(g, idx, shape)
    res = cls.backward(ctx, *grads)
    res = (res,) if isinstance(res, Tensor) or res is None else tuple(res)
    if len(res) != len(inputs):
        raise ValueError(f"{cls.__name__}.backward returned {len(res)} gradients but forward "
                         f"took {len(inputs)} Tensor inputs; return one (or None) per input")
    for i, (r, t) in enumerate(zip(res, inputs)):
        if r is None:
            continue
        if not isinstance(r, Tensor):
            raise TypeError(f"{cls.__name__}.backward must return Tensors or None, got "
                            f"{type(r).__name__} for input {i}")
        if r._data.size != t._data.size:
            raise ValueError(f"{cls.__name__}.backward returned shape {list(r.shape)} for "
                             f"input {i} of shape {list(t.shape)}")
    return tuple(r if r is None or r._data.shape == t._data.shape else r.reshape(t.shape)
                 for r, t in zip(res, inputs))


def _lower(b: Any, node: tape.Node, g: Any, gins: list) -> None:
    """No kernels: a callback runs the user's backward at this point of the Program."""
    first = tuple(gi is not None and gi.off not in b.written for gi in gins)
    k = b.graph.node_index()[id(node)]
    spec = ("pylayer", k, tuple(g), tuple(None if gi is None else tuple(gi) for gi in gins),
            first)
    b.breakpoint(spec, pin=[g] + [gi for gi in gins if gi])
    for gi in gins:
        if gi is not None:
            b.written.add(gi.off)


def make_call(spec: tuple, graph: Any) -> "PyLayerCall":
    """The callback a Program's spec from _lower stands for, in `graph`."""
    from .builder import Slot
    _, k, g, gins, first = spec
    return PyLayerCall(graph.nodes[k], Slot(*g), [None if gi is None else Slot(*gi)
                                                   for gi in gins], list(first))


class PyLayerCall:
    """Segment callback: arena[g] -> user backward -> arena[gins] (+= unless first write)."""

    def __init__(self, node: tape.Node, g: Any, gins: list, first: list) -> None:
        self.node, self.g, self.gins, self.first = node, g, gins, first
        self.none: list[int] = []       # inputs the last call returned None for

    def __call__(self, arena: np.ndarray) -> None:
        from .ops.core import out_tensor
        node, g = self.node, self.g
        gt = Tensor._make(arena[g.off:g.off + g.n].reshape(g.shape)
                          .astype(node.out_data.dtype))
        with tape.no_grad():
            res = node.op.vjp(gt, out_tensor(node), *node.inputs, **node.attrs)
        self.none = [i for i, (gi, r) in enumerate(zip(self.gins, res))
                     if gi is not None and r is None]
        for gi, r, first in zip(self.gins, res, self.first):
            if gi is None:
                continue
            val = np.zeros(gi.n) if r is None else r._data.reshape(-1)
            if first:
                arena[gi.off:gi.off + gi.n] = val
            else:
                arena[gi.off:gi.off + gi.n] += val

    def __repr__(self) -> str:
        return f"<{self.node.grad_name} (PyLayer backward) [{self.g.off}] -> " \
               f"{[gi.off for gi in self.gins if gi is not None]}>"


def undefined_grads(binding: Any) -> set[int]:
    """ids of the output tensors no gradient reached because every path to them went
    through a PyLayer backward that returned None: their .grad stays None (Paddle), where
    the arena holds zeros. Empty (and nearly free) when no backward returned None."""
    none = {(id(cb.node), i) for cb in binding.callbacks
            if isinstance(cb, PyLayerCall) for i in cb.none}
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
