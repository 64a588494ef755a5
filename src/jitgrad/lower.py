"""Tape -> Program: walk the needed nodes newest first and let each op emit its kernels.

Lowering runs once per graph. It decides the buffer layout (saved values first, then
gradient slots and temporaries), turns every op's gradient rule into instructions, and marks
the first write into each slot as an overwrite so a replay needs no zeroing pass.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

import numpy as np

from . import hooks, tape
from .program import OP, WIDTH, Program


class Slot(NamedTuple):
    off: int
    n: int
    shape: tuple


class Builder:
    """What an op's `lower` function talks to: places values, allocates slots, emits rows."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = np.dtype(dtype)
        self.size = 0
        self.values: list[tuple[int, np.ndarray, tuple]] = []
        self._value_ids: dict[tuple, Slot] = {}
        self._keep: list[Any] = []          # keeps arrays alive while their memory is a key
        self.rows: list[list[int]] = []
        self.prologue: list[list[int]] = []
        self.names: list[str] = []
        self.itab: list[np.ndarray] = []
        self.itab_size = 0
        self.consts: list[float] = [1.0]
        self._const_ids: dict[float, int] = {1.0: 0}
        self.written: set[int] = set()
        self.current = ""                   # name of the node being lowered, for text dumps
        self.node: Any = None               # the node being lowered
        self.sources: list | None = None    # (offset, array, shape, node) of every value()
        self.allocs: list[int] = []
        self.breaks: list[tuple[int, Any]] = []   # (row index, Python callback) breakpoints
        self.pinned: set[tuple[int, int]] = set()   # (offset, size) of slots callbacks use

    def breakpoint(self, callback: Any, pin: Iterable[Slot] = ()) -> None:
        """Run `callback(arena)` between the rows emitted so far and the next ones.

        The slots in `pin` are touched by the callback: optimisation passes must keep them.
        """
        self.breaks.append((len(self.rows), callback))
        self.pinned.update((s.off, max(s.n, 1)) for s in pin)

    # ---- layout ------------------------------------------------------------------------
    def alloc(self, shape: Iterable[int]) -> Slot:
        shape = tuple(int(s) for s in shape)
        n = int(np.prod(shape, dtype=np.int64))
        slot = Slot(self.size, n, shape)
        self.size += max(n, 1)              # distinct offsets even for empty slots
        self.allocs.append(slot.off)        # slot starts, for lower_opt.compact
        return slot

    def value(self, arr: np.ndarray, shape: Iterable[int] | None = None) -> Slot:
        """A forward value, broadcast to `shape`, placed in the arena (once per array)."""
        arr = np.asarray(arr)
        shape = tuple(arr.shape if shape is None else shape)
        # keyed by memory, not id(): a reshaped view of a value already placed (matmul's
        # operands) shares its slot; copied straight into the arena by _finish (no temporary)
        key = (arr.__array_interface__["data"][0], arr.shape, arr.strides, arr.dtype.str, shape)
        if key not in self._value_ids:
            slot = self.alloc(shape)
            self.values.append((slot.off, arr, shape))
            self._value_ids[key] = slot
            self._keep.append(arr)
        if self.sources is not None:        # structural.py rebinds cached Programs from these
            self.sources.append((self._value_ids[key].off, arr, shape, self.node))
        return self._value_ids[key]

    def const(self, v: float) -> int:
        v = float(v)
        if v not in self._const_ids:
            self._const_ids[v] = len(self.consts)
            self.consts.append(v)
        return self._const_ids[v]

    def table(self, ints: Any) -> int:
        arr = np.ascontiguousarray(ints, dtype=np.int64).ravel()
        off = self.itab_size
        self.itab.append(arr)
        self.itab_size += arr.size
        return off

    # ---- emitting ----------------------------------------------------------------------
    def emit(self, name: str, out: Slot, a: Slot | None = None, b: Slot | None = None,
             c: Slot | None = None, n: int | None = None, p: int = 0, k: float = 1.0,
             acc: bool | None = None) -> None:
        """Append one instruction; by default it accumulates iff `out` was written before."""
        if acc is None:
            acc = out.off in self.written
        self.written.add(out.off)
        row = [OP[name] << 1 | int(acc), out.off, a.off if a else 0, b.off if b else 0,
               c.off if c else 0, out.n if n is None else n, p, self.const(k)]
        self.rows.append(row)
        self.names.append(self.current)

    def ensure_zero(self, slot: Slot) -> None:
        """Before a kernel that can only accumulate (SCATTER) writes into `slot`."""
        if slot.off not in self.written:
            self.emit("ZERO", slot, acc=False)

    # ---- gradient helpers used by the op rules ------------------------------------------
    def contribute(self, dest: Slot, out_shape: tuple, name: str, a: Slot,
                   b: Slot | None = None, c: Slot | None = None, k: float = 1.0) -> None:
        """dest += sum_to(dest.shape, kernel(a, b, c)), kernel evaluated at `out_shape`."""
        out_shape = tuple(out_shape)
        if dest.shape == out_shape or dest.n == int(np.prod(out_shape)):
            self.emit(name, dest, a, b, c, k=k)
            return
        tmp = self.alloc(out_shape)
        self.emit(name, tmp, a, b, c, k=k, acc=False)
        self.reduce_into(dest, tmp)

    def mul(self, dest: Slot, out_shape: tuple, g: Slot, factor: np.ndarray, k: float = 1.0
            ) -> None:
        """dest += sum_to(g * factor * k); a one-element factor becomes a constant."""
        factor = np.asarray(factor)
        if factor.size == 1:
            self.contribute(dest, out_shape, "AXPY", g, k=k * float(factor.ravel()[0]))
        else:
            self.contribute(dest, out_shape, "MUL", g, self.value(factor, out_shape), k=k)

    def reduce_into(self, dest: Slot, src: Slot) -> None:
        """dest += src summed over the axes along which dest was broadcast to src.shape."""
        if dest.n == src.n:
            self.emit("AXPY", dest, src)
        elif dest.n == 1:
            self.emit("SUM", dest, src, n=src.n)
        elif _leading_broadcast(dest.shape, src.shape):
            self.emit("ROWSUM", dest, src, p=self.table([src.n // dest.n]))
        else:
            idx = broadcast_index(dest.shape, src.shape)
            self.ensure_zero(dest)
            self.emit("SCATTER", dest, src, n=src.n, p=self.table(idx), acc=True)

    def broadcast_into(self, dest: Slot, src: Slot, k: float = 1.0) -> None:
        """dest += k * src broadcast from src.shape (with kept dims) to dest.shape."""
        if src.n == dest.n:
            self.emit("AXPY", dest, src, k=k)
        elif src.n == 1:
            self.emit("BCAST", dest, src, k=k)
        else:
            self.emit("GATHER", dest, src, p=self.table(broadcast_index(src.shape, dest.shape)),
                      k=k)

    def gather(self, dest: Slot, src: Slot, idx: np.ndarray) -> None:
        """dest[i] += src[idx[i]]."""
        self.emit("GATHER", dest, src, p=self.table(idx))

    def scatter(self, dest: Slot, src: Slot, idx: np.ndarray) -> None:
        """dest[idx[i]] += src[i] (repeated indices add up)."""
        self.ensure_zero(dest)
        self.emit("SCATTER", dest, src, n=src.n, p=self.table(idx), acc=True)


def _leading_broadcast(small: tuple, big: tuple) -> bool:
    """Was `small` broadcast to `big` along leading axes only (a bias: (n,) -> (m, n))?"""
    small = tuple(small)
    while small and small[0] == 1:
        small = small[1:]
    return len(small) > 0 and tuple(big[len(big) - len(small):]) == small


def broadcast_index(small: tuple, big: tuple) -> np.ndarray:
    """For each flat position of `big`, the flat position of `small` broadcast onto it."""
    small = (1,) * (len(big) - len(small)) + tuple(small)
    return np.broadcast_to(np.arange(int(np.prod(small))).reshape(small), big).ravel()


# ---- the lowering walk ---------------------------------------------------------------------

def _key(t: Any) -> int:
    return id(t._node) if t._node is not None else id(t)


def lower(roots: list, targets: list | None = None, stop: set[int] | None = None,
          sources: list | None = None) -> Program:
    """Lower the backward from `roots` into a Program.

    targets None means backward(): every reachable leaf that needs a gradient receives one
    ('leaf' outputs) and retain_grads() tensors are 'retain' outputs. Otherwise `targets`
    lists the tensors whose gradients grad() returns ('target' outputs).
    """
    plan = tape.Plan(roots, targets, stop)
    nodes = plan.nodes
    is_target = plan.is_target
    tape.check_not_freed(nodes)

    wide = any(v.dtype == np.float64 for n in nodes for v in
               [n.out_data] + [t._data for t in n.inputs])
    b = Builder(np.float64 if wide else np.float32)
    b.sources = sources
    slots: dict[int, Slot] = {}
    seeds = []
    narrow = any(round_bits(v.dtype, b.dtype) for n in nodes for v in
                 [n.out_data] + [t._data for t in n.inputs])
    for r in roots:
        slot = slots[_key(r)] = b.alloc(r._data.shape)
        b.written.add(slot.off)
        seeds.append((slot.off, slot.n))
        if narrow and round_bits(r._data.dtype, b.dtype):   # eager casts the seed
            b.emit("ROUND", slot, slot, p=b.table([round_bits(r._data.dtype, b.dtype)]),
                   acc=False)

    outputs: list = []
    seen_out: set[int] = set()
    retain_pos: dict[int, int] = {}         # node id -> index of its 'retain' output

    def note_output(t: Any) -> None:
        if id(t) in seen_out:
            return
        if is_target(t):
            kind = "target" if targets is not None else ("leaf" if t._node is None else "retain")
        elif t._retain and t._node is not None:
            kind = "retain"                 # grad() still fills retained non-leaf grads
        else:
            return
        seen_out.add(id(t))
        if kind == "retain":
            retain_pos[id(t._node)] = len(outputs)
        outputs.append((t, slots[_key(t)], kind))

    for r in roots:
        note_output(r)
    for node in nodes:
        g = slots.get(id(node))
        gins = []
        for t in node.inputs:
            if plan.carries(t):
                if _key(t) not in slots:
                    slots[_key(t)] = b.alloc(t._data.shape)
                gins.append(slots[_key(t)])
                note_output(t)
            else:
                gins.append(None)
        if g is None or g.off not in b.written:
            continue                        # no gradient flows into this node
        b.current = f"{node.grad_name} #{node.seq}"
        b.node = node
        chain = hooks.node_chain(node)
        if chain is not None and chain.has_hooks:
            g = _hook_break(b, node, g, chain, outputs, retain_pos.get(id(node)))
        if narrow:
            lower_rounded(b, node, g, gins)
        else:
            node.op.lower(b, node, g, gins)

    for t, slot, kind in outputs:           # reachable, but every path gave zero
        if slot.off not in b.written:
            b.prologue.append([OP["ZERO"] << 1, slot.off, 0, 0, 0, slot.n, 0, 0])
            b.written.add(slot.off)
    if targets is None:                     # leaf hooks: once, on the summed gradient
        for t, slot, kind in outputs:
            chain = hooks.chain_of(t) if kind == "leaf" else None
            if chain is not None and chain.has_hooks:
                b.breakpoint(hooks.SlotHook(chain, slot.off, slot.off, slot.shape,
                                            t._data.dtype), pin=[slot])
    prog = _finish(b, seeds, [(t, s.off, s.shape, kind) for t, s, kind in outputs])
    prog.nodes = nodes
    prog.slot_starts = b.allocs
    from .lower_opt import optimize          # peephole passes; JITGRAD_NO_PEEPHOLE=1 skips
    optimize(prog, backward=targets is None)
    place_values(prog, b.values)
    return prog


def round_bits(dtype: np.dtype, arena: np.dtype) -> int:
    """16 or 32 when gradients of `dtype` are rounded in an `arena` Program (a float type
    narrower than the arena's), else 0."""
    if dtype.kind != "f" or dtype.itemsize >= arena.itemsize:
        return 0
    return 8 * dtype.itemsize


def lower_rounded(b: Builder, node: Any, g: Slot, gins: list) -> None:
    """node.op.lower, with the gradient of each input narrower than the arena (float16, or
    float32 in a float64 Program) rounded to its dtype as the eager path does
    (autograd.eager_gradients casts each contribution to the input's dtype and sums in it):
    a first contribution is rounded in its slot; a later one is written to a fresh slot,
    rounded, added, and the sum rounded."""
    subs, after = list(gins), []
    for i, (t, s) in enumerate(zip(node.inputs, gins)):
        bits = 0 if s is None else round_bits(t._data.dtype, b.dtype)
        if not bits:
            continue
        p = b.table([bits])
        if s.off in b.written or any(d is s or u is s for u, d, _ in after):
            subs[i] = b.alloc(s.shape)
            after.append((subs[i], s, p))
        else:
            after.append((s, None, p))
    node.op.lower(b, node, g, subs)
    for u, dest, p in after:
        if u.off not in b.written:
            continue                        # the rule gave this input nothing
        b.emit("ROUND", u, u, p=p, acc=False)
        if dest is not None:
            b.emit("AXPY", dest, u)
            b.emit("ROUND", dest, dest, p=p, acc=False)


def place_values(prog: Program, values: list) -> None:
    """Place the saved forward values after the passes have compacted the arena (so the
    first, larger layout is never written and costs no memory): large ones are read where
    they are (external.py), the others copied into the arena."""
    from . import external
    remap = getattr(prog, "offset_map", None)
    if remap is not None:
        values = [(remap(off), v, shape) for off, v, shape in values]
    external.place(prog, values)


def _hook_break(b: Builder, node: Any, g: Slot, chain: Any, outputs: list,
                retain_at: int | None) -> Slot:
    """Hooks on a node's output: a callback maps its gradient slot `g` into a fresh slot,
    which the node's rule reads. `g` keeps the pre-hook value (what grad() returns for a
    hooked input); a retained grad gets its own slot holding the value at the marker."""
    flow = b.alloc(g.shape)
    b.written.add(flow.off)
    keep = None
    if retain_at is not None:
        t, _, kind = outputs[retain_at]
        keep = b.alloc(g.shape)
        b.written.add(keep.off)
        outputs[retain_at] = (t, keep, kind)
    b.breakpoint(hooks.SlotHook(chain, g.off, flow.off, g.shape, node.out_data.dtype,
                                None if keep is None else keep.off),
                 pin=[s for s in (g, flow, keep) if s is not None])
    return flow


def _segments(breaks: list, first: int, total: int) -> list:
    """Instruction ranges, each followed by its callback (None after the last)."""
    segs, start = [], 0
    for at, callback in breaks:
        segs.append((start, first + at, callback))
        start = first + at
    segs.append((start, total, None))
    return segs


def _finish(b: Builder, seeds: list, outputs: list) -> Program:
    rows = b.prologue + b.rows
    code = np.array(rows, dtype=np.int64).reshape(len(rows), WIDTH)
    arena = np.zeros(max(b.size, 1), dtype=b.dtype)     # values: place_values(), later
    itab = np.concatenate(b.itab) if b.itab else np.zeros(1, np.int64)
    names = ["(zero unreached output)"] * len(b.prologue) + b.names
    prog = Program(code, arena, np.ascontiguousarray(itab, dtype=np.int64),
                   np.array(b.consts, dtype=b.dtype), seeds, outputs, names)
    if b.breaks:
        prog.segments = _segments(b.breaks, len(b.prologue), len(rows))
        prog.pinned = frozenset(b.pinned)
    return prog
