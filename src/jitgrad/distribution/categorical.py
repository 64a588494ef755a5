"""Categorical(logits), as paddle.distribution.Categorical."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, check_shape
from ..ops.creation import generator


class Categorical(Distribution):
    """A distribution over the indices of logits' last axis.

    As Paddle 3.3.1's: sample, entropy and kl_divergence read `logits` as log-probabilities
    (softmax), but probs/log_prob read it as unnormalised probabilities (logits / sum).
    """

    def __init__(self, logits: Any, name: str | None = None) -> None:
        self.name = name if name is not None else "Categorical"
        if self._validate_args(logits):
            self.logits = logits
        else:
            dtype = (str(logits.dtype) if isinstance(logits, np.ndarray)
                     and logits.dtype in (np.float32, np.float64) else "float32")
            self.logits = self._to_tensor(logits)[0].astype(dtype)
        self.dtype = str(self.logits._data.dtype)
        if self.logits.ndim < 1:
            raise ValueError("Categorical: logits must have at least one dimension "
                             "(the categories), got a 0-d tensor")
        self._prob = self.logits / P.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]), ())

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """int64 category indices of shape `shape + logits.shape[:-1]` (an int n is [n], as
        Paddle 3.3.1's Categorical takes it)."""
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = [int(shape)]
        shape = list(check_shape(shape))
        with no_grad():
            probs = self._logits_to_probs(self.logits)._data.astype(np.float64)
            cdf = np.cumsum(probs, axis=-1)
            cdf = cdf / cdf[..., -1:]
            batch = probs.shape[:-1]
            u = generator().random(tuple(shape) + batch + (1,))
            idx = (u >= np.broadcast_to(cdf, tuple(shape) + cdf.shape)).sum(-1)
            idx = np.minimum(idx, probs.shape[-1] - 1).astype(np.int64)
        return P.to_tensor(idx)

    def kl_divergence(self, other: "Categorical") -> Tensor:
        logits = self.logits - P.max(self.logits, axis=-1, keepdim=True)
        other_logits = other.logits - P.max(other.logits, axis=-1, keepdim=True)
        e, oe = P.exp(logits), P.exp(other_logits)
        z, oz = P.sum(e, axis=-1, keepdim=True), P.sum(oe, axis=-1, keepdim=True)
        prob = e / z
        return P.sum(prob * (logits - P.log(z) - other_logits + P.log(oz)), axis=-1,
                     keepdim=True)

    def entropy(self) -> Tensor:
        logits = self.logits - P.max(self.logits, axis=-1, keepdim=True)
        e = P.exp(logits)
        z = P.sum(e, axis=-1, keepdim=True)
        prob = e / z
        return -P.sum(prob * (logits - P.log(z)), axis=-1)

    def probs(self, value: Any) -> Tensor:
        """The probability (logits / sum(logits)) of the category indices in value."""
        if not isinstance(value, Tensor):
            value = P.to_tensor(np.asarray(value, dtype=np.int64))
        if len(self._prob.shape) == 1:
            return P.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            return P.take_along_axis(self._prob, value.reshape(
                (len(self._prob.shape) - 1) * [1] + [-1]), axis=-1)
        return P.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value: Any) -> Tensor:
        return P.log(self.probs(value))
