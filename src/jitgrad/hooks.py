"""Tensor hooks: user callbacks on a tensor's gradient, and the callbacks that run them.

Each tensor has at most one chain of hooks. `retain_grads()` on a non-leaf puts a RETAIN
marker into the chain, so its retained gradient is the value *before* the hooks registered
after it and *after* those registered before it (Paddle's order rule).

A non-leaf's chain is keyed by its tape node, so hooks still run after the user drops the
tensor itself. The compiled backward calls a chain from a Program segment callback
(`SlotHook`, made by a binding from the Program's spec); the eager backward calls
`apply_chain` inline.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from . import tape
from .tensor import Tensor

RETAIN = object()     # marker: where in the chain retain_grads() was called


class HookChain:
    """Hooks of one tensor, in registration order, with the RETAIN marker among them."""

    __slots__ = ("entries", "__weakref__")

    def __init__(self) -> None:
        self.entries: list[Any] = []

    @property
    def has_hooks(self) -> bool:
        return any(e is not RETAIN for e in self.entries)


_node_chains: "weakref.WeakKeyDictionary[tape.Node, HookChain]" = weakref.WeakKeyDictionary()


def chain_of(t: Tensor, create: bool = False) -> HookChain | None:
    chain = t._hooks
    if chain is None and t._node is not None:
        chain = _node_chains.get(t._node)
    if chain is None and create:
        chain = HookChain()
        t._hooks = chain
        if t._node is not None:
            _node_chains[t._node] = chain
    return chain


def any_node_hooks() -> bool:
    """Has any non-leaf tensor alive hooks or retain_grads()? (None: node_chain is None for
    every node, and a backward can skip asking.)"""
    return len(_node_chains) > 0


def node_chain(node: tape.Node) -> HookChain | None:
    """The hooks on a node's output tensor, even when that tensor is gone."""
    return _node_chains.get(node)


class RemovableHandle:
    """Returned by register_hook; `remove()` is True the first time, False after."""

    def __init__(self, chain: HookChain, fn: Callable) -> None:
        self._chain = chain
        self._fn = fn
        self._removed = False

    def remove(self) -> bool:
        chain = self._chain
        if self._removed:
            return False
        self._removed = True
        for i, e in enumerate(chain.entries):
            if e is self._fn:
                del chain.entries[i]
                tape.bump_epoch()               # lowered Programs carrying it are stale
                return True
        return False


def register_hook(t: Tensor, fn: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
    if t._stop_gradient:
        raise RuntimeError("Cannot register hook on a tensor that stop gradient. Set "
                           "stop_gradient=False on it first.")
    if not callable(fn):
        raise TypeError(f"register_hook expects a callable, got {type(fn).__name__}")
    chain = chain_of(t, create=True)
    entry = _Hook(fn)
    chain.entries.append(entry)
    tape.bump_epoch()
    return RemovableHandle(chain, entry)


class _Hook:
    """A distinct wrapper per registration, so the same function registered twice runs
    twice and each handle removes its own."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, g: Tensor) -> Any:
        return self.fn(g)


def note_retain(t: Tensor) -> None:
    """retain_grads() on a non-leaf: mark the chain position once."""
    if t._node is None:
        return
    chain = chain_of(t, create=True)
    if RETAIN not in chain.entries:
        chain.entries.append(RETAIN)


def apply_chain(chain: HookChain, g: Tensor) -> tuple[Tensor, Tensor]:
    """Run the hooks in order; returns (gradient flowing on, gradient to retain)."""
    retained = None
    for entry in list(chain.entries):
        if entry is RETAIN:
            retained = g
            continue
        r = entry(g)
        if r is None:
            continue
        if not isinstance(r, Tensor):
            raise TypeError(f"a gradient hook must return a Tensor or None, got "
                            f"{type(r).__name__} from {getattr(entry.fn, '__name__', entry.fn)!r}")
        if r._data.dtype.kind != "f":
            raise TypeError(f"a gradient hook must return a float Tensor, got {r.dtype.name} "
                            f"from {getattr(entry.fn, '__name__', entry.fn)!r}")
        if r._data.size != g._data.size:
            raise ValueError(f"a gradient hook returned shape {list(r.shape)} for a gradient of "
                             f"shape {list(g.shape)}")
        if r._data.dtype != g._data.dtype:      # the gradient keeps its dtype on every path
            from .ops import astype
            r = astype(r, g._data.dtype)
        if r._data.shape != g._data.shape:
            from .ops import reshape
            r = reshape(r, g.shape)
        g = r
    return g, (g if retained is None else retained)


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
        with tape.no_grad():
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


def lower_targets(b: Any, outputs: list, hooked: set, nindex: dict, root_ids: set,
                  retain_pos: dict) -> None:
    """grad() returns a hooked non-leaf input's gradient after its hooks, which run once
    (measured on Paddle 3.3.1; not for a root, whose result is its seed): a node the walk
    visited ran them already (its flow slot), the others run them here."""
    for j, (t, slot, kind) in enumerate(outputs):
        node = t._node
        if kind != "target" or node is None or id(t) in root_ids:
            continue
        chain = node_chain(node)
        if chain is None or not chain.has_hooks:
            continue
        if id(node) not in hooked:
            if slot.off not in b.written:           # no path reached it: zeros
                from .program import OP
                b.prologue.append([OP["ZERO"] << 1, slot.off, 0, 0, 0, slot.n, 0, 0])
                b.written.add(slot.off)
            lower_break(b, nindex[id(node)], slot, node, outputs, retain_pos.get(id(node)))
            hooked.add(id(node))
        outputs[j] = (t, b.flows[id(node)], kind)
