"""Draws from distributions whose parameters are tensors (paddle.bernoulli, poisson,
multinomial ...), from jitgrad's seeded generator (paddle.seed). Samples carry no gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..core.torch_kwargs import out_param
from .creation import _dt, _shape, generator

NAMES = ["bernoulli", "binomial", "multinomial", "poisson", "standard_gamma", "log_normal"]


def _values(x: Any, what: str, float_only: bool = True) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    d = x._data
    if float_only and d.dtype.kind != "f":
        raise TypeError(f"{what} needs a float tensor, got {x.dtype.name}")
    return d


def _in_unit(p: np.ndarray, what: str) -> None:
    if ((p < 0) | (p > 1) | np.isnan(p)).any():
        raise ValueError(f"{what}: probabilities must be in [0, 1]")


def bernoulli(x: Tensor, p: float | None = None, name: str | None = None) -> Tensor:
    """1 with probability x (or p, for every element, when given), else 0, in x's dtype."""
    probs = _values(x, "bernoulli")
    if p is not None:
        probs = np.full(probs.shape, float(p))
    _in_unit(np.asarray(probs), "bernoulli")
    draw = generator().random(probs.shape) < probs
    return Tensor._make(draw.astype(x._data.dtype))


def binomial(count: Tensor, prob: Tensor, name: str | None = None) -> Tensor:
    """The number of successes in `count` trials of probability `prob` (int64)."""
    n = _values(count, "binomial", float_only=False)
    p = _values(prob, "binomial")
    _in_unit(p, "binomial")
    if (n < 0).any():
        raise ValueError("binomial: count must not be negative")
    return Tensor._make(generator().binomial(n.astype(np.int64), p).astype(np.int64))


def poisson(x: Tensor, name: str | None = None) -> Tensor:
    """A Poisson draw of rate x per element, in x's dtype."""
    rate = _values(x, "poisson")
    if (rate < 0).any():
        raise ValueError("poisson: rates must not be negative")
    return Tensor._make(generator().poisson(rate).astype(x._data.dtype))


def standard_gamma(x: Tensor, name: str | None = None) -> Tensor:
    """A Gamma(x, 1) draw per element, in x's dtype."""
    alpha = _values(x, "standard_gamma")
    if (alpha <= 0).any():
        raise ValueError("standard_gamma: the shape parameters must be positive")
    return Tensor._make(generator().standard_gamma(alpha).astype(x._data.dtype))


def log_normal(mean: Any = 1.0, std: Any = 2.0, shape: Any = None,
               name: str | None = None) -> Tensor:
    """exp of a normal draw of mean and std (tensors broadcast; else of `shape`)."""
    mu = mean._data if isinstance(mean, Tensor) else np.asarray(mean, np.float64)
    sd = std._data if isinstance(std, Tensor) else np.asarray(std, np.float64)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        size = np.broadcast_shapes(np.shape(mu), np.shape(sd))
        dtype = (mean if isinstance(mean, Tensor) else std)._data.dtype
    else:
        size, dtype = _shape(shape if shape is not None else [1]), _dt(None)
    if (np.asarray(sd) < 0).any():
        raise ValueError("log_normal: std must not be negative")
    return Tensor._make(np.exp(generator().normal(mu, sd, size)).astype(dtype))


def multinomial(x: Tensor, num_samples: int = 1, replacement: bool = False,
                name: str | None = None, *, out: Any = None) -> Tensor:
    """Category indices (int64) drawn with probability proportional to x's entries: x of
    shape [C] gives [num_samples], [R, C] gives [R, num_samples]."""
    w = _values(x, "multinomial").astype(np.float64)
    if w.ndim not in (1, 2):
        raise ValueError(f"multinomial: x must be 1-D or 2-D, got shape {list(x.shape)}")
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("multinomial: the weights must be finite and non-negative")
    rows = w.reshape(-1, w.shape[-1])
    totals = rows.sum(axis=1)
    if (totals <= 0).any():
        raise ValueError("multinomial: each row needs a positive weight")
    if not replacement and (num_samples > (rows > 0).sum(axis=1)).any():
        raise ValueError(f"multinomial: cannot draw {num_samples} distinct categories from a "
                         f"row with fewer positive weights (pass replacement=True)")
    g = generator()
    out_rows = np.stack([g.choice(rows.shape[1], size=int(num_samples), replace=replacement,
                                  p=r / t) for r, t in zip(rows, totals)])
    return out_param("multinomial", out, Tensor._make(
        out_rows.reshape(w.shape[:-1] + (int(num_samples),)).astype(np.int64)))
