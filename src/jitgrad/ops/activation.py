"""Activation functions (paddle.nn.functional names). Each is one registry entry whose forward
saves f'(x), so the compiled backward is a single MUL; the vjp restates the derivative in
jitgrad ops (piecewise-linear ones use a constant mask: their second derivative is zero)."""

from __future__ import annotations

import math as _m

import numpy as np

from ..tensor import Tensor
from . import elementwise as E
from .core import apply_internal, const, require_float
from .elementwise import _sigmoid
from .math import _erf, erf, unary
from .registry import UNARY_CASES


def _cases(**attrs):
    return tuple({"shapes": s, "attrs": dict(attrs)} for s in UNARY_CASES)


def _mask(x: Tensor, m: np.ndarray) -> Tensor:
    return const(m, x._data.dtype)


relu6_op = unary(
    "relu6", lambda x, threshold: np.clip(x, 0, threshold).astype(x.dtype, copy=False),
    lambda x, out, threshold: (x > 0) & (x < threshold),
    lambda g, out, x, threshold: (g * _mask(x, (x._data > 0) & (x._data < threshold)),),
    domain=(-3.0, 8.0), cases=_cases(threshold=6.0))

leaky_relu_op = unary(
    "leaky_relu", lambda x, slope: np.where(x >= 0, x, slope * x).astype(x.dtype),
    lambda x, out, slope: np.where(x >= 0, 1.0, slope),
    lambda g, out, x, slope: (g * _mask(x, np.where(x._data >= 0, 1.0, slope)),),
    cases=_cases(slope=0.1))


def _elu_fwd(x, alpha, scale):
    return (scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))).astype(x.dtype)


def _elu_vjp(g, out, x, alpha, scale):
    pos = x._data > 0
    return (g * (_mask(x, pos * scale) + _mask(x, ~pos) * (out + scale * alpha)),)


elu_op = unary(
    "elu", _elu_fwd, lambda x, out, alpha, scale: np.where(x > 0, scale, out + scale * alpha),
    _elu_vjp, cases=_cases(alpha=1.0, scale=1.0) + (
        {"shapes": ((2, 3),), "attrs": {"alpha": 1.6732632423543772,
                                        "scale": 1.0507009873554805}},))

_K = _m.sqrt(2.0 / _m.pi)
_C = 0.044715


def _gelu_fwd(x, approximate):
    if approximate:
        return (0.5 * x * (1 + np.tanh(_K * (x + _C * x ** 3)))).astype(x.dtype)
    return (0.5 * x * (1 + _erf(x / _m.sqrt(2.0)))).astype(x.dtype)


def _gelu_deriv(x, out, approximate):
    if approximate:
        t = np.tanh(_K * (x + _C * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _K * (1 + 3 * _C * x * x)
    return 0.5 * (1 + _erf(x / _m.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / _m.sqrt(2 * _m.pi)


def _gelu_vjp(g, out, x, approximate):
    if approximate:
        t = E.tanh((x + x * x * x * _C) * _K)
        return (g * ((t + 1.0) * 0.5 + x * (1.0 - t * t) * (x * x * (3 * _C) + 1.0) * (0.5 * _K)),)
    cdf = (erf(x * (1 / _m.sqrt(2.0))) + 1.0) * 0.5
    return (g * (cdf + x * E.exp(x * x * -0.5) * (1 / _m.sqrt(2 * _m.pi))),)


gelu_op = unary("gelu", _gelu_fwd, _gelu_deriv, _gelu_vjp,
                cases=_cases(approximate=False) + _cases(approximate=True)[:3])


def _silu_deriv(x, out):
    s = _sigmoid(x)
    return s * (1 + x * (1 - s))


def _silu_vjp(g, out, x):
    s = E.sigmoid(x)
    return (g * (s + x * s * (1.0 - s)),)


silu_op = unary("silu", lambda x: (x * _sigmoid(x)).astype(x.dtype), _silu_deriv, _silu_vjp)


def _softplus_fwd(x, beta, threshold):
    z = beta * x
    soft = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
    return np.where(z > threshold, x, soft).astype(x.dtype)


def _softplus_vjp(g, out, x, beta, threshold):
    lin = x._data * beta > threshold
    return (g * (_mask(x, lin) + _mask(x, ~lin) * E.sigmoid(x * beta)),)


softplus_op = unary(
    "softplus", _softplus_fwd,
    lambda x, out, beta, threshold: np.where(beta * x > threshold, 1.0, _sigmoid(beta * x)),
    _softplus_vjp, cases=_cases(beta=1.0, threshold=20.0) + (
        {"shapes": ((6,),), "attrs": {"beta": 2.0, "threshold": 2.0}},))

softsign_op = unary(
    "softsign", lambda x: (x / (1 + np.abs(x))).astype(x.dtype),
    lambda x, out: 1 / (1 + np.abs(x)) ** 2,
    lambda g, out, x: (g / E.square(E.abs(x) + 1.0),))

hardtanh_op = unary(
    "hardtanh", lambda x, lo, hi: np.clip(x, lo, hi).astype(x.dtype, copy=False),
    lambda x, out, lo, hi: (x > lo) & (x < hi),
    lambda g, out, x, lo, hi: (g * _mask(x, (x._data > lo) & (x._data < hi)),),
    cases=_cases(lo=-1.0, hi=1.0))


def _hsig_mask(x, slope, offset):
    z = slope * x + offset
    return (z > 0) & (z < 1)


hardsigmoid_op = unary(
    "hardsigmoid",
    lambda x, slope, offset: np.clip(slope * x + offset, 0, 1).astype(x.dtype),
    lambda x, out, slope, offset: _hsig_mask(x, slope, offset) * slope,
    lambda g, out, x, slope, offset: (g * _mask(x, _hsig_mask(x._data, slope, offset) * slope),),
    domain=(-5.0, 5.0), cases=_cases(slope=1 / 6, offset=0.5))


def _hswish_parts(x):
    return (x > -3) & (x < 3), x >= 3


def _hswish_vjp(g, out, x):
    mid, hi = _hswish_parts(x._data)
    return (g * (_mask(x, mid) * (x * (2 / 6) + 0.5) + _mask(x, hi)),)


hardswish_op = unary(
    "hardswish", lambda x: (x * np.clip(x + 3, 0, 6) / 6).astype(x.dtype),
    lambda x, out: np.where(x >= 3, 1.0, np.where(x > -3, (2 * x + 3) / 6, 0.0)),
    _hswish_vjp, domain=(-5.0, 5.0))


# ---- public functions ----------------------------------------------------------------------

def _f(x: Tensor, op, **attrs) -> Tensor:
    require_float(x, op.name)
    return apply_internal(op, x, **attrs)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6); gradient 1 strictly inside (0, 6)."""
    return _f(x, relu6_op, threshold=6.0)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """x for x >= 0, slope * x below; the gradient at 0 is 1 (Paddle's convention)."""
    return _f(x, leaky_relu_op, slope=float(negative_slope))


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    return _f(x, elu_op, alpha=float(alpha), scale=1.0)


def selu(x: Tensor, scale: float = 1.0507009873554805, alpha: float = 1.6732632423543772,
         name: str | None = None) -> Tensor:
    return _f(x, elu_op, alpha=float(alpha), scale=float(scale))


def gelu(x: Tensor, approximate: bool = False, name: str | None = None) -> Tensor:
    """x * Phi(x) (exact, via erf) or its tanh approximation."""
    return _f(x, gelu_op, approximate=bool(approximate))


def silu(x: Tensor, name: str | None = None) -> Tensor:
    return _f(x, silu_op)


swish = silu


def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0, name: str | None = None
             ) -> Tensor:
    """log(1 + exp(beta x)) / beta, computed stably; x itself where beta * x > threshold."""
    return _f(x, softplus_op, beta=float(beta), threshold=float(threshold))


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
    return -softplus(-x, threshold=float("inf"))


def mish(x: Tensor, name: str | None = None) -> Tensor:
    return x * E.tanh(softplus(x))


def tanhshrink(x: Tensor, name: str | None = None) -> Tensor:
    return x - E.tanh(x)
