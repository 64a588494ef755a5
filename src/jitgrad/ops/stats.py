"""Statistics over axes: prod and median (registry entries), and composites logsumexp, var,
std, norm, amax, amin, nansum, nanmean built from registry ops so their gradients (and double
grads) come for free."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..lower import broadcast_index
from ..tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import apply, const, norm_axis, require_float
from .reduce import REDUCE_CASES, _kept_shape, _spread
from .registry import defop


def _others_product(x: np.ndarray, axes: tuple | None) -> np.ndarray:
    """For each element, the product of the other elements of its reduction group.

    Exclusive prefix and suffix products: exact where x has zeros, unlike out / x.
    """
    axes = tuple(range(x.ndim)) if axes is None else axes
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = np.transpose(x, perm)
    flat = xt.reshape(int(np.prod(xt.shape[:len(keep)], dtype=np.int64)), -1)
    ones = np.ones((flat.shape[0], 1), x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[:, :-1]], axis=1), axis=1)
    right = np.cumprod(np.concatenate([ones, flat[:, :0:-1]], axis=1), axis=1)[:, ::-1]
    return np.transpose((left * right).reshape(xt.shape), np.argsort(perm)).astype(x.dtype)


def _prod_vjp(g, out, x, axes, keepdim):
    spread = _spread(g, x, axes)
    if np.all(x._data != 0):
        return (spread * _spread(out, x, axes) / x,)
    return (spread * _others_tensor(x, axes),)


def _others_tensor(x: Tensor, axes: tuple | None) -> Tensor:
    """_others_product in jitgrad ops, differentiable at zeros: each group of K elements
    becomes a K x K matrix with ones on the diagonal, and prod runs along its rows."""
    from .shape import broadcast_to, reshape, transpose, unsqueeze
    axes = tuple(range(x.ndim)) if axes is None else axes
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = transpose(x, perm) if perm != list(range(x.ndim)) else x
    lead = [x.shape[i] for i in keep]
    k = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = broadcast_to(unsqueeze(reshape(xt, lead + [k]), -2), lead + [k, k])
    eye = np.broadcast_to(np.eye(k, dtype=bool), tuple(lead) + (k, k))
    others = prod(E.where(Tensor._make(eye), 1.0, rows), axis=-1)
    others = reshape(others, [x.shape[i] for i in perm])
    return transpose(others, [int(i) for i in np.argsort(perm)]) if perm != \
        list(range(x.ndim)) else others


def _lower_prod(b, node, g, gins):
    x = node.inputs[0]._data
    idx = broadcast_index(_kept_shape(x.shape, node.attrs["axes"]), x.shape)
    b.emit("GATHER_MUL", gins[0], g, b.value(node.saved[0]), p=b.table(idx))


prod_op = defop(
    "prod", baked=None, forward=lambda x, axes, keepdim: np.prod(x, axis=axes, keepdims=keepdim),
    save=lambda out, x, axes, keepdim: (_others_product(x, axes),),
    vjp=_prod_vjp, lower=_lower_prod, domain=(0.5, 1.5),
    cases=REDUCE_CASES + ({"shapes": ((3,),), "attrs": {"axes": None, "keepdim": False},
                           "values": [[2.0, 0.0, 3.0]], "smooth": True},
                          {"shapes": ((2, 3),), "attrs": {"axes": (1,), "keepdim": True},
                           "values": [[[0.0, 0.0, 3.0], [1.5, 0.0, 0.5]]], "smooth": True}))


def prod(x: Tensor, axis: Any = None, keepdim: bool = False, dtype: Any = None,
         name: str | None = None) -> Tensor:
    """Product over `axis`; the gradient is exact where x has zeros."""
    if dtype is not None:
        x = x.astype(dtype)
    return R._reduce(prod_op, x, axis, keepdim)


def _restore(y: Tensor, x: Tensor, axes: tuple | None, keepdim: bool) -> Tensor:
    """y computed with keepdim=True, reshaped to what keepdim asks for."""
    if keepdim:
        return y
    from .shape import reshape
    shape = [] if axes is None else [s for i, s in enumerate(x.shape) if i not in axes]
    return reshape(y, shape)


def logsumexp(x: Tensor, axis: Any = None, keepdim: bool = False,
              name: str | None = None) -> Tensor:
    """log(sum(exp(x))) without overflow (the max is subtracted as a constant)."""
    require_float(x, "logsumexp")
    axes = norm_axis(axis, x.ndim)
    m = np.max(x._data, axis=axes, keepdims=True) if x.size else np.zeros(())
    m = np.where(np.isfinite(m), m, 0).astype(x._data.dtype)
    mc = const(m, x._data.dtype)
    y = E.log(R.sum(E.exp(x - mc), axis=axes, keepdim=True)) + mc
    return _restore(y, x, axes, keepdim)


def var(x: Tensor, axis: Any = None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Variance; unbiased=True divides by n - 1 (Paddle's default)."""
    require_float(x, "var")
    axes = norm_axis(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes] if axes is not None else x.shape,
                    dtype=np.int64))
    d = x - R.mean(x, axis=axes, keepdim=True)
    return R.sum(d * d, axis=axes, keepdim=keepdim) / float(builtins.max(n - int(unbiased), 1))


def std(x: Tensor, axis: Any = None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    return E.sqrt(var(x, axis, unbiased, keepdim))


def amax(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
         ) -> Tensor:
    """Largest value; tied maxima share the gradient equally (as max does here)."""
    return R.max(x, axis, keepdim)


def amin(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
         ) -> Tensor:
    return R.min(x, axis, keepdim)


def vector_norm(x: Tensor, p: Any = 2.0, axis: Any = None, keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """Vector p-norm over `axis` (all elements by default): p = 2, 1, inf, -inf, 0 or any
    positive float. The 2-norm's gradient at the zero vector is nan (as in Paddle)."""
    require_float(x, "norm")
    axes = norm_axis(axis, x.ndim)
    if isinstance(p, str):
        raise ValueError(f"vector norm: p must be a number, got {p!r} ('fro' and 'nuc' are "
                         f"matrix norms: pass two axes)")
    p = float(p)
    if p == 2:
        return E.sqrt(R.sum(x * x, axis=axes, keepdim=keepdim))
    if p == np.inf:
        return R.max(E.abs(x), axes, keepdim)
    if p == -np.inf:
        return R.min(E.abs(x), axes, keepdim)
    if p == 0:
        return R.sum(const(x._data != 0, x._data.dtype), axes, keepdim=keepdim)
    if p == 1:
        return R.sum(E.abs(x), axis=axes, keepdim=keepdim)
    return R.sum(E.abs(x) ** p, axis=axes, keepdim=keepdim) ** (1.0 / p)


def matrix_norm(x: Tensor, p: Any = "fro", axis: Any = (-2, -1), keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """Matrix norm over the two axes (rows, columns): 'fro'; 1 / -1 the largest / smallest
    absolute column sum; inf / -inf the largest / smallest absolute row sum. Ties in the
    max / min share the gradient. The singular-value norms (2, -2, 'nuc') are not
    implemented: they raise rather than give a gradient without its second order."""
    require_float(x, "matrix_norm")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if len(axes) != 2:
        raise ValueError(f"matrix_norm: axis must name two dims, got {axis!r}")
    r, c = (norm_axis(a, x.ndim)[0] for a in axes)
    if r == c:
        raise ValueError(f"matrix_norm: axis {axis!r} names the same dim twice")
    if p == "fro":
        return E.sqrt(R.sum(x * x, axis=[r, c], keepdim=keepdim))
    if p in ("nuc", 2, -2) or p == 2.0 or p == -2.0:
        raise NotImplementedError(f"matrix_norm: p={p!r} needs singular values, which "
                                  f"jitgrad does not differentiate yet; use 'fro', 1 or inf")
    if isinstance(p, str) or float(p) not in (1.0, -1.0, np.inf, -np.inf):
        raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                         f"got {p!r}")
    p = float(p)
    inner, outer = (r, c) if abs(p) == 1 else (c, r)   # 1: column sums; inf: row sums
    sums = R.sum(E.abs(x), axis=inner, keepdim=True)
    pick = R.max if p > 0 else R.min
    y = pick(sums, outer, True)
    if keepdim:
        return y
    from .shape import reshape
    return reshape(y, [s for i, s in enumerate(x.shape) if i not in (r, c)])


def norm(x: Tensor, p: Any = None, axis: Any = None, keepdim: bool = False,
         name: str | None = None) -> Tensor:
    """Paddle 3.x's norm: axis None or one int gives a vector norm (over all elements when
    None; p None or 'fro' mean 2), two axes a matrix norm (p None means 'fro'); see
    vector_norm and matrix_norm."""
    if isinstance(axis, (list, tuple)):
        if len(axis) == 1:
            axis = axis[0]
        elif len(axis) != 2:
            raise ValueError(f"norm: axis must be None, an int or two ints, got {axis!r}")
    if isinstance(axis, (list, tuple)):
        return matrix_norm(x, "fro" if p is None else p, axis, keepdim)
    return vector_norm(x, 2.0 if p is None or p == "fro" else p, axis, keepdim)


def nansum(x: Tensor, axis: Any = None, dtype: Any = None, keepdim: bool = False,
           name: str | None = None) -> Tensor:
    """Sum over `axis` with nan counted as zero; nan elements get a zero gradient. Int
    tensors sum to int64, as sum does; `dtype` casts first. Bool tensors are refused (as
    in Paddle, which has no isnan for them)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nansum: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype == np.bool_:
        raise TypeError("nansum: bool tensors are not supported; cast with .astype('int64')")
    if dtype is not None:
        x = x.astype(dtype)
    if x._data.dtype.kind == "f":
        nan = np.isnan(x._data)
        if nan.any():
            x = E.where(Tensor._make(nan), 0.0, x)
    return R.sum(x, axis=axis, keepdim=keepdim)


def nanmean(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
            ) -> Tensor:
    """Mean over `axis` of the elements that are not nan; nan where all of them are (with a
    zero gradient there, as Paddle). Int tensors give float32."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nanmean: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        if x._data.dtype == np.bool_:
            raise TypeError("nanmean: bool tensors are not supported; cast with "
                            ".astype('float32')")
        x = Tensor._make(x._data.astype(np.float32))
    axes = norm_axis(axis, x.ndim)
    count = np.sum(~np.isnan(x._data), axis=axes, keepdims=keepdim)
    total = nansum(x, axis=axes, keepdim=keepdim)
    mean = total / const(np.maximum(count, 1), x._data.dtype)
    if (count == 0).any():
        mean = E.where(Tensor._make(np.asarray(count == 0)), np.nan, mean)
    return mean


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
                    ignore_nan: bool = False) -> np.ndarray:
    axis = None if axes is None else axes[0]
    if x.size == 0:
        return np.full(_kept_shape(x.shape, axes) if keepdim else
                       [s for i, s in enumerate(x.shape) if axes is not None and i != axis],
                       np.nan, x.dtype)
    val = _median_rows(_as_rows(x, axis), mode, ignore_nan)[0]
    kept = _kept_shape(x.shape, axes)
    return val.reshape(kept if keepdim else [s for i, s in enumerate(x.shape)
                                               if axes is not None and i != axis])


def _median_weights(out: np.ndarray, x: np.ndarray, axes: tuple | None, keepdim: bool,
                    mode: str, ignore_nan: bool = False) -> tuple[np.ndarray]:
    """Where Paddle's median gradient goes. With an axis and mode 'min': all of it to the
    returned index. Otherwise evenly: the two middle elements take the (avg) median value,
    then every element equal to the median shares the gradient equally (nan equal to nan)."""
    axis = None if axes is None else axes[0]
    if x.size == 0:
        return (np.zeros_like(x),)
    rows = _as_rows(x, axis)
    val, lo_i, hi_i = _median_rows(rows, mode, ignore_nan)
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


median_op = defop(
    "median", baked=None, forward=_median_forward, save=_median_weights,
    vjp=lambda g, out, x, axes, keepdim, mode, ignore_nan: (
        _spread(g, x, axes) * const(_median_weights(out._data, x._data, axes, keepdim,
                                                    mode, ignore_nan)[0], x._data.dtype),),
    lower=R._lower_extreme,
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
    if mode == "avg" and not ignore_nan and x._data.dtype != np.float64:
        x = x.astype("float32")
    attrs = {"axes": axes, "keepdim": keepdim, "mode": mode, "ignore_nan": ignore_nan}
    if x._data.dtype.kind == "f":
        out = apply(median_op, x, **attrs)
    else:
        out = Tensor._make(_median_forward(x._data, **attrs))
    if mode == "min" and axis is not None:
        rows = _as_rows(x._data, None if axes is None else axes[0]) if x.size else None
        idx = np.zeros(out._data.shape, np.int64) if rows is None else \
            _median_rows(rows, mode, ignore_nan)[1].reshape(out._data.shape)
        return out, Tensor._make(idx.astype(np.int64))
    return out


def median(x: Tensor, axis: int | None = None, keepdim: bool = False, mode: str = "avg",
           name: str | None = None) -> Any:
    """Paddle's median. mode 'avg' averages the two middle elements of an even count and
    gives float32 (float64 stays float64); mode 'min' takes the lower one in x's dtype, and
    with an axis returns (values, int64 indices). A group with nan has median nan.

    Gradients as Paddle's: with an axis and mode 'min' all to the returned index; otherwise
    shared equally by the elements equal to the median (ties split), and for an even count
    with two different middle values, half to each. Where such a middle value is tied,
    Paddle's choice among the tied elements follows its top-k order; here the first one is
    taken (the value is the same)."""
    return _median(x, axis, keepdim, mode, ignore_nan=False)


def nanmedian(x: Tensor, axis: int | None = None, keepdim: bool = False, mode: str = "avg",
              name: str | None = None) -> Any:
    """median with the nans left out; an all-nan group gives nan (with mode 'min' and an
    axis, index -1). Unlike median, x keeps its dtype (an int 'avg' rounds toward zero, as
    Paddle). Gradients as median's: the elements equal to the result share it, and for an
    all-nan group its nans share it."""
    return _median(x, axis, keepdim, mode, ignore_nan=True)


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


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
    from .indexing import stack, take_along_axis
    from .search import sort
    from .shape import flatten, reshape, squeeze
    from .more import moveaxis
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
    nan = np.isnan(d)
    valid = (~nan).sum(axis=ax, keepdims=True)
    has_nan = nan.any(axis=ax, keepdims=True)
    last = d.shape[ax] - 1
    ordered = sort(xs, ax)
    outs = []
    for qv in qs:
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
                w = const((index - below).astype(d.dtype), d.dtype)
                ret = lo + w * (hi - lo)
        ret = reshape(ret, out_shape) if keepdim else squeeze(ret, axis=ax)
        outs.append(ret)
    return outs[0] if len(outs) == 1 else stack(outs, 0)
