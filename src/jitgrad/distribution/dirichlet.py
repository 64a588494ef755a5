"""Dirichlet(concentration), as paddle.distribution.Dirichlet."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator
from .base import ExponentialFamily, promoted_value, xlogy


def gamma_draws(alpha: Tensor) -> np.ndarray:
    """Standard gamma draws with shape parameter alpha (no gradient), alpha's dtype, at least
    its smallest normal number, as Paddle 3.3.1's: a small alpha draws far below it (float32
    Gamma(.01): 35% of draws), and a 0 is a point of infinite density (and an infinite
    StudentT sample)."""
    a = alpha._data
    g = np.asarray(generator().standard_gamma(a.astype(np.float64))).astype(a.dtype)
    return np.maximum(g, np.finfo(a.dtype).tiny)


def simplex_draws(alpha: np.ndarray) -> np.ndarray:
    """Dirichlet(alpha) draws over the last axis (float64, no NaN): normalized gamma draws
    taken in log space, log G(a) = log G(a + 1) + log(U) / a for a < 1, so that draws far
    below the smallest float (common for a concentration near 0.01) do not become 0 / 0."""
    a = np.asarray(alpha, dtype=np.float64)
    small = a < 1
    log_g = np.log(generator().standard_gamma(np.where(small, a + 1, a)))
    u = 1.0 - generator().random(a.shape)                     # (0, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_g = np.where(small, log_g + np.log(u) / a, log_g)
        log_g = log_g - log_g.max(-1, keepdims=True)
        e = np.exp(log_g)
        return e / e.sum(-1, keepdims=True)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of concentration's last axis; batch_shape
    is concentration.shape[:-1], event_shape [k]."""

    def __init__(self, concentration: Any) -> None:
        if not isinstance(concentration, Tensor):
            concentration = P.to_tensor(np.asarray(concentration, dtype=np.float32))
        if concentration.ndim < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("Dirichlet: concentration must be at least one-dimensional and "
                             f"non-empty, got shape {list(concentration.shape)}")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self) -> Tensor:
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Points of the simplex, shape `shape + batch_shape + event_shape`, no gradient."""
        alpha = self.concentration.expand(self._extend_shape(shape))._data
        return P.to_tensor(simplex_draws(alpha).astype(alpha.dtype))

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def log_prob(self, value: Any) -> Tensor:
        value = promoted_value(value, self.concentration)
        c = self.concentration
        lp = (xlogy(c - 1.0, value).sum(-1) + P.lgamma(c.sum(-1)) - P.lgamma(c).sum(-1))
        # (0 log 0 = 0 on the simplex's faces for concentration 1; -inf for a negative
        # component. Paddle 3.3.1: NaN for both)
        return P.where((value < 0).any(-1), P.full_like(lp, float("-inf")), lp)

    def entropy(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1)
        k = c.shape[-1]
        return (P.lgamma(c).sum(-1) - P.lgamma(c0) - (k - c0) * P.digamma(c0)
                - ((c - 1.0) * P.digamma(c)).sum(-1))

    @property
    def _natural_parameters(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - P.lgamma(x.sum(-1))
