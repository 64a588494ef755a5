"""LKJCholesky(dim, concentration, sample_method), as paddle.distribution.LKJCholesky: the
LKJ distribution over the lower Cholesky factors of dim x dim correlation matrices."""

from __future__ import annotations

import math
from typing import Any, Literal, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator
from .base import Distribution, check_shape


def _mvlgamma(a: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function log Gamma_p(a)."""
    j = P.to_tensor(np.arange(1, p + 1, dtype=np.dtype(str(a._data.dtype))))
    return p * (p - 1) / 4 * math.log(math.pi) + P.lgamma(a.unsqueeze(-1) + (1 - j) / 2).sum(-1)


def _beta_draws(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Beta(a, b) draws (a, b broadcast to the output shape) from the seeded generator."""
    g1 = generator().standard_gamma(a)
    g2 = generator().standard_gamma(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        return g1 / (g1 + g2)


class LKJCholesky(Distribution):
    """The LKJ distribution of the lower Cholesky factor L of a dim x dim correlation matrix
    (density proportional to det(L L^T)^(concentration - 1)). concentration: a positive
    float, list, tuple or Tensor (its shape is the batch_shape); event_shape (dim, dim).
    sample() draws by the 'onion' or 'cvine' method, without gradient (no rsample, as
    Paddle's)."""

    def __init__(self, dim: int = 2, concentration: Any = 1.0,
                 sample_method: Literal["onion", "cvine"] = "onion") -> None:
        if self._validate_args(concentration):
            self.concentration = concentration
            self.dtype = str(concentration._data.dtype)
        else:
            (self.concentration,) = self._to_tensor(concentration)
            self.dtype = P.get_default_dtype()
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"Expected dim to be an integer. Found dim={dim}.")
        if dim < 2:
            raise ValueError(f"Expected dim greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        if not bool((self.concentration._data > 0).all()):
            raise ValueError("The arg of `concentration` must be positive.")
        if sample_method not in ("onion", "cvine"):
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        self.sample_method = sample_method
        super().__init__(tuple(self.concentration.shape), (dim, dim))

    def _beta_parameters(self) -> tuple:
        """The Beta parameters of the method's draws, [*batch, k] numpy arrays (float64)."""
        c = np.asarray(self.concentration._data, dtype=np.float64)[..., None]
        marginal = c + 0.5 * (self.dim - 2)
        offset = np.arange(self.dim - 1, dtype=np.float64)
        if self.sample_method == "onion":
            # row i (i >= 1) draws y ~ Beta(i / 2, marginal - (i - 1) / 2) (Lewandowski et
            # al. 2009, section 3.2; numpyro). Paddle 3.3.1 and torch take i - 1/2 for the
            # first parameter: their rows past the second are too weakly correlated (for
            # dim 3, concentration 2: correlation variances .167, .214, .214 where the LKJ
            # marginal has 1 / (2 concentration + dim - 1) = .167 for every pair).
            offset = np.concatenate([[0.0], offset])
            conc1 = np.concatenate([[0.5], 0.5 * offset[1:] + 0.5])
            return np.broadcast_to(conc1, marginal.shape[:-1] + offset.shape), \
                marginal - 0.5 * offset
        rows, cols = np.tril_indices(self.dim - 1)
        conc = marginal - 0.5 * offset[cols]        # entry (i, j) of the lower triangle
        return conc, conc

    def _onion(self, shape: tuple) -> np.ndarray:
        a, b = self._beta_parameters()
        y = _beta_draws(np.broadcast_to(a, shape + a.shape),
                        np.broadcast_to(b, shape + b.shape))[..., None]
        u = np.tril(generator().standard_normal(shape + self._batch_shape + self._event_shape),
                    -1)
        norm = np.linalg.norm(u, axis=-1, keepdims=True)
        u = np.divide(u, norm, out=np.zeros_like(u), where=norm > 0)   # (row 0 stays 0)
        w = np.sqrt(y) * u
        diag = np.sqrt(np.clip(1 - (w ** 2).sum(-1), np.finfo(np.float64).tiny, None))
        return w + diag[..., None] * np.eye(self.dim)

    def _cvine(self, shape: tuple) -> np.ndarray:
        a, b = self._beta_parameters()
        r_vec = 2 * _beta_draws(np.broadcast_to(a, shape + a.shape),
                                np.broadcast_to(b, shape + b.shape)) - 1
        tiny = float(np.finfo(np.float64).tiny)
        r_vec = np.clip(r_vec, -1 + tiny, 1 - tiny)
        r = np.zeros(r_vec.shape[:-1] + (self.dim, self.dim))
        rows, cols = np.tril_indices(self.dim, -1)
        r[..., rows, cols] = r_vec          # (row-major, as the Beta parameters' order)
        z1m_cumprod_sqrt = np.cumprod(np.sqrt(1 - r ** 2), -1)
        shifted = np.concatenate([np.ones(r.shape[:-1] + (1,)), z1m_cumprod_sqrt[..., :-1]], -1)
        return (r + np.eye(self.dim)) * shifted

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Cholesky factors of shape `sample_shape + batch_shape + [dim, dim]`."""
        shape = tuple(check_shape(sample_shape))
        out = self._onion(shape) if self.sample_method == "onion" else self._cvine(shape)
        out = out.reshape(shape + self._batch_shape + self._event_shape)
        return P.to_tensor(out.astype(self.dtype))

    def log_prob(self, value: Any) -> Tensor:
        """log density of a Cholesky factor: sum_i (2 (c - 1) + dim - i) log L_ii over
        i = 2..dim, minus the log normalizer."""
        if not isinstance(value, Tensor):
            value = P.to_tensor(np.asarray(value, dtype=self.dtype))
        diag = P.diagonal(value, offset=0, axis1=-1, axis2=-2)[..., 1:]
        c = self.concentration
        order = P.to_tensor(np.arange(2, self.dim + 1, dtype=np.dtype(str(c._data.dtype))))
        order = 2 * (c - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * P.log(diag)).sum(-1)
        dm1 = self.dim - 1
        alpha = c + 0.5 * dm1
        normalize = 0.5 * dm1 * math.log(math.pi) + _mvlgamma(alpha - 0.5, dm1) \
            - P.lgamma(alpha) * dm1
        return unnormalized - normalize
