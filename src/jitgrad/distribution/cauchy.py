"""Cauchy(loc, scale), as paddle.distribution.Cauchy."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, real_or_tensor, uniform_noise


class Cauchy(Distribution):
    """The Cauchy distribution. loc, scale: Python reals or Tensors. It has no mean,
    variance or stddev (ValueError, as Paddle's)."""

    def __init__(self, loc: Any, scale: Any, name: str | None = None) -> None:
        self.name = name if name is not None else "Cauchy"
        loc = real_or_tensor(loc, "loc", "Cauchy")
        scale = real_or_tensor(scale, "scale", "Cauchy")
        if list(loc.shape) != list(scale.shape):
            self.loc, self.scale = P.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape), event_shape=())

    @property
    def mean(self) -> Tensor:
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self) -> Tensor:
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self) -> Tensor:
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape: Sequence[int] = (), name: str | None = None) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = (), name: str | None = None) -> Tensor:
        """loc + scale * tan(pi * (u - 0.5)), u ~ U[0, 1): differentiable."""
        shape = self._extend_shape(shape)
        u = uniform_noise(shape, self.loc._data.dtype)
        return self.loc.expand(shape) + self.scale.expand(shape) * P.tan(np.pi * (u - 0.5))

    def _value(self, value: Any, what: str) -> list:
        if not isinstance(value, Tensor):
            raise TypeError(f"Cauchy.{what}: value must be a Tensor, got {type(value).__name__}")
        return P.broadcast_tensors([self.loc, self.scale, as_value(value, self.loc)])

    def prob(self, value: Tensor) -> Tensor:
        return self.log_prob(value).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        loc, scale, value = self._value(value, "log_prob")
        return -P.square((value - loc) / scale).log1p() - (float(np.log(np.pi)) + scale.log())

    def cdf(self, value: Tensor) -> Tensor:
        loc, scale, value = self._value(value, "cdf")
        return P.atan((value - loc) / scale) / np.pi + 0.5

    def entropy(self) -> Tensor:
        return P.full(self.loc.shape, float(np.log(4 * np.pi)), dtype=self.dtype) + \
            self.scale.log()

    def kl_divergence(self, other: "Cauchy") -> Tensor:
        if not isinstance(other, Cauchy):
            raise TypeError(f"Cauchy.kl_divergence needs a Cauchy, got {type(other).__name__}")
        t1 = ((self.scale + other.scale).pow(2) + (self.loc - other.loc).pow(2)).log()
        t2 = (4 * self.scale * other.scale).log()
        return t1 - t2
