"""The triangular solve op (ops/triangular.py: BLAS trsm forward, TRSM backward) behind
paddle.linalg.triangular_solve, cholesky_solve, lu_solve and cholesky's gradient: values
against numpy's float64 solve on the triangle, gradients against finite differences on
every backward path, and the no-BLAS fallbacks."""

import itertools

import numpy as np
import pytest
from numba import njit

import jitgrad as paddle
from jitgrad.ops import triangular
from jitgrad.testing import check_grads
from jitgrad.vm import blas, blas_lib

FLAGS = list(itertools.product([True, False], repeat=3))      # upper, transpose, unit


def T(a, dtype="float64", grad=False):
    return paddle.to_tensor(np.asarray(a, dtype), stop_gradient=not grad)


def _matrices(shape, seed=0):
    """Well-conditioned in both triangles (a dominant diagonal), the other triangle not 0."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, shape) + 2 * np.eye(shape[-1])


def _want(x, y, upper, transpose, unit):
    """op(T)^-1 y in float64 by numpy's LU on the triangle."""
    t = triangular._triangle(np.asarray(x, np.float64), upper, unit)
    return np.linalg.solve(np.swapaxes(t, -1, -2) if transpose else t, y.astype(np.float64))


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-6), ("float64", 1e-14)])
@pytest.mark.parametrize("upper, transpose, unit", FLAGS)
def test_triangular_solve_matches_numpy_on_the_triangle(dtype, tol, upper, transpose, unit):
    x = _matrices((3, 7, 7))
    y = np.random.default_rng(1).standard_normal((3, 7, 4))
    got = paddle.linalg.triangular_solve(T(x, dtype), T(y, dtype), upper=upper,
                                         transpose=transpose, unitriangular=unit)
    want = _want(x.astype(dtype), y.astype(dtype), upper, transpose, unit)
    assert got.dtype == paddle.to_tensor(np.zeros(1, dtype)).dtype
    assert np.abs(got.numpy() - want).max() <= tol * np.abs(want).max()


def test_triangular_solve_broadcasts_batch_dims():
    x = _matrices((2, 1, 5, 5))
    y = np.random.default_rng(2).standard_normal((3, 5, 2))
    got = paddle.linalg.triangular_solve(T(x), T(y), upper=False)
    want = _want(np.broadcast_to(x, (2, 3, 5, 5)), np.broadcast_to(y, (2, 3, 5, 2)), False,
                 False, False)
    assert got.shape == [2, 3, 5, 2]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("upper, transpose, unit", FLAGS)
def test_triangular_solve_gradients_match_finite_differences(upper, transpose, unit):
    x, y = _matrices((2, 4, 4), 3), np.random.default_rng(4).standard_normal((2, 4, 3))
    check_grads(lambda a, b: paddle.linalg.triangular_solve(
        a, b, upper=upper, transpose=transpose, unitriangular=unit), x, y, order=2)


def test_triangular_solve_gradient_is_zero_off_the_triangle_it_reads():
    x = T(_matrices((5, 5)), grad=True)
    y = T(np.ones((5, 2)), grad=True)
    paddle.linalg.triangular_solve(x, y, upper=True, unitriangular=True).sum().backward()
    g = x.grad.numpy()
    assert not np.tril(g).any() and g[np.triu_indices(5, 1)].all()


def test_float32_gradient_is_float64s_to_float32_precision():
    """A large batched solve (BLAS, the compiled TRSM backward), float32 against float64."""
    x = _matrices((4, 40, 40), 5)
    y = np.random.default_rng(6).standard_normal((4, 40, 3))
    c = np.random.default_rng(7).standard_normal((4, 40, 3))
    grads = {}
    for dt in ("float32", "float64"):
        a, b = T(x, dt, True), T(y, dt, True)
        for _ in range(2):                  # a new structure, then its compiled Program
            a.clear_grad()
            b.clear_grad()
            (paddle.linalg.triangular_solve(a, b, upper=False, transpose=True) *
             T(c, dt)).sum().backward()
        grads[dt] = (a.grad.numpy(), b.grad.numpy())
    for g32, g64 in zip(grads["float32"], grads["float64"]):
        assert np.abs(g32 - g64).max() <= 1e-5 * np.abs(g64).max()


def test_cholesky_solve_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 6, 6))
    spd = a @ np.swapaxes(a, -1, -2) + 6 * np.eye(6)
    L = np.linalg.cholesky(spd)
    b = rng.standard_normal((2, 6, 3))
    want = np.linalg.solve(spd, b)
    for upper, f in ((False, L), (True, np.swapaxes(L, -1, -2))):
        got = paddle.linalg.cholesky_solve(T(b), T(f), upper=upper).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    check_grads(lambda x, y: paddle.linalg.cholesky_solve(x, y), b, L, order=2)
    check_grads(lambda x, y: paddle.linalg.cholesky_solve(x, y, upper=True), b,
                np.swapaxes(L, -1, -2))


def test_zero_on_the_diagonal_raises_unless_unitriangular():
    x = np.triu(_matrices((3, 3)))
    x[1, 1] = 0
    with pytest.raises(ValueError, match="triangular_solve: the triangular matrix is singular"):
        paddle.linalg.triangular_solve(T(x), T(np.ones((3, 1))))
    with pytest.raises(ValueError, match="cholesky_solve: the triangular matrix is singular"):
        paddle.linalg.cholesky_solve(T(np.ones((3, 1))), T(x.T))
    got = paddle.linalg.triangular_solve(T(x), T(np.ones((3, 1))), unitriangular=True)
    np.testing.assert_allclose(got.numpy(), _want(x, np.ones((3, 1)), True, False, True))


@pytest.mark.parametrize("n", [6, 24])           # the compiled small factor, and LAPACK's
def test_cholesky_gradient_by_triangular_solves_matches_finite_differences(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, n, n))
    spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    c = np.tril(rng.standard_normal((2, n, n)))
    check_grads(lambda s: paddle.linalg.cholesky((s + s.mT) * 0.5) * T(c), spd, order=2)


def test_cholesky_float32_gradient_is_float64s_to_float32_precision():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((40, 40))
    spd = a @ a.T / 40 + np.eye(40)
    c = np.tril(rng.standard_normal((40, 40)))
    grads = {}
    for dt in ("float32", "float64"):
        x = T(spd, dt, True)
        for _ in range(2):
            x.clear_grad()
            (paddle.linalg.cholesky(x) * T(c, dt)).sum().backward()
        grads[dt] = x.grad.numpy()
    assert np.abs(grads["float32"] - grads["float64"]).max() <= \
        2e-5 * np.abs(grads["float64"]).max()


def test_without_a_bound_blas_the_forward_solves_with_numpy(monkeypatch):
    """(Numba not loaded either: with it, vm/blas.py's loop kernel solves.)"""
    x, y = _matrices((2, 5, 5)), np.random.default_rng(10).standard_normal((2, 5, 3))
    with_blas = triangular.solve_arrays(x, y, False, True, True)
    monkeypatch.setattr(blas_lib, "FOUND", None)
    monkeypatch.setattr(triangular, "compiled_kernels", lambda module: None)
    assert not blas_lib.forward_trsm(x, y.copy(), False, True, True)
    without = triangular.solve_arrays(x, y, False, True, True)
    np.testing.assert_allclose(without, with_blas, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(without, _want(x, y, False, True, True), rtol=1e-13)


@njit
def _call_trsm(A, B, m, n, left, upper, trans, unit):
    blas.trsm(A, B, m, n, left, upper, trans, unit)


@njit
def _call_loop(A, B, m, n, left, upper, trans, unit):
    blas._loop_trsm(A, B, m, n, left, upper, trans, unit)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("m, n", [(5, 3), (1, 4), (4, 1), (7, 7)])
def test_njit_trsm_and_its_loop_kernel_match_numpy(dtype, tol, m, n):
    rng = np.random.default_rng(m * 10 + n)
    for left, upper, trans, unit in itertools.product([False, True], repeat=4):
        k = m if left else n
        A = (rng.standard_normal((k, k)) + 3 * np.eye(k)).astype(dtype)
        B = rng.standard_normal((m, n)).astype(dtype)
        t = triangular._triangle(A.astype(np.float64), upper, unit)
        t = t.T if trans else t
        want = np.linalg.solve(t, B) if left else np.linalg.solve(t.T, B.T).T
        for fn in (_call_trsm, _call_loop):
            got = B.ravel().copy()
            fn(A.ravel(), got, m, n, left, upper, trans, unit)
            assert np.abs(got.reshape(m, n) - want).max() <= tol * np.abs(want).max(), \
                (fn, left, upper, trans, unit)


def test_without_a_bound_blas_a_zero_on_the_diagonal_gives_nan_for_that_matrix(monkeypatch):
    """qr's gradient solves with R, which may be singular (a rank-deficient x): NaN for that
    matrix (trsm gives inf or NaN there), the others solved."""
    x = np.triu(_matrices((2, 4, 4)))
    x[1, 2, 2] = 0
    y = np.ones((2, 4, 2))
    monkeypatch.setattr(blas_lib, "FOUND", None)
    monkeypatch.setattr(triangular, "compiled_kernels", lambda module: None)
    got = triangular.solve_arrays(x, y, True, False, False)
    assert np.isnan(got[1]).all()
    np.testing.assert_allclose(got[0], _want(x[0], y[0], True, False, False), rtol=1e-13)


@pytest.mark.parametrize("route", ["compiled", "ctypes", "numpy"])
@pytest.mark.parametrize("upper, transpose, unit", FLAGS)
def test_solve_arrays_from_the_right_on_every_route(monkeypatch, route, upper, transpose,
                                                    unit):
    """y op(T)^-1 (cholesky's and qr's interpreted gradients): one compiled loop of trsm,
    ctypes calls (Numba not loaded), numpy (no BLAS either)."""
    x, y = _matrices((3, 4, 4), 12), np.random.default_rng(13).standard_normal((3, 6, 4))
    if route != "compiled":
        monkeypatch.setattr(triangular, "compiled_kernels", lambda module: None)
    if route == "numpy":
        monkeypatch.setattr(blas_lib, "FOUND", None)
    got = triangular.solve_arrays(x, y, upper, transpose, unit, left=False)
    t = triangular._triangle(x, upper, unit)
    t = np.swapaxes(t, -1, -2) if transpose else t
    np.testing.assert_allclose(got @ t, y, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs, ys", [((3, 3), (3, 0)), ((0, 3, 3), (0, 3, 2)),
                                    ((2, 0, 0), (2, 0, 4))])
def test_empty_solves_give_empty_results_and_gradients(xs, ys):
    x = T(np.ones(xs) + np.eye(xs[-1]), grad=True)
    y = T(np.ones(ys), grad=True)
    out = paddle.linalg.triangular_solve(x, y)
    assert out.shape == list(ys)
    out.sum().backward()
    assert x.grad.shape == list(xs) and not x.grad.numpy().any()
    assert y.grad.shape == list(ys)


def test_the_right_hand_side_may_change_in_place_before_the_backward():
    """The gradient reads x and the solution, not y (grad_reads)."""
    x = T(np.tril(_matrices((4, 4))), grad=True)
    y = T(np.ones((4, 2)), grad=True)
    y2 = y * 1.0
    out = paddle.linalg.triangular_solve(x, y2, upper=False)
    y2.add_(paddle.ones_like(y2))
    out.sum().backward()
    want = _want(x.numpy(), np.ones((4, 2)), False, True, False)    # op(T)^-T 1
    np.testing.assert_allclose(y.grad.numpy(), want, rtol=1e-13)
    x2 = x * 1.0
    out = paddle.linalg.triangular_solve(x2, y, upper=False)
    x2.add_(paddle.ones_like(x2))
    with pytest.raises(RuntimeError, match="modified by an in-place"):
        out.sum().backward()
