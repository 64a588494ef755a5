"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril), as
paddle.distribution.MultivariateNormal."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from .base import Distribution, check_shape, normal_noise


def _swap_last(x: Tensor) -> Tensor:
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return x.transpose(perm)


def precision_to_scale_tril(prec: Tensor) -> Tensor:
    """The lower Cholesky factor of prec's inverse, without forming the inverse."""
    lf = P.linalg.cholesky(P.flip(prec, [-2, -1]))
    l_inv = _swap_last(P.flip(lf, [-2, -1]))
    eye = P.eye(prec.shape[-1], dtype=prec.dtype)
    return P.linalg.solve(l_inv, eye.expand(l_inv.shape))


def batch_mahalanobis(tril: Tensor, x: Tensor) -> Tensor:
    """||tril^-1 x||^2 over x's last axis, tril broadcast over x's leading dimensions."""
    batch = list(np.broadcast_shapes(tuple(tril.shape[:-2]), tuple(x.shape[:-1])))
    n = x.shape[-1]
    lb = P.tril(tril).expand(batch + [n, n])        # (a triangular solve reads only this)
    xb = x.expand(batch + [n]).unsqueeze(-1)
    z = P.linalg.solve(lb, xb).squeeze(-1)
    return (z * z).sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal with mean loc (a number or a Tensor [..., k]) and exactly one
    of covariance_matrix, precision_matrix, scale_tril (Tensors [..., k, k])."""

    def __init__(self, loc: Any, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None
                 ) -> None:
        self.dtype = P.get_default_dtype()
        if isinstance(loc, (float, int)) and not isinstance(loc, bool):
            loc = P.to_tensor([float(loc)], dtype=self.dtype)
        elif isinstance(loc, Tensor):
            self.dtype = str(loc._data.dtype)
        else:
            raise TypeError(f"MultivariateNormal: loc must be a number or a Tensor, got "
                            f"{type(loc).__name__}")
        if loc.ndim < 1:
            loc = loc.reshape((1,))
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: give exactly one of covariance_matrix, "
                             f"precision_matrix or scale_tril (got {len(given)})")
        what, mat = given[0]
        if not isinstance(mat, Tensor):
            raise TypeError(f"MultivariateNormal: {what} must be a Tensor, got "
                            f"{type(mat).__name__}")
        if mat.ndim < 2:
            raise ValueError(f"MultivariateNormal: {what} must be at least two-dimensional "
                             f"([..., k, k]), got shape {list(mat.shape)}")
        mat = mat.astype(self.dtype)
        batch_shape = list(np.broadcast_shapes(tuple(mat.shape[:-2]), tuple(loc.shape[:-1])))
        full = mat.expand(batch_shape + list(mat.shape[-2:]))
        self.covariance_matrix = self.precision_matrix = self.scale_tril = None
        setattr(self, what, full)
        self.loc = loc.expand(batch_shape + [loc.shape[-1]])
        if what == "scale_tril":
            self._unbroadcasted_scale_tril = mat
        elif what == "covariance_matrix":
            self._unbroadcasted_scale_tril = P.linalg.cholesky(mat)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(mat)
        super().__init__(tuple(batch_shape), tuple(self.loc.shape[-1:]))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return P.square(self._unbroadcasted_scale_tril).sum(-1).expand(
            list(self._batch_shape + self._event_shape))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc + L eps, eps ~ N(0, I): differentiable in loc and the matrix."""
        out = self._extend_shape(check_shape(shape))
        eps = normal_noise(out, self.dtype)
        return self.loc + P.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        value = value.astype(self.dtype) if isinstance(value, Tensor) else \
            P.to_tensor(np.asarray(value, dtype=self.dtype))
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def prob(self, value: Any) -> Tensor:
        return P.exp(self.log_prob(value))

    def entropy(self) -> Tensor:
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(list(self._batch_shape))

    def kl_divergence(self, other: "MultivariateNormal") -> Tensor:
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError("KL divergence of two MultivariateNormal distributions needs the "
                             "same batch_shape and event_shape")
        l1, l2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        cov1 = P.matmul(l1, _swap_last(l1))
        cov2 = P.matmul(l2, _swap_last(l2))
        batch = list(np.broadcast_shapes(tuple(cov1.shape[:-2]), tuple(cov2.shape[:-2])))
        n = cov1.shape[-1]
        expectation = P.linalg.solve(cov2.expand(batch + [n, n]), cov1.expand(batch + [n, n])
                                     ).diagonal(axis1=-2, axis2=-1).sum(-1)
        expectation = expectation + batch_mahalanobis(l2, self.loc - other.loc)
        return other._half_log_det() - self._half_log_det() + 0.5 * (expectation -
                                                                     self._event_shape[0])
