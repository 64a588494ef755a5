"""Activation functions (paddle.nn.functional names). Each is one registry entry whose forward
saves f'(x), so the compiled backward is a single MUL; the vjp restates the derivative in
jitgrad ops (piecewise-linear ones use a constant mask: their second derivative is zero)."""

from __future__ import annotations

import math as _m
from typing import Any

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from . import rounded
from . import elementwise as E
from .core import NO_ATTRS, apply_xy, compiled_input, compiled_kernels, const, require_float
from .elementwise import _sigmoid
from .derivative import (NumpyMath, Select, apply_unary, binary, kernel_scalars,
                         numpy_function, unary)
from .math import NO_FACTOR, _erf, special_kernel
from .shape import getitem_op, reshape
from .registry import UNARY_CASES, defop
from .indexing import take_along_axis

numpy_function("sigmoid", _sigmoid)


def _cases(**attrs):
    return tuple({"shapes": s, "attrs": dict(attrs)} for s in UNARY_CASES)


def _mask(x: Tensor, m: np.ndarray) -> Tensor:
    return const(m, x._data.dtype)


relu6_op = unary(
    "relu6", lambda x, threshold: np.clip(x, 0, threshold).astype(x.dtype, copy=False),
    # (0 < x < threshold read from the output: x may change in place before the backward,
    # as in Paddle 3.3.1, whose relu6_grad keeps only the output)
    Select(lambda m, x, out, threshold: (m.data(out) > 0) & (m.data(out) < threshold)),
    domain=(-3.0, 8.0), cases=_cases(threshold=6.0), grad_reads=("out",),
    compiled=("clamp", lambda t, threshold: (t(0), t(threshold), False, t(1), t(0))))

leaky_relu_op = unary(
    "leaky_relu", lambda x, slope: np.where(x >= 0, x, slope * x).astype(x.dtype),
    lambda m, x, out, slope: m.mask(np.where(m.data(x) >= 0, 1.0, slope)),
    cases=_cases(slope=0.1), compiled=("leaky_relu", lambda t, slope: (t(slope), t(1))))


def _elu_fwd(x, alpha, scale):
    return (scale * np.where(x > 0, x, alpha * rounded.expm1(np.minimum(x, 0)))).astype(x.dtype)


def _elu_deriv(m: Any, x: Any, out: Any, alpha: float, scale: float) -> Any:
    """scale where x > 0, else scale * alpha * exp(x), as Paddle's kernel computes it: from
    the output (out + scale * alpha) for alpha >= 0, where the slope cancels to 0 once
    exp(x) is below alpha's ulp, and from x itself for alpha < 0 (exact in the tail).
    With alpha >= 0 and scale >= 1 (selu, elu) x > 0 where out > 0: the output alone is
    read (_elu_reads), so x may change in place before the backward (Paddle's selu)."""
    if alpha < 0:
        return m.where(m.data(x) > 0, scale, scale * alpha * m.exp(m.minimum(x, 0.0)))
    positive = m.data(out) > 0 if _elu_from_out(alpha, scale) else m.data(x) > 0
    return m.where(positive, scale, out + scale * alpha)


def _elu_from_out(alpha: float, scale: float) -> bool:
    return alpha >= 0 and scale >= 1


def _elu_reads(attrs: dict) -> tuple:
    return ("out",) if _elu_from_out(attrs["alpha"], attrs["scale"]) else (0, "out")


elu_op = unary(
    "elu", _elu_fwd, _elu_deriv, grad_reads_of=_elu_reads,
    cases=_cases(alpha=1.0, scale=1.0) + (
        {"shapes": ((2, 3),), "attrs": {"alpha": 1.6732632423543772,
                                        "scale": 1.0507009873554805}},),
    compiled=("elu", lambda t, alpha, scale: (t(alpha), t(scale), t(scale * alpha))
              if alpha >= 0 else None,      # (the kernel's slope is out + scale * alpha)
              lambda x, alpha, scale: (rounded.expm1(np.minimum(x, 0)),)))

_K = _m.sqrt(2.0 / _m.pi)
_C = 0.044715


# x * x * x, not x ** 3: numpy's float32 power of a negative base is ~60 ns an element.
def _gelu_fwd(x, approximate):
    if approximate:
        return (0.5 * x * (1 + np.tanh(_K * (x + _C * (x * x * x))))).astype(x.dtype)
    out = special_kernel(x, "gelu")
    if out is not None:
        return out
    return (0.5 * x * (1 + _erf(x / _m.sqrt(2.0)))).astype(x.dtype)


def _gelu_deriv(m, x, out, approximate):
    if approximate:
        t = m.tanh((x + x * x * x * _C) * _K)
        return (t + 1.0) * 0.5 + x * (1.0 - t * t) * (x * x * (3 * _C) + 1.0) * (0.5 * _K)
    if isinstance(m, NumpyMath):
        d = special_kernel(x, "gelu_deriv")
        if d is not None:
            return d
    cdf = (m.erf(x * (1 / _m.sqrt(2.0))) + 1.0) * 0.5
    return cdf + x * m.exp(x * x * -0.5) * (1 / _m.sqrt(2 * _m.pi))


gelu_op = unary("gelu", _gelu_fwd, _gelu_deriv,
                cases=_cases(approximate=False) + _cases(approximate=True)[:3],
                compiled=("gelu", lambda t, approximate: None if approximate else ()))


def _silu_deriv(m, x, out):
    s = m.sigmoid(x)
    return s + x * s * (1.0 - s)


silu_op = unary("silu", lambda x: (x * _sigmoid(x)).astype(x.dtype), _silu_deriv,
                compiled=("silu", lambda t: (t(1), t(0)), lambda x: (np.exp(-np.abs(x)),)))


def _softplus_fwd(x, beta, threshold):
    z = x if beta == 1 else beta * x            # (beta 1: the same values, two passes fewer)
    soft = np.maximum(z, 0) + rounded.log1p(np.exp(-np.abs(z)))
    if beta != 1:
        soft /= beta
    return np.where(z > threshold, x, soft).astype(x.dtype, copy=False)


def _softplus_deriv(m, x, out, beta, threshold):
    """sigmoid(beta x) (numpy path: ops/elementwise.py's _sigmoid of z = beta x in x's dtype;
    the compiled forward computes it from the exp(-|z|) its output took, one loop: no
    second transcendental), 1 above the threshold, where out is x. (Until 2026-12-07 it was
    -expm1(-beta out), within an ulp or two of this: a correctly rounded expm1 pass, ~1.3 ms
    of a 1M float32 step.)"""
    z = m.data(x) if beta == 1 else m.data(x) * beta
    return m.where(z > threshold, 1.0, m.sigmoid(x if beta == 1 else x * beta))


softplus_op = unary(
    "softplus", _softplus_fwd, _softplus_deriv,
    cases=_cases(beta=1.0, threshold=20.0) + (
        {"shapes": ((6,),), "attrs": {"beta": 2.0, "threshold": 2.0}},))

_F32_MAX = float(np.finfo(np.float32).max)
_F32 = np.dtype(np.float32)
_NO_FACTOR32 = np.empty(0, np.float32)      # (silu_fused: no slope wanted)
_ONE_ZERO = {t: (t(1), t(0)) for t in (np.float32, np.float64)}


def _compiled_input(x: Tensor, *attrs: float) -> tuple | None:
    """(vm/forward_activation.py, x's values contiguous, its scalar type, whether the factor
    is needed) for a float32/float64 x once Numba is loaded; None otherwise, or when a
    float attribute would overflow float32 (the numpy path then)."""
    found = compiled_input("forward_activation", x._data)
    if found is None:
        return None
    kernels, d = found
    t = d.dtype.type
    if not _fits(t, attrs):
        return None
    return kernels, d, t, not x._stop_gradient and tape.is_grad_enabled()


def _fits(t: type, attrs: tuple) -> bool:
    """Whether float attributes convert to scalar type t without overflowing (float32's
    max; NaN and infinities pass)."""
    return t is not np.float32 or all(abs(a) <= _F32_MAX or a != a or abs(a) == _m.inf
                                      for a in attrs)


def _softplus_compiled(x: Tensor, beta: float, threshold: float) -> tuple | None:
    """(out, (factor,)) of softplus: one compiled loop makes exp's argument and numpy's exp
    (ops/elementwise.py's exp_neg_abs), ops/rounded.py's log1p and a loop the output (for
    float32 one call: vm/float32_math.py's softplus), and the factor sigmoid(beta x) from
    the same exp values in place (vm/forward_activation.py's softplus_factor):
    _softplus_fwd's and _softplus_deriv's values bit for bit, ~3x quicker than their ~14
    numpy passes. None: the numpy path (factor None when no gradient is needed)."""
    found = compiled_input("forward_activation", x._data)
    if found is None:
        return None
    k, d = found
    scalars = kernel_scalars("softplus_passes", _softplus_scalars, d.dtype.type,
                             {"beta": beta, "threshold": threshold})
    if scalars is None:
        return None
    return _softplus_kernels(k, d, not x._stop_gradient and tape.is_grad_enabled(), scalars)


def _softplus_scalars(t: type, beta: float, threshold: float) -> tuple | None:
    """The kernels' scalars for these attributes in scalar type t (kept by kernel_scalars:
    a numpy scalar costs ~0.2 us), None where they overflow float32."""
    if not _fits(t, (beta, threshold)):
        return None
    return t(beta), t(threshold), beta != 1, t(0), t(-1), t(-_m.inf), t(1)


def _softplus_kernels(k: Any, d: np.ndarray, need: bool, scalars: tuple) -> tuple:
    """_softplus_compiled's passes on a C-contiguous float32/float64 array d."""
    flat = d.reshape(-1)
    b, th, scaled, zero, minus_one, minus_inf, one = scalars
    a = np.empty_like(flat)
    E.exp_neg_abs(k, flat, a, b if scaled else None)
    out = np.empty_like(flat)
    f32 = compiled_kernels("float32_math") if flat.dtype == _F32 else None
    if f32 is not None:       # (the output in one pass: vm/float32_math.py's softplus)
        f32.softplus(flat, a, out, NO_FACTOR, b, th, scaled, minus_one)
    else:                     # (the factor's former expm1 argument into a scratch array)
        k.softplus(flat, out, np.empty_like(flat), rounded.log1p(a), b, th, scaled, zero,
                   minus_one, minus_inf)
    if not need:
        return out.reshape(d.shape), None
    k.softplus_factor(flat, a, b, th, scaled, one, zero)       # (a: exp(-|z|) -> factor)
    return out.reshape(d.shape), (a.reshape(d.shape),)


softsign_op = unary(
    "softsign", lambda x: (x / (1 + np.abs(x))).astype(x.dtype),
    lambda m, x, out: 1.0 / m.square(m.abs(x) + 1.0),
    compiled=("softsign", lambda t: (t(1),)))

hardtanh_op = unary(
    "hardtanh", lambda x, lo, hi: np.clip(x, lo, hi).astype(x.dtype, copy=False),
    Select(lambda m, x, out, lo, hi: (m.data(x) > lo) & (m.data(x) < hi)),
    cases=_cases(lo=-1.0, hi=1.0),
    compiled=("clamp", lambda t, lo, hi: (t(lo), t(hi), False, t(1), t(0))))


def _hsig_mask(out):
    """Where slope * x + offset is inside (0, 1): read from the output, as Paddle 3.3.1's
    hardsigmoid_grad does (x may change in place before the backward)."""
    return (out > 0) & (out < 1)


hardsigmoid_op = unary(
    "hardsigmoid",
    lambda x, slope, offset: np.clip(slope * x + offset, 0, 1).astype(x.dtype),
    lambda m, x, out, slope, offset: m.mask(_hsig_mask(m.data(out))) * slope,
    domain=(-5.0, 5.0), cases=_cases(slope=1 / 6, offset=0.5), grad_reads=("out",),
    compiled=("hardsigmoid", lambda t, slope, offset: (t(slope), t(offset), t(1), t(0))))


def _hswish_deriv(m, x, out):
    v = m.data(x)
    return m.where(v >= 3, 1.0, m.where(v > -3, x * (2 / 6) + 0.5, 0.0))


hardswish_op = unary(
    "hardswish", lambda x: (x * np.clip(x + 3, 0, 6) / 6).astype(x.dtype), _hswish_deriv,
    domain=(-5.0, 5.0),
    compiled=("hardswish", lambda t: (t(3), t(6), t(2 / 6), t(0.5), t(1), t(0))))


def _like(x: np.ndarray, v: float) -> np.ndarray:
    # Paddle casts float attributes to the input's dtype before comparing or subtracting.
    return np.asarray(v, dtype=x.dtype)


def _hshrink_keep(x, threshold):
    t = _like(x, threshold)
    return ~((x > -t) & (x < t))      # |x| == threshold keeps x, as Paddle's kernel does


hardshrink_op = unary(
    "hardshrink", lambda x, threshold: x * _hshrink_keep(x, threshold).astype(x.dtype),
    Select(lambda m, x, out, threshold: _hshrink_keep(m.data(x), threshold)),
    cases=_cases(threshold=0.5),
    compiled=("hardshrink", lambda t, threshold: (t(threshold), t(1), t(0))))


def _sshrink_fwd(x, threshold):
    t = _like(x, threshold)
    mid = np.where(np.isnan(x), x, 0)                   # nan stays nan, as in Paddle
    return np.where(x > t, x - t, np.where(x < -t, x + t, mid)).astype(x.dtype, copy=False)


def _sshrink_pass(x, threshold):
    t = _like(x, threshold)
    return (x > t) | (x < -t)


softshrink_op = unary(
    "softshrink", _sshrink_fwd,
    Select(lambda m, x, out, threshold: _sshrink_pass(m.data(x), threshold)),
    cases=_cases(threshold=0.5),
    compiled=("softshrink", lambda t, threshold: (t(threshold), t(1), t(0))))


def _celu_fwd(x, alpha):
    return np.where(x > 0, x, alpha * rounded.expm1(np.minimum(x, 0) / alpha)).astype(x.dtype)


def _celu_deriv(m, x, out, alpha):
    """exp(x / alpha) for x <= 0, as Paddle computes it: out / alpha + 1 cancels (4e-4 off
    at x = -10, 0 below -17 in float32). x is zeroed where positive, so exp cannot
    overflow there (nor its own derivative, create_graph's second order)."""
    pos = m.data(x) > 0
    return m.where(pos, 1.0, m.exp(m.where(pos, 0.0, x) * (1.0 / alpha)))


def _celu_numpy_parts(x: np.ndarray, alpha: float) -> tuple:
    """expm1(minimum(x, 0) / alpha) and the float64 exp of where(x > 0, 0, x) / alpha, as
    _celu_fwd and _celu_deriv compute them (numpy's transcendentals; the rest is the
    compiled kernel's, vm/forward_activation.py)."""
    t = x.dtype.type
    z, w = np.empty_like(x), np.empty(x.shape, np.float64)
    compiled_kernels("forward_activation").celu_parts(x.reshape(-1), t(alpha), t(1.0 / alpha),
                                                      t(0), z.reshape(-1), w.reshape(-1))
    return rounded.expm1(z), np.exp(w, out=w)


celu_op = unary(
    "celu", _celu_fwd, _celu_deriv,
    cases=_cases(alpha=1.0) + ({"shapes": ((2, 3),), "attrs": {"alpha": 0.5}},
                               {"shapes": ((5,),), "attrs": {"alpha": -1.5}}),
    compiled=("celu", lambda t, alpha: (t(alpha), t(1)), _celu_numpy_parts))


def _trelu_pass(x, threshold):
    return x > _like(x, threshold)


thresholded_relu_op = unary(
    "thresholded_relu",
    lambda x, threshold, value: np.where(_trelu_pass(x, threshold) | np.isnan(x), x,
                                         _like(x, value)),
    Select(lambda m, x, out, threshold, value: _trelu_pass(m.data(x), threshold)),
    domain=(-1.0, 3.0), cases=_cases(threshold=1.0, value=0.0) + (
        {"shapes": ((2, 3),), "attrs": {"threshold": -0.5, "value": 2.0}},),
    compiled=("thresholded_relu",
              lambda t, threshold, value: (t(threshold), t(value), t(1), t(0))))


log_sigmoid_op = unary(
    "log_sigmoid", lambda x: (-_softplus_fwd(-x, 1.0, np.inf)).astype(x.dtype),
    # sigmoid(-x) = 1 - exp(out), as -expm1(out): exact at both ends (expm1 keeps the tiny
    # slopes of x -> inf), two numpy passes instead of sigmoid's seven
    lambda m, x, out: -m.expm1(out), quiet=False)


# ---- public functions ----------------------------------------------------------------------

def _f(x: Tensor, op, **attrs) -> Tensor:
    require_float(x, op.name)
    return apply_unary(op, x, attrs)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6); gradient 1 strictly inside (0, 6)."""
    return _f(x, relu6_op, threshold=6.0)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """x for x >= 0, slope * x below; the gradient at 0 is 1 (Paddle's convention)."""
    return _f(x, leaky_relu_op, slope=float(negative_slope))


def _scalars(op: Any, t: type, attrs: dict) -> tuple:
    """op's kernel scalars (its compiled=(kernel, args, ...) args(t, **attrs)), kept as
    apply_unary keeps them (derivative.kernel_scalars)."""
    return kernel_scalars(op.name, op.extra["compiled"][1], t, attrs)


def _elu(x: Tensor, alpha: float, scale: float) -> Tensor:
    """apply_unary(elu_op, x, attrs) with its compiled passes written out (no generic
    dispatch: ~2 us less of ~9 for 32 x 64 float32): the same values."""
    require_float(x, "elu")
    attrs = {"alpha": alpha, "scale": scale}
    found = compiled_input("forward_activation", x._data)
    if found is None or alpha < 0:
        return apply_unary(elu_op, x, attrs)
    k, d = found
    flat = d.reshape(-1)
    z = np.minimum(flat, 0)
    z = rounded.expm1(z)
    out, f = np.empty_like(flat), np.empty_like(flat)
    k.elu(flat, out, f, z, *_scalars(elu_op, d.dtype.type, attrs))
    return apply_xy(elu_op, x, None, attrs, out.reshape(d.shape), (f.reshape(d.shape),))


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    return _elu(x, float(alpha), 1.0)


def selu(x: Tensor, scale: float = 1.0507009873554805, alpha: float = 1.6732632423543772,
         name: str | None = None) -> Tensor:
    return _elu(x, float(alpha), float(scale))


_GELU_TANH_SCALARS = {t: (t(_K), t(_C), t(0.5), t(1), t(3 * _C), t(0.5 * _K))
                      for t in (np.float32, np.float64)}


def _gelu_tanh_compiled(x: Tensor) -> tuple | None:
    """(out, (factor,)) of the tanh gelu: a compiled loop makes tanh's argument, numpy's
    tanh (its own SIMD one), a loop writes the output and the factor (_gelu_fwd's and
    _gelu_deriv's values bit for bit). None: the numpy path."""
    found = _compiled_input(x)
    if found is None:
        return None
    k, d, t, need = found
    flat = d.reshape(-1)
    u = np.empty_like(flat)
    k_, c, half, one, c3, hk = _GELU_TANH_SCALARS[t]
    k.gelu_tanh_parts(flat, u, k_, c)
    np.tanh(u, out=u)
    if not need:                        # (the output alone, in place of the tanh)
        k.gelu_tanh_value(flat, u, half, one)
        return u.reshape(d.shape), None
    out, f = np.empty_like(flat), np.empty_like(flat)
    k.gelu_tanh(flat, out, f, u, half, one, c3, hk)
    return out.reshape(d.shape), (f.reshape(d.shape),)


_GELU_EXACT = {"approximate": False}        # (the node's attributes: read only)
_MODE = tape.MODE


def gelu(x: Tensor, approximate: bool = False, name: str | None = None) -> Tensor:
    """x * Phi(x) (exact, via erf) or its tanh approximation. Without a gradient to record
    the exact one is gelu_op's forward alone (vm/forward_special.py's gelu: the compiled
    kernel's output without computing and storing the slope)."""
    if approximate:
        require_float(x, "gelu")
        found = _gelu_tanh_compiled(x)
        if found is not None:
            return apply_xy(gelu_op, x, None, {"approximate": True}, *found)
    elif x._stop_gradient or not _MODE.grad_enabled:
        require_float(x, "gelu")
        return apply_xy(gelu_op, x, None, _GELU_EXACT)
    return _f(x, gelu_op, approximate=bool(approximate))


def silu(x: Tensor, name: str | None = None) -> Tensor:
    """x sigmoid(x): apply_unary(silu_op) with its compiled passes written out (as _elu)."""
    require_float(x, "silu")
    found = compiled_input("forward_activation", x._data)
    if found is None:
        return apply_unary(silu_op, x, NO_ATTRS)
    k, d = found
    flat = d.reshape(-1)
    one_zero = _ONE_ZERO[d.dtype.type]
    out = np.empty_like(flat)
    need = not x._stop_gradient and tape.is_grad_enabled()
    if d.dtype is _F32 and E.numpy_exp_emulated():       # (one pass, numpy's exp inside)
        f = np.empty_like(flat) if need else _NO_FACTOR32
        k.silu_fused(flat, out, f)
        return apply_xy(silu_op, x, None, NO_ATTRS, out.reshape(d.shape),
                        (f.reshape(d.shape),) if need else None)
    e = np.empty_like(flat) if need else out    # (exp(-|x|): the factor's array, else out's)
    k.neg_abs(flat, e)                  # (np.negative(np.abs(x)), a NaN's sign included)
    np.exp(e, out=e)
    if not need:
        k.silu_value(flat, out, *one_zero)
        return apply_xy(silu_op, x, None, NO_ATTRS, out.reshape(d.shape))
    k.silu_in_place(flat, out, e, *one_zero)
    return apply_xy(silu_op, x, None, NO_ATTRS, out.reshape(d.shape), (e.reshape(d.shape),))


swish = silu


def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0, name: str | None = None
             ) -> Tensor:
    """log(1 + exp(beta x)) / beta, computed stably; x itself where beta * x > threshold."""
    require_float(x, "softplus")
    attrs = {"beta": float(beta), "threshold": float(threshold)}
    found = _softplus_compiled(x, attrs["beta"], attrs["threshold"])
    if found is None:
        return apply_unary(softplus_op, x, attrs)
    return apply_xy(softplus_op, x, None, attrs, *found)


def softsign(x: Tensor, name: str | None = None) -> Tensor:
    return _f(x, softsign_op)


def hardtanh(x: Tensor, min: float = -1.0, max: float = 1.0, name: str | None = None
             ) -> Tensor:
    return _f(x, hardtanh_op, lo=float(min), hi=float(max))


def hardsigmoid(x: Tensor, slope: float = 0.1666667, offset: float = 0.5,
                name: str | None = None) -> Tensor:
    return _f(x, hardsigmoid_op, slope=float(slope), offset=float(offset))


def hardswish(x: Tensor, name: str | None = None) -> Tensor:
    return _f(x, hardswish_op)


def log_sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    require_float(x, "log_sigmoid")
    found = _compiled_input(x)
    if found is None:
        return apply_unary(log_sigmoid_op, x, {})
    k, d, t, need = found
    # -softplus(-x) as softplus's kernels compute it (exp of -|-x| = -|x|), then the factor
    # -expm1(out) from numpy: the numpy path's values bit for bit
    flat = d.reshape(-1)
    a, out = np.empty_like(flat), np.empty_like(flat)
    E.exp_neg_abs(k, flat, a)
    f32 = compiled_kernels("float32_math") if t is np.float32 else None
    if f32 is not None:       # (the rest in one pass: vm/float32_math.py's log_sigmoid)
        f = np.empty_like(flat) if need else NO_FACTOR
        f32.log_sigmoid(flat, a, out, f)
        return apply_xy(log_sigmoid_op, x, None, NO_ATTRS, out.reshape(d.shape),
                        (f.reshape(d.shape),) if need else None)
    a = rounded.log1p(a)
    k.log_sigmoid(flat, out, a, _ONE_ZERO[t][1])
    if not need:
        return apply_xy(log_sigmoid_op, x, None, NO_ATTRS, out.reshape(d.shape))
    a = rounded.expm1(out)
    return apply_xy(log_sigmoid_op, x, None, NO_ATTRS, out.reshape(d.shape),
                    (np.negative(a, out=a).reshape(d.shape),))


def _mish_softplus(m: Any, x: Any) -> Any:
    return _softplus_fwd(x, 1.0, 20.0) if isinstance(m, NumpyMath) else softplus(x)


def _mish_deriv(m: Any, x: Any, out: Any) -> Any:
    """tanh(sp) + x tanh'(sp) sp', sp = softplus(x), sp' = sigmoid(x)."""
    t = m.tanh(_mish_softplus(m, x))
    return t + x * ((1.0 - t * t) * m.sigmoid(x))


# one node for x tanh(softplus(x)) (the composite recorded three: softplus, tanh, multiply);
# the same output values, the gradient g times the factor above (the composite's rounded
# in another order)
mish_op = unary(
    "mish", lambda x: (x * np.tanh(_softplus_fwd(x, 1.0, 20.0))).astype(x.dtype, copy=False),
    _mish_deriv, domain=(-3.0, 3.0))


_MISH_SCALARS = {t: (t(20), t(1), t(0)) for t in (np.float32, np.float64)}


def _mish_compiled(k: Any, d: np.ndarray, t: type, need: bool) -> tuple:
    """(out, (factor,) or None) of mish on a C-contiguous float32/float64 d: a loop makes
    exp's argument, numpy's exp and rounded.log1p, a loop softplus (softplus_unit), numpy's
    tanh, a loop the output and the factor: mish_op's forward and _mish_deriv's values bit
    for bit."""
    flat = d.reshape(-1)
    e = np.empty_like(flat)
    E.exp_neg_abs(k, flat, e)
    sp = rounded.log1p(e)
    twenty, one, zero = _MISH_SCALARS[t]
    k.softplus_unit(flat, sp, twenty, zero)
    np.tanh(sp, out=sp)
    if not need:
        k.times(flat, sp)
        return sp.reshape(d.shape), None
    out, f = np.empty_like(flat), np.empty_like(flat)
    k.mish(flat, e, sp, out, f, one, zero)
    return out.reshape(d.shape), (f.reshape(d.shape),)


def mish(x: Tensor, name: str | None = None) -> Tensor:
    """x tanh(softplus(x)) (softplus's threshold 20), one node: mish_op."""
    require_float(x, "mish")
    found = _compiled_input(x)
    if found is None:
        return apply_xy(mish_op, x)
    return apply_xy(mish_op, x, None, NO_ATTRS, *_mish_compiled(*found))


def _tanhshrink_fwd(x: np.ndarray) -> np.ndarray:
    return np.subtract(x, np.tanh(x))


def _tanhshrink_deriv(m: Any, x: Any, out: Any) -> Any:
    t = m.tanh(x)
    return t * t


# one node for x - tanh(x) (the composite recorded two): the same output; the gradient
# g tanh(x)^2, as Paddle's kernel computes it (the composite's g - g (1 - t t) cancelled:
# ~1e-7 absolute where t t is that small)
tanhshrink_op = unary("tanhshrink", _tanhshrink_fwd, _tanhshrink_deriv, quiet=False)


def tanhshrink(x: Tensor, name: str | None = None) -> Tensor:
    """x - tanh(x), one node: tanhshrink_op, its factor tanh(x)^2 from the forward's tanh."""
    require_float(x, "tanhshrink")
    d = x._data
    if not d.ndim:
        return apply_xy(tanhshrink_op, x)               # (numpy's 0-d results are scalars)
    t = np.tanh(d)
    out = np.subtract(d, t)
    if x._stop_gradient or not tape.is_grad_enabled():
        return apply_xy(tanhshrink_op, x, None, NO_ATTRS, out)
    return apply_xy(tanhshrink_op, x, None, NO_ATTRS, out, (np.multiply(t, t, out=t),))


def hardshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """0 where -threshold < x < threshold, else x (so |x| == threshold keeps x, as in
    Paddle); a negative threshold keeps everything."""
    return _f(x, hardshrink_op, threshold=float(threshold))


def softshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """x - threshold above threshold, x + threshold below -threshold, 0 between (and on the
    edges, where the gradient is 0 too); nan stays nan (Paddle also turns +-inf into nan)."""
    if threshold < 0:
        raise ValueError(f"softshrink: threshold must be >= 0, got {threshold}")
    return _f(x, softshrink_op, threshold=float(threshold))


def celu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """x for x > 0, alpha * (exp(x / alpha) - 1) elsewhere; any alpha but 0 (Paddle raises
    ZeroDivisionError there, a ValueError here)."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0 (it divides x)")
    require_float(x, "celu")
    attrs = {"alpha": float(alpha)}
    found = compiled_input("forward_activation", x._data)
    if found is None:
        return apply_unary(celu_op, x, attrs)
    k, d = found          # apply_unary's compiled passes written out (as _elu)
    t = d.dtype.type
    a, inv, zero = kernel_scalars("celu_parts", _celu_parts_scalars, t, attrs)
    flat = d.reshape(-1)
    f32 = compiled_kernels("float32_math") if t is np.float32 else None
    if f32 is not None:       # (one pass: vm/float32_math.py's celu, the same values)
        out, f = np.empty_like(flat), np.empty_like(flat)
        f32.celu(flat, out, f, a, inv)
        return apply_xy(celu_op, x, None, attrs, out.reshape(d.shape), (f.reshape(d.shape),))
    # the factor's exp: float64 of w (a value of x's dtype) for float64; for float32,
    # rounded.exp of w in float32, which is float32 of numpy's float64 exp of it (the former
    # float64 w and np.exp), ~1.5x quicker and no float64 array
    z, w = np.empty_like(flat), np.empty_like(flat)
    k.celu_parts(flat, a, inv, zero, z, w)
    z = rounded.expm1(z)
    w = rounded.exp(w) if t is np.float32 else np.exp(w, out=w)
    out, f = np.empty_like(flat), np.empty_like(flat)
    k.celu(flat, out, f, z, w, *_scalars(celu_op, t, attrs))
    return apply_xy(celu_op, x, None, attrs, out.reshape(d.shape), (f.reshape(d.shape),))


def _celu_parts_scalars(t: type, alpha: float) -> tuple:
    """The celu_parts kernel's scalars (as _celu_numpy_parts passes them)."""
    return t(alpha), t(1.0 / alpha), t(0)


def thresholded_relu(x: Tensor, threshold: float = 1.0, value: float = 0.0,
                     name: str | None = None) -> Tensor:
    """x where x > threshold (strictly, compared in x's dtype), else the constant value; nan
    stays nan (Paddle also turns -inf into nan)."""
    return _f(x, thresholded_relu_op, threshold=float(threshold), value=float(value))


def _glu_layout(shape: tuple, axis: int) -> tuple[int, int, int]:
    """x as [R, 2, M]: the halves a, b along axis are the two M-blocks of each of R rows."""
    return (_m.prod(shape[:axis]), shape[axis] // 2, _m.prod(shape[axis + 1:]))


def _glu_forward(x: np.ndarray, axis: int) -> tuple:
    """a sigmoid(b) for the halves a, b of x along axis, and the factor f = [s, a (s (1 -
    s))] (x's shape, s = sigmoid(b)) the gradient multiplies g by (each half of f by g).
    One compiled pass around numpy's exp for float32/float64 once Numba is loaded (the
    numpy passes' values bit for bit); numpy otherwise."""
    R, H, K = _glu_layout(x.shape, axis)
    oshape = x.shape[:axis] + (H,) + x.shape[axis + 1:]
    found = compiled_input("forward_activation", x) if x.size else None
    if found is not None:
        kernels, d = found
        flat = d.reshape(-1)
        e = np.empty(R * H * K, d.dtype)
        kernels.glu_parts(flat, R, H * K, e)
        np.exp(e, out=e)
        out, f = np.empty(oshape, d.dtype), np.empty(d.shape, d.dtype)
        t = d.dtype.type
        kernels.glu(flat, e, R, H * K, out.reshape(-1), f.reshape(-1), t(1), t(0))
        return out, (f,)
    lead = (slice(None),) * axis
    a, b = x[lead + (slice(0, H),)], x[lead + (slice(H, None),)]
    s = _sigmoid(b)
    one = x.dtype.type(1)
    return a * s, (np.concatenate([s, a * (s * (one - s))], axis=axis),)


def _glu_vjp(g: Tensor, out: Tensor, x: Tensor, axis: int) -> tuple:
    from .indexing import concat
    H = x._data.shape[axis] // 2
    lead = (slice(None),) * axis
    a = apply_xy(getitem_op, x, None, {"key": lead + (slice(0, H),)})
    s = E.sigmoid(apply_xy(getitem_op, x, None, {"key": lead + (slice(H, None),)}))
    return (concat([g * s, g * (a * (s * (1.0 - s)))], axis=axis),)


def _glu_lower(b: Any, node: Any, g: Any, gins: list) -> None:
    """x's gradient: the output gradient spread over both halves ([R, 1, H K] onto
    [R, 2, H K]) times the saved factors."""
    R, H, K = _glu_layout(node.inputs[0]._data.shape, node.attrs["axis"])
    b.spread_mul(gins[0], g, b.value(node.saved[0]), (R, 1, H * K), (R, 2, H * K))


def _glu_interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
    axis = node.attrs["axis"]
    return (np.concatenate([g, g], axis=axis) * node.saved[0],)


glu_op = defop(
    "glu", forward=_glu_forward, forward_saves=True, vjp=_glu_vjp, lower=_glu_lower,
    interp=_glu_interp, quiet=True, min_ndim=1,
    # (the array rules read the saved factor: x may change in place before the backward,
    # as in Paddle 3.3.1, whose glu is a composite of x's halves)
    grad_reads=(), rule_reads=(0,),
    fused="the gated linear unit: one gather-multiply row by the factor [sigmoid(b), "
          "a sigmoid'(b)] its forward saves",
    cases=({"shapes": ((2, 4),), "attrs": {"axis": 1}},
           {"shapes": ((4, 3),), "attrs": {"axis": 0}},
           {"shapes": ((2, 6, 2),), "attrs": {"axis": 1}},
           {"shapes": ((6,),), "attrs": {"axis": 0}}))


def glu(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """Gated linear unit: split x in two halves a, b along axis, return a * sigmoid(b)
    (one node: glu_op)."""
    require_float(x, "glu")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"glu: axis must lie in [{-x.ndim}, {x.ndim}), got {axis}")
    if x.shape[axis] % 2:
        raise ValueError(f"glu: dimension {axis} of shape {x.shape} must be even to halve it")
    return apply_xy(glu_op, x, None, {"axis": axis % x.ndim})


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")

# x where x > 0, else w x, with w broadcast against x (prelu reshapes it to fit): one node.
# At x = 0 the slope is w's, as in Paddle 3.3.1.
prelu_op = binary(
    "prelu", lambda x, w: np.where(x > 0, x, w * x),
    lambda m, x, w, out: m.where(m.data(x) > 0, 1.0, w),
    lambda m, x, w, out: m.where(m.data(x) > 0, 0.0, x), quiet=False,
    cases=({"shapes": ((2, 3), (1, 3))}, {"shapes": ((2, 3), ())}, {"shapes": ((), ())},
           {"shapes": ((2, 3, 2), (1, 3, 1))}))


def prelu(x: Tensor, weight: Tensor, data_format: str = "NCHW", name: str | None = None
          ) -> Tensor:
    """x where x > 0, weight * x elsewhere (the gradient at 0 is weight's, as in Paddle).
    weight has one element (0-d or [1]: any x) or one per channel; the channel axis is 1, or
    the last one for channel-last data_format ('NLC', 'NHWC', 'NDHWC')."""
    require_float(x, "prelu")
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu: weight must be a Tensor, got {type(weight).__name__}")
    require_float(weight, "prelu")
    if weight._data.dtype != x._data.dtype:
        raise TypeError(f"prelu: weight dtype {weight.dtype.name} differs from x dtype "
                        f"{x.dtype.name}; cast one of them")
    if weight.ndim > 1:
        raise ValueError(f"prelu: weight must be 0-d or 1-D, got shape {weight.shape}")
    if weight.ndim == 1 and weight.shape[0] > 1:
        if data_format not in _PRELU_FORMATS:
            raise ValueError(f"prelu: data_format must be one of {_PRELU_FORMATS}, got "
                             f"{data_format!r}")
        if x.ndim < 2:
            raise ValueError(f"prelu: x must have at least 2 dims for a per-channel weight, "
                             f"got shape {x.shape}")
        ax = 1 if data_format[1] == "C" else x.ndim - 1
        if x.shape[ax] != weight.shape[0]:
            raise ValueError(f"prelu: weight has {weight.shape[0]} elements but x (shape "
                             f"{x.shape}, {data_format}) has {x.shape[ax]} channels")
        w = reshape(weight, [weight.shape[0] if i == ax else 1 for i in range(x.ndim)])
    else:
        ax = -1
        w = reshape(weight, [])
    found = _prelu_compiled(x, w, ax)
    if found is None:
        return apply_xy(prelu_op, x, w)
    return apply_xy(prelu_op, x, w, NO_ATTRS, *found)


def _prelu_compiled(x: Tensor, w: Tensor, ax: int) -> tuple | None:
    """(out, saved factors) of prelu from one compiled pass (vm/forward_activation.py:
    np.where's values bit for bit; ~10x quicker on a 16k-element batch), when a gradient
    is recorded; None: the numpy path. ax: the channel axis (-1: one weight)."""
    if not tape.is_grad_enabled() or (x._stop_gradient and w._stop_gradient):
        return None
    found = compiled_input("forward_activation", x._data, w._data)
    if found is None or not x._data.size:
        return None
    kernels, d, a = found
    shape = d.shape
    if ax < 0:
        R, C, K = 1, 1, d.size
    else:
        R, C, K = _m.prod(shape[:ax]), shape[ax], _m.prod(shape[ax + 1:])
    out, dx, dw = np.empty(shape, d.dtype), np.empty(shape, d.dtype), np.empty(shape, d.dtype)
    t = d.dtype.type
    kernels.prelu(d.reshape(-1), a.reshape(-1), R, C, K, out.reshape(-1), dx.reshape(-1),
                  dw.reshape(-1), t(1), t(0))
    return out, (None if x._stop_gradient else dx, None if w._stop_gradient else dw)


def maxout(x: Tensor, groups: int, axis: int = 1, name: str | None = None) -> Tensor:
    """The channels along axis (1, or -1 / 3 for channel-last 4-D input, as Paddle) taken in
    runs of `groups`, each run replaced by its maximum; the first maximum of a run gets the
    gradient (Paddle 3.3.1's rule for a tie; a NaN is the maximum)."""
    require_float(x, "maxout")
    if x.ndim != 4:
        raise ValueError(f"maxout needs a 4-D input, got shape {x.shape}")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    ax = axis % 4
    c = x.shape[ax]
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or c % groups:
        raise ValueError(f"maxout: groups must be a positive divisor of the {c} channels, "
                         f"got {groups!r}")
    shape = x.shape[:ax] + [c // groups, groups] + x.shape[ax + 1:]
    runs = reshape(x, shape)
    first = np.expand_dims(np.argmax(runs._data, axis=ax + 1), ax + 1)     # (NaN: the first)
    return reshape(take_along_axis(runs, Tensor._make(first), ax + 1),
                   shape[:ax + 1] + shape[ax + 2:])
