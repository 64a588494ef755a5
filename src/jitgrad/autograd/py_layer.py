"""PyLayer: a user-defined op with a Python forward and backward, as in Paddle.

`apply` runs `forward` without recording, then records one tape node whose rule calls the
user's `backward`. The eager path (create_graph=True) calls it inline, so a backward
written in jitgrad ops is differentiable again. The compiled path leaves the interpreter
only for this node (node_call.py); such graphs are never cached.

Several differentiable outputs are packed into one flat node output and handed out as
slices of it, so the node sees all output gradients at once, as `backward(ctx, *grads)`
expects. The tensors handed out are forward's own (each takes its slice's node), as in
Paddle 3.3.1, so references forward kept to them are the recorded outputs.
Measured on Paddle 3.3.1 (tests/test_pylayer_paddle.py pins each):
- backward gets one gradient per Tensor output and none for the others (1, None, 'str').
  An output no gradient reached gets zeros of its dtype (None after
  ctx.set_materialize_grads(False)), and so do int/bool outputs and those marked
  non-differentiable, which have no gradient path (stop_gradient=True). Those int/bool
  outputs do not cut the float outputs' gradients.
- an input returned as an output is changed in place (ctx.mark_not_inplace opts out): it
  becomes the node's output and its version counter goes up, so a backward through an op
  that read its old value raises; a leaf that needs a gradient is refused (ValueError).
- forward returning no Tensor, and backward returning something other than Tensors or
  None, raise ValueError (OutputTypeError here: a TypeError too).
- an exception raised inside backward says which PyLayer it came from.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..compile import node_call
from ..core import grad_mode, tape
from ..core.errors import OutputTypeError
from ..ops.core import sum_to
from ..ops.elementwise import astype
from ..ops.registry import OpDef
from ..ops.shape import _take_flat
from .py_layer_context import (PyLayerContext, flat_inputs, input_grads, input_slots, is_in,
                               slot_shapes)
from ..core.tensor import Tensor

__all__ = ["PyLayer", "PyLayerContext"]


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
        slots = input_slots(args, kwargs)
        inputs = flat_inputs(slots)
        ctx.needs_input_grad = tuple(not t._stop_gradient for t in inputs)
        with grad_mode.no_grad():
            outs = cls.forward(ctx, *args, **kwargs)
        seq = [outs] if isinstance(outs, Tensor) else \
            list(outs) if isinstance(outs, (list, tuple)) else None
        if seq is None or not any(isinstance(o, Tensor) for o in seq):
            raise OutputTypeError(f"{cls.__name__}.forward must return a Tensor or a "
                                  f"tuple/list holding Tensors, got {type(outs).__name__}")
        if not (tape.is_grad_enabled() and any(ctx.needs_input_grad)):
            return outs
        ctx._cls, ctx._slots = cls, slot_shapes(slots)
        results = _record(cls, ctx, inputs, seq)
        if results is None:
            return outs
        return results[0] if isinstance(outs, Tensor) else \
            tuple(results) if isinstance(outs, tuple) else results


def _record(cls: type, ctx: PyLayerContext, inputs: list, seq: list) -> list | None:
    """Record the node; the outputs, with the differentiable ones now its results (None:
    none is differentiable, nothing recorded)."""
    from ..ops import inplace as IP
    tpos = [i for i, o in enumerate(seq) if isinstance(o, Tensor)]
    ctx._outputs = [(i, seq[i]._data.shape, seq[i]._data.dtype) for i in tpos]
    diff = [i for i in tpos if seq[i]._data.dtype.kind == "f" and
            not is_in(seq[i], ctx.non_differentiable)]
    if not diff:
        return None
    same = {}                               # output position -> input index (in place)
    for i in diff:
        if is_in(seq[i], ctx.not_inplace_tensors):
            continue
        for j, t in enumerate(inputs):
            if seq[i] is t:
                if t._node is None and not t._stop_gradient:
                    raise ValueError(
                        f"{cls.__name__}.forward returned its input {j}, a leaf that needs a "
                        "gradient. An input returned as an output is changed in place, and "
                        "a leaf Var that doesn't stop gradient can't use inplace strategy "
                        "(Paddle's rule): return x.clone(), or call ctx.mark_not_inplace(x).")
                same[i] = j
                break
    shadows = {j: IP.stand_in(inputs[j]) for j in same.values()}
    node_inputs = tuple(shadows.get(j, t) for j, t in enumerate(inputs))
    ctx._diff = {}
    if len(diff) == 1:
        data = seq[diff[0]]._data
        ctx._diff[diff[0]] = None
    else:
        dtype = np.result_type(*[seq[i]._data.dtype for i in diff])
        start = 0
        for i in diff:
            n = seq[i]._data.size
            ctx._diff[i] = np.arange(start, start + n)
            start += n
        data = np.concatenate([seq[i]._data.astype(dtype).ravel() for i in diff])
    node = tape.Node(_opdef(cls), node_inputs, {"ctx": ctx}, (), data)
    flat = Tensor._make(data, False, node)
    node.out_ref = weakref.ref(flat)
    results = list(seq)
    ctx._slices, ctx._made = {}, {}
    for i in diff:
        if ctx._diff[i] is None:
            results[i] = flat
        else:
            results[i] = _output_piece(ctx, flat, i, seq[i]._data.shape, seq[i]._data.dtype)
    for i, j in same.items():
        results[i] = IP.rebind(inputs[j], shadows[j], results[i])
    own = [i for i in diff if i not in same] if same else diff
    taken = {id(t) for t in inputs}
    adopted = [i for i in own if _adoptable(seq, i, results[i], taken)]
    for i in adopted:
        results[i] = _adopt(seq[i], results[i])
    if ctx._saved:
        _link_saved_outputs(ctx, seq, own, adopted, node)
    return results


def _output_piece(ctx: PyLayerContext, flat: Tensor, i: int, shape: tuple, dtype: np.dtype
                  ) -> Tensor:
    """Output i of several: its slice of the flat node output (kept in ctx._slices), in
    the output's own dtype (the flat output has the widest: a float32 output beside a
    float64 one came back float64; Paddle 3.3.1 keeps float32). ctx._made keeps the node
    that hands it out."""
    piece = _take_flat(flat, ctx._diff[i], shape)
    ctx._slices[i] = weakref.ref(piece._node)
    if piece._data.dtype != dtype:
        piece = astype(piece, dtype)
    ctx._made[i] = weakref.ref(piece._node)
    return piece


def _adoptable(seq: list, i: int, made: Tensor, inputs: set) -> bool:
    """Can forward's output i itself become the recorded output `made`? Only a tensor in
    no graph (forward ran unrecorded), returned once, of made's shape and dtype, and not
    one of the `inputs` ids (one returned after ctx.mark_not_inplace comes back as a new
    tensor)."""
    t = seq[i]
    return t._node is None and t._stop_gradient and id(t) not in inputs and \
        t._data.dtype == made._data.dtype and t._data.shape == made._data.shape and \
        (len(seq) == 1 or sum(o is t for o in seq) == 1)


def _adopt(t: Tensor, made: Tensor) -> Tensor:
    """Forward's own tensor t becomes the recorded output `made` (its node and flag), as
    Paddle 3.3.1 hands back forward's tensor itself: references forward kept (ctx
    attributes, saved tensors) are then the graph's output, and a differentiable backward
    reading them differentiates through them (they were unrecorded copies: the gradient
    through them was lost)."""
    node = made._node
    t._node, t._stop_gradient = node, False
    node.out_ref = weakref.ref(t)
    node.versions = node.versions[:-1] + (t._version,)
    return t


def _link_saved_outputs(ctx: PyLayerContext, seq: list, own: list, adopted: list,
                        node: tape.Node) -> None:
    """Saved tensors that are forward's own outputs are read back through the node as its
    recorded outputs (ctx._recorded_output): differentiable with create_graph=True, and
    with the recorded values if the output is changed in place later. An adopted one is
    not kept by ctx (it holds the node, which holds ctx); the node is held weakly."""
    saved = ctx._saved
    ctx._saved_outputs = {k: i for k, s in enumerate(saved) for i in own if s is seq[i]}
    if ctx._saved_outputs:
        ctx._node_ref = weakref.ref(node)
        ctx._saved = tuple(None if ctx._saved_outputs.get(k) in adopted else s
                           for k, s in enumerate(saved))


def _opdef(cls: type) -> OpDef:
    """One unregistered OpDef per PyLayer subclass (named after it for graph dumps)."""
    op = cls.__dict__.get("_jitgrad_op")
    if op is None:
        op = OpDef(_snake(cls.__name__), _no_forward, _vjp, node_call.lower, nin=-1,
                   doc=f"PyLayer {cls.__qualname__}",
                   extra={"py_layer": cls, "node_call": _run_summed,
                          "uncacheable": "a PyLayer (its backward is user code)"})
        cls._jitgrad_op = op
    return op


def _snake(name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return out or "py_layer"


def _no_forward(*_: Any, **__: Any) -> Any:
    raise RuntimeError("a PyLayer node is created by PyLayer.apply, not by apply()")


def _vjp(g: Tensor, out: Tensor, *inputs: Tensor, ctx: PyLayerContext) -> list:
    return _backward(ctx, g, inputs, None)


def run_node(node: tape.Node, g: Tensor, reached: Any) -> list:
    """The node's input gradients (None: no gradient) from its output gradient `g`.
    `reached` holds the ids of the nodes this backward visits (the outputs it does not
    reach get zeros or None)."""
    return _backward(node.attrs["ctx"], g, node.inputs, reached)


def _run_summed(node: tape.Node, g: Tensor, reached: Any) -> list:
    """run_node inside a compiled Program (compile/node_call.py): each gradient summed to
    its input's shape."""
    return [None if r is None else sum_to(r, t._data.shape)
            for r, t in zip(run_node(node, g, reached), node.inputs)]


def _backward(ctx: PyLayerContext, g: Tensor, inputs: tuple, reached: Any) -> list:
    cls = ctx._cls
    try:
        res = cls.backward(ctx, *_output_grads(ctx, g, reached))
    except Exception as e:
        _name_the_layer(e, cls)
        raise
    grads = input_grads(cls.__name__, res, ctx._slots, ctx.needs_input_grad)
    out: list = []
    for i, (r, t) in enumerate(zip(grads, inputs)):
        if r is not None and r._data.shape != t._data.shape:
            if r._data.size != t._data.size:
                raise ValueError(f"{cls.__name__}.backward returned shape {list(r.shape)} "
                                 f"for input {i} of shape {list(t.shape)}")
            r = r.reshape(t.shape)
        if r is not None and r._data.dtype != t._data.dtype:
            _note_arrival(t, r._data.dtype)
        out.append(r)
    return out


def _note_arrival(t: Tensor, dtype: np.dtype) -> None:
    """A gradient of another dtype than t's is on its way to t: if t is a PyLayer's output
    whose ctx keeps arriving dtypes (set_grad_in_dtype_consistent(False)), its backward gets
    the gradient in that dtype (jitgrad's accumulation casts to t's dtype on the way)."""
    node = t._node
    if node is None:
        return
    if "py_layer" in node.op.extra:                 # its single differentiable output
        ctx = node.attrs["ctx"]
        pos = next(i for i, idx in ctx._diff.items() if idx is None)
    else:
        piece = node
        if node.op.name == "cast" and node.inputs[0]._node is not None:
            piece = node.inputs[0]._node            # (a slice cast to its output's dtype)
        if piece.op.name != "take_flat" or piece.inputs[0]._node is None or \
                "py_layer" not in piece.inputs[0]._node.op.extra:
            return
        ctx = piece.inputs[0]._node.attrs["ctx"]
        pos = next((i for i, ref in ctx._made.items() if ref() is node), None)
    if not ctx.grad_in_dtype_consistent and pos is not None:
        ctx._arrived[pos] = dtype


def _output_grads(ctx: PyLayerContext, g: Tensor, reached: Any) -> list:
    """One gradient per Tensor output, in order: a slice of the flat `g`, or zeros (None
    without materialize_grads) for outputs with no gradient."""
    grads = []
    for i, shape, dtype in ctx._outputs:
        gi = None
        if i in ctx._diff:
            idx = ctx._diff[i]
            if idx is None:
                gi = g
            else:
                node = ctx._slices[i]()
                if reached is None or (node is not None and id(node) in reached):
                    gi = _take_flat(g, idx, shape)
        arrived = ctx._arrived.pop(i, None)
        if gi is None:
            if ctx.materialize_grads:
                gi = Tensor._make(np.zeros(shape, dtype))
        elif ctx.grad_in_dtype_consistent and gi._data.dtype != dtype:
            gi = astype(gi, dtype)
        elif arrived is not None:
            gi = astype(gi, arrived)
        grads.append(gi)
    return grads


def _name_the_layer(e: Exception, cls: type) -> None:
    """Say in an exception from a PyLayer's backward which one raised it (Paddle's words),
    keeping its type: it surfaces from deep inside a backward."""
    head = f"Error message in backward of PyLayer {cls.__qualname__}"
    if e.args and isinstance(e.args[0], str) and "Error message in backward of" not in \
            e.args[0]:
        e.args = (f"{head}: {e.args[0]}",) + e.args[1:]
