"""The matcher: the graph walk's comparison with one cached key, compiled into a Python
function, so the training-loop case (the previous step's graph again) is decided without
building or hashing a key (graph.py has the walk and the key it mirrors)."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np


from .graph import Graph, Uncacheable, _node_chains, _norm, _target_parts, attrs_key, stale


# Up to this many nodes a matcher is generated code (compile_matcher); a larger graph gets a
# PlanMatcher, which reads the same checks from tables: generating and compiling a function
# for 10,000 nodes took 3.4 s, and the walk it replaces costs ~4 us a node every backward
MATCH_MAX_NODES = 400


_NODE, _NEW, _MET = 0, 1, 2       # an input's kinds in a KeyPlan


class KeyPlan(NamedTuple):
    """A key read back into the walk's layout, for both matchers. roots: per root (shape,
    dtype, node number or -1); nodes: per node (op, needs, input count, inputs, attrs
    key part or None, the keyed node's attrs dict when a matcher may recognise it by
    identity (else None), output shape, output dtype), each input (kind, number, shape,
    dtype, leaf): a node (_NODE), a tensor met for the first time (_NEW) or met before
    (_MET, its number); targets: grad()'s key parts or None; shared: graph.aliases."""
    roots: tuple
    nodes: tuple
    nnodes: int
    ntensors: int
    targets: tuple | None
    shared: tuple


def plan_of(key: tuple, g: Graph) -> KeyPlan | None:
    """`key` read back (g: the graph it was walked from, for each node's op and attrs dict),
    or None for a key this reading does not understand (the walk then decides, as for
    any graph)."""
    i, roots, nnodes = 0, [], 0
    while i < len(key) and not isinstance(key[i], str):
        shape, dtype, ni = key[i:i + 3]
        if ni >= 0:
            if ni > nnodes:
                return None
            nnodes += ni == nnodes
        roots.append((shape, dtype, ni))
        i += 3
    plan, ntensors = [], len(roots)
    for node in g.nodes:
        if i + 3 > len(key):
            return None
        name, nin, needs = key[i:i + 3]
        i += 3
        if node.op.name != name:
            return None                   # (cannot happen: key and nodes come together)
        ins = []
        for _ in range(nin):
            part = key[i]
            i += 1
            if isinstance(part, tuple):         # a tensor met for the first time
                ti, shape, dtype, leaf = part
                if ti != ntensors:
                    return None
                ins.append((_NEW, ti, shape, dtype, leaf))
                ntensors += 1
            elif part < 0:                      # a tensor met before
                ins.append((_MET, -1 - part, None, None, None))
            else:                               # a node
                if part > nnodes:
                    return None
                nnodes += part == nnodes
                ins.append((_NODE, part, None, None, None))
        attrs = key[i]
        shared = node.attrs if attrs and _plain_attrs(node.attrs) else None
        plan.append((node.op, needs, nin, tuple(ins), attrs or None, shared,
                     key[i + 1], key[i + 2]))
        i += 3
    targets = None
    if g.targets is not None:
        if i >= len(key) or key[i] != "targets":
            return None
        targets = tuple(key[i + 1:i + 1 + len(g.targets)])
        i += 1 + len(g.targets)
    shared_pairs: tuple = ()
    if i < len(key) and key[i] == "alias":
        shared_pairs = key[i + 1]
        i += 2
    if i != len(key) or nnodes != len(g.nodes):
        return None
    return KeyPlan(tuple(roots), tuple(plan), nnodes, ntensors, targets, shared_pairs)


def compile_matcher(key: tuple, g: Graph) -> Callable | None:
    """A function `(roots, epoch) -> (nodes, tensors) | None` saying whether a new graph from
    `roots` has exactly `key`, without building or hashing the key: the training-loop case
    of the previous step's graph again, ~10x cheaper than the walk.

    The key is parsed back into its parts (the walk's layout). The function first follows
    the new graph as the walk would, naming each node and tensor as the key numbers them
    (a structure that does not fit, a None where a node should be or another number of
    inputs, ends it there), then compares every plain fact the key fixes (ops, shapes,
    dtypes, needs, no hooks, which inputs are leaves) in one tuple comparison: ~half the
    bytecode of a test per fact. Node and tensor numbering is checked as the walk makes
    it: an input the key numbers as met before must be that very object, and at the end
    all nodes (and all tensors) must be distinct objects. Checks stricter than the key's
    equality (the op object, every node recorded in the current epoch, or else `stale`'s
    checks) only send a graph to the walk, which decides exactly. A node's attributes are
    the very dict the keyed graph's node had (a shared constant: sum's, mean's), or are
    compared field by field. Pairs of sources the key names as one array (graph.aliases)
    must be one array here too; a graph sharing an array the key does not name still
    matches (its Program reads each source on its own, and they hold equal values). None:
    too large, or a key with a stop set (grad()'s no_grad_vars take the walk). For grad()'s
    keys the new graph's `targets` are checked as the walk numbers them.
    """
    if g.stop is not None:
        return None
    if len(g.nodes) > MATCH_MAX_NODES:
        return PlanMatcher.of(key, g)
    plan = plan_of(key, g)
    if plan is None:
        return None
    consts: list = []

    def c(value: Any) -> str:
        consts.append(value)
        return f"C{len(consts) - 1}"

    walk: list = []                     # follow the graph, name its nodes and tensors
    facts: list = []                    # (expression, wanted value): one tuple comparison
    same: list = []                     # identity and other tests after the comparison
    attrs_lines: list = []
    nnodes = 0
    for r, (shape, dtype, ni) in enumerate(plan.roots):
        facts += [(f"T{r}._data.shape", shape), (f"T{r}._data.dtype", dtype)]
        if ni < 0:
            facts.append((f"T{r}._node", None))
        else:
            facts += [(f"T{r}._hooks", None), (f"T{r}._retain", None)]
            nnodes = _name_node(walk, same, f"T{r}._node", ni, nnodes)
    nroots = len(plan.roots)
    walk.insert(0, f"{', '.join(f'T{r}' for r in range(nroots))}, = roots")
    # what the checks fix about each object: two with different signatures cannot be the
    # same object, so only equal signatures need the distinctness check
    tensor_sigs = [(shape, dtype, ni < 0) for shape, dtype, ni in plan.roots]
    node_sigs: list = []
    for k, (op, needs, nin, ins, attrs, shared, oshape, odtype) in enumerate(plan.nodes):
        N = f"N{k}"
        facts += [(f"{N}.op", op), (f"{N}.needs", needs)]
        if nin:
            walk.append(f"{', '.join(f'a{k}_{p}' for p in range(nin))}, = {N}.inputs")
        else:
            walk.append(f"if {N}.inputs: return None")
        for p, (kind, a, shape, dtype, leaf) in enumerate(ins):
            t = f"a{k}_{p}"
            if kind == _NEW:              # a tensor met for the first time
                walk.append(f"T{a} = {t}")
                facts += [(f"{t}._hooks", None), (f"{t}._retain", None),
                          (f"{t}._data.shape", shape), (f"{t}._data.dtype", dtype)]
                if leaf:
                    facts.append((f"{t}._node", None))
                else:
                    same.append(f"if {t}._node is None: return None")
                tensor_sigs.append((shape, dtype, leaf))
            elif kind == _MET:            # a tensor met before: that very object
                same.append(f"if {t} is not T{a}: return None")
            else:                         # a node (no hook test for a node's output beyond
                # its tensor's: hooks or retain_grads added after the node was recorded
                # bumped the epoch, and every node's own epoch is checked)
                facts += [(f"{t}._hooks", None), (f"{t}._retain", None)]
                nnodes = _name_node(walk, same, f"{t}._node", a, nnodes)
        if attrs:
            lines: list = []
            _emit_attrs(lines.append, c, N, attrs, op.extra.get("bound_attrs", ()))
            if shared is not None:        # (a shared constant dict: one identity test)
                attrs_lines.append(f"    if {N}.attrs is not {c(shared)}:")
                attrs_lines += ["    " + ln for ln in lines]
            else:
                attrs_lines += lines
        else:
            attrs_lines.append(f"    if {N}.attrs: return None")
        facts += [(f"{N}.out_data.shape", oshape), (f"{N}.out_data.dtype", odtype)]
        node_sigs.append((id(op), oshape, odtype))
    ntensors = plan.ntensors
    want_targets = plan.targets
    lines = ["def match(roots, ep, targets=None):", "    try:"]
    lines += ["        " + ln for ln in walk]
    lines.append(f"        if ({''.join(f'{e}, ' for e, _ in facts)}) != "
                 f"{c(tuple(w for _, w in facts))}: return None")
    lines.append("    except (AttributeError, TypeError, ValueError):  # another structure")
    lines.append("        return None")
    lines += ["    " + ln for ln in same]
    epochs = " == ".join(f"N{k}.epoch" for k in range(nnodes))
    if nnodes:
        # a node from an earlier epoch (an in-place write since: batch_norm's running
        # statistics) gets the walk's checks here rather than sending the graph to the walk
        lines.append(f"    if not ep == {epochs}:")
        lines += [f"        if N{k}.epoch != ep and {c(stale)}(N{k}, {c(_node_chains())}): "
                  "return None" for k in range(nnodes)]
    lines += attrs_lines
    emit = lines.append
    nodes_list = f"[{', '.join(f'N{k}' for k in range(nnodes))}]"
    tensors_list = f"[{', '.join(f'T{t}' for t in range(ntensors))}]"
    emit(f"    nodes = {nodes_list}")
    _emit_distinct(emit, "N", "nodes", nnodes, node_sigs)
    emit(f"    tensors = {tensors_list}")
    _emit_distinct(emit, "T", "tensors", ntensors, tensor_sigs)
    for pair in plan.shared:              # graph.aliases: one array, two sources
        a, b = (f"N{k}.out_data" if kind == "o" else f"T{k}._data" for kind, k in pair)
        emit(f"    if {a} is not {b}: return None")
    if want_targets is None:
        emit("    if targets is not None: return None")
    elif all(type(part) is tuple and part[0] == "t" for part in want_targets):
        # every target a numbered tensor (grad() with respect to leaves): the very objects
        emit(f"    if targets is None or len(targets) != {len(want_targets)}: return None")
        for j, part in enumerate(want_targets):
            emit(f"    if targets[{j}] is not T{part[1]}: return None")
    else:
        emit(f"    if targets is None or {c(_target_parts)}(targets, nodes, tensors) != "
             f"{c(want_targets)}: return None")
    emit("    return nodes, tensors")
    names = ", ".join(f"C{j}" for j in range(len(consts)))
    src = (f"def make({names}):\n" + "\n".join("    " + ln for ln in lines) +
           "\n    return match\n")
    scope: dict = {}
    exec(compile(src, f"<graph matcher, {len(g.nodes)} nodes>", "exec"), scope)
    return scope["make"](*consts)


def _name_node(walk: list, same: list, expr: str, ni: int, nnodes: int) -> int:
    """The matcher's naming of `expr` (a tensor's node) as node ni as the walk numbers
    nodes: the next number (bound as N<ni>) or the node met before under it (an identity
    test); the count numbered after it."""
    if ni == nnodes:
        walk.append(f"N{ni} = {expr}")
        return nnodes + 1
    same.append(f"if {expr} is not N{ni}: return None")
    return nnodes


_PLAIN = (type(None), bool, int, float, str)


def _plain_attrs(attrs: dict) -> bool:
    """Attributes a matcher may hold on to and recognise by identity: small plain values
    only (no arrays a cached matcher would keep alive)."""
    for v in attrs.values():
        if type(v) is tuple:
            if len(v) > 16 or not all(type(x) in _PLAIN for x in v):
                return False
        elif type(v) not in _PLAIN:
            return False
    return True


def _emit_attrs(emit: Callable, c: Callable, N: str, attrs: tuple, bound: tuple) -> None:
    """The matcher's check that node N's attributes normalise to `attrs` (the key's part):
    the same names in the same order, a plain int, str or None compared with its type, a
    bool or float likewise, ints in (nested) tuples and index keys item by item, anything
    else through _norm (what attrs_key does, ~0.5 us a node less). Each value is read from
    the dict once."""
    names = tuple(name for name, _ in attrs)
    emit(f"    x = {N}.attrs")
    emit(f"    if tuple(x) != {c(names)}: return None")
    for name, want in attrs:
        emit(f"    v = x[{name!r}]")
        ints = _int_tree(want)
        if want is None:
            emit("    if v is not None: return None")
        elif type(want) is int or type(want) is str:
            emit(f"    if type(v) is not {type(want).__name__} or v != {want!r}: return None")
        elif type(want) is tuple and len(want) == 2 and want[0] == "bool":
            emit(f"    if v is not {bool(want[1])!r}: return None")     # (the two singletons)
        elif type(want) is tuple and len(want) == 2 and want[0] == "float":
            emit(f"    if type(v) is not float or v != {c(want[1])}: return None")
        elif ints is not None:            # axes, shapes, perms, pads: ints in tuples
            raw, paths = ints
            types = "".join(f" or type(v{p}) is not {t}" for p, t in paths)
            emit(f"    if type(v) is not tuple or v != {c(raw)}{types}: return None")
        elif _index_parts(want) is not None:     # getitem's key: slices, ints, None, ...
            _emit_index(emit, "v", want)
        elif type(want) is tuple and len(want) == 3 and want[0] == "nd" and name in bound:
            emit(f"    if type(v) is not {c(np.ndarray)} or v.shape != {c(want[1])} or "
                 f"v.dtype.str != {c(want[2])}: return None")
        else:
            emit(f"    if {c(_norm)}(v, {name in bound}) != {c(want)}: return None")


def _int_tree(want: Any) -> tuple[tuple, list] | None:
    """For a key part _norm made of a tuple of plain ints, or of such tuples (at most 16
    ints in all): the raw tuple, and (index path, type name) for every item whose type
    the matcher must check (after `v == raw`, which fixes the lengths); else None."""
    if type(want) is not tuple or not want or want[0] != "tuple":
        return None
    raw: list = []
    paths: list = []
    for i, item in enumerate(want[1:]):
        if type(item) is int:
            raw.append(item)
            paths.append((f"[{i}]", "int"))
        elif type(item) is tuple and item and item[0] == "tuple" and \
                all(type(x) is int for x in item[1:]):
            raw.append(tuple(item[1:]))
            paths.append((f"[{i}]", "tuple"))
            paths.extend((f"[{i}][{j}]", "int") for j in range(len(item) - 1))
        else:
            return None
    if sum(t == "int" for _, t in paths) > 16:
        return None
    return tuple(raw), paths


def _index_item(want: Any) -> bool:
    """A key part _norm made of a plain int, None, Ellipsis, or a slice of those."""
    if want is None or type(want) is int:
        return True
    if type(want) is not tuple:
        return False
    if len(want) == 2 and want[0] == "ellipsis":
        return want[1] is Ellipsis
    return len(want) == 4 and want[0] == "slice" and \
        all(w is None or type(w) is int for w in want[1:])


def _index_parts(want: Any) -> list | None:
    """The items of an index key part (a tuple of at most 8 _index_items: getitem's key,
    or a slice on its own), else None."""
    if type(want) is tuple and want and want[0] == "tuple":
        items = list(want[1:])
        return items if len(items) <= 8 and all(_index_item(w) for w in items) else None
    if type(want) is tuple and want and want[0] == "slice" and _index_item(want):
        return [want]
    return None


def _emit_index(emit: Callable, v: str, want: tuple) -> None:
    """The matcher's check that the attribute `v` normalises to the index key part `want`,
    field by field (_norm itself on a tuple of slices cost ~2 us a getitem node)."""
    items = _index_parts(want)
    if want[0] == "tuple":
        emit(f"    if type({v}) is not tuple or len({v}) != {len(items)}: return None")
    for j, w in enumerate(items):
        e = f"{v}[{j}]" if want[0] == "tuple" else v
        if w is None:
            emit(f"    if {e} is not None: return None")
        elif type(w) is int:
            emit(f"    if type({e}) is not int or {e} != {w!r}: return None")
        elif w[0] == "ellipsis":
            emit(f"    if {e} is not Ellipsis: return None")
        else:
            emit(f"    e = {e}")
            tests = ["type(e) is not slice"]
            for field, fw in zip(("start", "stop", "step"), w[1:]):
                tests.append(f"e.{field} is not None" if fw is None else
                             f"type(e.{field}) is not int or e.{field} != {fw!r}")
            emit(f"    if {' or '.join(tests)}: return None")


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


class PlanMatcher:
    """compile_matcher's checks, read from tables by one loop instead of generated code (a
    large graph's matcher: nothing to compile; ~1 us a node where the walk took ~4). It
    follows the new graph as the walk numbers it, and at each node checks what the key
    fixes: the op object, needs, the input count; for each input a node (named as the key
    numbers it, the very object when met before), a tensor met for the first time (shape,
    dtype, leaf or not, no hooks) or one met before (that very object); the attributes
    (the keyed node's own shared dict, or attrs_key's value), the output's shape and dtype,
    and `stale`'s checks for a node of an earlier epoch. Then all nodes and all tensors
    are distinct objects, the key's aliased pairs one array, and grad()'s targets the
    key's. Anything unexpected (a None where a node should be) is no match."""

    __slots__ = ("roots", "plan", "nnodes", "shared", "targets")

    @classmethod
    def of(cls, key: tuple, g: Graph) -> "PlanMatcher | None":
        """The matcher of `key` (g: the graph it was walked from), or None for a key
        plan_of does not understand (the walk then decides, as for any graph)."""
        plan = plan_of(key, g)
        if plan is None:
            return None
        m = cls()
        m.roots, m.plan, m.nnodes = plan.roots, plan.nodes, plan.nnodes
        m.targets, m.shared = plan.targets, plan.shared
        return m

    def __call__(self, roots: list, ep: int, targets: list | None = None
                 ) -> tuple[list, list] | None:
        try:
            found = self._follow(roots, ep)
        except (AttributeError, TypeError, ValueError, IndexError, Uncacheable):
            return None                     # another structure
        if found is None:
            return None
        nodes, tensors = found
        if len(nodes) != self.nnodes or len(set(map(id, nodes))) != len(nodes) or \
                len(set(map(id, tensors))) != len(tensors):
            return None
        for pair in self.shared:            # graph.aliases: one array, two sources
            a, b = (nodes[k].out_data if kind == "o" else tensors[k]._data
                    for kind, k in pair)
            if a is not b:
                return None
        want = self.targets
        if want is None:
            if targets is not None:
                return None
        elif targets is None or _target_parts(targets, nodes, tensors) != want:
            return None
        return nodes, tensors

    def _follow(self, roots: list, ep: int) -> tuple[list, list] | None:
        """The walk's numbering of the new graph with every per-object check on the way."""
        if len(roots) != len(self.roots):
            return None
        nodes: list = []
        tensors: list = []
        for r, (shape, dtype, ni) in zip(roots, self.roots):
            d = r._data
            if d.shape != shape or d.dtype != dtype:
                return None
            n = r._node
            if ni < 0:
                if n is not None:
                    return None
            else:
                if r._hooks is not None or r._retain is not None:
                    return None
                if ni == len(nodes):
                    nodes.append(n)
                elif nodes[ni] is not n:
                    return None
            tensors.append(r)
        chains = _node_chains()
        k = 0
        for op, needs, nin, ins, attrs, shared, oshape, odtype in self.plan:
            node = nodes[k]
            k += 1
            if node.op is not op or node.needs != needs:
                return None
            inputs = node.inputs
            if len(inputs) != nin:
                return None
            for t, (kind, a, shape, dtype, leaf) in zip(inputs, ins):
                if kind == _MET:
                    if tensors[a] is not t:
                        return None
                    continue
                if t._hooks is not None or t._retain is not None:
                    return None
                if kind == _NODE:
                    n = t._node
                    if a == len(nodes):
                        nodes.append(n)
                    elif nodes[a] is not n:
                        return None
                    continue
                d = t._data
                if d.shape != shape or d.dtype != dtype or (t._node is None) != leaf:
                    return None
                tensors.append(t)
            have = node.attrs
            if attrs is None:
                if have:
                    return None
            elif have is not shared and attrs_key(node) != attrs:
                return None
            od = node.out_data
            if od.shape != oshape or od.dtype != odtype:
                return None
            if node.epoch != ep and stale(node, chains):
                return None
        return nodes, tensors
