"""var and logsumexp are one registry op each (ops/stats.py): their saved weights give the
first derivative, and their rules in jitgrad ops the second (create_graph)."""

import numpy as np

import jitgrad as paddle


def _hvp(f, a: np.ndarray, v: np.ndarray) -> np.ndarray:
    x = paddle.to_tensor(a, stop_gradient=False)
    (g,) = paddle.grad(f(x), x, create_graph=True)
    (h,) = paddle.grad((g * paddle.to_tensor(v)).sum(), x)
    return h.numpy()


A = np.array([0.5, -1.0, 2.0, 0.25])
V = np.array([1.0, 2.0, -1.0, 0.5])


def test_var_gradient_is_two_deviations_over_dof():
    x = paddle.to_tensor(A, stop_gradient=False)
    paddle.var(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (A - A.mean()) / 3, rtol=1e-14)


def test_var_second_derivative_is_the_centering_matrix():
    # d2 var / dx2 = (2 / dof) (I - 11^T / n)
    got = _hvp(lambda x: paddle.var(x), A, V)
    np.testing.assert_allclose(got, 2 / 3 * (V - V.mean()), rtol=1e-13)


def test_var_without_degrees_of_freedom_is_nan_with_nan_gradient():
    x = paddle.to_tensor(np.array([[1.5], [2.0]], "float32"), stop_gradient=False)
    y = paddle.var(x, axis=1)
    assert np.isnan(y.numpy()).all()
    y.sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_logsumexp_gradient_is_softmax():
    x = paddle.to_tensor(A, stop_gradient=False)
    paddle.logsumexp(x).backward()
    p = np.exp(A) / np.exp(A).sum()
    np.testing.assert_allclose(x.grad.numpy(), p, rtol=1e-14)


def test_logsumexp_second_derivative_is_diag_p_minus_ppt():
    p = np.exp(A) / np.exp(A).sum()
    got = _hvp(lambda x: paddle.logsumexp(x), A, V)
    np.testing.assert_allclose(got, p * V - p * (p @ V), rtol=1e-13)


def test_logsumexp_of_large_values_does_not_overflow():
    x = paddle.to_tensor(np.array([[1000.0, 1000.0]], "float32"), stop_gradient=False)
    y = paddle.logsumexp(x, axis=1)
    np.testing.assert_allclose(y.numpy(), [1000.0 + np.log(2.0)], rtol=1e-7)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.5, 0.5]])


def test_std_repeat_steps_hit_the_cache_with_their_own_gradients():
    grads = []
    for scale in (1.0, 3.0):
        x = paddle.to_tensor(A * scale, stop_gradient=False)
        paddle.std(x).backward()
        grads.append(x.grad.numpy())
    # std(s x) = s std(x): the gradient does not depend on the scale
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-13)
    np.testing.assert_allclose(grads[0], (A - A.mean()) / (3 * A.std(ddof=1)), rtol=1e-13)


def test_l2_norm_gradient_is_x_over_norm_and_zero_at_the_zero_vector():
    x = paddle.to_tensor(np.array([[3.0, 4.0], [0.0, 0.0]]), stop_gradient=False)
    y = paddle.linalg.vector_norm(x, 2, axis=1)
    np.testing.assert_array_equal(y.numpy(), [5.0, 0.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-15)


def test_zero_norm_counts_nonzeros_and_is_differentiable_with_gradient_zero():
    # Paddle 3.3.1: norm(x, p=0) keeps stop_gradient False; backward gives zeros
    x = paddle.to_tensor(np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]], "float32"),
                         stop_gradient=False)
    y = paddle.linalg.norm(x, p=0, axis=1)
    assert y.stop_gradient is False
    np.testing.assert_array_equal(y.numpy(), [2.0, 1.0])
    (y * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3), "float32"))


def test_l2_norm_second_derivative_is_the_projection_over_norm():
    # d2 |x| / dx2 = (I - x x^T / |x|^2) / |x|
    n = np.linalg.norm(A)
    got = _hvp(lambda x: paddle.linalg.vector_norm(x, 2), A, V)
    np.testing.assert_allclose(got, (V - A * (A @ V) / n ** 2) / n, rtol=1e-13)


def test_dist_and_cdist_use_the_norm_of_the_differences():
    x = paddle.to_tensor(np.array([[1.0, 2.0], [0.0, 0.0]]), stop_gradient=False)
    y = paddle.to_tensor(np.array([[4.0, 6.0], [0.0, 0.0]]))
    d = paddle.dist(x, y)
    np.testing.assert_allclose(d.item(), 5.0, rtol=1e-15)
    d.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.6, -0.8], [0.0, 0.0]], rtol=1e-15)
    c = paddle.cdist(x, y)
    np.testing.assert_allclose(c.numpy(), [[5.0, np.sqrt(5.0)], [np.sqrt(52.0), 0.0]],
                               rtol=1e-15)
