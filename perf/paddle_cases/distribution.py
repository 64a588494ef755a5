# jitgrad.distribution against Paddle 3.3.1's paddle.distribution: values and gradients of
# mean/variance/entropy/log_prob/prob/cdf/icdf/kl w.r.t. the parameters, plus sample shapes
# and dtypes (the draws themselves differ: different generators).
import numpy as np

KNOWN = {
    "MVN.precision_matrix.": "Paddle 3.3.1's gradient w.r.t. precision_matrix is garbage (it "
                             "changes run to run, up to 1e37); jitgrad's is checked against "
                             "finite differences in tests/test_distribution.py",
    "Bernoulli.entropy": "Paddle 3.3.1's binary_cross_entropy_with_logits does not differentiate "
                         "its label, so its Bernoulli.entropy gradient is ~0; jitgrad's is "
                         "the derivative of the entropy, log((1 - p) / p)",
    "Bernoulli.clip": "as Bernoulli.entropy",
    "Geometric.moments": "Paddle 3.3.1's Geometric.variance goes through paddle.to_tensor, which "
                         "cuts the gradient (of variance and stddev); jitgrad's has it",
    "Normal.sample_grad": "sample() carries no gradient in jitgrad (Paddle 3.3.1's Normal.sample "
                          "is loc + scale * eps with gradients); rsample has them",
    "x.": "a jitgrad addition where Paddle 3.3.1 has none (raises)",
}

D2 = lambda: A((2, 3), 0.5, 2.0)              # noqa: E731  (positive parameters)
V = lambda: A((2, 3), -1.5, 1.5)              # noqa: E731
U = lambda: A((2, 3), 0.05, 0.95)             # noqa: E731  (in (0, 1))
T = lambda P, x: P.to_tensor(x)               # noqa: E731

# Paddle 3.3.1's backward segfaults (broadcast_tensors_grad, an output without a gradient)
# in these: values only here; tests/test_distribution.py checks jitgrad's gradients against
# finite differences instead.
_PADDLE_BACKWARD_CRASH = {'Binomial.entropy', 'Binomial.kl', 'Binomial.log_prob', 'Binomial.mean_var', 'Laplace.entropy', 'Laplace.moments', 'Multinomial.log_prob', 'Multinomial.log_prob_int', 'StudentT.entropy', 'StudentT.mean_var', 'StudentT.mixed'}
_cmp = cmp


def cmp(name, fn, datas, grad=True, **kw):  # noqa: F811
    _cmp(name, fn, datas, grad=grad and name not in _PADDLE_BACKWARD_CRASH, **kw)



def _dist(P, name, *args, **kw):
    return getattr(P.distribution, name)(*args, **kw)


# Normal
cmp("Normal.log_prob", lambda P, m, s, v: _dist(P, "Normal", m, s).log_prob(v), [V(), D2(), V()])
cmp("Normal.probs", lambda P, m, s, v: _dist(P, "Normal", m, s).probs(v), [V(), D2(), V()])
cmp("Normal.prob", lambda P, m, s, v: _dist(P, "Normal", m, s).prob(v), [V(), D2(), V()])
cmp("Normal.entropy", lambda P, m, s: _dist(P, "Normal", m, s).entropy(), [V(), D2()])
cmp("Normal.mean_var", lambda P, m, s: [_dist(P, "Normal", m, s).mean,
                                        _dist(P, "Normal", m, s).variance], [V(), D2()])
cmp("Normal.kl", lambda P, a, b, c, d: _dist(P, "Normal", a, b).kl_divergence(
    _dist(P, "Normal", c, d)), [V(), D2(), V(), D2()])
cmp("Normal.kl_fn", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "Normal", a, b), _dist(P, "Normal", c, d)), [V(), D2(), V(), D2()])
cmp("Normal.float64", lambda P, m, s, v: _dist(P, "Normal", m, s).log_prob(v),
    [V().astype("float64"), D2().astype("float64"), V().astype("float64")], rtol=1e-10)
cmp("Normal.floats", lambda P: [_dist(P, "Normal", 0.5, 2.0).entropy(),
                                _dist(P, "Normal", 0.5, 2.0).sample([4]).shape], [], grad=False)
cmp("Normal.lists", lambda P: [_dist(P, "Normal", [0.5, 1.0], [2.0, 1.0]).entropy(),
                               _dist(P, "Normal", [0.5, 1.0], [2.0, 1.0]).sample([4]).shape],
    [], grad=False)
cmp("Normal.numpy64", lambda P: _dist(P, "Normal", np.array([0.5, 1.0]), np.array([2.0, 1.0])
                                      ).entropy(), [], grad=False)
cmp("Normal.rsample_shape", lambda P, m, s: [_dist(P, "Normal", m, s).rsample([5]).shape,
                                             str(_dist(P, "Normal", m, s).rsample([5]).dtype)],
    [V(), D2()], grad=False)
cmp("Normal.sample_grad", lambda P, m, s: _dist(P, "Normal", m, s).sample([5]).stop_gradient,
    [V(), D2()], grad=True)
cmp("Normal.mixed_args", lambda P, s: _dist(P, "Normal", 0.0, s).entropy(), [D2()], grad=False)
cmp("x.Normal.cdf", lambda P, m, s, v: _dist(P, "Normal", m, s).cdf(v), [V(), D2(), V()])
# Uniform
_lo, _hi = A((2, 3), -2.0, -1.0), A((2, 3), 1.0, 2.0)
cmp("Uniform.log_prob", lambda P, lo, hi, v: _dist(P, "Uniform", lo, hi).log_prob(v),
    [_lo, _hi, V()])
cmp("Uniform.log_prob_outside", lambda P, lo, hi, v: _dist(P, "Uniform", lo, hi).log_prob(v),
    [_lo, _hi, A((2, 3), 2.5, 3.0)])
cmp("Uniform.probs", lambda P, lo, hi, v: _dist(P, "Uniform", lo, hi).probs(v), [_lo, _hi, V()])
cmp("Uniform.entropy", lambda P, lo, hi: _dist(P, "Uniform", lo, hi).entropy(), [_lo, _hi])
cmp("Uniform.sample_shape", lambda P: _dist(P, "Uniform", 0.0, 1.0).sample([3, 2]).shape, [],
    grad=False)
cmp("x.Uniform.mean", lambda P, lo, hi: _dist(P, "Uniform", lo, hi).mean, [_lo, _hi])
# Bernoulli
# Paddle 3.3.1's Bernoulli.log_prob/cdf backward segfaults (broadcast_tensors_grad): values
# only here; tests/test_distribution.py checks the gradients against finite differences
_b01 = [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
cmp("Bernoulli.log_prob", lambda P, p: _dist(P, "Bernoulli", p).log_prob(T(P, _b01)), [U()], grad=False)
cmp("Bernoulli.prob", lambda P, p: _dist(P, "Bernoulli", p).prob(T(P, _b01)), [U()], grad=False)
cmp("Bernoulli.entropy", lambda P, p: _dist(P, "Bernoulli", p).entropy(), [U()])
cmp("Bernoulli.mean_var", lambda P, p: [_dist(P, "Bernoulli", p).mean,
                                        _dist(P, "Bernoulli", p).variance], [U()])
cmp("Bernoulli.cdf", lambda P, p: _dist(P, "Bernoulli", p).cdf(
    T(P, [[-1.0, 0.0, 0.5], [1.0, 2.0, 0.2]])), [U()], grad=False)
cmp("Bernoulli.kl", lambda P, p, q: _dist(P, "Bernoulli", p).kl_divergence(
    _dist(P, "Bernoulli", q)), [U(), U()])
cmp("Bernoulli.kl_fn", lambda P, p, q: P.distribution.kl_divergence(
    _dist(P, "Bernoulli", p), _dist(P, "Bernoulli", q)), [U(), U()])
cmp("Bernoulli.float", lambda P: _dist(P, "Bernoulli", 0.3).entropy(), [], grad=False)
cmp("Bernoulli.clip", lambda P, p: _dist(P, "Bernoulli", p).entropy(),
    [np.array([0.0, 1.0, 0.5], "float32")])
cmp("Bernoulli.rsample_shape", lambda P, p: [_dist(P, "Bernoulli", p).rsample([4]).shape,
                                             _dist(P, "Bernoulli", p).sample([4]).shape,
                                             str(_dist(P, "Bernoulli", p).sample([4]).dtype)],
    [U()], grad=False)
# Categorical
_lg = A((2, 4), 0.2, 2.0)
cmp("Categorical.entropy", lambda P, l: _dist(P, "Categorical", l).entropy(), [_lg])
cmp("Categorical.kl", lambda P, l, m: _dist(P, "Categorical", l).kl_divergence(
    _dist(P, "Categorical", m)), [_lg, A((2, 4), 0.2, 2.0)])
cmp("Categorical.kl_fn", lambda P, l, m: P.distribution.kl_divergence(
    _dist(P, "Categorical", l), _dist(P, "Categorical", m)), [_lg, A((2, 4), 0.2, 2.0)])
cmp("Categorical.probs_1d_value", lambda P, l: _dist(P, "Categorical", l).probs(
    P.to_tensor([0, 3, 1])), [_lg])
cmp("Categorical.log_prob_2d_value", lambda P, l: _dist(P, "Categorical", l).log_prob(
    P.to_tensor([[0, 3], [1, 2]])), [_lg])
cmp("Categorical.probs_1d_logits", lambda P, l: _dist(P, "Categorical", l).probs(
    P.to_tensor([[0, 3], [1, 2]])), [A((4,), 0.2, 2.0)])
cmp("Categorical.sample", lambda P, l: [_dist(P, "Categorical", l).sample([5]).shape,
                                        str(_dist(P, "Categorical", l).sample([5]).dtype)],
    [_lg], grad=False)
# Beta
cmp("Beta.log_prob", lambda P, a, b, v: _dist(P, "Beta", a, b).log_prob(v), [D2(), D2(), U()])
cmp("Beta.prob", lambda P, a, b, v: _dist(P, "Beta", a, b).prob(v), [D2(), D2(), U()])
cmp("Beta.entropy", lambda P, a, b: _dist(P, "Beta", a, b).entropy(), [D2(), D2()])
cmp("Beta.mean_var", lambda P, a, b: [_dist(P, "Beta", a, b).mean,
                                      _dist(P, "Beta", a, b).variance], [D2(), D2()])
cmp("Beta.kl", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "Beta", a, b), _dist(P, "Beta", c, d)), [D2(), D2(), D2(), D2()], rtol=1e-4)
cmp("Beta.floats", lambda P: [_dist(P, "Beta", 0.5, 2.0).entropy(),
                              _dist(P, "Beta", 0.5, 2.0).sample([4]).shape], [], grad=False)
cmp("Beta.sample_shape", lambda P, a, b: _dist(P, "Beta", a, b).sample([4]).shape, [D2(), D2()],
    grad=False)
# Dirichlet
_c = A((2, 3), 0.5, 3.0)
cmp("Dirichlet.log_prob", lambda P, c: _dist(P, "Dirichlet", c).log_prob(
    P.to_tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])), [_c])
cmp("Dirichlet.entropy", lambda P, c: _dist(P, "Dirichlet", c).entropy(), [_c], rtol=1e-4)
cmp("Dirichlet.mean_var", lambda P, c: [_dist(P, "Dirichlet", c).mean,
                                        _dist(P, "Dirichlet", c).variance], [_c])
cmp("Dirichlet.kl", lambda P, c, d: P.distribution.kl_divergence(
    _dist(P, "Dirichlet", c), _dist(P, "Dirichlet", d)), [_c, A((2, 3), 0.5, 3.0)], rtol=1e-4)
cmp("Dirichlet.sample_shape", lambda P, c: [_dist(P, "Dirichlet", c).sample([4]).shape,
                                            _dist(P, "Dirichlet", c).sample([4]).sum(-1)],
    [_c], grad=False, rtol=1e-5)
# Exponential
cmp("Exponential.log_prob", lambda P, r, v: _dist(P, "Exponential", r).log_prob(v), [D2(), U()])
cmp("Exponential.prob", lambda P, r, v: _dist(P, "Exponential", r).prob(v), [D2(), U()])
cmp("Exponential.cdf_icdf", lambda P, r, v: [_dist(P, "Exponential", r).cdf(v),
                                             _dist(P, "Exponential", r).icdf(v)], [D2(), U()])
cmp("Exponential.entropy", lambda P, r: _dist(P, "Exponential", r).entropy(), [D2()])
cmp("Exponential.mean_var", lambda P, r: [_dist(P, "Exponential", r).mean,
                                          _dist(P, "Exponential", r).variance], [D2()])
cmp("Exponential.kl", lambda P, r, s: P.distribution.kl_divergence(
    _dist(P, "Exponential", r), _dist(P, "Exponential", s)), [D2(), D2()])
cmp("Exponential.rsample_shape", lambda P, r: _dist(P, "Exponential", r).rsample([3]).shape,
    [D2()], grad=False)
# Gamma
cmp("Gamma.log_prob", lambda P, c, r, v: _dist(P, "Gamma", c, r).log_prob(v), [D2(), D2(), D2()])
cmp("Gamma.prob", lambda P, c, r, v: _dist(P, "Gamma", c, r).prob(v), [D2(), D2(), D2()])
cmp("Gamma.entropy", lambda P, c, r: _dist(P, "Gamma", c, r).entropy(), [D2(), D2()], rtol=1e-4)
cmp("Gamma.mean_var", lambda P, c, r: [_dist(P, "Gamma", c, r).mean,
                                       _dist(P, "Gamma", c, r).variance], [D2(), D2()])
cmp("Gamma.kl", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "Gamma", a, b), _dist(P, "Gamma", c, d)), [D2(), D2(), D2(), D2()], rtol=1e-4)
cmp("Gamma.floats", lambda P: _dist(P, "Gamma", 2.0, 3.0).entropy(), [], grad=False)
cmp("Gamma.rsample_shape", lambda P, c, r: [_dist(P, "Gamma", c, r).rsample([3]).shape,
                                            _dist(P, "Gamma", c, r).rsample([3]).stop_gradient],
    [D2(), D2()], grad=False)
# Laplace
cmp("Laplace.log_prob", lambda P, m, s, v: _dist(P, "Laplace", m, s).log_prob(v), [V(), D2(), V()])
cmp("Laplace.cdf_icdf", lambda P, m, s, v, u: [_dist(P, "Laplace", m, s).cdf(v),
                                               _dist(P, "Laplace", m, s).icdf(u)],
    [V(), D2(), V(), U()])
cmp("Laplace.entropy", lambda P, m, s: _dist(P, "Laplace", m, s).entropy(), [V(), D2()])
cmp("Laplace.moments", lambda P, m, s: [_dist(P, "Laplace", m, s).mean,
                                        _dist(P, "Laplace", m, s).variance,
                                        _dist(P, "Laplace", m, s).stddev], [V(), D2()])
cmp("Laplace.kl", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "Laplace", a, b), _dist(P, "Laplace", c, d)), [V(), D2(), V(), D2()])
cmp("Laplace.floats", lambda P: [_dist(P, "Laplace", 0.5, 2.0).log_prob(1.0),
                                 _dist(P, "Laplace", 0.5, 2.0).sample([4]).shape], [], grad=False)
cmp("Laplace.list_raises", lambda P: _dist(P, "Laplace", [0.5], [2.0]), [], grad=False)
# LogNormal
cmp("LogNormal.log_prob", lambda P, m, s, v: _dist(P, "LogNormal", m, s).log_prob(v),
    [V(), D2(), D2()])
cmp("LogNormal.probs", lambda P, m, s, v: _dist(P, "LogNormal", m, s).probs(v), [V(), D2(), D2()])
cmp("LogNormal.entropy", lambda P, m, s: _dist(P, "LogNormal", m, s).entropy(), [V(), D2()])
cmp("LogNormal.mean_var", lambda P, m, s: [_dist(P, "LogNormal", m, s).mean,
                                           _dist(P, "LogNormal", m, s).variance],
    [V(), A((2, 3), 0.2, 1.0)])
cmp("LogNormal.kl", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "LogNormal", a, b), _dist(P, "LogNormal", c, d)), [V(), D2(), V(), D2()])
cmp("LogNormal.rsample_shape", lambda P, m, s: _dist(P, "LogNormal", m, s).rsample([3]).shape,
    [V(), D2()], grad=False)
# Gumbel
cmp("Gumbel.log_prob", lambda P, m, s, v: _dist(P, "Gumbel", m, s).log_prob(v), [V(), D2(), V()])
cmp("Gumbel.cdf", lambda P, m, s, v: _dist(P, "Gumbel", m, s).cdf(v), [V(), D2(), V()])
cmp("Gumbel.entropy", lambda P, m, s: _dist(P, "Gumbel", m, s).entropy(), [V(), D2()])
cmp("Gumbel.moments", lambda P, m, s: [_dist(P, "Gumbel", m, s).mean,
                                       _dist(P, "Gumbel", m, s).variance,
                                       _dist(P, "Gumbel", m, s).stddev], [V(), D2()])
cmp("Gumbel.rsample_shape", lambda P, m, s: _dist(P, "Gumbel", m, s).rsample([3]).shape,
    [V(), D2()], grad=False)
# Geometric
cmp("Geometric.pmf", lambda P, p: [_dist(P, "Geometric", p).pmf(2),
                                   _dist(P, "Geometric", p).log_pmf(3),
                                   _dist(P, "Geometric", p).cdf(2)], [U()])
cmp("Geometric.entropy", lambda P, p: _dist(P, "Geometric", p).entropy(), [U()])
cmp("Geometric.moments", lambda P, p: [_dist(P, "Geometric", p).mean,
                                       _dist(P, "Geometric", p).variance,
                                       _dist(P, "Geometric", p).stddev], [U()])
cmp("Geometric.kl", lambda P, p, q: P.distribution.kl_divergence(
    _dist(P, "Geometric", p), _dist(P, "Geometric", q)), [U(), U()])
cmp("Geometric.sample_shape", lambda P, p: _dist(P, "Geometric", p).sample([3]).shape, [U()],
    grad=False)
cmp("x.Geometric.log_prob", lambda P, p: _dist(P, "Geometric", p).log_prob(2), [U()])
# Poisson
_v = np.array([[0, 1, 3], [2, 5, 0]], "float32")
cmp("Poisson.log_prob", lambda P, r, v: _dist(P, "Poisson", r).log_prob(v), [D2(), _v])
cmp("Poisson.prob", lambda P, r, v: _dist(P, "Poisson", r).prob(v), [D2(), _v])
cmp("Poisson.entropy", lambda P, r: _dist(P, "Poisson", r).entropy(), [A((2, 3), 0.5, 8.0)],
    rtol=1e-4)
cmp("Poisson.kl", lambda P, r, s: P.distribution.kl_divergence(
    _dist(P, "Poisson", r), _dist(P, "Poisson", s)), [A((3,), 0.5, 8.0), A((3,), 0.5, 8.0)],
    rtol=1e-4)
cmp("Poisson.float", lambda P: [_dist(P, "Poisson", 2.0).entropy(),
                                _dist(P, "Poisson", 2.0).sample([4]).shape], [], grad=False)
# Binomial
_n = np.array([[3, 5, 10], [1, 4, 6]], "int64")
cmp("Binomial.log_prob", lambda P, n, p, v: _dist(P, "Binomial", n, p).log_prob(v),
    [_n, U(), np.array([[0, 2, 7], [1, 4, 3]], "float32")])
cmp("Binomial.entropy", lambda P, n, p: _dist(P, "Binomial", n, p).entropy(), [_n, U()],
    rtol=1e-4)
cmp("Binomial.mean_var", lambda P, n, p: [_dist(P, "Binomial", n, p).mean,
                                          _dist(P, "Binomial", n, p).variance], [_n, U()])
cmp("Binomial.kl", lambda P, n, p, q: P.distribution.kl_divergence(
    _dist(P, "Binomial", n, p), _dist(P, "Binomial", n, q)), [_n, U(), U()], rtol=1e-4)
cmp("Binomial.scalars", lambda P: [_dist(P, "Binomial", 5, 0.3).entropy(),
                                   _dist(P, "Binomial", 5, 0.3).sample([4]).shape,
                                   str(_dist(P, "Binomial", 5, 0.3).sample([4]).dtype)],
    [], grad=False, rtol=1e-5)
# Multinomial
_mp = A((2, 3), 0.2, 1.0)
cmp("Multinomial.log_prob", lambda P, p: _dist(P, "Multinomial", 4, p).log_prob(
    P.to_tensor([[1.0, 3.0, 0.0], [2.0, 1.0, 1.0]])), [_mp])
cmp("Multinomial.log_prob_int", lambda P, p: _dist(P, "Multinomial", 4, p).log_prob(
    P.to_tensor([1, 3, 0])), [_mp])
cmp("Multinomial.entropy", lambda P, p: _dist(P, "Multinomial", 4, p).entropy(), [_mp],
    rtol=1e-4)
cmp("Multinomial.mean_var", lambda P, p: [_dist(P, "Multinomial", 4, p).mean,
                                          _dist(P, "Multinomial", 4, p).variance], [_mp])
cmp("Multinomial.sample", lambda P, p: [_dist(P, "Multinomial", 4, p).sample([5]).shape,
                                        _dist(P, "Multinomial", 4, p).sample([5]).sum(-1)],
    [_mp], grad=False)
# MultivariateNormal
_m = np.array([[1.5, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.8]], "float32")
_m2 = np.array([[1.0, 0.1, 0.0], [0.1, 2.0, 0.3], [0.0, 0.3, 1.2]], "float32")
_L = np.linalg.cholesky(_m).astype("float32")
_x = A((4, 3), -1.0, 1.0)
for _kind, _mat in (("covariance_matrix", _m), ("precision_matrix", _m), ("scale_tril", _L)):
    cmp(f"MVN.{_kind}.log_prob", lambda P, l, M, x, k=_kind: _dist(
        P, "MultivariateNormal", l, **{k: M}).log_prob(x), [A((3,), -1, 1), _mat, _x],
        rtol=1e-4, atol=1e-5)
    cmp(f"MVN.{_kind}.entropy", lambda P, l, M, k=_kind: _dist(
        P, "MultivariateNormal", l, **{k: M}).entropy(), [A((3,), -1, 1), _mat], rtol=1e-4)
    cmp(f"MVN.{_kind}.variance", lambda P, l, M, k=_kind: _dist(
        P, "MultivariateNormal", l, **{k: M}).variance, [A((3,), -1, 1), _mat], rtol=1e-4)
cmp("MVN.batched.log_prob", lambda P, l, M, x: _dist(
    P, "MultivariateNormal", l, covariance_matrix=M).log_prob(x),
    [A((2, 3), -1, 1), np.stack([_m, _m2]), A((5, 2, 3), -1, 1)], rtol=1e-4, atol=1e-5)
cmp("MVN.kl", lambda P, a, M, b, N: P.distribution.kl_divergence(
    _dist(P, "MultivariateNormal", a, covariance_matrix=M),
    _dist(P, "MultivariateNormal", b, covariance_matrix=N)),
    [A((3,), -1, 1), _m, A((3,), -1, 1), _m2], rtol=1e-4, atol=1e-5)
cmp("MVN.rsample_shape", lambda P, l, M: _dist(P, "MultivariateNormal", l, covariance_matrix=M
                                               ).rsample([4]).shape, [A((3,), -1, 1), _m],
    grad=False)
cmp("MVN.two_matrices_raise", lambda P, l, M: _dist(P, "MultivariateNormal", l,
                                                    covariance_matrix=M, scale_tril=M),
    [A((3,), -1, 1), _m], grad=False)
# Cauchy
cmp("Cauchy.log_prob", lambda P, m, s, v: _dist(P, "Cauchy", m, s).log_prob(v), [V(), D2(), V()])
cmp("Cauchy.prob_cdf", lambda P, m, s, v: [_dist(P, "Cauchy", m, s).prob(v),
                                           _dist(P, "Cauchy", m, s).cdf(v)], [V(), D2(), V()])
cmp("Cauchy.entropy", lambda P, m, s: _dist(P, "Cauchy", m, s).entropy(), [V(), D2()])
cmp("Cauchy.kl", lambda P, a, b, c, d: P.distribution.kl_divergence(
    _dist(P, "Cauchy", a, b), _dist(P, "Cauchy", c, d)), [V(), D2(), V(), D2()])
cmp("Cauchy.mean_raises", lambda P, m, s: _dist(P, "Cauchy", m, s).mean, [V(), D2()], grad=False)
cmp("Cauchy.float_value_raises", lambda P: _dist(P, "Cauchy", 0.0, 1.0).log_prob(0.5), [],
    grad=False)
# StudentT
cmp("StudentT.log_prob", lambda P, d, m, s, v: _dist(P, "StudentT", d, m, s).log_prob(v),
    [A((2, 3), 1.0, 6.0), V(), D2(), V()])
cmp("StudentT.entropy", lambda P, d, m, s: _dist(P, "StudentT", d, m, s).entropy(),
    [A((2, 3), 1.0, 6.0), V(), D2()], rtol=1e-4)
cmp("StudentT.mean_var", lambda P, d, m, s: [_dist(P, "StudentT", d, m, s).mean,
                                             _dist(P, "StudentT", d, m, s).variance],
    [np.array([0.5, 1.5, 3.0], "float32"), A((3,), -1, 1), A((3,), 0.5, 2)])
cmp("StudentT.mixed", lambda P, d: _dist(P, "StudentT", d, 0.0, [1.0, 2.0, 3.0]).log_prob(
    P.to_tensor([0.5, 1.0, -1.0])), [A((3,), 1.0, 6.0)])
cmp("StudentT.negative_df_raises", lambda P: _dist(P, "StudentT", -1.0, 0.0, 1.0), [],
    grad=False)
# Independent, TransformedDistribution, transforms
cmp("Independent.log_prob", lambda P, m, s, v: P.distribution.Independent(
    _dist(P, "Normal", m, s), 1).log_prob(v), [V(), D2(), V()])
cmp("Independent.entropy", lambda P, m, s: P.distribution.Independent(
    _dist(P, "Normal", m, s), 2).entropy(), [V(), D2()])
cmp("Independent.shapes", lambda P, m, s: [
    list(P.distribution.Independent(_dist(P, "Normal", m, s), 1).batch_shape),
    list(P.distribution.Independent(_dist(P, "Normal", m, s), 1).event_shape)],
    [V(), D2()], grad=False)
cmp("Transformed.exp_affine", lambda P, m, s, a, b, v: P.distribution.TransformedDistribution(
    _dist(P, "Normal", m, s), [P.distribution.ExpTransform(),
                               P.distribution.AffineTransform(a, b)]).log_prob(v),
    [V(), D2(), A((2, 3), 0.0, 0.5), D2(), A((2, 3), 3.0, 4.0)])
cmp("Transformed.sigmoid", lambda P, m, s, v: P.distribution.TransformedDistribution(
    _dist(P, "Normal", m, s), [P.distribution.SigmoidTransform()]).log_prob(v), [V(), D2(), U()])
cmp("Transformed.tanh", lambda P, m, s, v: P.distribution.TransformedDistribution(
    _dist(P, "Normal", m, s), [P.distribution.TanhTransform()]).log_prob(v),
    [V(), D2(), A((2, 3), -0.9, 0.9)], rtol=1e-4)
cmp("Transformed.rsample_shape", lambda P, m, s: P.distribution.TransformedDistribution(
    _dist(P, "Normal", m, s), [P.distribution.ExpTransform()]).rsample([3]).shape, [V(), D2()],
    grad=False)
cmp("Transform.affine", lambda P, a, b, x: [P.distribution.AffineTransform(a, b).forward(x),
                                            P.distribution.AffineTransform(a, b).inverse(x),
                                            P.distribution.AffineTransform(a, b)
                                            .forward_log_det_jacobian(x)], [V(), D2(), V()])
cmp("Transform.exp", lambda P, x: [P.distribution.ExpTransform().forward(x),
                                   P.distribution.ExpTransform().inverse_log_det_jacobian(
                                       P.exp(x))], [V()])
cmp("Transform.sigmoid", lambda P, x: [P.distribution.SigmoidTransform().forward(x),
                                       P.distribution.SigmoidTransform()
                                       .forward_log_det_jacobian(x)], [V()])
cmp("Transform.power", lambda P, p, x: [P.distribution.PowerTransform(p).forward(x),
                                        P.distribution.PowerTransform(p)
                                        .forward_log_det_jacobian(x)], [D2(), D2()])
cmp("Transform.chain", lambda P, x: P.distribution.ChainTransform(
    [P.distribution.ExpTransform(), P.distribution.SigmoidTransform()]
    ).forward_log_det_jacobian(x), [V()])
cmp("Transform.independent", lambda P, x: P.distribution.IndependentTransform(
    P.distribution.ExpTransform(), 1).forward_log_det_jacobian(x), [V()])
cmp("Transform.shape", lambda P, a, b: list(P.distribution.AffineTransform(a, b).forward_shape(
    [4, 1, 3])), [V(), D2()], grad=False)
# kl dispatch
cmp("kl.unregistered_raises", lambda P, m, s: P.distribution.kl_divergence(
    _dist(P, "Normal", m, s), _dist(P, "Laplace", m, s)), [V(), D2()], grad=False)
