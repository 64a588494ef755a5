"""paddle.distributed.fleet.utils.recompute: activation checkpointing.

`recompute(function, *args)` runs `function` without recording, so none of its intermediate
values are kept; the backward runs it again, recording, with the random state it had the
first time (a dropout inside drops the same units), and differentiates that. Gradients are
those of `function(*args)` itself, parameters inside it included; the forward runs twice.
As Paddle's (its reentrant form), at least one Tensor argument must need a gradient, else
nothing is recorded and the parameters inside get none. In a create_graph=True backward the
rerun is differentiated on the arguments themselves, so the gradients stay differentiable
(a gradient penalty through a recomputed block; Paddle 3.3.1's gives None there).
"""

from __future__ import annotations

from typing import Any, Callable

from ...autograd.api import backward, grad
from ...autograd.eager import accumulate_leaf
from ...autograd.py_layer import PyLayer
from ...core.grad_mode import enable_grad, no_grad
from ...core.tape import is_grad_enabled
from ...core.tensor import Tensor
from ...ops.creation import get_rng_state, set_rng_state

__all__ = ["recompute"]


def recompute(function: Callable, *args: Any, preserve_rng_state: bool = True,
              use_reentrant: bool = True, **kwargs: Any) -> Any:
    """function(*args, **kwargs), its intermediate values recomputed in the backward."""
    if not callable(function):
        raise TypeError(f"recompute: function must be callable, got {type(function).__name__}")
    return _Recompute.apply(function, bool(preserve_rng_state), kwargs, *args)


class _Recompute(PyLayer):
    @staticmethod
    def forward(ctx: Any, function: Callable, preserve: bool, kwargs: dict, *args: Any) -> Any:
        ctx.function, ctx.kwargs, ctx.args = function, kwargs, args
        ctx.rng = get_rng_state() if preserve else None
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return function(*args, **kwargs)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        if is_grad_enabled():           # a create_graph=True backward
            return _recorded_backward(ctx, grads)
        saved = iter(ctx.saved_tensor())
        inputs = []
        for a in ctx.args:
            if isinstance(a, Tensor):
                t = next(saved)
                d = t.detach()
                d.stop_gradient = t.stop_gradient
                inputs.append(d)
            else:
                inputs.append(a)
        outs = _rerun(ctx, tuple(inputs))
        pairs = [(o, g) for o, g in zip([o for o in outs if isinstance(o, Tensor)], grads)
                 if not o.stop_gradient and g is not None]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(None if d.stop_gradient else d.grad
                     for d in inputs if isinstance(d, Tensor))


def _rerun(ctx: Any, args: tuple) -> list:
    """function(*args) again, recording, with the random state of the first run."""
    state = None
    if ctx.rng is not None:
        state = get_rng_state()
        set_rng_state(ctx.rng)
    try:
        with enable_grad():
            outs = ctx.function(*args, **ctx.kwargs)
    finally:
        if state is not None:
            set_rng_state(state)
    return [outs] if isinstance(outs, Tensor) else list(outs)


def _recorded_backward(ctx: Any, grads: tuple) -> tuple:
    """The backward of a create_graph=True call: the rerun differentiated on the arguments
    themselves (not detached copies), so the gradients returned are recorded and can be
    differentiated again; parameters used inside accumulate theirs into .grad, as
    backward(create_graph=True) does (found by a walk that stops at the arguments, and
    differentiated with the arguments as constants, so no path through them counts twice)."""
    tensors = [a for a in ctx.args if isinstance(a, Tensor)]
    outs = _rerun(ctx, ctx.args)
    pairs = [(o, g) for o, g in zip([o for o in outs if isinstance(o, Tensor)], grads)
             if not o.stop_gradient and g is not None]
    wanted = [t for t in tensors if not t.stop_gradient]
    if not pairs:
        return tuple(None for _ in tensors)
    roots, seeds = [o for o, _ in pairs], [g for _, g in pairs]
    found: dict = {}
    if wanted:
        gs = grad(roots, list({id(t): t for t in wanted}.values()), seeds,
                  create_graph=True, allow_unused=True)
        found = {id(t): g for t, g in zip({id(t): t for t in wanted}.values(), gs)}
    params = _inner_leaves(roots, tensors)
    if params:
        gs = grad(roots, params, seeds, create_graph=True, allow_unused=True,
                  no_grad_vars=tensors)
        for p, g in zip(params, gs):
            if g is not None:
                accumulate_leaf(p, g, True)
    return tuple(None if t.stop_gradient else found.get(id(t)) for t in tensors)


def _inner_leaves(roots: list[Tensor], args: list[Tensor]) -> list[Tensor]:
    """Leaves needing gradients that the rerun's graph reaches without passing through the
    arguments (the parameters used inside the function)."""
    stop = {id(t) for t in args}
    leaves: dict = {}
    seen: set = set()
    todo = list(roots)
    while todo:
        t = todo.pop()
        if id(t) in stop:
            continue
        node = t._node
        if node is None:
            if not t._stop_gradient:
                leaves.setdefault(id(t), t)
            continue
        if id(node) not in seen:
            seen.add(id(node))
            todo.extend(x for x, need in zip(node.inputs, node.needs) if need)
    return list(leaves.values())
