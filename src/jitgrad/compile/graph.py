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

from typing import Any

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


_new_graph = object.__new__


def source_of(nodes: list, tensors: list, src: tuple) -> Any:
    """The array a source names in the graph of these nodes and tensors (a Program's
    values, externals, tables and scalars: ("t", tensor), ("o", node), ("s", node, saved
    index) or ("a", node, attribute name))."""
    kind = src[0]
    if kind == "t":
        return tensors[src[1]]._data
    node = nodes[src[1]]
    if kind == "o":
        return node.out_data
    if kind == "s":
        return node.saved[src[2]]
    return node.attrs[src[2]]


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

    @classmethod
    def matched(cls, roots: list, targets: list | None, nodes: list, tensors: list,
                key: tuple) -> "Graph":
        """A matcher's result as a Graph (what __init__ does with nodes given, without its
        keyword-argument call: every cache hit makes one)."""
        g = _new_graph(cls)
        g.roots, g.targets, g.stop = roots, targets, None
        g._node_index = g._tensor_index = None
        g.nodes, g.tensors, g.key, g.reason = nodes, tensors, key, None
        return g

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
        return source_of(self.nodes, self.tensors, src)

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
        # output, in-place writes) bumps the epoch: a node recorded
        # in this epoch needs none of the checks of `stale`.
        if node.epoch != ep:
            reason = stale(node, chains)
            if reason:
                refuse(reason)
        # the op, its input count (concat takes any number) and its recorded edges (+= of
        # a tuple: one step where three appends were three calls)
        parts += (op.name, len(node.inputs), node.needs)
        for t, need in zip(node.inputs, node.needs):
            if t._hooks is not None or t._retain:
                refuse("hooks or retain_grads()")
            n = t._node
            if need and n is not None and (stop is None or id(t) not in stop):
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
                parts.append((i, d.shape, d.dtype, n is None))
            else:
                parts.append(-1 - i)        # a tensor met before: its index is enough
        try:
            ak = attrs_key(node)
        except Uncacheable as e:
            refuse(str(e))
            ak = None                       # (the key is None: any stand-in does)
        od = node.out_data
        parts += (ak, od.shape, od.dtype)
    # (the walk's numbering is node_index() and tensor_index(): kept, not built again)
    g._node_index, g._tensor_index = index, tid
    if targets is not None:                 # grad(): which tensors the results are for
        parts.append("targets")
        parts.extend(_target_parts(targets, nodes, tensors))
    if stop is not None:
        parts.append("stop")
        parts.append(tuple(sorted(tid[s] for s in stop if s in tid)))
    shared = aliases(nodes, tensors)
    if shared:
        parts.append("alias")
        parts.append(shared)
    if g.reason is not None:
        return None
    return tuple(parts)


def aliases(nodes: list, tensors: list) -> tuple:
    """Pairs of sources ("o", k) / ("t", i) holding one array object (x and x.detach(), a
    node's output and a constant made of it): part of the key, so that a Program whose
    rules read such an array through either source (builder.py) serves only graphs that
    share it the same way. A non-leaf tensor over its own node's output is no pair."""
    first: dict[int, tuple] = {}
    pairs = []
    for k, node in enumerate(nodes):
        d = node.out_data
        was = first.get(id(d))
        if was is None:
            first[id(d)] = ("o", k)
        else:
            pairs.append((was, ("o", k)))
    for i, t in enumerate(tensors):
        d = t._data
        was = first.get(id(d))
        if was is None:
            first[id(d)] = ("t", i)
        elif not (was[0] == "o" and t._node is nodes[was[1]]):
            pairs.append((was, ("t", i)))
    return tuple(pairs)


CHANGED = "changed since recorded"     # stale's reason for an in-place write since


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
        return CHANGED
    for t, v in zip(node.inputs, versions):
        if t._version != v:
            return CHANGED
    return None


def _node_chains() -> Any:
    """Hooks registered on non-leaf tensors live with their nodes (core/hooks.py)."""
    global _chains
    if _chains is None:
        from ..core.hooks import _node_chains as chains
        _chains = chains
    return _chains


_chains: Any = None


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
