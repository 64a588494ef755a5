"""The interpret state: a graph the executor does not lower runs its rules on arrays, node
by node (eager.node_gradients with on_arrays), and its results are delivered here.

Lowering a new structure into a Program costs about twice a small graph's whole backward
in torch, and pays off only when the structure comes back. Many do not: a notebook's cells,
a loop whose shapes vary, a saliency map per image size. So the executor
(compile/executor.py) interprets a cacheable structure's first non-retained backward and
lowers it when it recurs: a structure pays for its Program once it has shown that it
repeats. A graph that can never share a Program (hooks, retain_grads(), PyLayer, saved
tensor hooks) is interpreted at every non-retained backward: lowering it each time would
cost more than the rules themselves. A retained graph is lowered (its replay is the point).
"""

from __future__ import annotations

import numpy as np

from ..compile.binding import RUN_LOCK
from ..compile.graph import Graph
from ..core import tape
from ..core.grad_store import deliver_grad
from ..core.tensor import Tensor
from .eager import node_gradients


def _plan(graph: Graph, roots: list, targets: list | None, stop: set | None) -> tape.Plan:
    # (the graph's walk numbered exactly the nodes the roots reach, all roots needing
    # gradients: the Plan needs no second walk)
    free_roots = all(not r._stop_gradient for r in roots)
    return tape.Plan(roots, targets, stop, reachable=graph.nodes if free_roots else None)


def backward(graph: Graph, roots: list, seeds: list) -> None:
    """backward() interpreted: leaves' .grad accumulate (Paddle), retain_grads() tensors get
    theirs, then the graph is freed."""
    plan = _plan(graph, roots, None, None)
    retained: dict = {}
    found = node_gradients(roots, seeds, retained=retained, on_arrays=True, plan=plan)
    with RUN_LOCK:
        for t, g in found.values():         # (the leaves)
            deliver_grad(t, g, "leaf")
        for t, g in retained.values():
            deliver_grad(t, g, "retain")
    # (a plan that rewired an input to an in-place op's stand-in reaches other nodes)
    tape.free_nodes(plan.nodes if plan.rewired else graph.nodes)


def grad(graph: Graph, roots: list, seeds: list, targets: list, stop: set | None
         ) -> dict[int, Tensor]:
    """grad() interpreted: {id(target): a new gradient tensor}; retain_grads() tensors get
    theirs; the graph stays (Paddle 3.3.1)."""
    retained: dict = {}
    found = node_gradients(roots, seeds, targets, stop, retained=retained, on_arrays=True,
                           plan=_plan(graph, roots, targets, stop))
    for t, g in retained.values():
        deliver_grad(t, g, "retain")
    # (np.array: a 0-d gradient from the numpy rules may be a numpy scalar)
    return {k: Tensor._make(np.array(g, dtype=t._data.dtype, copy=True))
            for k, (t, g) in found.items()}
