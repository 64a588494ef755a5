"""ops/more_math.py: values as measured on Paddle 3.3.1, gradients against finite differences
on every backward path (jitgrad.testing.check_grads)."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor
RNG = np.random.default_rng(0)


def test_copysign_takes_the_sign_of_y_including_negative_zero():
    x = TT([-2.0, -0.0, 0.0, 1.5, 3.0, -1.0], stop_gradient=False)
    y = TT([1.0, 1.0, -1.0, -0.0, 0.0, -2.0], stop_gradient=False)
    z = paddle.copysign(x, y)
    assert z.tolist() == [2.0, 0.0, -0.0, -1.5, 3.0, -1.0]
    assert np.signbit(z.numpy()).tolist() == [False, False, True, True, False, True]
    z.backward(paddle.ones_like(z))
    assert x.grad.tolist() == [-1.0, 0.0, 0.0, -1.0, 1.0, 1.0]
    assert y.grad.tolist() == [0.0] * 6                 # zeros, not None (Paddle)
    assert paddle.copysign(TT([1, 2]), TT([-1, 1])).tolist() == [-1, 2]


def test_copysign_gradient_broadcasts():
    y = RNG.standard_normal(3)
    check_grads(lambda x: paddle.copysign(x, TT(y)), RNG.standard_normal((2, 3)))


def test_sgn_is_sign_with_a_zero_gradient():
    x = TT([-2.0, -0.0, 0.0, 1.5], stop_gradient=False)
    s = paddle.sgn(x)
    assert s.tolist() == [-1.0, 0.0, 0.0, 1.0]
    s.sum().backward()
    assert x.grad.tolist() == [0.0] * 4


def test_ldexp_scales_by_powers_of_two():
    x = TT([1.0, -2.0, 3.0], stop_gradient=False)
    z = paddle.ldexp(x, TT(np.array([1, 2, -1], "int32")))
    assert z.tolist() == [2.0, -8.0, 1.5] and z.dtype == paddle.float32
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 0.5]
    ints = paddle.ldexp(TT([1, 2]), TT([2, 3]))
    assert ints.dtype == paddle.float32 and ints.tolist() == [4.0, 16.0]
    # a float y is x * 2**y, as Paddle 3.3.1 (tests/test_hunt24.py)
    assert paddle.ldexp(x, TT([1.0, 2.0, 3.0])).tolist() == [2.0, -8.0, 24.0]


def test_vecdot_sums_products_along_an_axis():
    a = TT(np.arange(6, dtype="float32").reshape(2, 3))
    b = TT(np.full((2, 3), 2.0, "float32"))
    assert paddle.vecdot(a, b).tolist() == [6.0, 24.0]
    assert paddle.vecdot(a, b, axis=0).tolist() == [6.0, 10.0, 14.0]
    check_grads(lambda x, y: paddle.vecdot(x, y), RNG.standard_normal((4, 3)),
                RNG.standard_normal(3))


def test_baddbmm_values_and_gradients():
    i = TT(np.ones((2, 2, 2), "float32"), stop_gradient=False)
    x = TT(np.arange(12, dtype="float32").reshape(2, 2, 3), stop_gradient=False)
    y = TT(np.arange(12, dtype="float32").reshape(2, 3, 2) / 10, stop_gradient=False)
    z = paddle.baddbmm(i, x, y, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(z.numpy().ravel(), [2.5, 3.1, 6.1, 8.5, 34.9, 39.1, 49.3, 55.3],
                               rtol=1e-6)
    z.sum().backward()
    assert i.grad.tolist() == np.full((2, 2, 2), 0.5).tolist()
    check_grads(lambda a, b, c: paddle.baddbmm(a, b, c, beta=0.5, alpha=2.0),
                RNG.standard_normal((2, 2, 4)), RNG.standard_normal((2, 2, 3)),
                RNG.standard_normal((2, 3, 4)))


def test_baddbmm_reads_a_2d_input_as_one_row_per_batch():
    x, y = paddle.ones([3, 2, 5]), paddle.ones([3, 5, 4])
    i = TT(np.arange(12, dtype="float32").reshape(3, 4))
    z = paddle.baddbmm(i, x, y, alpha=0.0)
    assert z.shape == [3, 2, 4] and z.numpy()[:, :, 0].tolist() == [[0, 0], [4, 4], [8, 8]]
    with pytest.raises(ValueError, match="2-D input must be"):
        paddle.baddbmm(paddle.ones([2, 4]), x, y)
    with pytest.raises(ValueError, match="3-D"):
        paddle.baddbmm(paddle.ones([3, 2, 4]), paddle.ones([2, 5]), y)


def test_multigammaln_is_a_sum_of_lgammas():
    x = TT(np.array([2.5, 3.0, 4.2], "float32"), stop_gradient=False)
    m = paddle.multigammaln(x, 2)
    np.testing.assert_allclose(m.numpy(), [0.8570478, 1.550195, 4.048992], rtol=1e-6)
    expected = [math.log(math.pi) / 2 + math.lgamma(v) + math.lgamma(v - 0.5)
                for v in (2.5, 3.0, 4.2)]
    np.testing.assert_allclose(m.numpy(), expected, rtol=1e-6)
    check_grads(lambda t: paddle.multigammaln(t, 3), RNG.uniform(1.5, 5.0, 4))
    with pytest.raises(ValueError, match="p must be a positive int"):
        paddle.multigammaln(x, 0)


def test_histogram_counts_over_the_data_range_or_a_given_one():
    x = TT([1.0, 2.0, 1.0, 4.0, 2.5])
    h = paddle.histogram(x, bins=4)
    assert h.tolist() == [2, 1, 1, 1] and h.dtype == paddle.int64
    assert paddle.histogram(x, bins=4, min=0, max=3).tolist() == [0, 2, 1, 1]
    w = paddle.histogram(x, bins=4, weight=TT([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert w.tolist() == [4.0, 2.0, 5.0, 4.0] and w.dtype == paddle.float32
    np.testing.assert_allclose(paddle.histogram(x, bins=4, density=True).numpy(),
                               [0.53333336, 0.26666668, 0.26666668, 0.26666668], rtol=1e-6)
    assert paddle.histogram_bin_edges(x, bins=4).tolist() == [1.0, 1.75, 2.5, 3.25, 4.0]
    assert paddle.histogram(TT([2.0, 2.0]), bins=2).tolist() == [0, 2]
    with pytest.raises(ValueError, match="bins"):
        paddle.histogram(x, bins=0)


def test_gcd_lcm_frexp_nextafter():
    assert paddle.gcd(TT([12, -18, 0]), TT([8, 12, 5])).tolist() == [4, 6, 5]
    assert paddle.lcm(TT([4, -6, 0]), TT([6, 4, 3])).tolist() == [12, 12, 0]
    with pytest.raises(TypeError, match="two integer or two float tensors"):
        paddle.gcd(TT([True]), TT([2]))
    x = TT([8.0, -3.0, 0.0, 0.75], stop_gradient=False)
    m, e = paddle.frexp(x)
    assert m.tolist() == [0.5, -0.75, 0.0, 0.75] and e.tolist() == [4.0, 2.0, 0.0, 0.0]
    assert e.dtype == paddle.float32
    m.sum().backward()
    assert x.grad.tolist() == [1 / 16, 0.25, 0.0, 1.0]
    n = paddle.nextafter(TT([1.0, 0.0]), TT([2.0, -1.0]))
    assert n.tolist() == [float(np.nextafter(np.float32(1), np.float32(2))),
                          -float(np.nextafter(np.float32(0), np.float32(1)))]


def test_reduce_as_sums_down_to_the_target_shape():
    t = TT(np.arange(6, dtype="float32").reshape(2, 3), stop_gradient=False)
    r = paddle.reduce_as(t, paddle.ones([1, 3]))
    assert r.tolist() == [[3.0, 5.0, 7.0]]
    assert paddle.reduce_as(t, paddle.ones([3])).tolist() == [3.0, 5.0, 7.0]
    r.sum().backward()
    assert t.grad.tolist() == [[1.0] * 3] * 2
    with pytest.raises(ValueError, match="does not broadcast"):
        paddle.reduce_as(t, paddle.ones([2]))


def test_combinations_in_itertools_order():
    c = TT([1.0, 2.0, 3.0], stop_gradient=False)
    cc = paddle.combinations(c, 2)
    assert cc.tolist() == [[1, 2], [1, 3], [2, 3]]
    cc.sum().backward()
    assert c.grad.tolist() == [2.0, 2.0, 2.0]
    assert paddle.combinations(c, 2, with_replacement=True).tolist() == \
        [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]
    assert paddle.combinations(c, 4).shape == [0, 4]


def test_pdist_distances_between_row_pairs():
    p = TT([[0.0, 0.0], [3.0, 4.0], [1.0, 0.0]], stop_gradient=False)
    d = paddle.pdist(p)
    np.testing.assert_allclose(d.numpy(), [5.0, 1.0, math.sqrt(20)], rtol=1e-6)
    d.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [[-1.6, -0.8], [1.0472136, 1.6944273],
                                                [0.5527864, -0.8944272]], rtol=1e-6)
    assert paddle.pdist(p, 1.0).tolist() == [7.0, 1.0, 6.0]
    assert paddle.pdist(p, float("inf")).tolist() == [4.0, 1.0, 4.0]
    check_grads(lambda t: paddle.pdist(t, 3.0), RNG.standard_normal((4, 3)))
