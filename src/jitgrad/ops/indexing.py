"""Joining, splitting, tiling and indexing. Almost all are composites over a few moving
primitives (getitem, take_flat, scatter_flat, broadcast_to, reshape) whose gradients lower to
GATHER / SCATTER with an index map computed once; concat and put_flat have entries of their
own."""

from __future__ import annotations

import math
import builtins
import functools
from typing import Any, Sequence

import numpy as np

from . import siblings
from ..core.tensor import Tensor
from ..core.torch_kwargs import out_param
from .core import (apply, apply_xy, checks_own_tensor_args, compiled_kernels, const, int_entry,
                   tensor_arg_error)
from .padding import pad  # noqa: F401  (imported from here by ops/__init__, conv, scan ...)
from .linear import IDENTITY, linear, step
from .shape import fresh, reshape_exact
from .shape import (_along_axis_positions, _flat_positions, _getitem_map, _in_range,
                    _select_positions,
                    _take_flat,
                    take_flat_op, squeeze,
                    broadcast_to, getitem, reshape, getitem_op, unsqueeze)


def _axis(axis: Any, ndim: int, what: str) -> int:
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{what}: axis must be an int, got {axis!r}")
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):
        raise ValueError(f"{what}: axis {axis} is out of range for {ndim} dims")
    return int(axis) % builtins.max(ndim, 1)


def _index_array(index: Any, what: str) -> np.ndarray:
    idx = np.asarray(index._data if isinstance(index, Tensor) else index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{what}: index must be an integer tensor, got {idx.dtype}")
    return idx.astype(np.int64)


# ---- concat --------------------------------------------------------------------------------

def _concat_transpose(n, axis):
    """concat's transpose: each input's slice of g (getitem, lowered as one GATHER)."""
    start, chains = 0, []
    for shape in n.ins:
        key = [slice(None)] * len(n.out)
        key[axis] = slice(start, start + shape[axis])
        start += shape[axis]
        chains.append(step(getitem_op, key=tuple(key)))
    return tuple(chains)


# linear (ops/linear.py): the gradient of each input is its slice of g
concat_op = linear(
    "concat", grad_reads=(), nin=2,
    forward=lambda *xs, axis: np.concatenate(xs, axis=axis),
    transpose=_concat_transpose,
    cases=({"shapes": ((2, 3), (2, 1)), "attrs": {"axis": 1}},
           {"shapes": ((2,), (3,)), "attrs": {"axis": 0}},
           {"shapes": ((1, 2, 2), (2, 2, 2)), "attrs": {"axis": 0}}), min_ndim=1)


def concat(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    """Join tensors along an existing axis."""
    if (type(x) is list or type(x) is tuple) and len(x) == 2 and type(axis) is int:
        a, b = x                    # the common case, checked in a few comparisons: two
        if type(a) is Tensor and type(b) is Tensor:     # tensors of one dtype and rank
            d, e = a._data, b._data
            nd = d.ndim
            if d.dtype is e.dtype and nd == e.ndim and nd and -nd <= axis < nd:
                ax = axis % nd
                if d.shape[:ax] == e.shape[:ax] and d.shape[ax + 1:] == e.shape[ax + 1:]:
                    return apply_xy(concat_op, a, b, {"axis": ax},
                                    out=np.concatenate((d, e), axis=ax))
    xs = list(x)
    if not xs:
        raise ValueError("concat: got an empty list of tensors")
    if builtins.any(t.ndim == 0 for t in xs):
        raise ValueError("concat: 0-d tensors cannot be concatenated; use stack")
    ax = _axis(axis, xs[0].ndim, "concat")
    dts = {t._data.dtype for t in xs}
    if len(dts) > 1:
        dt = np.result_type(*dts)
        xs = [t if t._data.dtype == dt else t.astype(dt) for t in xs]
    for t in xs[1:]:
        if t.ndim != xs[0].ndim or builtins.any(
                a != c for i, (a, c) in enumerate(zip(t.shape, xs[0].shape)) if i != ax):
            raise ValueError(f"concat: shapes {xs[0].shape} and {t.shape} differ outside "
                             f"axis {ax}")
    if len(xs) == 1:        # a new tensor, as Paddle 3.3.1's (not the one given)
        return fresh(xs[0])
    return apply(concat_op, *xs, axis=ax)


def stack(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    """Join tensors of equal shape along a new axis: for a new axis before the last, one
    concat along the existing axis there and a reshape splitting it (the same values and
    order: input i's block is the concat's i-th run along it); a new last axis unsqueezes
    each input first."""
    xs = list(x)
    if not xs:
        raise ValueError("stack: got an empty list of tensors")
    shape = xs[0]._data.shape
    for t in xs:
        if t._data.shape != shape:
            raise ValueError(f"stack: all shapes must be equal, got {[t.shape for t in xs]}")
    nd = len(shape)
    ax = axis if axis >= 0 else axis + nd + 1
    if not 0 <= ax <= nd:
        raise ValueError(f"stack: axis {axis} is out of range for {nd + 1} dims")
    if ax == nd or len(xs) == 1 or 0 in shape:
        return concat([unsqueeze(t, ax) for t in xs], axis=ax)
    return reshape(concat(xs, axis=ax), shape[:ax] + (len(xs),) + shape[ax:])


def _slice_along(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    """x[..., start:stop, ...] along axis: getitem's node, recorded directly (its map from
    getitem's cache; the generic getitem path normalised the key first)."""
    key = (slice(None),) * axis + (slice(start, stop),) + (slice(None),) * (x.ndim - axis - 1)
    d = x._data
    out = d[key]
    return apply_xy(getitem_op, x, None, {"key": key}, out=out,
                    saved=_getitem_map(out, d, key))


def split(x: Tensor, num_or_sections: Any, axis: int = 0, name: str | None = None
          ) -> list[Tensor]:
    """Split into equal parts (an int) or parts of the given sizes (one may be -1)."""
    ax = _axis(axis, x.ndim, "split")
    n = x.shape[ax]
    if isinstance(num_or_sections, (int, np.integer)):
        if num_or_sections <= 0 or n % num_or_sections:
            raise ValueError(f"split: dimension {ax} of size {n} does not divide into "
                             f"{num_or_sections} equal parts")
        sizes = [n // int(num_or_sections)] * int(num_or_sections)
    else:
        if not isinstance(num_or_sections, (list, tuple, np.ndarray)):
            raise TypeError(f"split: num_or_sections must be an int or a list of ints, got "
                            f"{num_or_sections!r}")
        sizes = [s if type(s) is int else
                 int_entry(s, "split: sections must be ints", num_or_sections)
                 for s in num_or_sections]
        if sizes.count(-1) > 1:
            raise ValueError("split: at most one section may be -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (builtins.sum(sizes) + 1)
        if builtins.sum(sizes) != n or builtins.any(s < 0 for s in sizes):
            raise ValueError(f"split: sections {list(num_or_sections)} do not add up to {n}")
    d = x._data
    out = []
    for key, table in _split_maps(d.shape, ax, tuple(sizes)):
        out.append(apply_xy(getitem_op, x, None, {"key": key}, out=d[key], saved=(table,)))
    return siblings.note(out)


@functools.lru_cache(maxsize=32)
def _split_maps(shape: tuple, ax: int, sizes: tuple) -> tuple:
    """Each part's getitem key and saved index map (getitem's own, read-only: a rebinding
    does not recopy it), made once per shape: the generic getitem path per part cost ~1 us
    more (key normalising and map lookup)."""
    parts, start = [], 0
    lead = (slice(None),) * ax
    for s in sizes:
        key = lead + (slice(start, start + s),) + (slice(None),) * (len(shape) - ax - 1)
        parts.append((key, _getitem_map(None, np.broadcast_to(np.bool_(0), shape), key)[0]))
        start += s
    return tuple(parts)


def chunk(x: Tensor, chunks: int, axis: int = 0, name: str | None = None) -> list[Tensor]:
    return split(x, chunks, axis)


@checks_own_tensor_args
def unbind(x: Tensor, axis: int = 0) -> list[Tensor]:
    """The getitem nodes x[..., i] for each i, recorded directly with their index maps from
    a cache (the generic getitem path per part cost more than torch's whole step). It checks
    its argument itself: under check_tensor_args' wrapper every part's call-site walk would
    start inside jitgrad (~0.3 us a part)."""
    if not isinstance(x, Tensor):
        raise tensor_arg_error("unbind", "x", x)
    ax = _axis(axis, x.ndim, "unbind")
    d = x._data
    lead = (slice(None),) * ax
    parts = []
    for i, table in enumerate(_unbind_maps(d.shape, ax)):
        key = lead + (i,)
        parts.append(apply_xy(getitem_op, x, None, {"key": key}, out=d[key], saved=(table,)))
    return siblings.note(parts)


@functools.lru_cache(maxsize=32)
def _unbind_maps(shape: tuple, ax: int) -> tuple:
    """getitem's saved index map for each part x[..., i] (read-only: not recopied on
    rebinding)."""
    pos = _flat_positions(shape)
    maps = []
    for i in range(shape[ax]):
        t = pos[(slice(None),) * ax + (i,)].ravel().copy()     # (owning its data: a
        t.setflags(write=False)                                 # view is recopied)
        maps.append(t)
    return tuple(maps)


# ---- tiling and reordering (composites) ----------------------------------------------------

def tile(x: Tensor, repeat_times: Sequence[int], name: str | None = None) -> Tensor:
    """Repeat the whole tensor along each axis: reshape, broadcast_to, reshape."""
    raw = [r.item() if isinstance(r, Tensor) else r for r in
           ([repeat_times] if isinstance(repeat_times, int) else repeat_times)]
    if not builtins.all(isinstance(r, (int, np.integer)) and r >= 0 for r in raw):
        raise ValueError(f"tile: repeat_times must be non-negative ints, got {raw}")
    reps = [int(r) for r in raw]
    shape = [1] * (len(reps) - x.ndim) + x.shape
    reps = [1] * (len(shape) - len(reps)) + reps
    inter = [v for s in shape for v in (1, s)]
    big = [v for r, s in zip(reps, shape) for v in (r, s)]
    y = broadcast_to(reshape_exact(x, inter), big)
    return reshape_exact(y, [r * s for r, s in zip(reps, shape)])


def repeat_interleave(x: Tensor, repeats: Any, axis: int | None = None,
                      name: str | None = None, *, output_size: int | None = None) -> Tensor:
    """Each slice along `axis` repeated `repeats` times (an int, or one count per slice as
    a 1-D tensor or list); over the flattened tensor when axis is None. output_size, when
    given, must be the result's length along axis (Paddle 3.x's hint; checked here)."""
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    ax = _axis(axis, x.ndim, "repeat_interleave")
    reps = np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats)
    if reps.dtype.kind not in "iu" or reps.ndim > 1:
        raise TypeError(f"repeat_interleave: repeats must be an int or a 1-D list of ints, "
                        f"got {repeats!r}")
    if reps.ndim == 1 and reps.size == 1:
        reps = reps.reshape(())
    if (reps < 0).any():
        raise ValueError(f"repeat_interleave: repeats must not be negative, got {repeats!r}")
    if reps.ndim == 1 and reps.size != x.shape[ax]:
        raise ValueError(f"repeat_interleave: {reps.size} repeats for {x.shape[ax]} slices "
                         f"along axis {ax}")
    if output_size is not None:
        total = int(reps.sum()) if reps.ndim else int(reps) * x.shape[ax]
        if total != int(output_size):
            raise ValueError(f"repeat_interleave: output_size {output_size} does not match the "
                             f"result's length {total} along axis {ax}")
    if reps.ndim == 0:                  # one count: the table from shapes alone, kept
        d = x._data
        table, shape = _repeat_plan(d.shape, ax, int(reps))
        return apply_xy(take_flat_op, x, None, {"idx": table, "shape": shape},
                        out=np.repeat(d, int(reps), axis=ax))
    return index_select(x, np.repeat(np.arange(x.shape[ax]), reps), axis=ax)


@functools.lru_cache(maxsize=64)
def _repeat_plan(shape: tuple, ax: int, reps: int) -> tuple:
    """repeat_interleave's take_flat table for one count (read-only, owning its data: not
    recopied into a Program's tables on rebinding) and its output shape: index_select's
    table for np.repeat(np.arange(n), reps)."""
    picks = np.repeat(np.arange(shape[ax]), reps)
    out = shape[:ax] + picks.shape + shape[ax + 1:]
    along = picks.reshape((1,) * ax + picks.shape + (1,) * (len(shape) - ax - 1))
    t = np.ascontiguousarray(_along_axis_positions(shape, along, ax, "repeat_interleave")
                             .reshape(-1), dtype=np.int64)
    t.setflags(write=False)
    return t, out


def flip(x: Tensor, axis: Any, name: str | None = None) -> Tensor:
    axes = [axis] if isinstance(axis, (int, np.integer, Tensor)) else list(axis)
    key = [slice(None)] * x.ndim
    seen = set()
    for a in axes:
        ax = _axis(a, x.ndim, "flip")
        if ax in seen:
            raise ValueError(f"flip: axis {axis!r} names dim {ax} twice")
        seen.add(ax)
        key[ax] = slice(None, None, -1)
    return getitem(x, tuple(key))


def _take(x: Tensor, positions: np.ndarray) -> Tensor:
    """x.ravel()[positions] shaped like positions, differentiable (take_flat)."""
    positions = np.asarray(positions, dtype=np.int64)
    return _take_flat(x, positions.ravel(), positions.shape)


def roll(x: Tensor, shifts: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Shift along each axis (one shift per axis; over the flattened tensor, one shift,
    when axis is None), wrapping around. One take_flat node: its table cached per (shape,
    shifts, axes), read-only; its values by one np.concatenate of two slices per shifted
    axis (a gather through the table cost ~3x)."""
    if isinstance(shifts, Tensor):
        shifts = shifts._data.tolist()
    sh = [shifts] if isinstance(shifts, (int, np.integer)) else list(shifts)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in sh):
        raise TypeError(f"roll: shifts must be an int or a list of ints, got {shifts!r}")
    d = x._data
    if axis is None:
        if len(sh) != 1:
            raise ValueError(f"roll: without axis, shifts must be one int (the flattened "
                             f"tensor is shifted), got {shifts!r}")
        table, moves = _roll_plan(d.shape, (int(sh[0]),), None)
        out = _rolled(d.reshape(-1), moves).reshape(d.shape) if moves else d.copy()
    else:
        if isinstance(axis, Tensor):
            axis = axis._data.tolist()
        axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        if len(axes) != len(sh):
            raise ValueError(f"roll: shifts {shifts!r} and axis {axis!r} must have one entry "
                             f"each per shifted axis")
        axes = tuple([_axis(a, x.ndim, "roll") for a in axes])
        table, moves = _roll_plan(d.shape, tuple([int(v) for v in sh]), axes)
        out = _rolled(d, moves) if moves else d.copy()
    return apply_xy(take_flat_op, x, None, {"idx": table, "shape": d.shape}, out=out)


@functools.lru_cache(maxsize=64)
def _roll_plan(shape: tuple, shifts: tuple, axes: tuple | None) -> tuple:
    """roll's gather table (read-only) and its moves: (axis, k) for each axis whose total
    shift k is not a whole turn (over the flattened tensor, axis 0 of its ravel)."""
    pos = _flat_positions(shape)
    if axes is None:
        t = np.roll(pos.ravel(), shifts[0])
        n = pos.size
        moves = ((0, shifts[0] % n),) if n and shifts[0] % n else ()
    else:
        t = np.roll(pos, shifts, axis=axes).ravel()
        total: dict = {}
        for a, k in zip(axes, shifts):
            total[a] = total.get(a, 0) + k
        moves = tuple((a, k % shape[a]) for a, k in sorted(total.items())
                      if shape[a] and k % shape[a])
    t = np.ascontiguousarray(t, dtype=np.int64)
    t.setflags(write=False)
    return t, moves


def _rolled(a: np.ndarray, moves: tuple) -> np.ndarray:
    """np.roll(a, ...) for the (axis, k) moves, 0 < k < n: the last k along each axis moved
    to the front, one np.concatenate per axis."""
    for ax, k in moves:
        n = a.shape[ax]
        if ax == a.ndim - 1:
            a = np.concatenate((a[..., n - k:], a[..., :n - k]), axis=ax)
        else:
            lead = (slice(None),) * ax
            a = np.concatenate((a[lead + (slice(n - k, None),)], a[lead + (slice(None, n - k),)]),
                               axis=ax)
    return a


def index_select(x: Tensor, index: Any, axis: int = 0, name: str | None = None) -> Tensor:
    ax = _axis(axis, x.ndim, "index_select")
    idx = _index_array(index, "index_select")
    if idx.ndim != 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {list(idx.shape)}")
    d = x._data
    positions = _select_positions(d.shape, idx, ax, "index_select").reshape(-1)
    shape = d.shape[:ax] + idx.shape + d.shape[ax + 1:]
    # (take_flat's own forward, its values picked here)
    return apply_xy(take_flat_op, x, None, {"idx": positions, "shape": shape},
                    out=d.ravel()[positions].reshape(shape))


def gather(x: Tensor, index: Any = None, axis: Any = None, name: str | None = None, *,
           dim: Any = None, out: Tensor | None = None) -> Tensor:
    """Paddle's gather: rows (or slices along `axis`) picked by a 1-D index; a 0-d index
    picks one slice and drops the axis (Paddle's 0-d rule). Given torch's form,
    gather(x, 1, index) or gather(x, dim=1, index=index), Paddle 3.3.1 runs torch's gather:
    take_along_axis without broadcasting, and so does this. out: torch-style out= (read
    here: x.gather has no wrapper)."""
    if out is not None:
        return out_param("gather", out, gather(x, index, axis, dim=dim))
    if dim is not None or isinstance(index, int):
        if dim is None:
            dim, index = index, axis
        if index is None:
            raise TypeError("gather(x, dim, index): index is missing")
        return take_along_axis(x, index, dim, broadcast=False)
    if index is None:
        raise TypeError("gather() missing its index")
    idx = _index_array(index, "gather")
    ax = 0 if axis is None else axis
    if x.ndim == 0:
        raise ValueError("gather: x is 0-d and has no axis to gather along; reshape it to "
                         "[1] first (x.reshape([1]))")
    if idx.ndim == 0:
        return squeeze(index_select(x, idx.reshape(1), ax), axis=ax)
    if idx.ndim > 1 and (idx.ndim > 2 or idx.shape[1] != 1):
        raise ValueError(f"gather: index must be 0-D, 1-D or of shape [N, 1], got shape "
                         f"{list(idx.shape)} (for an index per element use "
                         f"take_along_axis, for N-D positions gather_nd)")
    return index_select(x, idx.reshape(-1), ax)


def _unbroadcast_positions(ashape: tuple, idx: np.ndarray, ax: int, what: str
                           ) -> np.ndarray:
    """The flat positions in an array of `ashape` named by idx along ax with broadcast=False
    (torch's gather / scatter rule, Paddle's): element p of idx names ashape's element p
    with its ax coordinate replaced by idx[p]; idx may be smaller than the array off ax."""
    if idx.ndim != len(ashape):
        raise ValueError(f"{what}: indices need {len(ashape)} dims, got {idx.ndim}")
    if any(i != ax and k > n for i, (k, n) in enumerate(zip(idx.shape, ashape))):
        raise ValueError(f"{what}: with broadcast=False, indices {list(idx.shape)} must not be "
                         f"larger than the tensor {list(ashape)} off axis {ax}")
    crop = tuple(slice(None) if i == ax else slice(0, k) for i, k in enumerate(idx.shape))
    part = _flat_positions(ashape)[crop]
    return np.take_along_axis(part, _in_range(idx, ashape[ax], ax, what), axis=ax)


def take_along_axis(arr: Tensor, indices: Any, axis: int, broadcast: bool = True) -> Tensor:
    idx = _index_array(indices, "take_along_axis")
    ax = _axis(axis, arr.ndim, "take_along_axis")
    if idx.ndim != arr.ndim:
        raise ValueError(f"take_along_axis: indices need {arr.ndim} dims, got {idx.ndim}")
    d = arr._data
    if not broadcast:
        return _take(arr, _unbroadcast_positions(d.shape, idx, ax, "take_along_axis"))
    if idx.shape[:ax] == d.shape[:ax] and idx.shape[ax + 1:] == d.shape[ax + 1:]:
        # nothing to broadcast: one take_flat node, its values picked here in one pass
        positions = _along_axis_positions(d.shape, idx, ax, "take_along_axis").ravel()
        return apply_xy(take_flat_op, arr, None, {"idx": positions, "shape": idx.shape},
                        out=d.ravel()[positions].reshape(idx.shape))
    pos = _flat_positions(arr._data.shape)
    if broadcast:
        shape = [idx.shape[i] if i == ax else builtins.max(idx.shape[i], arr.shape[i])
                 for i in range(arr.ndim)]
        idx = np.broadcast_to(idx, shape)
        pos = np.broadcast_to(pos, [arr.shape[i] if i == ax else shape[i]
                                    for i in range(arr.ndim)])
        if pos.shape != tuple(arr.shape):
            arr = broadcast_to(arr, list(pos.shape))
            pos = _flat_positions(pos.shape)
    return _take(arr, np.take_along_axis(pos, idx, axis=ax))


def masked_select(x: Tensor, mask: Any, name: str | None = None) -> Tensor:
    """The elements where mask is True, as a 1-D tensor (mask broadcasts against x)."""
    m = np.asarray(mask._data if isinstance(mask, Tensor) else mask)
    if m.dtype != np.bool_:
        raise TypeError(f"masked_select: mask must be a bool tensor, got {m.dtype}")
    try:
        shape = np.broadcast_shapes(x._data.shape, m.shape)
    except ValueError:
        raise ValueError(f"masked_select: mask of shape {list(m.shape)} does not broadcast "
                         f"against x of shape {list(x.shape)}") from None
    if shape != x._data.shape:
        x = broadcast_to(x, list(shape))
    return _take(x, _flat_positions(shape)[np.broadcast_to(m, shape)])


# ---- writing into positions: put_flat (put_along_axis, __setitem__) ------------------------

# put_flat's extremes: each position takes the largest (smallest) of its own value and the
# values sent to it; the "_src" forms leave its own value out (scatter_reduce's include_self)
_EXTREMES = ("amax", "amin", "amax_src", "amin_src")


def _put_extreme(out: np.ndarray, idx: np.ndarray, v: np.ndarray, reduce: str) -> None:
    """Paddle 3.3.1's rule, in place: start from the position's own value (for "_src", the
    first value sent there), then take each value sent that is greater (smaller). A NaN
    sent never wins, and a NaN start stays (so the result is NaN just where the start is)."""
    flat, big = out.reshape(-1), reduce.startswith("amax")
    if reduce.endswith("_src"):
        targets, first = np.unique(idx, return_index=True)
        flat[targets] = v[first]
    if out.dtype.kind != "f":
        (np.maximum if big else np.minimum).at(flat, idx, v)
        return
    starts_nan = np.flatnonzero(np.isnan(flat))
    (np.fmax if big else np.fmin).at(flat, idx, v)
    flat[starts_nan] = np.nan


def _scatter_kernels(x: np.ndarray, v: np.ndarray) -> Any:
    """vm/forward_scatter.py's kernels for float x and v of one dtype, once Numba is loaded
    (None otherwise)."""
    if x.dtype.kind != "f" or v.dtype != x.dtype or x.dtype.itemsize < 4:
        return None
    return compiled_kernels("forward_scatter")


def _gather_kernels(x: np.ndarray, v: np.ndarray | None = None) -> Any:
    """vm/forward_gather.py's kernels for x (and v) of one float or 4-/8-byte int dtype,
    once Numba is loaded (None otherwise)."""
    dt = x.dtype
    if dt.kind not in "fiu" or dt.itemsize < 4 or (v is not None and v.dtype != dt):
        return None
    return compiled_kernels("forward_gather")


def _put_forward(x, v, idx, reduce):
    out = np.array(x, copy=True, order="C")  # an ndarray even for a 0-d input, C order: the
    #                                       reshape(-1)s below are views of it, not copies
    if reduce in _EXTREMES and idx.size:
        kernels = _scatter_kernels(out, v)
        if kernels is not None:
            kernels.put_extreme(out.reshape(-1), np.ascontiguousarray(idx, np.int64),
                                np.ascontiguousarray(v).reshape(-1),
                                reduce.startswith("amax"), reduce.endswith("_src"))
            return out
    if reduce == "add":
        kernels = _gather_kernels(out, v)
        if kernels is None or not kernels.put_add(
                out.reshape(-1), np.ascontiguousarray(idx, np.int64),
                np.ascontiguousarray(v).reshape(-1)):
            np.add.at(out.reshape(-1), idx, v.reshape(-1))
    elif reduce == "multiply":
        np.multiply.at(out.reshape(-1), idx, v.reshape(-1))
    elif reduce in _EXTREMES:
        _put_extreme(out, idx, v.reshape(-1), reduce)
    else:
        out.reshape(-1)[idx] = v.reshape(-1)
    return out


def _extreme_weights(out: np.ndarray, x: np.ndarray, v: np.ndarray, idx: np.ndarray,
                     reduce: str) -> tuple[np.ndarray, np.ndarray]:
    """put_flat's extremes are linear once the winners are known: each position's k tied
    winners (its own value among them unless left out) get weight 1 / k, the others 0 (a NaN
    result: none wins, as in Paddle); an untouched position keeps its value (weight 1).
    Returns (x's weights, v's weights). (Paddle 3.3.1 counts a left-out own value tied with
    the winner in k, so the sent values' weights sum to less than 1: README.)"""
    dt, best = out.dtype, out.reshape(-1)
    kernels = _scatter_kernels(out, v) if idx.size else None
    if kernels is not None:             # (vm/forward_scatter.py: these values, two loops)
        w_self, w_v = np.empty(out.shape, dt), np.empty(idx.size, dt)
        kernels.extreme_weights(best, np.ascontiguousarray(x).reshape(-1),
                                np.ascontiguousarray(v).reshape(-1),
                                np.ascontiguousarray(idx, np.int64), reduce.endswith("_src"),
                                w_self.reshape(-1), w_v)
        return w_self, w_v
    win_src = v.reshape(-1) == best[idx]
    targeted = np.zeros(best.size, bool)
    targeted[idx] = True
    win_self = targeted & (x.reshape(-1) == best) if not reduce.endswith("_src") else \
        np.zeros(best.size, bool)
    k = np.maximum(np.bincount(idx, weights=win_src, minlength=best.size) + win_self, 1)
    w_self = np.where(targeted, win_self / k, 1.0)
    return w_self.astype(dt).reshape(out.shape), (win_src / k[idx]).astype(dt)


def _put_save(out, x, v, idx, reduce):
    if reduce == "add":
        return None, None
    if reduce in _EXTREMES:
        return _extreme_weights(out, x, v, idx, reduce)
    kernels = _gather_kernels(out) if idx.size else None
    if kernels is not None:             # (vm/forward_gather.py: both masks, two loops)
        kept = np.empty(x.shape, out.dtype)
        written = np.empty(idx.size, out.dtype)
        if kernels.put_masks(np.ascontiguousarray(idx, np.int64), kept.reshape(-1), written,
                             np.empty(kept.size, np.int64)):
            return kept, written
    return _kept_mask(x.shape, idx, out.dtype), _written_mask(idx, out.dtype)


def _kept_mask(shape: tuple, idx: np.ndarray, dtype) -> np.ndarray:
    m = np.ones(math.prod(shape), dtype)
    m[idx] = 0
    return m.reshape(shape)


def _written_mask(idx: np.ndarray, dtype) -> np.ndarray:
    """For 'assign': 1 for the value that lands (with repeated positions the last one, as in
    numpy and Paddle's CPU kernels), 0 for those it overwrites. Always an array, even when
    every value lands: the lowering must not depend on the indices' values (they are bound
    per graph, bound_attrs)."""
    if idx.size == 0:
        return np.zeros(0, dtype)
    order = np.arange(idx.size)
    last = np.empty(int(idx.max()) + 1, np.int64)
    last[idx] = order                   # the last write wins, as in the forward's assignment
    return (last[idx] == order).astype(dtype)   # (np.unique's sort cost more)


def _put_transpose(n, idx, reduce):
    """put_flat is linear in (x, v): x's gradient is g where x was kept, v's the values of
    g it landed on (take_flat), each masked for 'assign' (the saved masks; see _written_mask)
    or weighted for the extremes (the saved winners' weights; see _extreme_weights)."""
    kept, written = n.saved
    gv = step(take_flat_op, idx=idx, shape=n.ins[1])
    if reduce == "add":                 # every value lands, nothing of x is overwritten
        return IDENTITY, gv
    # what was overwritten, or lost to another extreme, gets 0, an inf or NaN upstream too
    if reduce == "assign":              # 0/1 (a duplicate index: only the last value lands)
        return IDENTITY.where(kept), gv.where(written)
    return IDENTITY.weighted(kept), gv.weighted(written)    # the extremes' (0.5 a tie)


put_flat_op = linear(      # (not float16_exact: adds duplicates in its dtype)
    "put_flat", float16_exact=None, grad_reads=(), bound_attrs=("idx",),
    forward=_put_forward, nin=2, transpose=_put_transpose,
    save=_put_save,
    cases=({"shapes": ((6,), (3,)), "attrs": {"idx": np.array([0, 4, 2]), "reduce": "assign"}},
           {"shapes": ((5,), (5,)), "attrs": {"idx": np.array([3, 1, 3, 0, 3]),
                                               "reduce": "assign"}},
           {"shapes": ((2, 3), (2, 2)), "attrs": {"idx": np.array([0, 1, 1, 5]),
                                                   "reduce": "add"}},
           {"shapes": ((), (1,)), "attrs": {"idx": np.array([0]), "reduce": "assign"}},
           # the extremes: linear once the winners are chosen
           {"shapes": ((6,), (4,)), "attrs": {"idx": np.array([0, 4, 0, 2]), "reduce": "amax"},
            "piecewise": True},
           {"shapes": ((2, 3), (4,)), "attrs": {"idx": np.array([5, 1, 1, 0]),
                                                 "reduce": "amin_src"}, "piecewise": True}))


def _values_for(x: Tensor, values: Any, shape: tuple) -> Tensor:
    """values as a Tensor of x's dtype broadcast to `shape` (a constant unless a Tensor)."""
    if not isinstance(values, Tensor):
        values = const(values, x._data.dtype)
    elif values._data.dtype != x._data.dtype:
        values = values.astype(x._data.dtype)
    if tuple(values.shape) != shape:
        vs = values._data.shape
        extra = len(vs) - len(shape)
        if extra > 0 and all(n == 1 for n in vs[:extra]):     # leading ones: dropped, as
            values = reshape(values, list(vs[extra:]))          # numpy and Paddle drop them
        values = broadcast_to(values, list(shape))
    return values


def put_flat(x: Tensor, positions: np.ndarray, values: Any, reduce: str = "assign") -> Tensor:
    """A copy of x with x.ravel()[positions] = values (broadcast to positions' shape)."""
    positions = np.asarray(positions, dtype=np.int64)
    values = _values_for(x, values, positions.shape)
    attrs = {"idx": positions.ravel(), "reduce": reduce}
    done = _put_compiled(x._data, values._data, attrs["idx"], reduce)
    if done is not None:
        return apply_xy(put_flat_op, x, values, attrs, out=done[0], saved=done[1])
    return apply_xy(put_flat_op, x, values, attrs)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _put_compiled(d: np.ndarray, v: np.ndarray, idx: np.ndarray, reduce: str
                  ) -> tuple | None:
    """(output, saved) of put_flat 'assign' or an extreme in one compiled call for float32 /
    float64 x and values of x's dtype, once Numba is loaded: _put_forward's and _put_save's
    values bit for bit, from the same loops (vm/forward_gather.py put_assign,
    vm/forward_scatter.py put_extreme_weights). None otherwise, or for an index outside
    [0, n): the op's own forward and save then (and their errors)."""
    dt = d.dtype
    if not idx.size or (dt != _F32 and dt != _F64) or v.dtype != dt:
        return None
    if reduce == "assign":
        kernels = compiled_kernels("forward_gather")
        if kernels is None:
            return None
        out, kept, written = np.empty(d.shape, dt), np.empty(d.shape, dt), np.empty(idx.size, dt)
        if kernels.put_assign(np.ascontiguousarray(d).reshape(-1), idx,
                              np.ascontiguousarray(v).reshape(-1), out.reshape(-1),
                              kept.reshape(-1), written, np.empty(d.size, np.int64)):
            return out, (kept, written)
        return None
    if reduce not in _EXTREMES:
        return None
    kernels = compiled_kernels("forward_scatter")
    if kernels is None:
        return None
    out, w_self, w_v = np.empty(d.shape, dt), np.empty(d.shape, dt), np.empty(idx.size, dt)
    if kernels.put_extreme_weights(np.ascontiguousarray(d).reshape(-1), idx,
                                   np.ascontiguousarray(v).reshape(-1),
                                   reduce.startswith("amax"), reduce.endswith("_src"),
                                   out.reshape(-1), w_self.reshape(-1), w_v):
        return out, (w_self, w_v)
    return None


_I64 = np.dtype(np.int64)
_NO_MASKS = (None, None)               # put_flat 'add' saves no masks (_put_save)


def put_along_compiled(x: Tensor, idx: np.ndarray, values: Tensor, axis: int, reduce: str
                       ) -> Tensor | None:
    """put_along_axis's put_flat node for 'assign' or 'add' (scatter_reduce's 'sum' with
    its own values: the same node) in one compiled call, when x is float32 or float64,
    values a Tensor of its dtype and of idx's shape, idx int64 of x's dims matching x off
    the axis, and Numba is loaded: the positions (_along_axis_positions'), the output and
    the saved masks (_put_compiled's, or the plain forward's for 'add') bit for bit, from
    the same loops (vm/forward_gather.py along_assign, along_add). None otherwise, or for
    an index out of range: the general path then (and its errors)."""
    d, v = x._data, values._data
    dt = d.dtype
    nd = d.ndim
    if (dt is not _F32 and dt is not _F64) or v.dtype is not dt or idx.dtype is not _I64 \
            or idx.ndim != nd or v.shape != idx.shape or not idx.size or not -nd <= axis < nd:
        return None
    ax = axis % nd
    shape, ishape = d.shape, idx.shape
    if ishape[:ax] != shape[:ax] or ishape[ax + 1:] != shape[ax + 1:]:
        return None
    kernels = compiled_kernels("forward_gather")
    if kernels is None:
        return None
    post = math.prod(shape[ax + 1:])
    k = ishape[ax]
    pos = np.empty(ishape, np.int64)
    out = np.empty(shape, dt)
    xf = (d if d.flags.c_contiguous else np.ascontiguousarray(d)).reshape(-1)
    vf = (v if v.flags.c_contiguous else np.ascontiguousarray(v)).reshape(-1)
    i3 = (idx if idx.flags.c_contiguous else np.ascontiguousarray(idx)).reshape(-1, k, post)
    if reduce == "add":
        if not kernels.along_add(xf, i3, vf, out.reshape(-1), pos.reshape(-1, k, post),
                                 shape[ax]):
            return None
        saved = _NO_MASKS
    else:
        kept, written = np.empty(shape, dt), np.empty(idx.size, dt)
        if not kernels.along_assign(xf, i3, vf, out.reshape(-1), pos.reshape(-1, k, post),
                                    kept.reshape(-1), written, np.empty(d.size, np.int64),
                                    shape[ax]):
            return None
        saved = (kept, written)
    return apply_xy(put_flat_op, x, values, {"idx": pos.reshape(-1), "reduce": reduce}, out,
                    saved)


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    """Whether an array of `shape` broadcasts to `target` (leading ones dropped first, as
    _values_for does)."""
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    return len(shape) <= len(target) and all(
        a == 1 or a == b for a, b in zip(shape[::-1], target[::-1]))


def put_along_axis(arr: Tensor, indices: Any, values: Any, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True) -> Tensor:
    """Write values at indices along axis; gradients reach arr (where not overwritten) and
    values. reduce is 'assign', 'add', 'multiply' ('mul'), 'mean', 'amax' or 'amin', as in
    scatter_reduce: each named element becomes the reduction of the values sent there and,
    when include_self, its own value ('assign' ignores include_self). With 'assign' and
    repeated indices the last value lands and only it gets a gradient."""
    if (reduce == "assign" or reduce == "add" and include_self is True) and \
            isinstance(indices, Tensor) and isinstance(values, Tensor) and \
            isinstance(arr, Tensor) and type(axis) is int and broadcast is True:
        done = put_along_compiled(arr, indices._data, values, axis, reduce)
        if done is not None:
            return done
    reduce = {"mul": "multiply"}.get(reduce, reduce)
    if reduce not in ("assign", "add", "multiply", "mean", "amax", "amin"):
        raise ValueError(f"put_along_axis: reduce must be 'assign', 'add', 'multiply', "
                         f"'mean', 'amax' or 'amin', got {reduce!r}")
    idx = _index_array(indices, "put_along_axis")
    ax = _axis(axis, arr.ndim, "put_along_axis")
    ashape = arr._data.shape
    if not broadcast:
        pos = _unbroadcast_positions(ashape, idx, ax, "put_along_axis")
        if isinstance(values, Tensor) and values.ndim == idx.ndim and \
                values.shape != list(idx.shape):
            # the first idx.shape values, as torch's scatter reads its src
            values = values[tuple(slice(0, k) for k in idx.shape)]
    else:
        # indices broadcast to arr's shape but along axis, values to theirs (Paddle 3.3.1:
        # values of more positions along axis than the indices raise, they are not spread)
        shape = ashape[:ax] + (idx.shape[ax],) + ashape[ax + 1:]
        vshape = np.shape(values._data if isinstance(values, Tensor) else values)
        if not _broadcasts_to(vshape, shape):
            raise ValueError(f"put_along_axis: values of shape {list(vshape)} do not broadcast "
                             f"to the indices' shape {list(shape)} (arr's shape but along "
                             "axis); give as many indices as values along axis")
        if idx.shape != shape:
            idx = np.broadcast_to(idx, shape)
        if idx.shape[:ax] == ashape[:ax] and idx.shape[ax + 1:] == ashape[ax + 1:]:
            pos = _along_axis_positions(ashape, idx, ax, "put_along_axis")
        else:
            pos = np.take_along_axis(_flat_positions(ashape), idx, axis=ax)
    if reduce == "assign" or (reduce == "add" and include_self):
        return put_flat(arr, pos, values, reduce)
    from .more_indexing import reduce_at        # (it imports this module)
    values = _values_for(arr, values, pos.shape)
    return reduce_at(arr, pos.ravel(), reshape(values, [-1]),
                     {"add": "sum", "multiply": "prod"}.get(reduce, reduce), include_self)


# ---- triangles (masks as constants) ---------------------------------------------------------

@functools.lru_cache(maxsize=32)
def _triangle(shape: tuple, diagonal: int, upper: bool) -> np.ndarray:
    """The bool mask of a matrix shape, read-only and shared: a constant no one writes
    (built once per shape)."""
    m = (np.triu if upper else np.tril)(np.ones(shape, bool), diagonal)
    m.setflags(write=False)
    return m


@functools.lru_cache(maxsize=32)
def _triangle_values(shape: tuple, diagonal: int, upper: bool, dtype: np.dtype) -> np.ndarray:
    """The mask as 0/1 values over a whole tensor shape (the VM's select reads it)."""
    m = np.ascontiguousarray(np.broadcast_to(_triangle(shape[-2:], diagonal, upper), shape),
                             dtype)
    m.setflags(write=False)
    return m


def _triangle_forward(x: np.ndarray, diagonal: int, upper: bool) -> np.ndarray:
    """x times the 0/1 mask (a third of np.where's time), and 0 where that made an inf or
    NaN outside the triangle NaN."""
    out = np.multiply(x, _triangle_values(x.shape[-2:], diagonal, upper, x.dtype))
    if x.dtype.kind == "f" and not np.isfinite(out).all():
        np.copyto(out, 0, where=~_triangle(x.shape[-2:], diagonal, upper))
    return out


# x kept in a triangle of its last two dims, 0 elsewhere: a select (an inf outside gives 0,
# in the values and in the gradient, as Paddle 3.3.1), linear and its own transpose; the
# backward's mask is structure (from the shape and the attributes)
triangle_op = linear(
    "triangle", grad_reads=(), forward=_triangle_forward, quiet=True, min_ndim=2,
    transpose=lambda n, diagonal, upper: step(triangle_op, diagonal=diagonal, upper=upper),
    into=lambda b, dest, src, diagonal, upper: b.contribute(
        dest, src.shape, "RELU_BWD", src, b.static_value(
            _triangle_values(tuple(src.shape), diagonal, upper, b.dtype))),
    cases=tuple({"shapes": (s,), "attrs": {"diagonal": d, "upper": u}}
                for s, d, u in (((3, 4), 0, False), ((3, 4), 1, True), ((2, 3, 3), -1, False),
                                ((2, 3, 3), 0, True))))


def _matrices(x: Tensor, what: str) -> None:
    if x.ndim < 2:      # (numpy would read a vector as a matrix's row: Paddle refuses it)
        raise ValueError(f"{what} needs a tensor of at least 2 dims, got shape {x.shape}")


def tril(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    _matrices(x, "tril")
    return apply_xy(triangle_op, x, None, {"diagonal": int(diagonal), "upper": False})


def triu(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    _matrices(x, "triu")
    return apply_xy(triangle_op, x, None, {"diagonal": int(diagonal), "upper": True})
