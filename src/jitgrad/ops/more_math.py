"""Paddle 3.3.1's math functions that numeric code reaches for less often (copysign, sgn,
ldexp, vecdot, baddbmm, multigammaln): composites of the ops already here, so their
gradients come from those ops' rules. Each name a user can call is listed in NAMES
(ops/__init__.py exports them and binds them as Tensor methods). Behaviours noted
"(Paddle)" were measured on Paddle 3.3.1."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import const, require_float
from .linalg import matmul
from .math import sign
from .shape import unsqueeze
from .special import lgamma

NAMES: list[str] = ["copysign", "sgn", "ldexp", "vecdot", "baddbmm", "multigammaln"]


def _tensor(x: Any, fn: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def copysign(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """|x| with the sign of y (-0.0 counts as negative, as IEEE). x's gradient is
    sign(x) sign(y), 0 at x = 0; y's is zeros (Paddle)."""
    _tensor(x, "copysign", "x")
    dt = x._data.dtype
    yd = y._data if isinstance(y, Tensor) else np.asarray(y)
    out = E.abs(x) * const(np.copysign(np.ones((), dt), yd).astype(dt, copy=False), dt)
    if isinstance(y, Tensor) and not y.stop_gradient:
        # y enters only as a branch where() never takes: its gradient is zeros, as Paddle's
        out = E.where(np.zeros(out._data.shape, bool), y, out)
    return out


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """sign(x) for real x (-1, 0 or 1, NaN stays), with a zero gradient (Paddle)."""
    return sign(_tensor(x, "sgn", "x"))


def ldexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * 2**y for an integer y; integer x computes in float32 (Paddle). x's gradient is
    2**y, y gets none."""
    _tensor(x, "ldexp", "x")
    yd = y._data if isinstance(y, Tensor) else np.asarray(y)
    if yd.dtype.kind not in "iu":
        raise TypeError(f"ldexp: y must be an integer tensor, got {yd.dtype}")
    if x._data.dtype.kind != "f":
        x = x.astype("float32")
    dt = x._data.dtype
    return x * const(np.ldexp(np.ones((), dt), yd.astype(np.int32)).astype(dt, copy=False), dt)


def vecdot(x: Tensor, y: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """sum(x * y) along axis (inputs broadcast first)."""
    _tensor(x, "vecdot", "x")
    _tensor(y, "vecdot", "y")
    return R.sum(x * y, axis=axis)


def baddbmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
            name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y) for batches of matrices x [B, n, k], y [B, k, m];
    input is [B, n, m], or [B, m], which Paddle reads as [B, 1, m] (one row per batch)."""
    for v, arg in ((input, "input"), (x, "x"), (y, "y")):
        _tensor(v, "baddbmm", arg)
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"baddbmm: x and y must be 3-D, got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise ValueError(f"baddbmm: cannot multiply batches of shapes {x.shape} and {y.shape}")
    if input.ndim not in (2, 3):
        raise ValueError(f"baddbmm: input must be 2-D or 3-D, got shape {input.shape}")
    if input.ndim == 2:
        if input.shape != [x.shape[0], y.shape[2]]:
            raise ValueError(f"baddbmm: a 2-D input must be [batch, m] = "
                             f"{[x.shape[0], y.shape[2]]}, got {input.shape}")
        input = unsqueeze(input, 1)
    return input * beta + matmul(x, y) * alpha


def multigammaln(x: Tensor, p: int, name: str | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2)."""
    require_float(_tensor(x, "multigammaln", "x"), "multigammaln")
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p!r}")
    total = lgamma(x)
    for j in range(1, int(p)):
        total = total + lgamma(x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)
