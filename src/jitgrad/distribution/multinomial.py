"""Multinomial(total_count, probs), as paddle.distribution.Multinomial."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator
from .base import Distribution, check_shape
from .categorical import Categorical


class Multinomial(Distribution):
    """Counts of total_count draws over the categories of probs' last axis (probs is
    normalised); batch_shape probs.shape[:-1], event_shape [k]."""

    def __init__(self, total_count: int, probs: Any) -> None:
        if not isinstance(total_count, int) or isinstance(total_count, bool) or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be an int >= 1, got "
                             f"{total_count!r}")
        if not isinstance(probs, Tensor):
            probs = P.to_tensor(np.asarray(probs, dtype=np.float32))
        if probs.ndim < 1:
            raise ValueError("Multinomial: probs must have at least one dimension (the "
                             "categories), got a 0-d tensor")
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = P.to_tensor(np.asarray(value))
        if not P.is_floating_point(value):
            value = value.astype(self.probs.dtype)
        logits, value = P.broadcast_tensors([P.log(self.probs), value])
        logits = P.where((value == 0) & P.isinf(logits), P.zeros_like(logits), logits)
        return (P.lgamma(value.sum(-1) + 1) - P.lgamma(value + 1).sum(-1)
                + (value * logits).sum(-1))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Count vectors (float) of shape `shape + batch_shape + [k]`, no gradient."""
        shape = check_shape(shape)
        p = self.probs._data.astype(np.float64)
        p = p / p.sum(-1, keepdims=True)
        flat = p.reshape(-1, p.shape[-1])
        reps = int(np.prod(shape)) if shape else 1
        draws = np.stack([generator().multinomial(self.total_count, flat)
                          for _ in range(reps)])
        out = draws.reshape(shape + p.shape).astype(self.probs._data.dtype)
        return P.to_tensor(out)

    def entropy(self) -> Tensor:
        n = P.full([], self.total_count, dtype=self.probs.dtype)
        support = P.arange(self.total_count + 1, dtype=self.probs.dtype).reshape(
            (-1,) + (1,) * len(self.probs.shape))[1:]
        pmf = P.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - P.lgamma(n + 1)
                + (pmf * P.lgamma(support + 1)).sum([0, -1]))

    def _binomial_logpmf(self, count: Tensor, value: Tensor) -> Tensor:
        logits = self._probs_to_logits(self.probs, is_binary=True)
        factor_n = P.lgamma(count + 1)
        factor_k = P.lgamma(value + 1)
        factor_nmk = P.lgamma(count - value + 1)
        clip0 = (logits.clip(min=0) + logits - logits.clip(max=0)) / 2
        norm = count * clip0 + count * P.log1p(P.exp(-P.abs(logits))) - factor_n
        return value * logits - factor_k - factor_nmk - norm
