"""A Binding: one graph's view of a Program, and the run that delivers its gradients.

A Program is pure data and serves every graph of its structure; everything that belongs
to one graph lives here: a Workspace (the arena, and the itab and consts with this graph's
addresses, index tables and scalars filled in), the output tensors and the callbacks.

Why user-visible tensors can never alias a Workspace: gradients leave it by copy, or are
accumulated straight into a leaf's own `.grad` array through an address the itab holds
for the run (the writer row of an owned leaf slot, slot_layout.own_leaf_grads). A `.grad`
is always an array of its tensor's own, so no later run, of this graph or of another one
sharing the Program, can overwrite a gradient someone kept.

Workspaces are reused: a non-retained backward hands its Workspace back to the Program's
cache entry (executor.py), and the next graph of that structure binds its values over it.
Between two graphs nothing is cleared but the references to the old graph's arrays.
"""

from __future__ import annotations

import math
import threading
import weakref
from typing import Any

import numpy as np

from ..core import config
from .. import vm
from .external import address as _address
from .graph import Graph, source_of
from ..vm.program import EXT, Program
from ..core.grad_store import GRAPH_GRADS, deliver_grad, detach_graph_grad
from ..core.tensor import Tensor

# One backward at a time writes leaf gradients: two threads running graphs that share a
# parameter would otherwise add into its .grad concurrently (the kernels release the GIL).
# Reentrant: a hook may run another backward.
RUN_LOCK = threading.RLock()
# (shared by the Bindings that have none: never written, only replaced)
_NO_CALLBACKS: list = []
_NO_KEEP: list = []
_NO_SKIP: frozenset = frozenset()
_np_add = np.add


class Workspace:
    """A Program's private memory for one graph at a time."""

    __slots__ = ("arena", "itab", "consts", "seed_views", "out_views",
                 "seed_ones", "seed_clean", "ones_ready", "seeds_dirty", "leaf_last",
                 "private", "call", "call_gen", "nbytes", "deliver_items", "leaf_js",
                 "code", "folded", "tables_bound", "out_tensor_index", "copies", "binds_more",
                 "leaf_checks", "__weakref__")

    def __init__(self, prog: Program) -> None:
        dtype = prog.dtype
        self.arena = arena = np.zeros(max(prog.arena_size, 1), dtype=dtype)
        self.itab = prog.itab.copy()
        self.consts = prog.consts.copy()
        self.code = prog.code                        # fold.py's rewrite, once folded
        self.folded: list | None = None              # fold.py's D arrays ([]: none fold)
        self.tables_bound: dict = {}                 # itab position -> (itab, table array)
        prod = math.prod
        # bind_values' loop, per copied value: (its arena view, the source's kind, its node
        # or tensor number, its saved index, the source's shape, the source)
        self.copies = [(arena[off:off + prod(shape)].reshape(shape), src[0], src[1],
                        src[2] if len(src) > 2 else 0, vshape, src)
                       for off, shape, src, vshape in prog.values]
        # anything else to bind: externals' addresses, index tables, scalars
        self.binds_more = bool(prog.externals or prog.tables or prog.scalars)
        self.seed_views = [arena[off:off + n] for off, n in prog.seeds]
        self.seed_ones = [False] * len(prog.seeds)   # the slot holds ones from a run
        # a seed slot no row writes into keeps its ones between runs
        self.seed_clean = _seeds_clean(prog)
        self.ones_ready = False         # every seed slot holds ones
        self.seeds_dirty = not all(self.seed_clean)
        self.out_views = [arena[off:off + prod(shape)].reshape(shape)
                          for _, _, off, shape in prog.outputs]
        # per owned leaf row: (weak reference to the .grad array last pointed at, address)
        self.leaf_last: list = [None] * len(prog.leaf_rows)
        self.private: dict[int, np.ndarray] = {}     # externals that needed a copy
        self.call: Any = None                        # vm.compiled_call, for call_gen
        self.call_gen = -1
        for off, shape, arr in prog.literals:
            arena[off:off + math.prod(shape)].reshape(shape)[...] = arr
        self.nbytes = int(arena.nbytes + self.itab.nbytes + self.consts.nbytes)
        # (facts of the Program every Binding on this Workspace needs, computed once)
        self.leaf_js = [j for j, _ in prog.leaf_rows]
        owned = set(self.leaf_js)
        # outputs delivered from their slot after every run: all but the owned leaves
        # (their rows write through .grad) and grad()'s targets (Binding.results)
        self.deliver_items = [(j, self.out_views[j], kind)
                              for j, (kind, _, _, _) in enumerate(prog.outputs)
                              if kind != "target" and j not in owned]
        # the outputs' tensor numbers when each is a ("t", i) reference (Binding's common
        # case: leaves), else None
        refs = [ref for _, ref, _, _ in prog.outputs]
        self.out_tensor_index = [ref[1] for ref in refs] \
            if all(ref[0] == "t" for ref in refs) else None
        # run_once's test that every owned leaf's .grad is the array its row was pointed
        # at last time (so the itab holds its address already): (leaf row, tensor number),
        # when every output is a numbered tensor
        index = self.out_tensor_index
        self.leaf_checks = None if index is None else \
            [(i, index[j]) for i, (j, _) in enumerate(prog.leaf_rows)]


SMALL_ROWS = 64         # below this, Python lists answer _seeds_clean faster than numpy


def _seeds_clean(prog: Program) -> list[bool]:
    """Per seed slot: does no row write into it (an external `out` writes elsewhere)?"""
    code = prog.code
    if code.shape[0] <= SMALL_ROWS:         # (loops over one list: ~1 us less than spans)
        rows, clean = code.tolist(), []
        for off, n in prog.seeds:
            for row in rows:
                o = row[1]
                if o < off + n and o < EXT and o + (row[5] if row[5] > 1 else 1) > off:
                    clean.append(False)
                    break
            else:
                clean.append(True)
        return clean
    outs, ns = code[:, 1], np.maximum(code[:, 5], 1)
    inside = outs < EXT
    return [not bool(np.any(inside & (outs < off + n) & (outs + ns > off)))
            for off, n in prog.seeds]


def _make_callback(spec: tuple, graph: Graph) -> Any:
    if spec[0] == "hook":
        from .hook_calls import make_slot_hook
        return make_slot_hook(spec, graph)
    from .node_call import make_call
    return make_call(spec, graph)


def bind_values(p: Program, ws: Workspace, g: Graph, keep: list) -> None:
    """This graph's values into the Workspace: values copied into the arena, externals'
    addresses (arrays listed in `keep` while the itab addresses them), index tables and
    scalars."""
    copy_values(ws, g.nodes, g.tensors)
    if ws.binds_more:
        bind_addresses(p, ws, g.nodes, g.tensors, keep)


def copy_values(ws: Workspace, nodes: list, tensors: list) -> None:
    """bind_values' copies into the arena, from the graph of these nodes and tensors."""
    for view, kind, i, k, vshape, src in ws.copies:
        if kind == "s":                 # source_of(src), its three common cases inline
            v = nodes[i].saved[k]
        elif kind == "t":
            v = tensors[i]._data
        elif kind == "o":
            v = nodes[i].out_data
        else:
            v = source_of(nodes, tensors, src)
        view[...] = v if v.shape == vshape else v.reshape(vshape)


def bind_addresses(p: Program, ws: Workspace, nodes: list, tensors: list, keep: list
                   ) -> None:
    """bind_values' rest: externals' addresses, index tables and scalars."""
    if p.externals:
        itab, dtype = ws.itab, ws.arena.dtype
        for pos, shape, src, vshape in p.externals:
            v = source_of(nodes, tensors, src)
            n = math.prod(shape)
            if not (v.dtype == dtype and v.size == n and v.flags.c_contiguous):
                own = ws.private.get(pos)
                if own is None:
                    own = ws.private[pos] = np.empty(shape, dtype)
                own[...] = v if v.shape == vshape else v.reshape(vshape)
                v = own
            keep.append(v)
            itab[pos] = _address(v)
    bound = ws.tables_bound
    for pos, n, src in p.tables:
        t = source_of(nodes, tensors, src)
        last = bound.get(pos)
        if last is not None and last[1] is t and last[0] is ws.itab:
            continue                # the same read-only table as last time (a cached
            #                         index map of a shape: pad, transpose): no copy
        ws.itab[pos:pos + n] = t.reshape(-1)
        if isinstance(t, np.ndarray) and t.flags.owndata and not t.flags.writeable:
            bound[pos] = (ws.itab, t)
        elif last is not None:
            del bound[pos]
    for k, src, factor in p.scalars:
        ws.consts[k] = factor * float(source_of(nodes, tensors, src).reshape(-1)[0])


# ---- the steps of a run (Binding.run, and run_once for a graph that is not retained) -------

def write_seeds(ws: Workspace, seeds: list | None) -> None:
    """Seeds into their slots: a None entry (or None for all) is ones, kept across runs
    while no row writes into the slot."""
    views, ones = ws.seed_views, ws.seed_ones
    for i in range(len(views)):
        s = None if seeds is None else seeds[i]
        if s is None:
            if not ones[i]:
                views[i][...] = 1
                ones[i] = True
        else:
            views[i][...] = s._data.reshape(-1)
            ones[i] = False
    ws.ones_ready = all(ones)


def seeds_written(ws: Workspace) -> None:
    """The run added into some seed slots (a root that is also an input of another)."""
    for i, clean in enumerate(ws.seed_clean):
        if not clean:
            ws.seed_ones[i] = False
    ws.ones_ready = False


def point_leaves(p: Program, ws: Workspace, outs: list, pointed: list | None
                 ) -> list | None:
    """Point each owned leaf's writer row at the leaf's `.grad` array, so the row adds
    straight into it; a leaf without one gets a new array of -0.0. A `.grad` of another
    dtype, shape or layout keeps the row on its own slot, set to -0.0, and the slot is
    added after the run: those are listed as (tensor, slot view, new .grad or None).
    `pointed` (a retained Binding's) records the array each row writes into.

    -0.0, not 0.0: -0.0 + v is v for every v, so the row's first addition gives the
    gradient itself, a -0.0 one included (Paddle's fresh .grad of x * -0.0 is -0.0; +0.0
    + -0.0 is +0.0)."""
    itab, last = ws.itab, ws.leaf_last
    to_slot = None
    for i, (j, pos) in enumerate(p.leaf_rows):
        t = outs[j]
        g = t._grad
        prev = last[i]
        if g is not None and prev is not None and prev[0]() is g:
            itab[pos] = prev[1]
            if pointed is not None:
                pointed[i] = g
            if GRAPH_GRADS:
                detach_graph_grad(t)    # a create_graph .grad keeps its values
            continue
        view = ws.out_views[j]
        fresh = None
        if g is None and t._data.dtype == view.dtype:
            g = fresh = np.full(view.shape, -0.0, view.dtype)   # (fits: no checks)
        elif g is None or not (g.dtype == view.dtype and g.shape == view.shape and
                               g.flags.c_contiguous and g.flags.writeable):
            view[...] = -0.0
            last[i] = None
            if pointed is not None:
                pointed[i] = None
            itab[pos] = _address(view)
            if to_slot is None:
                to_slot = []
            to_slot.append((t, view, None))
            continue
        if fresh is not None:
            if to_slot is None:
                to_slot = []
            to_slot.append((t, view, fresh))
        else:
            detach_graph_grad(t)
        address = _address(g)
        last[i] = (weakref.ref(g), address)
        if pointed is not None:
            pointed[i] = g
        itab[pos] = address
    return to_slot


def execute(ws: Workspace) -> None:
    """All rows of a Program without callbacks, through the compiled call bound to this
    Workspace's arrays (made again when the VM changed: vm.generation)."""
    gen = vm.generation()
    if ws.call_gen != gen:
        ws.call = vm.compiled_call(ws.code, ws.arena, ws.itab, ws.consts)
        ws.call_gen = gen
    if ws.call is not None:
        ws.call()
    else:
        vm.execute(ws.code, ws.arena, ws.itab, ws.consts)


def deliver(outs: list, items: list, to_slot: list | None) -> None:
    """After a run: leaves accumulate their slot into `.grad` (Paddle), retained non-leaf
    gradients are overwritten; `to_slot` (point_leaves) finishes the leaves it listed."""
    for j, view, kind in items:
        t = outs[j]
        if kind == "leaf":
            g = t._grad
            if g is None:
                t._grad = view.astype(t._data.dtype, copy=True)
            elif not GRAPH_GRADS:       # deliver_grad's accumulation, inline
                _np_add(g, view, out=g, casting="unsafe")
            else:
                deliver_grad(t, view, kind)
        elif kind == "retain":
            deliver_grad(t, view, kind)
    if to_slot:
        for t, view, fresh in to_slot:
            if fresh is not None:
                t._grad = fresh         # a new .grad, written by the run
            else:
                deliver_grad(t, view, "leaf")


def out_tensors(p: Program, ws: Workspace, graph: Graph) -> list:
    """The tensors of the Program's outputs in this graph."""
    index = ws.out_tensor_index         # every output a numbered tensor (the leaves)
    if index is not None:
        return list(map(graph.tensors.__getitem__, index))
    tensor = graph.tensor
    return [tensor(ref) for _, ref, _, _ in p.outputs]


def run_once(p: Program, ws: Workspace, graph: Graph, want_outs: bool = False
             ) -> list | None:
    """backward() (or grad()) with ones seeds of a graph that is not retained, on a Program
    without callbacks: what Binding(p, graph, ws).run(None) does, without the Binding (a
    retained graph keeps one for its replays; this graph will not run again). Returns the
    output tensors when `want_outs` (target_results reads grad()'s answers with them)."""
    with RUN_LOCK:
        return run_once_held(p, ws, graph, want_outs)


def run_once_held(p: Program, ws: Workspace, graph: Graph, want_outs: bool = False
                  ) -> list | None:
    """run_once, for a caller holding RUN_LOCK (executor._step holds it for the step's
    match, run and give-back: one lock instead of three). A training loop's step is
    run_quick's; otherwise each owned leaf's row is pointed at its .grad (point_leaves)."""
    if not want_outs and run_quick(p, ws, graph.nodes, graph.tensors):
        return None
    keep = [] if p.externals else _NO_KEEP      # arrays the itab addresses, for the run
    bind_values(p, ws, graph, keep)
    if not ws.ones_ready:
        write_seeds(ws, None)
    outs = out_tensors(p, ws, graph)
    to_slot = point_leaves(p, ws, outs, None) if p.leaf_rows else None
    execute(ws)
    if ws.seeds_dirty:
        seeds_written(ws)
    if to_slot is not None or ws.deliver_items:
        deliver(outs, ws.deliver_items, to_slot)
    return outs


def run_quick(p: Program, ws: Workspace, nodes: list, tensors: list) -> bool:
    """run_once_held's training-loop case, for a caller holding RUN_LOCK, without a Graph:
    every owned leaf's .grad the array its row added into last time (the itab holds its
    address) and the outputs to deliver numbered tensors (ws.leaf_checks; grad()'s targets
    are the caller's), so a run is the binding, the compiled call and the deliveries.
    False, with nothing done: take run_once_held (which also detaches a leaf's
    differentiable .grad: create_graph's, GRAPH_GRADS; other tensors' keep this path)."""
    checks = ws.leaf_checks
    if checks is None:
        if ws.leaf_js or ws.deliver_items:
            return False
        checks = ()
    graph_grads = GRAPH_GRADS
    last = ws.leaf_last
    for i, k in checks:
        prev = last[i]
        if prev is None:
            return False
        t = tensors[k]
        g = t._grad
        if g is None or prev[0]() is not g or graph_grads and id(t) in graph_grads:
            return False
    copy_values(ws, nodes, tensors)
    keep = _NO_KEEP
    if ws.binds_more:
        keep = []                               # arrays the itab addresses, for the run
        bind_addresses(p, ws, nodes, tensors, keep)
    if not ws.ones_ready:
        write_seeds(ws, None)
    execute(ws)
    if ws.seeds_dirty:
        seeds_written(ws)
    items = ws.deliver_items
    if items:
        deliver(list(map(tensors.__getitem__, ws.out_tensor_index)), items, None)
    return True


def target_results(p: Program, ws: Workspace, outs: list, skip: Any = _NO_SKIP
                   ) -> dict[int, Tensor]:
    """grad()'s answers after a run: {id(target): a new gradient tensor}, copied out (but
    those in `skip`: undefined by a callback)."""
    found = {}
    views = ws.out_views
    for j, (kind, _, _, _) in enumerate(p.outputs):
        if kind == "target":
            t = outs[j]
            if skip and id(t) in skip:
                continue
            found[id(t)] = Tensor._make(views[j].astype(t._data.dtype, copy=True))
    return found


class Binding:
    """One graph bound to a Program: run it with seeds, then read the gradients."""

    __slots__ = ("program", "graph", "ws", "out_tensors", "callbacks", "keep", "entry",
                 "armed", "skip", "deliveries", "simple", "leaf_tensors", "pointed",
                 "__weakref__")

    def __init__(self, program: Program, graph: Graph, ws: Workspace | None = None,
                 entry: Any = None) -> None:
        self.program, self.graph, self.entry = program, graph, entry
        if ws is None:
            ws = Workspace(program)
        self.ws = ws
        # (every cache hit makes a Binding: the common case's lists are made by map, and
        # what only some Bindings use is shared, empty, until they need their own)
        self.out_tensors = out_tensors(program, ws, graph)
        self.callbacks = [_make_callback(spec, graph) for spec in program.callbacks] \
            if program.callbacks else _NO_CALLBACKS
        self.keep: list = [] if program.externals else _NO_KEEP    # arrays the itab addresses
        self.armed = -1                     # the epoch a retained replay may skip checks in
        self.skip: frozenset | set = _NO_SKIP
        self.deliveries = ws.deliver_items  # (shared; a filtered copy when callbacks skip)
        # (quick()'s facts: made at the first retained replay)
        self.simple: bool | None = None
        self.leaf_tensors: list | None = None
        # per owned leaf, the .grad array its row wrote into last (None: its slot): held,
        # as the Binding lives with its graph (a Workspace, which may outlive it, holds
        # weak references only)
        self.pointed: list = [None] * len(program.leaf_rows)
        bind_values(program, ws, graph, self.keep)

    # ---- running ----------------------------------------------------------------------
    def run(self, seeds: list | None) -> None:
        """Seeds in (None: ones for every root; a None entry: ones), the Program run, leaf
        gradients accumulated, and retained non-leaf gradients delivered."""
        p, ws = self.program, self.ws
        with RUN_LOCK:
            if seeds is not None or not ws.ones_ready:
                write_seeds(ws, seeds)
            outs = self.out_tensors
            to_slot = point_leaves(p, ws, outs, self.pointed) if p.leaf_rows else None
            self._execute()
            if ws.seeds_dirty:
                seeds_written(ws)
            deliver(outs, self.deliveries, to_slot)

    def _execute_with_callbacks(self) -> None:
        p, ws = self.program, self.ws
        self.skip = set()
        callbacks = self.callbacks
        for start, stop, cb in p.segments:
            if stop > start:
                vm.execute(ws.code, ws.arena, ws.itab, ws.consts, start=start, stop=stop)
            if cb >= 0:
                callbacks[cb](ws.arena)
        if any(getattr(cb, "none", None) for cb in callbacks):
            from .node_call import undefined_grads
            self.skip = undefined_grads(self)
            outs = self.out_tensors
            self.deliveries = [(j, view, kind) for j, view, kind in ws.deliver_items
                               if id(outs[j]) not in self.skip]

    def _execute(self) -> None:
        if self.program.callbacks:
            self._execute_with_callbacks()
        else:
            execute(self.ws)

    def results(self) -> dict[int, Tensor]:
        """grad()'s answers: {id(target): a new gradient tensor}, copied out."""
        return target_results(self.program, self.ws, self.out_tensors, self.skip)

    def run_batched(self, seeds: list) -> dict[int, np.ndarray]:
        """grad()'s answers for K cotangents at once: `seeds` holds one array per root with
        a leading K axis (None: ones for every k); returns {id(target): array [K, *shape]}.
        One compiled call runs the Program K times; a Program with Python callbacks (hooks,
        PyLayer) runs them one by one."""
        p, ws = self.program, self.ws
        given = [s for s in seeds if s is not None]
        K = given[0].shape[0] if given else 1
        cols = [np.ones((K, n), ws.arena.dtype) if s is None else
                s.reshape(K, n).astype(ws.arena.dtype, copy=False)
                for (_, n), s in zip(p.seeds, seeds)]
        matrix = np.ascontiguousarray(np.concatenate(cols, axis=1)) if cols else \
            np.zeros((K, 0), ws.arena.dtype)
        targets = [j for j, (kind, _, _, _) in enumerate(p.outputs) if kind == "target"]
        out_pos = np.array([(p.outputs[j][2], math.prod(p.outputs[j][3])) for j in targets],
                           np.int64).reshape(-1, 2)
        outs = np.empty((K, int(out_pos[:, 1].sum())), ws.arena.dtype)
        seed_pos = np.array(p.seeds, np.int64).reshape(-1, 2)
        with RUN_LOCK:
            ws.ones_ready = False
            for i in range(len(ws.seed_ones)):
                ws.seed_ones[i] = False
            if p.callbacks:
                self._batched_by_rows(matrix, seed_pos, outs, out_pos)
            else:
                vm.execute_batched(ws.code, ws.arena, ws.itab, ws.consts, seed_pos, matrix,
                                   out_pos, outs)
        found, c = {}, 0
        for j, (_, n) in zip(targets, out_pos):
            t = self.out_tensors[j]
            if not (self.skip and id(t) in self.skip):
                found[id(t)] = outs[:, c:c + n].reshape((K,) + p.outputs[j][3]).astype(
                    t._data.dtype, copy=True)
            c += int(n)
        return found

    def _batched_by_rows(self, matrix: np.ndarray, seed_pos: np.ndarray, outs: np.ndarray,
                         out_pos: np.ndarray) -> None:
        """run_batched for a Program with callbacks: each row through _execute."""
        arena = self.ws.arena
        for k in range(matrix.shape[0]):
            c = 0
            for off, n in seed_pos:
                arena[off:off + n] = matrix[k, c:c + n]
                c += n
            self._execute()
            c = 0
            for off, n in out_pos:
                outs[k, c:c + n] = arena[off:off + n]
                c += n

    def quick(self) -> bool:
        """A retained replay with ones seeds when all it takes is the compiled call: seed
        slots still hold ones, every output is an owned leaf whose `.grad` is the array its
        row points at, and the compiled entry is bound for the current VM. False: nothing
        was run (the caller takes run())."""
        ws = self.ws
        if self.simple is None:             # a replay may be just the compiled call: every
            outs = self.out_tensors         # output an owned leaf
            self.simple = not self.program.callbacks and len(ws.leaf_js) == len(outs)
            self.leaf_tensors = [outs[j] for j in ws.leaf_js]
        call = ws.call
        if call is None or ws.call_gen != vm.generation() or not (self.simple and
                                                                  ws.ones_ready):
            return False
        for t, a in zip(self.leaf_tensors, self.pointed):
            if t._grad is not a:
                return False
        with RUN_LOCK:
            call()
            if ws.seeds_dirty:
                seeds_written(ws)
        return True

    def fold(self) -> None:
        """Fold this retained Binding's chains (fold.py) on its first replay; once."""
        ws = self.ws
        if ws.folded is not None or self.program.callbacks or config.SETTINGS.exact_replay:
            return
        from . import fold
        rows = fold.plan(self.program)
        if not rows:
            ws.folded = []
            return
        with RUN_LOCK:
            ws.code, ws.itab, ws.folded = fold.fold(ws.code, ws.arena, ws.itab, ws.consts,
                                                    rows)
            ws.call_gen = -1                # the compiled call was bound to the old arrays
            ws.ones_ready = False           # (the fold wrote ones into chain inputs)
            for i in range(len(ws.seed_ones)):
                ws.seed_ones[i] = False

    def release(self) -> Workspace:
        """Drop this graph's arrays; the Workspace may serve the next graph."""
        self.keep = _NO_KEEP
        return self.ws
