"""The backward front door: argument checks, the compiled and eager paths, retained graphs.

`backward()` runs the graph's Program in the compiled interpreter (executor.py decides
whether to replay, bind a cached Program or lower a new one). With retain_graph=True the
graph keeps its Binding, so a repeat call writes the seeds, makes one compiled call and
reads the leaf gradients: no Python runs per node (hooks and PyLayer backwards are the
exception: they run as callbacks between Program segments).
With create_graph=True the gradient rules run eagerly in jitgrad ops instead, recording a
new tape that can be differentiated again. `grad()` uses the same two paths with explicit
targets and returns their gradients instead of accumulating into `.grad`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..compile import executor
from ..compile.executor import replay_retained, run_plain
from ..core.errors import ArgumentTypeError, ArgumentValueError, NotSupportedError
from ..core.grad_store import deliver_grad
from ..core.hooks import DUE, run_due
from ..core.tensor import Tensor
from ..ops import siblings
from .eager import eager_backward, eager_gradients


# ---- argument checks (Paddle uses asserts; we raise errors a user can act on, which are
# ---- AssertionErrors too: errors.py) -----------------------------------------------------

def check_tensors(tensors: Any, what: str = "tensors") -> list[Tensor]:
    if isinstance(tensors, Tensor):
        return [tensors]
    if not isinstance(tensors, (list, tuple)):
        raise ArgumentTypeError(f"{what} must be a Tensor or a list/tuple of Tensors, got "
                                f"{type(tensors).__name__}")
    if not tensors:
        raise ArgumentValueError(f"{what} is empty: pass at least one Tensor")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"{what}[{i}] must be a Tensor, got {type(t).__name__}")
    if len({id(t) for t in tensors}) != len(tensors):
        raise ArgumentValueError(f"{what} contains the same Tensor twice; pass each Tensor "
                                 "once")
    return list(tensors)


def check_float_roots(roots: list[Tensor], what: str = "tensors") -> None:
    """Integer and bool tensors carry no gradient: a backward from one would silently do
    nothing (Paddle either does nothing or fails later), so say so."""
    for i, r in enumerate(roots):
        if r._data.dtype.kind != "f":
            raise TypeError(f"{what}[{i}] has dtype {r.dtype.name}: gradients flow only from "
                            "float tensors (an integer or bool result has no derivative); "
                            "compute the value to differentiate in float")


def check_seeds(grad_tensors: Any, roots: list[Tensor], what: str = "grad_tensors"
                ) -> list[Tensor | None]:
    if grad_tensors is None or (isinstance(grad_tensors, (list, tuple)) and
                                not grad_tensors):      # [] means none, as in Paddle
        return [None] * len(roots)
    if isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    if not isinstance(grad_tensors, (list, tuple)):
        raise ArgumentTypeError(f"{what} must be None, a Tensor or a list/tuple of Tensors "
                                f"and None, got {type(grad_tensors).__name__}")
    if len(grad_tensors) != len(roots):
        raise ArgumentValueError(f"{what} has {len(grad_tensors)} entries but there are "
                                 f"{len(roots)} output tensors; the lengths must be equal")
    for i, (g, r) in enumerate(zip(grad_tensors, roots)):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise ArgumentTypeError(f"{what}[{i}] must be a Tensor or None, got "
                                    f"{type(g).__name__}")
        if g._data.size != r._data.size:
            raise ArgumentValueError(f"{what}[{i}] has {g._data.size} elements (shape "
                                     f"{list(g.shape)}) but its output has {r._data.size} "
                                     f"(shape {list(r.shape)})")
        gs, rs = g._data.shape, r._data.shape
        if gs != rs and [n for n in gs if n != 1] != [n for n in rs if n != 1]:
            # (same size, other layout: a [3, 2] seed for a [2, 3] output would be read
            # row by row as if it were [2, 3]; dims of size 1 may differ: [1] for a 0-d loss)
            raise ArgumentValueError(f"{what}[{i}] has shape {list(gs)} but its output has "
                                     f"shape {list(rs)}; they must match")
    # an int or bool seed is cast to its output's dtype, as Paddle does
    return [g if g is None or g._data.dtype.kind == "f" else
            Tensor._make(g._data.astype(r._data.dtype)) for g, r in zip(grad_tensors, roots)]


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# ---- the compiled path: executor.py --------------------------------------------------------

# ---- public API ------------------------------------------------------------------------------

def backward(tensors: Tensor | Sequence[Tensor],
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False, *,
             dump_backward_graph_path: str | None = None) -> None:
    """Compute gradients of `tensors` and accumulate them into the leaves' `.grad`.

    Args:
        tensors: a Tensor or a list/tuple of distinct Tensors.
        grad_tensors: seeds, one per tensor; None (or a None entry) means ones. A seed may
            have any shape with the same number of elements as its tensor.
        retain_graph: keep the graph (and its lowered program) for another backward.
            None (the default) means False, or True with create_graph.
        create_graph: record the backward itself with jitgrad ops, so that `.grad` can be
            differentiated again (an extension: Paddle 3.3.1 lacks it, torch has it).
        dump_backward_graph_path: a directory to write debugging files into.

    Example:
        >>> import jitgrad as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
        >>> y = paddle.to_tensor([[3., 2.], [3., 4.]])
        >>> z = paddle.matmul(x, y)
        >>> paddle.autograd.backward(z, paddle.to_tensor([[1., 2.], [2., 3.]]))
        >>> x.grad.tolist()
        [[7.0, 11.0], [12.0, 18.0]]
    """
    roots = check_tensors(tensors)
    check_float_roots(roots)
    seeds = check_seeds(grad_tensors, roots)
    create_graph = check_flag(create_graph, "create_graph")
    retain_graph = check_flag(create_graph if retain_graph is None else retain_graph,
                              "retain_graph")
    live = [(r, s) for r, s in zip(roots, seeds) if not r._stop_gradient]
    if dump_backward_graph_path is not None:
        from .debug import dump_backward_graph
        dump_backward_graph(dump_backward_graph_path, [r for r, _ in live])
    if not live:
        return                                  # no gradient path: a silent no-op, as Paddle
    roots, seeds = [r for r, _ in live], [s for _, s in live]
    try:
        if create_graph:
            eager_backward(roots, seeds, retain_graph, create_graph=True)
        else:
            executor.run_backward(roots, seeds, retain_graph)
    except BaseException:
        DUE.fns.clear()             # a failed backward's queued hooks never run
        raise
    siblings.fill(roots)
    if DUE.fns:
        run_due()               # Tensor._register_backward_hook's hooks, after accumulation


def tensor_backward(self: Tensor, grad_tensor: Tensor | None = None,
                    retain_graph: bool | None = None, create_graph: bool = False, *,
                    dump_backward_graph_path: str | None = None) -> None:
    """`Tensor.backward`: backward from this tensor; the seed must have exactly its shape.

    create_graph=True records the backward so that `.grad` can be differentiated again;
    retain_graph then defaults to True (it defaults to False otherwise).
    """
    if grad_tensor is None and create_graph is False and dump_backward_graph_path is None:
        if retain_graph is None or retain_graph is False:
            if not self._stop_gradient and self._data.dtype.kind == "f":
                try:
                    run_plain(self)     # what autograd.backward does after its checks
                except BaseException:
                    DUE.fns.clear()
                    raise
                siblings.fill([self])
                if DUE.fns:
                    run_due()
                return
        elif retain_graph is True and replay_retained(self):
            if DUE.fns:
                run_due()
            return                      # a retained graph's replay (executor.py)
    if grad_tensor is not None:
        if not isinstance(grad_tensor, Tensor):
            raise ArgumentTypeError(f"grad_tensor must be a Tensor or None, got "
                                    f"{type(grad_tensor).__name__}")
        if grad_tensor._data.shape != self._data.shape:
            raise ArgumentValueError(f"grad_tensor shape {list(grad_tensor.shape)} does not "
                                     f"match the tensor's shape {list(self.shape)}")
    backward([self], None if grad_tensor is None else [grad_tensor], retain_graph,
             create_graph, dump_backward_graph_path=dump_backward_graph_path)


Tensor.backward = tensor_backward      # attached here: the core never imports autograd


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool = False,
         no_grad_vars: Tensor | Sequence[Tensor] | set | None = None, *,
         dump_backward_graph_path: str | None = None, batched: bool = False
         ) -> list[Tensor | None]:
    """Gradients of `outputs` with respect to `inputs`, returned as a list.

    `batched=True` (a jitgrad extension) takes K cotangents at once: each grad_outputs
    entry has a leading axis of K (None: ones for every k) and each result gets that axis
    too. The graph's compiled Program runs K times in one call: K vector-Jacobian products
    (Jacobian rows, many cotangents) for the price of one Python call.

    Leaves' `.grad` are left alone (retained non-leaves still get theirs). Results have
    stop_gradient = not create_graph; with create_graph=True they can be differentiated
    again, to any order. An input the outputs do not reach raises ValueError unless
    allow_unused=True, which gives None for it. `no_grad_vars` are treated as constants by
    the ops that use them; an output listed there still passes on its own seed (Paddle).
    `retain_graph=None` means `create_graph`; as in Paddle 3.3.1, grad() never frees the
    graph. Hooks on interior tensors apply, and those of a non-leaf input too (its result is
    the hooked gradient); a leaf input's hooks do not run (Paddle 3.3.1, measured).

    Example (Paddle's docstring: z = y + dx backpropagates through dx only with
    create_graph=True):
        >>> import jitgrad as paddle
        >>> x = paddle.to_tensor([1.0], stop_gradient=False)
        >>> y = x * x
        >>> dx = paddle.grad(y, x, create_graph=True)[0]
        >>> (y + dx).backward()
        >>> x.grad.tolist()
        [4.0]
    """
    if grad_outputs is None and retain_graph is None and create_graph is False and \
            only_inputs is True and allow_unused is False and no_grad_vars is None and \
            dump_backward_graph_path is None and batched is False:
        root = _single_root(outputs)
        if root is not None:            # the common call: what follows, without the checks
            ins = _distinct(inputs, "inputs")   # that cannot fail for it
            found = executor.grad_plain(root, ins)
            siblings.fill([root])
            return _results(ins, found, False, False)
    outs = _distinct(outputs, "outputs")
    ins = _distinct(inputs, "inputs")
    check_float_roots(outs, "outputs")
    if check_flag(batched, "batched"):
        return _batched_grad(outs, ins, grad_outputs, retain_graph, create_graph,
                             allow_unused, no_grad_vars)
    seeds = check_seeds(grad_outputs, outs, "grad_outputs")
    create_graph = check_flag(create_graph, "create_graph")
    retain_graph = check_flag(create_graph if retain_graph is None else retain_graph,
                              "retain_graph")
    if not check_flag(only_inputs, "only_inputs"):
        raise NotSupportedError("only_inputs=False is not supported (nor is it in Paddle)")
    allow_unused = check_flag(allow_unused, "allow_unused")
    stop = _no_grad_ids(no_grad_vars)
    # (an output in no_grad_vars still gives its seed, as Paddle: only what other outputs
    # send into it is cut)
    live = [(r, s) for r, s in zip(outs, seeds) if not r._stop_gradient]
    if dump_backward_graph_path is not None:
        from .debug import dump_backward_graph
        dump_backward_graph(dump_backward_graph_path, [r for r, _ in live], ins, stop)
    found: dict[int, Tensor] = {}
    if live:
        roots, seeds = [r for r, _ in live], [s for _, s in live]
        if create_graph:
            retained: dict = {}
            found = eager_gradients(roots, seeds, ins, stop, create_graph=True,
                                    retained=retained)
            for t, g in retained.values():
                deliver_grad(t, g._data, "retain")
        else:
            found = executor.run_grad(roots, seeds, ins, stop, retain_graph)
        siblings.fill(roots)
    return _results(ins, found, allow_unused, create_graph)


def _single_root(outputs: Any) -> Tensor | None:
    """grad()'s outputs when they are one float tensor needing a gradient (alone or in a
    one-element list), else None."""
    if type(outputs) is list or type(outputs) is tuple:
        if len(outputs) != 1:
            return None
        outputs = outputs[0]
    if isinstance(outputs, Tensor) and not outputs._stop_gradient and \
            outputs._data.dtype.kind == "f":
        return outputs
    return None


def _results(ins: list[Tensor], found: dict, allow_unused: bool, create_graph: bool
             ) -> list[Tensor | None]:
    """grad()'s answer list, in the order of `ins`."""
    results: list[Tensor | None] = []
    for i, x in enumerate(ins):
        g = found.get(id(x))
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input does not appear in the backward graph of the "
                             "outputs (it is not connected to them, stops gradients, or is in "
                             "no_grad_vars). Set allow_unused=True to get None for it.")
        if g is not None and create_graph and g._node is None:
            g = Tensor._make(g._data, stop_gradient=False)     # a leaf, as in Paddle
        results.append(g)
    return results


def _batched_grad(outs: list[Tensor], ins: list[Tensor], grad_outputs: Any,
                  retain_graph: bool | None, create_graph: bool, allow_unused: bool,
                  no_grad_vars: Any) -> list[Tensor | None]:
    """grad(..., batched=True): K cotangents per output along a leading axis."""
    if grad_outputs is None:
        raise ValueError("batched=True needs grad_outputs: one Tensor per output with a "
                         "leading axis of K cotangents")
    if isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if not isinstance(grad_outputs, (list, tuple)) or len(grad_outputs) != len(outs):
        raise ValueError(f"grad_outputs must hold one entry per output ({len(outs)})")
    K = None
    for i, (g, r) in enumerate(zip(grad_outputs, outs)):
        if g is None:
            continue
        if not isinstance(g, Tensor) or g._data.dtype.kind != "f":
            raise TypeError(f"grad_outputs[{i}] must be a float Tensor or None")
        if g.ndim == 0 or g._data.size != g.shape[0] * r._data.size:
            raise ValueError(f"grad_outputs[{i}] has shape {list(g.shape)}: with batched=True "
                             f"it needs a leading axis of K and then {r._data.size} elements "
                             f"(output shape {list(r.shape)})")
        if K is not None and g.shape[0] != K:
            raise ValueError(f"grad_outputs disagree on K: {K} and {g.shape[0]}")
        K = g.shape[0]
    if K is None:
        raise ValueError("batched=True needs at least one grad_outputs Tensor to give K")
    create_graph = check_flag(create_graph, "create_graph")
    if create_graph:                    # differentiable: one recorded backward per k, stacked
        from ..ops import stack
        rows = [grad(outs, ins, [None if g is None else g[k] for g in grad_outputs],
                     retain_graph=True, create_graph=True, allow_unused=True,
                     no_grad_vars=no_grad_vars) for k in range(K)]
        found = {id(x): stack([r[i] for r in rows]) for i, x in enumerate(ins)
                 if rows[0][i] is not None}
    else:
        retain = check_flag(False if retain_graph is None else retain_graph, "retain_graph")
        stop = _no_grad_ids(no_grad_vars)
        live = [(r, None if g is None else g._data) for r, g in zip(outs, grad_outputs)
                if not r._stop_gradient]
        found = {}
        if live:
            arrays = executor.run_grad_batched([r for r, _ in live], [g for _, g in live],
                                               ins, stop, retain)
            found = {k: Tensor._make(v) for k, v in arrays.items()}
    results: list[Tensor | None] = []
    for i, x in enumerate(ins):
        g = found.get(id(x))
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input does not appear in the backward graph of the "
                             "outputs. Set allow_unused=True to get None for it.")
        results.append(g)
    return results


def _distinct(tensors: Any, what: str) -> list[Tensor]:
    """grad()'s outputs/inputs: Paddle raises RuntimeError for a repeated tensor."""
    if isinstance(tensors, Tensor):
        return [tensors]
    if isinstance(tensors, (list, tuple)) and len(tensors) > 1 and \
            len({id(t) for t in tensors}) != len(tensors):
        raise RuntimeError(f"{what} contain duplicate tensor: pass each Tensor once")
    return check_tensors(tensors, what)


def _no_grad_ids(no_grad_vars: Any) -> set[int] | None:
    if no_grad_vars is None:
        return None
    if isinstance(no_grad_vars, Tensor):
        no_grad_vars = [no_grad_vars]
    if not isinstance(no_grad_vars, (list, tuple, set, frozenset)):
        raise ArgumentTypeError("no_grad_vars must be a Tensor or a list, tuple or set of "
                                f"Tensors, got {type(no_grad_vars).__name__}")
    for i, t in enumerate(no_grad_vars):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"no_grad_vars[{i}] must be a Tensor, got "
                                    f"{type(t).__name__}")
    return {id(t) for t in no_grad_vars} or None

