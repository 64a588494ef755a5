"""Normal(loc, scale): the (real) Gaussian, as paddle.distribution.Normal."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, check_shape, normal_noise


def float_params(dist: Distribution, *args: Any) -> tuple:
    """Normal/Uniform argument forms: all Tensors (kept as given), or Python numbers, lists
    and numpy arrays (float32, float64 if a numpy array is; broadcast together)."""
    args = tuple(float(a) if isinstance(a, int) and not isinstance(a, bool) else a
                 for a in args)
    args = tuple(np.array(a, dtype=np.float32) if isinstance(a, (list, tuple)) else a
                 for a in args)
    if dist._validate_args(*args):
        return args
    dtype = next((a.dtype for a in args if isinstance(a, np.ndarray)
                  and a.dtype in (np.float32, np.float64)), np.dtype(np.float32))
    return tuple(t.astype(str(dtype)) if str(t._data.dtype) != str(dtype) else t
                 for t in dist._to_tensor(*args))


class Normal(Distribution):
    """The normal distribution N(loc, scale**2). loc, scale: floats, lists, numpy arrays or
    Tensors (all Tensors, or none)."""

    def __init__(self, loc: Any, scale: Any, name: str | None = None) -> None:
        if isinstance(loc, complex) or (isinstance(loc, Tensor) and P.is_complex(loc)):
            raise NotImplementedError("jitgrad's Normal is real only (Paddle 3.3.1 also has a "
                                      "complex Gaussian for a complex loc)")
        self.name = name if name is not None else "Normal"
        self.loc, self.scale = float_params(self, loc, scale)
        self.dtype = str(self.loc._data.dtype)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def _batch(self) -> list:
        return list((self.loc + self.scale).shape)

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        """Draws of shape `shape + batch_shape`, without gradient (use rsample for one)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc + scale * eps, eps ~ N(0, 1): differentiable in loc and scale."""
        out = list(check_shape(shape)) + self._batch()
        return self.loc + normal_noise(out, self.dtype) * self.scale

    def entropy(self) -> Tensor:
        zero = P.zeros(self._batch(), dtype=self.dtype)
        return (0.5 + zero) + (0.5 * math.log(2 * math.pi) + P.log(self.scale + zero))

    def log_prob(self, value: Any) -> Tensor:
        value = as_value(value, self.loc)
        var = self.scale * self.scale
        return (-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var)
                - (P.log(self.scale) + math.log(math.sqrt(2.0 * math.pi))))

    def probs(self, value: Any) -> Tensor:
        value = as_value(value, self.loc)
        var = self.scale * self.scale
        return (P.exp(-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var))
                / (math.sqrt(2 * math.pi) * self.scale))

    def cdf(self, value: Any) -> Tensor:
        """P(X <= value) (a jitgrad addition: Paddle 3.3.1's Normal has no cdf)."""
        value = as_value(value, self.loc)
        return 0.5 * (1.0 + P.erf((value - self.loc) / (self.scale * math.sqrt(2.0))))

    def icdf(self, value: Any) -> Tensor:
        """The inverse of cdf (a jitgrad addition: Paddle 3.3.1's Normal has no icdf)."""
        value = as_value(value, self.loc)
        return self.loc + self.scale * math.sqrt(2.0) * P.erfinv(2.0 * value - 1.0)

    def kl_divergence(self, other: "Normal") -> Tensor:
        if not isinstance(other, Normal):
            raise TypeError(f"Normal.kl_divergence needs a Normal, got {type(other).__name__}")
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return 0.5 * var_ratio + 0.5 * (t1 - 1.0 - P.log(var_ratio))
