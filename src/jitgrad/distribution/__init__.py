"""paddle.distribution: probability distributions built from jitgrad ops (gradients come
from the ops), sampling from jitgrad's seeded generator (paddle.seed).

sample() draws carry no gradient; rsample() is a differentiable transform of parameter-free
noise where the distribution has one.
"""

from . import transform
from .base import Distribution, ExponentialFamily
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .lognormal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .student_t import StudentT
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform,
                        IndependentTransform, PowerTransform, ReshapeTransform,
                        SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ContinuousBernoulli", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent", "LKJCholesky",
           "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "Poisson",
           "StudentT", "TransformedDistribution", "Uniform", "kl_divergence",
           "register_kl"] + transform.__all__

from ..core.namespace import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr(__name__, "distribution")
