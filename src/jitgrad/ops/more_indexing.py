"""Paddle 3.3.1's remaining gather and scatter names, as composites over take_flat and
put_flat (ops/indexing.py) and the reductions, so their gradients come from those rules:
scatter_reduce, scatter_nd, argwhere, multiplex, shard_index, unfold, as_strided,
fill_diagonal_ and fill_diagonal_tensor.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from .composites import scatter_nd_add
from .core import apply_xy, const
from .creation import zeros
from .indexing import _axis, _index_array, _take, concat, put_along_compiled, put_flat, stack
from .more_manipulation import diagonal_scatter
from .search import nonzero
from .shape import (_along_axis_positions, _flat_positions, getitem, reshape,
                    take_flat_op)
from .stats import prod

NAMES: list[str] = ["scatter_reduce", "scatter_nd", "argwhere", "multiplex", "shard_index",
                    "unfold", "as_strided", "fill_diagonal_tensor"]

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_positions(input: Tensor, dim: int, index: Any, src: Tensor, what: str
                       ) -> tuple[np.ndarray, Tensor]:
    """(flat positions in input of each element of index, shaped like index; src's block
    of index's shape, in input's dtype)."""
    ax = _axis(dim, input.ndim, what)
    idx = _index_array(index, what)
    if idx.ndim != input.ndim or not isinstance(src, Tensor) or src.ndim != input.ndim:
        raise ValueError(f"{what}: input, index and src need the same number of dims")
    shape = input._data.shape
    sshape = src._data.shape
    for d, n in enumerate(idx.shape):
        if n > sshape[d] or (d != ax and n > shape[d]):
            raise ValueError(f"{what}: index of shape {list(idx.shape)} is larger than src "
                             f"{list(sshape)} or input {list(shape)} in dim {d}")
    n = shape[ax]
    if idx.shape[:ax] == shape[:ax] and idx.shape[ax + 1:] == shape[ax + 1:]:
        pos = _along_axis_positions(shape, idx, ax, what)       # (a stride: no index table)
    else:
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"{what}: an index is out of range for dim {ax} of size {n}")
        coords = list(np.indices(idx.shape))
        coords[ax] = idx % n if n else idx
        pos = np.ravel_multi_index(tuple(coords), shape) if idx.size else \
            np.zeros(idx.shape, np.int64)
    part = src if sshape == idx.shape else \
        getitem(src, tuple(slice(0, k) for k in idx.shape))
    if part._data.dtype != input._data.dtype:
        part = part.astype(input._data.dtype)
    return pos, part


def scatter_reduce(input: Tensor, dim: int, index: Any, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """input with each element that index names along dim replaced by the reduction
    ('sum', 'prod', 'mean', 'amax', 'amin') of the src elements sent there, and of its own
    value when include_self. Elements no index names keep their value. amax / amin's ties
    share the gradient equally (as max does here); prod is a gathered table's product."""
    if reduce not in _REDUCTIONS:
        raise ValueError(f"scatter_reduce: reduce must be one of {', '.join(_REDUCTIONS)}, "
                         f"got {reduce!r}")
    if reduce == "sum" and include_self is True and isinstance(index, Tensor) and \
            isinstance(src, Tensor) and isinstance(input, Tensor) and type(dim) is int:
        done = put_along_compiled(input, index._data, src, dim, "add")
        if done is not None:            # (index and src of one shape matching input off dim)
            return done
    pos, vals = _scatter_positions(input, dim, index, src, "scatter_reduce")
    if reduce == "sum" and include_self:    # one put_flat node (no reshape of the values)
        return put_flat(input, pos, vals, "add")
    return reduce_at(input, pos.ravel(), reshape(vals, [-1]), reduce, include_self)


def reduce_at(input: Tensor, pos: np.ndarray, vals: Tensor, reduce: str,
              include_self: bool = True) -> Tensor:
    """scatter_reduce at flat positions pos of input, vals a 1-D Tensor of pos's size and
    input's dtype (shared with put_along_axis). An integer 'mean' rounds down, as Paddle's."""
    if reduce in ("sum", "mean"):
        base = input if include_self else put_flat(input, pos, 0.0, "assign")
        total = put_flat(base, pos, vals, "add")
        if reduce == "sum":
            return total
        counts = np.bincount(pos, minlength=input._data.size).astype(np.float64)
        hit = counts > 0
        counts[hit] += 1.0 if include_self else 0.0
        counts[~hit] = 1.0
        counts = counts.reshape(input._data.shape)
        if not np.issubdtype(input._data.dtype, np.floating):     # (no gradient)
            return Tensor._make(total._data // counts.astype(input._data.dtype))
        return total / const(counts, input._data.dtype)
    if reduce != "prod":                # one put_flat node, its winners' weights saved
        return put_flat(input, pos, vals, reduce if include_self else reduce + "_src")
    targets, group = np.unique(pos, return_inverse=True)
    group = group.ravel()
    if include_self:        # each target's own value is one more member of its group
        vals = concat([_take(reshape(input, [-1]), targets), vals])
        group = np.concatenate([np.arange(len(targets)), group])
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group, minlength=len(targets))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(len(group)) - np.repeat(starts, counts)
    members = np.full((len(targets), int(counts.max()) if len(targets) else 0), -1, np.int64)
    members[group[order], rank] = order
    pad = members < 0
    table = E.where(Tensor._make(pad), 1.0, _take(vals, np.where(pad, 0, members)))
    return put_flat(input, targets, prod(table, axis=1), "assign")


def scatter_nd(index: Any, updates: Tensor, shape: Sequence[int], name: str | None = None
               ) -> Tensor:
    """zeros(shape) with updates added at index (repeated indices add up)."""
    if not isinstance(updates, Tensor):
        raise TypeError(f"scatter_nd: updates must be a Tensor, got {type(updates).__name__}")
    return scatter_nd_add(zeros(list(shape), updates._data.dtype), index, updates)


def argwhere(input: Tensor) -> Tensor:
    """The [N, ndim] int64 coordinates of the nonzero elements."""
    if input.ndim == 0:
        raise ValueError("argwhere: input must have at least one dimension")
    return nonzero(input)


def multiplex(inputs: Sequence[Tensor], index: Any, name: str | None = None) -> Tensor:
    """Row i of the result is row i of inputs[index[i]] (index: [rows, 1] or [rows])."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("multiplex: inputs must be a non-empty list of Tensors")
    idx = _index_array(index, "multiplex").reshape(-1)
    rows = inputs[0].shape[0] if inputs[0].ndim else 0
    if idx.size != rows:
        raise ValueError(f"multiplex: index has {idx.size} entries for {rows} rows")
    if idx.size and (idx.min() < 0 or idx.max() >= len(inputs)):
        raise IndexError(f"multiplex: an index is out of range for {len(inputs)} inputs")
    return getitem(stack(list(inputs)), (idx, np.arange(rows)))


def shard_index(input: Tensor, index_num: int, nshards: int, shard_id: int,
                ignore_value: int = -1) -> Tensor:
    """Each id's position inside shard shard_id (ids split into nshards ranges of
    ceil(index_num / nshards)), ignore_value for ids of other shards."""
    d = _index_array(input, "shard_index")
    if nshards <= 0 or not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: need 0 <= shard_id < nshards, got shard_id {shard_id}"
                         f" and nshards {nshards}")
    size = -(-int(index_num) // int(nshards))
    mine = d // size == shard_id
    return Tensor._make(np.where(mine, d - shard_id * size, ignore_value).astype(d.dtype))


def unfold(x: Tensor, axis: int, size: int, step: int, name: str | None = None) -> Tensor:
    """The windows of `size` elements every `step` along axis: that axis becomes the number
    of windows, and a last axis of `size` holds each window. One take_flat node; for
    Python-int arguments its table is cached per (shape, axis, size, step), read-only and
    owning its data (a training loop unfolds the same shape every step: building the table
    cost ~15 us of a ~19 us op, and a new table was recopied into the Program)."""
    d = x._data
    if type(axis) is int and type(size) is int and type(step) is int and d.ndim:
        key = (d.shape, axis, size, step)
        plan = _WINDOWS.get(key)
        if plan is None:
            plan = _window_plan(d.shape, axis, size, step)      # (raises: nothing kept)
            _keep_windows(key, plan)
        attrs, table = plan
        # (take_flat's own forward, x.ravel()[idx], by np.take through the shaped table:
        # the same elements, ~1 us less)
        return apply_xy(take_flat_op, x, None, attrs, out=d.take(table))
    return _take(x, _window_positions(d.shape, axis, size, step))


_WINDOWS: dict = {}             # (shape, axis, size, step) -> (take_flat attrs, shaped table)
_WINDOWS_KEPT = 128             # entries, and bytes of tables (overlapping windows of a
_WINDOWS_BYTES = 32 << 20       # large x make a table several times x's size)
_windows_bytes = 0


def _keep_windows(key: tuple, plan: tuple) -> None:
    """Cache a plan, emptying the cache first when it would exceed its bounds; a table over
    the byte bound alone is not kept (rebuilt each call, as before the cache)."""
    global _windows_bytes
    size = plan[0]["idx"].nbytes
    if size > _WINDOWS_BYTES:
        return
    if len(_WINDOWS) >= _WINDOWS_KEPT or _windows_bytes + size > _WINDOWS_BYTES:
        _WINDOWS.clear()
        _windows_bytes = 0
    _WINDOWS[key] = plan
    _windows_bytes += size


def _window_plan(shape: tuple, axis: int, size: int, step: int) -> tuple[dict, np.ndarray]:
    """take_flat's attributes for unfold (the flat table read-only, owning its data) and
    the same table shaped as the output (a read-only view of it), for the forward."""
    picked = _window_positions(shape, axis, size, step)
    flat = np.array(picked.reshape(-1), dtype=np.int64)     # (a copy: owns its data)
    flat.setflags(write=False)
    return {"idx": flat, "shape": picked.shape}, flat.reshape(picked.shape)


def _window_positions(shape: tuple, axis: Any, size: int, step: int) -> np.ndarray:
    """The flat position in x (of this shape) of each element of unfold's result."""
    ndim = len(shape)
    ax = _axis(axis, ndim, "unfold") if ndim else 0
    n = shape[ax] if ndim else 1
    if size <= 0 or step <= 0 or size > n:
        raise ValueError(f"unfold: need 0 < size <= {n} (the axis' length) and step > 0, "
                         f"got size {size} and step {step}")
    pos = _flat_positions(shape) if ndim else np.zeros(1, np.int64)
    starts = np.arange(0, n - size + 1, step)
    window = starts[:, None] + np.arange(size)                  # [windows, size]
    picked = np.take(pos, window, axis=ax)                      # axis -> (windows, size)
    return np.moveaxis(picked, ax + 1, -1)


def as_strided(x: Tensor, shape: Sequence[int], stride: Sequence[int], offset: int = 0,
               name: str | None = None) -> Tensor:
    """A view of x's elements, in row-major order, as a tensor of `shape` whose element
    [i_0, i_1, ...] is element offset / itemsize + sum_k i_k * stride[k] of that order:
    strides in elements, offset in bytes (Paddle 3.3.1's offset is in bytes, as its
    maintainers state: offset=8 starts at element 2 of a float32 x, 1 of a float64 one; it
    must be a multiple of the itemsize). Windows may overlap (a stride of 0 repeats
    elements): each element's gradient sums over every place it is read (Paddle 3.3.1
    keeps one of them). One take_flat node, a copy (jitgrad's tensors are contiguous and
    do not share memory: writing into the result leaves x alone). A view reaching past
    x's last element, a negative stride or offset, or shape and stride of different
    lengths raise ValueError (Paddle reads the memory there)."""
    d = x._data
    dims = _strided_ints(shape, "shape")
    steps = _strided_ints(stride, "stride")
    if len(dims) != len(steps):
        raise ValueError(f"as_strided: shape and stride need one entry per dim, got "
                         f"{len(dims)} and {len(steps)} ({dims}, {steps})")
    if any(n < 0 for n in dims) or any(s < 0 for s in steps):
        raise ValueError(f"as_strided: shape and stride must be non-negative, got {dims} "
                         f"and {steps}")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise ValueError(f"as_strided: offset must be a non-negative int (bytes), got "
                         f"{offset!r}")
    item = d.dtype.itemsize
    if offset % item:
        raise ValueError(f"as_strided: offset is in bytes (as Paddle 3.3.1's) and must be a "
                         f"multiple of x's itemsize {item} ({d.dtype}), got {offset}; "
                         f"element k starts at offset {item} * k")
    start = int(offset) // item
    if all(dims):
        last = start + sum((n - 1) * s for n, s in zip(dims, steps))
        if last >= d.size:
            raise ValueError(f"as_strided: shape {dims}, stride {steps} and offset {offset} "
                             f"bytes (element {start}) reach element {last}, but x has "
                             f"{d.size} elements")
    pos = np.full((), start, np.int64)
    for k, (n, s) in enumerate(zip(dims, steps)):
        after = (1,) * (len(dims) - k - 1)
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape((n,) + after)
    return _take(x, np.broadcast_to(pos, tuple(dims)))


def _strided_ints(v: Any, what: str) -> list[int]:
    if isinstance(v, np.ndarray) and v.ndim == 1:
        v = v.tolist()
    if not isinstance(v, (list, tuple)) or not all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in v):
        got = repr(v) if isinstance(v, (list, tuple)) else type(v).__name__
        raise TypeError(f"as_strided: {what} must be a list or tuple of ints, got {got}")
    return [int(n) for n in v]


def fill_diagonal_(x: Tensor, value: float, offset: int = 0, wrap: bool = False,
                   name: str | None = None) -> Tensor:
    """x's main diagonal (shifted right by offset) set to value, in place; wrap=True goes on
    below a tall matrix's first square, as numpy's fill_diagonal."""
    from .inplace import inplace
    if x.ndim < 2:
        raise ValueError("fill_diagonal_: x must have at least 2 dims")
    shape = x._data.shape
    if x.ndim > 2:
        if len(set(shape)) != 1 or offset:
            raise ValueError("fill_diagonal_: a tensor of more than 2 dims needs all dims "
                             "equal and offset 0")
        stride = sum(int(np.prod(shape[k + 1:])) for k in range(x.ndim))
        pos = np.arange(shape[0]) * stride
    else:
        rows, cols = shape
        first = offset if offset >= 0 else -offset * cols
        if wrap and offset == 0:
            pos = np.arange(first, rows * cols, cols + 1)
        else:
            count = max(0, min(rows - max(0, -offset), cols - max(0, offset)))
            pos = first + np.arange(count) * (cols + 1)
    return inplace(x, lambda s: put_flat(s, pos, value), "fill_diagonal_")


def fill_diagonal_tensor(x: Tensor, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1,
                         name: str | None = None) -> Tensor:
    """x with its diagonal (offset, dims dim1 and dim2) replaced by y (y's last axis runs
    along the diagonal): diagonal_scatter's arguments by Paddle's older names."""
    return diagonal_scatter(x, y, offset, dim1, dim2)


def fill_diagonal_tensor_(x: Tensor, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1,
                          name: str | None = None) -> Tensor:
    from .inplace import inplace
    return inplace(x, lambda s: diagonal_scatter(s, y, offset, dim1, dim2),
                   "fill_diagonal_tensor_")
