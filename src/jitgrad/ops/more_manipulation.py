"""Paddle 3.3.1's less common manipulation functions (unflatten, block_diag, cartesian_prod,
the *_scatter family, index_put, masked_scatter, scatter_add, ...): composites of the moving
primitives already here (reshape, pad, concat, stack, put_flat), so their gradients come
from those ops' rules. Each name a user can call is listed in NAMES (ops/__init__.py
exports them and binds them as Tensor methods). Behaviours noted "(Paddle)" were measured
on Paddle 3.3.1."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from .composites import meshgrid
from .core import const
from .indexing import _axis, _index_array, concat, pad, put_flat, stack, take_along_axis
from .search import sort
from .shape import _flat_positions, getitem, reshape

NAMES: list[str] = ["unflatten", "block_diag", "cartesian_prod", "take_along_dim",
                    "select_scatter", "slice_scatter", "diagonal_scatter", "msort",
                    "index_put", "masked_scatter", "scatter_add", "view", "view_as",
                    "unique_consecutive", "crop", "broadcast_shapes"]


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


def _scatter_into(x: Tensor, positions: np.ndarray, values: Tensor, fn: str) -> Tensor:
    """A copy of x with `values` written at `positions` (x's flat positions, shaped as the
    region): values must have the region's shape exactly, as Paddle requires. x's gradient
    is g outside the region, values' is g inside it."""
    if not isinstance(values, Tensor):
        raise TypeError(f"{fn}: the values must be a Tensor, got {type(values).__name__}")
    if tuple(values.shape) != positions.shape:
        raise ValueError(f"{fn}: the values have shape {values.shape}, the region they "
                         f"replace {list(positions.shape)}")
    return put_flat(x, positions, values)


def select_scatter(x: Tensor, values: Tensor, axis: int, index: int,
                   name: str | None = None) -> Tensor:
    """A copy of x with x[..., index, ...] (along axis) replaced by values. An index out of
    range raises IndexError (Paddle 3.3.1 silently writes nothing)."""
    ax = _axis(axis, x.ndim, "select_scatter")
    n = x.shape[ax]
    if not -n <= int(index) < n:
        raise IndexError(f"select_scatter: index {index} is out of range for axis {ax} of "
                         f"size {n}")
    pos = np.take(_flat_positions(tuple(x._data.shape)), int(index) % n, axis=ax)
    return _scatter_into(x, pos, values, "select_scatter")


def slice_scatter(x: Tensor, value: Tensor, axes: Sequence[int], starts: Sequence[int],
                  ends: Sequence[int], strides: Sequence[int], name: str | None = None
                  ) -> Tensor:
    """A copy of x with the strided slice x[starts:ends:strides] along axes replaced by
    value."""
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ValueError("slice_scatter: axes, starts, ends and strides need one entry each")
    key = [slice(None)] * x.ndim
    for a, b, e, st in zip(axes, starts, ends, strides):
        if int(st) == 0:
            raise ValueError("slice_scatter: a stride cannot be 0")
        key[_axis(a, x.ndim, "slice_scatter")] = slice(int(b), int(e), int(st))
    pos = _flat_positions(tuple(x._data.shape))[tuple(key)]
    return _scatter_into(x, pos, value, "slice_scatter")


def diagonal_scatter(x: Tensor, y: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: str | None = None) -> Tensor:
    """A copy of x with its diagonal (offset, axis1, axis2 as paddle.diagonal) replaced by
    y. y gets its gradient (Paddle 3.3.1 gives it none)."""
    a1, a2 = _axis(axis1, x.ndim, "diagonal_scatter"), _axis(axis2, x.ndim, "diagonal_scatter")
    if a1 == a2:
        raise ValueError("diagonal_scatter: axis1 and axis2 must differ")
    pos = np.diagonal(_flat_positions(tuple(x._data.shape)), int(offset), a1, a2)
    return _scatter_into(x, pos, y, "diagonal_scatter")


def msort(input: Tensor, name: str | None = None) -> Tensor:
    """input sorted along its first axis."""
    return sort(input, axis=0)


def _values(v: Any, x: Tensor, fn: str) -> Tensor:
    if isinstance(v, Tensor):
        return v if v._data.dtype == x._data.dtype else v.astype(x._data.dtype)
    return const(np.asarray(v, x._data.dtype), x._data.dtype)


def index_put(x: Tensor, indices: Sequence[Tensor], value: Tensor | float,
              accumulate: bool = False, name: str | None = None) -> Tensor:
    """A copy of x with x[indices] = value (value broadcasts), or += with accumulate. With
    repeated indices and accumulate=False the last value lands and only it gets a
    gradient (README: Paddle's overwritten values get one too)."""
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)) or not indices:
        raise TypeError("index_put: indices must be a non-empty tuple or list of Tensors")
    keys = []
    for i, t in enumerate(indices):
        a = np.asarray(t._data if isinstance(t, Tensor) else t)
        if a.dtype.kind not in "iub":
            raise TypeError(f"index_put: indices[{i}] must be an integer or bool tensor, "
                            f"got {a.dtype}")
        keys.append(a)
    try:
        pos = _flat_positions(tuple(x._data.shape))[tuple(keys)]
    except IndexError as e:
        raise IndexError(f"index_put: {e}") from None
    v = _values(value, x, "index_put")
    return put_flat(x, pos, v, "add" if accumulate else "assign")


def masked_scatter(x: Tensor, mask: Tensor, value: Tensor, name: str | None = None
                   ) -> Tensor:
    """A copy of x whose elements where mask (broadcast to x) is True take value's first
    elements in order; value needs at least as many elements as there are True entries."""
    m = np.asarray(mask._data if isinstance(mask, Tensor) else mask)
    if m.dtype != np.bool_:
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got {m.dtype}")
    shape = tuple(x._data.shape)
    try:
        m = np.broadcast_to(m, shape)
    except ValueError:
        raise ValueError(f"masked_scatter: mask of shape {list(m.shape)} does not broadcast "
                         f"to x's {list(shape)}") from None
    pos = _flat_positions(shape)[m]
    v = _values(value, x, "masked_scatter")
    k = pos.size
    if v._data.size < k:
        raise ValueError(f"masked_scatter: value has {v._data.size} elements, the mask "
                         f"selects {k}")
    flat = reshape(v, [-1])
    if flat.shape[0] != k:
        flat = getitem(flat, (slice(0, k),))
    return put_flat(x, pos, flat)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """torch's scatter_add: input[..., index[i, j, ...], ...] += src[i, j, ...] along dim,
    for each position of index (which may be smaller than src: only src's leading block of
    index's shape is used, and only it gets a gradient)."""
    ax = _axis(dim, input.ndim, "scatter_add")
    idx = _index_array(index, "scatter_add")
    if idx.ndim != input.ndim or not isinstance(src, Tensor) or src.ndim != input.ndim:
        raise ValueError("scatter_add: input, index and src need the same number of dims")
    for d, n in enumerate(idx.shape):
        if n > src.shape[d] or (d != ax and n > input.shape[d]):
            raise ValueError(f"scatter_add: index of shape {list(idx.shape)} is larger than "
                             f"src {src.shape} or input {input.shape} in dim {d}")
    n = input.shape[ax]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"scatter_add: an index is out of range for dim {ax} of size {n}")
    coords = list(np.indices(idx.shape))
    coords[ax] = idx % n if n else idx
    pos = np.ravel_multi_index(tuple(coords), tuple(input._data.shape)) if idx.size else \
        np.zeros(idx.shape, np.int64)
    part = src if tuple(src.shape) == idx.shape else \
        getitem(src, tuple(slice(0, k) for k in idx.shape))
    return put_flat(input, pos, _values(part, input, "scatter_add"), "add")


def view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> Tensor:
    """reshape (a list of ints, or a shape Tensor), or the same bytes read as another
    dtype (no gradient). jitgrad's result is its own tensor: a later in-place write to
    either leaves the other alone (README: in-place writes copy on write)."""
    if isinstance(shape_or_dtype, (list, tuple, Tensor)):
        return reshape(x, shape_or_dtype)
    dt = dtypes.to_dtype(shape_or_dtype).np
    try:
        return Tensor._make(np.ascontiguousarray(x._data).view(dt))
    except ValueError as e:
        raise ValueError(f"view: cannot read a {x.dtype.name} tensor of shape {x.shape} as "
                         f"{dt.name}: {e}") from None


def view_as(x: Tensor, other: Tensor, name: str | None = None) -> Tensor:
    """x reshaped to other's shape."""
    if not isinstance(other, Tensor):
        raise TypeError(f"view_as: other must be a Tensor, got {type(other).__name__}")
    return reshape(x, other.shape)


def unique_consecutive(x: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype: Any = "int64", name: str | None = None
                       ) -> Tensor | tuple[Tensor, ...]:
    """x with each run of equal consecutive elements (slices along axis; the flattened x
    when axis is None) kept once; with the flags also each element's run number and each
    run's length, in `dtype`. No gradient."""
    a = x._data if isinstance(x, Tensor) else np.asarray(x)
    if axis is None:
        a, ax = a.reshape(-1), 0
    else:
        ax = _axis(axis, a.ndim, "unique_consecutive")
    moved = np.moveaxis(a, ax, 0)
    n = moved.shape[0]
    new_run = np.ones(n, bool)
    if n > 1:
        new_run[1:] = (moved[1:] != moved[:-1]).reshape(n - 1, -1).any(axis=1)
    out = [Tensor._make(np.moveaxis(moved[new_run], 0, ax))]
    it = dtypes.to_dtype(dtype).np
    if return_inverse:
        out.append(Tensor._make((np.cumsum(new_run) - 1).astype(it)))
    if return_counts:
        starts = np.flatnonzero(new_run)
        out.append(Tensor._make(np.diff(np.append(starts, n)).astype(it)))
    return out[0] if len(out) == 1 else tuple(out)


def crop(x: Tensor, shape: Any = None, offsets: Any = None, name: str | None = None
         ) -> Tensor:
    """x[offsets : offsets + shape] in every dim (shape None: x's; -1: to the end;
    offsets None: zeros)."""
    dims = x.shape
    def ints(v: Any, what: str, default: int) -> list[int]:
        if v is None:
            return [default if default >= 0 else d for d in dims]
        v = v.tolist() if isinstance(v, Tensor) else list(v)
        if len(v) != len(dims):
            raise ValueError(f"crop: {what} needs {len(dims)} entries, got {len(v)}")
        return [int(t.item() if isinstance(t, Tensor) else t) for t in v]
    offs = ints(offsets, "offsets", 0)
    size = ints(shape, "shape", -1)
    key = []
    for d, (n, o, s) in enumerate(zip(dims, offs, size)):
        s = n - o if s == -1 else s
        if o < 0 or s < 0 or o + s > n:
            raise ValueError(f"crop: offset {o} and size {s} do not fit dim {d} of size {n}")
        key.append(slice(o, o + s))
    return getitem(x, tuple(key))


def broadcast_shapes(*shapes: Sequence[int]) -> list[int]:
    """The shape that all the given shapes broadcast to (ValueError if they do not)."""
    try:
        return list(np.broadcast_shapes(*[tuple(int(n) for n in s) for s in shapes]))
    except ValueError:
        raise ValueError(f"broadcast_shapes: shapes {[list(s) for s in shapes]} do not "
                         f"broadcast together") from None
