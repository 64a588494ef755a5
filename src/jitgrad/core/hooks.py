"""Tensor hooks: user callbacks on a tensor's gradient, and the callbacks that run them.

Each tensor has at most one chain of hooks. `retain_grads()` on a non-leaf puts a RETAIN
marker into the chain, so its retained gradient is the value *before* the hooks registered
after it and *after* those registered before it (Paddle's order rule).

A non-leaf's chain is keyed by its tape node, so hooks still run after the user drops the
tensor itself. The compiled backward calls a chain from a Program segment callback
(`SlotHook`, compile/hook_calls.py); the eager backward calls `apply_chain` inline.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from typing import Any, Callable


from . import tape
from .tensor import Tensor

RETAIN = object()     # marker: where in the chain retain_grads() was called

# id -> the live non-leaf tensors that called retain_grads(): what needs a look after a
# backward (ops/siblings.py) is found among these, not among every live graph. Read it
# through retained_tensors(): another thread's retain_grads() must not resize it while a
# backward iterates over it.
# A plain dict of weak references, each removing its own entry when its tensor dies
# (WeakValueDictionary's scheme with public API only): its truth test, which every
# backward makes (siblings.fill), is the C one.
RETAINED: dict[int, weakref.ref] = {}
_RETAINED_LOCK = threading.Lock()


def _forget(key: int) -> Any:
    def forget(ref: weakref.ref) -> None:
        if RETAINED.get(key) is ref:        # (not a newer tensor given the same id)
            RETAINED.pop(key, None)
    return forget


def retained_tensors() -> list[Tensor]:
    """The live non-leaf tensors that called retain_grads(), as a list (a snapshot)."""
    with _RETAINED_LOCK:
        refs = list(RETAINED.values())
    return [t for t in (r() for r in refs) if t is not None]


class HookChain:
    """Hooks of one tensor, in registration order, with the RETAIN marker among them."""

    __slots__ = ("entries", "next_id", "__weakref__")

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.next_id = 0            # register_hook's ids, 0, 1, ... (Paddle's hook ids)

    @property
    def has_hooks(self) -> bool:
        return any(e is not RETAIN for e in self.entries)


_node_chains: "weakref.WeakKeyDictionary[tape.Node, HookChain]" = weakref.WeakKeyDictionary()


def chain_of(t: Tensor, create: bool = False) -> HookChain | None:
    """t's hooks: a leaf's own chain, a non-leaf's that of its current node. An in-place op
    gives t a new node, so a hook registered after it runs on the new value's gradient and
    one registered before on the old value's (Paddle 3.3.1 and torch; t._hooks still held
    the old node's chain, which ran both hooks on the old value's gradient)."""
    node = t._node
    chain = t._hooks if node is None else _node_chains.get(node)
    if chain is None and create:
        chain = HookChain()
        t._hooks = chain
        if node is not None:
            _node_chains[node] = chain
    return chain


def any_node_hooks() -> bool:
    """Has any non-leaf tensor alive hooks or retain_grads()? (None: node_chain is None for
    every node, and a backward can skip asking.)"""
    return len(_node_chains) > 0


def node_chain(node: tape.Node) -> HookChain | None:
    """The hooks on a node's output tensor, even when that tensor is gone."""
    return _node_chains.get(node)


class RemovableHandle:
    """Returned by register_hook; `remove()` is True the first time, False after (with
    Paddle 3.3.1's RuntimeWarning)."""

    def __init__(self, chain: HookChain, fn: Callable, tensor: Tensor | None = None,
                 hook_id: int = 0) -> None:
        self._chain = chain
        self._fn = fn
        self._removed = False
        self._tensor = None if tensor is None else weakref.ref(tensor)
        self._id = hook_id

    def remove(self) -> bool:
        chain = self._chain
        if self._removed:
            t = None if self._tensor is None else self._tensor()
            name = "" if t is None else t.name
            warnings.warn(f"The backward hook (ID: {self._id}) of Tensor `{name}` you want "
                          f"to remove does not exist or has been removed.", RuntimeWarning,
                          stacklevel=2)
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
    hook_id = chain.next_id
    chain.next_id += 1
    chain.entries.append(entry)
    tape.bump_epoch()
    return RemovableHandle(chain, entry, t, hook_id)


class _Hook:
    """A distinct wrapper per registration, so the same function registered twice runs
    twice and each handle removes its own."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, g: Tensor) -> Any:
        return self.fn(g)


class _AfterAccumulation:
    """A chain entry for `Tensor._register_backward_hook(fn)`: where the leaf's hooks run
    (on its summed gradient, before it is added to .grad) it leaves the gradient alone and
    queues fn, which the backward calls once every gradient is accumulated."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn

    def __call__(self, g: Tensor) -> None:
        DUE.fns.append(self.fn)     # (None: the gradient goes on unchanged)


class _Due(threading.local):
    """fns of _register_backward_hook due at the end of this thread's running backward
    (per thread: another thread's backward must not run them before this one has
    accumulated; one that reached none leaves the list empty: api.py tests it, one
    attribute and truth test a backward)."""

    def __init__(self) -> None:
        self.fns: list[Callable[[], Any]] = []


DUE = _Due()


def run_due() -> None:
    """Call the backward hooks the backward that just ended in this thread queued (Paddle's
    order: leaf by leaf, each leaf's in registration order)."""
    due = DUE.fns
    while due:
        fns = due[:]
        due.clear()
        for fn in fns:
            fn()


def register_backward_hook(t: Tensor, fn: Callable[[], Any]) -> None:
    """Tensor._register_backward_hook: fn() runs after each backward() has accumulated
    the gradient of the leaf t (not after paddle.grad, which accumulates nothing), after
    t's gradient hooks, as in Paddle 3.3.1 (where DataParallel and sharding use it)."""
    if t._stop_gradient:
        raise ValueError("Cannot register backward hook on a Tensor that stop gradient.")
    if t._node is not None:
        raise ValueError("Only can register backward hook for leaf Tensor.")
    if not callable(fn):
        raise TypeError(f"_register_backward_hook expects a callable, got "
                        f"{type(fn).__name__}")
    chain_of(t, create=True).entries.append(_AfterAccumulation(fn))
    tape.bump_epoch()


def note_retain(t: Tensor) -> None:
    """retain_grads() on a non-leaf: mark the chain position once."""
    if t._node is None:
        return
    with _RETAINED_LOCK:
        RETAINED[id(t)] = weakref.ref(t, _forget(id(t)))
    chain = chain_of(t, create=True)
    if RETAIN not in chain.entries:
        chain.entries.append(RETAIN)


def apply_chain(chain: HookChain, g: Tensor) -> tuple[Tensor, Tensor]:
    """Run the hooks in order; returns (gradient flowing on, gradient to retain)."""
    retained = None
    ran: set[int] = set()
    while True:         # again for hooks a hook registered: they run in this backward too
        pending = [e for e in chain.entries if id(e) not in ran]      # (as in Paddle)
        if not pending:
            break
        for entry in pending:
            ran.add(id(entry))
            g, retained = _run_entry(entry, g, retained)
    return g, (g if retained is None else retained)


def _run_entry(entry: Any, g: Tensor, retained: Tensor | None) -> tuple[Tensor, Any]:
    """One hook chain entry: (the gradient after it, the gradient to retain so far)."""
    if entry is RETAIN:
        return g, g
    r = entry(g)
    if r is None:
        return g, retained
    if not isinstance(r, Tensor):
        raise TypeError(f"a gradient hook must return a Tensor or None, got "
                        f"{type(r).__name__} from {getattr(entry.fn, '__name__', entry.fn)!r}")
    if r._data.dtype.kind != "f":
        raise TypeError(f"a gradient hook must return a float Tensor, got {r.dtype.name} "
                        f"from {getattr(entry.fn, '__name__', entry.fn)!r}")
    if r._data.size != g._data.size:
        raise ValueError(f"a gradient hook returned shape {list(r.shape)} for a gradient of "
                         f"shape {list(g.shape)}")
    if r._data.dtype != g._data.dtype:      # (as Paddle: a silent cast would hide a bug)
        raise RuntimeError(f"a gradient hook must return the gradient's dtype "
                           f"{g._data.dtype.name}, got {r._data.dtype.name} from "
                           f"{getattr(entry.fn, '__name__', entry.fn)!r}; cast the result "
                           f"with .astype('{g._data.dtype.name}')")
    if r._data.shape != g._data.shape:
        r = r.reshape(g.shape)
    return r, retained

