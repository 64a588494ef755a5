"""LogNormal(loc, scale): exp of a Normal, as paddle.distribution.LogNormal."""

from __future__ import annotations

from typing import Any

from . import _ops as P
from ..core.tensor import Tensor
from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    """exp(X), X ~ Normal(loc, scale); loc, scale take Normal's argument forms."""

    def __init__(self, loc: Any, scale: Any) -> None:
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self) -> Tensor:
        return P.exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self) -> Tensor:
        return P.expm1(self._base.variance) * P.exp(2 * self._base.mean + self._base.variance)

    def entropy(self) -> Tensor:
        return self._base.entropy() + self._base.mean

    def probs(self, value: Tensor) -> Tensor:
        return P.exp(self.log_prob(value))

    def kl_divergence(self, other: "LogNormal") -> Tensor:
        return self._base.kl_divergence(other._base)
