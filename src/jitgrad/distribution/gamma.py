"""Gamma(concentration, rate), as paddle.distribution.Gamma."""

from __future__ import annotations

from typing import Any, Sequence

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, ExponentialFamily, promoted_value, xlogy
from .dirichlet import gamma_draws


class Gamma(ExponentialFamily):
    """The gamma distribution with shape `concentration` and `rate` (floats, lists, arrays,
    or Tensors)."""

    def __init__(self, concentration: Any, rate: Any) -> None:
        if self._validate_args(concentration, rate):
            self.concentration, self.rate = concentration, rate
            self.dtype = str(concentration._data.dtype)
        else:
            self.concentration, self.rate = self._to_tensor(concentration, rate)
            self.dtype = P.get_default_dtype()
        super().__init__(tuple(self.concentration.shape))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def log_prob(self, value: Any) -> Tensor:
        value = promoted_value(value, self.rate)
        c, r = self.concentration, self.rate
        lp = c * P.log(r) + xlogy(c - 1, value) - r * value - P.lgamma(c)
        # (0 log 0 = 0: log(rate) at 0 for concentration 1; -inf below 0. Paddle 3.3.1: NaN)
        return P.where(value < 0, P.full_like(lp, float("-inf")), lp)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - P.log(self.rate) + P.lgamma(c) + (1.0 - c) * P.digamma(c)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """standard_gamma(concentration) / rate: as Paddle 3.3.1's, differentiable in rate
        only (the standard gamma draw carries no gradient)."""
        shape = Distribution._extend_shape(self, shape)
        g = P.to_tensor(gamma_draws(self.concentration.expand(shape)))
        return g / self.rate.expand(shape)

    def kl_divergence(self, other: "Gamma") -> Tensor:
        if not isinstance(other, Gamma):
            raise TypeError(f"Gamma.kl_divergence needs a Gamma, got {type(other).__name__}")
        t1 = other.concentration * P.log(self.rate / other.rate)
        t2 = P.lgamma(other.concentration) - P.lgamma(self.concentration)
        t3 = (self.concentration - other.concentration) * P.digamma(self.concentration)
        t4 = (other.rate - self.rate) * (self.concentration / self.rate)
        return t1 + t2 + t3 + t4

    @property
    def _natural_parameters(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return P.lgamma(x + 1) + (x + 1) * P.log(-y.reciprocal())
