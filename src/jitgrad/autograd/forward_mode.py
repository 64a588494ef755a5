"""`paddle.incubate.autograd`: functional transforms (jvp, vjp, Jacobian, Hessian) and
forward-mode gradients of recorded graphs.

Forward mode by the transpose of reverse mode: a backward is linear in its cotangent u,
g(u) = J^T u, so recording it with create_graph=True and differentiating <g(u), v> with
respect to u gives J v. That is one recorded backward and one compiled one, with no
forward-mode rule per op. Measured on Paddle 3.3.1: jvp/vjp/Jacobian/Hessian take a function
and detach its inputs (results are not differentiable with respect to the caller's
tensors; they print stop_gradient=False); `forward_grad` and `grad` raise in dynamic mode
("only supported in static graph mode"): jitgrad runs them on eager graphs instead.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core import grad_mode
from ..core.tensor import Tensor

__all__ = ["jvp", "vjp", "forward_grad", "grad", "Jacobian", "Hessian"]


def _as_list(xs: Any, what: str) -> tuple[list[Tensor], bool]:
    """(tensors, whether a single Tensor was given)."""
    if isinstance(xs, Tensor):
        return [xs], True
    if isinstance(xs, (list, tuple)) and xs and all(isinstance(x, Tensor) for x in xs):
        return list(xs), False
    raise TypeError(f"{what} must be a Tensor or a non-empty list/tuple of Tensors, got "
                    f"{type(xs).__name__}")


def _fresh(xs: list[Tensor]) -> list[Tensor]:
    """The inputs as new leaves needing gradients (Paddle's incubate transforms detach)."""
    return [Tensor._make(x._data.copy(), stop_gradient=False) for x in xs]


def _check_like(vs: Any, like: list[Tensor], what: str) -> list[Tensor]:
    if vs is None:
        return [Tensor._make(np.ones_like(t._data)) for t in like]
    vs, _ = _as_list(vs, what)
    if len(vs) != len(like):
        raise RuntimeError(f"{what} has {len(vs)} entries, expected {len(like)}")
    for i, (v, t) in enumerate(zip(vs, like)):
        if v.shape != t.shape:
            raise RuntimeError(f"The {what}[{i}] has invalid shape: should be {t.shape} but "
                               f"got {v.shape}.")
    return vs


def _outputs(ys: Any) -> tuple[list[Tensor], bool]:
    return _as_list(ys, "the function's output")


def _zeros_for(gs: list, like: list[Tensor]) -> list[Tensor]:
    return [Tensor._make(np.zeros_like(t._data), stop_gradient=False) if g is None
            else Tensor._make(g._data, stop_gradient=False) for g, t in zip(gs, like)]


def _pack(ts: list[Tensor], single: bool) -> Any:
    return ts[0] if single else tuple(ts)


def vjp(func: Callable[..., Any], xs: Any, v: Any = None) -> tuple[Any, Any]:
    """(func(xs), v^T J): the vector-Jacobian product at xs (v None: ones)."""
    from .api import grad as _grad
    xs_l, single_x = _as_list(xs, "xs")
    xs_l = _fresh(xs_l)
    with grad_mode.enable_grad():
        ys = func(*xs_l)
        ys_l, _ = _outputs(ys)
    vs = _check_like(v, ys_l, "v")
    live = [(y, s) for y, s in zip(ys_l, vs) if not y._stop_gradient]
    gs: list = [None] * len(xs_l)
    if live:
        gs = _grad([y for y, _ in live], xs_l, [s for _, s in live], allow_unused=True)
    # (Paddle 3.3.1: func's result as it returned it, a list or tuple kept; the gradients
    # a tuple when xs is a list or tuple)
    return ys, _pack(_zeros_for(gs, xs_l), single_x)


def _forward(outputs: list[Tensor], inputs: list[Tensor], tangents: list[Tensor]
             ) -> list[Tensor]:
    """J v for recorded outputs: the backward recorded in dummy cotangents u, then
    differentiated with respect to u in the direction v (see the module docstring)."""
    from .api import grad as _grad
    live = [y for y in outputs if not y._stop_gradient and y._data.dtype.kind == "f"]
    out = [Tensor._make(np.zeros_like(y._data), stop_gradient=False) for y in outputs]
    if not live:
        return out
    us = [Tensor._make(np.zeros_like(y._data), stop_gradient=False) for y in live]
    with grad_mode.enable_grad():
        gs = _grad(live, inputs, us, create_graph=True, allow_unused=True)
    pairs = [(g, t) for g, t in zip(gs, tangents) if g is not None and not g._stop_gradient]
    if not pairs:
        return out
    with grad_mode.enable_grad():
        inner = sum(((g * t).sum() for g, t in pairs[1:]), (pairs[0][0] * pairs[0][1]).sum())
    jv = _grad(inner, us, allow_unused=True)
    found = {id(y): j for y, j in zip(live, jv)}
    return [Tensor._make(found[id(y)]._data, stop_gradient=False)
            if found.get(id(y)) is not None else o for y, o in zip(outputs, out)]


def jvp(func: Callable[..., Any], xs: Any, v: Any = None) -> tuple[Any, Any]:
    """(func(xs), J v): the Jacobian-vector product at xs (v None: ones)."""
    xs_l, _ = _as_list(xs, "xs")
    vs = _check_like(v, xs_l, "v")
    xs_l = _fresh(xs_l)
    with grad_mode.enable_grad():
        ys = func(*xs_l)
        ys_l, single_y = _outputs(ys)
    # (Paddle 3.3.1: func's result as returned; the tangents a tuple when it is a sequence)
    return ys, _pack(_forward(ys_l, xs_l, vs), single_y)


def forward_grad(outputs: Any, inputs: Any, grad_inputs: Any = None) -> Any:
    """Forward-mode gradient of recorded outputs: J v with v = grad_inputs (None: ones).

    Paddle 3.3.1 supports this in static graph mode only; jitgrad runs it on the eager
    graph (the outputs must have been recorded from the inputs)."""
    outs, single = _as_list(outputs, "outputs")
    ins, _ = _as_list(inputs, "inputs")
    vs = _check_like(grad_inputs, ins, "grad_inputs")
    return _pack(_forward(outs, ins, vs), single)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None) -> Any:
    """Reverse-mode gradient with incubate's structure (a Tensor for a Tensor); Paddle
    3.3.1 supports it in static graph mode only. Inputs the outputs do not reach get
    zeros."""
    from .api import grad as _grad
    outs, _ = _as_list(outputs, "outputs")
    ins, single = _as_list(inputs, "inputs")
    seeds = None if grad_outputs is None else _check_like(grad_outputs, outs, "grad_outputs")
    gs = _grad(outs, ins, seeds, allow_unused=True)
    return _pack(_zeros_for(gs, ins), single)


class _Matrix:
    """A computed Jacobian or Hessian: `shape`, indexing (`J[:, 1]`), numpy()."""

    def __init__(self, value: Tensor) -> None:
        self._value = value
        self.shape = tuple(value.shape)     # a tuple, as Paddle 3.3.1's incubate matrices

    def __getitem__(self, index: Any) -> Tensor:
        return self._value[index]

    def numpy(self) -> np.ndarray:
        return self._value.numpy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape})"


def _jacobian_matrix(ys: list[Tensor], xs: list[Tensor], batched: bool) -> Tensor:
    """[M, N] (or [B, M, N]): the outputs flattened and joined along M, the inputs along N,
    rows from one batched backward per output."""
    from .api import grad as _grad
    from ..ops import concat, reshape
    blocks = []
    for y in ys:
        B = y.shape[0] if batched else 1
        m = y.size // B
        seeds = np.zeros((m, B, m), y._data.dtype)
        for i in range(m):
            seeds[i, :, i] = 1
        row = []
        gs = _grad(y, xs, Tensor._make(seeds.reshape((m,) + tuple(y.shape))),
                   allow_unused=True, batched=True) if not y._stop_gradient else [None] * len(xs)
        for g, x in zip(gs, xs):
            n = x.size // B
            g = np.zeros((m,) + tuple(x.shape), x._data.dtype) if g is None else g._data
            g = g.reshape(m, B, n)
            row.append(Tensor._make(np.ascontiguousarray(g.transpose(1, 0, 2))))
        blocks.append(concat(row, axis=2) if len(row) > 1 else row[0])
    full = concat(blocks, axis=1) if len(blocks) > 1 else blocks[0]
    if not batched:
        full = reshape(full, full.shape[1:])
    return Tensor._make(full._data, stop_gradient=False)


class Jacobian(_Matrix):
    """The Jacobian of func at xs: [M, N], or [B, M, N] with is_batched=True (outputs and
    inputs flattened per batch row and joined, as Paddle)."""

    def __init__(self, func: Callable[..., Any], xs: Any, is_batched: bool = False) -> None:
        xs_l, _ = _as_list(xs, "xs")
        xs_l = _fresh(xs_l)
        with grad_mode.enable_grad():
            ys_l, _ = _outputs(func(*xs_l))
        super().__init__(_jacobian_matrix(ys_l, xs_l, bool(is_batched)))


class Hessian(_Matrix):
    """The Hessian of a scalar func (one per batch row with is_batched=True) at xs."""

    def __init__(self, func: Callable[..., Any], xs: Any, is_batched: bool = False) -> None:
        from .api import grad as _grad
        from ..ops import concat, reshape
        xs_l, _ = _as_list(xs, "xs")
        xs_l = _fresh(xs_l)
        with grad_mode.enable_grad():
            ys_l, _ = _outputs(func(*xs_l))
            if len(ys_l) != 1:
                raise RuntimeError("Hessian needs a function with one output")
            y = ys_l[0]
            B = y.shape[0] if is_batched and y.ndim else 1
            if y.size != B:
                per = " per batch row" if is_batched else ""
                raise RuntimeError(f"Hessian needs one output element{per}, got shape "
                                   f"{y.shape}")
            gs = _grad(y, xs_l, create_graph=True, allow_unused=True)
            gs = [Tensor._make(np.zeros_like(x._data)) if g is None else g
                  for g, x in zip(gs, xs_l)]
            flat = [reshape(g, [B, -1]) if is_batched else reshape(g, [-1]) for g in gs]
            g = concat(flat, axis=-1) if len(flat) > 1 else flat[0]
        super().__init__(_jacobian_matrix([g], xs_l, bool(is_batched)))
