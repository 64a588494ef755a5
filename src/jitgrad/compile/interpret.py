"""The interpret state: a graph structure met for the first time runs its gradient rules on
numpy arrays, node by node, instead of being lowered.

Lowering a new structure into a Program costs about twice a small graph's whole backward
in torch, and pays off only when the structure comes back. Many do not: a notebook's cells,
a loop whose shapes vary, a saliency map per image size. So the executor (executor.py)
interprets a cacheable structure's first non-retained backward here and lowers it when it
recurs: a structure pays for its Program once it has shown that it repeats.

Only graphs with a key come here (graph.py refuses hooks, retain_grads() and PyLayer
nodes), so the loop needs none of eager.py's hook handling. Each op's rule on arrays is
derived from its one gradient rule (OpDef.interp: derivative.py, linear.py, reduce.py);
an op without one runs its Tensor vjp under no_grad. Gradients leave as new arrays: a
contribution may be a view of another's, but nothing here writes into one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import grad_mode, tape
from ..core.grad_store import deliver_grad
from ..core.quiet import quiet
from ..core.tensor import Tensor
from .binding import RUN_LOCK
from .graph import Graph

_make = Tensor._make


def sum_to_array(g: np.ndarray, shape: tuple) -> np.ndarray:
    """A contribution at the output's broadcast shape summed back to its input's shape (ops'
    sum_to, on an array)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _tensor_rule(node: Any, g: np.ndarray, want: tuple) -> tuple:
    """An op without an array rule: its vjp on Tensors (grad mode is off around the loop)."""
    from ..ops.core import out_tensor
    cs = node.op.vjp(_make(g), out_tensor(node), *node.inputs, **node.attrs)
    return tuple([None if c is None or not w else c._data for c, w in zip(cs, want)])


@quiet           # (nan and inf pass silently, as in the compiled kernels and in Paddle)
def gradients(graph: Graph, roots: list, seeds: list, targets: list | None,
              stop: set | None) -> dict[int, tuple[Tensor, np.ndarray]]:
    """{key: (tensor, gradient)} for every tensor whose gradient leaves the backward: the
    leaves needing one (targets None) or the targets (grad())."""
    free_roots = all(not r._stop_gradient for r in roots)
    plan = tape.Plan(roots, targets, stop, reachable=graph.nodes if free_roots else None)
    tape.check_not_freed(plan.nodes)
    useful, tids = plan.useful, plan.target_ids
    grads: dict[int, np.ndarray] = {}
    wanted: dict[int, Tensor] = {}

    # (Plan.is_target and Plan.carries, inlined: a graph with a key has no retain_grads()
    # tensor, so for backward() the targets are exactly the leaves)
    def add(t: Tensor, g: np.ndarray) -> None:
        d = t._data
        if g.dtype != d.dtype:
            g = g.astype(d.dtype)
        n = t._node
        k = id(t) if n is None else id(n)
        old = grads.get(k)
        grads[k] = g if old is None else old + g
        if (n is None) if tids is None else id(t) in tids:
            wanted[k] = t

    for r, s in zip(roots, seeds):
        d = r._data
        add(r, np.ones_like(d) if s is None else s._data.reshape(d.shape).astype(d.dtype))
    with grad_mode.set_grad_enabled(False):
        for node in plan.nodes:
            g = grads.get(id(node))
            if g is None:
                continue
            ins = node.inputs
            want = []
            for t, need in zip(ins, node.needs):
                if not need or (stop is not None and id(t) in stop):
                    want.append(False)
                    continue
                n = t._node
                want.append((n is None or id(n) in useful) if tids is None else
                            (id(t) in tids or (n is not None and id(n) in useful)))
            want = tuple(want)
            rule = node.op.interp or _tensor_rule
            for t, c, w in zip(ins, rule(node, g, want), want):
                if not w:
                    continue
                d = t._data
                if c is not None:
                    add(t, c if c.shape == d.shape else sum_to_array(c, d.shape))
                elif (id(t) if t._node is None else id(t._node)) not in grads:
                    add(t, np.zeros_like(d))
    return {k: (t, grads[k]) for k, t in wanted.items()}


def backward(graph: Graph, roots: list, seeds: list) -> None:
    """backward() interpreted: leaves' .grad accumulate (Paddle), then the graph is freed."""
    found = gradients(graph, roots, seeds, None, None)
    with RUN_LOCK:
        for t, g in found.values():
            if t._grad is None:
                t._grad = g.astype(t._data.dtype, copy=True)
            else:
                deliver_grad(t, g, "leaf")
    tape.free_nodes(graph.nodes)


def grad(graph: Graph, roots: list, seeds: list, targets: list, stop: set | None
         ) -> dict[int, Tensor]:
    """grad() interpreted: {id(target): a new gradient tensor}; the graph stays."""
    found = gradients(graph, roots, seeds, targets, stop)
    return {id(t): _make(g.astype(t._data.dtype, copy=True)) for t, g in found.values()}
