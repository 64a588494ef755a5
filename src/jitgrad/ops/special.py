"""Special functions without scipy: lgamma (gammaln), digamma, polygamma, erfinv and the
regularized incomplete gamma functions gammainc / gammaincc.

Each is one registry entry saving its derivative in the forward pass (the backward is one MUL,
as for the other unary ops): lgamma' = digamma, polygamma(n)' = polygamma(n + 1), so every
order of derivative exists; erfinv' = sqrt(pi)/2 exp(erfinv(x)^2). Values are computed in
float64: polygamma by the recurrence psi_n(x) = psi_n(x + 1) - (-1)^n n! / x^(n+1) up to
x >= 10 and the asymptotic series there (about 1e-15 relative for small n), at non-integers
below -1e4 (and for even n >= 2 at every negative x) the reflection formula from
psi_n(1 - x), so that every input takes a bounded time (the recurrence took |x| steps);
erfinv by Newton steps on math.erf from a rational start. Once Numba is loaded, lgamma,
digamma and polygamma(x, 1) compute their output and that saved derivative in one compiled
pass when x needs a gradient (_apply_with_factor: the shift and the log are shared); lgamma
by vm/forward_special.py's own series, float32 results those of the C library's lgamma."""

from __future__ import annotations

import math as _m
from typing import Any

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from .core import _F32, NO_ATTRS, apply_internal, apply_xy, compiled_kernels, require_float
from .derivative import numpy_function, unary
from .math import NO_FACTOR, special_kernels
from .registry import UNARY_CASES

# B_2, B_4, ..., B_20
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330]
_SHIFT_TO = 10.0
_REFLECT = -1e4             # below: the reflection formula (vm/forward_special.py's _PSI_REFLECT)


def _cot_poly(n: int) -> list:
    """P_n's coefficients (c^0 first): cot^(n)(y) = P_n(cot y), P_(k+1) = -(1 + c^2) P_k'."""
    a = [0.0, 1.0]
    for _ in range(n):
        a = [-((i + 1) * (a[i + 1] if i + 1 < len(a) else 0.0)
               + (i - 1) * (a[i - 1] if 1 <= i <= len(a) else 0.0)) for i in range(len(a) + 1)]
    return a


def _reflect64(n: int, x: np.ndarray, r: np.ndarray) -> np.ndarray:
    """psi_n(x) for non-integers x from r = psi_n(1 - x): (-1)^n r - pi^(n+1) P_n(cot(pi x)),
    cot(pi x) from x's exact fractional part (vm/forward_special.py's _psi_reflect)."""
    f = x - np.round(x)         # (exact; x - floor(x) is not for a tiny negative x)
    a = np.abs(f)
    c = np.copysign(np.where(a > 0.25, np.tan(np.pi * (0.5 - a)), 1.0 / np.tan(np.pi * a)), f)
    p = np.zeros_like(c)
    for coef in reversed(_cot_poly(n)):
        p = p * c + coef
    return (r if n % 2 == 0 else -r) - np.pi ** (n + 1) * p


def _polygamma64(n: int, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x) in float64: poles (x = 0, -1, -2, ...) give -inf for n = 0 at +0 (+inf at
    -0, the limit from the left), else the sign-appropriate inf or nan, as Paddle.
    Non-integers below -1e4, and for an even n >= 2 every negative non-integer, by the
    reflection formula from psi_n(1 - x) (vm/forward_special.py's _reflects: the recurrence
    would take |x| steps, and for even n its sum cancels near half-integers)."""
    x = np.asarray(x, dtype=np.float64)
    shape = x.shape
    x = x.reshape(-1)                                   # (the recurrence indexes it flat)
    out = np.zeros(x.shape)
    pole = (x <= 0) & (x == np.floor(x))
    reflect = ((x < _REFLECT) | ((n >= 2 and n % 2 == 0) & (x < 0))) & ~pole  # (-inf: a pole)
    z = np.where(pole | ~np.isfinite(x), _SHIFT_TO, np.where(reflect, 1.0 - x, x))
    sign = 1.0 if n % 2 else -1.0                       # (-1)^(n+1)
    fact = float(_m.factorial(n))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low = np.flatnonzero(z < _SHIFT_TO)             # the recurrence up to x >= 10
        while low.size:
            zl = z[low]
            if n == 0:
                out[low] = out[low] - 1.0 / zl
            else:
                out[low] = out[low] + sign * fact / zl ** (n + 1)
            z[low] = zl + 1.0
            low = low[z[low] < _SHIFT_TO]
        zi = 1.0 / z
        if n == 0:
            series = np.log(z) - 0.5 * zi
            zz = zi * zi
            term = zz
            for k, b in enumerate(_BERNOULLI, 1):
                series = series - b / (2 * k) * term
                term = term * zz
        else:
            series = _m.factorial(n - 1) * zi ** n + 0.5 * fact * zi ** (n + 1)
            for k, b in enumerate(_BERNOULLI, 1):
                series = series + b * _m.factorial(2 * k + n - 1) / _m.factorial(2 * k) * \
                    zi ** (2 * k + n)
            series = sign * series
        out = out + series
        if reflect.any():
            out[reflect] = _reflect64(n, x[reflect], out[reflect])
    out = np.where(np.isnan(x), np.nan, out)
    out = np.where(np.isposinf(x), 0.0 if n else np.inf, out)
    if n == 0:
        out = np.where(pole, np.where(x == 0, np.copysign(np.inf, -x), np.nan), out)
    else:
        out = np.where(pole, np.inf if n % 2 else -np.inf, out)     # as Paddle 3.3.1
    return out.reshape(shape)


def _lgamma64(x: np.ndarray) -> np.ndarray:
    def one(v: float) -> float:
        try:
            return _m.lgamma(v)
        except ValueError:                                # a pole: Paddle gives inf
            return _m.inf
    return np.asarray(np.frompyfunc(one, 1, 1)(np.asarray(x, np.float64)), dtype=np.float64)


def _erfinv64(y: np.ndarray) -> np.ndarray:
    """erf^-1 in float64: a rational first guess, then Newton steps on math.erf."""
    y = np.asarray(y, dtype=np.float64)
    inside = np.abs(y) < 1
    t = np.where(inside, y, 0.0)
    w = -np.log((1.0 - t) * (1.0 + t))                  # -log(1 - y^2) >= 0
    c = 2 / (_m.pi * 0.147) - w / 2                      # (Winitzki's approximation)
    x = np.sign(t) * np.sqrt(np.sqrt(c * c + w / 0.147) - c)
    erf = np.frompyfunc(_m.erf, 1, 1)
    for _ in range(4):
        err = np.asarray(erf(x), dtype=np.float64) - t
        x = x - err / (2 / _m.sqrt(_m.pi) * np.exp(-x * x))
    x = np.where(inside, x, np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.nan))
    return x


_SERIES: dict[int, tuple] = {}


def _series(n: int) -> tuple:
    """(n!, (n-1)!, the asymptotic series' coefficients) for the polygamma kernel."""
    got = _SERIES.get(n)
    if got is None:
        if n == 0:
            coef = [b / (2 * k) for k, b in enumerate(_BERNOULLI, 1)]
            got = (0.0, 0.0, np.array(coef))
        else:
            coef = [b * _m.factorial(2 * k + n - 1) / _m.factorial(2 * k)
                    for k, b in enumerate(_BERNOULLI, 1)]
            got = (float(_m.factorial(n)), float(_m.factorial(n - 1)), np.array(coef))
        _SERIES[n] = got
    return got


def _psi_pair(x: np.ndarray, n: int, pair: bool) -> tuple | None:
    """(psi_n(x), psi_(n+1)(x) with pair, else None) in x's dtype for n = 0, 1 by
    vm/forward_special.py's psi_pair kernels (both from one shift and one log, numpy's,
    between the kernels; polygamma_shift's and polygamma_series' values bit for bit); None
    before Numba is loaded, or for other dtypes."""
    found = special_kernels(x)
    if found is None:
        return None
    kernels, x = found
    flat = x.reshape(-1)
    m = flat.size
    zs, acc = np.empty(m), np.empty(m)
    acc1 = np.empty(m) if pair else acc
    kernels.psi_pair_shift(flat, n, zs, acc, acc1, pair)
    out = np.empty(x.shape, x.dtype)
    out1 = np.empty(x.shape, x.dtype) if pair else out
    kernels.psi_pair_series(flat, out.reshape(-1), out1.reshape(-1), n, pair, zs, acc, acc1,
                            np.log(zs) if n == 0 else zs)
    return out, (out1 if pair else None)


def _psi_compiled(n: int, x: np.ndarray) -> np.ndarray | None:
    """psi^(n)(x) in x's dtype by vm/forward_special.py's kernels, numpy's log between
    them; None before Numba is loaded, or for other dtypes."""
    if n <= 1:
        got = _psi_pair(x, n, False)
        return None if got is None else got[0]
    found = special_kernels(x)
    if found is None:
        return None
    kernels, x = found
    flat = x.reshape(-1)
    zs, accs = np.empty(flat.size), np.empty(flat.size)
    kernels.polygamma_shift(flat, n, _SHIFT_TO, zs, accs)
    out = np.empty(x.shape, x.dtype)
    kernels.polygamma_series(flat, out.reshape(-1), n, *_series(n), zs, accs,
                             np.log(zs) if n == 0 else zs)
    return out


def _psi(n: int, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x) in x's dtype: the compiled kernels, else the float64 numpy version."""
    out = _psi_compiled(n, x)
    if out is not None:
        return out
    with np.errstate(all="ignore"):
        return np.asarray(_polygamma64(n, x), dtype=x.dtype)


polygamma_op = unary(
    "polygamma", lambda x, n: _psi(n, x),
    lambda m, x, out, n: m.polygamma(x, n + 1),
    domain=(0.3, 3.0), cases=tuple({"shapes": s, "attrs": {"n": n}}
                                   for s in UNARY_CASES for n in (0, 2)))
numpy_function("polygamma", lambda x, n: _psi(n, x))


def _lgamma_compiled(x: np.ndarray, psi: bool) -> tuple | None:
    """(lgamma(x), digamma(x) with psi, else None) in x's dtype by vm/forward_special.py's
    lgamma_args and lgamma_finish, numpy's log of one buffer between them (digamma's
    shifted argument and lgamma's log argument); None before Numba is loaded, or for other
    dtypes. lgamma: float32 results those of the C library's lgamma rounded, float64 ones
    within ~4e-15 relative of it (perf/check_lgamma_exhaustive.py); digamma:
    _psi_compiled's values."""
    found = special_kernels(x)
    if found is None:
        return None
    kernels, x = found
    flat = x.reshape(-1)
    m = flat.size
    buf, acc = np.empty(2 * m), np.empty(m)
    kernels.lgamma_args(flat, buf, acc, psi)
    logs = np.log(buf)
    out = np.empty(x.shape, x.dtype)
    d = np.empty(x.shape, x.dtype) if psi else out
    kernels.lgamma_finish(flat, out.reshape(-1), d.reshape(-1), buf, logs, acc, psi,
                          x.dtype == np.float32)
    return out, (d if psi else None)


def _lgamma(x: np.ndarray) -> np.ndarray:
    """lgamma in x's dtype: the compiled kernels, else the C library's per element."""
    got = _lgamma_compiled(x, False)
    if got is not None:
        return got[0]
    with np.errstate(all="ignore"):
        return np.asarray(_lgamma64(x), dtype=x.dtype)


lgamma_op = unary("lgamma", _lgamma, lambda m, x, out: m.polygamma(x, 0), domain=(0.3, 3.0))
numpy_function("lgamma", lgamma_op.forward)


def _apply_with_factor(op: Any, x: Tensor, attrs: dict, pair: Any) -> Tensor:
    """apply_internal(op, x, **attrs), the output and the derivative factor the node saves
    from one compiled pass when x needs a gradient: pair(x's array, **attrs) gives both
    (None: no such pass here), the values of op's forward and its derivative on arrays."""
    if x._stop_gradient or not tape.is_grad_enabled():
        return apply_internal(op, x, **attrs)
    got = pair(x._data, **attrs)
    if got is None:
        return apply_internal(op, x, **attrs)
    return apply_xy(op, x, None, attrs, got[0], (got[1],))


def _lgamma_pair(x: np.ndarray) -> tuple | None:
    """lgamma's output and saved factor (digamma) in one pass (_apply_with_factor)."""
    return _lgamma_compiled(x, True)


def _polygamma_pair(x: np.ndarray, n: int) -> tuple | None:
    """polygamma(x, n)'s output and saved factor polygamma(x, n + 1) in one pass, n = 0, 1."""
    return _psi_pair(x, n, True) if n <= 1 else None


# Halley steps after the first guess: one gives float32 accuracy, two float64's
def _erfinv(y: np.ndarray) -> np.ndarray:
    """erf^-1 in y's dtype: the compiled kernels (Halley steps after the first guess: one
    gives float32 accuracy, two float64's), numpy's log between them; else the float64
    numpy version."""
    if y.dtype == _F32:
        found = _erfinv32(y, False)
        if found is not None:
            return found[0]
    found = special_kernels(y)
    if found is None:
        with np.errstate(all="ignore"):
            return np.asarray(_erfinv64(y), dtype=y.dtype)
    kernels, y = found
    flat = y.reshape(-1)
    t = np.empty(flat.size)
    kernels.erfinv_start(flat, t)
    np.log(t, out=t)
    out = np.empty(y.shape, y.dtype)
    kernels.erfinv(flat, out.reshape(-1), 1 if y.dtype == np.float32 else 2, t)
    return out


# (erfinv_op's factor's constant, as numpy rounds it for a float32 product)
_ERFINV_C = np.float32(_m.sqrt(_m.pi) / 2)


def _erfinv32(y: np.ndarray, factor: bool) -> tuple | None:
    """(erfinv(y), its factor exp(out * out) sqrt(pi)/2 or None) for a float32 y in one
    kernel, vm/float32_math.py's erfinv: the values of the float64 kernels above (one
    Halley step, numpy's log between) and of erfinv_op's factor, bit for bit; None until
    Numba is loaded."""
    kernels = compiled_kernels("float32_math")
    if kernels is None:
        return None
    if not (y.flags.c_contiguous and y.flags.writeable):
        y = np.array(y, order="C")              # (read-only: another compiled variant)
    out = np.empty(y.shape, np.float32)
    f = np.empty(y.shape, np.float32) if factor else NO_FACTOR
    kernels.erfinv(y.reshape(-1), out.reshape(-1), f.reshape(-1), _ERFINV_C)
    return out, ((f,) if factor else None)


erfinv_op = unary(
    "erfinv", _erfinv,
    lambda m, x, out: m.exp(out * out) * (_m.sqrt(_m.pi) / 2), domain=(-0.8, 0.8),
    grad_reads=("out",))        # (x may change in place before the backward, as in Paddle)


# ---- the regularized incomplete gamma functions ------------------------------------------------

def _gamma_pq64(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(a, x), Q(a, x)) in float64 for a, x >= 0: the series where x < a + 1, the
    continued fraction (modified Lentz) elsewhere, each giving the side it is accurate for.
    P(0, x) = 1 for x > 0 and P(a, inf) = 1, as torch and scipy (Paddle 3.3.1: 0 and nan)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    shape, a, x = a.shape, a.reshape(-1), x.reshape(-1)
    p = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        front = np.exp(-x + a * np.log(x) - _lgamma64(np.where(a > 0, a, 1.0)))
        ser = (x < a + 1) & (a > 0) & (x > 0)
        if ser.any():
            aa, xx = a[ser], x[ser]
            ap, d = aa.copy(), 1.0 / aa
            total = d.copy()
            for _ in range(1000):
                ap += 1.0
                d = d * xx / ap
                total += d
                if (np.abs(d) < np.abs(total) * 1e-17).all():
                    break
            p[ser] = total * front[ser]
        cf = (x >= a + 1) & (a > 0) & np.isfinite(x)
        q_cf = None
        if cf.any():
            aa, xx = a[cf], x[cf]
            tiny = 1e-300
            b = xx + 1.0 - aa
            c = np.full(aa.shape, 1.0 / tiny)
            d = 1.0 / b
            h = d.copy()
            for i in range(1, 1000):
                an = -i * (i - aa)
                b = b + 2.0
                d = an * d + b
                d = np.where(np.abs(d) < tiny, tiny, d)
                c = b + an / c
                c = np.where(np.abs(c) < tiny, tiny, c)
                d = 1.0 / d
                delta = d * c
                h = h * delta
                if (np.abs(delta - 1.0) < 1e-16).all():
                    break
            q_cf = front[cf] * h
            p[cf] = 1.0 - q_cf
    q = 1.0 - p
    if q_cf is not None:
        q[cf] = q_cf
    zero_x = (x == 0) & (a >= 0)
    p[zero_x], q[zero_x] = 0.0, 1.0
    done = ((a == 0) & (x > 0)) | ((a > 0) & np.isposinf(x))
    p[done], q[done] = 1.0, 0.0
    return p.reshape(shape), q.reshape(shape)


def _gamma_slope(m, x, out, a):
    """d/dx P(a, x) = x^(a - 1) exp(-x) / Gamma(a) (a: an array attribute, not
    differentiated)."""
    return m.exp(m.log(x) * (a - 1.0) - x - _lgamma64(a).astype(a.dtype))


def _gamma_cases() -> tuple:
    rng = np.random.default_rng(11)
    return tuple({"shapes": (s,), "attrs": {"a": rng.uniform(0.5, 3.0, s)}}
                 for s in ((), (3,), (2, 3)))


# The shape parameter a is an attribute: Paddle gives it no gradient (its derivative needs
# the digamma-weighted integral, which Paddle does not compute either).
gammainc_op = unary(
    "gammainc", lambda x, a: np.asarray(_gamma_pq64(a, x)[0], x.dtype), _gamma_slope,
    domain=(0.5, 3.0), cases=_gamma_cases())
gammaincc_op = unary(
    "gammaincc", lambda x, a: np.asarray(_gamma_pq64(a, x)[1], x.dtype),
    lambda m, x, out, a: -_gamma_slope(m, x, out, a), domain=(0.5, 3.0),
    cases=_gamma_cases())


def _gamma_args(x: Tensor, y: Tensor, what: str) -> tuple[Tensor, np.ndarray]:
    """(y broadcast against x, x's values broadcast against y, in y's dtype)."""
    for arg, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: {arg} must be a Tensor, got {type(t).__name__}")
        require_float(t, what)
        if (t._data < 0).any():
            raise ValueError(f"{what}: {arg} must be >= 0 (Paddle's rule)")
    shape = np.broadcast_shapes(x._data.shape, y._data.shape)
    if y._data.shape != shape:
        from .shape import broadcast_to
        y = broadcast_to(y, list(shape))
    return y, np.broadcast_to(x._data, shape).astype(y._data.dtype)


def gammainc(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function P(x, y) = gamma(x, y) / Gamma(x);
    only y is differentiated (as in Paddle)."""
    y, a = _gamma_args(x, y, "gammainc")
    return apply_xy(gammainc_op, y, None, {"a": a})


def gammaincc(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Q(x, y) = 1 - P(x, y), the upper one, computed directly where it is small."""
    y, a = _gamma_args(x, y, "gammaincc")
    return apply_xy(gammaincc_op, y, None, {"a": a})


def _float(x: Tensor, what: str) -> Tensor:
    """Integer input computes in the default float dtype, as Paddle's (float32)."""
    if x._data.dtype.kind in "iub":
        from ..core import dtypes
        return Tensor._make(x._data.astype(dtypes.default_float().np))
    require_float(x, what)
    return x


def polygamma(x: Tensor, n: int, name: str | None = None) -> Tensor:
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    return _apply_with_factor(polygamma_op, _float(x, "polygamma"), {"n": int(n)},
                              _polygamma_pair)


def digamma(x: Tensor, name: str | None = None) -> Tensor:
    """d/dx lgamma(x)."""
    return polygamma(x, 0)


def lgamma(x: Tensor, name: str | None = None) -> Tensor:
    """log|Gamma(x)| (inf at the poles 0, -1, -2, ...)."""
    return _apply_with_factor(lgamma_op, _float(x, "lgamma"), NO_ATTRS, _lgamma_pair)


gammaln = lgamma


def erfinv(x: Tensor, name: str | None = None) -> Tensor:
    """The inverse of erf on (-1, 1): +-inf at +-1, NaN outside (Paddle 3.3.1 gives inf
    above 1; numpy's and torch's convention is NaN)."""
    x = _float(x, "erfinv")
    d = x._data
    if d.dtype == _F32:
        found = _erfinv32(d, not x._stop_gradient and tape.is_grad_enabled())
        if found is not None:
            return apply_xy(erfinv_op, x, None, NO_ATTRS, *found)
    return apply_xy(erfinv_op, x)


NAMES = ["polygamma", "digamma", "lgamma", "gammaln", "erfinv", "gammainc", "gammaincc"]
