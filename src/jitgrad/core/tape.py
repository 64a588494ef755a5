"""The tape: one Node per recorded op, grad mode, and the graph walk.

Nodes are numbered as they are created, and every node's inputs were created before it, so
sorting by that number is a topological order: the walk needs no recursion (deep graphs
exist) and no extra bookkeeping.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import os
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

if TYPE_CHECKING:
    from ..ops.registry import OpDef
    from .tensor import Tensor

_counter = itertools.count()
_getframe = sys._getframe


class Node:
    """One recorded op: what ran, on which tensors, and what its backward needs."""

    __slots__ = ("op", "inputs", "needs", "attrs", "saved", "out_data", "out_ref", "seq",
                 "freed", "programs", "site", "versions", "epoch", "__weakref__")

    def __new__(cls, op: OpDef, inputs: tuple, attrs: dict, saved: tuple,
                out_data: np.ndarray) -> Node:
        return new_node(op, inputs, attrs, saved, out_data)

    def __repr__(self) -> str:
        return f"<Node {self.op.name} #{self.seq}>"

    @property
    def grad_name(self) -> str:
        """The backward node's name, in Paddle's style (MatmulGradNode; a PyLayer's is
        GradNodePyLayer_<class name>, as Paddle 3.3.1 names it)."""
        layer = self.op.extra.get("py_layer")
        if layer is not None:
            return f"GradNodePyLayer_{layer.__name__}"
        return "".join(p.capitalize() for p in self.op.name.split("_")) + "GradNode"


_new_object = object.__new__


def new_node(op: OpDef, inputs: tuple, attrs: dict, saved: tuple, out_data: np.ndarray,
             depth: int = 2, needs: tuple | None = None) -> Node:
    """Record one op: `Node(...)`, which ops.core.apply calls directly (a plain function call
    costs less than a class call, and every recorded op makes one). Call it from the op's
    apply (core.apply, PyLayer.apply): the call-site walk starts `depth` frames up, at that
    function's caller; depth 3 skips a caller known to be inside jitgrad
    (core.apply_internal), which saves making a frame object for it (~0.2 us).
    """
    node = _new_object(Node)
    node.op = op
    node.inputs = inputs            # Tensors (constants are stop_gradient Tensors)
    # the edges: which inputs the gradient reaches, fixed now, as Paddle fixes them (a
    # stop_gradient flipped after the op changes nothing for this node: measured on 3.3.1)
    node.needs = tuple([not t._stop_gradient for t in inputs]) if needs is None else needs
    node.attrs = attrs              # static arguments: axis, keepdim, shapes ...
    node.saved = saved              # numpy arrays the gradient kernels read
    node.out_data = out_data
    node.out_ref = None             # weakref to the output Tensor, set by the Tensor's maker
    node.seq = next(_counter)
    node.freed = False
    node.programs = None            # lowered Programs kept for retained replays
    # The site: (code, instruction offset) of the innermost frame outside jitgrad, the
    # user's line (site_line() turns it into file:line when a dump asks). Walked inline,
    # as a call per recorded op is measurable. Frame 1 is apply (or Node.__new__ under
    # PyLayer.apply: one more frame inside jitgrad), frame 2 its caller, frame 3 the
    # caller's caller.
    site = MODE.site                        # (a create_graph backward's: BackwardSite)
    if site is not None or not call_sites:
        node.site = site
    else:
        f = _getframe(depth)
        code = f.f_code
        if code is _last_site_code[0]:      # the same user function as last time: outside
            node.site = (code, f.f_lasti)
        else:
            node.site = walk_site(f)
    # in-place version of each input, then of the output, when recorded (version check)
    n = len(inputs)
    if n == 1:
        node.versions = (inputs[0]._version, 0)
    elif n == 2:
        node.versions = (inputs[0]._version, inputs[1]._version, 0)
    else:
        node.versions = (*[t._version for t in inputs], 0)
    node.epoch = _epoch             # changes that could stale it bump the epoch
    return node


def walk_site(f: Any) -> tuple | None:
    """(code, instruction offset) of the first frame from `f` outward whose code is outside
    jitgrad, remembered as the last site's code (the recorders test that one inline first:
    a training loop's ops mostly come from one function). Inside `recording_from` every op
    records that one site instead (a recorded backward: the user's backward/grad call)."""
    override = MODE.site
    if override is not None:
        return override
    while f is not None:
        code = f.f_code
        inside = _inside.get(code.co_filename)
        if inside is None:
            inside = _inside[code.co_filename] = code.co_filename.startswith(_PKG_DIR)
        if not inside:
            _last_site_code[0] = code
            return (code, f.f_lasti)
        f = f.f_back
    return None


# ---- where an op was created (dump_backward_graph_path's call-stack log) -------------------

# Record each op's site? Only at FLAGS_call_stack_level 3 (flags.py sets it), as Paddle;
# otherwise a node's site is MODE.site: None, or a create_graph backward's BackwardSite.
call_sites = False

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep   # src/jitgrad/
# filename -> inside jitgrad? Keyed by the code's filename, not the code object: a code
# object's hash is computed from its bytecode and constants on every lookup (~0.17 us).
_inside: dict[str, bool] = {}
# The code object of the last site found outside jitgrad (held, so `is` cannot meet a
# recycled one): a training loop's ops come from one or a few functions, whose frames then
# skip the filename lookup. Written by new_node and ops.core.apply_xy.
_last_site_code: list = [None]


class BackwardSite(tuple):
    """The site of a node a create_graph backward recorded (its caller's line): the type
    tells such nodes from the forward's (grad_links.py asks)."""

    __slots__ = ()


class recording_from:
    """`with recording_from(frame):` ops recorded inside the block (in this thread) take
    the site of the first frame outside jitgrad from `frame` outward, as a BackwardSite."""

    def __init__(self, frame: Any) -> None:
        site = walk_site(frame)
        self.site = None if site is None else BackwardSite(site)

    def __enter__(self) -> None:
        self.prev, MODE.site = MODE.site, self.site

    def __exit__(self, *exc: Any) -> None:
        MODE.site = self.prev


def site_line(site: tuple | None) -> tuple[str, int, str] | None:
    """(filename, line, function) of a recorded site."""
    if site is None:
        return None
    code, lasti = site
    line = code.co_firstlineno
    for start, end, lineno in code.co_lines():
        if start <= lasti < end and lineno is not None:
            line = lineno
            break
    return code.co_filename, line, getattr(code, "co_qualname", code.co_name)


# ---- grad mode ----------------------------------------------------------------------------

class _Mode(threading.local):
    """The grad mode, per thread as in Paddle 3.3.1 (measured): one thread's no_grad() (an
    evaluation, a backward's own bookkeeping) never stops another thread's recording. A new
    thread starts with grad enabled. `prev`: the modes grad_mode's contexts restore.
    `site`: while set (recording_from), the site every op recorded in this thread takes,
    whatever FLAGS_call_stack_level is: a create_graph backward's nodes are told from the
    forward's by it (grad_links.py), and walking out of jitgrad for each was ~10% of a
    Hessian-vector product; per thread, so a forward recorded beside it keeps its own."""

    def __init__(self) -> None:         # (run once in each thread that reads MODE)
        self.grad_enabled = True
        self.prev: list[bool] = []
        self.site: tuple | None = None


MODE = _Mode()


def is_grad_enabled() -> bool:
    return MODE.grad_enabled


def _set_grad_enabled(mode: bool) -> bool:
    prev, MODE.grad_enabled = MODE.grad_enabled, bool(mode)
    return prev


_saved_hooks: tuple | None = None     # (pack, unpack) inside saved_tensors_hooks


# ---- graph epoch: bumps whenever a change could make a lowered Program stale ---------------

_epoch = 0


def bump_epoch() -> None:
    """Call on every change that could make a recorded node or a lowered Program stale.

    That is: a tensor's `_version` (in-place writes), `_hooks` or `_retain` changing, and
    nodes being freed (not `_stop_gradient`: a node's edges, `needs`, are fixed when it is
    recorded). The program cache's graph walk (`graph.Graph`) skips its
    per-node checks for nodes recorded in the current epoch, so a mutation that forgets
    this call lets a changed graph reuse a stale Program.
    """
    global _epoch
    _epoch += 1


def free_nodes(nodes: Iterable[Node]) -> None:
    """Drop what a backward through these nodes needs; the next one through them raises.

    The per-node body is written out rather than a method call: training loops free every
    node of every step.
    """
    global _epoch
    for node in nodes:
        node.saved = None
        node.programs = None
        node.freed = True
    _epoch += 1                         # bump_epoch(), inlined


def epoch() -> int:
    return _epoch


# ---- the walk ------------------------------------------------------------------------------

def needs_grad(t: Tensor) -> bool:
    return not t._stop_gradient


_seq = operator.attrgetter("seq")     # a node's sort key (in C: sorted calls it per node)


def reachable_nodes(roots: Iterable[Tensor], stop: set[int] | None = None) -> list[Node]:
    """Nodes that some root reaches through the recorded edges (node.needs), newest first.

    `stop` holds ids of tensors treated as constants (no_grad_vars).
    """
    seen: dict[int, Node] = {}
    stack = [r._node for r in roots if r._node is not None and not r._stop_gradient]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        for t, need in zip(node.inputs, node.needs):
            if need and t._node is not None and (stop is None or id(t) not in stop):
                stack.append(t._node)
    return sorted(seen.values(), key=_seq, reverse=True)


class Plan:
    """Which nodes a backward must visit, and which edges carry gradient.

    targets None means backward(): leaves needing grad and retain_grads() tensors are the
    targets. A node is kept only if some target depends on it, so branches that lead to no
    leaf needing a gradient are skipped.
    """

    def __init__(self, roots: list, targets: list | None = None, stop: set[int] | None = None,
                 reachable: list | None = None):
        """`reachable`: the nodes reachable_nodes(roots, stop) would find, in any order (a
        graph walk the caller made already), or None to walk here."""
        self.target_ids = ids = None if targets is None else {id(t) for t in targets}
        self.stop = stop
        if reachable is None:
            nodes = reachable_nodes(roots, stop)
        else:
            nodes = sorted(reachable, key=_seq, reverse=True)
        rewired = False
        ep = _epoch
        for node in nodes:              # before pruning: a stale node may look unreachable
            # (a node recorded in this epoch saw no in-place write since: bump_epoch)
            if node.epoch != ep and not node.freed:
                rewired |= check_versions(node)
        self.rewired = rewired          # (a graph walked before is stale)
        while rewired:                  # an input now leads to the node of its old version
            nodes = reachable_nodes(roots, stop)
            rewired = any([check_versions(n) for n in nodes if not n.freed])
        useful: set[int] = set()
        # carries(t, useful), inlined: oldest first, inputs before their users
        for node in reversed(nodes):
            for t, need in zip(node.inputs, node.needs):
                if not need or (stop is not None and id(t) in stop):
                    continue
                if (t._node is None or t._retain) if ids is None else id(t) in ids:
                    break                       # a target
                n = t._node
                if n is not None and id(n) in useful:
                    break
            else:
                continue
            useful.add(id(node))
        self.useful = useful
        self.nodes = nodes if len(useful) == len(nodes) else \
            [n for n in nodes if id(n) in useful]

    def is_target(self, t: Tensor) -> bool:
        """For a tensor reached through an edge (or a root needing a gradient): does its
        gradient leave the backward? For backward(), a leaf's does even when its
        stop_gradient was set after the op (Paddle 3.3.1 still fills its .grad)."""
        if self.target_ids is not None:
            return id(t) in self.target_ids
        return t._node is None or bool(t._retain)

    def carries(self, t: Tensor, need: bool = True, useful: set[int] | None = None) -> bool:
        """Does gradient flow from a node into its input t (`need`: the node's recorded
        edge to it)?"""
        if not need or (self.stop is not None and id(t) in self.stop):
            return False
        useful = self.useful if useful is None else useful
        return self.is_target(t) or (t._node is not None and id(t._node) in useful)


def check_versions(node: Node) -> bool:
    """Refuse a backward through values changed in place after the node recorded them.

    Only values the gradient reads count (the op's `grad_reads`, default all, or
    `grad_reads_for(needs)`, what the edges that carry gradient read): a slice's gradient
    needs its input's shape, not its values, so `y[1:] = y[1:] * 3` is allowed, as in
    Paddle, and so is changing y after `z = y * 2.0` (z's gradient reads the constant), or
    moving y out of its graph with detach_ (its values stay: count_move). Such an input,
    rebound since (ops/inplace.py), is replaced by the stand-in of its recorded version so
    that gradient reaches the old node. True when one was replaced.
    """
    vs = getattr(node, "versions", None)
    if vs is None:
        return False
    out = node.out_ref() if node.out_ref is not None else None
    n_in = len(node.inputs)
    pairs = list(zip(node.inputs, vs)) + ([(out, vs[-1])] if out is not None else [])
    rewired = False
    for i, (t, v) in enumerate(pairs):
        now = getattr(t, "_version", 0)
        if now != v:
            reads = grad_reads(node)
            if reads is not None and (i if i < n_in else "out") not in reads or \
                    i < n_in and _same_values(t, v):
                if i < n_in:
                    rewired |= _rewire_to_version(node, i, t, v)
                continue
            raise _changed(node, "its output" if i == n_in else f"its input {i}", v, now)
    return rewired


def _changed(node: Node, what: str, v: int, now: int) -> RuntimeError:
    return RuntimeError(
        f"{node.grad_name} ({node.op.name}) needs {what}, which was modified by an "
        f"in-place operation after it was recorded (version {v}, now {now}). "
        "Run backward before the in-place change, or change a copy (x.clone()). "
        f"[Paddle's words: received tensor_version:{now} != wrapper_version_snapshot:{v}]")


def check_rule_reads(node: Node) -> None:
    """Before node's Tensor rule (its op's vjp) runs: the values that rule reads beyond
    `grad_reads` (the op's `rule_reads`: its array rules read the forward's saved arrays
    instead, as Paddle's kernels read what they kept) must be the recorded ones. One
    changed in place by a write that left no stand-in (under no_grad, a leaf's) would be
    read with its new values: raise, as for `grad_reads`."""
    reads = node.op.extra.get("rule_reads")
    vs = getattr(node, "versions", None)
    if not reads or vs is None:
        return
    for r in reads:
        if r == "out":
            t = node.out_ref() if node.out_ref is not None else None
            v = vs[-1]
        else:
            t, v = node.inputs[r], vs[r]
        now = getattr(t, "_version", v)
        if now != v:
            raise _changed(node, "its output" if r == "out" else f"its input {r}", v, now)


def grad_reads(node: Node) -> tuple | None:
    """The recorded values node's gradient reads (input positions, "out"), None for all:
    its op's `grad_reads_of(attrs)`, `grad_reads_for(needs)` (what the edges that carry
    gradient read) or `grad_reads` (ops/registry.py)."""
    extra = getattr(node.op, "extra", {})
    reads_of = extra.get("grad_reads_of")
    if reads_of is not None:
        return reads_of(node.attrs)
    reads_for = extra.get("grad_reads_for")
    return reads_for(node.needs) if reads_for is not None else extra.get("grad_reads")


# Tensors whose version went up without a value changing (detach_ moved them out of their
# graph): id -> (weakref, the versions moved from), so that inplace_version counts value
# changes only and readers of the version before a move still get the values they read
_MOVES: dict = {}


def count_move(t: Any) -> None:
    """t's version goes up for a new graph position, its values the same (detach_)."""
    key = id(t)
    found = _MOVES.get(key)
    if found is None or found[0]() is not t:
        found = _MOVES[key] = (weakref.ref(t, lambda _, key=key: _MOVES.pop(key, None)), [])
    found[1].append(t._version)
    t._version += 1


def moves(t: Any) -> int:
    """How many of t's version steps were count_move's (not value changes)."""
    found = _MOVES.get(id(t))
    return len(found[1]) if found is not None and found[0]() is t else 0


def _same_values(t: Any, v: int) -> bool:
    """Whether t's values are those of its version v: every step since was a move."""
    found = _MOVES.get(id(t))
    if found is None or found[0]() is not t:
        return False
    moved = found[1]
    return all(u in moved for u in range(v, t._version))


def rewire_stale(nodes: list) -> bool:
    """check_versions on the nodes recorded before the current epoch (what Plan does before
    a backward): readers of a value changed in place since reach its old version's node
    through the stand-in, or a RuntimeError says the gradient needs the old value. True
    when some input was rewired (walk the graph again)."""
    ep = _epoch
    # (a list, not a generator: every stale node is checked, not only up to the first)
    return any([check_versions(n) for n in nodes if n.epoch != ep and not n.freed])


def _rewire_to_version(node: Node, i: int, t: Tensor, v: int) -> bool:
    """Point input i at t's stand-in for version v, if t was rebound since (its graph
    position moved to the in-place op's node)."""
    shadows = getattr(t, "_shadows", None)
    if not shadows:
        return False
    # the first stand-in from version v on: shadows' keys are versions, added in increasing
    # order (inplace.py), so bisect them; scanning them all per reader was quadratic in a
    # tensor changed in place N times with a reader per version
    shadow = shadows.get(v)
    if shadow is None:
        keys = _shadow_keys(t, shadows)
        j = bisect.bisect_left(keys, v)
        if j == len(keys):
            return False        # written without rebinding: same node, nothing to rewire
        shadow = shadows[keys[j]]
    inputs = list(node.inputs)
    inputs[i] = shadow
    node.inputs = tuple(inputs)
    return True


_keys_memo: list = [None, 0, None]      # weakref to the tensor, its stand-ins' count, keys


def _shadow_keys(t: Tensor, shadows: dict) -> list:
    """t's stand-in versions (`t._shadows`), ascending, remembered for the last tensor
    asked about: a graph's readers of one tensor's versions come together. The dict only
    grows, so an unchanged size means unchanged keys."""
    memo = _keys_memo
    ref = memo[0]
    if ref is not None and ref() is t and memo[1] == len(shadows):
        return memo[2]
    keys = sorted(shadows)
    memo[:] = [weakref.ref(t), len(shadows), keys]
    return keys


def check_not_freed(nodes: Iterable[Node]) -> None:
    for node in nodes:
        if node.freed:
            raise RuntimeError(
                f"Trying to backward through {node.grad_name} ({node.op.name}) a second time, "
                "but its saved tensors were freed by an earlier backward. Pass "
                "retain_graph=True to the first backward()/grad() call if you need to "
                "backward through the same graph again."
            )
