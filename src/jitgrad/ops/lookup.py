"""Finding positions and picking by them, in Paddle 3.x's names: searchsorted, bucketize,
bincount, isin, tril_indices, triu_indices (integer results, no gradient) and kthvalue, mode,
cummax, cummin, take, index_sample, index_fill, whose values are picked from x by
take_along_axis or put_flat, so the gradient reaches the picked elements (tie rules as
measured on Paddle 3.3.1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .core import apply_xy, compiled_kernels
from .indexing import _axis, _index_array, put_flat, take_along_axis
from .search import _np, last_axis_rows, pick_rows
from .shape import _flat_positions, _select_compiled, _take_flat, reshape, squeeze
from .shape import take_flat_op as _take_flat_op


def _int_out(a: np.ndarray, out_int32: bool) -> Tensor:
    return Tensor._make(a.astype(np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence: Tensor, values: Any, out_int32: bool = False,
                 right: bool = False, name: str | None = None, *, side: str | None = None,
                 sorter: Any = None) -> Tensor:
    """Insertion positions of values in sorted_sequence (1-D, or one sorted row per leading
    index of values); side='right' (or right=True) puts equal values after their run.
    sorter: the indices that sort sorted_sequence (along its last axis), as numpy's."""
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        right = side == "right"
    s, v = _np(sorted_sequence), _np(values)
    if sorter is not None:
        order = _np(sorter)
        if order.shape != s.shape or order.dtype.kind not in "iu":
            raise ValueError(f"searchsorted: sorter must hold integer indices of "
                             f"sorted_sequence's shape {list(s.shape)}")
        s = np.take_along_axis(s, order.astype(np.int64), axis=-1)
    how = "right" if right else "left"
    if s.ndim == 1:
        return _int_out(np.searchsorted(s, v, side=how), out_int32)
    if s.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"searchsorted: the leading dims of sorted_sequence {list(s.shape)} "
                         f"and values {list(v.shape)} must match")
    rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=how) for a, b in zip(rows_s, rows_v)])
    return _int_out(out.reshape(v.shape), out_int32)


def bucketize(x: Any, sorted_sequence: Tensor, out_int32: bool = False, right: bool = False,
              name: str | None = None) -> Tensor:
    """searchsorted with the 1-D boundaries second."""
    if _np(sorted_sequence).ndim != 1:
        raise ValueError("bucketize: sorted_sequence must be 1-D")
    return searchsorted(sorted_sequence, x, out_int32, right)


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0,
             name: str | None = None) -> Tensor:
    """Counts of each non-negative int in x (or sums of weights); no gradient, as Paddle's."""
    a = _np(x)
    if a.dtype.kind not in "iu" or a.ndim != 1:
        raise TypeError(f"bincount needs a 1-D integer tensor, got {a.dtype.name} of shape "
                        f"{list(a.shape)}")
    if a.size and a.min() < 0:
        raise ValueError("bincount: x must not hold negative values")
    w = None if weights is None else _np(weights)
    out = np.bincount(a, weights=w, minlength=int(minlength))
    return Tensor._make(out.astype(np.int64 if w is None else w.dtype))


def isin(x: Tensor, test_x: Tensor, assume_unique: bool = False, invert: bool = False,
         name: str | None = None) -> Tensor:
    return Tensor._make(np.isin(_np(x), _np(test_x), assume_unique=assume_unique,
                                invert=invert))


def tril_indices(row: int, col: int, offset: int = 0, dtype: Any = "int64") -> Tensor:
    """[2, n]: the row and column indices of the lower triangle (diagonal offset `offset`)."""
    return Tensor._make(np.stack(np.tril_indices(row, offset, col)).astype(np.dtype(dtype)))


def triu_indices(row: int, col: int | None = None, offset: int = 0, dtype: Any = "int64"
                 ) -> Tensor:
    return Tensor._make(np.stack(np.triu_indices(row, offset, row if col is None else col))
                        .astype(np.dtype(dtype)))


def _pick(x: Tensor, idx: np.ndarray, ax: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """(x's values at idx along ax, idx) with the reduced dim dropped unless keepdim."""
    vals = take_along_axis(x, Tensor._make(idx), ax)
    index = Tensor._make(idx.astype(np.int64))
    if not keepdim:
        vals, index = squeeze(vals, ax), squeeze(index, ax)
    return vals, index


def kthvalue(x: Tensor, k: int, axis: int | None = None, keepdim: bool = False,
             name: str | None = None) -> tuple[Tensor, Tensor]:
    """The k-th smallest value along axis (the last by default) and its index. Among equal
    values the index may differ from Paddle's (which depends on its partial sort)."""
    ax = _axis(-1 if axis is None else axis, x.ndim, "kthvalue")
    n = x.shape[ax] if x.ndim else 1
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):    # (1.5 acted as 1)
        raise TypeError(f"kthvalue: k must be an int, got {k!r}")
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue: k={k} is out of range for a dim of size {n}")
    if x.ndim == 0:
        return _zero_d_pick(x)
    found = last_axis_rows(x, ax)
    if found is not None:
        kernels, rows, srt = found
        idx = np.empty((rows.shape[0], 1), np.int64)
        if kernels.kth_index(rows, srt, k - 1, idx.reshape(-1)):
            shape = x._data.shape[:-1] + ((1,) if keepdim else ())
            return pick_rows(x, idx, shape), Tensor._make(idx.reshape(shape))
    order = np.argsort(x._data, axis=ax, kind="stable")
    idx = np.take(order, [k - 1], axis=ax)
    return _pick(x, idx, ax, keepdim)


def _zero_d_pick(x: Tensor) -> tuple[Tensor, Tensor]:
    """kthvalue's and mode's answer for a 0-d x: x itself (its gradient 1) and index 0, both
    0-d whatever keepdim (Paddle 3.3.1)."""
    one = reshape(x, [1])
    return reshape(one, []), Tensor._make(np.zeros((), np.int64))


def mode(x: Tensor, axis: int = -1, keepdim: bool = False, name: str | None = None
         ) -> tuple[Tensor, Tensor]:
    """The most frequent value along axis (the smallest of equally frequent ones) and the
    index of its last occurrence, as Paddle 3.3.1; each NaN counts once, as a value larger
    than every number (a row of NaNs gives NaN at the first one's index, as Paddle)."""
    ax = _axis(axis, x.ndim, "mode")
    if x.ndim == 0:
        return _zero_d_pick(x)
    a = np.moveaxis(x._data, ax, -1)
    flat = a.reshape(-1, a.shape[-1])
    picks = np.empty(flat.shape[0], dtype=np.int64)
    for r, row in enumerate(flat):
        vals, counts = np.unique(row, return_counts=True, equal_nan=False)  # smallest first
        best = vals[np.argmax(counts)]
        picks[r] = np.flatnonzero(row == best)[-1] if best == best else \
            np.flatnonzero(np.isnan(row))[0]
    idx = np.expand_dims(picks.reshape(a.shape[:-1]), ax)
    return _pick(x, idx, ax, keepdim)


_F32, _F64, _I64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)


def _cumulative(x: Tensor, axis: Any, dtype: Any, better: Any, what: str
                ) -> tuple[Tensor, Tensor]:
    if axis is None:
        x, ax = reshape(x, [-1]), 0
    else:
        ax = _axis(axis, x.ndim, what)
    out_dtype = _I64 if dtype == "int64" else \
        np.dtype(dtype if isinstance(dtype, str) else getattr(dtype, "name", dtype))
    a = x._data
    dt = a.dtype
    if (dt is _F32 or dt is _F64) and a.size and ax == a.ndim - 1:
        kernels = compiled_kernels("forward_gather")
        if kernels is not None:
            # (vm/forward_gather.py running_picks: the indices and pick_rows' take_flat
            # node in one pass, for rows without a NaN)
            n = a.shape[-1]
            rows = (a if a.flags.c_contiguous else np.ascontiguousarray(a)).reshape(-1, n)
            idx = np.empty(rows.shape, np.int64)
            pos = np.empty(a.size, np.int64)
            vals = np.empty(a.shape, dt)
            if kernels.running_picks(rows, better is np.greater, idx, pos,
                                     vals.reshape(rows.shape)):
                return (apply_xy(_take_flat_op, x, None, {"idx": pos, "shape": a.shape}, vals),
                        Tensor._make(idx.reshape(a.shape).astype(out_dtype, copy=False)))
    nan = a.dtype.kind == "f" and bool(np.isnan(a).any())
    a = np.moveaxis(a, ax, -1)
    if nan:
        idx = _cumulative_loop(a, better)
    else:
        # the running best by accumulate; a later element equal to it wins, so each
        # position's index is the last one so far holding the running best
        best = (np.fmax if better is np.greater else np.fmin).accumulate(a, axis=-1) \
            if a.shape[-1] else a
        hold = np.where(a == best, np.arange(a.shape[-1]), 0)
        idx = np.maximum.accumulate(hold, axis=-1) if a.shape[-1] else hold
    idx = np.moveaxis(idx, -1, ax)
    vals = take_along_axis(x, Tensor._make(idx), ax)
    return vals, Tensor._make(idx.astype(out_dtype))


def _cumulative_loop(a: np.ndarray, better: Any) -> np.ndarray:
    """The indices column by column: a NaN always wins and then holds (a later NaN takes
    over), for cummax and cummin alike, as Paddle 3.3.1 and torch."""
    idx = np.zeros(a.shape, dtype=np.int64)
    best = a[..., 0].copy() if a.shape[-1] else a[..., :0]
    for j in range(1, a.shape[-1]):
        now = a[..., j]
        take = better(now, best) | (now == best) | np.isnan(now)   # a later equal one wins
        idx[..., j] = np.where(take, j, idx[..., j - 1])
        best = np.where(take, a[..., j], best)
    return idx


def cummax(x: Tensor, axis: int | None = None, dtype: Any = "int64", name: str | None = None
           ) -> tuple[Tensor, Tensor]:
    """Running maximum along axis (flattened when None) and where each was found."""
    return _cumulative(x, axis, dtype, np.greater, "cummax")


def cummin(x: Tensor, axis: int | None = None, dtype: Any = "int64", name: str | None = None
           ) -> tuple[Tensor, Tensor]:
    return _cumulative(x, axis, dtype, np.less, "cummin")


def take(x: Tensor, index: Any, mode: str = "raise", name: str | None = None) -> Tensor:
    """x's elements at flat positions (shape of index); mode 'raise' allows -n..n-1,
    'wrap' wraps any index, 'clip' clamps it."""
    idx = _index_array(index, "take")
    n = int(x._data.size)
    if mode == "raise":
        flat = _select_compiled((n,), idx.reshape(-1), 0)
        if flat is not None:            # (checked and counted from the end in one pass)
            return _take_flat(x, flat, tuple(idx.shape))
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise ValueError(f"take: an index is out of range for {n} elements (use "
                             "mode='wrap' or 'clip')")
        idx = np.where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = np.mod(idx, n)
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    else:
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return _take_flat(x, idx.reshape(-1).astype(np.int64, copy=False), tuple(idx.shape))


def index_sample(x: Tensor, index: Any) -> Tensor:
    """Row i of the result is x[i, index[i]] (2-D x and index)."""
    idx = _index_array(index, "index_sample")
    if x.ndim != 2 or idx.ndim != 2 or idx.shape[0] != x.shape[0]:
        raise ValueError(f"index_sample needs 2-D x and index with equal first dims, got "
                         f"{x.shape} and {list(idx.shape)}")
    return take_along_axis(x, idx, 1)


def index_fill(x: Tensor, index: Any, axis: int, value: Any, name: str | None = None
               ) -> Tensor:
    """A copy of x with the slices at `index` along axis set to value (x gets no gradient
    there). A 0-d Tensor value gets the sum of the filled positions' gradients, as in Paddle
    3.3.1 (it was taken as a number: no gradient); another shape raises, as there."""
    ax = _axis(axis, x.ndim, "index_fill")
    idx = _index_array(index, "index_fill").reshape(-1)
    positions = np.take(_flat_positions(x._data.shape), idx, axis=ax)
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise ValueError(f"index_fill: value must be a Python number or a 0-D tensor, got "
                         f"shape {list(value.shape)} (take value[0] or value.reshape([]))")
    return put_flat(x, positions, value, "assign")


NAMES = ["searchsorted", "bucketize", "bincount", "isin", "tril_indices", "triu_indices",
         "kthvalue", "mode", "cummax", "cummin", "take", "index_sample", "index_fill"]
