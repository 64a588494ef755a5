"""The structural program cache: a new graph shaped like one already lowered reuses its Program.

A training loop builds a new graph every step, but the graphs are identical in everything
the lowering looks at: ops, attributes, shapes, dtypes, which tensors are shared, which need
gradients. The key below captures exactly that, so on a hit lowering is skipped: the saved
forward values are copied into the cached arena (the recipe says which array of which node
goes where) and the Program's outputs are pointed at the new leaves.

Only whitelisted ops take part. For each, `BAKED` names the forward values its lowering
folds into the Program as constants (a one-element factor becomes K); those values are part
of the key, so a different value misses. Graphs with hooks, retain_grads() tensors, ops
outside the whitelist (PyLayer, new ops) or a debug dump never use the cache.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from . import fastpath, tape
from .program import Program

MAX_PROGRAMS = 32


# op name -> the forward values its lowering bakes into the Program (as constants). Filled
# from the registry by admit_declared_ops(): each entry's `baked` declaration is the one
# place this is stated, and test_baked_declaration_matches_the_lowering checks it.
BAKED: dict[str, Callable[[Any], tuple] | None] = {}


def enabled() -> bool:
    return os.environ.get("JITGRAD_NO_STRUCTURAL", "") in ("", "0")


class Entry:
    __slots__ = ("prog", "recipe", "outputs", "hits", "binds")

    def __init__(self, prog: Program, recipe: list, outputs: list) -> None:
        self.prog, self.recipe, self.outputs, self.hits = prog, recipe, outputs, 0
        # the recipe as (arena view in the slot's shape, kind, index, saved index, shape)
        kinds = {"tensor": 0, "node": 1, "saved": 2}
        self.binds = [(prog.arena[off:off + n].reshape(shape), kinds[name[0]], name[1],
                       name[2] if len(name) > 2 else 0, src_shape)
                      for off, n, name, src_shape, shape in recipe]


_cache: "OrderedDict[tuple, Entry]" = OrderedDict()
_mru: Entry | None = None                 # the entry at the end of _cache
stats = {"hits": 0, "misses": 0, "uncacheable": 0}


def clear() -> None:
    global _mru
    for e in _cache.values():
        fastpath.release(e.prog)
    _cache.clear()
    _mru = None
    for k in stats:
        stats[k] = 0


# ---- the key ---------------------------------------------------------------------------------

def graph_key(roots: list) -> tuple[tuple, list, list] | None:
    """(key, nodes in canonical order, tensors by local index), or None if not cacheable.

    One breadth-first pass over the nodes the roots reach through tensors needing
    gradients, numbering each node when first met: that numbering depends only on the
    graph's structure, so it needs no sort and equal keys mean isomorphic graphs. Every
    such node must have an input needing a gradient, so all of them are on a path to a
    leaf (the lowering's plan keeps exactly these nodes). Attributes go into the key as
    they are: an unhashable one (an index array, a slice) makes the lookup raise
    TypeError, which the caller treats as not cacheable.
    """
    nodes: list = []
    index: dict[int, int] = {}
    tid: dict[int, int] = {}
    tensors: list = []
    parts: list = []
    for r in roots:
        tid[id(r)] = len(tensors)
        tensors.append(r)
        d = r._data
        parts.append(d.shape)
        parts.append(d.dtype)
        n = r._node
        if n is not None and id(n) not in index:
            index[id(n)] = len(nodes)
            nodes.append(n)
    baked_of = BAKED
    ep = tape._epoch
    for node in nodes:                    # (the list grows as nodes are met)
        name = node.op.name
        baked = baked_of.get(name, _MISSING)
        if baked is _MISSING:
            return None
        # Every change that could spoil a node (freeing it, hooks or retain_grads on its
        # output, in-place writes, stop_gradient flips) bumps the epoch: a node recorded
        # in this epoch needs none of the checks below, and its recording found an input
        # needing a gradient.
        fresh = node.epoch == ep
        if not fresh:
            chains = _node_chains()
            if node.freed or (len(chains) > 0 and node in chains):
                return None
            versions = node.versions
            ref = node.out_ref
            out = ref() if ref is not None else None
            if out is not None and (out._hooks or out._retain or
                                    out._version != versions[-1]):
                return None               # (a changed value: the general path raises)
            for t, v in zip(node.inputs, versions):
                if t._version != v:
                    return None
            if all(t._stop_gradient for t in node.inputs):
                return None
        parts.append(name)
        parts.append(len(node.inputs))    # (concat takes any number)
        for t in node.inputs:
            if t._hooks or t._retain:
                return None
            n = t._node
            if n is not None and not t._stop_gradient:
                i = index.get(id(n))
                if i is None:
                    i = index[id(n)] = len(nodes)
                    nodes.append(n)
                parts.append(i)
                continue
            i = tid.get(id(t))
            if i is None:
                i = tid[id(t)] = len(tensors)
                tensors.append(t)
                d = t._data
                parts.append((i, d.shape, d.dtype, t._stop_gradient, n is None))
            else:
                parts.append(-1 - i)      # a tensor met before: its index is enough
        parts.append(tuple(node.attrs.items()) if node.attrs else ())
        od = node.out_data
        parts.append(od.shape)
        parts.append(od.dtype)
        if baked is not None:
            parts.append(baked(node))
    return tuple(parts), nodes, tensors


_MISSING = object()


def _node_chains() -> Any:
    """Hooks registered on non-leaf tensors live with their nodes (hooks.py)."""
    global _chains
    if _chains is None:
        from .hooks import _node_chains as chains
        _chains = chains
    return _chains


_chains: Any = None


# ---- recipes: where each arena value comes from -----------------------------------------------

def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a is b:
        return True
    return (a.nbytes == b.nbytes and a.flags.c_contiguous and b.flags.c_contiguous and
            a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def _resolve(arr: np.ndarray, node: Any, index: dict, tensor_index: dict) -> tuple | None:
    """A canonical name for `arr` among the node's arrays, stable across equal graphs."""
    for i, t in enumerate(node.inputs):
        if _same(arr, t._data):
            k = index.get(id(t._node)) if t._node is not None else None
            return ("node", k) if k is not None else ("tensor", tensor_index[id(t)])
    if _same(arr, node.out_data):
        return ("node", index[id(node)])
    for i, s in enumerate(node.saved or ()):
        if isinstance(s, np.ndarray) and _same(arr, s):
            return ("saved", index[id(node)], i)
    return None


def make_recipe(sources: list, nodes: list, tensors: list) -> list | None:
    index = {id(n): k for k, n in enumerate(nodes)}
    tensor_index = {id(t): i for i, t in enumerate(tensors)}
    by_off: dict[int, tuple] = {}
    recipe = []
    for off, arr, shape, node in sources:
        if node is None:
            return None
        name = _resolve(arr, node, index, tensor_index)
        if name is None:
            return None
        item = (name, tuple(arr.shape), tuple(shape))
        if off in by_off:
            if by_off[off] != item:
                return None               # one slot, two different sources: not rebindable
            continue
        by_off[off] = item
        recipe.append((off, int(np.prod(shape, dtype=np.int64)), name, item[1], item[2]))
    return recipe


# ---- the backward entry point --------------------------------------------------------------

def run(roots: list, seeds: list) -> bool:
    """A non-retained backward through the cache. False: not cacheable, use the general path."""
    global _mru
    if not enabled() or any(r._node is not None and r._node.programs for r in roots):
        return False                      # a retained graph's own Program comes first
    found = graph_key(roots)
    if found is None:
        stats["uncacheable"] += 1
        return False
    key, nodes, tensors = found
    try:
        entry = _cache.get(key)
    except TypeError:                     # an unhashable attribute
        stats["uncacheable"] += 1
        return False
    if entry is None:
        entry = _insert(key, roots, nodes, tensors)
        if entry is None:
            stats["uncacheable"] += 1
            return False
        stats["misses"] += 1
    else:
        stats["hits"] += 1
        entry.hits += 1
        if entry is not _mru:             # (already last: moving it would rehash the key)
            _cache.move_to_end(key)
            _mru = entry
        _rebind(entry, nodes, tensors)
    fastpath.run(entry.prog, seeds, keep=True)
    entry.prog.nodes = []
    tape.free_nodes(nodes)
    return True


def _insert(key: tuple, roots: list, nodes: list, tensors: list) -> Entry | None:
    from .lower import lower
    sources: list = []
    prog = lower(roots, sources=sources)
    remap = getattr(prog, "offset_map", None)
    if remap is not None:                 # lower_opt.compact moved the values
        sources = [(remap(off), arr, shape, node) for off, arr, shape, node in sources]
    recipe = make_recipe(sources, nodes, tensors)
    tensor_index = {id(t): i for i, t in enumerate(tensors)}
    if recipe is None or prog.segments or any(id(t) not in tensor_index
                                              for t, _, _, _ in prog.outputs):
        return None
    outputs = [(tensor_index[id(t)], off, shape, kind) for t, off, shape, kind in prog.outputs]
    entry = Entry(prog, recipe, outputs)
    global _mru
    _cache[key] = entry
    _mru = entry
    if len(_cache) > MAX_PROGRAMS:
        _, old = _cache.popitem(last=False)
        fastpath.release(old.prog)
    return entry


def _rebind(entry: Entry, nodes: list, tensors: list) -> None:
    """Copy the new graph's saved values into the arena and point outputs at its tensors."""
    prog = entry.prog
    for dst, kind, i, j, src_shape in entry.binds:
        src = tensors[i]._data if kind == 0 else nodes[i].out_data if kind == 1 else \
            nodes[i].saved[j]
        if src.shape != src_shape:
            src = src.reshape(src_shape)
        dst[...] = src
    old = prog.outputs
    for a, b in zip(old, entry.outputs):
        if a[0] is not tensors[b[0]]:
            fastpath.release(prog)        # old leaves keep copies of their gradients
            prog.outputs = [(tensors[i], off, shape, kind)
                            for i, off, shape, kind in entry.outputs]
            break


def admit_declared_ops() -> None:
    """Whitelist every op whose registry entry declares `baked` (called once ops are loaded).

    The declaration is checked against the op's own lowering by
    test_baked_declaration_matches_the_lowering.
    """
    from .ops.registry import REGISTRY
    for name, op in REGISTRY.items():
        if "baked" in op.extra:
            BAKED.setdefault(name, op.extra["baked"])
