"""Running sums and products along an axis. cumsum is one compiled kernel (CUMSUM, both
directions); its gradient is the reverse cumsum, so the rule is its own double grad.
cumprod's gradient is a first-order linear recurrence (LINSCAN), exact at zeros."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from .core import apply, apply_xy, compiled_input, compiled_kernels, remember, require_float
from .linear import linear, step
from .registry import defop


def _layout(shape: tuple, axis: int, reverse: bool) -> list[int]:
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1:])
    return [outer, shape[axis], inner, int(reverse)]


def _cumsum_np(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis).copy()
    return np.cumsum(x, axis=axis, dtype=x.dtype)


_SCAN_LAYOUTS: dict = {}      # (shape, axis) -> (P, n, Q): the array viewed as [P, n, Q]


def _cumsum_forward(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """_cumsum_np's values; for a non-empty C-contiguous float32 / float64 x, in one compiled
    pass once Numba is loaded (vm/forward_reduce.py's cumsum_scan: numpy's sequential sums
    in x's dtype, bit for bit; ~1 us for 32 x 64 float32 along its rows, where np.cumsum
    took ~8)."""
    if x.flags.c_contiguous and x.size:
        found = compiled_input("forward_reduce", x)
        if found is not None:
            kernels, x = found
            shape = x.shape
            key = (shape, axis)
            layout = _SCAN_LAYOUTS.get(key)
            if layout is None:
                layout = remember(_SCAN_LAYOUTS, key, _layout(shape, axis, False)[:3], 1024)
            out = np.empty(shape, x.dtype)
            kernels.cumsum_scan(x, out, layout[0], layout[1], layout[2], reverse)
            return out
    return _cumsum_np(x, axis, reverse)


def _cumsum_into(b, dest, src, axis, reverse):
    """dest += cumsum(src) along axis (the CUMSUM kernel runs either direction)."""
    b.emit("CUMSUM", dest, src, p=b.table(_layout(src.shape, axis, reverse)))


SCAN_CASES = tuple({"shapes": (s,), "attrs": {"axis": ax, "reverse": r}}
                   for s, ax, r in (((5,), 0, False), ((2, 3, 2), 1, False), ((2, 3), 0, True),
                                    ((1, 4), 1, False), ((4, 1), 0, False)))

# linear (ops/linear.py): its transpose is the cumsum in the other direction; not
# float16_exact (numpy's float16 running sum rounds at each step)
cumsum_op = linear(
    "cumsum", float16_exact=None, forward=_cumsum_forward, into=_cumsum_into,
    cases=SCAN_CASES, min_ndim=1,
    transpose=lambda n, axis, reverse: step(cumsum_op, axis=axis, reverse=not reverse))


def _shift_np(x: np.ndarray, axis: int, later: bool, fill: float) -> np.ndarray:
    """y[k] = x[k - 1] (later) or x[k + 1] along axis; `fill` where that falls outside."""
    y = np.full_like(x, fill)
    src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    src[axis], dst[axis] = (slice(0, -1), slice(1, None)) if later else \
        (slice(1, None), slice(0, -1))
    y[tuple(dst)] = x[tuple(src)]
    return y


def _shift(x: Tensor, axis: int, later: bool, fill: float = 0.0) -> Tensor:
    """_shift_np in Tensor ops (slice, then pad by one), differentiable."""
    from .indexing import pad
    from .shape import getitem
    n = x.shape[axis]
    key = [slice(None)] * x.ndim
    key[axis] = slice(0, n - 1) if later else slice(1, n)
    widths = [0] * (2 * x.ndim)
    widths[2 * axis + (0 if later else 1)] = 1
    return pad(getitem(x, tuple(key)), widths, value=fill)


# ---- linscan: r = a, then r = a + b * r along an axis --------------------------------------
# The gradient of cumprod without dividing by x (exact where x has zeros):
#   out_k = prod_{i<=k} x_i,  gx_k = sum_{j>=k} g_j prod_{i<=j, i!=k} x_i = E_k * r_k
# with E_k = out_{k-1} (1 at k = 0) and r_k = g_k + x_{k+1} r_{k+1}, a reverse linscan.
# linscan's own adjoint is a linscan in the other direction, so every order stays exact.

def _linscan_np(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    a_, b_ = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    r = np.empty_like(a_)
    n = a_.shape[0]
    prev = -1
    for t in (range(n - 1, -1, -1) if reverse else range(n)):
        r[t] = a_[t] if prev < 0 else a_[t] + b_[t] * r[prev]
        prev = t
    return np.ascontiguousarray(np.moveaxis(r, 0, axis))


def _linscan_arrays(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """_linscan_np's values by the LINSCAN kernel the lowered rows run, once Numba is
    loaded (numpy's loop takes three calls a step along the axis); the same operations
    either way, so the same bits."""
    kernels = compiled_kernels("forward") if a.size and a.dtype == b.dtype and \
        a.dtype.char in "fd" else None
    if kernels is None:
        return _linscan_np(a, b, axis, reverse)
    outer, length, inner, _ = _layout(a.shape, axis, reverse)
    out = np.empty(a.shape, a.dtype)
    kernels.linscan(out.reshape(-1), np.ascontiguousarray(a).reshape(-1),
                    np.ascontiguousarray(b).reshape(-1), outer, length, inner, reverse)
    return out


def _linscan_interp(node, h, want):
    """The interpreted rule (a new structure's first backward): _lower_linscan's rows on
    arrays, where the vjp shifted b and r again in Tensor ops."""
    a = node.attrs
    lam = _linscan_arrays(np.asarray(h), node.saved[0], a["axis"], not a["reverse"])
    return (lam if want[0] else None, lam * node.saved[1] if want[1] else None)


def _linscan_vjp(h, r, a, b, axis, reverse):
    lam = apply(linscan_op, h, _shift(b, axis, later=reverse), axis=axis, reverse=not reverse)
    return lam, lam * _shift(r, axis, later=not reverse)


def _save_linscan(r, a, b, axis, reverse):
    """The shifted multipliers and the shifted output the compiled backward reads."""
    return _shift_np(b, axis, reverse, 0.0), _shift_np(r, axis, not reverse, 0.0)


def _lower_linscan(b, node, g, gins):
    """lam = LINSCAN(g, shifted b) in the other direction; ga += lam, gb += lam * shifted r."""
    a = node.attrs
    shape, (ax, rev) = node.out_data.shape, (a["axis"], a["reverse"])
    lam = b.alloc(shape)
    b.emit("LINSCAN", lam, g, b.value(node.saved[0]), p=b.table(_layout(shape, ax, not rev)),
           acc=False)
    if gins[0] is not None:
        b.emit("AXPY", gins[0], lam)
    if gins[1] is not None:
        b.emit("MUL", gins[1], lam, b.value(node.saved[1]))


linscan_op = defop(
    "linscan",
    fused="a fused linear recurrence (bilinear in its inputs)",
    forward=_linscan_np, save=_save_linscan, vjp=_linscan_vjp,
    lower=_lower_linscan, interp=_linscan_interp, nin=2, min_ndim=1,
    cases=tuple({"shapes": (s, s), "attrs": {"axis": ax, "reverse": r}}
                for s, ax, r in (((5,), 0, False), ((2, 3, 2), 1, True), ((4, 1), 0, False),
                                 ((1, 4), 1, True))))


def _cumprod_vjp(g, out, x, axis, reverse):
    r = apply(linscan_op, g, _shift(x, axis, later=reverse), axis=axis, reverse=not reverse)
    return (_shift(out, axis, later=not reverse, fill=1.0) * r,)


def _cumprod_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_cumprod's rows on
    the saved arrays, where the vjp shifted x and the output again in Tensor ops (256 x 64
    along its rows: 0.25 ms against torch's 0.09)."""
    a = node.attrs
    sx, e = node.saved
    return (_linscan_arrays(np.asarray(g), sx, a["axis"], not a["reverse"]) * e,)


def _save_cumprod(out, x, axis, reverse):
    """Shifted x (the recurrence's multipliers) and E, the exclusive running product."""
    return _shift_np(x, axis, reverse, 0.0), _shift_np(out, axis, not reverse, 1.0)


def _lower_cumprod(b, node, g, gins):
    """gx = E * LINSCAN(g, shifted x): exact at zeros, no division (see linscan above)."""
    shape, a = node.out_data.shape, node.attrs
    r = b.alloc(shape)
    b.emit("LINSCAN", r, g, b.value(node.saved[0]),
           p=b.table(_layout(shape, a["axis"], not a["reverse"])), acc=False)
    b.emit("MUL", gins[0], r, b.value(node.saved[1]))


# cases with zeros (one and two in a row) check exactness where a division would fail;
# cumprod is a polynomial, smooth at zeros, so they are checked at second order too
ZERO_CASES = tuple({"values": (v,), "shapes": (np.shape(v),), "smooth": True,
                    "attrs": {"axis": ax, "reverse": r}} for v, ax, r in (
    ([0.5, 0.0, 1.5, -2.0, 0.7], 0, False),
    ([[1.2, 0.0, 0.0, 0.8], [0.0, -0.6, 1.1, 0.9]], 1, True),
    ([[0.0, 1.3], [0.9, 0.0], [0.0, 0.0]], 0, False)))


def _cumprod_np(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    out = np.flip(np.cumprod(np.flip(x, axis), axis=axis), axis).copy() if reverse else \
        np.cumprod(x, axis=axis)
    return out.astype(x.dtype, copy=False)


_SCAN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _cumprod_forward(x: np.ndarray, axis: int, reverse: bool, saves: bool = False
                     ) -> tuple[np.ndarray, tuple | None]:
    """cumprod's output and, with `saves`, its saved arrays (_save_cumprod). Float32 and
    float64 take one compiled pass once Numba is loaded (vm/forward.py's cumprod_scan:
    numpy's products in numpy's order, so bit for bit np.cumprod's and the shifted copies';
    ~1.5 us for 32 x 64 float32 where numpy took ~9 us for the output and ~6 for the
    saves); numpy otherwise."""
    found = compiled_input("forward", x) if x.size else None
    if found is None:
        out = _cumprod_np(x, axis, reverse)
        return out, (_save_cumprod(out, x, axis, reverse) if saves else None)
    kernels, x = found
    shape = x.shape
    n = shape[axis]
    rows = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1:])
    out = np.empty(shape, x.dtype)
    sx, e = (np.empty(shape, x.dtype), np.empty(shape, x.dtype)) if saves else (out, out)
    kernels.cumprod_scan(x, out, sx, e, rows, n, inner, reverse, saves)
    return out, ((sx, e) if saves else None)


cumprod_op = defop(
    "cumprod",
    fused="a scan whose gradient is a reverse scan of products (exact at zeros)",
    forward=lambda x, axis, reverse: _cumprod_forward(x, axis, reverse)[0],
    save=_save_cumprod, vjp=_cumprod_vjp, lower=_lower_cumprod, interp=_cumprod_interp,
    cases=SCAN_CASES + ZERO_CASES,
    domain=(-1.5, 1.5), min_ndim=1)


def _scan(op, x: Tensor, axis: Any, reverse: bool = False) -> Tensor:
    from .shape import reshape
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    if x.ndim == 0:             # axis 0 or -1 of a 0-d tensor: a 0-d result, as in Paddle
        if int(axis) not in (0, -1):
            raise ValueError(f"{op.name}: axis {axis} is out of range for a 0-d tensor")
        return reshape(apply(op, reshape(x, [1]), axis=0, reverse=bool(reverse)), [])
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError(f"{op.name}: axis {axis} is out of range for shape {x.shape}")
    return apply_xy(op, x, None, {"axis": int(axis) % x.ndim, "reverse": bool(reverse)})


def cumsum(x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None
           ) -> Tensor:
    """Running sum along `axis` (over the flattened tensor when axis is None). Integer
    and bool tensors sum in int64, as Paddle's integers do (int8 would wrap)."""
    d = x._data
    if dtype is None and type(axis) is int and d.dtype.kind == "f" and \
            -d.ndim <= axis < d.ndim:       # the common case: _scan's checks hold
        axis %= d.ndim
        attrs = _SCAN_ATTRS.get(axis)
        if attrs is None:
            attrs = _SCAN_ATTRS[axis] = {"axis": axis, "reverse": False}
        return apply_xy(cumsum_op, x, None, attrs, _cumsum_forward(d, axis, False))
    if dtype is not None:
        x = x.astype(dtype)
    elif x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
        x = Tensor._make(x._data.astype(np.int64))
    return _scan(cumsum_op, x, axis)


# cumsum's node attributes along each axis (shared dicts, never written: core.NO_ATTRS)
_SCAN_ATTRS: dict = {}


def cumprod(x: Tensor, dim: int | None = None, dtype: Any = None, name: str | None = None
            ) -> Tensor:
    """Running product along `dim`. Its gradient never divides by x, so it is exact (all
    orders) where x has zeros, as in Paddle and torch. Integer tensors keep their dtype
    (no gradient), as in Paddle 3.3.1; bool ones are refused, as there."""
    if dtype is not None:
        x = x.astype(dtype)
    d = x._data
    if d.dtype.kind not in "iu":
        require_float(x, "cumprod")
    if type(dim) is int and -d.ndim <= dim < d.ndim and d.dtype in _SCAN_DTYPES and \
            not x._stop_gradient and tape.is_grad_enabled():
        # recorded: the output and its saves in one pass (_cumprod_forward)
        axis = dim % d.ndim
        out, saved = _cumprod_forward(d, axis, False, True)
        return apply_xy(cumprod_op, x, None, {"axis": axis, "reverse": False}, out, saved)
    return _scan(cumprod_op, x, dim)
