"""Binomial(total_count, probs), as paddle.distribution.Binomial."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator
from .base import Distribution, check_shape, p_log_q


class Binomial(Distribution):
    """Successes in total_count trials of probability probs. total_count: an int or a
    Tensor (cast to probs' dtype); probs: a float or a Tensor; broadcast together."""

    def __init__(self, total_count: Any, probs: Any) -> None:
        self.dtype = P.get_default_dtype()
        if isinstance(probs, float):
            probs = P.to_tensor(probs, dtype=self.dtype)
        elif isinstance(probs, Tensor):
            self.dtype = str(probs._data.dtype)
        else:
            raise TypeError(f"Binomial: probs must be a float or a Tensor, got "
                            f"{type(probs).__name__}")
        if isinstance(total_count, int) and not isinstance(total_count, bool):
            total_count = P.to_tensor(total_count, dtype=self.dtype)
        elif isinstance(total_count, Tensor):
            total_count = total_count.astype(self.dtype)
        else:
            raise TypeError(f"Binomial: total_count must be an int or a Tensor, got "
                            f"{type(total_count).__name__}")
        self.total_count, self.probs = P.broadcast_tensors([total_count, probs])
        super().__init__(tuple(self.total_count.shape))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Counts (float, probs' dtype) of shape `shape + batch_shape`, no gradient."""
        out = check_shape(shape) + self._batch_shape
        n = np.broadcast_to(self.total_count._data, out).astype(np.int64)
        p = np.broadcast_to(self.probs._data, out).astype(np.float64)
        return P.to_tensor(np.asarray(generator().binomial(n, p)).astype(self.dtype))

    def _enumerate_support(self) -> Tensor:
        top = int(np.max(self.total_count._data))
        return P.arange(top + 1, dtype=self.dtype).reshape((-1,) + (1,) * len(self.batch_shape))

    def entropy(self) -> Tensor:
        lp = self.log_prob(self._enumerate_support())
        return -p_log_q(lp, lp).sum(0)

    def log_prob(self, value: Any) -> Tensor:
        value = value.astype(self.dtype) if isinstance(value, Tensor) else \
            P.to_tensor(np.asarray(value, dtype=self.dtype))
        n = self.total_count
        log_comb = P.lgamma(n + 1.0) - P.lgamma(n - value + 1.0) - P.lgamma(value + 1.0)
        eps = float(np.finfo(self.dtype).eps)
        probs = P.clip(self.probs, min=eps, max=1 - eps)
        lp = P.nan_to_num(log_comb + value * P.log(probs) + (n - value) * P.log(1 - probs),
                          neginf=-eps)
        # -inf outside 0 .. total_count (Paddle 3.3.1: -eps there, a probability of 1)
        outside = P.broadcast_to((value < 0).logical_or(value > n), lp.shape)
        return P.where(outside, P.full_like(lp, float("-inf")), lp)

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def kl_divergence(self, other: "Binomial") -> Tensor:
        support = self._enumerate_support()
        lp1, lp2 = self.log_prob(support), other.log_prob(support)
        return (p_log_q(lp1, lp1) - p_log_q(lp1, lp2)).sum(0)
