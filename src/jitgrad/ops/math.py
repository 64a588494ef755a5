"""More elementwise math: inverse trig and hyperbolic functions, logs, erf, rounding.

Each differentiable unary op states its derivative f'(x) once (ops/derivative.py): the
forward saves it, so the compiled backward is one MUL kernel (NUMBA_NOTES.md section 2), and
the same expression in jitgrad ops is the eager rule, differentiable again.
"""

from __future__ import annotations

import math as _m
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..core import tape
from ..core.torch_kwargs import out_param
from ..core.quiet import quiet
from .core import NO_ATTRS, apply_xy, binary_operands, compiled_input, compiled_kernels, \
    FLOAT16, call_in_float32, float_input, require_float
from . import rounded
from . import elementwise as E
from .registry import SELECTS
from .derivative import NumpyMath, Select, apply_unary, binary, numpy_function, unary


_SQRT_PI_2 = 2.0 / _m.sqrt(_m.pi)

# The factor array passed to a fused float32 kernel when the caller needs no factor (no
# gradient is recorded): empty, so the kernel skips writing it (activation.py, special.py).
NO_FACTOR = np.empty(0, np.float32)


def special_kernels(x: np.ndarray) -> tuple[Any, np.ndarray] | None:
    """compiled_input of vm/forward_special.py for x, x also writeable (a read-only one is
    copied: its kernels' one compiled variant); None until the backward interpreter has
    loaded Numba (importing it here would slow `import jitgrad`), or for other dtypes."""
    found = compiled_input("forward_special", x)
    if found is None or found[1].flags.writeable:
        return found
    return found[0], np.array(x, order="C")


def special_kernel(x: np.ndarray, name: str, *args: Any) -> np.ndarray | None:
    """kernel `name` of vm/forward_special.py on x, into a new array of x's shape and dtype;
    None when special_kernels(x) is."""
    found = special_kernels(x)
    if found is None:
        return None
    kernels, x = found
    out = np.empty(x.shape, x.dtype)
    getattr(kernels, name)(x.reshape(-1), out.reshape(-1), *args)
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf and scipy is not a dependency: math.erf is correctly rounded enough;
    # the compiled kernel (vm/forward_special.py) its own vectorisable erf, within an ulp.
    out = special_kernel(x, "erf")
    if out is not None:
        return out
    return np.asarray(np.frompyfunc(_m.erf, 1, 1)(x.astype(np.float64)), dtype=x.dtype)


# (expm1, rsqrt, reciprocal: derivatives of the output alone, which the backward computes
# from it (factor_kernels' expressions read out only), so x may change in place before the
# backward, as in Paddle 3.3.1, whose kernels keep only the output)
expm1_op = unary("expm1", rounded.expm1, lambda m, x, out: out + 1.0)
log1p_op = unary("log1p", rounded.log1p, lambda m, x, out: 1.0 / (x + 1.0), domain=(-0.5, 2.0))
log2_op = unary("log2", rounded.log2,
                lambda m, x, out: 1.0 / (x * _m.log(2.0)), domain=(0.3, 3.0))
log10_op = unary("log10", rounded.log10,
                 lambda m, x, out: 1.0 / (x * _m.log(10.0)), domain=(0.3, 3.0))
rsqrt_op = unary("rsqrt", lambda x: (1 / np.sqrt(x)).astype(x.dtype),
                 lambda m, x, out: out * out * out * -0.5, domain=(0.3, 3.0))
reciprocal_op = unary("reciprocal", lambda x: (1 / x).astype(x.dtype),
                      lambda m, x, out: -(out * out), domain=(0.5, 2.0))
sinh_op = unary("sinh", rounded.sinh, lambda m, x, out: m.cosh(x))
cosh_op = unary("cosh", rounded.cosh, lambda m, x, out: m.sinh(x))
for _op in (sinh_op, cosh_op, expm1_op, log1p_op):   # (m.sinh ... on arrays: these, not numpy's)
    numpy_function(_op.name, _op.forward)
tan_op = unary("tan", rounded.tan, lambda m, x, out: out * out + 1.0, domain=(-1.2, 1.2))
asin_op = unary("asin", np.arcsin, lambda m, x, out: m.rsqrt(1.0 - x * x), domain=(-0.8, 0.8))
acos_op = unary("acos", np.arccos, lambda m, x, out: -m.rsqrt(1.0 - x * x),
                domain=(-0.8, 0.8))
atan_op = unary("atan", rounded.atan, lambda m, x, out: 1.0 / (x * x + 1.0))
asinh_op = unary("asinh", rounded.asinh, lambda m, x, out: m.rsqrt(x * x + 1.0))
acosh_op = unary("acosh", rounded.acosh, lambda m, x, out: m.rsqrt(x * x - 1.0),
                 domain=(1.3, 3.0))
atanh_op = unary("atanh", rounded.atanh, lambda m, x, out: 1.0 / (1.0 - x * x),
                 domain=(-0.8, 0.8))


def _logit_deriv(m, x, out):
    """1 / (x (1 - x)): inf at 0 and 1, nan outside [0, 1] (Paddle 3.3.1, measured)."""
    d = m.data(x)
    return m.where((d < 0) | (d > 1), np.nan, 1.0 / (x * (1.0 - x)))


logit_op = unary("logit", lambda x: rounded.log(x / (1 - x)), _logit_deriv, domain=(0.2, 0.8))
# once Numba is loaded, output and factor from one pass (vm/forward_activation.py's erf:
# vectorised erf and exp, the factor's roundings as this one's)
def _erf_deriv(m, x, out):
    """2/sqrt(pi) exp(-x^2); on arrays the compiled kernel's once Numba is loaded (the
    values of forward_activation.py's erf factor: its exp within an ulp of numpy's)."""
    if isinstance(m, NumpyMath):
        d = special_kernel(x, "erf_deriv", x.dtype.type(_SQRT_PI_2))
        if d is not None:
            return d
    return m.exp(-(x * x)) * _SQRT_PI_2


erf_op = unary("erf", _erf, _erf_deriv,
               compiled=("erf", lambda t: (t(_SQRT_PI_2),)))
numpy_function("erf", _erf)


floor_op = unary("floor", np.floor, lambda m, x, out: 0.0, quiet=False, float16_exact=SELECTS)
ceil_op = unary("ceil", np.ceil, lambda m, x, out: 0.0, quiet=False, float16_exact=SELECTS)
round_op = unary("round", np.round, lambda m, x, out: 0.0, quiet=False, float16_exact=SELECTS)
sign_op = unary("sign", np.sign, lambda m, x, out: 0.0, quiet=False, float16_exact=SELECTS)
trunc_op = unary("trunc", np.trunc, lambda m, x, out: 0.0, quiet=False, float16_exact=SELECTS)
frac_op = unary("frac", lambda x: x - np.trunc(x), lambda m, x, out: 1.0,
                doc="x - trunc(x); gradient 1 (also where x is inf or nan, as Paddle's)")


heaviside_op = binary(
    "heaviside", np.heaviside, lambda m, x, y, out: 0.0,
    Select(lambda m, x, y, out: m.data(x) == 0), quiet=False, float16_exact=SELECTS,
    doc="0 where x < 0, y where x == 0, 1 where x > 0; Paddle's gradients: 0 for x, and "
        "for y the upstream gradient where x == 0")

atan2_op = binary("atan2", np.arctan2, lambda m, x, y, out: y / (x * x + y * y),
                  lambda m, x, y, out: -x / (x * x + y * y), quiet=False, domain=(0.5, 2.0))

def _remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if y.size == 1 and y.ndim <= x.ndim and x.dtype == y.dtype:     # x % a scalar
        out = special_kernel(x, "remainder", y.reshape(1), x.dtype == np.float32)
        if out is not None:
            return out
    return np.remainder(x, y)


remainder_op = binary(
    "remainder", _remainder, lambda m, x, y, out: 1.0,
    lambda m, x, y, out: m.mask(-np.floor_divide(m.data(x), m.data(y))), domain=(0.5, 2.0),
    doc="x - floor(x / y) * y: the sign of the divisor (Paddle, Python); d/dx 1, "
        "d/dy -floor(x / y)")

# ---- public functions ----------------------------------------------------------------------

def _u(op):
    def fn(x: Tensor, name: str | None = None, out: Tensor | None = None) -> Tensor:
        y = apply_xy(op, float_input(x, op.name))
        return y if out is None else out_param(op.name, out, y)     # (torch-style out=)
    fn.__name__ = op.name
    fn.__doc__ = f"Elementwise {op.name} (Paddle's paddle.{op.name})."
    return fn


expm1, log1p, log2, log10 = _u(expm1_op), _u(log1p_op), _u(log2_op), _u(log10_op)
rsqrt, reciprocal = _u(rsqrt_op), _u(reciprocal_op)
sinh, cosh, tan = _u(sinh_op), _u(cosh_op), _u(tan_op)
asin, acos, atan = _u(asin_op), _u(acos_op), _u(atan_op)
asinh, acosh, atanh = _u(asinh_op), _u(acosh_op), _u(atanh_op)


def erf(x: Tensor, name: str | None = None) -> Tensor:
    """Elementwise erf (Paddle's paddle.erf): output and saved factor from one compiled
    pass once Numba is loaded (apply_unary)."""
    return apply_unary(erf_op, float_input(x, "erf"), {})


def logit(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    """log(x / (1 - x)). With eps > 0, x is clipped to [eps, 1 - eps] first (its gradient is
    0 outside); eps None or 0 clips nothing (Paddle: nan outside [0, 1], +-inf at the ends,
    gradients too)."""
    x = float_input(x, "logit")
    if eps:
        if not 0 <= eps <= 0.5:     # (else clip's 'min (2.0) is larger than max (-1.0)')
            raise ValueError(f"logit: eps must lie in [0, 0.5] (x is clipped to [eps, 1 - eps]),"
                             f" got {eps}")
        x = E.clip(x, eps, 1 - eps)
    d = x._data
    found = compiled_input("forward_activation", d)
    if found is None:
        return apply_xy(logit_op, x)
    # one pass makes the log's argument and the factor (the numpy forward's and deriv's
    # values bit for bit), numpy's float64 log the output
    kernels, flat = found[0], found[1].reshape(-1)
    q, factor = np.empty_like(flat), np.empty_like(flat)
    t = d.dtype.type
    kernels.logit_parts(flat, q, factor, t(1), t(np.nan))
    return apply_xy(logit_op, x, None, NO_ATTRS, _QUIET_LOG(q).reshape(d.shape),
                    (factor.reshape(d.shape),))


_QUIET_LOG = quiet(rounded.log)            # (log of a negative q: nan, silently, as Paddle)


def floor(x: Tensor, name: str | None = None, out: Tensor | None = None) -> Tensor:
    """Round down; the gradient is zero (Paddle's convention)."""
    y = apply_xy(floor_op, x) if x._data.dtype.kind == "f" else x
    return y if out is None else out_param("floor", out, y)


def ceil(x: Tensor, name: str | None = None, out: Tensor | None = None) -> Tensor:
    y = apply_xy(ceil_op, x) if x._data.dtype.kind == "f" else x
    return y if out is None else out_param("ceil", out, y)


def round(x: Tensor, decimals: int = 0, name: str | None = None,  # noqa: A001
          out: Tensor | None = None) -> Tensor:
    """Round half to even (numpy's rule) to `decimals` places (x * 10^decimals rounded, then
    divided back, in x's dtype, as Paddle 3.3.1); zero gradient. out: torch-style out=."""
    if x._data.dtype.kind != "f":
        y = x
    elif decimals:
        scale = 10.0 ** int(decimals)
        y = apply_xy(round_op, x * scale) / scale
    else:
        y = apply_xy(round_op, x)
    return y if out is None else out_param("round", out, y)


def sign(x: Tensor, name: str | None = None, out: Tensor | None = None) -> Tensor:
    """-1, 0 or 1; the gradient is zero (as Paddle's: x.grad becomes zeros, not None)."""
    y = apply_xy(sign_op, x) if x._data.dtype.kind == "f" else Tensor._make(np.sign(x._data))
    return y if out is None else out_param("sign", out, y)


def heaviside(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The step function with the value y at 0 (y broadcasts against x)."""
    x, y = binary_operands(x, y)
    if x._data.dtype.kind != "f" or y._data.dtype.kind != "f":
        return Tensor._make(np.heaviside(x._data, y._data))
    return apply_xy(heaviside_op, x, y)


def atan2(x: Any, y: Any, name: str | None = None) -> Tensor:
    """arctan(x / y) in the right quadrant (Paddle's argument order: x is the numerator).
    Its two factors, y / (x x + y y) and -x / (x x + y y), are computed by the backward
    (ops/factor_kernels.py's expressions): the forward is numpy's arctan2 alone."""
    x, y = binary_operands(x, y, true_divide=True)
    return apply_xy(atan2_op, x, y)


def lerp(x: Any, y: Any, weight: Any, name: str | None = None) -> Tensor:
    """x + weight * (y - x); weight may be a float or a Tensor (composite)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(lerp, locals())
    return x + weight * (y - x)


def remainder(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x mod y with the sign of y (Paddle's remainder / mod / floor_mod, and `%`)."""
    x, y = binary_operands(x, y, zero_dim=True)
    if x._data.dtype.kind != "f" or y._data.dtype.kind != "f":
        if (np.asarray(y._data) == 0).any():
            raise ValueError("remainder: integer division by zero")
        return Tensor._make(np.remainder(x._data, y._data))
    return apply_xy(remainder_op, x, y)


mod = floor_mod = remainder


def trunc(input: Tensor, name: str | None = None) -> Tensor:
    """Round toward zero; the gradient is zero (as floor's). Int tensors come back as they
    are (Paddle keeps their dtype)."""
    return apply_xy(trunc_op, input) if input._data.dtype.kind == "f" else input


def frac(x: Tensor, name: str | None = None, out: Tensor | None = None) -> Tensor:
    """x - trunc(x), with the sign of x; the gradient is 1 everywhere (inf and nan give nan
    values but still gradient 1, as in Paddle). Int tensors give zeros of their dtype.
    out: torch-style out=."""
    if x._data.dtype.kind != "f":
        y = Tensor._make(np.zeros_like(x._data))
    else:
        y = apply_xy(frac_op, x)
    return y if out is None else out_param("frac", out, y)


def _float_of(x: Tensor) -> Tensor:
    """Int and bool tensors as float32 (Paddle's default float for these ops), floats as
    they are."""
    if not isinstance(x, Tensor):
        raise TypeError(f"expected a Tensor, got {type(x).__name__}")
    return x if x._data.dtype.kind == "f" else Tensor._make(x._data.astype(np.float32))


def rad2deg(x: Tensor, name: str | None = None) -> Tensor:
    """Radians to degrees, x * 180 / pi; int tensors give float32 (as Paddle)."""
    return _float_of(x) * (180.0 / _m.pi)


def deg2rad(x: Tensor, name: str | None = None) -> Tensor:
    """Degrees to radians, x * pi / 180; int tensors give float32 (as Paddle)."""
    return _float_of(x) * (_m.pi / 180.0)


def _logaddexp_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """max(x, y) + log1p(exp(-|x - y|)), rounded step by step as the composite of jitgrad
    ops was; where x and y are the same infinity the difference is taken as 0."""
    m = np.maximum(x, y)
    d = x - y
    if np.isnan(d).any():               # (the same infinity's difference is nan: look there)
        same_inf = np.isinf(x) & (x == y)
        d = np.where(same_inf, 0, d).astype(d.dtype)
    return (m + rounded.log1p(rounded.exp(-np.abs(d)))).astype(m.dtype)


def _logaddexp_slope(m, a, b):
    """d/da logaddexp(a, b) = sigmoid(a - b); 0.5 each where both are the same infinity
    (there, and only there for non-nan inputs, a - b is nan: the infinity test and the
    choice are skipped when no slope is nan)."""
    s = m.sigmoid(a - b)
    if not np.isnan(m.data(s)).any():
        return s
    va, vb = m.data(a), m.data(b)
    return m.where(np.isinf(va) & (va == vb), 0.5, s)


logaddexp_op = binary("logaddexp", _logaddexp_forward,
                      lambda m, x, y, out: _logaddexp_slope(m, x, y),
                      lambda m, x, y, out: _logaddexp_slope(m, y, x))


def compiled_pair(x: Tensor, y: Tensor) -> tuple | None:
    """(vm/forward_activation.py, x's and y's values flat and contiguous, their shape, their
    scalar type, needs) for two float32 or two float64 tensors of one shape once Numba is
    loaded (needs: (x needs a gradient, y needs one)); None otherwise (the numpy path)."""
    d, e = x._data, y._data
    found = compiled_input("forward_activation", d, e) if d.shape == e.shape else None
    if found is None:
        return None
    kernels, d, e = found
    on = tape.is_grad_enabled()
    return (kernels, d.reshape(-1), e.reshape(-1), d.shape, d.dtype.type,
            (on and not x._stop_gradient, on and not y._stop_gradient))


# (0, 1, 0.5) in each float dtype, made once: three scalars made per call cost ~0.6 us
_CONSTS = {np.dtype(t): (t(0), t(1), t(0.5)) for t in (np.float32, np.float64)}


def _logaddexp_compiled(x: Tensor, y: Tensor) -> tuple | None:
    """(out, saved) of logaddexp for two float32 or float64 tensors of one shape once Numba
    is loaded (vm/forward_binary.py): a compiled loop makes -|x - y|; rounded.log1p of
    rounded.exp of it and, for the slopes, numpy's exp in x's dtype (_sigmoid's); one loop
    makes max(x, y) and both slopes; numpy's sum makes the output: _logaddexp_forward's and
    _logaddexp_slope's values bit for bit. None: the numpy path."""
    d, e = x._data, y._data
    found = compiled_input("forward_binary", d, e) if d.shape == e.shape else None
    if found is None:
        return None
    k, d, e = found
    on = tape.is_grad_enabled()
    nx, ny = on and not x._stop_gradient, on and not y._stop_gradient
    dt = d.dtype
    zero, one, half = _CONSTS[dt]
    a, b = d.reshape(-1), e.reshape(-1)
    n = a.size
    m = np.empty(n, dt)                         # -|x - y| (then its exp, for the slopes)
    k.logaddexp_parts(a, b, m, zero)
    if dt.itemsize == 4:                        # (the slopes take numpy's float32 exp)
        f32 = compiled_kernels("float32_math")
        if f32 is not None:                     # (rounded.log1p(rounded.exp(m)), one pass)
            lg = np.empty(n, dt)
            f32.log1p_exp(m, lg)
        else:
            lg = rounded.log1p(rounded.exp(m))
        if nx or ny:
            np.exp(m, out=m)
    else:                                       # (one exp for both)
        np.exp(m, out=m)
        lg = np.log1p(m)
    if nx or ny:
        out, dx, dy = np.empty(n, dt), np.empty(n, dt), np.empty(n, dt)   # (no flags)
        k.logaddexp_slopes(a, b, m, out, dx, dy, zero, one, half)
    else:
        out = np.maximum(a, b)
    np.add(out, lg, out=out)
    shape = d.shape
    if not (nx or ny):
        return out.reshape(shape), None
    return out.reshape(shape), (dx.reshape(shape) if nx else None,
                                dy.reshape(shape) if ny else None)


def logaddexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """log(exp(x) + exp(y)) without overflow: max(x, y) + log1p(exp(-|x - y|)). Int tensors
    become float32, float32 with float64 gives float64 (as Paddle). The gradient is
    sigmoid(x - y) for x (ties 0.5 each). Where x and y are the same infinity, this gives
    that infinity, as the formula Paddle documents does (Paddle 3.3.1 itself returns nan
    there, from inf - inf)."""
    x, y = binary_operands(_float_of(x), _float_of(y))
    found = _logaddexp_compiled(x, y)
    if found is None:
        return apply_xy(logaddexp_op, x, y)
    return apply_xy(logaddexp_op, x, y, {}, *found)


def nan_to_num(x: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, name: str | None = None) -> Tensor:
    """nan, +inf and -inf replaced by `nan`, `posinf` and `neginf` (None: the dtype's largest
    and lowest finite values). The gradient is 1 where x was finite and 0 where it was
    replaced (as Paddle). Float tensors only, as in Paddle."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nan_to_num: x must be a Tensor, got {type(x).__name__}")
    require_float(x, "nan_to_num")
    info = np.finfo(x._data.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    d = x._data
    if np.isfinite(d).all():
        return E.clone(x)
    fill = np.where(np.isnan(d), nan, np.where(d > 0, hi, lo)).astype(d.dtype)
    return E.where(Tensor._make(np.isfinite(d)), x, Tensor._make(fill))
