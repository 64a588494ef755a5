"""Tape -> Program: walk the needed nodes newest first and let each op emit its kernels.

Lowering runs once per graph structure. It decides the buffer layout (saved values first,
then gradient slots and temporaries), turns every op's gradient rule into instructions, and
marks the first write into each slot as an overwrite so a replay needs no zeroing pass.

Every forward value an op's rule hands the Builder is named by its canonical source
(graph.py) instead of being copied in: the Program stays pure data, and any graph of the
same structure binds its own values to it. A value the Builder cannot name unambiguously
(computed inside a rule, or one array shared by two different tensors) becomes a literal,
and the Program then serves only this graph (`Program.reason`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import external, hook_calls, peephole, slot_layout
from ..core import hooks, tape
from .builder import Builder, Slot
from .graph import Graph
from ..vm.program import EXT, OP, WIDTH, Program


def _key(t: Any) -> int:
    return id(t._node) if t._node is not None else id(t)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_GRAD_NAMES: dict[str, str] = {}          # op name -> Node.grad_name (for row names)


def lower(roots: list, targets: list | None = None, stop: set[int] | None = None,
          graph: Graph | None = None, quick: bool = False) -> tuple[Program, Graph]:
    """Lower the backward from `roots` into a Program, for `graph` (the canonical form of
    this call's graph; walked here when not given, or when the plan rewired an input to
    an in-place op's stand-in). Returns the Program and the graph its sources refer to.

    targets None means backward(): every reachable leaf that needs a gradient receives one
    ('leaf' outputs) and retain_grads() tensors are 'retain' outputs. Otherwise `targets`
    lists the tensors whose gradients grad() returns ('target' outputs).

    `quick` skips the peephole passes that only make replays faster (aliasing, fusion,
    slot reuse, compaction: they keep every value bitwise) for a graph that may run once;
    the executor lowers again with them when its structure recurs.
    """
    free_roots = all(not r._stop_gradient for r in roots)
    if graph is None:
        graph = Graph(roots, targets, stop)
    # (the walk numbered exactly the nodes reachable_nodes finds, when no root is a
    # constant: the Plan needs no second walk)
    plan = tape.Plan(roots, targets, stop, reachable=graph.nodes if free_roots else None)
    nodes = plan.nodes
    is_target = plan.is_target
    tape.check_not_freed(nodes)
    if plan.rewired:
        graph = Graph(roots, targets, stop)

    dtypes = {n.out_data.dtype for n in nodes}
    for n in nodes:
        for t in n.inputs:
            dtypes.add(t._data.dtype)
    wide = any([dt == _F64 for dt in dtypes])
    b = Builder(_F64 if wide else _F32, graph)
    slots: dict[int, Slot] = {}
    seeds = []
    narrow = any([round_bits(dt, b.dtype) for dt in dtypes])
    for r in roots:
        slot = slots[_key(r)] = b.alloc(r._data.shape)
        b.written.add(slot.off)
        seeds.append((slot.off, slot.n))
        if narrow and round_bits(r._data.dtype, b.dtype):   # eager casts the seed
            b.emit("ROUND", slot, slot, p=b.table([round_bits(r._data.dtype, b.dtype)]),
                   acc=False)

    refs = _TensorRefs(graph, targets)
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
        if kind == "target" and t._retain and t._node is not None:
            retain_pos[id(t._node)] = len(outputs)      # grad(): a retained input's .grad
            outputs.append((t, slots[_key(t)], "retain"))

    for r in roots:
        note_output(r)
    nindex = graph.node_index()
    hooked: set[int] = set()                # nodes whose output's hooks ran
    fed: set[int] = set()                   # grad(): targets reached from another node
    useful, target_ids = plan.useful, plan.target_ids
    written, alloc = b.written, b.alloc
    any_hooks = hooks.any_node_hooks()
    for node in nodes:
        g = slots.get(id(node))
        gins = []
        for t, need in zip(node.inputs, node.needs):
            # plan.carries(t, need), inlined
            if not need or (stop is not None and id(t) in stop) or not (
                    ((t._node is None or t._retain) if target_ids is None else
                     id(t) in target_ids) or
                    (t._node is not None and id(t._node) in useful)):
                gins.append(None)
                continue
            k = id(t._node) if t._node is not None else id(t)      # _key(t), inlined
            slot = slots.get(k)
            if slot is None:
                slot = slots[k] = alloc(t._data.shape)
            gins.append(slot)
            if id(t) not in seen_out:
                if targets is not None:
                    note_output(t)
                elif t._node is None:       # note_output(t) for backward(), inlined
                    seen_out.add(id(t))
                    outputs.append((t, slot, "leaf"))
                elif t._retain:
                    seen_out.add(id(t))
                    retain_pos[id(t._node)] = len(outputs)
                    outputs.append((t, slot, "retain"))
        if g is None or g.off not in written:
            continue                        # no gradient flows into this node
        op = node.op
        name = _GRAD_NAMES.get(op.name)
        if name is None:
            name = _GRAD_NAMES[op.name] = node.grad_name
        b.current = f"{name} #{node.seq}"
        b.node = node
        if targets is not None:
            fed.update(id(t) for t, s in zip(node.inputs, gins) if s is not None)
        if any_hooks:
            chain = hooks.node_chain(node)
            if chain is not None and chain.has_hooks:
                g = hook_calls.lower_break(b, nindex[id(node)], g, node, outputs,
                                           retain_pos.get(id(node)))
                hooked.add(id(node))
        if narrow:
            lower_rounded(b, node, g, gins)
        else:
            op.lower(b, node, g, gins)
    b.node = None
    if targets is not None:
        hook_calls.lower_targets(b, outputs, hooked, nindex,
                                 {id(r) for r in roots} - fed, retain_pos)

    outs = []
    leaf_hooks = []
    for t, slot, kind in outputs:
        if slot.off not in written:         # reachable, but every path gave zero
            b.prologue.append([OP["ZERO"] << 1, slot.off, 0, 0, 0, slot.n, 0, 0])
            written.add(slot.off)
        ref = refs.of(t)
        outs.append((ref, slot.off, slot.shape, kind))
        # (a leaf's hooks are its own: hooks.chain_of)
        if targets is None and kind == "leaf" and t._hooks is not None and \
                t._hooks.has_hooks:
            leaf_hooks.append((ref, slot, t._data.dtype))
    for ref, slot, dtype in leaf_hooks:     # leaf hooks: once, on the summed gradient
        b.breakpoint(hook_calls.slot_hook_spec(("leaf", ref), slot.off, slot.off,
                                               slot.shape, dtype), pin=[slot])
    # peephole passes (JITGRAD_NO_PEEPHOLE=1 skips them); quick keeps only the owned leaf
    # gradients (they change GEMM rounding: never skipped), on a small Program's rows
    # before they become arrays
    own = quick and targets is None and not b.breaks and peephole.enabled()
    small = own and len(b.rows) + len(b.prologue) <= slot_layout.SMALL_PROGRAM
    draft = _finish(b, seeds, outs, own_rows=small)
    if not quick:
        peephole.optimize(draft, backward=targets is None)
    elif own and not small:
        slot_layout.own_leaf_grads(draft)
    return draft.freeze(b, graph), graph


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


class _TensorRefs:
    """Canonical references (graph.Graph.tensor) for the tensors a Program delivers to."""

    def __init__(self, graph: Graph, targets: list | None) -> None:
        self.graph = graph
        self.targets = {id(t): j for j, t in enumerate(targets)} if targets is not None else {}
        self.inputs: dict[int, tuple] | None = None

    def of(self, t: Any) -> tuple:
        j = self.targets.get(id(t))
        if j is not None:
            return ("g", j)
        i = self.graph.tensor_index().get(id(t))
        if i is not None:
            return ("t", i)
        if self.inputs is None:             # a non-leaf that is some node's input
            self.inputs = {}
            for k, node in enumerate(self.graph.nodes):
                for p, x in enumerate(node.inputs):
                    self.inputs.setdefault(id(x), ("n", k, p))
        return self.inputs[id(t)]


class Draft:
    """A Program while the peephole passes (peephole.py) rewrite it in place: its rows,
    tables and slot offsets are mutable, outputs carry (ref, offset, shape, kind)."""

    def __init__(self, code: np.ndarray, arena_size: int, itab: np.ndarray,
                 consts: np.ndarray, seeds: list, outputs: list, names: list) -> None:
        self.code, self.itab, self.consts = code, itab, consts
        # (compact() reads its size and makes a smaller one: calloc'd, never touched)
        self.arena = np.zeros(arena_size, dtype=consts.dtype)
        self.seeds, self.outputs, self.node_names = seeds, outputs, names
        self.segments: list = []
        self.pinned: frozenset | None = None
        self.slot_starts: list | None = None
        self.offset_map: Any = None
        self.owned_leaf_pos: dict = {}
        self.ext_pos: dict = {}
        self.ext_size: dict = {}

    def __len__(self) -> int:
        return int(self.code.shape[0])

    def extend_itab(self, count: int) -> int:
        """Append `count` zeroed int-table words (addresses set by a binding); returns the
        first."""
        first = len(self.itab)
        self.itab = np.concatenate([self.itab, np.zeros(count, np.int64)])
        return first

    def freeze(self, b: Builder, graph: Graph) -> Program:
        """Place the values (after compaction: the larger first layout never costs memory)
        and turn the draft into a Program."""
        remap = self.offset_map
        values, literals = [], []
        dt = self.consts.dtype
        for off, arr, shape, src in b.values:
            if remap is not None:
                off = remap(off)
            if src is None or src == "static":
                literals.append((off, shape, np.array(arr, dtype=dt)))
            else:
                values.append((off, shape, src, arr))
        copied, externals = external.place(self, values)
        for pos, n, _ in b.tables:          # this graph's indices: each binding writes its own
            self.itab[pos:pos + n] = 0
        leaf_rows = ()
        if self.owned_leaf_pos:
            leaf_at = {off: j for j, (_, off, _, kind) in enumerate(self.outputs)
                       if kind == "leaf"}
            leaf_rows = tuple(sorted([(leaf_at[off], pos)
                                      for off, pos in self.owned_leaf_pos.items()]))
        reason = None if b.unnamed is None else f"a value without a source ({b.unnamed})"
        if graph.key is None:
            reason = reason or f"the graph has no key ({graph.reason})"
        code, itab = self.code, self.itab
        return Program(
            code=code if code.dtype == np.int64 and code.flags.c_contiguous else
            np.ascontiguousarray(code, dtype=np.int64),
            itab=itab if itab.dtype == np.int64 and itab.flags.c_contiguous else
            np.ascontiguousarray(itab, dtype=np.int64),
            consts=np.ascontiguousarray(self.consts),
            arena_size=int(self.arena.size),
            seeds=tuple([(int(o), int(n)) for o, n in self.seeds]),
            outputs=tuple([(kind, ref, int(off), tuple(shape))
                           for ref, off, shape, kind in self.outputs]),
            values=tuple(copied), externals=tuple(externals),
            tables=tuple(b.tables), scalars=tuple(b.scalars), literals=tuple(literals),
            leaf_rows=leaf_rows,
            segments=tuple([(int(s), int(e), -1 if cb is None else cb)
                            for s, e, cb in self.segments]),
            callbacks=tuple([spec for _, spec in b.breaks]),
            node_names=tuple(self.node_names), reason=reason)


def _segments(breaks: list, first: int, total: int) -> list:
    """Instruction ranges, each followed by its callback's index (None after the last)."""
    segs, start = [], 0
    for i, (at, _) in enumerate(breaks):
        segs.append((start, first + at, i))
        start = first + at
    segs.append((start, total, None))
    return segs


def _itab(chunks: list, spare: int) -> np.ndarray:
    """The Builder's int tables (int64 arrays, and flat lists of numbers) as one int64
    array, then `spare` zeros ([0] when there are none). Lists only: one conversion, where
    an array per table and their concatenation cost ~0.5 us a table."""
    if not chunks:
        return np.zeros(1 + spare, np.int64)
    if all([type(c) is list for c in chunks]):
        flat = [v for c in chunks for v in c]
        if spare:
            flat.extend([0] * spare)
        return np.array(flat, dtype=np.int64)
    itab = np.zeros(sum([len(c) for c in chunks]) + spare, np.int64)
    np.concatenate([c if type(c) is not list else np.array(c, dtype=np.int64).reshape(-1)
                    for c in chunks], out=itab[:len(itab) - spare])
    return itab


def _finish(b: Builder, seeds: list, outputs: list, own_rows: bool = False) -> Draft:
    """The Builder's rows and tables as a Draft. `own_rows`: run own_leaf_grads here, on
    the rows as Python lists (a small Program, no callbacks)."""
    rows = b.prologue + b.rows if b.prologue else b.rows
    # (one array, with room for an address per leaf output that own_rows may own)
    base = b.itab_size if b.itab else 1
    itab = _itab(b.itab, len(outputs) if own_rows else 0)
    owned = None
    if own_rows:
        owned = slot_layout.own_rows(rows, seeds, outputs, itab)
        if owned:                   # slot_layout._write_through_itab, on the rows
            positions = {}
            for j, (off, r) in enumerate(sorted(owned.items())):
                positions[off] = base + j
                rows[r][1] = EXT + ((base + j) << 32)
            owned = positions
    if len(itab) > base + (len(owned) if owned else 0):
        itab = itab[:base + (len(owned) if owned else 0)].copy()
    code = np.array(rows, dtype=np.int64).reshape(len(rows), WIDTH)
    names = ["(zero unreached output)"] * len(b.prologue) + b.names if b.prologue else \
        b.names
    draft = Draft(code, max(b.size, 1), itab, np.array(b.consts, dtype=b.dtype), seeds,
                  outputs, names)
    if owned is not None:
        draft.owned_leaf_pos = owned
    draft.slot_starts = b.allocs
    if b.breaks:
        draft.segments = _segments(b.breaks, len(b.prologue), len(rows))
        draft.pinned = frozenset(b.pinned)
    return draft
