"""A recorded graph in canonical form: its nodes and tensors numbered by structure, and a key.

Two graphs with equal keys are isomorphic in everything a lowering looks at (ops, normalised
attributes, shapes, dtypes, which tensors are shared, which need gradients, which are
targets or constants), so one Program serves both: each graph binds its own values to it
by these canonical numbers (binding.py). The numbering comes from one breadth-first walk
from the roots, numbering a node or tensor when first met; it depends only on structure.

Sources name where a value comes from in canonical terms, so a Program can say "the saved
array 0 of node 3" without holding the array:
    ("t", i)        tensors[i]._data       (roots first, then leaf and constant inputs)
    ("o", k)        nodes[k].out_data
    ("s", k, j)     nodes[k].saved[j]
    ("a", k, name)  nodes[k].attrs[name]   (an array attribute)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core import tape


class Uncacheable(Exception):
    """An attribute with no key: the graph cannot share a Program (the reason is the
    message)."""


def _norm(v: Any, bound: bool) -> Any:
    """A hashable stand-in for an attribute value that compares equal exactly when the
    lowering would do the same. Arrays are keyed by content, or by shape and dtype only for
    attributes the op declares `bound_attrs` (the lowering reads them only as bound tables,
    which each graph fills with its own data)."""
    t = type(v)
    if t is int or t is str or v is None:
        return v
    if t is float or t is bool:             # tagged: 1, 1.0 and True are equal in a tuple
        return (t.__name__, v)
    if t is tuple or t is list:
        return (t.__name__,) + tuple(_norm(x, bound) for x in v)
    if t is np.ndarray:
        return ("nd", v.shape, v.dtype.str) if bound else ("nd", v.shape, v.dtype.str,
                                                           v.tobytes())
    if t is slice:
        return ("slice", _norm(v.start, bound), _norm(v.stop, bound), _norm(v.step, bound))
    if isinstance(v, (np.generic, np.dtype, type)) or v is Ellipsis:
        return (t.__name__, v)
    if t is dict:
        return ("dict",) + tuple((k, _norm(x, bound)) for k, x in sorted(v.items()))
    raise Uncacheable(f"attribute of type {t.__name__}")


def attrs_key(node: tape.Node) -> tuple:
    attrs = node.attrs
    if not attrs:
        return ()
    bound = node.op.extra.get("bound_attrs", ())
    key = []
    for k, v in attrs.items():
        t = type(v)
        if t is int or t is str or v is None:       # _norm's first cases, inline
            key.append((k, v))
        elif t is float or t is bool:
            key.append((k, (t.__name__, v)))
        else:
            key.append((k, _norm(v, k in bound)))
    return tuple(key)


class Graph:
    """The canonical form of the graph from `roots` (through tensors needing gradients).

    `key` is None when the graph cannot share a Program (`reason` says why): hooks,
    retain_grads() tensors, PyLayer nodes, freed or changed nodes, unhashable attributes.
    `targets` (grad()'s inputs) and `stop` (no_grad_vars ids) are part of the key.
    """

    __slots__ = ("roots", "targets", "stop", "nodes", "tensors", "key", "reason",
                 "_node_index", "_tensor_index")

    def __init__(self, roots: list, targets: list | None = None, stop: set | None = None,
                 nodes: list | None = None, tensors: list | None = None,
                 key: tuple | None = None) -> None:
        self.roots, self.targets, self.stop = roots, targets, stop
        self._node_index = self._tensor_index = None
        if nodes is not None:               # a matcher's result: the key is its entry's
            self.nodes, self.tensors, self.key, self.reason = nodes, tensors, key, None
            return
        self.nodes, self.tensors = [], []
        self.reason = None
        self.key = _walk(self, roots, targets, stop)

    def node_index(self) -> dict[int, int]:
        if self._node_index is None:
            self._node_index = {id(n): k for k, n in enumerate(self.nodes)}
        return self._node_index

    def tensor_index(self) -> dict[int, int]:
        if self._tensor_index is None:
            self._tensor_index = {id(t): i for i, t in enumerate(self.tensors)}
        return self._tensor_index

    def source(self, src: tuple) -> Any:
        """The array a source names in this graph."""
        kind = src[0]
        if kind == "t":
            return self.tensors[src[1]]._data
        node = self.nodes[src[1]]
        if kind == "o":
            return node.out_data
        if kind == "s":
            return node.saved[src[2]]
        return node.attrs[src[2]]

    def tensor(self, ref: tuple) -> Any:
        """The tensor a reference names: ("t", i), ("n", k, i) = nodes[k].inputs[i], or
        ("g", j) = targets[j]."""
        kind = ref[0]
        if kind == "t":
            return self.tensors[ref[1]]
        if kind == "n":
            return self.nodes[ref[1]].inputs[ref[2]]
        return self.targets[ref[1]]


def _walk(g: Graph, roots: list, targets: list | None, stop: set | None) -> tuple | None:
    """Number every node and tensor of the graph; the key, or None with `g.reason` set
    (the walk still numbers the whole graph: a Program lowered for it names its values
    by these numbers)."""
    nodes, tensors = g.nodes, g.tensors

    def refuse(reason: str) -> None:
        if g.reason is None:
            g.reason = reason
    index: dict[int, int] = {}
    tid: dict[int, int] = {}
    parts: list = []
    for r in roots:
        tid[id(r)] = len(tensors)
        tensors.append(r)
        d = r._data
        parts.append(d.shape)
        parts.append(d.dtype)
        n = r._node
        if n is None:
            parts.append(-1)                # a leaf root (which roots own nodes is structure)
        else:
            if r._hooks is not None or r._retain:
                refuse("a root with hooks or retain_grads()")
            i = index.get(id(n))
            if i is None:
                i = index[id(n)] = len(nodes)
                nodes.append(n)
            parts.append(i)
    ep = tape.epoch()
    chains = _node_chains()
    for node in nodes:                      # (the list grows as nodes are met)
        op = node.op
        reason = op.extra.get("uncacheable")
        if reason:
            refuse(reason)
        # Every change that could spoil a node (freeing it, hooks or retain_grads on its
        # output, in-place writes, stop_gradient flips) bumps the epoch: a node recorded
        # in this epoch needs none of the checks of `stale`.
        if node.epoch != ep:
            reason = stale(node, chains)
            if reason:
                refuse(reason)
        parts.append(op.name)
        parts.append(len(node.inputs))      # (concat takes any number)
        for t in node.inputs:
            if t._hooks is not None or t._retain:
                refuse("hooks or retain_grads()")
            n = t._node
            if n is not None and not t._stop_gradient and (stop is None or id(t) not in stop):
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
                parts.append(-1 - i)        # a tensor met before: its index is enough
        try:
            parts.append(attrs_key(node))
        except Uncacheable as e:
            refuse(str(e))
        od = node.out_data
        parts.append(od.shape)
        parts.append(od.dtype)
    if targets is not None:                 # grad(): which tensors the results are for
        parts.append("targets")
        parts.extend(_target_parts(targets, nodes, tensors))
    if stop is not None:
        parts.append("stop")
        parts.append(tuple(sorted(tid[s] for s in stop if s in tid)))
    if g.reason is not None:
        return None
    return tuple(parts)


def stale(node: Any, chains: Any) -> str | None:
    """Why a node recorded before the current epoch cannot share a Program (None: it can)."""
    if node.freed:
        return "freed by an earlier backward"
    if len(chains) > 0 and node in chains:
        return "hooks"
    versions = node.versions
    ref = node.out_ref
    out = ref() if ref is not None else None
    if out is not None and (out._hooks or out._retain or out._version != versions[-1]):
        return "changed since recorded"
    for t, v in zip(node.inputs, versions):
        if t._version != v:
            return "changed since recorded"
    if all(t._stop_gradient for t in node.inputs):
        return "changed since recorded"
    if node.op.save_needs:              # a factor skipped at record time, needed now:
        saved = node.saved              # the lowering computes it (ops/derivative.py)
        for j, i in enumerate(node.op.extra["saved_inputs"]):
            if saved[j] is None and not node.inputs[i]._stop_gradient:
                return "stop_gradient turned off after the op was recorded"
    return None


def _node_chains() -> Any:
    """Hooks registered on non-leaf tensors live with their nodes (core/hooks.py)."""
    global _chains
    if _chains is None:
        from ..core.hooks import _node_chains as chains
        _chains = chains
    return _chains


_chains: Any = None


# ---- the matcher: the walk's comparison compiled for one key ----------------------------------

MATCH_MAX_NODES = 400             # larger graphs take the key path (and a bigger function)


def compile_matcher(key: tuple, g: Graph) -> Callable | None:
    """A function `(roots, epoch) -> (nodes, tensors) | None` saying whether a new graph from
    `roots` has exactly `key`, without building or hashing the key: the training-loop case
    of the previous step's graph again, ~10x cheaper than the walk.

    The key is parsed back into its parts (the walk's layout) and each part becomes a line
    of straight-line code comparing the new graph's attribute with the constant. Node and
    tensor numbering is checked as the walk makes it: an input the key numbers as met
    before must be that very object, one met for the first time is taken as the next
    number, and at the end all nodes (and all tensors) must be distinct objects. Checks
    stricter than the key's equality (the op object, dtype identity, every node recorded in
    the current epoch, or else `stale`'s checks) only send a graph to the walk, which
    decides exactly. None: too large, or a key with a stop set (grad()'s no_grad_vars
    take the walk). For grad()'s keys the new graph's `targets` are checked as the walk
    numbers them.
    """
    nodes = g.nodes
    if len(nodes) > MATCH_MAX_NODES or g.stop is not None:
        return None
    consts: list = []

    def c(value: Any) -> str:
        consts.append(value)
        return f"C{len(consts) - 1}"

    lines = ["def match(roots, ep, targets=None):"]
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
        else:
            emit(f"    if n is None or T{r}._hooks is not None or T{r}._retain: return None")
            if ni == nnodes:
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
        # a node from an earlier epoch (an in-place write since: batch_norm's running
        # statistics) gets the walk's checks here rather than sending the graph to the walk
        emit(f"    if {N}.op is not {c(node.op)}: return None")
        emit(f"    if {N}.epoch != ep and {c(stale)}({N}, {c(_node_chains())}): return None")
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
            hooked = f"{t}._hooks is not None or {t}._retain"
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
                emit(f"    if n is None or {t}._stop_gradient or {hooked}: return None")
                if part == nnodes:
                    emit(f"    N{part} = n")
                    nnodes += 1
                else:
                    emit(f"    if n is not N{part}: return None")
        attrs = key[i]
        if attrs:
            _emit_attrs(emit, c, N, attrs, node.op.extra.get("bound_attrs", ()))
        else:
            emit(f"    if {N}.attrs: return None")
        emit(f"    d = {N}.out_data")
        emit(f"    if d.shape != {c(key[i + 1])} or d.dtype is not {c(key[i + 2])}: return None")
        node_sigs.append((id(node.op), key[i + 1], key[i + 2]))
        i += 3
    want_targets = None
    if g.targets is not None:
        if i >= len(key) or key[i] != "targets":
            return None
        want_targets = tuple(key[i + 1:i + 1 + len(g.targets)])
        i += 1 + len(g.targets)
    if i != len(key) or nnodes != len(nodes):
        return None
    nodes_list = f"[{', '.join(f'N{k}' for k in range(nnodes))}]"
    tensors_list = f"[{', '.join(f'T{t}' for t in range(ntensors))}]"
    emit(f"    nodes = {nodes_list}")
    _emit_distinct(emit, "N", "nodes", nnodes, node_sigs)
    emit(f"    tensors = {tensors_list}")
    _emit_distinct(emit, "T", "tensors", ntensors, tensor_sigs)
    if want_targets is None:
        emit("    if targets is not None: return None")
    else:
        emit(f"    if targets is None or {c(_target_parts)}(targets, nodes, tensors) != "
             f"{c(want_targets)}: return None")
    emit("    return nodes, tensors")
    names = ", ".join(f"C{j}" for j in range(len(consts)))
    src = (f"def make({names}):\n" + "\n".join("    " + ln for ln in lines) +
           "\n    return match\n")
    scope: dict = {}
    exec(compile(src, f"<graph matcher, {len(nodes)} nodes>", "exec"), scope)
    return scope["make"](*consts)


def _target_parts(targets: list, nodes: list, tensors: list) -> tuple:
    """The key's target parts for these targets, numbered as _walk numbers them."""
    tid = {id(t): i for i, t in enumerate(tensors)}
    nid = {id(n): k for k, n in enumerate(nodes)}
    parts = []
    for t in targets:
        i = tid.get(id(t))
        n = t._node
        parts.append(("t", i) if i is not None else
                     ("o", nid[id(n)]) if n is not None and id(n) in nid else None)
    return tuple(parts)


def _emit_attrs(emit: Callable, c: Callable, N: str, attrs: tuple, bound: tuple) -> None:
    """The matcher's check that node N's attributes normalise to `attrs` (the key's part):
    the same names in the same order, a plain int, str or None compared with its type, a
    bool or float likewise, anything else through _norm (what attrs_key does, ~0.5 us a
    node less)."""
    names = tuple(name for name, _ in attrs)
    emit(f"    x = {N}.attrs")
    emit(f"    if tuple(x) != {c(names)}: return None")
    for name, want in attrs:
        v = f"x[{name!r}]"
        if want is None:
            emit(f"    if {v} is not None: return None")
        elif type(want) is int or type(want) is str:
            emit(f"    if type({v}) is not {type(want).__name__} or {v} != {want!r}: "
                 "return None")
        elif type(want) is tuple and len(want) == 2 and want[0] in ("bool", "float"):
            emit(f"    if type({v}) is not {want[0]} or {v} != {c(want[1])}: return None")
        else:
            emit(f"    if {c(_norm)}({v}, {name in bound}) != {c(want)}: return None")


def _emit_distinct(emit: Callable, x: str, listed: str, count: int, sigs: list) -> None:
    """The matcher's check that its `count` objects x0, x1, ... (listed by the expression
    `listed`) are distinct: `is` tests between those of equal signature, or one set of
    ids when there would be many such pairs."""
    groups: dict = {}
    for k, sig in enumerate(sigs):
        groups.setdefault(sig, []).append(k)
    pairs = [(a, b) for grp in groups.values() for j, a in enumerate(grp) for b in grp[j + 1:]]
    if len(pairs) > 8:
        emit(f"    if len(set(map(id, {listed}))) != {count}: return None")
        return
    for a, b in pairs:
        emit(f"    if {x}{a} is {x}{b}: return None")
