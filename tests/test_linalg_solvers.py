"""paddle.linalg.pinv, lstsq, matrix_power, det, slogdet and solve: Paddle 3.3.1's values,
output structures and dtypes (measured on it), and gradients against finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

from backward_paths import PATHS, backward, leaf

TT = paddle.to_tensor
L = paddle.linalg
RNG = np.random.default_rng


def _wellcond(*shape, seed=0):
    return RNG(seed).uniform(-1, 1, shape) + 2 * np.eye(*shape[-2:])


# ---- pinv ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_pinv_is_numpys_pseudo_inverse(shape):
    a = RNG(1).normal(size=shape)
    np.testing.assert_allclose(L.pinv(TT(a)).numpy(), np.linalg.pinv(a), atol=1e-12)
    assert L.pinv(TT(a.astype("float32"))).dtype == paddle.float32


def test_pinv_rcond_and_hermitian_follow_numpy():
    """Paddle 3.3.1 = numpy: rcond is relative to the largest singular value (a float or a
    Tensor), hermitian reads the lower triangle."""
    a = RNG(2).normal(size=(4, 3))
    want = np.linalg.pinv(a, rcond=0.5)
    np.testing.assert_allclose(L.pinv(TT(a), rcond=0.5).numpy(), want, atol=1e-12)
    np.testing.assert_allclose(L.pinv(TT(a), rcond=TT(0.5)).numpy(), want, atol=1e-12)
    ns = RNG(3).normal(size=(3, 3))
    np.testing.assert_allclose(L.pinv(TT(ns), hermitian=True).numpy(),
                               np.linalg.pinv(ns, hermitian=True), atol=1e-12)
    np.testing.assert_allclose(L.pinv(TT(np.diag([2.0, -1.0, 0.5])), hermitian=True).numpy(),
                               np.diag([0.5, -1.0, 2.0]), atol=1e-15)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_pinv_gradient_matches_finite_differences(shape):
    check_grads(L.pinv, _wellcond(*shape, seed=4), order=2, rtol=1e-4)


def test_pinv_gradient_where_rcond_cuts_singular_values():
    """pinv(x, rcond) is smooth away from the cutoff; singular values below it move the kept
    subspace, which the gradient accounts for (Paddle 3.3.1 agrees, through its SVD)."""
    a = np.diag([2.0, 1.0, 0.4]) + 0.1 * RNG(5).uniform(-1, 1, (3, 3))
    check_grads(lambda x: L.pinv(x, rcond=0.3), a, order=2, rtol=1e-4)
    check_grads(lambda x: L.pinv(x, rcond=0.5), RNG(6).uniform(-1, 1, (2, 4, 3)), rtol=1e-4)


def test_pinv_gradient_at_a_rank_deficient_matrix_is_paddles():
    """Paddle 3.3.1 (float64), x = outer([1, 2, 3], [1, -1, 2]), loss sum(pinv(x)); its
    float32 gradient is NaN, jitgrad's float32 one is float64's rounded."""
    r1 = np.outer([1.0, 2, 3], [1.0, -1, 2])
    paddle_grad = [[0.00397, 0.00624, 0.00283], [0.00397, 0.01644, -0.00227],
                   [0.00397, 0.02664, -0.00737]]
    for dtype, atol in (("float64", 5e-6), ("float32", 1e-5)):
        x = TT(r1.astype(dtype), stop_gradient=False)
        L.pinv(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), paddle_grad, atol=atol)


def test_pinv_hermitian_gradient_is_symmetric_and_paddles():
    """Paddle 3.3.1, x = a^T a (a = default_rng(0).normal((4, 3))), loss sum(pinv(x,
    hermitian=True))."""
    a = np.random.default_rng(0).normal(size=(4, 3))
    x = TT(a.T @ a, stop_gradient=False)
    L.pinv(x, hermitian=True).sum().backward()
    paddle_grad = [[-4.63343, 13.94774, 11.31586], [13.94774, -41.98608, -34.06349],
                   [11.31586, -34.06349, -27.63586]]
    np.testing.assert_allclose(x.grad.numpy(), paddle_grad, atol=1e-4)
    check_grads(lambda x: L.pinv(x + x.T, hermitian=True), _wellcond(3, 3, seed=7),
                order=2, rtol=1e-4)
    check_grads(lambda x: L.pinv(x + x.T, rcond=0.3, hermitian=True),
                np.diag([1.0, -0.5, 0.1]) + 0.05 * RNG(8).uniform(-1, 1, (3, 3)), rtol=1e-4)


# ---- lstsq ---------------------------------------------------------------------------------

# Paddle 3.3.1, x [5, 3] of full rank, y [5, 2]: (residuals, rank, singular values) shapes
# and dtypes per driver (None is 'gelsy' on CPU)
LSTSQ_OUTPUTS = {
    None: (([0], "float64"), ([], "int32"), ([0], "float64")),
    "gelsy": (([0], "float64"), ([], "int32"), ([0], "float64")),
    "gels": (([2], "float64"), ([0], "int64"), ([0], "float64")),
    "gelsd": (([2], "float64"), ([], "int32"), ([3], "float64")),
    "gelss": (([2], "float64"), ([], "int32"), ([3], "float64")),
}


@pytest.mark.parametrize("driver", list(LSTSQ_OUTPUTS))
def test_lstsq_outputs_per_driver(driver):
    a, b = RNG(0).normal(size=(5, 3)), RNG(1).normal(size=(5, 2))
    sol, res, rank, sv = L.lstsq(TT(a), TT(b), driver=driver)
    want_sol, want_res, want_rank, want_sv = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(sol.numpy(), want_sol, atol=1e-12)
    got = [(t.shape, t.dtype.name) for t in (res, rank, sv)]
    assert got == [(list(s), d) for s, d in LSTSQ_OUTPUTS[driver]]
    if res.shape == [2]:
        np.testing.assert_allclose(res.numpy(), want_res, rtol=1e-12)
    if rank.shape == []:
        assert int(rank) == want_rank
    if sv.shape == [3]:
        np.testing.assert_allclose(sv.numpy(), want_sv, rtol=1e-12)


def test_lstsq_residuals_only_for_tall_full_rank_batches():
    """Paddle 3.3.1: a wide or square x, or a batch with one rank-deficient matrix, gives
    empty residuals; the solution is then the minimum-norm one."""
    y = RNG(2).normal(size=(2, 5, 2))
    full = RNG(3).normal(size=(2, 5, 3))
    sol, res, rank, sv = L.lstsq(TT(full), TT(y), driver="gelsd")
    assert (res.shape, rank.tolist(), sv.shape) == ([2, 2], [3, 3], [2, 3])
    mixed = full.copy()
    mixed[1] = np.outer([1.0, 2, 3, 4, 5], [1.0, -1, 2])
    sol, res, rank, _ = L.lstsq(TT(mixed), TT(y), driver="gelsd")
    assert (res.shape, rank.tolist()) == ([0], [3, 1])
    np.testing.assert_allclose(sol.numpy()[1], np.linalg.lstsq(mixed[1], y[1])[0], atol=1e-12)
    for shape in ((3, 5), (3, 3)):
        x = RNG(4).normal(size=shape)
        assert L.lstsq(TT(x), TT(y[0, :shape[0]]), driver="gels")[1].shape == [0]


def test_lstsq_default_rcond_is_eps_times_the_larger_dimension():
    """Paddle 3.3.1: a column 1e-9 away from another is dependent in float32 (rank 2) and
    not in float64 (rank 3)."""
    a = RNG(5).normal(size=(5, 3))
    a[:, 2] = a[:, 0] + 1e-9 * RNG(6).normal(size=5)
    b = RNG(7).normal(size=(5, 2))
    assert int(L.lstsq(TT(a.astype("float32")), TT(b.astype("float32")))[2]) == 2
    assert int(L.lstsq(TT(a), TT(b))[2]) == 3


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 3)])
def test_lstsq_solution_and_residuals_are_differentiable(shape):
    """Paddle 3.3.1 records no gradient for lstsq; jitgrad's solution is pinv(x) @ y."""
    a = _wellcond(*shape, seed=8)
    b = RNG(9).normal(size=shape[:-1] + (2,))
    check_grads(lambda x, y: L.lstsq(x, y)[0], a, b, order=2, rtol=1e-4)
    if shape[-2] > shape[-1]:
        check_grads(lambda x, y: L.lstsq(x, y, driver="gelsd")[1], a, b, order=2, rtol=1e-4)


def test_lstsq_rejects_what_paddle_rejects():
    a, b = TT(RNG(0).normal(size=(5, 3))), TT(RNG(1).normal(size=(5, 2)))
    with pytest.raises(ValueError, match="driver"):
        L.lstsq(a, b, driver="foo")
    with pytest.raises(ValueError, match="m, k"):
        L.lstsq(a, b[:, 0])
    with pytest.raises(TypeError, match="one dtype"):
        L.lstsq(a, b.astype("float32"))
    with pytest.raises(ValueError, match="full rank"):
        L.lstsq(TT(np.outer([1.0, 2, 3, 4, 5], [1.0, -1, 2])), b, driver="gels")


# ---- matrix_power --------------------------------------------------------------------------

def test_matrix_power_matches_numpy_for_every_sign_of_n():
    a = _wellcond(2, 3, 3, seed=10) / 2
    for n in range(-3, 6):
        np.testing.assert_allclose(L.matrix_power(TT(a), n).numpy(),
                                   np.linalg.matrix_power(a, n), rtol=1e-12, atol=1e-14)


def test_matrix_power_zero_is_identity_with_zero_gradient():
    """Paddle 3.3.1: n = 0 gives I and a zero (not None) gradient."""
    x = TT(RNG(11).normal(size=(3, 3)), stop_gradient=False)
    y = L.matrix_power(x, 0)
    np.testing.assert_array_equal(y.numpy(), np.eye(3))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 3)))


@pytest.mark.parametrize("n", [1, 3, 4, -1, -2])
def test_matrix_power_gradient_matches_finite_differences(n):
    check_grads(lambda x: L.matrix_power(x, n), _wellcond(2, 3, 3, seed=12) / 2, order=2,
                rtol=1e-4)


def test_matrix_power_rejects_what_paddle_rejects():
    with pytest.raises(ValueError, match="square"):
        L.matrix_power(TT(np.ones((2, 3))), 2)
    with pytest.raises(TypeError, match="int"):
        L.matrix_power(TT(np.eye(2)), 2.0)
    with pytest.raises(ValueError, match="invertible"):
        L.matrix_power(TT(np.ones((2, 2))), -1)


# ---- det, slogdet, solve ---------------------------------------------------------------------

def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    """Paddle 3.3.1 gives zeros here; d det / dx is the cofactor matrix, nonzero at rank
    n - 1 (and zero at rank n - 2)."""
    m = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    x = TT(m, stop_gradient=False)
    L.det(x).backward()
    cof = [[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1))
            for j in range(3)] for i in range(3)]
    np.testing.assert_allclose(x.grad.numpy(), cof, atol=1e-12)
    check_grads(L.det, m, order=2, rtol=1e-4)
    x = TT(np.outer([1.0, 2, 3], [1.0, 0, 2]), stop_gradient=False)
    L.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros((3, 3)), atol=1e-12)


def test_det_and_slogdet_structures_and_edges():
    """Paddle 3.3.1: det of a batch is [batch]; det of a 0 x 0 matrix is 1; slogdet is one
    tensor [2, ...] (sign, log|det|), [0, -inf] for a singular matrix, whose gradient is
    NaN."""
    a = _wellcond(2, 3, 3, seed=13)
    assert L.det(TT(a)).shape == [2]
    s = L.slogdet(TT(a))
    assert s.shape == [2, 2]
    np.testing.assert_allclose(s.numpy(), np.stack(np.linalg.slogdet(a)), rtol=1e-12)
    assert float(L.det(TT(np.zeros((0, 0))))) == 1.0
    x = TT(np.array([[1.0, 2], [2, 4]]), stop_gradient=False)
    s = L.slogdet(x)
    assert s.tolist() == [0.0, -np.inf]
    s[1].backward()
    assert np.isnan(x.grad.numpy()).all()


@pytest.mark.parametrize("path", PATHS)
def test_slogdet_of_a_singular_matrix_has_a_nan_gradient_on_every_path(path):
    x = leaf(np.array([[1.0, 2], [2, 4]]), "float64")
    backward(L.slogdet(x)[1], path)
    assert np.isnan(x.grad.numpy()).all()


def test_solve_treats_y_as_a_vector_by_paddles_rule():
    """Paddle 3.3.1: y is a batch of vectors when it is 1-D or x's shape without its last
    dim; otherwise a batch of matrices, with batch dims broadcast."""
    r = RNG(14)
    for xs, ys, out in (((2, 1, 3, 3), (4, 3, 2), [2, 4, 3, 2]), ((2, 1, 3, 3), (2, 1, 3),
                        [2, 1, 3]), ((2, 3, 3), (2, 3), [2, 3]), ((3, 3), (3,), [3]),
                        ((2, 3, 3), (3,), [2, 3]), ((2, 3, 3), (3, 3), [2, 3, 3])):
        assert L.solve(TT(_wellcond(*xs)), TT(r.normal(size=ys))).shape == out
    with pytest.raises(ValueError, match="do not fit"):
        L.solve(TT(_wellcond(2, 3, 3)), TT(r.normal(size=(4, 3))))


def test_solve_left_false_solves_from_the_right():
    a, b = _wellcond(2, 3, 3, seed=15), RNG(16).normal(size=(2, 4, 3))
    np.testing.assert_allclose(L.solve(TT(a), TT(b), left=False).numpy(),
                               b @ np.linalg.inv(a), atol=1e-12)
    check_grads(lambda x, y: L.solve(x, y, left=False), a, b, order=2, rtol=1e-4)
    with pytest.raises(ValueError, match="left=False"):
        L.solve(TT(a[0]), TT(b[0, 0]), left=False)
