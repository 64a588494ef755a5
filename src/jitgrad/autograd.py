"""The backward front door: argument checks, the compiled and eager paths, retained graphs.

`backward()` lowers the graph once into a Program and runs it in the compiled interpreter.
With retain_graph=True the Program stays on the graph, so a repeat call writes the seeds,
makes one compiled call and reads the leaf gradients: no Python runs per node.
With create_graph=True the gradient rules run eagerly in jitgrad ops instead, recording a
new tape that can be differentiated again.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import fastpath, structural, tape, vm
from .lower import lower
from .program import Program
from .tensor import Tensor

PROGRAMS_KEPT_PER_GRAPH = 4


# ---- argument checks (Paddle uses asserts; we raise errors a user can act on) ------------

def check_tensors(tensors: Any, what: str = "tensors") -> list[Tensor]:
    if isinstance(tensors, Tensor):
        return [tensors]
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{what} must be a Tensor or a list/tuple of Tensors, got "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"{what} is empty: pass at least one Tensor")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor, got {type(t).__name__}")
    if len({id(t) for t in tensors}) != len(tensors):
        raise ValueError(f"{what} contains the same Tensor twice; pass each Tensor once")
    return list(tensors)


def check_seeds(grad_tensors: Any, roots: list[Tensor], what: str = "grad_tensors"
                ) -> list[Tensor | None]:
    if grad_tensors is None:
        return [None] * len(roots)
    if isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    if not isinstance(grad_tensors, (list, tuple)):
        raise TypeError(f"{what} must be None, a Tensor or a list/tuple of Tensors and None, "
                        f"got {type(grad_tensors).__name__}")
    if len(grad_tensors) != len(roots):
        raise ValueError(f"{what} has {len(grad_tensors)} entries but there are {len(roots)} "
                         "output tensors; the lengths must be equal")
    for i, (g, r) in enumerate(zip(grad_tensors, roots)):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor or None, got {type(g).__name__}")
        if g._data.size != r._data.size:
            raise ValueError(f"{what}[{i}] has {g._data.size} elements (shape {g.shape}) but "
                             f"its output has {r._data.size} (shape {r.shape})")
        if g._data.dtype.kind != "f":
            raise TypeError(f"{what}[{i}] must be a float tensor, got {g.dtype.name}")
    return list(grad_tensors)


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# ---- the compiled path ---------------------------------------------------------------------

def program_for(roots: list[Tensor], targets: list | None = None, stop: set[int] | None = None,
                retain: bool = True) -> Program:
    """The lowered Program for this backward, reused from the graph when it was retained."""
    holder = roots[0]._node
    key = (tuple(id(r) for r in roots), None if targets is None else
           tuple(id(t) for t in targets), None if stop is None else frozenset(stop))
    if holder is not None and holder.programs is not None:
        hit = holder.programs.get(key)
        if hit is not None and hit[0] == tape.epoch():
            return hit[1]
    prog = lower(roots, targets, stop)
    if retain and holder is not None:
        if holder.programs is None or len(holder.programs) >= PROGRAMS_KEPT_PER_GRAPH:
            holder.programs = {}
        holder.programs[key] = (tape.epoch(), prog)
    return prog


def write_seeds(prog: Program, seeds: list[Tensor | None]) -> None:
    for (off, n), s in zip(prog.seeds, seeds):
        if s is None:
            prog.arena[off:off + n] = 1
        else:
            prog.arena[off:off + n] = s._data.reshape(-1)


def deliver(prog: Program) -> None:
    """Accumulate into leaf .grad, overwrite retained non-leaf grads (Paddle's rules)."""
    arena = prog.arena
    for t, off, shape, kind in prog.outputs:
        val = arena[off:off + int(np.prod(shape, dtype=np.int64))].reshape(shape)
        if kind == "leaf" and t._grad is not None:
            np.add(t._grad, val, out=t._grad, casting="unsafe")
        elif kind != "target":
            t._grad = val.astype(t._data.dtype, copy=True)


def free_graph(nodes: Sequence[tape.Node]) -> None:
    for node in nodes:
        node.free()
    tape.bump_epoch()


def run_backward(roots: list[Tensor], seeds: list[Tensor | None], retain_graph: bool,
                 cache: bool = True) -> None:
    if cache and not retain_graph and structural.run(roots, seeds):
        return                              # a Program lowered for an identical graph
    prog = program_for(roots, retain=retain_graph)
    if not prog.segments:                   # no hooks: seeds, one compiled call, leaf grads
        fastpath.run(prog, seeds, keep=retain_graph)
    else:
        write_seeds(prog, seeds)
        vm.execute(prog)
        deliver(prog)
    if not retain_graph:
        fastpath.release(prog)
        free_graph(prog.nodes)


# ---- the eager path (create_graph=True, and a third opinion in tests) ----------------------

def eager_gradients(roots: list[Tensor], seeds: list[Tensor | None],
                    targets: list | None = None, stop: set[int] | None = None,
                    create_graph: bool = False) -> dict[int, Tensor]:
    """Run each op's vjp rule in jitgrad ops; returns {id(target tensor): gradient}."""
    from .ops.core import out_tensor, sum_to
    from .ops.elementwise import astype
    plan = tape.Plan(roots, targets, stop)
    tape.check_not_freed(plan.nodes)
    key = lambda t: id(t._node) if t._node is not None else id(t)    # noqa: E731
    grads: dict[int, Tensor] = {}
    found: dict[int, Tensor] = {}
    wanted: dict[int, Tensor] = {}

    def add(t: Tensor, g: Tensor) -> None:
        if g._data.dtype != t._data.dtype:
            g = astype(g, t._data.dtype)
        k = key(t)
        grads[k] = g if k not in grads else grads[k] + g
        if plan.is_target(t):
            wanted[k] = t

    with tape.set_grad_enabled(create_graph):
        for r, s in zip(roots, seeds):
            seed = Tensor._make(np.ones_like(r._data)) if s is None else \
                Tensor._make(s._data.reshape(r._data.shape).astype(r._data.dtype))
            seed._stop_gradient = s is None or s._stop_gradient
            add(r, seed)
        for node in plan.nodes:
            g = grads.get(id(node))
            if g is None:
                continue
            contribs = node.op.vjp(g, out_tensor(node), *node.inputs, **node.attrs)
            for t, c in zip(node.inputs, contribs):
                if c is not None and plan.carries(t):
                    add(t, sum_to(c, t._data.shape))
                elif plan.carries(t) and key(t) not in grads:
                    add(t, Tensor._make(np.zeros_like(t._data)))
    for k, t in wanted.items():
        found[id(t)] = grads[k]
    return found


def eager_backward(roots: list[Tensor], seeds: list[Tensor | None], retain_graph: bool,
                   create_graph: bool) -> None:
    plan_nodes = tape.Plan(roots).nodes
    grads = eager_gradients(roots, seeds, create_graph=create_graph)
    targets = {id(t): t for t in _targets_of(roots, plan_nodes)}
    for tid, g in grads.items():
        t = targets.get(tid)
        if t is None:
            continue
        if t._node is None and t._grad is not None:
            if create_graph:
                t._grad = (Tensor._make(t._grad) + g)._data   # values only: .grad is a leaf
            else:
                np.add(t._grad, g._data, out=t._grad, casting="unsafe")
        else:
            t._grad = np.array(g._data, dtype=t._data.dtype, copy=True)
    if not retain_graph:
        free_graph(plan_nodes)


def _targets_of(roots: list[Tensor], nodes: list[tape.Node]) -> list[Tensor]:
    seen: dict[int, Tensor] = {id(r): r for r in roots}
    for node in nodes:
        for t in node.inputs:
            seen.setdefault(id(t), t)
    return list(seen.values())


# ---- public API ------------------------------------------------------------------------------

def backward(tensors: Tensor | Sequence[Tensor],
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool = False, create_graph: bool = False, *,
             dump_backward_graph_path: str | None = None) -> None:
    """Compute gradients of `tensors` and accumulate them into the leaves' `.grad`.

    Args:
        tensors: a Tensor or a list/tuple of distinct Tensors.
        grad_tensors: seeds, one per tensor; None (or a None entry) means ones. A seed may
            have any shape with the same number of elements as its tensor.
        retain_graph: keep the graph (and its lowered program) for another backward.
        create_graph: record the backward itself so that it can be differentiated again.
        dump_backward_graph_path: a directory to write debugging files into.

    Example:
        >>> import jitgrad as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
        >>> y = paddle.to_tensor([[3., 2.], [3., 4.]])
        >>> z = paddle.matmul(x, y)
        >>> paddle.autograd.backward(z, paddle.to_tensor([[1., 2.], [2., 3.]]))
        >>> x.grad.tolist()
        [[7.0, 11.0], [12.0, 18.0]]
    """
    roots = check_tensors(tensors)
    seeds = check_seeds(grad_tensors, roots)
    retain_graph = check_flag(retain_graph, "retain_graph")
    create_graph = check_flag(create_graph, "create_graph")
    if dump_backward_graph_path is not None:
        from .debug import dump_backward_graph
        dump_backward_graph(dump_backward_graph_path, roots)
    live = [(r, s) for r, s in zip(roots, seeds) if not r._stop_gradient]
    if not live:
        return                                  # no gradient path: a silent no-op, as Paddle
    roots, seeds = [r for r, _ in live], [s for _, s in live]
    if create_graph:
        eager_backward(roots, seeds, retain_graph, create_graph=True)
    else:
        run_backward(roots, seeds, retain_graph, cache=dump_backward_graph_path is None)
