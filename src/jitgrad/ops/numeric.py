"""numpy-vocabulary numerics Paddle 3.x offers: fmax, fmin, hypot, sinc, stanh,
logcumsumexp, trapezoid, cumulative_trapezoid, renorm, vander, logspace, and the predicates
signbit, isneginf, isposinf, isreal. Composites of existing ops, so their gradients are those
ops' (NaN and zero-point conventions measured on Paddle 3.3.1)."""

from __future__ import annotations

import math as _m
from typing import Any

import numpy as np

from ..core.quiet import quiet
from ..core.series import SINC_SERIES
from ..core.tape import MODE as _GRAD
from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import (
    NO_ATTRS,
    apply_xy,
    binary_operands,
    compiled_input,
    const,
    require_float,
)
from .core import FLOAT16, call_in_float32
from .derivative import NumpyMath, apply_unary, binary, unary
from .indexing import _axis, _slice_along, concat
from .scan import cumsum
from .shape import reshape, unsqueeze
from .stats import l2_norm_op, vector_norm


def _pick_fmax(x: Tensor, y: Tensor, greater: Any) -> Tensor:
    """x where x wins (ties and a NaN y included), else y: the gradient follows the pick."""
    xd, yd = np.broadcast_arrays(x._data, y._data)
    take_x = greater(xd, yd) | (xd == yd) | np.isnan(yd)
    return E.where(Tensor._make(np.array(take_x, order="C")), x, y)   # (0-d stays 0-d)


def _fmax_compiled(x: Tensor, y: Tensor, greater: bool) -> tuple | None:
    """(attrs, out, saved) of _pick_fmax's where node from one compiled pass (its condition,
    output and saved masks: vm/forward_binary.py's fmax) for two float32 or float64 tensors
    of one shape once Numba is loaded; None otherwise (the numpy path)."""
    d, e = x._data, y._data
    if d.shape != e.shape:
        return None
    found = compiled_input("forward_binary", d, e)
    if found is None:
        return None
    k, d, e = found
    on = _GRAD.grad_enabled
    nx, ny = on and not x._stop_gradient, on and not y._stop_gradient
    dt = d.dtype
    out = np.empty(d.shape, dt)
    take = np.empty(d.shape, np.bool_)
    mx = np.empty(d.shape, dt) if nx else None
    my = np.empty(d.shape, dt) if ny else None
    k.fmax(d.reshape(-1), e.reshape(-1), out.reshape(-1), take.reshape(-1),
           E.NO_ARRAY[dt] if mx is None else mx.reshape(-1),
           E.NO_ARRAY[dt] if my is None else my.reshape(-1), nx, ny, greater)
    return {"cond": take}, out, (mx, my)


def fmax(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are); ties go to x."""
    x, y = binary_operands(x, y)
    found = _fmax_compiled(x, y, True)
    if found is None:
        return _pick_fmax(x, y, np.greater)
    return apply_xy(E.where_op, x, y, *found)


def fmin(x: Any, y: Any, name: str | None = None) -> Tensor:
    x, y = binary_operands(x, y)
    found = _fmax_compiled(x, y, False)
    if found is None:
        return _pick_fmax(x, y, np.less)
    return apply_xy(E.where_op, x, y, *found)


def hypot(x: Any, y: Any, name: str | None = None) -> Tensor:
    """sqrt(x^2 + y^2); the gradient at (0, 0) is NaN, as Paddle's."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(hypot, locals())
    x, y = binary_operands(x, y, zero_dim=True)
    return E.sqrt(x * x + y * y)


def _sinc_forward(x: np.ndarray) -> np.ndarray:
    zero = x == 0
    px = np.where(zero, x.dtype.type(1), x) * x.dtype.type(_m.pi)
    return np.where(zero, x.dtype.type(1), np.sin(px) / px)


def _sinc_slope(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """sinc'(x) = (cos(pi x) - sinc(x)) / x; where |pi x| < 0.5 the difference cancels (in
    float32 it would keep ~2 digits at x = 1e-3) and the Taylor series takes over (relative
    error below 1e-10 there); 0 at x = 0."""
    shape, t = x.shape, x.dtype.type
    x, out = x.reshape(-1), out.reshape(-1)     # (1-D: numpy gives 0-d ones as scalars)
    px = x * t(_m.pi)
    slope = (np.cos(px) - out) / x
    small = np.abs(px) < t(0.5)
    if small.any():
        u = px[small].astype(np.float64)
        u2, acc = u * u, 0.0
        for c in reversed(SINC_SERIES):
            acc = acc * u2 + c
        slope[small] = _m.pi * u * acc
    return slope.reshape(shape)


def _sinc_deriv(m: Any, x: Any, out: Any) -> Any:
    if isinstance(m, NumpyMath):
        return _sinc_slope(x, out)
    # (create_graph: the same slope in jitgrad ops, the series where |pi x| < 0.5, so that
    # it and its own derivatives keep their digits near 0)
    small = np.abs(np.asarray(m.data(x), np.float64)) * _m.pi < 0.5
    safe = m.where(small, 1.0, x)
    u = m.where(small, x, 0.0) * _m.pi
    u2, acc = u * u, 0.0
    for c in reversed(SINC_SERIES):
        acc = acc * u2 + c
    return m.where(small, u * acc * _m.pi, (m.cos(safe * _m.pi) - out) / safe)


@quiet
def _sinc_arrays(x: np.ndarray) -> tuple:
    """What the compiled sinc reads (vm/forward_activation.py): pi x, numpy's sin and cos."""
    px = x * x.dtype.type(_m.pi)
    return px, np.sin(px), np.cos(px)


# (the array rules read the saved slope: x and the output may change in place before the
# backward, as in Paddle 3.3.1, whose sinc is a composite keeping neither)
sinc_op = unary("sinc", _sinc_forward, _sinc_deriv,
                compiled=("sinc", lambda t: (t(1), t(0), t(0.5)), _sinc_arrays),
                grad_reads=(), rule_reads=(0, "out"))


def sinc(x: Tensor, name: str | None = None) -> Tensor:
    """sin(pi x) / (pi x), 1 at x = 0 (where the gradient is 0)."""
    require_float(x, "sinc")
    return apply_unary(sinc_op, x, NO_ATTRS)


def stanh(x: Tensor, scale_a: float = 0.67, scale_b: float = 1.7159,
          name: str | None = None) -> Tensor:
    """scale_b * tanh(scale_a * x)."""
    return E.tanh(x * scale_a) * scale_b


def logcumsumexp(x: Tensor, axis: int | None = None, dtype: Any = None,
                 name: str | None = None) -> Tensor:
    """log(cumsum(exp(x))) along axis (flattened when None), shifted by the max for range;
    an int x is read as float32 (Paddle 3.3.1)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(logcumsumexp, locals())
    if isinstance(x, Tensor) and x._data.dtype.kind in "iu" and dtype is None:
        x = E.astype(x, "float32")
    require_float(x, "logcumsumexp")
    if dtype is not None:
        x = E.astype(x, dtype)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    ax = _axis(axis, x.ndim, "logcumsumexp")
    finite = np.where(np.isfinite(x._data), x._data, -np.inf)
    shift = np.max(finite, axis=ax, keepdims=True) if x._data.size else finite
    shift = const(np.where(np.isfinite(shift), shift, 0.0), x._data.dtype)
    running = cumsum(E.exp(x - shift), axis=ax)
    empty = Tensor._make(running._data == 0)          # only -inf so far: -inf, gradient 0
    one, ninf = const(1.0, x._data.dtype), const(-np.inf, x._data.dtype)
    return E.where(empty, ninf, E.log(E.where(empty, one, running)) + shift)


def _spacing(y: Tensor, x: Any, dx: Any, ax: int) -> Any:
    """The trapezoids' widths along ax: dx (default 1) or the differences of x."""
    if x is not None and dx is not None:
        raise ValueError("trapezoid: give x or dx, not both")
    if x is None:
        return 1.0 if dx is None else float(dx)
    if not isinstance(x, Tensor):
        x = Tensor._make(np.asarray(x, dtype=y._data.dtype))
    xa = _axis(-1 if x.ndim == 1 else ax, x.ndim, "trapezoid")
    d = _slice_along(x, xa, 1, x.shape[xa]) - _slice_along(x, xa, 0, x.shape[xa] - 1)
    if x.ndim == 1 and y.ndim > 1:                       # 1-D sample points along ax
        shape = [1] * y.ndim
        shape[ax] = d.shape[0]
        d = reshape(d, shape)
    return d


def _trapezoids(y: Tensor, x: Any, dx: Any, axis: int) -> tuple[Tensor, int]:
    require_float(y, "trapezoid")
    ax = _axis(axis, y.ndim, "trapezoid")
    n = y.shape[ax]
    mid = (_slice_along(y, ax, 1, n) + _slice_along(y, ax, 0, n - 1)) * 0.5
    return mid * _spacing(y, x, dx, ax), ax


def trapezoid(y: Tensor, x: Any = None, dx: float | None = None, axis: int = -1,
              name: str | None = None) -> Tensor:
    """The integral of y along axis by the trapezoid rule (sample points x, or spacing dx)."""
    pieces, ax = _trapezoids(y, x, dx, axis)
    return R.sum(pieces, axis=ax)


def cumulative_trapezoid(y: Tensor, x: Any = None, dx: float | None = None, axis: int = -1,
                         name: str | None = None) -> Tensor:
    """The running trapezoid integral (one element shorter along axis)."""
    pieces, ax = _trapezoids(y, x, dx, axis)
    return cumsum(pieces, axis=ax)


# ---- renorm: x times a factor per slice, from the slices' norms ----------------------------
# renorm_scale(x, norm) = x * (max_norm / (norm + 1e-7) where norm > max_norm, else 1): the
# composite's where, divide, add and multiply as one node, with the same numpy operations
# (values bit for bit). Its derivatives: the factor for x; for the norm, x times the
# factor's slope -max_norm / (norm + 1e-7)^2 where it scales (else 0), written as the
# composite's divide rule, -factor / (norm + 1e-7): the square overflows for norms
# above ~1.8e19 in float32.

def _renorm_factor(n: np.ndarray, max_norm: float) -> np.ndarray:
    return np.where(n > max_norm, max_norm / (n + 1e-7), 1.0)


renorm_scale_op = binary(
    "renorm_scale", lambda x, n, max_norm: np.multiply(x, _renorm_factor(n, max_norm)),
    lambda m, x, n, out, max_norm: m.where(m.data(n) > max_norm, max_norm / (n + 1e-7), 1.0),
    lambda m, x, n, out, max_norm: x * m.where(m.data(n) > max_norm,
                                               -(max_norm / (n + 1e-7)) / (n + 1e-7), 0.0),
    domain=(0.5, 2.0),
    cases=tuple({"shapes": s, "attrs": {"max_norm": 1.0}} for s in (
        ((2, 3), (2, 1)), ((), ()), ((4,), (4,)), ((2, 3, 2), (2, 1, 1)), ((1, 4), (1, 1)),
        ((3, 2), (1, 2)))))


def renorm(x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """Each slice along axis whose p-norm exceeds max_norm scaled down to max_norm (by
    max_norm / (norm + 1e-7)); the others unchanged. Two nodes: the norm, renorm_scale. For
    p = 2 over slices along the first axis (contiguous rows) of a float32 / float64 tensor,
    one compiled pass computes both nodes' values and saves once Numba is loaded
    (vm/forward.py's renorm_rows: numpy's operations, bit for bit)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(renorm, locals())
    require_float(x, "renorm")
    ax = _axis(axis, x.ndim, "renorm")
    others = tuple(d for d in range(x.ndim) if d != ax)
    attrs = {"max_norm": float(max_norm)}
    d = x._data
    if ax == 0 and others and d.size and \
            not isinstance(p, (str, bool)) and isinstance(p, (int, float)) and p == 2:
        found = compiled_input("forward", d)
        if found is not None:
            kernels, d = found
            dt = d.dtype
            rows = d.shape[0]
            k = d.size // rows
            kept = (rows,) + (1,) * len(others)
            n, f = np.empty(kept, dt), np.empty(kept, dt)
            w, y, fn = np.empty(d.shape, dt), np.empty(d.shape, dt), np.empty(d.shape, dt)
            kernels.renorm_rows(d, n, w, f, y, fn, dt.type(attrs["max_norm"]), dt.type(1e-7),
                                rows, k)
            norm = apply_xy(l2_norm_op, x, None, {"axes": others, "keepdim": True}, n, (w,))
            return apply_xy(renorm_scale_op, x, norm, attrs, y, (f, fn))
    norm = vector_norm(x, p, list(others), keepdim=True) if others else E.abs(x)
    return apply_xy(renorm_scale_op, x, norm, attrs)


def vander(x: Tensor, n: int | None = None, increasing: bool = False,
           name: str | None = None) -> Tensor:
    """Columns x^(n-1), ..., x, 1 (or increasing powers) of a 1-D x."""
    if x.ndim != 1:
        raise ValueError(f"vander needs a 1-D tensor, got shape {x.shape}")
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise ValueError(f"vander: n must be non-negative, got {n}")
    if x._data.dtype.kind != "f" or n == 0:          # integers: no gradient to carry
        return Tensor._make(np.vander(x._data, n, increasing=increasing).astype(x._data.dtype))
    powers = range(n) if increasing else range(n - 1, -1, -1)
    col = unsqueeze(x, 1)
    ones = const(np.ones(col._data.shape), x._data.dtype)
    return concat([E.pow(col, k) if k else ones for k in powers], axis=1)


def logspace(start: Any, stop: Any, num: Any, base: Any = 10.0, dtype: Any = None,
             name: str | None = None) -> Tensor:
    """base ** linspace(start, stop, num), float32 unless dtype says otherwise. An integer
    dtype truncates start, stop and base to integers first and the powers after (Paddle
    3.3.1: logspace(0, 1, 4, dtype='int64') is [1, 2, 4, 10])."""
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, stop, num, base)]
    from .creation import _dt
    dt = _dt(dtype)
    start, stop, base = (float(int(v)) if dt.kind in "iu" else float(v)
                         for v in (vals[0], vals[1], vals[3]))
    with np.errstate(all="ignore"):
        out = np.power(base, np.linspace(start, stop, int(vals[2])))
        return Tensor._make((np.trunc(out) if dt.kind in "iu" else out).astype(dt))


def signbit(x: Tensor, name: str | None = None) -> Tensor:
    """True where the sign bit is set (-0.0 included)."""
    return Tensor._make(np.signbit(x._data))


def isneginf(x: Tensor, name: str | None = None) -> Tensor:
    return Tensor._make(np.isneginf(x._data) if x._data.dtype.kind == "f"
                        else np.zeros(x._data.shape, bool))


def isposinf(x: Tensor, name: str | None = None) -> Tensor:
    return Tensor._make(np.isposinf(x._data) if x._data.dtype.kind == "f"
                        else np.zeros(x._data.shape, bool))


def isreal(x: Tensor, name: str | None = None) -> Tensor:
    """All True: jitgrad has no complex dtypes."""
    return Tensor._make(np.ones(x._data.shape, bool))


NAMES = ["fmax", "fmin", "hypot", "sinc", "stanh", "logcumsumexp", "trapezoid",
         "cumulative_trapezoid", "renorm", "vander", "signbit", "isneginf", "isposinf", "isreal"]
