"""Bernoulli(probs), as paddle.distribution.Bernoulli."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import ExponentialFamily, as_value, uniform_noise

_EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}


def softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)), stable for both signs."""
    return P.maximum(x, P.zeros_like(x)) + P.log1p(P.exp(-P.abs(x)))


class Bernoulli(ExponentialFamily):
    """1 with probability probs, else 0. probs: a float, list, numpy array or Tensor; it is
    clipped to [eps, 1 - eps] of its dtype, as Paddle's."""

    def __init__(self, probs: Any, name: str | None = None) -> None:
        self.name = name or "Bernoulli"
        if self._validate_args(probs):
            self.dtype = str(probs._data.dtype)
        else:
            (probs,) = self._to_tensor(probs)
            self.dtype = P.get_default_dtype()
        if self.dtype not in _EPS:
            raise TypeError(f"Bernoulli: probs must be float32 or float64, got {self.dtype}")
        eps = _EPS[self.dtype]
        self.probs = P.clip(probs, min=eps, max=1 - eps).astype(self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=tuple(self.probs.shape), event_shape=())

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """0/1 draws (float, probs' dtype) of shape `shape + batch_shape`, without gradient."""
        shape = self._extend_shape(shape)
        with no_grad():
            u = uniform_noise(shape, self.dtype)
            return (u < self.probs.expand(shape)).astype(self.dtype)

    def rsample(self, shape: Sequence[int] = (), temperature: float = 1.0) -> Tensor:
        """The relaxed (Gumbel-softmax) sample in logit space, as Paddle's:
        (logit(u) + logits) / temperature, u ~ U(0, 1); differentiable in probs."""
        shape = self._extend_shape(shape)
        probs = self.probs.expand(shape)
        u = uniform_noise(shape, self.dtype)
        return ((u.log() - (-u).log1p()) + (probs.log() - (-probs).log1p())) / temperature

    def cdf(self, value: Any) -> Tensor:
        value = as_value(value, self.probs)
        probs, value = P.broadcast_tensors([self.probs, value])
        zeros, ones = P.zeros_like(probs), P.ones_like(probs)
        return P.where(value < 0, zeros, P.where(value < 1, ones - probs, ones))

    def log_prob(self, value: Any) -> Tensor:
        value = as_value(value, self.probs)
        logits, value = P.broadcast_tensors([self.logits, value])
        return logits * value - softplus(logits)

    def prob(self, value: Any) -> Tensor:
        return self.log_prob(value).exp()

    def entropy(self) -> Tensor:
        return softplus(self.logits) - self.logits * self.probs

    def kl_divergence(self, other: "Bernoulli") -> Tensor:
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Bernoulli.kl_divergence needs a Bernoulli, got "
                            f"{type(other).__name__}")
        a, b = self.logits, other.logits
        log_pa, log_pb = -softplus(-a), -softplus(-b)
        pa, one_minus_pa = P.sigmoid(a), P.sigmoid(-a)
        log_1pa, log_1pb = -softplus(a), -softplus(b)
        return (log_pa * pa - log_pb * pa) + (log_1pa * one_minus_pa - log_1pb * one_minus_pa)
