"""ContinuousBernoulli(probs, lims), as paddle.distribution.ContinuousBernoulli: the density
C(p) p^x (1 - p)^(1 - x) on [0, 1]."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, as_value, check_shape, uniform_noise


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution on [0, 1] with shape parameter probs (a Python
    number, batch_shape [1] as Paddle's, or a Tensor), clipped to [eps, 1 - eps]. Where
    probs lies in (lims[0], lims[1]] around 1/2, the normalizing constant, mean and
    variance use their Taylor expansions and cdf/icdf the uniform's (as Paddle's)."""

    def __init__(self, probs: Any, lims: tuple = (0.499, 0.501)) -> None:
        self.dtype = P.get_default_dtype()
        if isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = P.to_tensor([float(probs)], dtype=self.dtype)
        elif isinstance(probs, Tensor):
            self.dtype = str(probs._data.dtype)
        else:
            raise TypeError(f"ContinuousBernoulli: probs must be a Python number or a Tensor, "
                            f"got {type(probs).__name__}")
        if self.dtype not in ("float32", "float64"):
            raise TypeError(f"ContinuousBernoulli: probs must be float32 or float64, got "
                            f"{self.dtype}")
        self.lims = P.to_tensor(np.asarray(lims, dtype=self.dtype))
        self._lo, self._hi = float(lims[0]), float(lims[1])
        eps = float(np.finfo(self.dtype).eps)
        self.probs = P.clip(probs, min=eps, max=1 - eps)
        super().__init__(tuple(self.probs.shape))

    def _cut_support_region(self) -> Tensor:
        return (self.probs <= self._lo).logical_or(self.probs > self._hi)

    def _cut_probs(self) -> Tensor:
        return P.where(self._cut_support_region(), self.probs,
                       P.full_like(self.probs, self._lo))

    @staticmethod
    def _tanh_inverse(value: Tensor) -> Tensor:
        return 0.5 * (P.log1p(value) - P.log1p(-value))

    def _log_constant(self) -> Tensor:
        """log C(probs): log(2 atanh(1 - 2p) / (1 - 2p)), its Taylor expansion near 1/2."""
        cut = self._cut_probs()
        below = P.where(cut <= 0.5, cut, P.zeros_like(cut))
        above = P.where(cut >= 0.5, cut, P.ones_like(cut))
        propose = P.log(2.0 * P.abs(self._tanh_inverse(1.0 - 2.0 * cut))) - P.where(
            cut <= 0.5, P.log1p(-2.0 * below), P.log(2.0 * above - 1.0))
        x = P.square(self.probs - 0.5)
        taylor = float(np.log(2.0)) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return P.where(self._cut_support_region(), propose, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        propose = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * self._tanh_inverse(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * P.square(x)) * x
        return P.where(self._cut_support_region(), propose, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        propose = cut * (cut - 1.0) / P.square(1.0 - 2.0 * cut) + 1.0 / P.square(
            P.log1p(-cut) - P.log(cut))
        x = P.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return P.where(self._cut_support_region(), propose, taylor)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Draws of shape `shape + batch_shape`, without gradient."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """icdf(u), u ~ U[0, 1): differentiable in probs."""
        out = tuple(check_shape(shape)) + self._batch_shape
        return self.icdf(uniform_noise(out, self.dtype))

    def log_prob(self, value: Any) -> Tensor:
        value = as_value(value, self.probs)
        eps = float(np.finfo(self.dtype).eps)
        cross_entropy = P.nan_to_num(value * P.log(self.probs) + (1.0 - value)
                                     * P.log(1 - self.probs), neginf=-eps)
        return self._log_constant() + cross_entropy

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def entropy(self) -> Tensor:
        log_p = P.log(self.probs)
        log_1_minus_p = P.log1p(-self.probs)
        h = -self._log_constant() + self.mean * (log_1_minus_p - log_p) - log_1_minus_p
        return P.where(self.probs == 0.5, P.zeros_like(self.probs), h)

    def cdf(self, value: Any) -> Tensor:
        value = as_value(value, self.probs)
        cut = self._cut_probs()
        cdfs = (P.pow(cut, value) * P.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (
            2.0 * cut - 1.0)
        unbounded = P.where(self._cut_support_region(), cdfs, value)
        return P.where(value <= 0.0, P.zeros_like(unbounded),
                       P.where(value >= 1.0, P.ones_like(unbounded), unbounded))

    def icdf(self, value: Any) -> Tensor:
        value = as_value(value, self.probs)
        cut = self._cut_probs()
        inv = (P.log1p(-cut + value * (2.0 * cut - 1.0)) - P.log1p(-cut)) / (
            P.log(cut) - P.log1p(-cut))
        return P.where(self._cut_support_region(), inv, value)

    def kl_divergence(self, other: "ContinuousBernoulli") -> Tensor:
        if not isinstance(other, ContinuousBernoulli):
            raise TypeError(f"ContinuousBernoulli.kl_divergence needs a ContinuousBernoulli, "
                            f"got {type(other).__name__}")
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two ContinuousBernoulli distributions needs the "
                             f"same batch_shape, got {list(self.batch_shape)} and "
                             f"{list(other.batch_shape)}")
        log_q, log_1_minus_q = P.log(other.probs), P.log1p(-other.probs)
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1_minus_q)
                                  + log_1_minus_q)
