"""paddle.linalg's cholesky_solve, cholesky_inverse, triangular_solve, lu, lu_unpack,
lu_solve, matrix_exp, matrix_rank, cond, cov, corrcoef, householder_product (ops/
more_linalg.py) and the linalg bindings of cross, diagonal, matrix_transpose, vecdot.
Values marked "# Paddle 3.3.1" were measured there; gradients are checked against finite
differences (perf/paddle_cases/more_linalg.py compares them with Paddle's)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

L3 = np.array([[2.0, 0, 0], [1, 3, 0], [0.5, -1, 1.5]])
B32 = np.array([[1.0, 2], [3, 4], [5, 6]])
M3 = np.array([[2.0, 4, -1], [0.3, 3, 2], [5, -1, 1.5]])
X34 = np.array([[1.0, 2, 4, 7], [0.5, -1, 3, 2], [2, 2, 1, 0]])


def T(a, dtype="float64"):
    return paddle.to_tensor(np.asarray(a, dtype))


def wellcond(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, shape) + 2 * np.eye(shape[-1])


# ---- where the names are --------------------------------------------------------------

def test_names_are_reachable_where_paddle_has_them():
    """Paddle 3.3.1: all in paddle.linalg; none of the new ones top-level; Tensor methods
    for cholesky_solve, cholesky_inverse, lu, lu_unpack, cond, cov, corrcoef,
    householder_product."""
    new = ["cholesky_solve", "cholesky_inverse", "triangular_solve", "lu", "lu_unpack",
           "lu_solve", "matrix_exp", "matrix_rank", "cond", "cov", "corrcoef",
           "householder_product"]
    for name in new + ["cross", "diagonal", "matrix_transpose", "vecdot"]:
        assert callable(getattr(paddle.linalg, name)), name
        assert callable(getattr(paddle.tensor.linalg, name)), name
    for name in new:
        assert not hasattr(paddle, name), name
    x = T(np.eye(2))
    methods = {"cholesky_solve", "cholesky_inverse", "lu", "lu_unpack", "cond", "cov",
               "corrcoef", "householder_product"}
    for name in new:
        assert hasattr(x, name) == (name in methods), name
    assert paddle.linalg.cross is paddle.cross and paddle.linalg.vecdot is paddle.vecdot


# ---- triangular and Cholesky solves ---------------------------------------------------

def test_cholesky_solve_takes_the_rhs_first_and_reads_only_the_factors_triangle():
    want = np.linalg.solve(L3 @ L3.T, B32)
    garbage = L3.copy()
    garbage[0, 2] = 7.0
    np.testing.assert_allclose(paddle.linalg.cholesky_solve(T(B32), T(garbage)).numpy(),
                               want, rtol=1e-12)
    np.testing.assert_allclose(
        paddle.linalg.cholesky_solve(T(B32), T(L3.T), upper=True).numpy(), want, rtol=1e-12)
    # Paddle 3.3.1: x [2, 3, 2] with y [3, 3] broadcasts to [2, 3, 2]; float32 value
    out = paddle.linalg.cholesky_solve(T(B32, "float32"), T(L3, "float32"))
    assert out.dtype == paddle.float32 and out.shape == [3, 2]
    np.testing.assert_allclose(out.numpy()[:, 0], [-0.9228395, 1.1049383, 2.4814816],
                               rtol=1e-6)
    assert paddle.linalg.cholesky_solve(T(np.ones((2, 3, 2))), T(L3)).shape == [2, 3, 2]


def test_cholesky_solve_gradient_is_masked_to_the_triangle():
    b, y = T(B32), T(L3)
    b.stop_gradient = y.stop_gradient = False
    paddle.linalg.cholesky_solve(b, y).sum().backward()
    # Paddle 3.3.1 (float32)
    np.testing.assert_allclose(y.grad.numpy(), [[0.8179012, 0, 0], [-1.4876543, -0.7510288, 0],
                                                [-3.2962964, -1.6419754, -6.563786]],
                               rtol=1e-6)
    check_grads(lambda b, y: paddle.linalg.cholesky_solve(b, y), B32, L3, order=2)
    check_grads(lambda b, y: paddle.linalg.cholesky_solve(b, y, upper=True),
                np.ones((2, 3, 1)), L3.T)


def test_cholesky_inverse_inverts_x_xT_reading_all_of_x():
    np.testing.assert_allclose(paddle.linalg.cholesky_inverse(T(L3)).numpy(),
                               np.linalg.inv(L3 @ L3.T), rtol=1e-12)
    np.testing.assert_allclose(paddle.linalg.cholesky_inverse(T(L3.T), upper=True).numpy(),
                               np.linalg.inv(L3 @ L3.T), rtol=1e-12)
    g = L3.copy()
    g[0, 2] = 7.0                      # Paddle 3.3.1: read, not ignored
    assert paddle.linalg.cholesky_inverse(T(g, "float32")).numpy()[2, 2] == \
        pytest.approx(7.2802739, rel=1e-5)
    check_grads(lambda x: paddle.linalg.cholesky_inverse(x), L3, order=2)
    with pytest.raises(ValueError, match="2-D"):
        paddle.linalg.cholesky_inverse(T(np.stack([L3, L3])))
    with pytest.raises(ValueError, match="square"):
        paddle.linalg.cholesky_inverse(T(np.ones((2, 3))))


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, False, False),
                                                  (True, True, False), (False, True, True),
                                                  (False, False, True), (True, True, True)])
def test_triangular_solve_solves_the_chosen_triangle(upper, transpose, unit):
    a = np.triu(M3) if upper else np.tril(M3)
    if unit:
        a = a - np.diag(np.diag(a)) + np.eye(3)
    want = np.linalg.solve(a.T if transpose else a, B32)
    out = paddle.linalg.triangular_solve(T(M3), T(B32), upper=upper, transpose=transpose,
                                         unitriangular=unit)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    check_grads(lambda x, y: paddle.linalg.triangular_solve(
        x, y, upper=upper, transpose=transpose, unitriangular=unit), M3, B32, order=2)


def test_triangular_solve_gradient_and_batching_as_paddle():
    x, y = T(M3, "float32"), T(B32, "float32")
    x.stop_gradient = False
    paddle.linalg.triangular_solve(x, y, unitriangular=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 15, -11], [0, 0, 33], [0, 0, 0]],
                               rtol=1e-6)                      # Paddle 3.3.1
    assert paddle.linalg.triangular_solve(T(np.stack([M3, M3])), T(B32)).shape == [2, 3, 2]
    assert paddle.linalg.triangular_solve(T(M3), T(np.ones((2, 3, 2)))).shape == [2, 3, 2]
    with pytest.raises(ValueError, match="right-hand side has 2 rows"):
        paddle.linalg.triangular_solve(T(M3), T(np.ones((2, 2))))
    with pytest.raises(ValueError, match="y must be a matrix"):
        paddle.linalg.triangular_solve(T(M3), T(np.ones(3)))
    with pytest.raises(TypeError, match="same dtype"):
        paddle.linalg.triangular_solve(T(M3), T(B32, "float32"))


# ---- LU ---------------------------------------------------------------------------------

def test_lu_returns_packed_factors_and_int32_one_based_pivots():
    lu, piv = paddle.linalg.lu(T(M3, "float32"))
    # Paddle 3.3.1
    np.testing.assert_allclose(lu.numpy(), [[5, -1, 1.5], [0.4, 4.4, -1.6],
                                            [0.06, 0.6954545, 3.0227273]], rtol=1e-6)
    assert piv.dtype == paddle.int32 and piv.numpy().tolist() == [3, 3, 3]
    lu, piv, info = paddle.linalg.lu(T(np.random.default_rng(0).uniform(-1, 1, (2, 4, 3))),
                                     get_infos=True)
    assert (lu.shape, piv.shape, info.shape) == ([2, 4, 3], [2, 3], [2])
    assert info.dtype == paddle.int32 and info.numpy().tolist() == [0, 0]
    _, _, info = paddle.linalg.lu(T(np.eye(2)), get_infos=True)
    assert info.shape == []


def test_lu_of_singular_matrices_reports_the_first_zero_pivot():
    # Paddle 3.3.1
    lu, piv, info = paddle.linalg.lu(T([[0.0, 0, 1], [0, 0, 2], [0, 0, 3]]), get_infos=True)
    assert lu.numpy().tolist() == [[0, 0, 1], [0, 0, 2], [0, 0, 3]]
    assert piv.numpy().tolist() == [1, 2, 3] and info.item() == 1
    lu, piv, info = paddle.linalg.lu(T([[1.0, 2], [2, 4]]), get_infos=True)
    assert lu.numpy().tolist() == [[2, 4], [0.5, 0]]
    assert piv.numpy().tolist() == [2, 2] and info.item() == 2


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_lu_unpack_reconstructs_x_and_the_gradients_match_finite_differences(shape):
    x = np.random.default_rng(3).uniform(-1, 1, shape)
    P, L, U = paddle.linalg.lu_unpack(*paddle.linalg.lu(T(x)))
    k = min(shape[-2:])
    assert P.shape == list(shape[:-2]) + [shape[-2]] * 2 and P.dtype == paddle.float64
    assert L.shape == list(shape[:-1]) + [k] and U.shape == list(shape[:-2]) + [k, shape[-1]]
    np.testing.assert_allclose((P @ L @ U).numpy(), x, atol=1e-14)
    check_grads(lambda a: paddle.linalg.lu(a)[0], x, order=2)
    check_grads(lambda a: paddle.linalg.lu_unpack(*paddle.linalg.lu(a))[1], x)


def test_lu_unpack_options_and_pivot_dtype():
    lu, piv = paddle.linalg.lu(T(M3))
    P, L, U = paddle.linalg.lu_unpack(lu, piv, unpack_ludata=False)
    assert P.shape == [3, 3] and L.shape == [0] and U.shape == [0]   # Paddle 3.3.1
    P, L, U = paddle.linalg.lu_unpack(lu, piv, unpack_pivots=False)
    assert P.shape == [0] and L.shape == [3, 3]
    np.testing.assert_array_equal(paddle.linalg.lu_unpack(lu, piv)[0].numpy(),
                                  [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="int32"):
        paddle.linalg.lu_unpack(lu, piv.astype("int64"))
    x = T(lu.numpy())
    x.stop_gradient = False
    P, L, U = lu.lu_unpack(piv)
    P, L, U = x.lu_unpack(piv)
    (L * 2 + U * 3).sum().backward()
    assert x.grad.numpy().tolist() == [[3, 3, 3], [2, 3, 3], [2, 2, 3]]   # Paddle 3.3.1


def test_lu_rejects_no_pivot_and_vectors():
    with pytest.raises(ValueError, match="pivot=False"):
        paddle.linalg.lu(T(M3), pivot=False)
    with pytest.raises(ValueError, match="matrix"):
        paddle.linalg.lu(T(np.ones(3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.linalg.lu(paddle.to_tensor(np.eye(2, dtype="int64")))


@pytest.mark.parametrize("trans", ["N", "T", "C"])
def test_lu_solve_takes_b_first_and_solves_with_the_factors(trans):
    lu, piv = paddle.linalg.lu(T(M3))
    out = paddle.linalg.lu_solve(T(B32), lu, piv, trans=trans)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(M3 if trans == "N" else M3.T, B32),
                               rtol=1e-12)
    check_grads(lambda b, a: paddle.linalg.lu_solve(b, *paddle.linalg.lu(a), trans=trans),
                B32, M3, order=2)
    check_grads(lambda b, f: paddle.linalg.lu_solve(b, f, piv, trans=trans), B32, lu.numpy())


def test_lu_solve_broadcasts_and_checks():
    lu, piv = paddle.linalg.lu(T(np.stack([M3, M3 + np.eye(3)])))
    assert paddle.linalg.lu_solve(T(B32), lu, piv).shape == [2, 3, 2]
    with pytest.raises(ValueError, match="b must be"):
        paddle.linalg.lu_solve(T(np.ones(3)), lu, piv)
    with pytest.raises(ValueError, match="trans"):
        paddle.linalg.lu_solve(T(B32), lu, piv, trans="X")


# ---- matrix_exp ---------------------------------------------------------------------------

def _expm(a, terms=60):
    out, term = np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, terms):
        term = term @ a / k
        out = out + term
    return out


@pytest.mark.parametrize("scale", [0.005, 0.05, 0.2, 0.4, 2.0])
def test_matrix_exp_matches_the_series_for_each_pade_degree(scale):
    a = M3 * scale
    np.testing.assert_allclose(paddle.linalg.matrix_exp(T(a)).numpy(), _expm(a), rtol=1e-12)
    check_grads(lambda x: paddle.linalg.matrix_exp(x), a, order=2 if scale < 1 else 1)


def test_matrix_exp_float32_batches_and_small_cases():
    out = paddle.linalg.matrix_exp(T(np.stack([M3 * 0.1, M3 * 3]), "float32"))
    assert out.dtype == paddle.float32 and out.shape == [2, 3, 3]
    np.testing.assert_allclose(out.numpy()[1], _expm(M3 * 3), rtol=2e-5, atol=1e-4)
    np.testing.assert_allclose(out.numpy()[0], _expm(M3 * 0.1), rtol=1e-6, atol=1e-7)
    assert paddle.linalg.matrix_exp(T(0.5)).item() == pytest.approx(np.exp(0.5))
    np.testing.assert_allclose(paddle.linalg.matrix_exp(T([[[1.0]], [[2.0]]])).numpy().ravel(),
                               np.exp([1.0, 2.0]))
    with pytest.raises(ValueError, match="square"):
        paddle.linalg.matrix_exp(T(np.ones((2, 3))))
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.linalg.matrix_exp(paddle.to_tensor(np.eye(2, dtype="int64")))


# ---- matrix_rank and cond -----------------------------------------------------------------

R3 = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])


def test_matrix_rank_thresholds_as_paddle():
    r = paddle.linalg.matrix_rank(T(R3, "float32"))
    assert r.dtype == paddle.int64 and r.shape == [] and r.item() == 2
    # Paddle 3.3.1
    assert paddle.linalg.matrix_rank(T(np.stack([R3, np.eye(3)]))).numpy().tolist() == [2, 3]
    assert paddle.linalg.matrix_rank(T(R3), tol=1.0).item() == 1
    assert paddle.linalg.matrix_rank(T(np.diag([2.0, 1.0])), tol=1.0).item() == 1   # strict >
    assert paddle.linalg.matrix_rank(T(R3), tol=-1.0).item() == 3
    assert paddle.linalg.matrix_rank(T(R3), tol=T([1.0])).shape == [1]
    assert paddle.linalg.matrix_rank(T(np.stack([R3, R3])), tol=T([0.1, 5.0])).numpy().tolist() \
        == [2, 1]
    assert paddle.linalg.matrix_rank(T(R3), hermitian=True).item() == 3
    assert paddle.linalg.matrix_rank(T([[1.0, 5], [1, 1]]), tol=0.5, hermitian=True).item() == 1
    d = T(np.diag([1.0, 1e-7]), "float32")
    assert paddle.linalg.matrix_rank(d, atol=1e-8).item() == 2    # rtol 0 where atol > 0
    assert paddle.linalg.matrix_rank(d, atol=0.0).item() == 1     # else eps * max(m, n)
    assert paddle.linalg.matrix_rank(d, rtol=1e-8).item() == 2
    assert paddle.linalg.matrix_rank(T(R3), atol=0.1, rtol=0.2).item() == 1
    assert paddle.linalg.matrix_rank(d, atol=T([1e-8, 0.5])).numpy().tolist() == [2, 1]
    assert paddle.linalg.matrix_rank(T(np.ones((2, 4)))).item() == 1
    assert paddle.linalg.matrix_rank(T(np.zeros((2, 2)))).item() == 0
    with pytest.raises(ValueError, match="tol alone"):
        paddle.linalg.matrix_rank(T(R3), tol=1.0, atol=0.1)


@pytest.mark.parametrize("p,want", [(None, 2.4128766), ("fro", 3.9433358), ("nuc", 10.393338),
                                    (np.inf, 4.7481203), (-np.inf, 1.7414285), (1, 4.2105265),
                                    (-1, 1.3601503), (2, 2.4128766), (-2, 0.41444308)])
def test_cond_values_and_gradients(p, want):
    out = paddle.linalg.cond(T(M3, "float32"), p)
    assert out.shape == [] and out.dtype == paddle.float32
    assert out.item() == pytest.approx(want, rel=1e-5)             # Paddle 3.3.1
    check_grads(lambda x: paddle.linalg.cond(x, p), M3, order=1)


def test_cond_shapes_and_errors():
    assert paddle.linalg.cond(T(np.stack([M3, M3 + np.eye(3)]))).shape == [2]
    assert paddle.linalg.cond(T(np.ones((2, 3)) + np.eye(2, 3), "float32")).item() == \
        pytest.approx(3.3166254, rel=1e-5)                          # Paddle 3.3.1
    with pytest.raises(ValueError, match="square"):
        paddle.linalg.cond(T(np.ones((2, 3))), "fro")
    with pytest.raises(ValueError, match="unsupported p=3"):
        paddle.linalg.cond(T(M3), 3)
    with pytest.raises(ValueError, match="singular"):
        paddle.linalg.cond(T(np.ones((2, 2))), 1)
    check_grads(lambda x: paddle.linalg.cond(x, "nuc"), wellcond((2, 3, 3)), order=2)


# ---- cov and corrcoef ---------------------------------------------------------------------

FW = np.array([1, 2, 1, 3])
AW = np.array([0.5, 1, 2, 1])


def test_cov_matches_numpy_with_weights():
    np.testing.assert_allclose(paddle.linalg.cov(T(X34)).numpy(), np.cov(X34), rtol=1e-12)
    np.testing.assert_allclose(paddle.linalg.cov(T(X34), rowvar=False).numpy(),
                               np.cov(X34, rowvar=False), rtol=1e-12)
    np.testing.assert_allclose(paddle.linalg.cov(T(X34), ddof=False).numpy(),
                               np.cov(X34, ddof=0), rtol=1e-12)
    for ddof in (True, False):
        out = paddle.linalg.cov(T(X34), ddof=ddof, fweights=paddle.to_tensor(FW),
                                aweights=T(AW))
        np.testing.assert_allclose(out.numpy(), np.cov(X34, ddof=int(ddof), fweights=FW,
                                                       aweights=AW), rtol=1e-12)
    check_grads(lambda x, a: paddle.linalg.cov(x, fweights=paddle.to_tensor(FW), aweights=a),
                X34, AW, order=2)


def test_cov_squeezes_and_paddles_rowvar_quirk():
    v = paddle.linalg.cov(T([1.0, 2, 4], "float32"))
    assert v.shape == [] and v.item() == pytest.approx(2.3333335)   # Paddle 3.3.1
    assert paddle.linalg.cov(T([[1.0, 2, 4]]), rowvar=False).shape == []  # 1 x n kept
    assert np.isnan(paddle.linalg.cov(T([[1.0], [2.0], [3.0]])).numpy()).all()
    with pytest.raises(ValueError, match="must not be negative"):
        paddle.linalg.cov(T(X34), fweights=paddle.to_tensor(np.array([-1, 2, 1, 3])))
    with pytest.raises(ValueError, match="integers"):
        paddle.linalg.cov(T(X34), fweights=T([1.5, 2, 1, 3]))
    with pytest.raises(ValueError, match="one weight per observation"):
        paddle.linalg.cov(T(X34), aweights=T([1.0, 2, 3]))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        paddle.linalg.cov(T(np.ones((2, 2, 2))))
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.linalg.cov(paddle.to_tensor(np.array([[1, 2], [3, 1]])))
    assert T(X34).cov().shape == [3, 3]


def test_corrcoef_matches_numpy_and_clips():
    np.testing.assert_allclose(paddle.linalg.corrcoef(T(X34)).numpy(), np.corrcoef(X34),
                               rtol=1e-12)
    np.testing.assert_allclose(paddle.linalg.corrcoef(T(X34), rowvar=False).numpy(),
                               np.corrcoef(X34, rowvar=False), rtol=1e-12)
    assert paddle.linalg.corrcoef(T([1.0, 2, 4])).item() == 1.0   # c / c
    assert np.abs(paddle.linalg.corrcoef(T(X34)).numpy()).max() <= 1.0
    check_grads(lambda x: paddle.linalg.corrcoef(x)[0:2, 1:3], X34, order=2)


# ---- householder_product ------------------------------------------------------------------

def _householder(x, tau):
    m, n = x.shape
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.concatenate([np.zeros(i), [1.0], x[i + 1:, i]])
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q[:, :n]


def test_householder_product_builds_q_and_leaves_x_alone():
    rng = np.random.default_rng(4)
    x, tau = rng.uniform(-1, 1, (4, 3)), rng.uniform(0, 1.5, 2)
    xt = T(x)
    out = paddle.linalg.householder_product(xt, T(tau))
    np.testing.assert_allclose(out.numpy(), _householder(x, tau), rtol=1e-12)
    assert np.array_equal(xt.numpy(), x)          # (Paddle 3.3.1 writes ones into x)
    assert out.shape == [4, 3]
    check_grads(lambda x, t: paddle.linalg.householder_product(x, t), x, tau, order=2)
    xb, tb = rng.uniform(-1, 1, (2, 3, 3)), rng.uniform(0, 1.5, (2, 3))
    out = paddle.linalg.householder_product(T(xb), T(tb))
    np.testing.assert_allclose(out.numpy()[1], _householder(xb[1], tb[1]), rtol=1e-12)
    with pytest.raises(ValueError, match="at least as many rows"):
        paddle.linalg.householder_product(T(np.ones((2, 3))), T(np.ones(2)))
    with pytest.raises(ValueError, match="tau has 3 entries"):
        paddle.linalg.householder_product(T(np.ones((3, 2))), T(np.ones(3)))
