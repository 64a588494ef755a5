"""The node-by-node backward: each node's rule runs in turn, newest node first.

One loop serves two states:
  - create_graph=True: each rule runs in jitgrad ops (its `vjp`), recording a new tape
    that can be differentiated again; gradients are Tensors.
  - interpret (compile/executor.py's state for a graph it does not lower: a structure met
    for the first time, or one that can never share a Program, not retained): each rule
    runs on numpy arrays (OpDef.interp, derived from the op's one gradient rule; a fused
    kernel without one runs its vjp on Tensors under no_grad), as torch's engine runs its
    nodes; gradients are arrays, wrapped in Tensors only for hooks and PyLayer backwards.

Hooks, retain_grads(), PyLayer backwards and the zero-gradient links of grad_links.py run
inline here; the compiled path (compile/executor.py) runs them as callbacks instead. It is
also a third opinion in tests (testing.py).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import numpy as np

from ..core import dtypes, grad_mode, hooks, tape
from ..core.grad_store import deliver_grad, graph_grad, set_graph_grad
from ..core.quiet import quiet
from ..core.tensor import Tensor
from ..ops.core import out_tensor, sum_to, sum_to_array, vjp_on_arrays
from ..ops.elementwise import astype
from . import grad_links, py_layer

_F16 = np.dtype(np.float16)

_make = Tensor._make


def _data(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._data


_NO_SITE = contextlib.nullcontext()     # (reusable: a backward that records nothing)


class _Arrays:
    """The interpret state's values: numpy arrays (Tensors only at hooks and PyLayers)."""
    wrap = staticmethod(_make)
    unwrap = staticmethod(_data)
    sum_to = staticmethod(sum_to_array)

    @staticmethod
    def cast(g: np.ndarray, dtype: np.dtype) -> np.ndarray:
        if dtype == _F16:       # (through float32, as Paddle: dtypes.to_dtype_array)
            return dtypes.to_dtype_array(g, dtype)
        return g.astype(dtype)

    # (np.zeros / np.ones by shape and dtype: the *_like functions are Python-level
    # wrappers, ~1 us more on a small array)
    @staticmethod
    def zeros(t: Tensor) -> np.ndarray:
        d = t._data
        return np.zeros(d.shape, d.dtype)

    @staticmethod
    def seed(r: Tensor, s: Tensor | None) -> np.ndarray:
        d = r._data
        return np.ones(d.shape, d.dtype) if s is None else \
            s._data.reshape(d.shape).astype(d.dtype)


class _Tensors:
    """create_graph's values: Tensors, recorded."""
    wrap = unwrap = staticmethod(lambda t: t)
    sum_to = staticmethod(sum_to)
    cast = staticmethod(astype)

    @staticmethod
    def zeros(t: Tensor) -> Tensor:
        return _make(np.zeros_like(t._data))

    @staticmethod
    def seed(r: Tensor, s: Tensor | None) -> Tensor:
        if s is None:
            return _make(np.ones_like(r._data))
        if not s._stop_gradient:        # a seed needing a gradient stays in the graph
            return s if s._data.shape == r._data.shape and s._data.dtype == r._data.dtype \
                else astype(s.reshape(r.shape), r._data.dtype)
        return _make(s._data.reshape(r._data.shape).astype(r._data.dtype))


@quiet           # (nan and inf pass silently, as in the compiled kernels and in Paddle)
def node_gradients(roots: list[Tensor], seeds: list[Tensor | None],
                   targets: list | None = None, stop: set[int] | None = None,
                   create_graph: bool = False, retained: dict | None = None,
                   on_arrays: bool = False, plan: tape.Plan | None = None
                   ) -> dict[int, tuple[Tensor, Any]]:
    """Run each node's rule; returns {id(tensor): (tensor, gradient)}, gradients as arrays
    with `on_arrays`, else as Tensors (`create_graph` records them, and needs Tensors).

    targets None means backward(): the result holds the leaves' gradients, after their
    hooks. Otherwise it holds the targets' gradients (Paddle's grad()): a non-leaf target's
    hooks run and its result is the hooked gradient, the one its inputs receive; a leaf's
    hooks do not run, nor a root's whose gradient is only its seed (measured on Paddle
    3.3.1; a root fed by other outputs too, grad([y * 2, y], [y, x]), returns the hooked
    gradient, as Paddle does, and so with [y] alone, as torch does). Hooks on interior tensors change what flows upstream either
    way. `retained`, when given, receives {id(t): (t, gradient)} for non-leaves that called
    retain_grads(), targets included. `plan`: this call's tape.Plan, when the caller made
    it already.
    """
    V = _Arrays if on_arrays else _Tensors
    wrap, unwrap, sum_to_, cast, zeros = V.wrap, V.unwrap, V.sum_to, V.cast, V.zeros
    if plan is None:
        plan = tape.Plan(roots, targets, stop)
    tape.check_not_freed(plan.nodes)
    useful, tids = plan.useful, plan.target_ids
    grads: dict[int, Any] = {}
    wanted: dict[int, Tensor] = {}
    kept: dict[int, Any] = {}             # node id -> the gradient at its RETAIN marker
    hooked: dict[int, Any] = {}           # node id -> its gradient after its hooks
    fed: set[int] = set()                 # grad(): targets reached from another node

    def add(t: Tensor, g: Any) -> None:
        d = t._data
        if (g if on_arrays else g._data).dtype != d.dtype:
            g = cast(g, d.dtype)
        n = t._node
        k = id(t) if n is None else id(n)
        old = grads.get(k)
        grads[k] = g if old is None else old + g
        # (a target, or a non-leaf that called retain_grads())
        if (n is None if tids is None else id(t) in tids) or (t._retain and n is not None):
            wanted[k] = t

    # (only a create_graph backward records: its nodes take the user's call as their site)
    site = tape.recording_from(sys._getframe(1)) if create_graph else _NO_SITE
    with grad_mode.set_grad_enabled(create_graph), site:
        for r, s in zip(roots, seeds):
            add(r, V.seed(r, s))
        any_hooks = hooks.any_node_hooks()
        for node in plan.nodes:
            g = grads.get(id(node))
            if g is None:
                continue
            if any_hooks:
                chain = hooks.node_chain(node)
                if chain is not None and chain.has_hooks:
                    gt, kt = hooks.apply_chain(chain, wrap(g))
                    g, kept[id(node)] = unwrap(gt), unwrap(kt)
                    if tids is not None:        # (read only for grad()'s targets)
                        hooked[id(node)] = g
            ins = node.inputs
            # (plan.carries, inlined: which inputs the gradient flows into)
            want = []
            for t, need in zip(ins, node.needs):
                if not need or (stop is not None and id(t) in stop):
                    want.append(False)
                    continue
                n = t._node
                target = (n is None or bool(t._retain)) if tids is None else id(t) in tids
                want.append(target or (n is not None and id(n) in useful))
            op = node.op
            py = False
            if on_arrays and op.interp is not None:     # (the common case first)
                contribs = op.interp(node, g, tuple(want))
            elif "py_layer" in op.extra:
                py = True
                contribs = [unwrap(c) for c in py_layer.run_node(node, wrap(g), useful)]
            elif on_arrays:
                contribs = vjp_on_arrays(node, g, tuple(want))
            else:
                tape.check_rule_reads(node)
                contribs = op.vjp(g, out_tensor(node), *ins, **node.attrs)
                if create_graph:
                    contribs = grad_links.tie(node, contribs, want)
            for t, c, carry in zip(ins, contribs, want):
                if not carry:
                    continue
                if tids is not None and id(t) in tids:
                    fed.add(id(t))
                if c is not None:
                    d = t._data
                    add(t, c if (c if on_arrays else c._data).shape == d.shape else
                        sum_to_(c, d.shape))
                elif not py and (id(t) if t._node is None else id(t._node)) not in grads:
                    add(t, zeros(t))                # (a PyLayer's None: no gradient)
            if id(node) not in wanted:      # passed on: free it now, not at the end (a
                del grads[id(node)]         # long graph's peak memory stays one gradient)
        found: dict[int, tuple[Tensor, Any]] = {}
        root_ids = {id(r) for r in roots} if kept or tids is not None else ()
        for k, t in wanted.items():
            g = grads[k]
            if t._node is not None:
                target = tids is not None and id(t) in tids
                inner = id(t) not in root_ids or id(t) in fed
                if target and inner and k not in hooked:     # grad() of a hooked input
                    chain = hooks.node_chain(t._node)
                    if chain is not None and chain.has_hooks:
                        gt, kt = hooks.apply_chain(chain, wrap(g))
                        hooked[k], kept[k] = unwrap(gt), unwrap(kt)
                if t._retain and retained is not None:
                    retained[id(t)] = (t, kept.get(k, g))
                if not target:
                    continue
                if inner:
                    g = hooked.get(k, g)
            elif tids is None:              # backward(): leaf hooks, on the summed gradient
                chain = t._hooks
                if chain is not None and chain.has_hooks:
                    g = unwrap(hooks.apply_chain(chain, wrap(g))[0])
            found[id(t)] = (t, g)
    return found


def eager_gradients(roots: list[Tensor], seeds: list[Tensor | None],
                    targets: list | None = None, stop: set[int] | None = None,
                    create_graph: bool = False, retained: dict | None = None
                    ) -> dict[int, Tensor]:
    """node_gradients on Tensors: {id(tensor): gradient Tensor}."""
    found = node_gradients(roots, seeds, targets, stop, create_graph, retained)
    return {k: g for k, (_, g) in found.items()}


def eager_backward(roots: list[Tensor], seeds: list[Tensor | None], retain_graph: bool,
                   create_graph: bool) -> None:
    plan = tape.Plan(roots)
    retained: dict = {}
    found = node_gradients(roots, seeds, create_graph=create_graph, retained=retained,
                           plan=plan)
    for t, g in found.values():             # (backward(): the leaves)
        accumulate_leaf(t, g, create_graph)
    for t, g in retained.values():
        deliver_grad(t, g._data, "retain")
    if not retain_graph:
        tape.free_nodes(plan.nodes)


def accumulate_leaf(t: Tensor, g: Tensor, create_graph: bool) -> None:
    """Leaf .grad += g; with create_graph the sum stays differentiable (torch-like)."""
    if not create_graph or g._node is None:
        deliver_grad(t, g._data, "leaf")
        return
    old = graph_grad(t)
    if old is None and t._grad is not None:
        old = Tensor._make(t._grad.copy())
    set_graph_grad(t, g if old is None else old + g)

