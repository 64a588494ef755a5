"""Geometric(probs), as paddle.distribution.Geometric: failures before the first success."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, uniform_noise, xlogy

_TINY = float(np.finfo(np.float32).tiny)


def _k(k: Any, where: str) -> Any:
    if isinstance(k, Tensor) or (isinstance(k, numbers.Integral) and not isinstance(k, bool)):
        return k
    raise TypeError(f"Geometric.{where}: k must be an int or a Tensor, got {type(k).__name__}")


def _negative(k: Any) -> Tensor:
    return (k if isinstance(k, Tensor) else P.to_tensor(k)) < 0


class Geometric(Distribution):
    """The number of failures before the first success, success probability probs (a
    Python real or a Tensor), support {0, 1, 2, ...}."""

    def __init__(self, probs: Any) -> None:
        if isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = P.full([], float(probs), dtype="float32")
        elif not isinstance(probs, Tensor):
            raise TypeError(f"Geometric: probs must be a Python real or a Tensor, got "
                            f"{type(probs).__name__}")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self) -> Tensor:
        return P.sqrt(self.variance)

    def pmf(self, k: Any) -> Tensor:
        """(1 - probs)^k probs, 0 for a negative k (Paddle 3.3.1: its formula there)."""
        k = _k(k, "pmf")
        p = P.pow(1.0 - self.probs, k) * self.probs
        return P.where(_negative(k), P.zeros_like(p), p)

    def log_pmf(self, k: Any) -> Tensor:
        return P.log(self.pmf(_k(k, "log_pmf")))

    def log_prob(self, value: Any) -> Tensor:
        """log_pmf (a jitgrad addition: Paddle 3.3.1's Geometric raises NotImplementedError)."""
        return self.log_pmf(value)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """floor(log(u) / log1p(-probs)) (float; its gradient is zero, as Paddle's)."""
        shape = Distribution._extend_shape(self, shape)
        u = uniform_noise(shape, self.probs._data.dtype, _TINY, 1.0)
        return P.floor(P.log(u) / P.log1p(-self.probs))

    def entropy(self) -> Tensor:
        x = xlogy(1.0 - self.probs, 1.0 - self.probs)       # (0 at probs 1: Paddle NaN)
        y = self.probs * P.log(self.probs)
        return -(x + y) / self.probs

    def cdf(self, k: Any) -> Tensor:
        """1 - (1 - probs)^(k + 1), 0 for k < 0 (Paddle 3.3.1: negative below -1)."""
        k = _k(k, "cdf")
        c = 1.0 - P.pow(1.0 - self.probs, k + 1)
        return P.where(_negative(k), P.zeros_like(c), c)

    def kl_divergence(self, other: "Geometric") -> Tensor:
        if not isinstance(other, Geometric):
            raise TypeError(f"Geometric.kl_divergence needs a Geometric, got "
                            f"{type(other).__name__}")
        p, q = self.probs, other.probs
        return p * P.log(p / q) + (1.0 - p) * P.log((1.0 - p) / (1.0 - q))
