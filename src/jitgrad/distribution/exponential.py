"""Exponential(rate), as paddle.distribution.Exponential."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, ExponentialFamily, promoted_value, uniform_noise

_TINY = float(np.finfo(np.float32).tiny)


class Exponential(ExponentialFamily):
    """The exponential distribution with rate `rate` (a float, list, array or Tensor)."""

    def __init__(self, rate: Any) -> None:
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = str(rate._data.dtype)
        else:
            (self.rate,) = self._to_tensor(rate)
            self.dtype = P.get_default_dtype()
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """-log(u) / rate, u ~ U[tiny, 1): differentiable in rate."""
        shape = Distribution._extend_shape(self, shape)
        u = uniform_noise(shape, self.rate._data.dtype, _TINY, 1.0)
        return -P.log(u) / self.rate

    def prob(self, value: Any) -> Tensor:
        """rate exp(-rate value), 0 for a negative value (Paddle 3.3.1: its formula there)."""
        value = promoted_value(value, self.rate)
        p = self.rate * P.exp(-self.rate * value)
        return P.where(value < 0, P.zeros_like(p), p)

    def log_prob(self, value: Any) -> Tensor:
        """log(rate) - rate value, -inf for a negative value (Paddle 3.3.1: its formula,
        log(2) + 2 = 2.69 for rate 2 at -1)."""
        value = promoted_value(value, self.rate)
        lp = P.log(self.rate) - self.rate * value
        return P.where(value < 0, P.full_like(lp, float("-inf")), lp)

    def entropy(self) -> Tensor:
        return 1.0 - P.log(self.rate)

    def cdf(self, value: Any) -> Tensor:
        """1 - exp(-rate value), 0 for a negative value (Paddle 3.3.1: negative there)."""
        value = promoted_value(value, self.rate)
        c = 1.0 - P.exp(-self.rate * value)
        return P.where(value < 0, P.zeros_like(c), c)

    def icdf(self, value: Any) -> Tensor:
        value = promoted_value(value, self.rate)
        return -P.log1p(-value) / self.rate

    def kl_divergence(self, other: "Exponential") -> Tensor:
        if not isinstance(other, Exponential):
            raise TypeError(f"Exponential.kl_divergence needs an Exponential, got "
                            f"{type(other).__name__}")
        ratio = other.rate / self.rate
        return -P.log(ratio) + ratio - 1

    @property
    def _natural_parameters(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return -P.log(-x)
