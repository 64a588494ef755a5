"""Order statistics: median and nanmedian (one registry entry: the elements equal to the
median share its gradient, the two middle ones of an even count half each) and quantile (a
composite following Paddle 3.3.1's own algorithm). Values, dtypes and index conventions as
measured on Paddle 3.3.1; among equal middle elements the one picked may differ (Paddle's
top-k order)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .core import apply_xy
from .derivative import Weight, binary
from .reduce import _kept_shape
from .search import order_kernels, pick_rows


def _median_rows(rows: np.ndarray, mode: str, ignore_nan: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of a 2-D array: the median, and the indices of its lower and upper middle
    elements (a stable sort's). A row with nan has median nan and, for the lower index, its
    first nan; with ignore_nan the nans are skipped and an all-nan row gives nan, index -1."""
    n = rows.shape[1]
    order = np.argsort(rows, axis=1, kind="stable")         # nan sorts last
    isnan = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
    count = (~isnan).sum(axis=1) if ignore_nan else np.full(len(rows), n)
    c = np.maximum(count, 1)
    pick = np.arange(rows.shape[0])
    lo_i = order[pick, (c - 1) // 2]
    hi_i = order[pick, c // 2] if mode == "avg" else lo_i
    lo, hi = rows[pick, lo_i], rows[pick, hi_i]
    with np.errstate(all="ignore"):
        val = lo if mode == "min" else (lo + hi) / rows.dtype.type(2)
    val = np.asarray(val).astype(rows.dtype)
    if ignore_nan:
        none = count == 0
        if none.any():
            val = np.where(none, np.nan, val).astype(rows.dtype)
            lo_i, hi_i = np.where(none, -1, lo_i), np.where(none, -1, hi_i)
    else:
        nan = isnan.any(axis=1)
        if nan.any():
            val = np.where(nan, np.nan, val).astype(rows.dtype)
            lo_i = np.where(nan, np.argmax(isnan, axis=1), lo_i)
            hi_i = np.where(nan, -1, hi_i)
    return val, lo_i, hi_i


def _as_rows(x: np.ndarray, axis: int | None) -> np.ndarray:
    return x.reshape(1, -1) if axis is None else np.moveaxis(x, axis, -1).reshape(
        -1, x.shape[axis])


def _median_forward(x: np.ndarray, axes: tuple | None, keepdim: bool, mode: str,
                    ignore_nan: bool = False, keep: list | None = None) -> np.ndarray:
    """`keep`: a list that receives _median_rows's result (for the weights)."""
    axis = None if axes is None else axes[0]
    if x.size == 0:
        return np.full(_kept_shape(x.shape, axes) if keepdim else
                       [s for i, s in enumerate(x.shape) if axes is not None and i != axis],
                       np.nan, x.dtype)
    found = _median_rows(_as_rows(x, axis), mode, ignore_nan)
    if keep is not None:
        keep.append(found)
    val = found[0]
    kept = _kept_shape(x.shape, axes)
    return val.reshape(kept if keepdim else [s for i, s in enumerate(x.shape)
                                               if axes is not None and i != axis])


def _median_weights(out: np.ndarray, x: np.ndarray, axes: tuple | None, keepdim: bool,
                    mode: str, ignore_nan: bool = False, found: tuple | None = None
                    ) -> tuple[np.ndarray]:
    """Where Paddle's median gradient goes. With an axis and mode 'min': all of it to the
    returned index. Otherwise evenly: the two middle elements take the (avg) median value,
    then every element equal to the median shares the gradient equally (nan equal to nan).
    `found`: _median_rows's result for these rows, when the forward has it."""
    axis = None if axes is None else axes[0]
    if x.size == 0:
        return (np.zeros_like(x),)
    rows = _as_rows(x, axis)
    val, lo_i, hi_i = found if found is not None else _median_rows(rows, mode, ignore_nan)
    pick = np.arange(rows.shape[0])
    if mode == "min" and axis is not None:
        w = np.zeros_like(rows)
        w[pick[lo_i >= 0], lo_i[lo_i >= 0]] = 1
    else:
        tmp = rows.copy()
        ok = ~np.isnan(val)
        if mode == "avg":
            tmp[pick[ok], lo_i[ok]] = val[ok]
            tmp[pick[ok], hi_i[ok]] = val[ok]
        hit = (tmp == val[:, None]) | (np.isnan(tmp) & np.isnan(val)[:, None])
        w = hit / hit.sum(axis=1, keepdims=True)
    w = w.astype(x.dtype)
    if axis is None:
        return (w.reshape(x.shape),)
    moved = list(np.moveaxis(x, axis, -1).shape)
    return (np.moveaxis(w.reshape(moved), -1, axis).copy(),)


def _median_compiled(x: np.ndarray, axes: tuple | None, keepdim: bool, mode: str,
                     ignore_nan: bool) -> tuple[np.ndarray, tuple, np.ndarray] | None:
    """(median, (weights,), lower middle indices) by vm/forward_order.py's median_rows, for
    all elements or along the last axis of a float x without NaN; None otherwise."""
    axis = None if axes is None else axes[0]
    if ignore_nan or x.size == 0 or x.dtype.kind != "f" or (
            axis is not None and axis != x.ndim - 1):
        return None
    kernels = order_kernels()
    if kernels is None:
        return None
    rows = np.ascontiguousarray(x).reshape(-1 if axis is not None else 1, x.shape[-1]
                                           if axis is not None else x.size)
    m = rows.shape[0]
    val, lo, w = np.empty(m, x.dtype), np.empty(m, np.int64), np.empty(rows.shape, x.dtype)
    if not kernels.median_rows(rows, np.sort(rows, axis=1), mode == "avg",
                               mode == "min" and axis is not None, val, lo, w):
        return None
    kept = _kept_shape(x.shape, axes)
    shape = kept if keepdim else tuple(s for i, s in enumerate(x.shape)
                                       if axes is not None and i != axis)
    return val.reshape(shape), (w.reshape(x.shape),), lo.reshape(shape)


def _median_found(x: np.ndarray, axes: tuple | None, keepdim: bool, mode: str,
                  ignore_nan: bool = False) -> tuple[np.ndarray, tuple, np.ndarray]:
    """The forward, the saved weights and the lower middle elements' indices (mode 'min'
    returns them) from one sort: the compiled one, else numpy's."""
    fast = _median_compiled(x, axes, keepdim, mode, ignore_nan)
    if fast is not None:
        return fast
    out = _median_forward(x, axes, keepdim, mode, ignore_nan, keep=(found := []))
    weights = _median_weights(out, x, axes, keepdim, mode, ignore_nan,
                              found[0] if found else None)
    lo = found[0][1].reshape(out.shape) if found else np.zeros(out.shape, np.int64)
    return out, weights, lo


def _median_and_weights(x: np.ndarray, axes: tuple | None, keepdim: bool, mode: str,
                        ignore_nan: bool = False) -> tuple[np.ndarray, tuple]:
    """The op's forward (forward_saves): the median and its saved weights."""
    return _median_found(x, axes, keepdim, mode, ignore_nan)[:2]


median_op = R.weighted_reduction(
    "median", _median_and_weights,
    lambda out, x, axes, keepdim, mode, ignore_nan: _median_weights(
        out, x, axes, keepdim, mode, ignore_nan)[0],
    forward_saves=True, select=True,
    cases=tuple({"shapes": (s,), "attrs": dict(a, ignore_nan=i)} for s, a, i in (
        ((5,), {"axes": None, "keepdim": False, "mode": "avg"}, False),
        ((2, 4), {"axes": None, "keepdim": True, "mode": "avg"}, False),
        ((3, 4), {"axes": (1,), "keepdim": False, "mode": "avg"}, False),
        ((3, 5), {"axes": (0,), "keepdim": True, "mode": "min"}, False),
        ((2, 4), {"axes": None, "keepdim": False, "mode": "min"}, False),
        ((3, 4), {"axes": (0,), "keepdim": False, "mode": "avg"}, True),
        ((), {"axes": None, "keepdim": False, "mode": "avg"}, False))),
    doc="the median along one axis or of all elements; see median and nanmedian")


def _median(x: Tensor, axis: Any, keepdim: bool, mode: str, ignore_nan: bool) -> Any:
    fn = "nanmedian" if ignore_nan else "median"
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    if mode not in ("avg", "min"):
        raise ValueError(f"{fn}: mode must be 'avg' or 'min', got {mode!r}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"{fn}: keepdim must be a bool, got {keepdim!r}")
    if axis is not None:
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise ValueError(f"{fn}: axis must be None or an int, got {axis!r}")
        if not -builtins.max(x.ndim, 1) <= axis < builtins.max(x.ndim, 1):
            raise ValueError(f"{fn}: axis {axis} is out of range for {x.ndim} dims")
    axes = None if axis is None or x.ndim == 0 else (int(axis) % x.ndim,)
    if mode == "avg" and not ignore_nan and x._data.dtype != np.float64 and \
            x._data.dtype != np.float32:
        x = x.astype("float32")
    attrs = {"axes": axes, "keepdim": keepdim, "mode": mode, "ignore_nan": ignore_nan}
    idx = None
    if x._data.dtype.kind == "f":       # (mode 'min''s indices from the forward's own sort)
        value, saved, idx = _median_found(x._data, **attrs)
        out = apply_xy(median_op, x, None, attrs, out=value, saved=saved)
    else:
        out = Tensor._make(_median_forward(x._data, **attrs))
    if mode == "min" and axis is not None:
        if idx is None:
            rows = _as_rows(x._data, None if axes is None else axes[0]) if x._data.size else None
            idx = np.zeros(out._data.shape, np.int64) if rows is None else \
                _median_rows(rows, mode, ignore_nan)[1].reshape(out._data.shape)
        return out, Tensor._make(idx.astype(np.int64))
    return out


def median(x: Tensor, axis: int | None = None, keepdim: bool = False, mode: str | None = None,
           name: str | None = None, *, dim: Any = None) -> Any:
    """Paddle's median. mode 'avg' averages the two middle elements of an even count and
    gives float32 (float64 stays float64); mode 'min' takes the lower one in x's dtype, and
    with an axis returns (values, int64 indices). A group with nan has median nan.

    Gradients as Paddle's: with an axis and mode 'min' all to the returned index; otherwise
    shared equally by the elements equal to the median (ties split), and for an even count
    with two different middle values, half to each. Where such a middle value is tied,
    Paddle's choice among the tied elements follows its top-k order; here the first one is
    taken (the value is the same). dim=: torch's median, as Paddle 3.3.1 reads it: the axis,
    with mode 'min' unless one is given ((values, indices), x.median(dim=1))."""
    if dim is not None:
        if axis is not None:
            raise TypeError("median() got both axis and dim (the same argument)")
        axis, mode = dim, "min" if mode is None else mode
    return _median(x, axis, keepdim, "avg" if mode is None else mode, ignore_nan=False)


def nanmedian(x: Tensor, axis: int | None = None, keepdim: bool = False, mode: str = "avg",
              name: str | None = None) -> Any:
    """median with the nans left out; an all-nan group gives nan (with mode 'min' and an
    axis, index -1). Unlike median, x keeps its dtype (an int 'avg' rounds toward zero, as
    Paddle). Gradients as median's: the elements equal to the result share it, and for an
    all-nan group its nans share it."""
    return _median(x, axis, keepdim, mode, ignore_nan=True)


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _lerp_forward(lo: np.ndarray, hi: np.ndarray, w: np.ndarray) -> np.ndarray:
    return lo + w.astype(lo.dtype, copy=False) * (hi - lo)


# quantile's 'linear' interpolation between the sorted neighbours lo and hi at the constant
# fractions w: lo gets g * (1 - w) and hi g * w, as Paddle 3.3.1's lerp (bit for bit; the
# composite's g - g * w was an ulp off, and NaN for an inf g); where w is 0 (the index
# falls on an element) hi is not read: 0 whatever g is (Paddle and torch give NaN there)
quantile_lerp_op = binary(
    "quantile_lerp", _lerp_forward,
    lambda m, lo, hi, out, w: m.mask(1 - w.astype(m.dtype, copy=False)),
    Weight(lambda m, lo, hi, out, w: w), bound_attrs=("w",),
    cases=({"shapes": ((), ()), "attrs": {"w": np.array(0.25)}},
           {"shapes": ((4,), (4,)), "attrs": {"w": np.array([0.25, 0.0, 0.5, 0.875])}},
           {"shapes": ((2, 1), (2, 1)), "attrs": {"w": np.array([[0.4], [0.0]])}}),
    doc="lo + w * (hi - lo) at constant fractions w (quantile's linear interpolation)")


def _quantile_qs(q: Any) -> list[float]:
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise ValueError("quantile: q must be a 0-D or 1-D tensor")
        q = q._data.reshape(-1).tolist()
    elif isinstance(q, (int, float, np.number)) and not isinstance(q, bool):
        q = [q]
    elif isinstance(q, (list, tuple)):
        if not q:
            raise ValueError("quantile: q must not be empty")
    else:
        raise TypeError(f"quantile: q must be a float, a list of floats or a Tensor, got "
                        f"{type(q).__name__}")
    qs = [float(v._data if isinstance(v, Tensor) else v) for v in q]
    for v in qs:
        if not 0 <= v <= 1:
            raise ValueError(f"quantile: q must be in [0, 1], got {v}")
    return qs


def quantile(x: Tensor, q: Any, axis: Any = None, keepdim: bool = False,
             interpolation: str = "linear", name: str | None = None) -> Tensor:
    """The q-th quantile(s) over `axis` (None: all elements; an int; or a list of dims),
    Paddle's algorithm: sort (stable), index q * (n - 1), then interpolate between the
    neighbours ('linear', 'lower', 'higher', 'nearest' (half to even), 'midpoint'). A list
    of several q stacks the results along a new first dim; a one-element list gives the
    plain result. A group containing nan gives nan (its gradient goes to a nan element).
    The gradient goes to the sorted neighbours that were picked."""
    return _quantile(x, q, axis, keepdim, interpolation, ignore_nan=False)


def nanquantile(x: Tensor, q: Any, axis: Any = None, keepdim: bool = False,
                interpolation: str = "linear", name: str | None = None) -> Tensor:
    """quantile over the non-nan elements (nan sorts last, so they are the first
    `count` of each sorted group: index q * (count - 1)). An all-nan group gives nan, with
    its gradient on the group's first element (Paddle 3.3.1 splits it between the first and
    last from an index of -q)."""
    return _quantile(x, q, axis, keepdim, interpolation, ignore_nan=True)


def _quantile(x: Tensor, q: Any, axis: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    from .indexing import stack, take_along_axis
    from .search import sort
    from .shape import flatten, reshape, squeeze
    from .composites import moveaxis
    if not isinstance(x, Tensor):
        raise TypeError(f"quantile: x must be a Tensor, got {type(x).__name__}")
    qs = _quantile_qs(q)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"quantile: interpolation must be one of {_INTERPOLATIONS}, got "
                         f"{interpolation!r}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"quantile expects a float tensor, got {x.dtype.name}; cast it "
                        f"with .astype('float32')")
    dims = x.ndim
    out_shape = list(x.shape)

    def check(a: Any) -> int:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or \
                not -dims <= a < dims:
            raise ValueError(f"quantile: axis must be None, an int or a list of ints in "
                             f"[-{dims}, {dims}), got {axis!r}")
        return int(a) % dims
    if axis is None or (isinstance(axis, (list, tuple)) and not axis):
        xs, ax, out_shape = reshape(x, [-1]), 0, [1] * dims
    elif isinstance(axis, (list, tuple)):
        src = [check(a) for a in axis]
        for a in src:
            out_shape[a] = 1
        k = len(src)
        xs = moveaxis(x, src, list(range(dims - k, dims)))
        xs = flatten(xs, dims - k, dims - 1)
        ax = dims - k
    else:
        ax = check(axis)
        xs = x
        out_shape[ax] = 1
    d = xs._data
    dt = d.dtype.type
    last = d.shape[ax] - 1
    nan = np.isnan(d)
    if nan.any():
        valid = (~nan).sum(axis=ax, keepdims=True)
        has_nan = nan.any(axis=ax, keepdims=True)
    else:                               # (the common case: no group has nan)
        valid = np.full([1 if i == ax else n for i, n in enumerate(d.shape)], last + 1)
        has_nan = False
    ordered = sort(xs, ax)
    if ax == d.ndim - 1 and d.size:     # non-negative indices along the last axis
        def take_along_axis(t: Tensor, idx: np.ndarray, _: int) -> Tensor:
            return pick_rows(t, idx.reshape(-1, idx.shape[-1]), idx.shape)
    outs = []
    for qv in qs:
        if ignore_nan:
            index = np.where(valid > 0, dt(qv) * (valid - 1).astype(d.dtype), dt(0))
        else:
            index = np.where(has_nan, dt(last), dt(qv) * (valid - 1).astype(d.dtype))
        below = np.floor(index).astype(np.int64)
        upper = np.ceil(index).astype(np.int64)
        if interpolation == "nearest":
            ret = take_along_axis(ordered, np.round(index).astype(np.int64), ax)
        elif interpolation == "lower":
            ret = take_along_axis(ordered, below, ax)
        elif interpolation == "higher":
            ret = take_along_axis(ordered, upper, ax)
        else:
            lo = take_along_axis(ordered, below, ax)
            hi = take_along_axis(ordered, upper, ax)
            if interpolation == "midpoint":
                ret = (hi + lo) / 2.0
            else:
                ret = apply_xy(quantile_lerp_op, lo, hi,
                               {"w": (index - below).astype(d.dtype)})
        ret = reshape(ret, out_shape) if keepdim else squeeze(ret, axis=ax)
        outs.append(ret)
    return outs[0] if len(outs) == 1 else stack(outs, 0)
