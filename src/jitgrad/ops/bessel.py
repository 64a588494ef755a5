"""Modified Bessel functions of the first kind without scipy: i0, i1 and their exponentially
scaled forms i0e = exp(-|x|) i0, i1e = exp(-|x|) i1.

The scaled forms are computed in float64, by the power series up to |x| = 15 and by the
asymptotic series beyond (about 1e-15 relative either way); i0 and i1 multiply back by
exp(|x|). The derivatives close over the family, so every order exists: i0' = i1,
i1' = i0 - i1 / x (1/2 at 0), i0e' = i1e - sign(x) i0e, i1e' = i0e - i1e (sign(x) + 1/x).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.tensor import Tensor
from .core import float_input
from .derivative import apply_unary, numpy_function, unary
from .math import special_kernel

NAMES = ["i0", "i0e", "i1", "i1e"]

_SERIES_UP_TO = 15.0


def _bessel64(x: np.ndarray, nu: int, scaled: bool) -> np.ndarray:
    """I_nu(x) in float64, nu 0 or 1 (odd in x for nu = 1), times exp(-|x|) when scaled:
    the same operations, in the same order, as vm/forward_special.py's kernel."""
    x = np.asarray(x, np.float64)
    shape, x = x.shape, x.reshape(-1)
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax <= _SERIES_UP_TO
    xs = ax[small]
    half = xs / 2
    term = half.copy() if nu else np.ones_like(xs)
    total = term.copy()
    q = half * half
    for k in range(1, 64):          # (until the terms no longer change the sums)
        term *= q
        term *= 1.0 / (k * (k + nu))
        total += term
        if not (term > total * 1e-17).any():
            break
    out[small] = total * np.exp(-xs) if scaled else total
    big = ~small & np.isfinite(ax)
    xl = ax[big]
    mu = 4.0 * nu * nu
    term = np.ones_like(xl)
    total = term.copy()
    for k in range(1, 30):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * xl)
        total += term
    r = total / np.sqrt(2 * math.pi * xl)
    with np.errstate(over="ignore"):
        out[big] = r if scaled else r * np.exp(xl)
    out[np.isinf(ax)] = 0.0 if scaled else np.inf
    out[np.isnan(ax)] = np.nan
    if nu:
        out = np.where(x < 0, -out, out)
    return out.reshape(shape)


def _forward(nu: int, scaled: bool):
    """The forward in x's dtype: vm/forward_special.py's kernel once Numba is loaded (the
    same series per element, ~10x quicker), else the numpy version."""
    def forward(x: np.ndarray) -> np.ndarray:
        out = special_kernel(x, "bessel", nu, scaled)
        if out is not None:
            return out
        return np.asarray(_bessel64(x, nu, scaled), dtype=x.dtype)
    return forward


_i0, _i1, _i0e, _i1e = _forward(0, False), _forward(1, False), _forward(0, True), \
    _forward(1, True)
for _name, _fn in (("i0", _i0), ("i1", _i1), ("i0e", _i0e), ("i1e", _i1e)):
    numpy_function(_name, _fn)


def _nonzero(m, x):
    """x with its zeros replaced by 1 (the quotients below are replaced there anyway)."""
    return m.where(m.data(x) == 0, 1.0, x)


def _pair(nu: int, scaled: bool) -> tuple:
    """apply_unary's compiled= entry: vm/forward_special.py's bessel_pair gives the output and
    the factor below in one pass (I_0 and I_1 together, the same values)."""
    return ("bessel_pair", lambda t: (nu, scaled, t(1), t(0), t(0.5)))


i0_op = unary("i0", _i0, lambda m, x, out: m.i1(x), domain=(-3.0, 3.0),
              compiled=_pair(0, False))
i1_op = unary("i1", _i1, lambda m, x, out: m.where(
    m.data(x) == 0, 0.5, m.i0(x) - out / _nonzero(m, x)), domain=(-3.0, 3.0),
    compiled=_pair(1, False))
i0e_op = unary("i0e", _i0e, lambda m, x, out: m.i1e(x) - m.sign(x) * out, domain=(-3.0, 3.0),
               compiled=_pair(0, True))
i1e_op = unary("i1e", _i1e, lambda m, x, out: m.where(
    m.data(x) == 0, 0.5, m.i0e(x) - out * m.sign(x) - out / _nonzero(m, x)),
    domain=(-3.0, 3.0), compiled=_pair(1, True))


def i0(x: Tensor, name: str | None = None) -> Tensor:
    """I_0(x); integer input computes in float32, as Paddle's."""
    return apply_unary(i0_op, float_input(x, "i0"), {})


def i1(x: Tensor, name: str | None = None) -> Tensor:
    """I_1(x), odd in x."""
    return apply_unary(i1_op, float_input(x, "i1"), {})


def i0e(x: Tensor, name: str | None = None) -> Tensor:
    """exp(-|x|) I_0(x): finite for every x."""
    return apply_unary(i0e_op, float_input(x, "i0e"), {})


def i1e(x: Tensor, name: str | None = None) -> Tensor:
    """exp(-|x|) I_1(x)."""
    return apply_unary(i1e_op, float_input(x, "i1e"), {})
