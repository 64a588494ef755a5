"""paddle.distribution fixes from the eighth hunt (/work/scratch/hunt8): gradients against
closed forms, values outside the support, dtype promotion of the value. Values measured on
Paddle 3.3.1 or closed forms (noted where Paddle 3.3.1 is wrong)."""

from __future__ import annotations

import math

import numpy as np

import jitgrad as paddle

from distribution_helpers import close, t64

D = paddle.distribution


def test_student_t_variance_is_differentiable_in_df():
    # d var / d df = -2 scale^2 / (df - 2)^2 (Paddle 3.3.1 detaches df: 0; torch agrees here)
    df, scale = t64([3.0, 5.0, 1.5], grad=True), t64([2.0, 0.7, 1.0], grad=True)
    v = D.StudentT(df, t64([0.0, 0.0, 0.0]), scale).variance
    close(v[:2], [12.0, 0.49 * 5 / 3])
    assert float(v[2]) == float("inf")
    v[:2].sum().backward()
    close(df.grad, [-8.0, -2 * 0.49 / 9, 0.0])
    close(scale.grad, [2 * 2.0 * 3.0, 2 * 0.7 * 5 / 3, 0.0])


def test_float64_value_with_float32_parameters_is_promoted_not_rounded():
    # Paddle 3.3.1: rate * value promotes to float64; jitgrad rounded the value to float32
    v = t64([0.1])
    r = paddle.to_tensor([1.0], dtype="float32")
    for d, want in [(D.Exponential(r), -0.1), (D.Gamma(r * 2, r), -2.4025850929940455),
                    (D.Chi2(r * 3), -2.1202310864192597),
                    (D.Beta(r * 2, r * 3), -0.028399450878301646)]:   # Paddle 3.3.1
        lp = d.log_prob(v)
        assert lp.dtype == paddle.float64
        close(lp, [want], 1e-8)        # (float32 parameter arithmetic before the promotion)
    e = D.Exponential(r)
    assert e.cdf(v).dtype == paddle.float64 and e.icdf(v).dtype == paddle.float64
    close(e.cdf(v), [0.09516258196404048], 1e-15)                         # Paddle 3.3.1
    close(e.icdf(v), [0.10536051565782631], 1e-15)                        # Paddle 3.3.1
    dd = D.Dirichlet(paddle.to_tensor([2.0, 3.0], dtype="float32"))
    assert dd.log_prob(t64([0.1, 0.9])).dtype == paddle.float64
    # Python numbers and integer tensors still take the parameters' dtype
    assert e.log_prob(0.5).dtype == paddle.float32
    assert e.log_prob(paddle.to_tensor([1])).dtype == paddle.float32


def test_poisson_and_binomial_give_no_probability_outside_their_support():
    # Paddle 3.3.1 returns -eps (a probability of 1) there: [-2.2e-16]
    inf = float("-inf")
    close(D.Poisson(t64([3.5])).log_prob(t64([-1.0, 1.5])), [inf, -1.9055384196], 1e-9)
    close(D.Poisson(t64([0.0])).log_prob(t64([0.0, 2.0])), [0.0, inf])
    b = D.Binomial(paddle.to_tensor([5]), t64([0.3]))
    close(b.log_prob(t64([6.0, -1.0, 0.0, 5.0])), [inf, inf, -1.78337472, -6.01986402])
    assert float(b.prob(t64([6.0]))[0]) == 0.0


def test_poisson_kl_and_entropy_at_a_zero_rate():
    # KL(Poisson(0) || Poisson(1)) = log(1 / e^-1) = 1 (Paddle 3.3.1: 3570.73 with a batch
    # mate of rate 3, from the -eps log-probabilities; torch: nan)
    close(D.kl_divergence(D.Poisson(t64([0.0, 3.0])), D.Poisson(t64([1.0, 3.0]))), [1.0, 0.0])
    close(D.Poisson(t64([0.0, 3.0])).entropy(), [0.0, 1.9314702])    # (Paddle 3.3.1: same)
    # a Poisson(rate) against Poisson(0) puts mass where the other has none: infinite
    assert float(D.kl_divergence(D.Poisson(t64([1.0])), D.Poisson(t64([0.0])))[0]) == \
        float("inf")


def test_binomial_kl_to_a_smaller_total_count_is_infinite():
    # KL(Bin(7, p) || Bin(3, q)) = inf: p gives 4..7 mass, q none (Paddle 3.3.1: 0.834, and
    # -0.444 at p = 0.3, q = 0.6: a negative divergence)
    p = D.Binomial(paddle.to_tensor([[7], [7]]), t64([[0.1], [0.3]]))
    q = D.Binomial(paddle.to_tensor([7, 3]), t64([0.3, 0.6]))
    k = D.kl_divergence(p, q).numpy()
    close(t64(k[:, 0]), [0.8142523, 0.0])                       # Paddle 3.3.1 (same n)
    assert np.all(k[:, 1] == np.inf)
    # entropies over a support padded to the largest total_count are unchanged
    close(D.Binomial(paddle.to_tensor([2, 9]), t64([0.3, 0.5])).entropy(),
          [0.93060679, 1.82292683])                             # Paddle 3.3.1


def test_continuous_supports_exponential_gamma_beta_dirichlet_uniform():
    inf = float("-inf")
    e = D.Exponential(t64([2.0]))
    # Paddle 3.3.1: log_prob(-1) = 2.693 (a density above 1 off the support), cdf(-1) = -6.39
    close(e.log_prob(t64([-1.0, 0.0, 1.0])), [inf, np.log(2.0), np.log(2.0) - 2.0])
    close(e.prob(t64([-1.0, 0.5])), [0.0, 2.0 * np.exp(-1.0)])
    close(e.cdf(t64([-1.0, 0.0, 0.5])), [0.0, 0.0, 1 - np.exp(-1.0)])
    # 0 log 0 = 0 at the boundary for a concentration of 1 (Paddle 3.3.1: NaN), -inf outside
    close(D.Gamma(t64([1.0, 2.0, 2.0]), t64([2.0, 1.0, 1.0])).log_prob(t64([0.0, 0.0, -1.0])),
          [np.log(2.0), inf, inf])
    close(D.Beta(t64([1.0]), t64([1.0])).log_prob(t64([0.0, 1.0, 0.5])), [0.0, 0.0, 0.0])
    close(D.Beta(t64([2.0]), t64([3.0])).log_prob(t64([1.5, -0.5, 0.0, 1.0])),
          [inf, inf, inf, inf])                 # (Paddle 3.3.1: NaN, NaN, -inf, -inf)
    close(D.Dirichlet(t64([1.0, 2.0, 3.0])).log_prob(t64([0.0, 0.5, 0.5])),
          3 * np.log(0.5) + np.log(120.0) - np.log(2.0))
    # Uniform is on [low, high): low itself has density 1 / (high - low) (Paddle 3.3.1 -inf;
    # torch and Paddle's docs include low)
    u = D.Uniform(t64([0.0]), t64([2.0]))
    close(u.log_prob(t64([0.0, 2.0, 1.0])), [np.log(0.5), inf, np.log(0.5)])
    close(u.probs(t64([0.0, 2.0])), [0.5, 0.0])
    # in-support values and gradients are unchanged
    c, r = t64([1.0, 2.0, 0.5], grad=True), t64([2.0, 1.0, 1.0], grad=True)
    D.Gamma(c, r).log_prob(t64([0.7, 0.2, 1.5])).sum().backward()
    from jitgrad.testing import check_grads
    check_grads(lambda a, b: D.Gamma(a, b).log_prob(t64([0.7, 0.2, 1.5])),
                np.array([1.0, 2.0, 0.5]), np.array([2.0, 1.0, 1.0]))


def test_geometric_has_no_mass_below_zero_and_entropy_zero_at_probs_one():
    g = D.Geometric(t64([0.3]))
    close(g.pmf(t64([-1.0, 2.0])), [0.0, 0.7 ** 2 * 0.3])          # Paddle 3.3.1: 0.4286
    close(g.pmf(-1), [0.0])
    close(g.cdf(t64([-2.0, -1.0, 0.0])), [0.0, 0.0, 0.3])          # Paddle 3.3.1: -0.4286
    assert float(g.log_pmf(t64([-1.0]))[0]) == float("-inf")
    close(D.Geometric(t64([0.3, 1.0])).entropy(), [2.03621434, 0.0])   # Paddle 3.3.1: NaN


def test_categorical_sample_takes_an_int_shape():
    # Paddle 3.3.1: Categorical(1-d logits).sample(3) has shape [3]; jitgrad raised TypeError
    paddle.seed(1)
    assert D.Categorical(paddle.to_tensor([0.2, 0.3, 0.5])).sample(3).shape == [3]
    assert D.Categorical(paddle.to_tensor([[0.2, 0.8]])).sample(4).shape == [4, 1]


def test_dirichlet_and_beta_samples_at_small_concentrations_have_no_nan():
    # float32 Dirichlet([.01, .01]) samples were NaN 12% of the time (gamma draws below the
    # smallest float: 0 / 0), [.001, .002, .003] 54%, and 1% in float64; Paddle 3.3.1: none
    paddle.seed(0)
    n = 20000
    for dt in ("float32", "float64"):
        c = np.array([0.001, 0.002, 0.003])
        s = D.Dirichlet(paddle.to_tensor(c.astype(dt))).sample([n]).numpy()
        assert not np.isnan(s).any() and np.allclose(s.sum(-1), 1.0, atol=1e-6)
        var = c / 0.006 * (1 - c / 0.006) / 1.006
        assert np.all(np.abs(s.mean(0) - c / 0.006) < 5 * np.sqrt(var / n))
        b = D.Beta(paddle.to_tensor(np.array([0.01], dtype=dt)),
                   paddle.to_tensor(np.array([0.01], dtype=dt))).sample([n]).numpy()
        assert not np.isnan(b).any() and abs(b.mean() - 0.5) < 5 * math.sqrt(0.25 / 1.02 / n)


def test_gamma_samples_stay_above_the_smallest_normal_number():
    # float32 Gamma(.01) drew exact zeros 35% of the time (.001: 90%), StudentT(df=.1) then
    # drew inf (0.6%); Paddle 3.3.1 clamps at the dtype's smallest normal number
    paddle.seed(0)
    for dt in ("float32", "float64"):
        g = D.Gamma(paddle.to_tensor(np.array([0.01, 0.001], dtype=dt)),
                    paddle.to_tensor(np.array([1.0, 1.0], dtype=dt))).sample([20000]).numpy()
        assert g.min() == np.finfo(dt).tiny
        s = D.StudentT(paddle.to_tensor(np.array([0.1], dtype=dt)), paddle.to_tensor(
            np.array([0.0], dtype=dt)), paddle.to_tensor(np.array([1.0], dtype=dt))).sample(
                [20000]).numpy()
        assert np.isfinite(s).all()
    g = D.Gamma(t64([2.0]), t64([1.0])).sample([40000]).numpy()   # (unchanged elsewhere)
    assert abs(g.mean() - 2.0) < 5 * math.sqrt(2.0 / 40000)


def test_gamma_rsample_is_differentiable_in_the_concentration():
    # implicit reparameterization (Paddle 3.3.1: no gradient; torch approximates it)
    from jitgrad.distribution.gamma import standard_gamma_slope
    a = np.array([1.0, 2.5, 10.0, 100.0, 0.5, 10.0, 0.5])
    x = np.array([1.0, 2.0, 8.0, 110.0, 5.0, 25.0, 0.3])
    close(t64(standard_gamma_slope(a, x)),            # mpmath: -(dP/da) / (dP/dx), 40 digits
          [1.17356302722, 0.953462702919, 0.907547717724, 1.05016062125, 3.437123675,
           1.5522439909, 1.00980194595], 1e-8)
    # unbiased: d E[x] / dc = 1 / rate, d E[log x] / dc = trigamma(c) (rate 1)
    paddle.seed(0)
    c, r = t64([0.3, 2.5], grad=True), t64([2.0, 0.7], grad=True)
    D.Gamma(c, r).rsample([20000]).mean(0).sum().backward()      # (about 1% noise)
    np.testing.assert_allclose(c.grad.numpy(), [0.5, 1 / 0.7], rtol=3e-2)
    np.testing.assert_allclose(r.grad.numpy(), [-0.3 / 4.0, -2.5 / 0.49], rtol=3e-2)
    c = t64([0.3, 2.5], grad=True)
    paddle.log(D.Gamma(c, t64([1.0, 1.0])).rsample([20000])).mean(0).sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), [12.245364550, 0.490357756], rtol=3e-2)
    df = paddle.to_tensor([1.5], stop_gradient=False)            # Chi2 too, float32
    x = D.Chi2(df).rsample([3])
    x.sum().backward()
    assert x.dtype == paddle.float32 and df.grad is not None and float(df.grad[0]) > 0


def test_poisson_log_prob_gradient_in_the_value_at_zero_is_log_rate_plus_euler_gamma():
    # d/dv (v log r - r - lgamma(v + 1)) = log r - digamma(v + 1); at v = 0: log r + 0.5772.
    # Paddle 3.3.1 gives [0.22054094, -0.01731911, -0.1575054, -2.1267571] here; the 0 log 0
    # rule once dropped log r at v = 0 (0.5772157)
    r = paddle.to_tensor(np.array([0.7, 1.5, 3.0, 0.3], "float32"), stop_gradient=False)
    v = paddle.to_tensor(np.array([0.0, 1.0, 3.0, 2.0], "float32"), stop_gradient=False)
    gr, gv = paddle.grad(paddle.distribution.Poisson(r).log_prob(v).sum(), [r, v])
    want = np.log([0.7, 1.5, 3.0, 0.3]) - np.array([-0.5772157, 0.4227843, 1.2561177,
                                                     0.9227843])     # digamma(v + 1)
    np.testing.assert_allclose(gv.numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gr.numpy(), [-1.0, -1 / 3, 0.0, 2 / 0.3 - 1], rtol=1e-6)
    zero = paddle.distribution.Poisson(paddle.to_tensor([0.0, 0.0])).log_prob(
        paddle.to_tensor([0.0, 1.0]))
    assert zero.numpy().tolist() == [0.0, float("-inf")]         # 0 log 0 = 0 at rate 0
