"""Laplace(loc, scale), as paddle.distribution.Laplace."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, real_or_tensor, uniform_noise


class Laplace(Distribution):
    """The Laplace distribution. loc, scale: Python reals or Tensors."""

    def __init__(self, loc: Any, scale: Any) -> None:
        loc = real_or_tensor(loc, "loc", "Laplace")
        scale = real_or_tensor(scale, "scale", "Laplace")
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = P.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return 2 ** 0.5 * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def _validate_value(self, value: Any) -> tuple:
        value = as_value(value, self.scale)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(P.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value: Any) -> Tensor:
        loc, scale, value = self._validate_value(value)
        return -P.log(2 * scale) - P.abs(value - loc) / scale

    def entropy(self) -> Tensor:
        return 1 + P.log(2 * self.scale)

    def cdf(self, value: Any) -> Tensor:
        loc, scale, value = self._validate_value(value)
        return 0.5 - 0.5 * (value - loc).sign() * P.expm1(-(value - loc).abs() / scale)

    def icdf(self, value: Any) -> Tensor:
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * term.sign() * P.log1p(-2 * term.abs())

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc - scale * sign(u) * log1p(-|u|), u ~ U(-1, 1): differentiable."""
        dt = self.loc._data.dtype
        eps = float(np.finfo(dt).eps) if dt == np.float64 else 1.19209e-07
        shape = self._extend_shape(shape)
        u = uniform_noise(shape, dt, float(np.nextafter(-1, 1)) + eps / 2, 1.0 - eps / 2)
        return self.loc - self.scale * u.sign() * P.log1p(-u.abs())

    def kl_divergence(self, other: "Laplace") -> Tensor:
        if not isinstance(other, Laplace):
            raise TypeError(f"Laplace.kl_divergence needs a Laplace, got "
                            f"{type(other).__name__}")
        ratio = other.scale / self.scale
        t = P.abs(self.loc - other.loc)
        term1 = (self.scale * P.exp(-t / self.scale) + t) / other.scale
        return term1 + P.log(ratio) - 1
