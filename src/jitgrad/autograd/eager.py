"""The eager backward: each node's rule runs in jitgrad ops, recording a new tape.

It serves create_graph=True (the gradients can be differentiated again) and is a third
opinion in tests (testing.py). Hooks, PyLayer backwards and the zero-gradient links of
grad_links.py run inline here; the compiled path (compile/executor.py) runs them as
callbacks instead.
"""

from __future__ import annotations

import sys

import numpy as np

from ..core import grad_mode, hooks, tape
from ..core.grad_store import detach_graph_grad, graph_grad, set_graph_grad
from ..core.tensor import Tensor
from ..ops.core import out_tensor, sum_to
from ..ops.elementwise import astype
from . import grad_links, py_layer


def eager_gradients(roots: list[Tensor], seeds: list[Tensor | None],
                    targets: list | None = None, stop: set[int] | None = None,
                    create_graph: bool = False, retained: dict | None = None
                    ) -> dict[int, Tensor]:
    """Run each op's vjp rule in jitgrad ops; returns {id(tensor): gradient}.

    targets None means backward(): the result holds the leaves' gradients, after their
    hooks. Otherwise it holds the targets' gradients (Paddle's grad()): a non-leaf target's
    hooks run and its result is the hooked gradient; a leaf's hooks and a root's do not run
    (measured on Paddle 3.3.1). Hooks on interior tensors change what flows upstream either
    way. `retained`, when given, receives {id(t): (t, gradient)} for non-leaves that called
    retain_grads(), targets included.
    """
    plan = tape.Plan(roots, targets, stop)
    tape.check_not_freed(plan.nodes)
    key = lambda t: id(t._node) if t._node is not None else id(t)    # noqa: E731
    grads: dict[int, Tensor] = {}
    wanted: dict[int, Tensor] = {}
    kept: dict[int, Tensor] = {}          # node id -> the gradient at its RETAIN marker
    hooked: dict[int, Tensor] = {}        # node id -> its gradient after its hooks

    def add(t: Tensor, g: Tensor) -> None:
        if g._data.dtype != t._data.dtype:
            g = astype(g, t._data.dtype)
        k = key(t)
        grads[k] = g if k not in grads else grads[k] + g
        if plan.is_target(t) or (t._retain and t._node is not None):
            wanted[k] = t

    with grad_mode.set_grad_enabled(create_graph), tape.recording_from(sys._getframe(1)):
        for r, s in zip(roots, seeds):
            seed = Tensor._make(np.ones_like(r._data)) if s is None else \
                Tensor._make(s._data.reshape(r._data.shape).astype(r._data.dtype))
            if s is not None and not s._stop_gradient:
                seed = s if s._data.shape == r._data.shape and s._data.dtype == r._data.dtype \
                    else astype(s.reshape(r.shape), r._data.dtype)
            add(r, seed)
        any_hooks = hooks.any_node_hooks()
        for node in plan.nodes:
            g = grads.get(id(node))
            if g is None:
                continue
            chain = hooks.node_chain(node) if any_hooks else None
            if chain is not None and chain.has_hooks:
                g, kept[id(node)] = hooks.apply_chain(chain, g)
                hooked[id(node)] = g
            carries = [plan.carries(t, need) for t, need in zip(node.inputs, node.needs)]
            py = "py_layer" in node.op.extra
            if py:
                contribs = py_layer.run_node(node, g, plan.useful)
            else:
                contribs = node.op.vjp(g, out_tensor(node), *node.inputs, **node.attrs)
                if create_graph:
                    contribs = grad_links.tie(node, contribs, carries)
            for t, c, carry in zip(node.inputs, contribs, carries):
                if not carry:
                    continue
                if c is not None:
                    add(t, sum_to(c, t._data.shape))
                elif not py and key(t) not in grads:    # (a PyLayer's None: no gradient)
                    add(t, Tensor._make(np.zeros_like(t._data)))
        found: dict[int, Tensor] = {}
        root_ids = {id(r) for r in roots}
        for k, t in wanted.items():
            g = grads[k]
            if t._node is not None:
                target = targets is not None and id(t) in plan.target_ids
                inner = id(t) not in root_ids
                if target and inner and k not in hooked:     # grad() of a hooked input
                    chain = hooks.node_chain(t._node)
                    if chain is not None and chain.has_hooks:
                        hooked[k], kept[k] = hooks.apply_chain(chain, g)
                if t._retain and retained is not None:
                    retained[id(t)] = (t, kept.get(k, g))
                if not target:
                    continue
                if inner:
                    g = hooked.get(k, g)
            elif targets is None:           # backward(): leaf hooks, on the summed gradient
                chain = hooks.chain_of(t)
                if chain is not None and chain.has_hooks:
                    g = hooks.apply_chain(chain, g)[0]
            found[id(t)] = g
    return found


def eager_backward(roots: list[Tensor], seeds: list[Tensor | None], retain_graph: bool,
                   create_graph: bool) -> None:
    plan_nodes = tape.Plan(roots).nodes
    retained: dict = {}
    grads = eager_gradients(roots, seeds, create_graph=create_graph, retained=retained)
    leaves = {id(t): t for t in _targets_of(roots, plan_nodes) if t._node is None}
    for tid, g in grads.items():
        t = leaves.get(tid)
        if t is not None:
            accumulate_leaf(t, g, create_graph)
    for t, g in retained.values():
        detach_graph_grad(t)
        t._grad = np.array(g._data, dtype=t._data.dtype, copy=True)
    if not retain_graph:
        tape.free_nodes(plan_nodes)


def accumulate_leaf(t: Tensor, g: Tensor, create_graph: bool) -> None:
    """Leaf .grad += g; with create_graph the sum stays differentiable (torch-like)."""
    if not create_graph or g._node is None:
        if t._grad is None:
            t._grad = np.array(g._data, dtype=t._data.dtype, copy=True)
        else:
            detach_graph_grad(t)
            np.add(t._grad, g._data, out=t._grad, casting="unsafe")
        return
    old = graph_grad(t)
    if old is None and t._grad is not None:
        old = Tensor._make(t._grad.copy())
    set_graph_grad(t, g if old is None else old + g)


def _targets_of(roots: list[Tensor], nodes: list[tape.Node]) -> list[Tensor]:
    seen: dict[int, Tensor] = {id(r): r for r in roots}
    for node in nodes:
        for t in node.inputs:
            seen.setdefault(id(t), t)
    return list(seen.values())
