"""Beta(alpha, beta), as paddle.distribution.Beta (a two-category Dirichlet)."""

from __future__ import annotations

from typing import Any, Sequence

from . import _ops as P
from ..core.tensor import Tensor
from .base import ExponentialFamily, promoted_value, real_or_tensor
from .dirichlet import Dirichlet


class Beta(ExponentialFamily):
    """The Beta distribution on [0, 1]. alpha, beta: Python reals or Tensors, broadcast."""

    def __init__(self, alpha: Any, beta: Any) -> None:
        alpha = real_or_tensor(alpha, "alpha", "Beta")
        beta = real_or_tensor(beta, "beta", "Beta")
        self.alpha, self.beta = P.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(P.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> Tensor:
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s.pow(2) * (s + 1))

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def log_prob(self, value: Any) -> Tensor:
        value = promoted_value(value, self.alpha)
        return self._dirichlet.log_prob(P.stack([value, 1.0 - value], -1))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Draws of shape `shape + batch_shape`, no gradient (as Paddle's, a trailing
        dimension of size 1 is squeezed)."""
        return P.squeeze(self._dirichlet.sample(shape)[..., 0], axis=-1)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self) -> tuple:
        return (self.alpha, self.beta)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return P.lgamma(x) + P.lgamma(y) - P.lgamma(x + y)
