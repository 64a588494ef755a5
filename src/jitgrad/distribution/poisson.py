"""Poisson(rate), as paddle.distribution.Poisson."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator
from .base import Distribution, check_shape, p_log_q, xlogy


class Poisson(Distribution):
    """The Poisson distribution. rate: a Python number (batch_shape [1], as Paddle's) or a
    Tensor."""

    def __init__(self, rate: Any) -> None:
        self.dtype = P.get_default_dtype()
        if isinstance(rate, (float, int)) and not isinstance(rate, bool):
            rate = P.to_tensor([float(rate)], dtype=self.dtype)
        elif isinstance(rate, Tensor):
            self.dtype = str(rate._data.dtype)
        else:
            raise TypeError(f"Poisson: rate must be a Python number or a Tensor, got "
                            f"{type(rate).__name__}")
        self.rate = rate
        super().__init__(tuple(rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Counts (float, rate's dtype) of shape `shape + batch_shape`, no gradient."""
        out = check_shape(shape) + self._batch_shape
        lam = np.broadcast_to(self.rate._data, out).astype(np.float64)
        return P.to_tensor(np.asarray(generator().poisson(lam)).astype(self.dtype))

    def _support(self, rate: Tensor) -> Tensor:
        r = rate._data
        rmax = float(np.max(r))
        s_max = np.sqrt(rmax) if rmax >= 1.0 else 1.0
        upper = int(np.max((r + 30 * s_max).astype(np.int32)))
        return P.arange(0, upper, dtype=self.dtype)

    def entropy(self) -> Tensor:
        """-sum p log p over 0 .. rate + 30 sqrt(rate) (Paddle's truncation)."""
        values = self._support(self.rate).reshape((-1,) + (1,) * len(self.batch_shape))
        lp = self.log_prob(values)
        return -p_log_q(lp, lp).sum(0)

    def log_prob(self, value: Any) -> Tensor:
        """-rate + value log(rate) - lgamma(value + 1); -inf outside the support (a negative
        value, or a positive one at rate 0), where Paddle 3.3.1 gives -eps (probability 1)."""
        value = value.astype(self.dtype) if isinstance(value, Tensor) else \
            P.to_tensor(np.asarray(value, dtype=self.dtype))
        rate, value = P.broadcast_tensors([self.rate, value])
        # (0 log 0 = 0 at rate 0 only: elsewhere d/dvalue is log(rate), at value 0 too)
        lp = P.nan_to_num(-rate + xlogy(value, rate) - P.lgamma(value + 1))
        outside = (value < 0).logical_or((rate == 0).logical_and(value > 0))
        return P.where(outside, P.full_like(lp, float("-inf")), lp)

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def kl_divergence(self, other: "Poisson") -> Tensor:
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Poisson distributions needs the same "
                             f"batch_shape, got {list(self.batch_shape)} and "
                             f"{list(other.batch_shape)}")
        rate_max = P.max(P.maximum(self.rate, other.rate))
        a_max = float(np.max(self._support(rate_max)._data))
        support = P.arange(0, a_max, dtype=self.dtype).reshape(
            (-1,) + (1,) * len(self.batch_shape))
        lp1, lp2 = self.log_prob(support), other.log_prob(support)
        return (p_log_q(lp1, lp1) - p_log_q(lp1, lp2)).sum(0)
