"""Running sums and products along an axis. cumsum is one compiled kernel (CUMSUM, both
directions); its gradient is the reverse cumsum, so the rule is its own double grad."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .core import apply, require_float
from .registry import defop


def _layout(shape: tuple, axis: int, reverse: bool) -> list[int]:
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return [outer, shape[axis], inner, int(reverse)]


def _cumsum_np(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis).copy()
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _lower_cumsum(b, node, g, gins):
    a = node.attrs
    b.emit("CUMSUM", gins[0], g, p=b.table(_layout(node.out_data.shape, a["axis"],
                                                   not a["reverse"])))


SCAN_CASES = tuple({"shapes": (s,), "attrs": {"axis": ax, "reverse": r}}
                   for s, ax, r in (((5,), 0, False), ((2, 3, 2), 1, False), ((2, 3), 0, True),
                                    ((1, 4), 1, False), ((4, 1), 0, False)))

cumsum_op = defop(
    "cumsum", baked=None, forward=_cumsum_np, lower=_lower_cumsum, cases=SCAN_CASES, min_ndim=1,
    vjp=lambda g, out, x, axis, reverse: (apply(cumsum_op, g, axis=axis, reverse=not reverse),))


def _cumprod_vjp(g, out, x, axis, reverse):
    return (apply(cumsum_op, g * out, axis=axis, reverse=not reverse) / x,)


def _lower_cumprod(b, node, g, gins):
    """gx = reverse_cumsum(g * out) / x: MUL, CUMSUM, DIV (x must have no zeros)."""
    shape, a = node.out_data.shape, node.attrs
    t1, t2 = b.alloc(shape), b.alloc(shape)
    b.emit("MUL", t1, g, b.value(node.out_data), acc=False)
    b.emit("CUMSUM", t2, t1, p=b.table(_layout(shape, a["axis"], not a["reverse"])), acc=False)
    b.emit("DIV", gins[0], t2, b.value(node.inputs[0]._data))


cumprod_op = defop(
    "cumprod", baked=None, forward=lambda x, axis, reverse: (
        np.flip(np.cumprod(np.flip(x, axis), axis=axis), axis).copy() if reverse
        else np.cumprod(x, axis=axis)).astype(x.dtype, copy=False),
    vjp=_cumprod_vjp, lower=_lower_cumprod, cases=SCAN_CASES, domain=(0.5, 1.5),
    min_ndim=1)


def _scan(op, x: Tensor, axis: Any, reverse: bool = False) -> Tensor:
    from .shape import reshape
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    if x.ndim == 0:
        x = reshape(x, [1])
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError(f"{op.name}: axis {axis} is out of range for shape {x.shape}")
    return apply(op, x, axis=int(axis) % x.ndim, reverse=bool(reverse))


def cumsum(x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None
           ) -> Tensor:
    """Running sum along `axis` (over the flattened tensor when axis is None)."""
    if dtype is not None:
        x = x.astype(dtype)
    return _scan(cumsum_op, x, axis)


def cumprod(x: Tensor, dim: int | None = None, dtype: Any = None, name: str | None = None
            ) -> Tensor:
    """Running product along `dim`. The gradient divides by x: inputs with zeros give
    inf/nan gradients."""
    require_float(x if dtype is None else x.astype(dtype), "cumprod")
    if dtype is not None:
        x = x.astype(dtype)
    return _scan(cumprod_op, x, dim)
