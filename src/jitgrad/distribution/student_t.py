"""StudentT(df, loc, scale), as paddle.distribution.StudentT."""

from __future__ import annotations

import math
from typing import Any, Sequence

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, normal_noise
from .gamma import Gamma


class StudentT(Distribution):
    """Student's t with df degrees of freedom, location loc and scale scale (floats, lists,
    arrays or Tensors, broadcast together; non-Tensors take the first Tensor's dtype)."""

    def __init__(self, df: Any, loc: Any, scale: Any, name: str | None = None) -> None:
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not bool((self.df >= 0.0).all()):
            raise ValueError("StudentT: every element of df must be nonnegative")
        if not bool((self.scale >= 0.0).all()):
            raise ValueError("StudentT: every element of scale must be nonnegative")
        super().__init__(tuple(self.df.shape))
        self._chi2 = Gamma(0.5 * self.df, P.full_like(self.df, 0.5))

    @property
    def mean(self) -> Tensor:
        return P.where(self.df > 1.0, self.loc, P.full_like(self.loc, float("nan")))

    @property
    def variance(self) -> Tensor:
        # (df is not detached: Paddle 3.3.1 detaches it, so d var / d df is 0 there, against
        # -2 scale^2 / (df - 2)^2)
        df = self.df
        var = P.where(df > 2.0, self.scale.pow(2) * df / (df - 2),
                      P.full_like(df, float("nan")))
        inf = (df <= 2.0).logical_and(df > 1.0)
        return P.where(inf, P.full_like(var, float("inf")), var)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc + scale * z / sqrt(chi2 / df), no gradient (Paddle 3.3.1 has no rsample)."""
        with no_grad():
            out = self._extend_shape(shape)
            z = normal_noise(out, self.df._data.dtype)
            chi2 = self._chi2.sample(shape)
            return self.loc + self.scale * (z * P.rsqrt(chi2 / self.df))

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = P.lgamma(0.5 * df) + math.lgamma(0.5) - P.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (P.digamma(0.5 * (df + 1))
                                                      - P.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)

    def log_prob(self, value: Any) -> Tensor:
        value = as_value(value, self.df)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + P.lgamma(0.5 * self.df) - P.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * P.log1p(y ** 2.0 / self.df) - z

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))
