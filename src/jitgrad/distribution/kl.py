"""kl_divergence(p, q) and register_kl(cls_p, cls_q), as paddle.distribution.kl: dispatch on
the most specific registered pair of classes."""

from __future__ import annotations

import functools
import warnings
from typing import Callable

from ..core.tensor import Tensor
from .base import Distribution, ExponentialFamily, log_normalizer_and_gradients, sum_rightmost
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE: dict = {}


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), by the function registered for the closest pair of their classes."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p: type, cls_q: type) -> Callable:
    """Decorator: register f(p, q) as the KL divergence of (cls_p, cls_q) instances."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("register_kl: cls_p and cls_q must be subclasses of Distribution")

    def decorator(f: Callable) -> Callable:
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


def _dispatch(cls_p: type, cls_q: type) -> Callable:
    matches = [(sp, sq) for sp, sq in _REGISTER_TABLE
               if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise NotImplementedError(f"no KL divergence registered for ({cls_p.__name__}, "
                                  f"{cls_q.__name__}); add one with "
                                  f"paddle.distribution.register_kl")
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_p, right_q = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_q, right_p]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    def __init__(self, *classes: type) -> None:
        self.classes = classes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Compare) and self.classes == other.classes

    def __le__(self, other: "_Compare") -> bool:
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _own(p: Distribution, q: Distribution) -> Tensor:
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal,
             MultivariateNormal, Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_own)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    return (q.alpha.lgamma() + q.beta.lgamma() + (p.alpha + p.beta).lgamma()
            - (p.alpha.lgamma() + p.beta.lgamma() + (q.alpha + q.beta).lgamma())
            + (p.alpha - q.alpha) * p.alpha.digamma() + (p.beta - q.beta) * p.beta.digamma()
            + (q.alpha + q.beta - (p.alpha + p.beta)) * (p.alpha + p.beta).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    pc, qc = p.concentration, q.concentration
    return (pc.sum(-1).lgamma() - qc.sum(-1).lgamma() - (pc.lgamma() - qc.lgamma()).sum(-1)
            + ((pc - qc) * (pc.digamma() - pc.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """KL(p || q) of two members of the same exponential family, as the Bregman divergence of
    the log normalizer F: F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>
    (as Paddle's; p's natural parameters are detached, q's keep their gradient)."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence({type(p).__name__}, {type(q).__name__}): "
                                  f"no KL divergence registered, and the exponential-family "
                                  f"one needs two distributions of the same class")
    q_natural = q._natural_parameters
    try:
        p_natural, p_log_norm, p_grads = log_normalizer_and_gradients(p)
    except RuntimeError as e:
        raise TypeError(f"Can't compute kl_divergence({type(p).__name__}, "
                        f"{type(q).__name__}) as a Bregman divergence; register one with "
                        f"register_kl") from e
    kl = q._log_normalizer(*q_natural) - p_log_norm
    for pp, qp, g in zip(p_natural, q_natural, p_grads):
        kl = kl - sum_rightmost((qp - pp) * g, len(q.event_shape))
    return kl


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return p._base.kl_divergence(q._base)
