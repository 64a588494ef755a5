"""Paddle 3.3.1's less common manipulation functions (unflatten, block_diag, cartesian_prod,
take_along_dim): composites of the moving primitives already here (reshape, pad, concat,
stack, take_flat), so their gradients come from those ops' rules. Each name a user can call
is listed in NAMES (ops/__init__.py exports them and binds them as Tensor methods).
Behaviours noted "(Paddle)" were measured on Paddle 3.3.1."""

from __future__ import annotations

from typing import Any, Sequence

from ..core.tensor import Tensor
from .composites import meshgrid
from .indexing import _axis, concat, pad, stack, take_along_axis
from .shape import reshape

NAMES: list[str] = ["unflatten", "block_diag", "cartesian_prod", "take_along_dim"]


def _tensors(xs: Any, fn: str) -> list[Tensor]:
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{fn}: pass a non-empty list or tuple of Tensors")
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: item {i} must be a Tensor, got {type(t).__name__}")
    dtypes = {t._data.dtype for t in xs}
    if len(dtypes) > 1:
        raise ValueError(f"{fn}: the tensors must share one dtype, got "
                         f"{', '.join(sorted(d.name for d in dtypes))}")
    return list(xs)


def unflatten(x: Tensor, axis: int, shape: Sequence[int], name: str | None = None) -> Tensor:
    """x with dim `axis` split into `shape` (one entry may be -1)."""
    ax = _axis(axis, x.ndim, "unflatten")
    shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    if not shape:
        raise ValueError("unflatten: shape must not be empty")
    return reshape(x, x.shape[:ax] + shape + x.shape[ax + 1:])


def block_diag(inputs: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The inputs as the blocks of a block-diagonal matrix: a 0-d input is a 1 x 1 block, a
    1-D one a row; all must share one dtype (Paddle)."""
    blocks = []
    for t in _tensors(inputs, "block_diag"):
        if t.ndim > 2:
            raise ValueError(f"block_diag: inputs must have at most 2 dims, got {t.shape}")
        blocks.append(reshape(t, [1, 1]) if t.ndim == 0 else
                      reshape(t, [1, t.shape[0]]) if t.ndim == 1 else t)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        c = b.shape[1]
        rows.append(pad(b, [0, 0, left, width - left - c]))
        left += c
    return concat(rows, axis=0)


def cartesian_prod(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """Every combination of one element from each 1-D input, as rows [N, len(x)]; a
    single input comes back as it is (Paddle)."""
    xs = _tensors(x, "cartesian_prod")
    for t in xs:
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: inputs must be 1-D, got shape {t.shape}")
    if len(xs) == 1:
        return xs[0]
    grids = meshgrid(*xs)
    return stack([reshape(g, [-1]) for g in grids], axis=1)


def take_along_dim(arr: Tensor, indices: Tensor, axis: int, broadcast: bool = True,
                   name: str | None = None) -> Tensor:
    """take_along_axis under torch's name (Paddle's alias)."""
    return take_along_axis(arr, indices, axis, broadcast)
