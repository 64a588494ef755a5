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

A training loop's next graph is usually the last one again: the two most recent entries
each carry a compiled matcher (compile_matcher) that compares a new graph with their key
part by part, without building it; anything else takes the key path.
"""

from __future__ import annotations

import copy
import os
import sys
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from . import external, fastpath, tape
from .lower_opt import point_owned_slots
from .program import Program

MAX_PROGRAMS = 32


# op name -> the forward values its lowering bakes into the Program (as constants). Filled
# from the registry by admit_declared_ops(): each entry's `baked` declaration is the one
# place this is stated, and test_baked_declaration_matches_the_lowering checks it.
BAKED: dict[str, Callable[[Any], tuple] | None] = {}


def enabled() -> bool:
    """False when JITGRAD_NO_STRUCTURAL is set to anything but "" or "0".

    Read on every backward (tests and scripts toggle it at run time), straight from
    os.environ's own dict: `os.environ.get` on an unset name raises and catches a KeyError
    inside, ~0.6 us a backward.
    """
    env = os.environ
    if env is _ENV:
        v = _ENV_DATA.get(_NO_KEY)
        return v is None or v in _OFF
    return env.get("JITGRAD_NO_STRUCTURAL", "") in ("", "0")


try:                                      # os._Environ's internals (CPython, every platform)
    _ENV, _ENV_DATA = os.environ, os.environ._data            # type: ignore[attr-defined]
    _NO_KEY = os.environ.encodekey("JITGRAD_NO_STRUCTURAL")   # type: ignore[attr-defined]
    _OFF = (os.environ.encodevalue(""), os.environ.encodevalue("0"))  # type: ignore
except AttributeError:                    # pragma: no cover - another Python
    _ENV = None


class Entry:
    __slots__ = ("prog", "recipe", "outputs", "hits", "binds", "match", "key", "family")

    def __init__(self, prog: Program, recipe: list, outputs: list, key: tuple) -> None:
        self.prog, self.recipe, self.outputs, self.hits = prog, recipe, outputs, 0
        self.key = key
        # the entries of this key, one Program each, bound to different output tensors
        # (two models of one structure taking turns); least recently used first
        self.family: list = [self]
        self.match: Callable | None = None     # see compile_matcher
        # the recipe as (where the value goes, kind, index, saved index, shape): the arena
        # view in the slot's shape, or for a value read in place (external.py) the itab
        # position of its address and the slot's shape
        kinds = {"tensor": 0, "node": 1, "saved": 2}
        self.binds = [((prog.ext_pos[off], shape) if off in prog.ext_pos else
                       prog.arena[off:off + n].reshape(shape), kinds[name[0]], name[1],
                       name[2] if len(name) > 2 else 0, src_shape)
                      for off, n, name, src_shape, shape in recipe]


_cache: "OrderedDict[tuple, Entry]" = OrderedDict()
_mru: Entry | None = None                 # the entry at the end of _cache
_prev: Entry | None = None                # the one before it (two graphs taking turns)
stats = {"hits": 0, "misses": 0, "uncacheable": 0}


def clear() -> None:
    global _mru, _prev
    for e in _cache.values():
        for member in e.family:
            fastpath.release(member.prog)
    _cache.clear()
    _mru = _prev = None
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
        if n is None:
            parts.append(-1)              # a leaf root (which roots own nodes is structure)
        else:
            i = index.get(id(n))
            if i is None:
                i = index[id(n)] = len(nodes)
                nodes.append(n)
            parts.append(i)
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


# ---- the MRU check: graph_key's comparison, compiled for one entry ----------------------------

MATCH_MAX_NODES = 400             # larger graphs take the key path (and a bigger function)


def compile_matcher(key: tuple, nodes: list, entry: Entry) -> Callable | None:
    """A function `(roots, epoch) -> (nodes, tensors) | None` saying whether a new graph has
    exactly `key`, without building or hashing it. On a match whose output tensors are the
    Program's it has also placed the new graph's values (as `_bind_values` does) and returns
    (nodes, None); when the outputs are other tensors it binds nothing and returns the
    graph's tensors too, for `_member_for` to pick or make the family member for them.

    The training-loop case: the graph of the previous step again. The key is parsed back
    into its parts (graph_key's layout) and each part becomes a line of straight-line code
    comparing the new graph's attribute with the constant. Node and tensor numbering is
    checked as graph_key makes it: an input the key numbers as met before must be that very
    object, one met for the first time is taken as the next number, and at the end all
    nodes (and all tensors) must be distinct objects. Checks stricter than the key's
    equality (the op object, dtype identity, every node recorded in the current epoch) only
    send a graph to the key path, which decides exactly. None: too large to compile.
    """
    if len(nodes) > MATCH_MAX_NODES:
        return None
    consts: list = []

    def c(value: Any) -> str:
        consts.append(value)
        return f"C{len(consts) - 1}"

    lines = ["def match(roots, ep):"]
    emit = lines.append
    i = nroots = nnodes = 0
    while i < len(key) and not isinstance(key[i], str):      # roots: shape, dtype, node
        shape, dtype, ni = key[i:i + 3]
        r = nroots
        emit(f"    T{r} = roots[{r}]")
        emit(f"    d = T{r}._data")
        emit(f"    if d.shape != {c(shape)} or d.dtype is not {c(dtype)}: return None")
        emit(f"    n = T{r}._node")
        if ni < 0:
            emit("    if n is not None: return None")
        elif ni == nnodes:
            emit("    if n is None: return None")
            emit(f"    N{ni} = n")
            nnodes += 1
        else:
            emit(f"    if n is not N{ni}: return None")
        nroots += 1
        i += 3
    lines.insert(1, f"    if len(roots) != {nroots}: return None")
    ntensors = nroots
    # what the checks fix about each object: two with different signatures cannot be the
    # same object, so only equal signatures need the distinctness check
    tensor_sigs = [(key[3 * r], key[3 * r + 1], key[3 * r + 2] < 0) for r in range(nroots)]
    node_sigs: list = []
    for k, node in enumerate(nodes):
        name, nin = key[i], key[i + 1]
        i += 2
        if node.op.name != name:
            return None                   # (cannot happen: key and nodes come together)
        N = f"N{k}"
        emit(f"    if {N}.epoch != ep or {N}.op is not {c(node.op)}: return None")
        if nin:
            emit(f"    {', '.join(f'a{p}' for p in range(nin))}, = {N}.inputs")
        else:
            emit(f"    if {N}.inputs: return None")
        for p in range(nin):
            part = key[i]
            i += 1
            t = f"a{p}"
            # (no hook test for a node's output: hooks or retain_grads added after the node
            # was recorded bumped the epoch, and every node's own epoch is checked)
            hooked = f"{t}._hooks or {t}._retain"
            if isinstance(part, tuple):   # a tensor met for the first time
                ti, shape, dtype, sg, leaf = part
                if ti != ntensors:
                    return None
                emit(f"    if {hooked} or {'not ' if sg else ''}{t}._stop_gradient or "
                     f"{t}._node is {'not ' if leaf else ''}None: return None")
                emit(f"    T{ti} = {t}")
                tensor_sigs.append((shape, dtype, leaf))
                emit(f"    d = {t}._data")
                emit(f"    if d.shape != {c(shape)} or d.dtype is not {c(dtype)}: return None")
                ntensors += 1
            elif part < 0:                # a tensor met before
                emit(f"    if {t} is not T{-1 - part} or {hooked} or ({t}._node is not None "
                     f"and not {t}._stop_gradient): return None")
            else:                         # a node
                emit(f"    n = {t}._node")
                emit(f"    if n is None or {t}._stop_gradient: return None")
                if part == nnodes:
                    emit(f"    N{part} = n")
                    nnodes += 1
                else:
                    emit(f"    if n is not N{part}: return None")
        attrs = key[i]
        if attrs:                         # equal, and hashable as the key's lookup needs
            emit(f"    x = {N}.attrs")
            emit(f"    if x != {c(dict(attrs))}: return None")
            emit("    hash(tuple(x.values()))")
        else:
            emit(f"    if {N}.attrs: return None")
        emit(f"    d = {N}.out_data")
        emit(f"    if d.shape != {c(key[i + 1])} or d.dtype is not {c(key[i + 2])}: return None")
        node_sigs.append((id(node.op), key[i + 1], key[i + 2]))
        i += 3
        baked = BAKED.get(name)
        if baked is not None:
            emit(f"    if {c(baked)}({N}) != {c(key[i])}: return None")
            i += 1
    if i != len(key) or nnodes != len(nodes):
        return None
    nodes_list = f"[{', '.join(f'N{k}' for k in range(nnodes))}]"
    tensors_list = f"[{', '.join(f'T{t}' for t in range(ntensors))}]"
    emit(f"    nodes = {nodes_list}")
    _emit_distinct(emit, "N", "nodes", nnodes, node_sigs)
    _emit_distinct(emit, "T", tensors_list, ntensors, tensor_sigs)
    prog = entry.prog
    outs = " or ".join(f"o[{j}][0] is not T{ti}" for j, (ti, _, _, _) in
                       enumerate(entry.outputs))
    if outs:                              # another model's graph: its tensors, nothing bound
        emit(f"    o = {c(prog)}.outputs")
        emit(f"    if {outs}: return nodes, {tensors_list}")
    for dst, kind, a, b, src_shape in entry.binds:   # the values, as _bind_values places them
        if kind == 2:
            emit(f"    s = N{a}.saved[{b}]")
            emit(f"    if s.shape != {c(src_shape)}: s = s.reshape({c(src_shape)})")
        else:                             # (the key fixed these shapes)
            emit(f"    s = {'T' if kind == 0 else 'N'}{a}.{'_data' if kind == 0 else 'out_data'}")
        if type(dst) is tuple:            # read in place: the address, or external.bind
            pos, shape = dst
            emit(f"    if s.dtype is {c(prog.arena.dtype)} and s.size == "
                 f"{prog.ext_size[pos]} and s.flags.c_contiguous:")
            emit(f"        {c(prog.ext_keep)}[{pos}] = s")
            emit(f"        {c(prog.itab)}[{pos}] = s.ctypes.data")
            emit(f"    else: {c(external.bind)}({c(prog)}, {pos}, s, {c(shape)})")
        else:
            emit(f"    {c(dst)}[...] = s")
    emit("    return nodes, None")
    names = ", ".join(f"C{j}" for j in range(len(consts)))
    src = (f"def make({names}):\n" + "\n".join("    " + ln for ln in lines) +
           "\n    return match\n")
    scope: dict = {}
    exec(compile(src, f"<structural matcher, {len(nodes)} nodes>", "exec"), scope)
    return scope["make"](*consts)


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
    if not enabled():
        return False
    for r in roots:
        n = r._node
        if n is not None and n.programs:
            return False                  # a retained graph's own Program comes first
    found = other = None
    for entry in (_mru, _prev):           # the previous step's graph (or the one before)
        if entry is not None and entry.match is not None:
            try:
                found = entry.match(roots, tape._epoch)
            except (TypeError, ValueError):   # an attribute that does not compare (an array)
                found = None
            if found is not None:
                if found[1] is None:
                    break                 # a recent graph again, rebound
                if other is None:         # the same structure on other output tensors
                    other = entry, found
                found = None
    if found is not None or other is not None:
        if found is None:
            entry, (nodes, tensors) = other
            entry = _member_for(entry, nodes, tensors)
            if entry.match is None:
                entry.match = compile_matcher(entry.key, nodes, entry)
        else:
            nodes = found[0]
        if entry is not _mru:
            _cache.move_to_end(entry.key)
            _make_mru(entry)
        stats["hits"] += 1
        entry.hits += 1
    else:
        found = graph_key(roots)
        if found is None:
            stats["uncacheable"] += 1
            return False
        key, nodes, tensors = found
        try:
            entry = _cache.get(key)
        except TypeError:                 # an unhashable attribute
            stats["uncacheable"] += 1
            return False
        if entry is None:
            entry = _insert(key, roots, nodes, tensors)
            if entry is None:
                stats["uncacheable"] += 1
                return False
            stats["misses"] += 1
        else:
            entry = _member_for(entry, nodes, tensors)
            stats["hits"] += 1
            entry.hits += 1
            if entry is not _mru:         # (already last: moving it would rehash the key)
                _cache.move_to_end(key)
                _make_mru(entry)
            if entry.match is None:       # the graph recurs: worth a matcher (~0.1 ms/node)
                entry.match = compile_matcher(key, nodes, entry)
    prog = entry.prog
    r = getattr(prog, "_replay", None)
    ones = r is not None
    for s in seeds:
        if s is not None:
            ones = False
    if not (ones and fastpath.quick(r)):
        fastpath.run(prog, seeds, keep=True)
    prog.nodes = []
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
    entry = Entry(prog, recipe, outputs, key)
    _cache[key] = entry
    _make_mru(entry)
    if len(_cache) > MAX_PROGRAMS:
        global _prev
        _, old = _cache.popitem(last=False)
        for member in old.family:
            fastpath.release(member.prog)
            if member is _prev:
                _prev = None
    return entry


def _make_mru(entry: Entry) -> None:
    """`entry` is now last in _cache; the one that was last becomes _prev."""
    global _mru, _prev
    _prev, _mru = _mru, entry


MAX_FAMILY = 4       # Programs per structure, each bound to its own output tensors


def _member_for(entry: Entry, nodes: list, tensors: list) -> Entry:
    """The entry of `entry`'s family whose outputs are this graph's `tensors`, with the
    graph's values bound: the one already bound to them, else a new member (a copy of the
    Program with its own arena), else the least recently used one retargeted. So models of
    one structure taking turns (a GAN's two networks, an ensemble) each keep a Program whose
    leaf gradients they own, instead of one Program retargeted at every switch."""
    family = entry.family
    for member in family:
        if all(o[0] is tensors[e[0]] for o, e in zip(member.prog.outputs, member.outputs)):
            break
    else:
        member = entry if not _outputs_in_use(entry, tensors) else \
            _copy_entry(entry) if len(family) < MAX_FAMILY else family[0]
    if family[-1] is not member:
        family.remove(member)
        family.append(member)
    _bind_values(member, nodes, tensors)
    return member


def _outputs_in_use(entry: Entry, tensors: list) -> bool:
    """Whether a tensor the entry's Program delivers to, and this graph does not, is still
    referenced from outside the Program: another model's parameter (keep its Program: make
    a new member), or a fresh input of an earlier step nobody holds (retarget this one).
    A guess from reference counts: a wrong one costs speed or memory, never a result."""
    r = getattr(entry.prog, "_replay", None)
    for o, e in zip(entry.prog.outputs, entry.outputs):
        t = o[0]
        if t is tensors[e[0]]:
            continue
        # ours: prog.outputs, the Replay's list entry and its one-leaf field; plus this
        # frame's `t` and getrefcount's argument
        ours = 3 + (r is not None) + (r is not None and r.leaf is t)
        if sys.getrefcount(t) > ours:
            return True
    return False


def _copy_entry(entry: Entry) -> Entry:
    """A new member of entry's family: the same code on an arena and itab of its own."""
    prog = copy.copy(entry.prog)
    prog.__dict__.pop("_replay", None)
    prog.arena, prog.itab = prog.arena.copy(), prog.itab.copy()
    prog.ext_keep, prog.ext_private, prog.nodes = {}, {}, []
    point_owned_slots(prog)               # its leaf rows write into its own arena
    member = Entry(prog, entry.recipe, entry.outputs, entry.key)
    member.family = entry.family
    entry.family.append(member)
    prog.outputs = []                     # pointed at the graph's tensors by _bind_values
    return member


def _bind_values(entry: Entry, nodes: list, tensors: list) -> None:
    """Place the new graph's saved values (copied into the arena, or read in place) and
    point the outputs at its tensors if they are others."""
    prog = entry.prog
    if len(prog.outputs) != len(entry.outputs) or any(
            a[0] is not tensors[b[0]] for a, b in zip(prog.outputs, entry.outputs)):
        _retarget(entry, tensors)
    for dst, kind, i, j, src_shape in entry.binds:
        src = tensors[i]._data if kind == 0 else nodes[i].out_data if kind == 1 else \
            nodes[i].saved[j]
        if src.shape != src_shape:
            src = src.reshape(src_shape)
        if type(dst) is tuple:
            external.bind(prog, dst[0], src, dst[1])
        else:
            dst[...] = src


def _emit_distinct(emit: Callable, x: str, listed: str, count: int, sigs: list) -> None:
    """The matcher's check that its `count` objects x0, x1, ... (listed by the expression
    `listed`) are distinct: `is` tests between those of equal signature, or one set of
    ids when there would be many such pairs."""
    groups: dict = {}
    for k, sig in enumerate(sigs):
        groups.setdefault(sig, []).append(k)
    pairs = [(a, b) for g in groups.values() for j, a in enumerate(g) for b in g[j + 1:]]
    if len(pairs) > 8:
        emit(f"    if len(set(map(id, {listed}))) != {count}: return None")
        return
    for a, b in pairs:
        emit(f"    if {x}{a} is {x}{b}: return None")


def _retarget(entry: Entry, tensors: list) -> None:
    """Point the Program's outputs at the new graph's tensors."""
    prog = entry.prog
    fastpath.release(prog)                # old leaves keep copies of their gradients
    prog.outputs = [(tensors[i], off, shape, kind) for i, off, shape, kind in entry.outputs]


def admit_declared_ops() -> None:
    """Whitelist every op whose registry entry declares `baked` (called once ops are loaded).

    The declaration is checked against the op's own lowering by
    test_baked_declaration_matches_the_lowering.
    """
    from .ops.registry import REGISTRY
    for name, op in REGISTRY.items():
        if "baked" in op.extra:
            BAKED.setdefault(name, op.extra["baked"])
