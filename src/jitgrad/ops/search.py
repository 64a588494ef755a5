"""Searching, sorting, comparisons and logic. Indices and booleans carry no gradient; sorted
values and top-k values are take_along_axis composites, so their gradients flow back to the
picked elements."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from .core import compiled_kernels, norm_axis
from .indexing import _axis, take_along_axis
from .shape import _take_flat, take_flat_op
from .core import apply_xy, binary_operands

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def order_kernels() -> Any:
    """vm/forward_order.py's compiled kernels once Numba is loaded, else None."""
    return compiled_kernels("forward_order")


def last_axis_rows(x: Tensor, ax: int) -> tuple[Any, np.ndarray, np.ndarray] | None:
    """(the order kernels, x's float rows along its last axis [m, n], each row sorted) when
    ax is that axis and the compiled kernels are loaded; None otherwise (the numpy path)."""
    a = x._data
    if ax != a.ndim - 1 or a.dtype.char not in "fd" or a.size == 0:
        return None
    kernels = order_kernels()
    if kernels is None:
        return None
    rows = np.ascontiguousarray(a).reshape(-1, a.shape[-1])
    return kernels, rows, np.sort(rows, axis=1)


def pick_rows(x: Tensor, idx: np.ndarray, shape: tuple) -> Tensor:
    """x's values at idx [m, j] within each of its last-axis rows, as one take_flat node
    of the given shape (j values per row)."""
    a = x._data
    n = a.shape[-1]
    dt = a.dtype
    if (dt == _F32 or dt == _F64) and idx.dtype == np.int64 and idx.ndim == 2:
        kernels = compiled_kernels("forward_gather")
        m, k = idx.shape
        if kernels is not None and m * n == a.size:
            # (vm/forward_gather.py row_picks: the table and the values in one pass)
            pos = np.empty(m * k, np.int64)
            vals = np.empty((m, k), dt)
            if kernels.row_picks(np.ascontiguousarray(a).reshape(m, n),
                                 np.ascontiguousarray(idx), pos, vals):
                return apply_xy(take_flat_op, x, None, {"idx": pos, "shape": tuple(shape)},
                                out=vals.reshape(shape))
    positions = idx + np.arange(0, idx.shape[0] * n, n, dtype=np.int64)[:, None]
    return _take_flat(x, positions.reshape(-1), shape)


def _np(x: Any) -> np.ndarray:
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _t(a: Any) -> Tensor:
    return Tensor._make(np.array(a, order="C"))


def _arg_extreme(x: Tensor, axis: Any, keepdim: bool, dtype: Any, pick: Any, fill: float,
                 what: str) -> Tensor:
    """np.argmax / argmin with Paddle 3.3.1's rules: NaN is skipped (an all-NaN group gives
    0), keepdim keeps every axis as 1 when axis is None, dtype int32 or int64."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    out_dtype = np.dtype(getattr(dtype, "name", dtype) if not isinstance(dtype, str) else dtype)
    if out_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(f"{what}: dtype must be int32 or int64, got {dtype!r}")
    a = x._data
    if a.dtype.kind == "f" and np.isnan(a).any():
        a = np.where(np.isnan(a), fill, a)
    if axis is None:
        idx = np.asarray(pick(a))
        if keepdim:
            idx = idx.reshape((1,) * a.ndim)
    else:
        idx = pick(a, axis=_axis(axis, x.ndim, what), keepdims=keepdim)
        if keepdim and a.ndim == 0:         # (Paddle 3.3.1: shape [1])
            idx = np.reshape(idx, (1,))
    return _t(np.asarray(idx).astype(out_dtype))


def argmax(x: Tensor, axis: int | None = None, keepdim: bool = False, dtype: Any = "int64",
           name: str | None = None) -> Tensor:
    """Index of the largest value (NaN skipped, as Paddle)."""
    return _arg_extreme(x, axis, keepdim, dtype, np.argmax, -np.inf, "argmax")


def argmin(x: Tensor, axis: int | None = None, keepdim: bool = False, dtype: Any = "int64",
           name: str | None = None) -> Tensor:
    """Index of the smallest value (NaN skipped, as Paddle)."""
    return _arg_extreme(x, axis, keepdim, dtype, np.argmin, np.inf, "argmin")


def argsort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True,
            name: str | None = None) -> Tensor:
    """Stable order along axis; NaN counts as the largest value (last ascending, first
    descending, in index order), as Paddle and torch."""
    if x.ndim:
        axis = _axis(axis, x.ndim, "argsort")
    else:                               # (np.argsort would give shape [1]; Paddle gives [])
        _axis(axis, 1, "argsort")
        return _t(np.zeros((), np.int64))
    if descending and x._data.dtype.kind == "f" and np.isnan(x._data).any():
        a = np.moveaxis(x._data, axis, -1)
        keys = np.where(np.isnan(a), -np.inf, -a)
        order = np.lexsort((keys, ~np.isnan(a)), axis=-1)
        return _t(np.moveaxis(order, -1, axis).astype(np.int64))
    d = -x._data if descending else x._data
    if d.dtype.char in "fd" and d.ndim and d.size and axis in (-1, d.ndim - 1):
        kernels = order_kernels()
        if kernels is not None and d.dtype.char == "f" and d.shape[-1] < 2 ** 32:
            # one sort of integer keys, value above index (vm/forward_order.py order_keys):
            # the stable order below, NaN last, in one numpy sort of uint64 keys
            rows = np.ascontiguousarray(d).reshape(-1, d.shape[-1])
            if not rows.flags.writeable:
                rows = rows.copy()              # (read-only: another compiled variant)
            keys = np.empty(rows.shape, np.uint64)
            kernels.order_keys(rows.view(np.uint32), keys)
            keys.sort(axis=1)
            order = np.empty(d.shape, np.int64)
            kernels.order_of_keys(keys.reshape(-1), order.reshape(-1))
            return _t(order)
        if kernels is not None:         # an unstable sort, then its ties put in order
            order = np.argsort(d, axis=-1)
            kernels.stabilize(np.ascontiguousarray(d).reshape(-1, d.shape[-1]),
                              order.reshape(-1, d.shape[-1]))
            return _t(order)
    return _t(np.argsort(d, axis=axis, kind="stable").astype(np.int64))


def sort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True,
         name: str | None = None) -> Tensor:
    """Sorted values; the gradient goes back to where each value came from."""
    if x.ndim == 0:
        return x
    order = argsort(x, axis, descending)
    if axis in (-1, x.ndim - 1) and x._data.size:     # positions by arithmetic: one take_flat
        return pick_rows(x, order._data.reshape(-1, x._data.shape[-1]), x._data.shape)
    return take_along_axis(x, order, axis)


class TopKRetType(NamedTuple):
    """topk's result, as Paddle 3.3.1 names it."""
    values: Tensor
    indices: Tensor


def topk(x: Tensor, k: int, axis: int = -1, largest: bool = True, sorted: bool = True,
         name: str | None = None) -> TopKRetType:
    """(values, indices) of the k largest (or smallest) entries along axis, as Paddle's
    named tuple."""
    if x.ndim == 0:                     # (Paddle: the value itself, index 0)
        if k != 1:
            raise ValueError(f"topk: k={k} is out of range for a 0-d tensor (k must be 1)")
        return TopKRetType(x * 1.0 if x._data.dtype.kind == "f" else x,
                           _t(np.array(0, np.int64)))
    ax = _axis(axis, x.ndim, "topk")
    if isinstance(k, Tensor):
        k = k.item()
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):   # (numpy's cast error)
        raise TypeError(f"topk: k must be an int, got {k!r}")
    if not 0 < k <= x.shape[ax]:
        raise ValueError(f"topk: k={k} is out of range for axis {ax} of size {x.shape[ax]}")
    top = _top_rows(x, ax, int(k), bool(largest))
    if top is not None:
        return top
    idx = argsort(x, ax, descending=largest)._data
    idx = np.take(idx, np.arange(k), axis=ax)
    return TopKRetType(take_along_axis(x, idx, ax), _t(idx))


def _top_rows(x: Tensor, ax: int, k: int, largest: bool) -> TopKRetType | None:
    """topk along the last axis of a float32/float64 x by one compiled pass (values, their
    take_flat table and indices: vm/forward_order.top_rows), the values and indices of the
    sort path below; None when it does not apply (another axis or dtype, NaN, no kernels)."""
    a = x._data
    dt = a.dtype
    if ax != a.ndim - 1 or not (dt == _F32 or dt == _F64) or a.size == 0:
        return None
    kernels = order_kernels()
    if kernels is None:
        return None
    rows = np.ascontiguousarray(a).reshape(-1, a.shape[-1])
    m = rows.shape[0]
    idx = np.empty((m, k), np.int64)
    pos = np.empty(m * k, np.int64)
    vals = np.empty((m, k), dt)
    if not kernels.top_rows(rows, k, largest, idx, pos, vals):
        return None
    shape = a.shape[:-1] + (k,)
    return TopKRetType(apply_xy(take_flat_op, x, None, {"idx": pos, "shape": shape},
                                out=vals.reshape(shape)), Tensor._make(idx.reshape(shape)))


def nonzero(x: Tensor, as_tuple: bool = False) -> Any:
    nz = np.nonzero(x._data)
    if as_tuple:
        return tuple(_t(i.astype(np.int64)) for i in nz)       # 1-D each, as Paddle
    return _t(np.stack(nz, axis=1).astype(np.int64))


def _cmp(fn):
    def op(x: Any, y: Any, name: str | None = None) -> Tensor:
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            dtypes.check_combinable(x._data, y._data)
        if isinstance(x, Tensor) and not isinstance(y, Tensor):
            y = dtypes.number_operand(x._data.dtype, y)
        elif isinstance(y, Tensor) and not isinstance(x, Tensor):
            x = dtypes.number_operand(y._data.dtype, x)
        return _t(fn(_np(x), _np(y)))
    op.__name__ = fn.__name__
    return op


equal, not_equal = _cmp(np.equal), _cmp(np.not_equal)
less_than, less_equal = _cmp(np.less), _cmp(np.less_equal)
greater_than, greater_equal = _cmp(np.greater), _cmp(np.greater_equal)
logical_and, logical_or = _cmp(np.logical_and), _cmp(np.logical_or)
logical_xor = _cmp(np.logical_xor)
bitwise_and, bitwise_or, bitwise_xor = (_cmp(np.bitwise_and), _cmp(np.bitwise_or),
                                        _cmp(np.bitwise_xor))
def floor_divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x // y with Paddle's dtype rules (float32 // 2 stays float32); no gradient. A 0-d
    tensor of another kind (int against float) takes the higher kind's dtype, as in the
    arithmetic ops; of the same kind the usual promotion applies (Paddle 3.3.1)."""
    both = isinstance(x, Tensor) and isinstance(y, Tensor)
    mixed = both and (x._data.dtype.kind == "f") != (y._data.dtype.kind == "f")
    if both and not mixed and x._data.dtype != y._data.dtype and \
            (x._data.ndim == 0 or y._data.ndim == 0):
        dt = np.promote_types(x._data.dtype, y._data.dtype)     # (int32 // a 0-d int64:
        x, y = x.astype(dt), y.astype(dt)                      # int64, Paddle 3.3.1)
    x, y = binary_operands(x, y, zero_dim=mixed)
    if (x._data.dtype.kind != "f" or y._data.dtype.kind != "f") and \
            (np.asarray(y._data) == 0).any():
        raise ValueError("floor_divide: integer division by zero")   # (as remainder; Paddle)
    return _t(np.floor_divide(x._data, y._data))


def logical_not(x: Any, name: str | None = None) -> Tensor:
    return _t(np.logical_not(_np(x)))


def isnan(x: Tensor, name: str | None = None) -> Tensor:
    return _t(np.isnan(x._data))


def isinf(x: Tensor, name: str | None = None) -> Tensor:
    return _t(np.isinf(x._data))


def isfinite(x: Tensor, name: str | None = None) -> Tensor:
    return _t(np.isfinite(x._data))


def _logic_axes(axis: Any, ndim: int) -> tuple | None:
    """all/any's axes: None or an empty list reduce every axis (Paddle, as its sum)."""
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return None
    return norm_axis(axis, ndim)


def any(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
        ) -> Tensor:  # noqa: A001
    return _t(np.any(x._data, axis=_logic_axes(axis, x.ndim), keepdims=keepdim))


def all(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
        ) -> Tensor:  # noqa: A001
    return _t(np.all(x._data, axis=_logic_axes(axis, x.ndim), keepdims=keepdim))


def allclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False, name: str | None = None) -> Tensor:
    return _t(np.asarray(np.allclose(x._data, y._data, rtol, atol, equal_nan)))


def isclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False, name: str | None = None) -> Tensor:
    return _t(np.isclose(x._data, y._data, rtol, atol, equal_nan))


def equal_all(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    return _t(np.asarray(x._data.shape == y._data.shape and np.array_equal(x._data, y._data)))


def count_nonzero(x: Tensor, axis: Any = None, keepdim: bool = False,
                  name: str | None = None) -> Tensor:
    """How many elements are not 0 along axis (None, an int, or a list or tuple of them:
    `axis=[0, 2]` and `[]`, all axes, as Paddle 3.3.1), as int64."""
    axes = norm_axis(axis, x.ndim)
    return _t(np.asarray(np.count_nonzero(x._data, axis=axes, keepdims=keepdim), np.int64))


def unique(x: Tensor, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, dtype: Any = "int64",
           sorted: bool = True, name: str | None = None) -> Any:
    """The distinct values, sorted (sorted=False gives them sorted too, as Paddle 3.3.1's
    CPU kernel does), with the first indices, the inverse and the counts if asked."""
    res = np.unique(x._data, return_index, return_inverse, return_counts, axis=axis)
    if not isinstance(res, tuple):
        return _t(res)
    it = dtypes.to_dtype(dtype).np     # the index, inverse and counts' dtype, as Paddle's
    res = [r if i == 0 else r.astype(it) for i, r in enumerate(res)]
    if return_inverse and axis is None:
        # one index per element of the flattened x, as Paddle (numpy 2 keeps x's shape)
        k = 1 + return_index
        res[k] = res[k].reshape(-1)
    return tuple(map(_t, res))


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def numel(x: Tensor, name: str | None = None) -> Tensor:
    return _t(np.asarray(x._data.size, np.int64))
