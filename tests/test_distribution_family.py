"""paddle.distribution additions from the eighth hunt: ExponentialFamily's Bregman entropy
and KL divergence, ContinuousBernoulli, LKJCholesky. Values measured on Paddle 3.3.1 or
closed forms, gradients against finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

from distribution_helpers import close, t64

D = paddle.distribution


class _MyExponential(D.ExponentialFamily):
    """An exponential distribution told only by its natural parameter -rate, its log
    normalizer -log(rate) and a zero carrier measure."""

    def __init__(self, rate):
        self.rate = rate
        super().__init__(tuple(rate.shape))

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class _MyNormal(D.ExponentialFamily):
    """N(mu, s^2): natural parameters (mu / s^2, -1 / (2 s^2)), a carrier measure of
    -log(2 pi) / 2."""

    def __init__(self, mu, s):
        self.mu, self.s = mu, s
        super().__init__(tuple(mu.shape))

    @property
    def _natural_parameters(self):
        return (self.mu / self.s ** 2, -0.5 / self.s ** 2)

    def _log_normalizer(self, a, b):
        return -a * a / (4 * b) - 0.5 * paddle.log(-2 * b)

    @property
    def _mean_carrier_measure(self):
        return -0.5 * math.log(2 * math.pi)


def test_exponential_family_entropy_and_kl_by_bregman_divergence():
    # Paddle 3.3.1 gives these through the same formulas (jitgrad raised NotImplementedError)
    rate, other = np.array([0.5, 2.0]), np.array([1.0, 3.0])
    p, q = _MyExponential(t64(rate)), _MyExponential(t64(other))
    close(p.entropy(), 1 - np.log(rate))                               # Paddle: [1.693, 0.307]
    close(D.kl_divergence(p, q), np.log(rate / other) + other / rate - 1)  # [0.307, 0.095]
    mu, s, mu2, s2 = np.array([0.3, -1.0]), np.array([2.0, 0.5]), np.array([1.0, 0.0]), \
        np.array([1.5, 1.0])
    n1, n2 = _MyNormal(t64(mu), t64(s)), _MyNormal(t64(mu2), t64(s2))
    close(n1.entropy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log(s))
    close(D.kl_divergence(n1, n2), D.kl_divergence(D.Normal(t64(mu), t64(s)),
                                                   D.Normal(t64(mu2), t64(s2))).numpy())
    # q's parameters keep their gradient (p's natural parameters are detached, as Paddle's)
    check_grads(lambda r: D.kl_divergence(p, _MyExponential(r)), other)


def test_exponential_family_kl_of_two_classes_is_not_implemented():
    with pytest.raises(NotImplementedError):
        D.kl_divergence(_MyExponential(t64([1.0])), D.Exponential(t64([1.0])))
    # builtin pairs keep their own closed forms
    close(D.kl_divergence(D.Gamma(t64([2.0]), t64([1.0])), D.Chi2(t64([3.0]))),
          [0.1303307])                                                 # Paddle 3.3.1


_CB = [0.3, 0.9, 0.5, 0.4995, 0.501, 0.01]     # (0.4995 and 0.501 are in the Taylor region)


def test_continuous_bernoulli_values_match_paddle():
    d = D.ContinuousBernoulli(t64(_CB))
    assert (d.batch_shape, d.event_shape) == ((6,), ())
    v = t64(np.linspace(0.05, 0.95, 6))
    # Paddle 3.3.1
    close(d.mean, [0.4302225, 0.66988039, 0.5, 0.49983333, 0.50033333, 0.2074181])
    close(d.variance, [0.08042515, 0.06650886, 0.08333333, 0.08333332, 0.08333327, 0.03705121])
    close(d.entropy(), [-2.93862022e-02, -1.79631116e-01, 0.0, -1.66666761e-07,
                        -6.66668178e-07, -5.82036188e-01])
    close(d.log_prob(v), [3.51547914e-01, -7.86884881e-01, -1.11022302e-16, -1.80166727e-04,
                          1.07933477e-03, -2.83021665e+00])
    close(d.cdf(v), [0.07259007, 0.08219811, 0.41, 0.59, 0.77, 0.99736436])
    close(d.icdf(v), [0.03421174, 0.4750557, 0.41, 0.59, 0.77, 0.613731])
    close(D.kl_divergence(d, D.ContinuousBernoulli(0.8 * t64(_CB))),
          [0.003716, 0.05608017, 0.00684072, 0.00682932, 0.00686361, 0.00092027])
    f = D.ContinuousBernoulli(0.3)                        # a Python number: batch [1], float32
    assert f.batch_shape == (1,) and f.probs.dtype == paddle.float32
    close(f.log_prob(paddle.to_tensor([0.05])), [0.35154784], 1e-6)


def test_continuous_bernoulli_is_a_density_and_samples_follow_it():
    d = D.ContinuousBernoulli(t64([0.3, 0.9, 0.01]))
    x = np.linspace(0.0, 1.0, 20001)
    dens = d.prob(t64(x[:, None])).numpy()
    close(t64(((dens[1:] + dens[:-1]) / 2).sum(0) * (x[1] - x[0])), [1.0, 1.0, 1.0], 1e-6)
    close(d.cdf(d.icdf(t64([0.25, 0.5, 0.75]))), [0.25, 0.5, 0.75], 1e-10)
    paddle.seed(5)
    s = d.sample([40000])
    assert s.shape == [40000, 3] and s.stop_gradient
    m, var = d.mean.numpy(), d.variance.numpy()
    assert np.all(np.abs(s.numpy().mean(0) - m) < 5 * np.sqrt(var / 40000))


def test_continuous_bernoulli_gradients():
    # Paddle 3.3.1: d log_prob / d probs at probs [.3, .9, .4995, .7], value [.2, .7, .4, .1]
    p = t64([0.3, 0.9, 0.4995, 0.7])
    p.stop_gradient = False
    D.ContinuousBernoulli(p).log_prob(t64([0.2, 0.7, 0.4, 0.1])).sum().backward()
    close(p.grad, [-1.09629762, 0.33466237, -0.39933373, -2.23703571])
    q = np.array([0.6, 0.2, 0.35, 0.7])
    check_grads(lambda a: D.ContinuousBernoulli(a).entropy() + D.ContinuousBernoulli(a).mean
                + D.ContinuousBernoulli(a).cdf(t64([0.2, 0.7, 0.4, 0.1])), q)
    check_grads(lambda a, b: D.kl_divergence(D.ContinuousBernoulli(a),
                                             D.ContinuousBernoulli(b)), q, q[::-1].copy())

    def rs(a):
        paddle.seed(9)
        return D.ContinuousBernoulli(a).rsample([3])
    check_grads(rs, q)


_L3 = np.array([[1.0, 0, 0], [0.6, 0.8, 0], [-0.3, 0.4, math.sqrt(0.75)]])
_L4 = np.linalg.cholesky(np.array([[1, .2, .1, 0], [.2, 1, .3, .1], [.1, .3, 1, .2],
                                   [0, .1, .2, 1.]]))


def test_lkj_cholesky_log_prob_matches_paddle_and_torch():
    for c, want in [(1.0, -1.8194561424530646), (2.0, -1.572596064521539),
                    (0.5, -2.3871832107434003)]:                     # torch (Paddle: same)
        close(D.LKJCholesky(3, c).log_prob(paddle.to_tensor(_L3, dtype="float32")), want,
              1e-6)
    c = t64([0.5, 2.0])
    c.stop_gradient = False
    d = D.LKJCholesky(4, c)
    assert (d.batch_shape, d.event_shape) == ((2,), (4, 4))
    lp = d.log_prob(t64(_L4))
    close(lp, [-3.88444463, -1.07843615])                                # Paddle 3.3.1
    lp.sum().backward()
    close(c.grad, [3.5921454, 1.08030129])                               # Paddle 3.3.1
    check_grads(lambda a: D.LKJCholesky(4, a).log_prob(t64(_L4)), np.array([0.5, 2.0]))


def test_lkj_cholesky_arguments_and_shapes_as_paddle():
    d = D.LKJCholesky(3, 2.0)
    assert d.batch_shape == () and d.concentration.dtype == paddle.float32
    assert d.sample([5]).shape == [5, 3, 3] and d.sample().shape == [3, 3]
    d = D.LKJCholesky(4, [0.5, 2.0], sample_method="cvine")
    assert d.sample([5]).shape == [5, 2, 4, 4]
    d = D.LKJCholesky(3, t64([1.5]))
    assert d.sample([5]).shape == [5, 1, 3, 3] and d.sample().dtype == paddle.float64
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="positive"):
        D.LKJCholesky(3, -1.0)
    with pytest.raises(ValueError, match="'cvine' or 'onion'"):
        D.LKJCholesky(3, sample_method="x")
    with pytest.raises(TypeError, match="integer"):
        D.LKJCholesky(2.0)


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_cholesky_samples_have_the_lkj_marginals(method):
    # every correlation of an LKJ(eta) d x d matrix has mean 0 and variance
    # 1 / (2 eta + d - 1). Paddle 3.3.1's onion (torch's too) gives .214 instead of .167 for
    # the pairs past the first row at d = 3, eta = 2, and its cvine .178/.151
    paddle.seed(0)
    n = 20000
    for d, eta in ((3, 2.0), (4, 0.5)):
        s = D.LKJCholesky(d, t64(eta), sample_method=method).sample([n]).numpy()
        assert np.all(np.triu(s, 1) == 0) and np.all(np.diagonal(s, axis1=-2, axis2=-1) > 0)
        c = s @ np.swapaxes(s, -1, -2)
        np.testing.assert_allclose(np.diagonal(c, axis1=-2, axis2=-1), 1.0, atol=1e-12)
        iu = np.triu_indices(d, 1)
        off = c[:, iu[0], iu[1]]
        var = 1 / (2 * eta + d - 1)
        assert np.all(np.abs(off.mean(0)) < 5 * math.sqrt(var / n))
        assert np.all(np.abs(off.var(0) - var) < 0.05 * var)
