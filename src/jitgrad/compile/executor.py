"""The executor: the one place that decides how a backward runs.

Each backward without create_graph (backward() and grad()) goes through four explicit
states:

  replay     the graph was retained with a Binding for exactly this call: run it again.
  bind       a Program for this graph's structure is cached (graph.py's key): bind this
             graph's values to it (binding.py) and run (backward() of a graph it does
             not retain, ones seeds: at once, without a Binding: binding.run_once).
  interpret  not retained, and either a cacheable structure met for the first time (its
             key is remembered) or a graph that can never share a Program (hooks,
             retain_grads(), PyLayer): run its rules on arrays, node by node
             (autograd/interpret.py).
  lower      otherwise lower the graph into a new Program (lower.py), cache it when its
             key allows, bind and run.

A training loop's step (`loss.backward()`, or `grad(loss, params)` with default arguments,
on the graph of one of the two most recently used Programs) takes run_plain / grad_plain:
the cache's matchers first, then bind and run in one frame, the states' checks only when
they do not match. backward()'s step, when the leaves' .grad arrays are those the
Program's last spare Workspace added into last time, runs in that Workspace in place under
RUN_LOCK, without a Graph (binding.run_quick).

The program cache (program_cache.py) is keyed by graph structure, bounded in bytes
(Programs plus the spare Workspaces it keeps for reuse), thread-safe, and holds nothing of
any graph: a Program is pure data and a spare Workspace keeps no reference to the graph it
served. A retained graph keeps its Binding on its root node and releases it with the graph.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from .. import vm
from ..core import config, tape
from .binding import (RUN_LOCK, Binding, Workspace, out_tensors, run_once, run_once_held,
                      run_quick, target_results)
from .graph import Graph
from .lower import lower
from .program_cache import (CACHE, CacheInfo, cache_clear, cache_info,  # noqa: F401
                            caching_enabled, set_cache_limit)   # (re-exported: the cache API)
from ..vm.program import Program

BINDINGS_KEPT_PER_GRAPH = 4


class Ran(NamedTuple):
    """_state's answer when it ran the graph itself (a plain backward on a cache hit)."""
    graph: Graph


# ---- the states ----------------------------------------------------------------------------

def _call_key(roots: list, targets: list | None, stop: set | None) -> Any:
    """What a retained graph keeps a Binding under: the call's roots, targets and stop set
    (the plain `t.backward()` by id(t) alone: replay_retained's one dict lookup)."""
    if targets is None and stop is None and len(roots) == 1:
        return id(roots[0])
    return (tuple(id(r) for r in roots), None if targets is None else
            tuple(id(t) for t in targets), None if stop is None else frozenset(stop))


def _retained(roots: list, targets: list | None, stop: set | None) -> Binding | None:
    """replay: the Binding a retained graph keeps for exactly this call, still valid."""
    holder = roots[0]._node
    if holder is None or holder.programs is None:
        return None
    kept = holder.programs.get(_call_key(roots, targets, stop))
    if kept is None:
        return None
    b, refs = kept
    named = list(roots) + list(targets or ())
    if not all(ref() is t for ref, t in zip(refs, named)):
        return None                     # ids recycled: another call's tensors
    if b.armed == tape.epoch():
        return b
    # Something changed since (any in-place write, hook, freeing elsewhere): the graph must
    # still have exactly the structure, objects and versions the Binding was made for.
    g = Graph(roots, targets, stop)
    if g.key is not None and b.graph.key == g.key and _same_objects(g, b.graph):
        b.armed = tape.epoch()
        return b
    del holder.programs[_call_key(roots, targets, stop)]
    return None


def _same_objects(a: Graph, b: Graph) -> bool:
    return len(a.nodes) == len(b.nodes) and all(x is y for x, y in zip(a.nodes, b.nodes)) \
        and len(a.tensors) == len(b.tensors) and \
        all(x is y for x, y in zip(a.tensors, b.tensors))


def _keep(roots: list, targets: list | None, stop: set | None, b: Binding) -> None:
    holder = roots[0]._node
    if holder is None:
        return
    if holder.programs is None or len(holder.programs) >= BINDINGS_KEPT_PER_GRAPH:
        holder.programs = {}
    named = list(roots) + list(targets or ())
    b.armed = tape.epoch()
    holder.programs[_call_key(roots, targets, stop)] = (b, tuple(weakref.ref(t) for t in named))


def bind(roots: list, targets: list | None = None, stop: set | None = None,
         once: bool = False) -> Binding:
    """bind, or lower then bind: a new Binding of this graph to its Program. `once`: the
    caller does not retain the graph, so a new structure is lowered without the replay
    passes (lower's `quick`) until it recurs."""
    return _state(roots, targets, stop, once, False)  # type: ignore[return-value]


def _state(roots: list, targets: list | None, stop: set | None, once: bool,
           may_interpret: bool, plain: bool = False, found: tuple | None = None
           ) -> Binding | Graph | Ran:
    """bind, lower, or (`may_interpret`, not retained) interpret: a Binding to run, or the
    Graph to interpret (a structure met for the first time, or one no Program can serve).
    `plain`: the caller is backward() with ones seeds on a graph it does not retain, so a
    cached Program without callbacks is run here at once (binding.run_once) and Ran
    returned: nothing will run that graph again, so no Binding is made for it. `found`:
    CACHE.match_recent's answer for this graph, when the caller asked already."""
    entry = graph = None
    if found is not None:
        entry, graph = found
    elif caching_enabled():
        entry, graph = CACHE.lookup(roots, targets, stop)
    if entry is not None:
        if not entry.optimized:             # the structure recurs: worth the full passes
            prog, graph = lower(roots, targets, stop, graph)
            CACHE.upgrade(entry, prog)
        elif config.SETTINGS.verify_cache:   # (slow: the tests' proof that no lowering
            _check_hit(entry.program, roots, targets, stop, graph)
        prog = entry.program
        if plain and not prog.callbacks:
            ws = CACHE.take(entry) or Workspace(prog)
            run_once(prog, ws, graph)
            CACHE.give_back(entry, ws, prog)
            return Ran(graph)
        return Binding(prog, graph, CACHE.take(entry), entry)
    quick = once and caching_enabled()
    if quick and may_interpret and config.SETTINGS.interpret_new:
        if graph.key is None:               # no Program can serve it: never worth lowering
            CACHE.count_interpreted()
            return graph
        if CACHE.first_sighting(graph.key):
            vm.load_in_background()         # (for when it recurs)
            return graph
        quick = False                       # met before: it recurs, lower it fully
    prog, graph = lower(roots, targets, stop, graph, quick=quick)
    if graph.key is not None and caching_enabled():
        if prog.reason is None:
            entry = CACHE.insert(graph.key, prog, optimized=not quick)
        else:                               # a key, but a value the lowering cannot name
            CACHE.count_uncacheable()
    return Binding(prog, graph, None, entry)


def _interpret() -> Any:
    """autograd/interpret.py (a later stage: imported when first needed)."""
    global _interpret_module
    if _interpret_module is None:
        from ..autograd import interpret
        _interpret_module = interpret
    return _interpret_module


_interpret_module: Any = None


def _check_hit(cached: Program, roots: list, targets: list | None, stop: set | None,
               graph: Graph) -> None:
    fresh, _ = lower(roots, targets, stop, graph)
    diff = cached.difference(fresh)
    # (a fresh lowering that found one array shared by two tensors names no sources for
    # it: the cached Program, binding each tensor on its own, is right for this graph too)
    if diff is not None and fresh.reason is None:
        raise RuntimeError(
            f"jitgrad: a cached Program differs ({diff}) from a fresh lowering of a graph "
            "with the same key: some op's lowering depends on a value it does not name "
            f"(graph.py sources).\n--- cached\n{cached.text()}\n--- fresh\n{fresh.text()}")


def program_for(roots: list, targets: list | None = None, stop: set | None = None) -> Program:
    """The Program a backward of this graph runs (for dumps)."""
    return bind(roots, targets, stop).program


def release(b: Binding) -> None:
    CACHE.give_back(b.entry, b.release(), b.program)


def run_plain(t: Any) -> None:
    """`t.backward()`: run_backward([t], ones, retain_graph=False), with a training loop's
    step (the graph of one of the two most recently used Programs again, a Program
    without callbacks) matched, bound, run and freed here (_step): the general path's call
    layers cost ~3 us of a ~11 us backward."""
    entry, graph, ran, _ = _step(t, None)
    if ran:
        tape.free_nodes(graph)
    elif entry is None:
        run_backward([t], ONES, False)
    else:
        run_backward([t], ONES, False, (entry, graph))


def grad_plain(root: Any, targets: list) -> dict:
    """`grad(root, targets)` with default arguments: run_grad([root], ones, targets, None,
    False), with the training loop's case run here as run_plain runs it (grad() never
    frees the graph)."""
    entry, graph, ran, found = _step(root, targets)
    if ran:
        return found
    if entry is None:
        return run_grad([root], ONES, targets, None, False)
    return run_grad([root], ONES, targets, None, False, (entry, graph))


def _step(root: Any, targets: list | None) -> tuple:
    """A training loop's step on the graph of one of the two most recently used Programs,
    with ones seeds, under one acquisition of RUN_LOCK (the cache's lock too: the match,
    the run and the Workspace's return took one each, ~0.5-1 us a step): (entry, graph,
    ran, grad()'s answers when `targets`); when ran, `graph` is the graph's nodes (to
    free). entry None: no recent Program matched, or the graph is not for this path
    (retained, caching off, every hit checked); ran False: the matched one needs the
    general path (not yet fully lowered, callbacks).

    The entry's last spare Workspace is borrowed in place, not taken and given back:
    every use of a spare Workspace holds RUN_LOCK, as this does until the run is done (and
    grad()'s answers are copied out of it)."""
    node = root._node
    settings = config.SETTINGS
    if node is None or node.programs is not None or not settings.program_cache or \
            settings.verify_cache:
        return None, None, False, None
    roots = [root]
    with RUN_LOCK:
        hit = CACHE.match_step(roots, targets)
        if hit is None:
            return None, None, False, None
        entry, nodes, tensors = hit
        spare = entry.spare
        if spare and entry.plain:
            ws = spare[-1]
            prog = entry.program
            if run_quick(prog, ws, nodes, tensors):
                if targets is None:
                    return entry, nodes, True, None
                outs = out_tensors(prog, ws, _matched(roots, targets, nodes, tensors, entry.key))
                return entry, nodes, True, target_results(prog, ws, outs)
        graph = _matched(roots, targets, nodes, tensors, entry.key)
        if not entry.plain:
            return entry, graph, False, None
        prog = entry.program
        if spare:
            ws = CACHE.take(entry)
        else:
            ws = Workspace(prog)            # (no spare left: a new one)
        outs = run_once_held(prog, ws, graph, targets is not None)
        found = None if targets is None else target_results(prog, ws, outs)
        CACHE.give_back_held(entry, ws, prog)
    return entry, nodes, True, found


ONES = [None]       # the seeds of one root: ones (a None seed is ones)
_matched = Graph.matched


def run_backward(roots: list, seeds: list, retain_graph: bool,
                 found: tuple | None = None) -> None:
    """backward() on the compiled path: accumulate into leaves' .grad, fill retained grads,
    free the graph unless retained. `found`: CACHE.match_recent's answer (run_plain)."""
    b = None if found is not None else _retained(roots, None, None)
    kept = b is not None
    ones = not any([s is not None for s in seeds])  # (list.count would call Tensor.__eq__)
    if b is None:
        b = _state(roots, None, None, not retain_graph, True, ones and not retain_graph,
                   found)
        if type(b) is Ran:                  # run at once (binding.run_once)
            tape.free_nodes(b.graph.nodes)
            return
        if type(b) is Graph:
            _interpret().backward(b, roots, seeds)
            return
    else:
        b.fold()                            # a replay: worth folding its chains (fold.py)
    b.run(None if ones else seeds)          # (None: ones for every root)
    if retain_graph:
        if not kept:
            _keep(roots, None, None, b)
        return
    if kept:
        roots[0]._node.programs = None
    release(b)
    tape.free_nodes(b.graph.nodes)


def run_grad(roots: list, seeds: list, targets: list, stop: set | None,
             retain_graph: bool, found: tuple | None = None) -> dict:
    """grad() on the compiled path: {id(target): gradient}; never frees the graph (Paddle
    3.3.1); with retain_graph the Binding stays on the graph for the next call. `found`:
    CACHE.match_recent's answer (grad_plain)."""
    b = None if found is not None else _retained(roots, targets, stop)
    kept = b is not None
    if b is None:
        b = _state(roots, targets, stop, not retain_graph, True, found=found)
        if type(b) is Graph:
            return _interpret().grad(b, roots, seeds, targets, stop)
    b.run(seeds)
    found = b.results()
    if retain_graph and not kept:
        _keep(roots, targets, stop, b)
    elif not kept:
        release(b)
    return found


def run_grad_batched(roots: list, seeds: list, targets: list, stop: set | None,
                     retain_graph: bool) -> dict:
    """grad(..., batched=True): {id(target): array [K, *shape]} from one compiled call."""
    b = _retained(roots, targets, stop)
    kept = b is not None
    if b is None:
        b = bind(roots, targets, stop, once=not retain_graph)
    found = b.run_batched(seeds)
    if retain_graph and not kept:
        _keep(roots, targets, stop, b)
    elif not kept:
        release(b)
    return found


def replay_retained(t: Any) -> bool:
    """`t.backward(retain_graph=True)` on a graph retained for exactly this call and
    unchanged since (the epoch): the Binding runs again, without argument checks, as
    Binding.quick when that is all it takes. False: take the general path."""
    node = t._node
    if node is None or node.programs is None or t._stop_gradient:
        return False
    kept = node.programs.get(id(t))
    if kept is None:
        return False
    b, refs = kept
    if b.armed != tape.epoch() or refs[0]() is not t:
        return False
    if b.ws.folded is None:
        b.fold()
    if not b.quick():
        b.run(None)
    return True
