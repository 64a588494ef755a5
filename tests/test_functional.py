"""jitgrad.autograd.jacobian / hessian (Paddle 2.5+ API), checked by finite differences."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def leaf(values):
    return TT(np.asarray(values, np.float64), stop_gradient=False)


def f(x):
    return paddle.tanh(x) * paddle.sum(x * x) + paddle.exp(x[0]) * 0.5


def numeric_jacobian(fn, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e.flat[j] = eps
        with paddle.no_grad():
            plus, minus = fn(TT(x + e)).numpy(), fn(TT(x - e)).numpy()
        cols.append(((plus - minus) / (2 * eps)).reshape(-1))
    return np.stack(cols, axis=-1)


def test_jacobian_matches_finite_differences():
    xv = np.array([0.3, -0.7, 1.1])
    x = leaf(xv)
    J = paddle.autograd.jacobian(f(x), x)
    assert J.shape == [3, 3]
    np.testing.assert_allclose(J[:].numpy(), numeric_jacobian(f, xv), rtol=1e-6, atol=1e-9)


def test_jacobian_is_lazy_and_caches_rows():
    x = leaf([0.3, -0.7, 1.1, 0.2])
    J = paddle.autograd.jacobian(f(x), x)
    full = numeric_jacobian(f, x.numpy())
    assert len(J._rows) == 0
    np.testing.assert_allclose(J[1:3].numpy(), full[1:3], rtol=1e-6, atol=1e-9)
    assert sorted(J._rows) == [1, 2]
    np.testing.assert_allclose(J[2, 1:].numpy(), full[2, 1:], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(J[-1, 0].numpy(), full[-1, 0], rtol=1e-6, atol=1e-9)
    assert sorted(J._rows) == [1, 2, 3]
    np.testing.assert_allclose(J[::2, ::3].numpy(), full[::2, ::3], rtol=1e-6, atol=1e-9)


def test_tuple_inputs_give_nested_jacobians_with_paddle_shapes():
    x1, x2 = leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0])
    y1 = x1 * paddle.sum(x2)
    y2 = paddle.sum(x1) * x2
    J = paddle.autograd.jacobian((y1, y2), (x1, x2))
    assert [[j.shape for j in row] for row in J] == [[[3, 3], [3, 2]], [[2, 3], [2, 2]]]
    np.testing.assert_allclose(J[0][1][:].numpy(), np.tile([[1.0], [2.0], [3.0]], (1, 2)))
    np.testing.assert_allclose(J[1][1][:].numpy(), np.eye(2) * 6.0)
    single = paddle.autograd.jacobian(y1, (x1, x2))
    assert isinstance(single, tuple) and len(single) == 2


def test_zero_dim_sides_drop_their_axis():
    x = leaf([1.0, 2.0])
    s = paddle.sum(x * x)
    J = paddle.autograd.jacobian(s, x)
    assert J.shape == [2]
    assert J[:].tolist() == [2.0, 4.0]
    t = leaf(3.0)
    assert paddle.autograd.jacobian(t * t, t).shape == []
    J0 = paddle.autograd.jacobian(t * t, t)
    assert J0.item() == 6.0                  # attributes evaluate the whole Jacobian
    with pytest.raises(IndexError):
        J0[:]                                # a 0-D Jacobian cannot be indexed (Paddle too)


def test_unconnected_input_gives_zeros():
    x, other = leaf([1.0, 2.0]), leaf([3.0])
    assert paddle.autograd.jacobian(x * 2, other)[:].tolist() == [[0.0], [0.0]]


def test_batched_jacobian_shape_and_values():
    xv = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    x = leaf(xv)
    y = paddle.tanh(x) * paddle.sum(x, axis=1, keepdim=True)
    J = paddle.autograd.jacobian(y, x, batch_axis=0)
    assert J.shape == [3, 2, 2]
    for b in range(3):
        want = numeric_jacobian(lambda r: paddle.tanh(r) * paddle.sum(r), xv[b])
        np.testing.assert_allclose(J[b].numpy(), want, rtol=1e-6, atol=1e-9)


def test_hessian_matches_finite_differences_of_the_gradient():
    xv = np.array([0.3, -0.7, 1.1])
    x = leaf(xv)
    g = lambda v: paddle.sum(f(v) * paddle.sin(v))       # noqa: E731
    H = paddle.autograd.hessian(g(x), x)
    assert isinstance(H, paddle.autograd.Hessian) and H.shape == [3, 3]

    def grad_of_g(v):
        v = TT(v.numpy(), stop_gradient=False)
        with paddle.enable_grad():
            return paddle.grad(g(v), v)[0]
    np.testing.assert_allclose(H[:].numpy(), numeric_jacobian(grad_of_g, xv), rtol=1e-5,
                               atol=1e-8)
    np.testing.assert_allclose(H[:].numpy(), H[:].numpy().T, rtol=1e-10)


def test_hessian_of_tuple_inputs_is_nested_blocks():
    x1, x2 = leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0])
    y = paddle.sum(x1) * paddle.sum(x2) + paddle.sum(x1 ** 3)
    H = paddle.autograd.hessian(y, (x1, x2))
    assert [[h.shape for h in row] for row in H] == [[[3, 3], [3, 2]], [[2, 3], [2, 2]]]
    np.testing.assert_allclose(H[0][0][:].numpy(), np.diag([6.0, 12.0, 18.0]))
    np.testing.assert_allclose(H[0][1][:].numpy(), np.ones((3, 2)))
    np.testing.assert_allclose(H[1][1][:].numpy(), np.zeros((2, 2)))


def test_batched_hessian():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    H = paddle.autograd.hessian(paddle.sum(x ** 3, axis=1), x, batch_axis=0)
    assert H.shape == [2, 2, 2]
    np.testing.assert_allclose(H[:].numpy(), [np.diag([6.0, 12.0]), np.diag([18.0, 24.0])])


def test_argument_errors():
    x = leaf([[1.0, 2.0]])
    with pytest.raises(ValueError, match="ndim"):
        paddle.autograd.jacobian(x * 2, x)
    with pytest.raises(ValueError, match="batch_axis"):
        paddle.autograd.jacobian(x * 2, x, batch_axis=1)
    v = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="one element"):
        paddle.autograd.hessian(v * 2, v)
    with pytest.raises(TypeError, match="ys"):
        paddle.autograd.jacobian([1.0], v)
    with pytest.raises(IndexError, match="Ellipsis"):
        paddle.autograd.jacobian(v * 2, v)[..., 0]


def test_jacobian_arithmetic_and_comparisons_evaluate_the_matrix_as_paddle():
    """Measured on Paddle 3.3.1 for y = x * x at x = [1, 2] (J = diag(2, 4)): the forward
    operators give Tensors, the reflected ones raise TypeError."""
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    J = paddle.autograd.jacobian(x * x, x)
    np.testing.assert_array_equal((J + 1).numpy(), [[3, 1], [1, 5]])
    np.testing.assert_array_equal((J * J).numpy(), [[4, 0], [0, 16]])
    np.testing.assert_array_equal((J - J).numpy(), [[0, 0], [0, 0]])
    np.testing.assert_array_equal((J / 2).numpy(), [[1, 0], [0, 2]])
    np.testing.assert_array_equal((J ** 2).numpy(), [[4, 0], [0, 16]])
    np.testing.assert_array_equal((J @ J).numpy(), [[4, 0], [0, 16]])
    np.testing.assert_array_equal((J == J).numpy(), [[True, True], [True, True]])
    np.testing.assert_array_equal((J > 1).numpy(), [[True, False], [False, True]])
    with pytest.raises(TypeError):
        1 + J
    with pytest.raises(TypeError):
        -J
    assert J in {J}                                 # still hashable, by identity


def test_an_ellipsis_index_on_a_batched_hessian_raises_index_error_as_paddle():
    xb = paddle.to_tensor([[1.0], [2.0]], stop_gradient=False)
    H = paddle.autograd.hessian((xb * xb).sum(axis=1), xb, batch_axis=0)
    assert H.shape == [2, 1, 1] and H[:, 0].shape == [2, 1] and H[0].shape == [1, 1]
    with pytest.raises(IndexError):
        H[..., 1]
