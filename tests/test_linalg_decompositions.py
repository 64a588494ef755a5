"""paddle.linalg.eigh, eigvalsh, svd, svdvals and qr: values and output structure as Paddle
3.3.1's (measured on it; its factors' signs are LAPACK's, as numpy's), and gradients against
finite differences on losses that do not depend on the signs of eigen- and singular vectors.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor
L = paddle.linalg


def _sym_rand(*shape, seed=0):
    a = np.random.default_rng(seed).uniform(-1, 1, shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def _rebuild(w, v, f=lambda w: w):
    """V diag(f(w)) V^T: does not depend on the eigenvectors' signs."""
    return paddle.matmul(v * paddle.unsqueeze(f(w), -2), v, transpose_y=True)


# ---- eigh, eigvalsh --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_gives_ascending_eigenvalues_and_eigenvector_columns(dtype):
    a = _sym_rand(2, 4, 4).astype(dtype)
    w, v = L.eigh(TT(a))
    assert (w.shape, v.shape) == ([2, 4], [2, 4, 4])
    assert w.dtype == v.dtype == TT(a).dtype
    wn, vn = np.linalg.eigh(a)
    np.testing.assert_allclose(w.numpy(), wn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(vn), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(L.eigvalsh(TT(a)).numpy(), wn, rtol=1e-5, atol=1e-6)


def test_eigh_reads_only_the_uplo_triangle():
    """Measured on Paddle 3.3.1: eigh(x, 'L'/'U') of a non-symmetric x are numpy's."""
    a = np.random.default_rng(0).normal(size=(3, 3))
    for uplo in "LU":
        np.testing.assert_allclose(L.eigh(TT(a), uplo)[0].numpy(),
                                   np.linalg.eigh(a, uplo)[0], rtol=1e-12)
        np.testing.assert_allclose(L.eigvalsh(TT(a), UPLO=uplo).numpy(),
                                   np.linalg.eigvalsh(a, uplo), rtol=1e-12)
    low = np.tril(a)
    w, v = L.eigh(TT(low))
    np.testing.assert_allclose(_rebuild(w, v).numpy(), low + np.tril(low, -1).T, atol=1e-12)


def test_eigh_gradient_is_the_symmetric_one_paddle_gives():
    """Paddle 3.3.1, x = default_rng(0).normal((3, 3)) (not symmetric), loss w @ [1, 2, 3]:
    the gradient is V diag([1, 2, 3]) V^T of the 'L' matrix, symmetric."""
    x = TT(np.random.default_rng(0).normal(size=(3, 3)), stop_gradient=False)
    (L.eigh(x)[0] * TT([1.0, 2.0, 3.0], dtype="float64")).sum().backward()
    paddle_grad = [[2.296047, 0.044744, 0.775766], [0.044744, 1.914836, 0.571403],
                   [0.775766, 0.571403, 1.789118]]
    np.testing.assert_allclose(x.grad.numpy(), paddle_grad, atol=2e-6)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gradients_match_finite_differences(shape, uplo):
    a = np.random.default_rng(3).uniform(-1, 1, shape)

    def f(x):
        w, v = L.eigh(x + paddle.matrix_transpose(x), uplo)
        first = v[..., :, :1]
        return paddle.concat([w.flatten(), _rebuild(w, v, paddle.tanh).flatten(),
                              paddle.matmul(first, first, transpose_y=True).flatten()])

    check_grads(f, a, order=2, rtol=1e-4)


def test_eigvalsh_gradient_matches_finite_differences():
    check_grads(lambda x: L.eigvalsh(x + paddle.matrix_transpose(x)) ** 2,
                np.random.default_rng(4).uniform(-1, 1, (2, 3, 3)), order=2, rtol=1e-4)


def test_eigenvalue_gradients_are_exact_at_a_repeated_eigenvalue():
    """Paddle 3.3.1 at x = I: eigvalsh's gradient of sum(w) is I, eigh's is NaN."""
    for fn in (L.eigvalsh, lambda x: L.eigh(x)[0]):
        x = TT(np.eye(3), stop_gradient=False)
        fn(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.eye(3), atol=1e-15)
    # a function of the whole repeated eigenspace (its projector) is differentiable there
    c = TT(np.random.default_rng(5).normal(size=(3, 3)))

    def projector(x):
        v = L.eigh(x + x.T)[1][:, :2]
        return (paddle.matmul(v, v, transpose_y=True) * c).sum()

    check_grads(projector, np.diag([0.5, 0.5, 1.5]))


def test_eigenvector_gradient_grows_like_one_over_the_gap():
    grads = []
    for gap in (1e-2, 1e-4):
        x = TT(np.diag([1.0, 1.0 + gap, 3.0]), stop_gradient=False)
        v = L.eigh(x)[1]
        (v[0, 0] * v[1, 0]).backward()           # couples the two close eigenvectors
        grads.append(np.abs(x.grad.numpy()).max())
    assert grads[1] / grads[0] == pytest.approx(100, rel=1e-6)


def test_batched_eigh_gradient_is_each_matrix_gradient():
    """Paddle 3.3.1's batched eigh/eigvalsh gradients mix up the matrices of the batch."""
    a = _sym_rand(3, 3, 3, seed=6)
    wts = np.random.default_rng(7).uniform(0.5, 1.5, (3, 3))
    x = TT(a, stop_gradient=False)
    (L.eigvalsh(x) * TT(wts)).sum().backward()
    for i in range(3):
        w, v = np.linalg.eigh(a[i])
        np.testing.assert_allclose(x.grad.numpy()[i], (v * wts[i]) @ v.T, atol=1e-14)


def test_eigh_rejects_what_paddle_rejects():
    with pytest.raises(ValueError, match="UPLO"):
        L.eigh(TT(np.eye(2)), "X")
    with pytest.raises(ValueError, match="square"):
        L.eigh(TT(np.zeros((2, 3))))
    with pytest.raises(TypeError, match="float"):
        L.eigvalsh(TT(np.eye(2, dtype="int64")))
    assert [t.shape for t in L.eigh(TT(np.zeros((0, 0))))] == [[0], [0, 0]]


# ---- svd, svdvals ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 5, 4)])
def test_svd_is_thin_with_descending_singular_values(shape):
    a = np.random.default_rng(8).normal(size=shape)
    u, s, vh = L.svd(TT(a))
    k = min(shape[-2:])
    assert (u.shape, s.shape, vh.shape) == (list(shape[:-1]) + [k], list(shape[:-2]) + [k],
                                            list(shape[:-2]) + [k, shape[-1]])
    un, sn, vhn = np.linalg.svd(a, full_matrices=False)
    for got, want in ((u, un), (s, sn), (vh, vhn)):           # numpy's signs, as Paddle's
        np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    np.testing.assert_allclose(L.svdvals(TT(a)).numpy(), sn, atol=1e-12)


def test_svd_full_matrices_completes_the_basis_without_gradient():
    """Paddle 3.3.1: U [4, 4] for x [4, 3]; a loss on U's last column adds no gradient."""
    a = np.random.default_rng(0).normal(size=(4, 3))
    grads = []
    for full in (False, True):
        x = TT(a, stop_gradient=False)
        u, s, vh = L.svd(x, full_matrices=full)
        assert u.shape == ([4, 4] if full else [4, 3])
        np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(u.shape[1]), atol=1e-14)
        u.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-14)
    assert [t.shape for t in L.svd(TT(a.T), full_matrices=True)] == [[3, 3], [3], [4, 4]]


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 2, 3)])
def test_svd_gradients_match_finite_differences(shape):
    a = np.random.default_rng(9).uniform(-1, 1, shape)

    def f(x):
        u, s, vh = L.svd(x)
        return paddle.concat([s.flatten(), paddle.matmul(u, vh).flatten(),
                              paddle.abs(u).flatten(), paddle.abs(vh).flatten()])

    check_grads(f, a, order=2, rtol=1e-4)
    check_grads(lambda x: L.svdvals(x) ** 3, a, order=2, rtol=1e-4)


def test_svd_of_a_rank_deficient_square_matrix_rebuilds_with_gradient_ones():
    """Paddle 3.3.1: the gradient of sum(U diag(S) VH) is ones at a rank-2 3 x 3 matrix."""
    b = np.random.default_rng(0).normal(size=(3, 2))
    x = TT(b @ b.T, stop_gradient=False)
    u, s, vh = L.svd(x)
    paddle.matmul(u * paddle.unsqueeze(s, 0), vh).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 3)), atol=1e-12)


def test_singular_value_gradient_is_exact_at_repeated_values():
    """Paddle 3.3.1 at x = I: sum(S)'s gradient is I (U's is NaN)."""
    x = TT(np.eye(3), stop_gradient=False)
    L.svdvals(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3), atol=1e-15)


# ---- qr ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 3)])
def test_qr_modes_give_numpys_factors(shape):
    """Measured on Paddle 3.3.1: Q and R equal numpy's in every mode (R's diagonal keeps
    LAPACK's signs), mode 'r' returns R alone."""
    a = np.random.default_rng(10).normal(size=shape)
    for mode in ("reduced", "complete"):
        q, r = L.qr(TT(a), mode=mode)
        qn, rn = np.linalg.qr(a, mode=mode)
        np.testing.assert_allclose(q.numpy(), qn, atol=1e-12)
        np.testing.assert_allclose(r.numpy(), rn, atol=1e-12)
    np.testing.assert_allclose(L.qr(TT(a), mode="r").numpy(), np.linalg.qr(a, mode="r"),
                               atol=1e-12)


def test_qr_gradient_is_paddles():
    """Paddle 3.3.1, x = default_rng(0).normal((4, 3)), loss sum(Q) + sum(R): first row."""
    x = TT(np.random.default_rng(0).normal(size=(4, 3)), stop_gradient=False)
    q, r = L.qr(x)
    (q.sum() + r.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy()[0], [-3.28559, 4.91997, 2.06442], atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_gradients_match_finite_differences(shape, mode):
    """Every mode is differentiable (Paddle 3.3.1 raises for 'r', and for 'complete' when
    m > n): a complete Q's completing columns are held constant."""
    a = np.random.default_rng(11).uniform(-1, 1, shape) + np.eye(*shape[-2:])

    def f(x):
        out = L.qr(x, mode=mode)
        if mode == "r":
            return out
        q, r = out
        return paddle.concat([q[..., :, :min(shape[-2:])].flatten(), r.flatten()])

    check_grads(f, a, order=2, rtol=1e-4)


def test_qr_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        L.qr(TT(np.eye(2)), mode="x")
    with pytest.raises(ValueError, match="matrices"):
        L.qr(TT(np.ones(3)))


def _spd_batch(dtype, asym=0.0):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 6, 6))
    a = x @ x.transpose(0, 2, 1) + 6 * np.eye(6)
    a[:, 0, 1] += asym                  # (only the symmetric part is read)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-7), ("float64", 1e-15)])
def test_small_cholesky_is_one_compiled_pass_as_accurate_as_lapack(dtype, tol):
    """Small matrices take vm/forward_linalg.py's cholesky_factor (float64 inside): the
    factor matches float64 LAPACK's to the dtype's precision; nothing else is saved (the
    backward solves with the factor)."""
    from jitgrad.ops.matrix import _small_cholesky
    paddle.warmup(quiet=True)
    a = _spd_batch(dtype, asym=0.25)
    x = paddle.to_tensor(a, stop_gradient=False)
    L = paddle.linalg.cholesky(x)
    assert _small_cholesky(a) is not None
    want = np.linalg.cholesky(a.astype(np.float64))     # (the lower triangle, as LAPACK)
    assert L.dtype == x.dtype and np.abs(L.numpy() - want).max() <= tol * np.abs(want).max()
    assert L._node.saved == ()
    assert not np.triu(L.numpy(), 1).any()


@pytest.mark.parametrize("bad", [-np.eye(3), np.full((3, 3), np.nan),
                                 np.array([[1.0, 2.0], [2.0, 1.0]])])
def test_small_cholesky_refuses_a_matrix_that_is_not_positive_definite(bad):
    paddle.warmup(quiet=True)
    x = paddle.to_tensor(bad.astype("float32"), stop_gradient=False)
    with pytest.raises(ValueError, match="not positive definite"):
        paddle.linalg.cholesky(x)


def test_small_cholesky_gradient_matches_finite_differences():
    paddle.warmup(quiet=True)
    c = np.random.default_rng(4).standard_normal((5, 6, 6))
    # the gradient is the symmetric one: the true derivative of cholesky of (a + a^T) / 2
    check_grads(lambda a: (paddle.linalg.cholesky((a + a.mT) * 0.5) *
                           paddle.to_tensor(c)).sum(), _spd_batch("float64"))


def test_cholesky_reads_one_triangle_as_paddle():
    # Paddle 3.3.1 (LAPACK): the lower triangle, the upper one when upper=True
    a = paddle.to_tensor([[4.0, 1.5], [0.5, 3.0]], dtype="float64")
    np.testing.assert_allclose(paddle.linalg.cholesky(a).numpy(),
                               [[2.0, 0.0], [0.25, np.sqrt(3 - 0.0625)]], rtol=1e-15)
    np.testing.assert_allclose(paddle.linalg.cholesky(a, upper=True).numpy(),
                               [[2.0, 0.75], [0.0, np.sqrt(3 - 0.5625)]], rtol=1e-15)
    b = np.array([[4.0, 100.0], [1.0, 3.0]])            # its upper triangle is not read
    np.testing.assert_allclose(paddle.linalg.cholesky(paddle.to_tensor(b)).numpy(),
                               np.linalg.cholesky(b), rtol=1e-15)


def test_cholesky_gradient_is_symmetric_on_a_matrix_that_is_not():
    # Paddle 3.3.1's gradient for [[4, 1.5], [0.5, 3]] and weights [[1, 2], [3, 4]]
    a = paddle.to_tensor([[4.0, 1.5], [0.5, 3.0]], dtype="float64", stop_gradient=False)
    w = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    (paddle.linalg.cholesky(a) * w).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[0.17448312, 0.60413501],
                                                [0.60413501, 1.16691993]], rtol=1e-7)


@pytest.mark.parametrize("which", ["eigh_w", "svd_s"])
def test_a_loss_on_the_values_alone_takes_the_one_product_rule_on_every_path(which):
    """With no loss on the vectors, the interpreted rules of eigh and svd skip the vector
    terms (zero): the same gradient as the full rule, finite differences on every path,
    and for a float32 batch the compiled Program's values (which run the full rule)."""
    rng = np.random.default_rng(11)
    if which == "eigh_w":
        a = rng.standard_normal((3, 5, 5))
        fn = lambda x: paddle.linalg.eigh((x + x.mT) * 0.5)[0]          # noqa: E731
    else:
        a = rng.standard_normal((3, 6, 4))
        fn = lambda x: paddle.linalg.svd(x)[1]                          # noqa: E731
    check_grads(fn, a)
    c = rng.standard_normal(fn(paddle.to_tensor(a)).shape).astype("float32")
    grads = []
    for interpret in (True, False):
        paddle.cache_clear()
        x = paddle.to_tensor(a.astype("float32"), stop_gradient=False)
        for _ in range(1 if interpret else 3):      # a new structure, then its Program
            x.clear_grad()
            (fn(x) * paddle.to_tensor(c)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)
