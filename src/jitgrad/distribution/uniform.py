"""Uniform(low, high), as paddle.distribution.Uniform."""

from __future__ import annotations

from typing import Any, Sequence

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, check_shape, uniform_noise
from .normal import float_params


class Uniform(Distribution):
    """The continuous uniform distribution on [low, high). low, high: floats, lists, numpy
    arrays or Tensors (all Tensors, or none)."""

    def __init__(self, low: Any, high: Any, name: str | None = None) -> None:
        self.name = name if name is not None else "Uniform"
        self.low, self.high = float_params(self, low, high)
        self.dtype = str(self.low._data.dtype)
        super().__init__(tuple(self.low.shape))

    @property
    def mean(self) -> Tensor:
        """(low + high) / 2 (a jitgrad addition: Paddle 3.3.1 raises NotImplementedError)."""
        return (self.low + self.high) / 2

    @property
    def variance(self) -> Tensor:
        """(high - low)**2 / 12 (a jitgrad addition, as mean)."""
        return (self.high - self.low).pow(2) / 12

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        """Draws of shape `shape + batch_shape`, without gradient."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """low + (high - low) * u, u ~ U[0, 1) (a jitgrad addition: Paddle 3.3.1's Uniform
        has no rsample)."""
        out = list(check_shape(shape)) + list((self.low + self.high).shape)
        return self.low + uniform_noise(out, self.dtype) * (self.high - self.low)

    def _inside(self, value: Tensor) -> Tensor:
        """1 on [low, high), 0 elsewhere (Paddle 3.3.1 leaves out low itself, where its
        samples can fall: log_prob -inf there; torch and Paddle's docs include it)."""
        dt = value.dtype
        return (self.low <= value).astype(dt) * (value < self.high).astype(dt)

    def log_prob(self, value: Any) -> Tensor:
        value = as_value(value, self.low)
        return P.log(self._inside(value)) - P.log(self.high - self.low)

    def probs(self, value: Any) -> Tensor:
        value = as_value(value, self.low)
        return self._inside(value) / (self.high - self.low)

    def entropy(self) -> Tensor:
        return P.log(self.high - self.low)
