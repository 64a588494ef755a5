"""Gamma(concentration, rate), as paddle.distribution.Gamma."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tape import is_grad_enabled
from ..core.tensor import Tensor
from ..ops.special import _gamma_pq64, _lgamma64
from .base import Distribution, ExponentialFamily, promoted_value, xlogy
from .dirichlet import gamma_draws


def standard_gamma_slope(alpha: np.ndarray, g: np.ndarray) -> np.ndarray:
    """dG/dalpha of a standard gamma draw G at fixed quantile P(alpha, G) (float64):
    -(dP/dalpha) / (dP/dG), dP/dalpha by central differences of P below the mode and of
    Q = 1 - P above it, the smaller side (accurate to about 1e-9 against mpmath)."""
    a, x = np.asarray(alpha, np.float64), np.asarray(g, np.float64)
    h = 1e-5 * a
    p_hi, q_hi = _gamma_pq64(a + h, x)
    p_lo, q_lo = _gamma_pq64(a - h, x)
    dp = np.where(x < a, p_hi - p_lo, q_lo - q_hi) / (2 * h)
    log_pdf = (a - 1) * np.log(x) - x - _lgamma64(a)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        slope = -np.sign(dp) * np.exp(np.log(np.abs(dp)) - log_pdf)
    return np.nan_to_num(slope, nan=0.0)


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
        """G / rate, G ~ standard_gamma(concentration): differentiable in rate and, by
        implicit reparameterization, in concentration: dG/dc = -(dP/dc)(c, G) / p(G; c), P
        the regularized incomplete gamma function (Paddle 3.3.1's draw has no gradient to
        the concentration; torch's approximates this one to about 1e-4)."""
        shape = Distribution._extend_shape(self, shape)
        conc = self.concentration.expand(shape)
        draws = gamma_draws(conc)
        g = P.to_tensor(draws)
        if not conc.stop_gradient and is_grad_enabled():
            slope = standard_gamma_slope(conc._data, draws).astype(draws.dtype)
            g = g + (conc - conc.detach()) * P.to_tensor(slope)   # (value g, slope dG/dc)
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
