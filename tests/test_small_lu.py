"""solve, inverse, det and slogdet of small matrices run one compiled LU per matrix
(vm/forward_linalg.py): the values and the inverse the backward reads come from one
factorisation, computed in float64. Checked against numpy in float64, and for what numpy
and Paddle call singular."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import matrix


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)       # the kernels run once Numba is loaded


def _system(n, k, batch, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(batch + (n, n)) + n * np.eye(n)
    y = rng.standard_normal(batch + (n, k))
    return x.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-6), ("float64", 1e-13)])
@pytest.mark.parametrize("n", [1, 2, 5, matrix.SMALL_N, matrix.SMALL_N + 1])
def test_solve_matches_numpy_and_its_gradients_the_closed_form(n, dtype, tol):
    x, y = _system(n, 3, (4,), dtype, n)
    X = paddle.to_tensor(x, stop_gradient=False)
    Y = paddle.to_tensor(y, stop_gradient=False)
    out = paddle.linalg.solve(X, Y)
    assert out.dtype == getattr(paddle, dtype)
    want = np.linalg.solve(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(out.numpy(), want, rtol=tol * 10, atol=tol)
    out.sum().backward()
    gy = np.swapaxes(np.linalg.inv(x.astype(np.float64)), -1, -2) @ np.ones_like(want)
    np.testing.assert_allclose(Y.grad.numpy(), gy, rtol=tol * 10, atol=tol)
    np.testing.assert_allclose(X.grad.numpy(), -gy @ np.swapaxes(want, -1, -2),
                               rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inverse_of_a_batch_matches_numpy(dtype):
    x, _ = _system(6, 1, (2, 3), dtype, 1)
    got = paddle.inverse(paddle.to_tensor(x)).numpy()
    assert got.dtype == np.dtype(dtype) and got.shape == (2, 3, 6, 6)
    np.testing.assert_allclose(got, np.linalg.inv(x.astype(np.float64)),
                               rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


def test_solve_needs_a_row_exchange():
    x = paddle.to_tensor(np.array([[0.0, 1.0], [2.0, 0.0]]))
    np.testing.assert_array_equal(paddle.linalg.solve(x, paddle.to_tensor([[3.0], [4.0]]))
                                  .numpy(), [[2.0], [3.0]])


@pytest.mark.parametrize("bad", [np.array([[1.0, 2.0], [2.0, 4.0]], "float32"),
                                 np.zeros((3, 3)),
                                 np.array([[np.nan, 1.0], [1.0, 1.0]])])
def test_singular_or_nan_matrices_raise_as_numpy_and_paddle_do(bad):
    with pytest.raises(ValueError, match="singular"):
        paddle.linalg.solve(paddle.to_tensor(bad), paddle.to_tensor(np.ones((len(bad), 1),
                                                                            bad.dtype)))
    with pytest.raises(ValueError, match="singular"):
        paddle.inverse(paddle.to_tensor(bad))


def test_one_singular_matrix_in_a_batch_raises():
    x = np.stack([np.eye(3), np.ones((3, 3))])
    with pytest.raises(ValueError, match="singular"):
        paddle.inverse(paddle.to_tensor(x))


def test_repeat_solves_of_new_graphs_each_get_their_own_gradient():
    grads = []
    for scale in (1.0, 2.0):
        x, y = _system(3, 2, (), "float64", 5)
        X = paddle.to_tensor(x * scale, stop_gradient=False)
        paddle.linalg.solve(X, paddle.to_tensor(y)).sum().backward()
        grads.append(X.grad.numpy())
    # solve(s x, y) = solve(x, y) / s: its gradient in x scales by 1 / s^2
    np.testing.assert_allclose(grads[1], grads[0] / 4, rtol=1e-12)


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12)])
def test_det_and_slogdet_of_a_batch_match_numpy_with_inverse_transpose_gradients(dtype, tol):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 5)).astype(dtype)
    x64 = x.astype(np.float64)
    X = paddle.to_tensor(x, stop_gradient=False)
    d = paddle.linalg.det(X)
    np.testing.assert_allclose(d.numpy(), np.linalg.det(x64), rtol=tol)
    d.sum().backward()
    inv_t = np.swapaxes(np.linalg.inv(x64), -1, -2)
    np.testing.assert_allclose(X.grad.numpy(), inv_t * np.linalg.det(x64)[:, None, None],
                               rtol=tol * 10, atol=tol)
    X.clear_grad()
    s = paddle.linalg.slogdet(X)
    sign, logabs = np.linalg.slogdet(x64)
    np.testing.assert_array_equal(s.numpy()[0], sign)
    np.testing.assert_allclose(s.numpy()[1], logabs, rtol=tol)
    s[1].sum().backward()
    np.testing.assert_allclose(X.grad.numpy(), inv_t, rtol=tol * 10, atol=tol)


def test_det_of_a_negative_permutation_is_minus_one():
    p = paddle.to_tensor(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
    assert paddle.linalg.det(p).item() == -1.0
    np.testing.assert_array_equal(paddle.linalg.slogdet(p).numpy(), [-1.0, 0.0])


def test_det_of_a_singular_matrix_is_zero_with_the_cofactor_gradient():
    X = paddle.to_tensor(np.array([[1.0, 2.0], [2.0, 4.0]]), stop_gradient=False)
    d = paddle.linalg.det(X)
    d.backward()
    assert d.item() == 0.0
    np.testing.assert_allclose(X.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-14)
    np.testing.assert_array_equal(paddle.linalg.slogdet(X).numpy(), [0.0, -np.inf])
