"""Hooks inside a compiled Program: where lowering places them and the callbacks that run them.

A tensor's hook chain (core/hooks.py) is user Python, so the Program breaks into segments
around it: `lower_break` and `lower_targets` place the breakpoints while lowering, a
Program records each as a pure-data spec (`slot_hook_spec`), and a Binding turns the spec
back into a `SlotHook` callback for its own graph (`make_slot_hook`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.hooks import HookChain, apply_chain, chain_of, node_chain
from ..core.tensor import Tensor
from ..vm.program import OP


def slot_hook_spec(owner: tuple, src: int, dst: int, shape: tuple, dtype: Any,
                   retain: int | None = None) -> tuple:
    """A Program's record of a SlotHook (pure data): `owner` is ("node", k) for hooks on
    node k's output, or ("leaf", tensor ref) for a leaf's (graph.Graph.tensor)."""
    return ("hook", owner, int(src), int(dst), tuple(int(s) for s in shape),
            np.dtype(dtype).str, -1 if retain is None else int(retain))


def make_slot_hook(spec: tuple, graph: Any) -> "SlotHook":
    """The callback a spec from slot_hook_spec stands for, in `graph`."""
    _, owner, src, dst, shape, dtype, retain = spec
    chain = node_chain(graph.nodes[owner[1]]) if owner[0] == "node" else \
        chain_of(graph.tensor(owner[1]))
    return SlotHook(chain, src, dst, shape, np.dtype(dtype), None if retain < 0 else retain)


class SlotHook:
    """Segment callback: run a chain on the gradient in arena[src], write arena[dst].

    `retain` is the arena offset that receives the value at the RETAIN marker, or None.
    Runs under no_grad: the compiled backward records nothing.
    """

    def __init__(self, chain: HookChain, src: int, dst: int, shape: tuple, dtype: np.dtype,
                 retain: int | None = None) -> None:
        self.chain, self.src, self.dst, self.retain = chain, src, dst, retain
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.n = int(np.prod(self.shape, dtype=np.int64))

    def __call__(self, arena: np.ndarray) -> None:
        n = self.n
        g = Tensor._make(arena[self.src:self.src + n].reshape(self.shape).astype(self.dtype),
                         stop_gradient=False)
        with grad_mode.no_grad():
            flow, kept = apply_chain(self.chain, g)
        arena[self.dst:self.dst + n] = flow._data.reshape(-1)
        if self.retain is not None:
            arena[self.retain:self.retain + n] = kept._data.reshape(-1)

    def __repr__(self) -> str:
        return f"<hooks [{self.src}] -> [{self.dst}]>"


# ---- lowering (lower.py): where a Program runs hooks ------------------------------------

def lower_break(b: Any, k: int, g: Any, node: Any, outputs: list,
                retain_at: int | None) -> Any:
    """Hooks on node k's output: a callback maps its gradient slot `g` into a fresh slot,
    which the node's rule reads. `g` keeps the pre-hook value (what grad() returns for a
    hooked input); a retained grad gets its own slot holding the value at the marker."""
    flow = b.flows[id(node)] = b.alloc(g.shape)
    b.written.add(flow.off)
    keep = None
    if retain_at is not None:
        t, _, kind = outputs[retain_at]
        keep = b.alloc(g.shape)
        b.written.add(keep.off)
        outputs[retain_at] = (t, keep, kind)
    b.breakpoint(slot_hook_spec(("node", k), g.off, flow.off, g.shape,
                                node.out_data.dtype, None if keep is None else keep.off),
                 pin=[s for s in (g, flow, keep) if s is not None])
    return flow


def lower_targets(b: Any, outputs: list, hooked: set, nindex: dict, seed_only: set,
                  retain_pos: dict) -> None:
    """grad() returns a hooked non-leaf input's gradient after its hooks, which run once
    (measured on Paddle 3.3.1; not for a root whose gradient is only its seed, `seed_only`,
    whose result is that seed): a node the walk visited ran them already (its flow slot),
    the others run them here (eager.node_gradients' rule)."""
    for j, (t, slot, kind) in enumerate(outputs):
        node = t._node
        if kind != "target" or node is None or id(t) in seed_only:
            continue
        chain = node_chain(node)
        if chain is None or not chain.has_hooks:
            continue
        if id(node) not in hooked:
            if slot.off not in b.written:           # no path reached it: zeros
                b.prologue.append([OP["ZERO"] << 1, slot.off, 0, 0, 0, slot.n, 0, 0])
                b.written.add(slot.off)
            lower_break(b, nindex[id(node)], slot, node, outputs, retain_pos.get(id(node)))
            hooked.add(id(node))
        outputs[j] = (t, b.flows[id(node)], kind)
