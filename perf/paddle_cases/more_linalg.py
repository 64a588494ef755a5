# ops/more_linalg.py (and the paddle.linalg bindings of cross, diagonal, matrix_transpose,
# vecdot) against Paddle 3.3.1.
import numpy as np

_rng = np.random.default_rng(7)
_L = np.array([[2.0, 0, 0], [1, 3, 0], [0.5, -1, 1.5]], "float32")
_Lg = _L.copy()
_Lg[0, 2] = 7.0                       # a value above the diagonal of a lower factor
_M = np.array([[2.0, 4, -1], [0.3, 3, 2], [5, -1, 1.5]], "float32")
_B = np.array([[1.0, 2], [3, 4], [5, 6]], "float32")


def _wc(shape, dtype="float32"):
    """Well-conditioned square matrices."""
    n = shape[-1]
    return (_rng.uniform(-0.5, 0.5, shape) + 2 * np.eye(n)).astype(dtype)


def _lower(shape):
    return np.tril(_wc(shape))


KNOWN = {
    "triangular_solve_unit_lower": "Paddle 3.3.1's x gradient for upper=False, "
        "unitriangular=True is not masked to the strict lower triangle (nonzero on and above "
        "the diagonal, which the solve never reads); jitgrad's is the derivative (as torch)",
    "matrix_exp_squared": "Paddle 3.3.1's backward fails when squarings are needed "
        "(RuntimeError: a tensor modified by an inplace operation); jitgrad differentiates",
    "householder_product_grad": "Paddle 3.3.1 writes ones into x's diagonal in place and its "
        "backward fails (inplace-modified tensor); jitgrad leaves x alone and differentiates",
    "lu_solve_T": "Paddle 3.3.1's gradient for trans='T'/'C' disagrees with finite "
        "differences; jitgrad's passes check_grads (tests/test_more_linalg.py)",
}

# cholesky_solve: x the right-hand side, y the factor; only y's triangle is read
cmp("cholesky_solve", lambda P, b, l: P.linalg.cholesky_solve(b, l), [_B, _L])
cmp("cholesky_solve_garbage_upper", lambda P, b, l: P.linalg.cholesky_solve(b, l), [_B, _Lg], grad=False)
cmp("cholesky_solve_garbage_upper_grad", lambda P, b, l: P.linalg.cholesky_solve(b, l), [_B, _Lg],
    known="Paddle 3.3.1's y gradient reads the unused triangle of y (its forward does not); "
    "jitgrad's is the derivative of the forward (equal for a triangular y)")
cmp("cholesky_solve_upper", lambda P, b, u: P.linalg.cholesky_solve(b, u, upper=True), [_B, _L.T.copy()])
cmp("cholesky_solve_batch", lambda P, b, l: P.linalg.cholesky_solve(b, l), [A((2, 3, 2)), _lower((3, 3))])
cmp("cholesky_solve_batch_y", lambda P, b, l: P.linalg.cholesky_solve(b, l), [A((3, 2)), _lower((2, 3, 3))])
cmp("cholesky_solve_f64", lambda P, b, l: P.linalg.cholesky_solve(b, l), [_B.astype("float64"), _L.astype("float64")], rtol=1e-10, atol=1e-10)
cmp("cholesky_solve_1d", lambda P, b, l: P.linalg.cholesky_solve(b, l), [A((3,)), _L])
cmp("m.cholesky_solve", lambda P, b, l: b.cholesky_solve(l), [_B, _L])
# cholesky_inverse: inv(x x^T), the whole x read
cmp("cholesky_inverse", lambda P, l: P.linalg.cholesky_inverse(l), [_L])
cmp("cholesky_inverse_upper", lambda P, u: P.linalg.cholesky_inverse(u, upper=True), [_L.T.copy()])
cmp("cholesky_inverse_garbage", lambda P, l: P.linalg.cholesky_inverse(l), [_Lg], rtol=1e-4)
cmp("cholesky_inverse_f64", lambda P, l: P.linalg.cholesky_inverse(l), [_L.astype("float64")], rtol=1e-10, atol=1e-10)
cmp("cholesky_inverse_batch", lambda P, l: P.linalg.cholesky_inverse(l), [_lower((2, 3, 3))])
cmp("m.cholesky_inverse", lambda P, l: l.cholesky_inverse(), [_L])
# triangular_solve
for _kw in [dict(), dict(upper=False), dict(transpose=True), dict(upper=False, transpose=True),
            dict(unitriangular=True), dict(transpose=True, unitriangular=True)]:
    cmp("triangular_solve_" + "_".join(f"{k}{int(v)}" for k, v in _kw.items()),
        lambda P, a, b, kw=_kw: P.linalg.triangular_solve(a, b, **kw), [_M, _B])
cmp("triangular_solve_unit_lower", lambda P, a, b: P.linalg.triangular_solve(a, b, upper=False, unitriangular=True), [_M, _B])
cmp("triangular_solve_unit_lower_T", lambda P, a, b: P.linalg.triangular_solve(a, b, upper=False, unitriangular=True, transpose=True), [_M, _B], known=KNOWN["triangular_solve_unit_lower"])
cmp("triangular_solve_batch", lambda P, a, b: P.linalg.triangular_solve(a, b), [_wc((2, 3, 3)), A((3, 2))])
cmp("triangular_solve_batch_y", lambda P, a, b: P.linalg.triangular_solve(a, b, upper=False), [_wc((3, 3)), A((2, 3, 2))])
cmp("triangular_solve_f64", lambda P, a, b: P.linalg.triangular_solve(a, b), [_M.astype("float64"), _B.astype("float64")], rtol=1e-10, atol=1e-10)
cmp("triangular_solve_1d", lambda P, a, b: P.linalg.triangular_solve(a, b), [_M, A((3,))])
cmp("triangular_solve_rows_mismatch", lambda P, a, b: P.linalg.triangular_solve(a, b), [_M, A((2, 2))],
    known="Paddle 3.3.1 returns a [2, 2] result for a [3, 3] x and a [2, 2] y; jitgrad raises ValueError")
cmp("triangular_solve_singular", lambda P, a, b: P.linalg.triangular_solve(a, b), [np.array([[1.0, 2], [0, 0]], "float32"), np.ones((2, 1), "float32")], grad=False,
    known="Paddle 3.3.1 returns inf for a zero on the diagonal; jitgrad raises ValueError (singular)")
# lu: (LU, pivots int32 1-based[, infos int32])
cmp("lu", lambda P, x: P.linalg.lu(x), [_M])
cmp("lu_infos", lambda P, x: P.linalg.lu(x, get_infos=True), [_M])
cmp("lu_random", lambda P, x: P.linalg.lu(x), [A((4, 4))])
cmp("lu_tall", lambda P, x: P.linalg.lu(x, get_infos=True), [A((4, 2))])
cmp("lu_wide", lambda P, x: P.linalg.lu(x, get_infos=True), [A((2, 4))])
cmp("lu_batch", lambda P, x: P.linalg.lu(x, get_infos=True), [A((2, 3, 3))])
cmp("lu_batch2", lambda P, x: P.linalg.lu(x, get_infos=True), [A((2, 2, 3, 2))])
cmp("lu_f64", lambda P, x: P.linalg.lu(x, get_infos=True), [A((3, 3), dtype="float64")], rtol=1e-10, atol=1e-10)
cmp("lu_singular_col", lambda P, x: P.linalg.lu(x, get_infos=True), [np.array([[0.0, 0, 1], [0, 0, 2], [0, 0, 3]], "float32")], grad=False)
cmp("lu_singular_rank1", lambda P, x: P.linalg.lu(x, get_infos=True), [np.array([[1.0, 2], [2, 4]], "float32")], grad=False)
cmp("lu_no_pivot", lambda P, x: P.linalg.lu(x, pivot=False), [_M])
cmp("lu_1d", lambda P, x: P.linalg.lu(x), [A((3,))])
cmp("m.lu", lambda P, x: x.lu(), [_M])
# lu_unpack
_piv = lambda P, *v: P.to_tensor(np.array(v, "int32"))
# (Paddle's P output has stop_gradient=False, jitgrad's True: the gradient cases weight L, U)
cmp("lu_unpack_values", lambda P, x: P.linalg.lu_unpack(x, _piv(P, 3, 3, 3)), [A((3, 3))], grad=False)
cmp("lu_unpack", lambda P, x: P.linalg.lu_unpack(x, _piv(P, 3, 3, 3))[1:], [A((3, 3))])
cmp("lu_unpack_tall", lambda P, x: P.linalg.lu_unpack(x, _piv(P, 3, 4))[1:], [A((4, 2))])
cmp("lu_unpack_wide", lambda P, x: P.linalg.lu_unpack(x, _piv(P, 2, 2))[1:], [A((2, 4))])
cmp("lu_unpack_batch", lambda P, x: P.linalg.lu_unpack(x, P.to_tensor(np.array([[2, 3, 3], [1, 2, 3]], "int32")))[1:], [A((2, 3, 3))])
cmp("lu_unpack_of_lu", lambda P, x: P.linalg.lu_unpack(*P.linalg.lu(x)), [_M], grad=False)
cmp("lu_unpack_of_lu_batch", lambda P, x: P.linalg.lu_unpack(*P.linalg.lu(x)), [A((2, 2, 4))], grad=False)
cmp("lu_unpack_of_lu_grad", lambda P, x: P.linalg.lu_unpack(*P.linalg.lu(x))[1:], [_M])
cmp("lu_unpack_no_ludata", lambda P, x: P.linalg.lu_unpack(*P.linalg.lu(x), unpack_ludata=False), [_M], grad=False)
cmp("lu_unpack_no_pivots", lambda P, x: P.linalg.lu_unpack(*P.linalg.lu(x), unpack_pivots=False), [_M], grad=False)
cmp("lu_unpack_int64_pivots", lambda P, x: P.linalg.lu_unpack(x, _piv(P, 3, 3, 3).astype("int64")), [_M])
cmp("m.lu_unpack", lambda P, x: x.lu_unpack(_piv(P, 3, 3, 3))[1:], [A((3, 3))])
# lu_solve(b, lu, pivots)
cmp("lu_solve", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x)), [_B, _M])
cmp("lu_solve_T", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x), trans="T"), [_B, _M])
cmp("lu_solve_C", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x), trans="C"), [_B, _M], known=KNOWN["lu_solve_T"])
cmp("lu_solve_T_values", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x), trans="T"), [_B, _M], grad=False)
cmp("lu_solve_batch_b", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x)), [A((2, 3, 2)), _wc((3, 3))])
cmp("lu_solve_batch_lu", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x)), [A((3, 2)), _wc((2, 3, 3))])
cmp("lu_solve_1d", lambda P, b, x: P.linalg.lu_solve(b, *P.linalg.lu(x)), [A((3,)), _M])
# matrix_exp
cmp("matrix_exp", lambda P, x: P.linalg.matrix_exp(x), [_M * 0.3], rtol=1e-5)
cmp("matrix_exp_small", lambda P, x: P.linalg.matrix_exp(x), [_M * 0.05], rtol=1e-5)
cmp("matrix_exp_mid", lambda P, x: P.linalg.matrix_exp(x), [_M * 0.15], rtol=1e-5)
cmp("matrix_exp_squared", lambda P, x: P.linalg.matrix_exp(x), [_M * 2], rtol=1e-5)
cmp("matrix_exp_squared_values", lambda P, x: P.linalg.matrix_exp(x), [_M * 2], rtol=1e-5, grad=False)
cmp("matrix_exp_f64", lambda P, x: P.linalg.matrix_exp(x), [(_M * 0.3).astype("float64")], rtol=1e-12, atol=1e-12)
cmp("matrix_exp_f64_degrees", lambda P, x: P.linalg.matrix_exp(x), [np.stack([_M * 0.002, _M * 0.03, _M * 0.1, _M * 0.25]).astype("float64")], rtol=1e-12, atol=1e-12)
cmp("matrix_exp_f64_squared", lambda P, x: P.linalg.matrix_exp(x), [np.stack([_M * 0.1, _M * 3]).astype("float64")], rtol=1e-12, atol=1e-12, grad=False)
cmp("matrix_exp_batch", lambda P, x: P.linalg.matrix_exp(x), [np.stack([_M * 0.01, _M * 0.3])], rtol=1e-5)
cmp("matrix_exp_1x1", lambda P, x: P.linalg.matrix_exp(x), [A((2, 1, 1))])
cmp("matrix_exp_0d", lambda P, x: P.linalg.matrix_exp(x), [np.array(0.5, "float32")])
cmp("matrix_exp_zero", lambda P, x: P.linalg.matrix_exp(x), [np.zeros((2, 2), "float32")], grad=False)
cmp("matrix_exp_nonsquare", lambda P, x: P.linalg.matrix_exp(x), [A((2, 3))])
# matrix_rank (int64, no gradient)
_R = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], "float32")
cmp("matrix_rank", lambda P, x: P.linalg.matrix_rank(x), [_R], grad=False)
cmp("matrix_rank_batch", lambda P, x: P.linalg.matrix_rank(x), [np.stack([_R, np.eye(3, dtype="float32")])], grad=False)
cmp("matrix_rank_tol", lambda P, x: P.linalg.matrix_rank(x, tol=1.0), [_R], grad=False)
cmp("matrix_rank_tol_equal", lambda P, x: P.linalg.matrix_rank(x, tol=1.0), [np.diag([2.0, 1.0]).astype("float32")], grad=False)
cmp("matrix_rank_tol_negative", lambda P, x: P.linalg.matrix_rank(x, tol=-1.0), [_R], grad=False)
cmp("matrix_rank_tol_tensor", lambda P, x, t: P.linalg.matrix_rank(x, tol=t), [_R, np.array([1.0], "float32")], grad=False)
cmp("matrix_rank_tol_tensor_batch", lambda P, x, t: P.linalg.matrix_rank(x, tol=t), [np.stack([_R, _R]), np.array([0.1, 5.0], "float32")], grad=False)
cmp("matrix_rank_hermitian", lambda P, x: P.linalg.matrix_rank(x, hermitian=True), [_R], grad=False)
cmp("matrix_rank_hermitian_lower", lambda P, x: P.linalg.matrix_rank(x, tol=0.5, hermitian=True), [np.array([[1.0, 5], [1, 1]], "float32")], grad=False)
_D = np.diag([1.0, 1e-7]).astype("float32")
cmp("matrix_rank_default_tol", lambda P, x: P.linalg.matrix_rank(x), [np.diag([1.0, 1e-7, 1e-6]).astype("float32")], grad=False)
cmp("matrix_rank_atol", lambda P, x: P.linalg.matrix_rank(x, atol=1e-8), [_D], grad=False)
cmp("matrix_rank_atol0", lambda P, x: P.linalg.matrix_rank(x, atol=0.0), [_D], grad=False)
cmp("matrix_rank_rtol", lambda P, x: P.linalg.matrix_rank(x, rtol=1e-8), [_D], grad=False)
cmp("matrix_rank_atol_rtol", lambda P, x: P.linalg.matrix_rank(x, atol=0.1, rtol=0.2), [_R], grad=False)
cmp("matrix_rank_atol_tensor", lambda P, x, t: P.linalg.matrix_rank(x, atol=t), [_D, np.array([1e-8, 0.5], "float32")], grad=False)
cmp("matrix_rank_rtol_tensor", lambda P, x, t: P.linalg.matrix_rank(x, rtol=t), [np.stack([_R, _R]), np.array([0.01, 0.5], "float32")], grad=False)
cmp("matrix_rank_tol_and_atol", lambda P, x: P.linalg.matrix_rank(x, tol=1.0, atol=0.1), [_R], grad=False)
cmp("matrix_rank_rect", lambda P, x: P.linalg.matrix_rank(x), [np.ones((2, 4), "float32")], grad=False)
cmp("matrix_rank_zero", lambda P, x: P.linalg.matrix_rank(x), [np.zeros((2, 2), "float32")], grad=False)
cmp("matrix_rank_f64", lambda P, x: P.linalg.matrix_rank(x), [np.diag([1.0, 1e-15, 1e-14])], grad=False)
cmp("matrix_rank_1d", lambda P, x: P.linalg.matrix_rank(x), [A((3,))], grad=False)
# cond
for _p in [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]:
    cmp(f"cond_{_p}", lambda P, x, p=_p: P.linalg.cond(x, p), [_M], rtol=1e-5)
cmp("cond_batch", lambda P, x: P.linalg.cond(x), [_wc((2, 3, 3))], rtol=1e-5)
cmp("cond_batch_fro", lambda P, x: P.linalg.cond(x, "fro"), [_wc((2, 3, 3))], rtol=1e-5)
cmp("cond_rect", lambda P, x: P.linalg.cond(x), [A((2, 3))], rtol=1e-5)
cmp("cond_rect_fro", lambda P, x: P.linalg.cond(x, "fro"), [A((2, 3))])
cmp("cond_bad_p", lambda P, x: P.linalg.cond(x, 3), [_M])
cmp("cond_singular_1", lambda P, x: P.linalg.cond(x, 1), [np.ones((2, 2), "float32")])
cmp("cond_f64", lambda P, x: P.linalg.cond(x, "nuc"), [_M.astype("float64")], rtol=1e-10, atol=1e-10)
cmp("m.cond", lambda P, x: x.cond(), [_M], rtol=1e-5)
# cov / corrcoef (numpy.cov's weights)
_X = np.array([[1.0, 2, 4, 7], [0.5, -1, 3, 2], [2, 2, 1, 0]], "float32")
_fw = np.array([1, 2, 1, 3])
_aw = np.array([0.5, 1, 2, 1], "float32")
cmp("cov", lambda P, x: P.linalg.cov(x), [_X])
cmp("cov_cols", lambda P, x: P.linalg.cov(x, rowvar=False), [_X])
cmp("cov_ddof0", lambda P, x: P.linalg.cov(x, ddof=False), [_X])
cmp("cov_fweights", lambda P, x, f: P.linalg.cov(x, fweights=f), [_X, _fw])
cmp("cov_aweights", lambda P, x, a: P.linalg.cov(x, aweights=a), [_X, _aw])
cmp("cov_both", lambda P, x, f, a: P.linalg.cov(x, fweights=f, aweights=a), [_X, _fw, _aw])
cmp("cov_both_ddof0", lambda P, x, f, a: P.linalg.cov(x, ddof=False, fweights=f, aweights=a), [_X, _fw, _aw])
cmp("cov_float_fweights", lambda P, x, f: P.linalg.cov(x, fweights=f), [_X, _fw.astype("float32")])
cmp("cov_1d", lambda P, x: P.linalg.cov(x), [A((5,))])
cmp("cov_1xN", lambda P, x: P.linalg.cov(x), [A((1, 5))])
cmp("cov_1xN_cols", lambda P, x: P.linalg.cov(x, rowvar=False), [A((1, 5))])
cmp("cov_Nx1", lambda P, x: P.linalg.cov(x), [A((3, 1))], grad=False)
cmp("cov_f64", lambda P, x: P.linalg.cov(x), [_X.astype("float64")], rtol=1e-12, atol=1e-12)
cmp("cov_negative_fweights", lambda P, x, f: P.linalg.cov(x, fweights=f), [_X, np.array([-1, 2, 1, 3])])
cmp("cov_fraction_fweights", lambda P, x, f: P.linalg.cov(x, fweights=f), [_X, np.array([1.5, 2, 1, 3], "float32")])
cmp("cov_negative_aweights", lambda P, x, a: P.linalg.cov(x, aweights=a), [_X, -_aw])
cmp("cov_short_weights", lambda P, x, f: P.linalg.cov(x, fweights=f), [_X, _fw[:3]])
cmp("cov_3d", lambda P, x: P.linalg.cov(x), [A((2, 2, 2))])
cmp("m.cov", lambda P, x: x.cov(), [_X])
cmp("corrcoef", lambda P, x: P.linalg.corrcoef(x), [_X])
cmp("corrcoef_cols", lambda P, x: P.linalg.corrcoef(x, rowvar=False), [A((5, 3))])
cmp("corrcoef_1d", lambda P, x: P.linalg.corrcoef(x), [A((4,))])
cmp("corrcoef_f64", lambda P, x: P.linalg.corrcoef(x), [_X.astype("float64")], rtol=1e-12, atol=1e-12)
cmp("m.corrcoef", lambda P, x: x.corrcoef(), [_X])
# householder_product (Paddle's backward fails: values only, and one case for the gradient)
_hx = A((4, 3))
_ht = A((2,), 0.0, 1.5)
cmp("householder_product", lambda P, x, t: P.linalg.householder_product(x.clone(), t), [_hx, _ht], grad=False)
cmp("householder_product_full_k", lambda P, x, t: P.linalg.householder_product(x.clone(), t), [A((3, 3)), A((3,), 0.0, 1.5)], grad=False)
cmp("householder_product_batch", lambda P, x, t: P.linalg.householder_product(x.clone(), t), [A((2, 4, 2)), A((2, 2), 0.0, 1.5)], grad=False)
cmp("householder_product_f64", lambda P, x, t: P.linalg.householder_product(x.clone(), t), [_hx.astype("float64"), _ht.astype("float64")], grad=False, rtol=1e-12, atol=1e-12)
cmp("householder_product_grad", lambda P, x, t: P.linalg.householder_product(x, t), [_hx, _ht])
cmp("householder_product_wide", lambda P, x, t: P.linalg.householder_product(x, t), [A((2, 3)), A((2,))], grad=False,
    known="Paddle 3.3.1 asserts (AssertionError); jitgrad raises ValueError")
cmp("m.householder_product", lambda P, x, t: x.clone().householder_product(t), [_hx, _ht], grad=False)
# the paddle.linalg bindings of existing functions
cmp("linalg.cross", lambda P, a, b: P.linalg.cross(a, b), [A((2, 3)), A((2, 3))])
cmp("linalg.diagonal", lambda P, x: P.linalg.diagonal(x), [A((2, 3, 4))])
cmp("linalg.diagonal_axes", lambda P, x: P.linalg.diagonal(x, offset=1, axis1=1, axis2=2), [A((2, 3, 4))])
cmp("linalg.matrix_transpose", lambda P, x: P.linalg.matrix_transpose(x), [A((2, 3, 4))])
cmp("linalg.vecdot", lambda P, a, b: P.linalg.vecdot(a, b), [A((2, 3)), A((2, 3))])
