"""Reductions: sum, mean, max, min (ties split the gradient equally, as Paddle does)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Callable

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from ..core.param_aliases import UNSET, dim_axis
from ..core.torch_kwargs import out_param
from .core import (apply_internal, apply_xy, checks_own_tensor_args, compiled_input,
                   compiled_kernels, const, norm_axis, remember, tensor_arg_error)
from .linear import IDENTITY, Chain, Recorded, linear, shaped
from .registry import SELECTS, OpDef, defop
from .shape import _broadcast, broadcast_op, reshape_op


def _kept_shape(shape: tuple, axes: tuple | None) -> tuple:
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _count(shape: tuple, axes: tuple | None) -> int:
    if axes is None:
        return math.prod(shape)
    return math.prod([shape[a] for a in axes])


def _spread(g: Tensor, x: Tensor, axes: tuple | None) -> Tensor:
    """g (reduced) broadcast back to x's shape, in jitgrad ops."""
    from .shape import broadcast_to, reshape_exact
    return broadcast_to(reshape_exact(g, _kept_shape(x._data.shape, axes)), x.shape)


def _spread_chain(n: Recorded, axes: tuple | None, k: float | None = None) -> Chain:
    """sum's transpose (_spread's steps): g reshaped to x's rank (kept axes of size 1),
    then broadcast to x's shape, times k."""
    x, kept = n.ins[0], _kept_shape(n.ins[0], axes)
    chain = IDENTITY.times(k)
    if n.out != kept:
        chain = chain.then(reshape_op, shape=kept)
    return chain if kept == x else chain.then(broadcast_op, shape=x)


def _sum_into(b, dest, src, axes, keepdim):
    """dest += sum(src, axes): broadcast_to's transpose, with keepdim."""
    b.reduce_into(shaped(dest, _kept_shape(src.shape, axes)), src)


REDUCE_CASES = tuple({"shapes": ((2, 3),), "attrs": a} for a in (
    {"axes": None, "keepdim": False}, {"axes": (1,), "keepdim": False},
    {"axes": (0,), "keepdim": True})) + ({"shapes": ((),), "attrs": {"axes": None,
                                                                      "keepdim": False}},)

# np.sum and np.mean go through numpy's Python wrappers (~1 us on a small array); the
# forwards call the ufunc reduction they end in, with the same arguments and rounding.
_add_reduce = np.add.reduce
_intp = np.intp
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_EXACT_COUNT = {_F32: 2 ** 24, _F64: 2 ** 53}      # the largest counts exact in each type

try:        # numpy >= 2.3: out=... makes a full reduction return a 0-d array, not a scalar
    _add_reduce(np.zeros(1), None, out=...)
    _ARRAY_OUT = True
except TypeError:                                   # pragma: no cover - older numpy
    _ARRAY_OUT = False


def _sum_forward(x: np.ndarray, axes: tuple | None, keepdim: bool) -> Any:
    if x.dtype == _F16:
        # Paddle sums float16 in float32 and rounds once; numpy's float16 reduction over a
        # non-inner axis rounds after each addition (50 x 0.1 over axis 0: 5.004, not 5.0)
        return np.asarray(_add_reduce(x, axes, _F32, None, keepdim)).astype(_F16)
    if axes is not None:
        out = _axis_sum(x, axes, keepdim)
        if out is not None:
            return out
    if _ARRAY_OUT:          # what np.sum(x, axes) runs, as an array (apply needs one)
        return _add_reduce(x, axes, out=..., keepdims=keepdim)
    return _add_reduce(x, axes, None, None, keepdim)        # pragma: no cover


def _axis_sum(x: np.ndarray, axes: tuple, keepdim: bool) -> np.ndarray | None:
    """add.reduce(x, axes) by vm/forward_reduce.py's axis_sums, bit for bit numpy's, where
    numpy runs its inner loop once per short row: a C-contiguous float32 / float64 x over a
    contiguous run of axes, viewed as [P, n, Q], where numpy's inner loop would run at least
    _MANY_ROWS times on rows of fewer than _SHORT elements, once Numba is loaded; else None
    (numpy's own call)."""
    if not x.flags.c_contiguous:       # (numpy's order for other layouts is its own)
        return None
    layout = _groups(x.shape, axes, keepdim)
    if layout is None:
        return None
    p, n, q, shape = layout
    # numpy's inner loop runs once per row of n (Q = 1) or of Q (else): the kernel only
    # where those rows are short and many (an axis of 1 numpy drops: a copy)
    if n == 1 or (n if q == 1 else q) >= _SHORT or (p if q == 1 else p * n) < _MANY_ROWS:
        return None
    found = compiled_input("forward_reduce", x)
    if found is None:
        return None
    kernels, x = found
    out = np.empty(shape, x.dtype)
    kernels.axis_sums(x.reshape(-1), out.reshape(-1), p, n, q)
    return out


_SHORT = 32         # (row length below which numpy's per-row loop calls dominate)
_MANY_ROWS = 16     # (fewer rows: numpy's few calls cost less than the kernel's call)


def _mean_forward(x: np.ndarray, axes: tuple | None, keepdim: bool) -> Any:
    """np.mean(x, axes).astype(x.dtype); native float32/float64 spelled out as numpy's _mean
    does (sum, then divide by the count as intp: float32 divides in float64, then rounds)."""
    dt = x.dtype
    if (dt is not _F32 and dt is not _F64) or x.size == 0:
        return np.mean(x, axis=axes, keepdims=keepdim).astype(dt)
    s = None if axes is None else _axis_sum(x, axes, keepdim)
    if s is None:
        s = _add_reduce(x, axes, None, None, keepdim)
    n = x.size if axes is None else math.prod([x.shape[a] for a in axes])
    if isinstance(s, np.ndarray):
        if n <= _EXACT_COUNT[dt]:
            # the count exact in x's type: dividing in it rounds as numpy's division in
            # float64 and rounding back does (53 >= 2 * 24 + 2 bits: the double rounding
            # is innocuous), without the float64 loop's casts (~1.5 us of a small mean)
            return np.true_divide(s, dt.type(n), out=s)
        return np.true_divide(s, _intp(n), out=s, casting="unsafe")
    return _zero_d(float(s) / n, dt)      # numpy's float64 division, as a Python float


def _spread_interp(scaled: bool) -> Callable:
    """sum's (mean's, `scaled`) rule on arrays: g at the kept shape, broadcast back to x's
    (times 1 / count): what the transpose's chain computes (reshape, broadcast, a multiply
    by the Python float), without making the chain for each node (node_transpose,
    _spread_chain: ~2 us of a small mean's ~4.5 us rule)."""
    def interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
        shape = node.inputs[0]._data.shape
        axes = node.attrs["axes"]
        spread = _broadcast(g.reshape(_kept_shape(shape, axes)), shape)
        if scaled:
            # (the Python float in g's type first: what numpy does with it, ~0.6 us less)
            k = 1.0 / builtins.max(_count(shape, axes), 1)
            _multiply(spread, spread.dtype.type(k), out=spread)
        return (spread,)
    return interp


_multiply = np.multiply

# sum and mean are linear (ops/linear.py): their transpose is a broadcast back (scaled).
sum_op = linear(
    "sum", grad_reads=(), forward=_sum_forward, cases=REDUCE_CASES, into=_sum_into,
    transpose=lambda n, axes, keepdim: _spread_chain(n, axes), interp=_spread_interp(False))

mean_op = linear(      # (not float16_exact: its gradient scales by 1 / n in its dtype)
    "mean", float16_exact=None, grad_reads=(), forward=_mean_forward, cases=REDUCE_CASES,
    transpose=lambda n, axes, keepdim: _spread_chain(
        n, axes, 1.0 / builtins.max(_count(n.ins[0], axes), 1)),
    interp=_spread_interp(True))


def _tie_mask(out: np.ndarray, x: np.ndarray, axes: tuple | None) -> np.ndarray:
    hit = x == out.reshape(_kept_shape(x.shape, axes))
    return (hit / hit.sum(axis=axes, keepdims=True)).astype(x.dtype)


def _tie_nan(dt: np.dtype) -> Any:
    """_tie_mask's weight in a group holding a NaN (nothing equals its NaN extreme): numpy's
    0 / 0 in float64, cast to dt, as its own bits."""
    with np.errstate(invalid="ignore"):
        return (np.zeros(1, np.bool_) / np.zeros(1, np.intp)).astype(dt)[0]


_TIE_NAN = {_F32: _tie_nan(_F32), _F64: _tie_nan(_F64)}

# (P, n, Q, out shape) by (shape, axes, keepdim): see _groups
_GROUPS: dict = {}


def _groups(shape: tuple, axes: tuple | None, keepdim: bool) -> tuple | None:
    """A reduction over `axes` (sorted, or None: all) of a non-empty array of `shape`
    (ndim >= 1) viewed as [P, n, Q], the reduced axes a contiguous run of n elements,
    with the output's shape; None for an empty or 0-d array or axes with a gap."""
    key = (shape, axes, keepdim)
    found = _GROUPS.get(key, False)
    if found is False:
        found = None
        ndim = len(shape)
        lo, hi = (0, ndim) if axes is None else (axes[0], axes[-1] + 1)
        if ndim and math.prod(shape) and (axes is None or axes == tuple(range(lo, hi))):
            out = _kept_shape(shape, axes) if keepdim else tuple(
                [s for i, s in enumerate(shape) if axes is not None and i not in axes])
            found = (math.prod(shape[:lo]), math.prod(shape[lo:hi]), math.prod(shape[hi:]),
                     out)
        remember(_GROUPS, key, found, 1024)
    return found


def _extreme_forward(x: np.ndarray, axes: tuple | None, keepdim: bool, is_max: bool
                     ) -> tuple | None:
    """(out, (weights,)): max's (min's) output and _tie_mask's weights in one compiled pass
    (vm/forward_reduce.py's extreme: ~2 us for 32 x 64 float32, where numpy's max and
    _tie_mask took ~3 and ~10), bit for bit numpy's: for a C-contiguous float32 / float64
    x reduced over a contiguous run of axes (or all), once Numba is loaded; else None.
    Where numpy's output depends on its SIMD order (a NaN, a tie of +0 and -0) the
    output is numpy's own."""
    if not x.flags.c_contiguous:
        return None
    layout = _groups(x.shape, axes, keepdim)
    if layout is None:
        return None
    found = compiled_input("forward_reduce", x)
    if found is None:
        return None
    kernels, x = found
    p, n, q, shape = layout
    dt = x.dtype
    out = np.empty(shape, dt)
    w = np.empty(x.shape, dt)
    if kernels.extreme(x, out.reshape(-1), w, p, n, q, is_max, _TIE_NAN[dt]):
        out = np.asarray((np.max if is_max else np.min)(x, axis=axes, keepdims=keepdim))
    return out, (w,)


def _max_forward(x: np.ndarray, axes: tuple | None, keepdim: bool) -> tuple | None:
    return _extreme_forward(x, axes, keepdim, True)


def _min_forward(x: np.ndarray, axes: tuple | None, keepdim: bool) -> tuple | None:
    return _extreme_forward(x, axes, keepdim, False)


def _lower_extreme(b, node, g, gins):
    x = node.inputs[0]._data
    b.spread_mul(gins[0], g, b.value(node.saved[0]), _kept_shape(x.shape, node.attrs["axes"]),
                 x.shape)


def _lower_selected(b, node, g, gins):
    """_lower_extreme's product into a temporary, then RELU_BWD keeps it where the weight
    is > 0 (0 elsewhere, whatever g holds)."""
    x = node.inputs[0]._data
    w = b.value(node.saved[0])
    tmp = b.alloc(x.shape)
    b.spread_mul(tmp, g, w, _kept_shape(x.shape, node.attrs["axes"]), x.shape)
    b.emit("RELU_BWD", gins[0], tmp, w)


def weighted_reduction(name: str, forward: Callable, weights: Callable,
                       forward_saves: bool = False, smooth: Callable | None = None,
                       select: bool = False, **extra: Any) -> OpDef:
    """A reduction whose gradient is g spread back over the reduced axes times a weight per
    element, `weights(out, x, **attrs)` (x's shape): max's and min's tie-split masks,
    median's middle elements, var's scaled deviations, logsumexp's softmax. Written once as
    that function: the forward saves it (or returns it, with `forward_saves`), the compiled
    backward is one GATHER_MUL. The eager rule multiplies by it as a constant when it is
    constant in x wherever differentiable (its derivative being zero, higher orders stay
    exact); weights that vary with x give `smooth(out, x, **attrs)`, the same weights in
    jitgrad ops, so that create_graph differentiates through them.
    `select`: the weights pick elements (max's, median's: >= 0, and 0 exactly where the
    output does not depend on the element), so an element of weight 0 gets 0 whatever g
    is, an inf or NaN too (a product would give NaN): a GATHER_MUL, then a RELU_BWD."""
    def save(out: np.ndarray, x: np.ndarray, **attrs: Any) -> tuple:
        return (weights(out, x, **attrs),)

    def vjp(g: Tensor, out: Tensor, x: Tensor, **attrs: Any) -> tuple:
        if smooth is not None:
            return (_spread(g, x, attrs["axes"]) * smooth(out, x, **attrs),)
        w = weights(out._data, x._data, **attrs)
        product = _spread(g, x, attrs["axes"]) * const(w, x._data.dtype)
        if not select:
            return (product,)
        from .elementwise import where
        return (where(w > 0, product, const(np.zeros((), x._data.dtype), x._data.dtype)),)

    def interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
        x = node.inputs[0]._data
        g, w = g.reshape(_kept_shape(x.shape, node.attrs["axes"])), node.saved[0]
        if not select:
            return (g * w,)
        return (np.multiply(g, w, out=np.zeros(x.shape, w.dtype), where=w > 0),)

    return defop(name, forward=forward, save=None if forward_saves else save, vjp=vjp,
                 lower=_lower_selected if select else _lower_extreme,
                 forward_saves=forward_saves, weights=weights, interp=interp, **extra)


EXTREME_CASES = REDUCE_CASES + ({"shapes": ((4,),), "attrs": {"axes": None, "keepdim": False},
                                 "values": [[1.0, 3.0, 3.0, -1.0]]},)

max_op = weighted_reduction(
    "max", lambda x, axes, keepdim: np.max(x, axis=axes, keepdims=keepdim),
    lambda out, x, axes, keepdim: _tie_mask(out, x, axes), cases=EXTREME_CASES,
    float16_exact=SELECTS)

min_op = weighted_reduction(
    "min", lambda x, axes, keepdim: np.min(x, axis=axes, keepdims=keepdim),
    lambda out, x, axes, keepdim: _tie_mask(out, x, axes), cases=EXTREME_CASES,
    float16_exact=SELECTS)


def _reduce(op, x: Tensor, axis: Any, keepdim: bool, fused: Callable | None = None
            ) -> Tensor:
    """Record `op` over `axis`. `fused(x, axes, keepdim)`: the output and saves in one pass
    (or None: the op's forward and save), tried when the node will be recorded."""
    attrs = reduce_attrs(x, axis, keepdim)
    if attrs is not None:
        if fused is not None and not x._stop_gradient and _MODE.grad_enabled:
            found = fused(x._data, attrs["axes"], keepdim)
            if found is not None:
                return apply_xy(op, x, None, attrs, found[0], found[1])
        return apply_xy(op, x, None, attrs)
    if not isinstance(keepdim, bool):
        raise TypeError(f"keepdim must be a bool, got {keepdim!r}")
    axes = norm_axis(axis, x.ndim)
    return apply_internal(op, x, axes=None if x.ndim == 0 else axes, keepdim=keepdim)


def reduce_attrs(x: Tensor, axis: Any, keepdim: Any) -> dict | None:
    """A reduction's node attributes {"axes": sorted axes or None, "keepdim"} for the common
    arguments (axis None, an int or a list / tuple of ints; keepdim a bool), checked once
    and shared (never written: core.NO_ATTRS); None for any other (the caller's norm_axis
    checks them)."""
    if type(keepdim) is not bool:
        return None
    kind = type(axis)
    if kind is int:                 # sum(x, -1), mean(x, [2, 3]): made once
        plain = axis
    elif (kind is list or kind is tuple) and all([type(a) is int for a in axis]):
        plain = tuple(axis)
    elif axis is None:
        return _ALL_KEPT if keepdim else _ALL_AXES
    else:
        return None
    key = (plain, len(x._data.shape), keepdim)
    attrs = _AXIS_ATTRS.get(key)
    if attrs is None:
        attrs = _axis_attrs(key, axis, keepdim)
    return attrs


_MODE = tape.MODE


def _zero_d(v: float, dt: np.dtype) -> np.ndarray:
    """The 0-d array of `v` rounded to dt, as np.array(v, dtype=dt) makes it, in half its
    time (~0.25 of ~0.5 us: every full mean makes one)."""
    a = _empty((), dt)
    a[()] = v
    return a


_empty = np.empty


# The attributes of reductions over plain int axes, by (axis or tuple of axes, ndim,
# keepdim): shared dicts, never written (core.NO_ATTRS)
_AXIS_ATTRS: dict = {}
_AXIS_ATTRS_MAX = 4096


def _axis_attrs(key: tuple, axis: Any, keepdim: bool) -> dict:
    """A reduction's attributes for `key`, checked (norm_axis raises) and kept."""
    ndim = key[1]
    axes = norm_axis(axis, ndim)
    return remember(_AXIS_ATTRS, key, {"axes": None if ndim == 0 else axes, "keepdim": keepdim},
                    _AXIS_ATTRS_MAX)


# The attributes of every full reduction's node (one dict, never written: see core.NO_ATTRS).
_ALL_AXES = {"axes": None, "keepdim": False}
_ALL_KEPT = {"axes": None, "keepdim": True}


@checks_own_tensor_args
def sum(x: Tensor, axis: Any = None, dtype: Any = None, keepdim: bool = False,
        name: str | None = None, *, dim: Any = UNSET, out: Tensor | None = None) -> Tensor:
    """Sum over `axis` (all axes by default, giving a 0-d tensor). dim=, out=: Paddle
    3.x's torch-style keywords, read here: `x.sum()` ends most losses, and the alias
    wrapper's call layer cost ~0.25 us of its ~2."""
    if dim is not UNSET or out is not None:
        return out_param("sum", out, sum(x, dim_axis("sum", axis, dim), dtype, keepdim))
    if not isinstance(x, Tensor):
        raise tensor_arg_error("sum", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
        if x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
            return _int_sum(x, axis, keepdim)       # (the dtype asked for, as Paddle)
    elif x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
        x = Tensor._make(x._data.astype(np.int64))      # (uint8 too: Paddle's wraps)
    if axis is None and keepdim is False:       # the common case: _reduce's checks hold
        d = x._data
        if d.size >= _LARGE_SUM:
            total = _large_sum(d)
            if total is not None:
                return apply_xy(sum_op, x, None, _ALL_AXES, total)
        if _ARRAY_OUT and d.dtype != _F16:     # _sum_forward, called directly
            return apply_xy(sum_op, x, None, _ALL_AXES, _add_reduce(d, None, out=...))
        return apply_xy(sum_op, x, None, _ALL_AXES)     # pragma: no cover - older numpy
    return _reduce(sum_op, x, axis, keepdim)


# from this size the kernel's call (~0.4 us) costs less than numpy's reduce saves
# (float32, 2026-12-07: 4096 elements 1.60 -> 1.39 us, 16384 3.42 -> 2.52, 65536 10.6 -> 7.0)
_LARGE_SUM = 1 << 12


def _large_sum(d: np.ndarray) -> np.ndarray | None:
    """numpy's full add.reduce of a large C-contiguous float32/float64 d as a 0-d array, by
    vm/forward.py's pairwise_sum (numpy's pairwise sum, its leaves eight lanes at a time:
    1M float32 0.15 -> ~0.05 ms), plus numpy's starting 0 (a sum of -0.0 is +0.0); None
    (numpy's reduce) for other arrays, before Numba is loaded, and for a NaN total, whose
    sign and payload depend on the order numpy's compiled code takes two NaNs in."""
    if (d.dtype is not _F32 and d.dtype is not _F64) or not d.flags.c_contiguous:
        return None
    kernels = compiled_kernels("forward")
    if kernels is None:
        return None
    total = 0.0 + kernels.pairwise_sum(d.reshape(-1))
    return None if total != total else np.array(total, d.dtype)


def _int_sum(x: Tensor, axis: Any, keepdim: bool) -> Tensor:
    """sum(x, dtype=...) for an int dtype narrower than int64: in that dtype, wrapping as
    Paddle's (no gradient); summed in int64, then cast (the same bits modulo the width)."""
    wide = sum(Tensor._make(x._data.astype(np.int64)), axis, None, keepdim)
    return Tensor._make(wide._data.astype(x._data.dtype))


@checks_own_tensor_args
def mean(x: Tensor, axis: Any = None, keepdim: bool = False,
         name: str | None = None, *, dtype: Any = None, dim: Any = UNSET,
         out: Tensor | None = None) -> Tensor:
    """The mean over `axis` (all axes by default); dtype casts x first (Paddle 3.x).
    dim=, out=: as sum's."""
    if dim is not UNSET or out is not None:
        return out_param("mean", out, mean(x, dim_axis("mean", axis, dim), keepdim,
                                           dtype=dtype))
    if not isinstance(x, Tensor):
        raise tensor_arg_error("mean", "x", x)
    if dtype is not None:
        from .elementwise import astype
        x = astype(x, dtype)
    if x._data.dtype.kind != "f":
        raise TypeError(f"mean expects a float tensor, got {x.dtype.name}")
    if axis is None and keepdim is False:
        d = x._data
        if (d.dtype is _F32 or d.dtype is _F64) and d.size:
            # (_mean_forward's full reduction, called directly: the numpy sum, then the
            # float64 division as a Python float, rounded once to x's dtype)
            total = _large_sum(d) if d.size >= _LARGE_SUM else None
            if total is None:
                total = _add_reduce(d, None)
            return apply_xy(mean_op, x, None, _ALL_AXES, _zero_d(float(total) / d.size, d.dtype))
        return apply_xy(mean_op, x, None, _ALL_AXES)
    return _reduce(mean_op, x, axis, keepdim)


def max(x: Tensor, axis: Any = None, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Largest value; tied maxima share the gradient equally."""
    if x._data.size == 0:
        _check_nonempty_groups(x, axis, "max")
    return _reduce(max_op, x, axis, keepdim, _max_forward)


def min(x: Tensor, axis: Any = None, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    if x._data.size == 0:
        _check_nonempty_groups(x, axis, "min")
    return _reduce(min_op, x, axis, keepdim, _min_forward)


def _check_nonempty_groups(x: Tensor, axis: Any, what: str) -> None:
    """A max or min of nothing has no value; over a non-empty axis of a 0-size tensor
    ([0, 3] along axis 1) the result is just empty."""
    axes = norm_axis(axis, x.ndim)
    if axes is None or builtins.any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"{what} over an empty axis of a tensor of shape {list(x.shape)} "
                         f"has no value")
