"""Gumbel(loc, scale), as paddle.distribution.Gumbel."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import real_or_tensor, uniform_noise
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

_FINFO = np.finfo(np.float32)


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution. loc, scale: Python reals or Tensors."""

    def __init__(self, loc: Any, scale: Any) -> None:
        loc = real_or_tensor(loc, "loc", "Gumbel")
        scale = real_or_tensor(scale, "scale", "Gumbel")
        if list(loc.shape) != list(scale.shape):
            self.loc, self.scale = P.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        self.base_dist = Uniform(P.full_like(self.loc, float(_FINFO.tiny)),
                                 P.full_like(self.loc, float(1 - _FINFO.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * float(np.euler_gamma)

    @property
    def variance(self) -> Tensor:
        return P.pow(self.scale, 2) * (np.pi * np.pi) / 6

    @property
    def stddev(self) -> Tensor:
        return P.sqrt(self.variance)

    def prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = P.to_tensor(np.asarray(value, dtype=self.loc._data.dtype))
        y = (self.loc - value.astype(self.loc.dtype)) / self.scale.astype(self.loc.dtype)
        return P.exp(y - P.exp(y)) / self.scale.astype(y.dtype)

    def log_prob(self, value: Any) -> Tensor:
        return P.log(self.prob(value))

    def cdf(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = P.to_tensor(np.asarray(value, dtype=self.loc._data.dtype))
        return P.exp(-P.exp(-(value - self.loc.astype(value.dtype))
                            / self.scale.astype(value.dtype)))

    def entropy(self) -> Tensor:
        return P.log(self.scale) + 1 + float(np.euler_gamma)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc - scale * log(-log(u)), u ~ U[tiny, 1 - eps): differentiable."""
        u = uniform_noise(self._extend_shape(shape), self.loc._data.dtype,
                          float(_FINFO.tiny), float(1 - _FINFO.eps))
        return self.loc - self.scale * P.log(-P.log(u))
