"""Putting tensors together and taking them apart, in Paddle 3.x's numpy-style names: hstack,
vstack, dstack, column_stack, row_stack, atleast_1d/2d/3d, tensor_split, hsplit, vsplit,
dsplit, narrow, broadcast_tensors, broadcast_shape, add_n, tensordot, diag_embed, diagflat.
All are composites of concat, reshape, slicing, transpose and matmul, so each gradient is the
one of those moves (shapes measured against Paddle 3.3.1)."""

from __future__ import annotations

import math
import functools
from typing import Any, Sequence

import numpy as np

from . import siblings
from ..core.tensor import Tensor
from .indexing import _axis, _slice_along, concat, put_flat, stack
from .linalg import matmul
from .shape import broadcast_to, reshape, transpose, unsqueeze


def _tensors(x: Any, what: str) -> list[Tensor]:
    if isinstance(x, Tensor):
        return [x]
    items = list(x)
    if not items:
        raise ValueError(f"{what} needs at least one tensor")
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: item {i} is a {type(t).__name__}, not a Tensor")
    return items


def atleast_1d(*inputs: Tensor, name: str | None = None) -> Any:
    """Each input with at least 1 dim (one tensor in, one out; several in, a list out)."""
    out = [x if x.ndim >= 1 else reshape(x, [1]) for x in inputs]
    return out[0] if len(out) == 1 else out


def atleast_2d(*inputs: Tensor, name: str | None = None) -> Any:
    """0-d -> [1, 1], 1-D [n] -> [1, n]."""
    out = [x if x.ndim >= 2 else reshape(x, [1, -1] if x.ndim else [1, 1]) for x in inputs]
    return out[0] if len(out) == 1 else out


def atleast_3d(*inputs: Tensor, name: str | None = None) -> Any:
    """0-d -> [1, 1, 1], [n] -> [1, n, 1], [m, n] -> [m, n, 1] (numpy's rule)."""
    def up(x: Tensor) -> Tensor:
        if x.ndim >= 3:
            return x
        if x.ndim == 2:
            return unsqueeze(x, -1)
        return reshape(x, [1, -1, 1] if x.ndim else [1, 1, 1])
    out = [up(x) for x in inputs]
    return out[0] if len(out) == 1 else out


def hstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """Concatenate along dim 1 (along dim 0 for 1-D tensors)."""
    xs = atleast_1d(*_tensors(x, "hstack"))
    xs = xs if isinstance(xs, list) else [xs]
    return concat(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """Concatenate along dim 0, 1-D tensors taken as rows."""
    xs = atleast_2d(*_tensors(x, "vstack"))
    return concat(xs if isinstance(xs, list) else [xs], 0)


row_stack = vstack


def dstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """Concatenate along dim 2, after atleast_3d."""
    xs = atleast_3d(*_tensors(x, "dstack"))
    return concat(xs if isinstance(xs, list) else [xs], 2)


def column_stack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """1-D tensors become columns, then hstack."""
    xs = [reshape(t, [-1, 1]) if t.ndim < 2 else t for t in _tensors(x, "column_stack")]
    return concat(xs, 1)


def tensor_split(x: Tensor, num_or_indices: Any, axis: Any = 0, name: str | None = None
                 ) -> list[Tensor]:
    """Split into num parts (the first n % num one longer) or at the given indices."""
    ax = _axis(axis, x.ndim, "tensor_split")
    n = x.shape[ax]
    if isinstance(num_or_indices, (int, np.integer)) and not isinstance(num_or_indices, bool):
        k = int(num_or_indices)
        if k <= 0:
            raise ValueError(f"tensor_split: the number of sections must be positive, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        idx = [int(i) for i in num_or_indices]
        bounds = [0] + [min(max(i + n if i < 0 else i, 0), n) for i in idx] + [n]
    return siblings.note([_slice_along(x, ax, a, max(a, b))
                          for a, b in zip(bounds[:-1], bounds[1:])])


def _split_dim(x: Tensor, num_or_indices: Any, axis: int, what: str, min_ndim: int
               ) -> list[Tensor]:
    if x.ndim < min_ndim:
        raise ValueError(f"{what} needs a tensor of at least {min_ndim} dims, got {x.shape}")
    return tensor_split(x, num_or_indices, axis)     # (uneven parts allowed, as Paddle's)


def hsplit(x: Tensor, num_or_indices: Any, name: str | None = None) -> list[Tensor]:
    """tensor_split along dim 1 (dim 0 for 1-D tensors)."""
    return _split_dim(x, num_or_indices, 0 if x.ndim == 1 else 1, "hsplit", 1)


def vsplit(x: Tensor, num_or_indices: Any, name: str | None = None) -> list[Tensor]:
    return _split_dim(x, num_or_indices, 0, "vsplit", 2)


def dsplit(x: Tensor, num_or_indices: Any, name: str | None = None) -> list[Tensor]:
    return _split_dim(x, num_or_indices, 2, "dsplit", 3)


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """input's slice [start, start + length) along dim (a negative start counts from the end)."""
    ax = _axis(dim, input.ndim, "narrow")
    n = input.shape[ax]
    s = int(start.item() if isinstance(start, Tensor) else start)
    s = s + n if s < 0 else s
    if not 0 <= s <= n or length < 0 or s + length > n:
        raise ValueError(f"narrow: start {start} and length {length} do not fit in dim {dim} "
                         f"of size {n}")
    return _slice_along(input, ax, s, s + int(length))


def broadcast_shape(x_shape: Sequence[int], y_shape: Sequence[int]) -> list[int]:
    """The shape two shapes broadcast to (ValueError if they do not)."""
    try:
        return list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))
    except ValueError:
        raise ValueError(f"broadcast_shape: {list(x_shape)} and {list(y_shape)} do not "
                         "broadcast") from None


def broadcast_tensors(input: Sequence[Tensor], name: str | None = None) -> list[Tensor]:
    xs = _tensors(input, "broadcast_tensors")
    shape = functools.reduce(broadcast_shape, [x.shape for x in xs])
    return [x if x.shape == shape else broadcast_to(x, shape) for x in xs]


def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """The sum of tensors of one shape."""
    xs = _tensors(inputs, "add_n")
    for i, t in enumerate(xs[1:], 1):
        if t.shape != xs[0].shape:
            raise ValueError(f"add_n: input {i} has shape {t.shape}, input 0 has {xs[0].shape}")
    if len(xs) > 2 and all(t._data.dtype == np.float16 for t in xs):
        # Paddle 3.3.1 adds float16 inputs in float32 and rounds once (2048 + 1 + 1 is
        # 2050; one float16 addition after another gives 2048): sum's float16 rule
        from .reduce import sum as _sum
        return _sum(stack(xs), axis=0)
    return functools.reduce(lambda a, b: a + b, xs)


def tensordot(x: Tensor, y: Tensor, axes: Any = 2, name: str | None = None) -> Tensor:
    """Sum over x's and y's given dims: axes an int n (x's last n with y's first n), one list
    (the same dims of both) or two lists."""
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(x.ndim, y.ndim):
            raise ValueError(f"tensordot: axes={n} does not fit shapes {x.shape} and {y.shape}")
        ax, ay = list(range(x.ndim - n, x.ndim)), list(range(n))
    else:
        axes = list(axes)
        if axes and isinstance(axes[0], (list, tuple)):
            ax, ay = list(axes[0]), list(axes[1]) if len(axes) > 1 else list(axes[0])
        else:
            ax = ay = axes
        ax = [_axis(a, x.ndim, "tensordot") for a in ax]
        ay = [_axis(a, y.ndim, "tensordot") for a in ay]
        if len(ax) != len(ay):
            raise ValueError(f"tensordot: {len(ax)} dims of x against {len(ay)} of y")
    for a, b in zip(ax, ay):
        if x.shape[a] != y.shape[b]:
            raise ValueError(f"tensordot: x's dim {a} has size {x.shape[a]}, y's dim {b} "
                             f"has {y.shape[b]}")
    free_x = [d for d in range(x.ndim) if d not in ax]
    free_y = [d for d in range(y.ndim) if d not in ay]
    k = math.prod([x.shape[a] for a in ax])
    xm = reshape(transpose(x, free_x + ax), [-1, k])
    ym = reshape(transpose(y, ay + free_y), [k, -1])
    return reshape(matmul(xm, ym), [x.shape[d] for d in free_x] + [y.shape[d] for d in free_y])


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The last dim of input placed on the `offset` diagonal of the (dim1, dim2) planes of a
    new tensor with one more dim."""
    n = input.shape[-1] + abs(offset)
    nd = input.ndim + 1
    d1, d2 = _axis(dim1, nd, "diag_embed"), _axis(dim2, nd, "diag_embed")
    if d1 == d2:
        raise ValueError("diag_embed: dim1 and dim2 must differ")
    m = input.shape[-1]
    batch = math.prod(input.shape[:-1])
    rows = np.arange(m) + max(-offset, 0)
    cols = np.arange(m) + max(offset, 0)
    positions = (np.arange(batch)[:, None] * (n * n) + rows * n + cols).reshape(input.shape)
    zeros = Tensor._make(np.zeros(input.shape[:-1] + [n, n], dtype=input._data.dtype))
    plane = put_flat(zeros, positions, input)
    # the plane's two dims sit last; move them to (d1, d2)
    rest = [d for d in range(nd) if d not in (d1, d2)]
    perm = [0] * nd
    for src, dst in enumerate(rest + [d1, d2]):
        perm[dst] = src
    return transpose(plane, perm)


def diagflat(x: Tensor, offset: int = 0, name: str | None = None) -> Tensor:
    """A square matrix with x's flattened values on the `offset` diagonal."""
    return diag_embed(reshape(x, [-1]), offset)


NAMES = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
         "column_stack", "tensor_split", "hsplit", "vsplit", "dsplit", "narrow",
         "broadcast_shape", "broadcast_tensors", "add_n", "tensordot", "diag_embed", "diagflat"]
