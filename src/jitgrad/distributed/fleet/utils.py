"""paddle.distributed.fleet.utils.recompute: activation checkpointing.

`recompute(function, *args)` runs `function` without recording, so none of its intermediate
values are kept; the backward runs it again, recording, with the random state it had the
first time (a dropout inside drops the same units), and differentiates that. Gradients are
those of `function(*args)` itself, parameters inside it included; the forward runs twice.
As Paddle's (its reentrant form), at least one Tensor argument must need a gradient, else
nothing is recorded and the parameters inside get none.
"""

from __future__ import annotations

from typing import Any, Callable

from ...autograd.api import backward
from ...autograd.py_layer import PyLayer
from ...core.grad_mode import enable_grad, no_grad
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
        state = None
        if ctx.rng is not None:
            state = get_rng_state()
            set_rng_state(ctx.rng)
        try:
            with enable_grad():
                outs = ctx.function(*inputs, **ctx.kwargs)
        finally:
            if state is not None:
                set_rng_state(state)
        outs = [outs] if isinstance(outs, Tensor) else list(outs)
        pairs = [(o, g) for o, g in zip([o for o in outs if isinstance(o, Tensor)], grads)
                 if not o.stop_gradient and g is not None]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(None if d.stop_gradient else d.grad
                     for d in inputs if isinstance(d, Tensor))
