"""paddle.distribution (jitgrad/distribution/): values measured on Paddle 3.3.1 or closed
forms, gradients against finite differences, sampling statistics with seeded draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

from distribution_helpers import close as _close
from distribution_helpers import t64

D = paddle.distribution


def close(t, want, tol=1e-6):
    """(these values were measured to 8 digits)"""
    _close(t, want, tol)


# ---- values measured on Paddle 3.3.1 (float64 parameters)

def test_log_prob_entropy_kl_values_match_paddle():
    close(D.Normal(t64([0.5]), t64([2.0])).log_prob(t64([1.5])), [-1.73708571])  # Paddle 3.3.1
    g = D.Gamma(t64([2.5]), t64([1.5]))
    close(g.entropy(), [1.3244828])                                             # Paddle 3.3.1
    close(g.log_prob(t64([0.7])), [-0.85603252])                                # Paddle 3.3.1
    close(D.kl_divergence(D.Beta(t64([2.0]), t64([3.0])), D.Beta(t64([1.5]), t64([0.5]))),
          [0.93648936])                                                         # Paddle 3.3.1
    close(D.Categorical(t64([[0.2, 1.0, 3.0]])).entropy(), [0.54773725])        # Paddle 3.3.1
    close(D.Poisson(t64([3.5])).entropy(), [2.01517252])                        # Paddle 3.3.1
    close(D.Binomial(paddle.to_tensor([7]), t64([0.3])).entropy(), [1.59269726])  # Paddle 3.3.1
    close(D.Multinomial(5, t64([0.2, 0.3, 0.5])).entropy(), 2.591808596271498)  # Paddle 3.3.1
    close(D.StudentT(t64([4.0]), t64([0.5]), t64([2.0])).entropy(), [2.3749072])  # Paddle 3.3.1
    mvn = D.MultivariateNormal(t64([0.1, -0.2]), covariance_matrix=t64([[2.0, 0.3], [0.3, 1.0]]))
    close(mvn.log_prob(t64([0.5, 0.5])), -2.4158789492187194)                    # Paddle 3.3.1
    close(D.kl_divergence(D.Poisson(t64([3.5])), D.Poisson(t64([2.0]))), [0.45865526])  # Paddle


def test_closed_forms():
    e = D.Exponential(t64([2.0]))
    close(e.cdf(t64([0.3])), [1 - math.exp(-0.6)])
    close(e.icdf(e.cdf(t64([0.3]))), [0.3])
    la = D.Laplace(t64([0.5]), t64([2.0]))
    close(la.icdf(la.cdf(t64([1.7]))), [1.7])
    close(D.Cauchy(t64([0.0]), t64([1.0])).cdf(t64([1.0])), [0.75])
    close(D.Gumbel(t64([0.0]), t64([1.0])).cdf(t64([0.0])), [math.exp(-1.0)])
    close(D.Geometric(t64([0.25])).pmf(2), [0.75 ** 2 * 0.25])
    close(D.Uniform(t64([1.0]), t64([3.0])).entropy(), [math.log(2.0)])
    close(D.Dirichlet(t64([1.0, 1.0, 1.0])).log_prob(t64([0.2, 0.3, 0.5])), math.log(2.0))
    close(D.LogNormal(t64([0.0]), t64([1.0])).mean, [math.exp(0.5)])
    n = D.Normal(t64([0.5]), t64([2.0]))
    close(n.icdf(n.cdf(t64([1.3]))), [1.3])
    close(D.Bernoulli(t64([0.3])).log_prob(t64([1.0])), [math.log(0.3)])


# ---- argument forms, shapes, dtypes

def test_argument_forms_shapes_and_dtypes():
    n = D.Normal(0.0, 1.0)
    assert n.batch_shape == () and n.event_shape == ()
    assert n.sample([3]).shape == [3] and n.loc.dtype == paddle.float32
    n = D.Normal([0.0, 1.0], [1.0, 2.0])
    assert n.batch_shape == (2,) and n.rsample([4, 3]).shape == [4, 3, 2]
    assert D.Normal(np.array([0.0]), np.array([1.0])).loc.dtype == paddle.float64
    assert D.Poisson(2.0).batch_shape == (1,)                  # Paddle's, a [1] rate
    assert D.Exponential(np.array([1.0])).rate.dtype == paddle.float32
    assert D.Categorical(paddle.to_tensor([[0.1, 0.9]])).sample([5]).dtype == paddle.int64
    mvn = D.MultivariateNormal(paddle.zeros([4, 2]), scale_tril=paddle.eye(2))
    assert (mvn.batch_shape, mvn.event_shape) == ((4,), (2,))
    assert mvn.sample([3]).shape == [3, 4, 2]
    ind = D.Independent(D.Normal(paddle.zeros([3, 2]), paddle.ones([3, 2])), 1)
    assert (ind.batch_shape, ind.event_shape) == ((3,), (2,))
    assert ind.log_prob(paddle.zeros([3, 2])).shape == [3]
    assert D.Beta(0.5, 2.0).sample([4]).shape == [4]
    assert D.Multinomial(6, paddle.to_tensor([0.2, 0.8])).sample([7]).sum(-1).tolist() == [6.0] * 7


def test_bad_parameters_raise_actionable_errors():
    with pytest.raises(ValueError, match="all must be Tensors"):
        D.Normal(0.0, paddle.to_tensor(1.0))
    with pytest.raises(TypeError, match="Python real number or a Tensor"):
        D.Laplace([0.0], 1.0)
    with pytest.raises(ValueError, match="exactly one"):
        D.MultivariateNormal(paddle.zeros([2]))
    with pytest.raises(ValueError, match="df must be nonnegative"):
        D.StudentT(-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="total_count"):
        D.Multinomial(0, paddle.to_tensor([0.5, 0.5]))
    with pytest.raises(ValueError, match="reinterpreted_batch_rank"):
        D.Independent(D.Normal(0.0, 1.0), 1)
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
    with pytest.raises(ValueError, match="has no mean"):
        D.Cauchy(0.0, 1.0).mean


def test_register_kl_dispatches_to_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return paddle.to_tensor(42.0)

    assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0))) == 42.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0))) == 0.0


# ---- gradients against finite differences

_V = np.array([0.3, -0.7, 1.2])
_P = np.array([0.8, 1.5, 2.2])
_Q = np.array([1.3, 0.6, 1.9])
_U = np.array([0.2, 0.55, 0.9])


@pytest.mark.parametrize("make", [
    lambda a, b: D.Normal(a, b).log_prob(t64(_V)),
    lambda a, b: D.Normal(a, b).entropy() + D.Normal(a, b).cdf(t64(_V)),
    lambda a, b: D.Uniform(a - 3.0, b + 1.0).log_prob(t64(_V)),
    lambda a, b: D.Bernoulli(a / 3.0).log_prob(t64([1.0, 0.0, 1.0])) + D.Bernoulli(a / 3.0).entropy(),
    lambda a, b: D.Beta(a, b).log_prob(t64(_U)) + D.Beta(a, b).entropy(),
    lambda a, b: D.Gamma(a, b).log_prob(t64(_P)) + D.Gamma(a, b).entropy(),
    lambda a, b: D.Exponential(a).log_prob(t64(_P)) + D.Exponential(b).cdf(t64(_P)),
    lambda a, b: D.Laplace(a, b).log_prob(t64(_V)) + D.Laplace(a, b).icdf(t64(_U)),
    lambda a, b: D.Gumbel(a, b).log_prob(t64(_V)) + D.Gumbel(a, b).entropy(),
    lambda a, b: D.Cauchy(a, b).log_prob(t64(_V)) + D.Cauchy(a, b).cdf(t64(_V)),
    lambda a, b: D.StudentT(a + 1.0, a, b).log_prob(t64(_V)) + D.StudentT(a + 1.0, a, b).entropy(),
    lambda a, b: D.LogNormal(a, b).log_prob(t64(_P)) + D.LogNormal(a, b).entropy(),
    lambda a, b: D.Poisson(a).log_prob(t64([0.0, 2.0, 5.0])) + D.Poisson(a).entropy(),
    lambda a, b: D.Binomial(paddle.to_tensor([3, 5, 8]), a / 3.0).entropy(),
    lambda a, b: D.Geometric(a / 3.0).entropy() + D.Geometric(a / 3.0).variance,
    lambda a, b: D.Dirichlet(a).log_prob(t64([0.2, 0.3, 0.5])) + D.Dirichlet(b).entropy(),
    lambda a, b: D.Multinomial(4, a).log_prob(t64([1.0, 3.0, 0.0])) + D.Multinomial(4, b).entropy(),
    lambda a, b: D.Categorical(a).entropy() + D.Categorical(b).log_prob(paddle.to_tensor([2])),
], ids=["normal", "normal_cdf", "uniform", "bernoulli", "beta", "gamma", "exponential",
        "laplace", "gumbel", "cauchy", "student_t", "lognormal", "poisson", "binomial",
        "geometric", "dirichlet", "multinomial", "categorical"])
def test_log_prob_and_entropy_gradients(make):
    check_grads(make, _P, _Q)


@pytest.mark.parametrize("pair", [
    (D.Normal, 2), (D.Laplace, 2), (D.Cauchy, 2), (D.Gamma, 2), (D.Beta, 2), (D.LogNormal, 2),
    (D.Exponential, 1), (D.Dirichlet, 1),
    (lambda p: D.Bernoulli(p / 3.0), 1), (lambda p: D.Geometric(p / 3.0), 1),
    (D.Categorical, 1), (D.Poisson, 1)], ids=lambda p: getattr(p[0], "__name__", "lambda"))
def test_kl_gradients(pair):
    cls, k = pair
    if k == 2:
        f = lambda a, b, c, d: D.kl_divergence(cls(a, b), cls(c, d))  # noqa: E731
        check_grads(f, _P, _Q, _Q[::-1].copy(), _P[::-1].copy())
    else:
        check_grads(lambda a, b: D.kl_divergence(cls(a), cls(b)), _P, _Q)


def _spd(m):
    return m @ m.T + 3 * np.eye(3)


_M = np.array([[1.0, 0.2, -0.3], [0.1, 0.8, 0.4], [-0.2, 0.5, 1.1]])


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_gradients(kind):
    def f(loc, m):
        mat = m @ m.t() + 3 * paddle.eye(3, dtype="float64")
        if kind == "scale_tril":
            mat = paddle.linalg.cholesky(mat)
        d = D.MultivariateNormal(loc, **{kind: mat})
        x = t64([[0.3, -0.2, 0.5], [1.0, 0.1, -0.4]])
        return d.log_prob(x).sum() + d.entropy() + d.variance.sum()
    check_grads(f, _V, _M)


def test_multivariate_normal_kl_gradient():
    def f(a, m, b, n):
        c1 = m @ m.t() + 3 * paddle.eye(3, dtype="float64")
        c2 = n @ n.t() + 3 * paddle.eye(3, dtype="float64")
        return D.kl_divergence(D.MultivariateNormal(a, covariance_matrix=c1),
                               D.MultivariateNormal(b, covariance_matrix=c2))
    check_grads(f, _V, _M, _P, _M.T.copy())


@pytest.mark.parametrize("make", [
    lambda a, b: D.Normal(a, b), lambda a, b: D.Laplace(a, b), lambda a, b: D.Gumbel(a, b),
    lambda a, b: D.Cauchy(a, b), lambda a, b: D.Exponential(a), lambda a, b: D.LogNormal(a, b),
    lambda a, b: D.Uniform(a, a + b), lambda a, b: D.Bernoulli(a / 3.0),
    lambda a, b: D.TransformedDistribution(D.Normal(a, b), [
        D.ExpTransform(), D.AffineTransform(a, b)]),
    lambda a, b: D.MultivariateNormal(a, scale_tril=paddle.diag(b)),
], ids=["normal", "laplace", "gumbel", "cauchy", "exponential", "lognormal", "uniform",
        "bernoulli", "transformed", "mvn"])
def test_rsample_is_differentiable(make):
    def f(a, b):
        paddle.seed(7)                  # the same noise at every evaluation
        return make(a, b).rsample([2])
    check_grads(f, _P, _Q)


def test_sample_carries_no_gradient_and_rsample_does():
    loc = paddle.to_tensor([0.5], stop_gradient=False)
    d = D.Normal(loc, paddle.to_tensor([1.0]))
    assert d.sample([3]).stop_gradient and not d.rsample([3]).stop_gradient


def test_transformed_distribution_log_prob_is_change_of_variables():
    base = D.Normal(t64([0.2]), t64([0.7]))
    td = D.TransformedDistribution(base, [D.SigmoidTransform()])
    y = t64([0.3])
    x = math.log(0.3 / 0.7)
    want = float(base.log_prob(t64([x]))) - math.log(0.3 * 0.7)
    close(td.log_prob(y), [want])
    chain = D.ChainTransform([D.ExpTransform(), D.AffineTransform(t64(1.0), t64(2.0))])
    close(chain.forward(t64([0.0])), [3.0])
    close(chain.inverse(t64([3.0])), [0.0])
    close(chain.forward_log_det_jacobian(t64([0.5])), [0.5 + math.log(2.0)])


# ---- sampling statistics (seeded; 5-sigma bounds)

def _moments(x):
    x = np.asarray(x.numpy(), dtype=np.float64)
    return x.mean(0), x.var(0)


@pytest.mark.parametrize("make,mean,var", [
    (lambda: D.Normal(t64([1.0]), t64([2.0])), 1.0, 4.0),
    (lambda: D.Uniform(t64([-1.0]), t64([3.0])), 1.0, 16 / 12),
    (lambda: D.Bernoulli(t64([0.3])), 0.3, 0.21),
    (lambda: D.Exponential(t64([2.0])), 0.5, 0.25),
    (lambda: D.Gamma(t64([3.0]), t64([2.0])), 1.5, 0.75),
    (lambda: D.Beta(2.0, 3.0), 0.4, 0.04),    # (Paddle squeezes a [.., 1] batch)
    (lambda: D.Laplace(t64([0.5]), t64([1.0])), 0.5, 2.0),
    (lambda: D.Gumbel(t64([0.0]), t64([1.0])), float(np.euler_gamma), math.pi ** 2 / 6),
    (lambda: D.Geometric(t64([0.4])), 1.5, 3.75),
    (lambda: D.Poisson(t64([3.0])), 3.0, 3.0),
    (lambda: D.Binomial(paddle.to_tensor([10]), t64([0.3])), 3.0, 2.1),
    (lambda: D.LogNormal(t64([0.0]), t64([0.5])), math.exp(0.125),
     (math.exp(0.25) - 1) * math.exp(0.25)),
    (lambda: D.StudentT(t64([6.0]), t64([1.0]), t64([2.0])), 1.0, 4 * 6 / 4),
], ids=["normal", "uniform", "bernoulli", "exponential", "gamma", "beta", "laplace", "gumbel",
        "geometric", "poisson", "binomial", "lognormal", "student_t"])
def test_sample_mean_and_variance(make, mean, var):
    paddle.seed(2024)
    n = 40000
    d = make()
    relaxed = isinstance(d, D.Bernoulli)       # (its rsample is a logit-space relaxation)
    for draw in (d.sample,) if relaxed else (d.sample, d.rsample):
        try:
            x = draw([n])
        except NotImplementedError:
            continue
        assert x.shape == [n] + list(d.batch_shape)
        m, v = _moments(x)
        assert abs(m - mean) < 5 * math.sqrt(var / n)
        assert abs(v - var) < 0.1 * var            # (heavy tails: StudentT(6) kurtosis)


def test_categorical_dirichlet_multinomial_mvn_sample_statistics():
    paddle.seed(3)
    n = 40000
    x = D.Categorical(paddle.to_tensor([[0.0, math.log(3.0)]])).sample([n]).numpy()
    assert x.shape == (n, 1) and abs(x.mean() - 0.75) < 5 * math.sqrt(0.1875 / n)
    c = np.array([1.0, 2.0, 3.0])
    s = D.Dirichlet(t64(c)).sample([n]).numpy()
    assert np.all(np.abs(s.mean(0) - c / 6) < 5 * np.sqrt(c / 6 * (1 - c / 6) / 7 / n))
    counts = D.Multinomial(5, t64([0.2, 0.3, 0.5])).sample([n]).numpy()
    assert np.all(np.abs(counts.mean(0) - 5 * np.array([0.2, 0.3, 0.5])) < 5 * np.sqrt(
        5 * np.array([0.16, 0.21, 0.25]) / n))
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    z = D.MultivariateNormal(t64([1.0, -1.0]), covariance_matrix=t64(cov)).sample([n]).numpy()
    assert np.all(np.abs(z.mean(0) - [1.0, -1.0]) < 5 * np.sqrt(np.diag(cov) / n))
    assert np.allclose(np.cov(z.T), cov, atol=0.08)


def test_seed_makes_samples_reproducible():
    paddle.seed(11)
    a = D.Gamma(t64([2.0]), t64([1.0])).sample([5]).numpy()
    paddle.seed(11)
    b = D.Gamma(t64([2.0]), t64([1.0])).sample([5]).numpy()
    assert np.array_equal(a, b)


def test_chi2_is_a_gamma_with_half_df_and_rate_one_half():
    # values measured on Paddle 3.3.1 (float32 df)
    df = paddle.to_tensor([3.0, 0.5], stop_gradient=False)
    ch = D.Chi2(df)
    x = paddle.to_tensor([0.5, 2.0])
    close(ch.log_prob(x), [-1.51551, -2.98117], 1e-5)
    close(ch.mean, [3.0, 0.5])
    close(ch.variance, [6.0, 1.0])
    close(ch.entropy(), [2.05412, -0.93942], 1e-5)
    close(ch.kl_divergence(D.Chi2(paddle.to_tensor([2.0, 1.0]))), [0.13903, 0.34121], 1e-5)
    assert isinstance(ch, D.Gamma) and ch.rate.tolist() == [0.5, 0.5]
    ch.log_prob(x).sum().backward()
    close(df.grad, [-0.71139, 2.11373], 1e-5)          # Paddle 3.3.1


@pytest.mark.parametrize("df", [[-1.0], [0.0]])
def test_chi2_rejects_a_non_positive_df(df):
    with pytest.raises(ValueError, match="df"):
        D.Chi2(paddle.to_tensor(df))
