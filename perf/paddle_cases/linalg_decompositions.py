# paddle.linalg decompositions and solvers. Eigenvectors and singular vectors are compared
# through quantities that do not depend on their signs (LAPACK's signs differ between
# Paddle's and numpy's builds for about one float32 matrix in ten): V diag(w) V^T,
# projectors, |V|, U diag(S) VH. Inputs come from this file's own generator, so adding it
# leaves the other case files' draws alone.
rng = np.random.default_rng(15)
BATCHED = ("the gradient of a batch of eigh/eigvalsh is each matrix's own (Paddle 3.3.1 mixes "
           "up the matrices of a batch: its batched gradient differs from its per-matrix one)")


def R(*shape, lo=-1.0, hi=1.0, dtype="float32"):
    return rng.uniform(lo, hi, shape).astype(dtype)


def sym(*shape, dtype="float32"):
    a = R(*shape, dtype="float64")
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dtype)


def wellcond(*shape, dtype="float32"):
    m, n = shape[-2:]
    return (R(*shape, dtype="float64") + 2 * np.eye(m, n)).astype(dtype)


def rebuild(P, w, v):
    return P.matmul(v * P.unsqueeze(w, -2), v, transpose_y=True)


def proj(P, v, i):
    c = v[..., :, i:i + 1]
    return P.matmul(c, c, transpose_y=True)


for dt in ("float32", "float64"):
    s3, s23 = sym(3, 3, dtype=dt), sym(2, 3, 3, dtype=dt)
    cmp(f"eigh_w_{dt}", lambda P, x: P.linalg.eigh(x)[0], [s3])
    cmp(f"eigh_rebuild_{dt}", lambda P, x: rebuild(P, *P.linalg.eigh(x)), [s3])
    cmp(f"eigh_proj_{dt}", lambda P, x: [proj(P, P.linalg.eigh(x)[1], i) for i in range(3)], [s3])
    cmp(f"eigh_absV_{dt}", lambda P, x: P.abs(P.linalg.eigh(x)[1]), [s3])
    cmp(f"eigh_batch_{dt}", lambda P, x: (P.linalg.eigh(x)[0], proj(P, P.linalg.eigh(x)[1], 0)), [s23], known=BATCHED)
    cmp(f"eigvalsh_{dt}", lambda P, x: P.linalg.eigvalsh(x), [s23], known=BATCHED)
    cmp(f"eigvalsh_one_{dt}", lambda P, x: P.linalg.eigvalsh(x), [s3])
    for shape in ((4, 3), (3, 4), (2, 3, 3)):
        x = R(*shape, dtype=dt)
        tag = "x".join(map(str, shape))
        cmp(f"svd_S_{tag}_{dt}", lambda P, x: P.linalg.svd(x)[1], [x])
        cmp(f"svd_rebuild_{tag}_{dt}", lambda P, x: (lambda u, s, vh: P.matmul(u * P.unsqueeze(s, -2), vh))(*P.linalg.svd(x)), [x], rtol=1e-4, atol=1e-5)
        cmp(f"svd_UVh_{tag}_{dt}", lambda P, x: (lambda u, s, vh: P.matmul(u, vh))(*P.linalg.svd(x)), [x], rtol=1e-4, atol=1e-5)
        cmp(f"svd_abs_{tag}_{dt}", lambda P, x: [P.abs(t) for t in P.linalg.svd(x)], [x], rtol=1e-4, atol=1e-5)
        cmp(f"svdvals_{tag}_{dt}", lambda P, x: P.linalg.svdvals(x), [x])
        cmp(f"qr_{tag}_{dt}", lambda P, x: P.linalg.qr(x), [x], rtol=1e-4, atol=1e-5)
        cmp(f"qr_complete_{tag}_{dt}", lambda P, x: P.linalg.qr(x, mode="complete"), [x], grad=False, rtol=1e-4, atol=1e-5)
        cmp(f"qr_r_{tag}_{dt}", lambda P, x: P.linalg.qr(x, mode="r"), [x], grad=False, rtol=1e-4, atol=1e-5)
        cmp(f"pinv_{tag}_{dt}", lambda P, x: P.linalg.pinv(x), [wellcond(*shape, dtype=dt)], rtol=1e-4, atol=1e-5)
    cmp(f"svd_full_shapes_{dt}", lambda P, x: [t.shape for t in P.linalg.svd(x, full_matrices=True)], [R(4, 2, dtype=dt)], grad=False)
    cmp(f"svd_full_S_{dt}", lambda P, x: P.linalg.svd(x, full_matrices=True)[1], [R(2, 4, dtype=dt)])
    cmp(f"pinv_hermitian_{dt}", lambda P, x: P.linalg.pinv(x, hermitian=True), [sym(3, 3, dtype=dt) + 2 * np.eye(3, dtype=dt)], rtol=1e-4, atol=1e-5)
    cmp(f"pinv_hermitian_lower_{dt}", lambda P, x: P.linalg.pinv(x, hermitian=True), [np.tril(sym(3, 3, dtype=dt)) + 2 * np.eye(3, dtype=dt)], grad=False, rtol=1e-4, atol=1e-5)
    cmp(f"pinv_rank1_{dt}", lambda P, x: P.linalg.pinv(x), [np.outer([1, 2, 3], [1, -1]).astype(dt)], rtol=1e-4, atol=1e-5,
        known="pinv's float32 gradient at a rank-deficient matrix is finite, as in float64 (Paddle 3.3.1: NaN)" if dt == "float32" else None)
    cmp(f"pinv_rcond_{dt}", lambda P, x: P.linalg.pinv(x, rcond=0.3), [np.diag([2.0, 1.0, 0.5]).astype(dt)], rtol=1e-4, atol=1e-5)
    cmp(f"det_{dt}", lambda P, x: P.linalg.det(x), [wellcond(2, 3, 3, dtype=dt)], rtol=1e-4)
    cmp(f"slogdet_{dt}", lambda P, x: P.linalg.slogdet(x), [wellcond(2, 3, 3, dtype=dt) - 2.5 * np.eye(3, dtype=dt)], rtol=1e-4)
    cmp(f"solve_{dt}", lambda P, a, b: P.linalg.solve(a, b), [wellcond(2, 3, 3, dtype=dt), R(2, 3, 2, dtype=dt)], rtol=1e-4)
    cmp(f"solve_vec_{dt}", lambda P, a, b: P.linalg.solve(a, b), [wellcond(2, 3, 3, dtype=dt), R(2, 3, dtype=dt)], rtol=1e-4)
    cmp(f"solve_right_{dt}", lambda P, a, b: P.linalg.solve(a, b, left=False), [wellcond(3, 3, dtype=dt), R(2, 3, dtype=dt)], rtol=1e-4)
    cmp(f"solve_bcast_{dt}", lambda P, a, b: P.linalg.solve(a, b), [wellcond(2, 1, 3, 3, dtype=dt), R(4, 3, 2, dtype=dt)], rtol=1e-4)
    for n in (0, 1, 2, 3, 5, -1, -3):
        cmp(f"matrix_power_{n}_{dt}", lambda P, x, n=n: P.linalg.matrix_power(x, n), [wellcond(2, 3, 3, dtype=dt) / 2], rtol=1e-4, atol=1e-5)
    for drv in (None, "gels", "gelsy", "gelsd", "gelss"):
        for shape in ((5, 3), (3, 5), (3, 3), (2, 5, 3)):
            x, y = R(*shape, dtype=dt), R(*(shape[:-1] + (2,)), dtype=dt)
            tag = "x".join(map(str, shape))
            cmp(f"lstsq_{drv}_{tag}_{dt}", lambda P, x, y, d=drv: P.linalg.lstsq(x, y, driver=d), [x, y], grad=False, rtol=1e-4, atol=1e-5)
    cmp(f"lstsq_grad_{dt}", lambda P, x, y: P.linalg.lstsq(x, y)[0], [R(5, 3, dtype=dt), R(5, 2, dtype=dt)], known="lstsq is differentiable (Paddle 3.3.1 records no gradient)")
    rank1 = np.outer([1, 2, 3, 4, 5], [1, -1, 2]).astype(dt)
    for drv in (None, "gelsd"):
        cmp(f"lstsq_rank1_{drv}_{dt}", lambda P, x, y, d=drv: P.linalg.lstsq(x, y, driver=d), [rank1, R(5, 2, dtype=dt)], grad=False, rtol=1e-4, atol=1e-5)
    cmp(f"lstsq_rcond_{dt}", lambda P, x, y: P.linalg.lstsq(x, y, rcond=0.5, driver="gelsd"), [np.diag([2.0, 1.5, 0.5]).astype(dt), R(3, 2, dtype=dt)], grad=False, rtol=1e-4, atol=1e-5)

# edge cases
cmp("eigh_upper", lambda P, x: P.linalg.eigh(x, UPLO="U")[0], [R(3, 3)], grad=False)
cmp("eigh_lower_tri", lambda P, x: rebuild(P, *P.linalg.eigh(x)), [np.tril(R(3, 3))], grad=False)
cmp("eigvalsh_upper", lambda P, x: P.linalg.eigvalsh(x, UPLO="U"), [R(3, 3)], grad=False)
cmp("eigvalsh_top", lambda P, x: P.eigvalsh(x), [sym(3, 3)])
cmp("eigvalsh_repeated", lambda P, x: P.linalg.eigvalsh(x), [np.eye(3, dtype="float32")])
cmp("eigh_repeated_w", lambda P, x: P.linalg.eigh(x)[0].sum(), [np.eye(3, dtype="float32")], known="the gradient of eigh's sum(w) at a repeated eigenvalue is exact (Paddle 3.3.1: NaN)")
cmp("svd_repeated_S", lambda P, x: P.linalg.svd(x)[1].sum(), [np.eye(3, dtype="float32")])
cmp("eigh_bad_uplo", lambda P, x: P.linalg.eigh(x, UPLO="X"), [sym(2, 2)])
cmp("eigh_nonsquare", lambda P, x: P.linalg.eigh(x), [R(2, 3)])
cmp("eigh_0x0", lambda P, x: P.linalg.eigh(x), [np.zeros((0, 0), "float32")], grad=False)
cmp("svd_1d", lambda P, x: P.linalg.svd(x), [R(3)])
cmp("svd_rank_deficient", lambda P, x: (lambda u, s, vh: P.matmul(u * P.unsqueeze(s, -2), vh))(*P.linalg.svd(x)), [np.outer([1, 2, 3], [1, -1, 2]).astype("float32") + np.outer([0, 1, 0], [1, 1, 0]).astype("float32")], rtol=1e-4, atol=1e-5)
cmp("qr_bad_mode", lambda P, x: P.linalg.qr(x, mode="x"), [R(3, 2)])
cmp("qr_r_grad", lambda P, x: P.linalg.qr(x, mode="r"), [R(3, 2)], known="qr(mode='r') is differentiable (Paddle 3.3.1 raises in the backward)")
cmp("qr_complete_grad", lambda P, x: P.linalg.qr(x, mode="complete"), [R(3, 2)], known="qr(mode='complete') of a tall matrix is differentiable, the completing columns carrying no gradient (Paddle 3.3.1 raises in the backward)")
cmp("det_singular", lambda P, x: P.linalg.det(x), [np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], "float64")], known="det's gradient at a singular matrix is the cofactor matrix (Paddle 3.3.1 gives zeros, wrong at rank n - 1)")
cmp("det_rank1", lambda P, x: P.linalg.det(x), [np.outer([1, 2, 3], [1, 0, 2]).astype("float64")])
cmp("det_0x0", lambda P, x: P.linalg.det(x), [np.zeros((0, 0), "float32")], grad=False)
cmp("det_nonsquare", lambda P, x: P.linalg.det(x), [R(2, 3)])
cmp("slogdet_singular", lambda P, x: P.linalg.slogdet(x), [np.array([[1, 2], [2, 4]], "float64")])
cmp("solve_singular", lambda P, a, b: P.linalg.solve(a, b), [np.array([[1, 2], [2, 4]], "float32"), R(2)])
cmp("solve_right_vec", lambda P, a, b: P.linalg.solve(a, b, left=False), [wellcond(3, 3), R(3)])
cmp("matrix_power_nonsquare", lambda P, x: P.linalg.matrix_power(x, 2), [R(2, 3)])
cmp("matrix_power_singular_neg", lambda P, x: P.linalg.matrix_power(x, -1), [np.ones((2, 2), "float32")])
cmp("matrix_power_float_n", lambda P, x: P.linalg.matrix_power(x, 2.0), [R(2, 2)])
cmp("m.matrix_power", lambda P, x: x.matrix_power(3), [R(3, 3)])
cmp("m.qr", lambda P, x: x.qr(), [R(3, 2)])
cmp("m.pinv", lambda P, x: x.pinv(), [wellcond(3, 2)], rtol=1e-4, atol=1e-5)
cmp("m.eigvalsh", lambda P, x: x.eigvalsh(), [sym(3, 3)])
cmp("m.lstsq", lambda P, x, y: x.lstsq(y), [R(5, 3), R(5, 2)], grad=False)
cmp("lstsq_gels_rank_deficient", lambda P, x, y: P.linalg.lstsq(x, y, driver="gels"), [np.outer([1, 2, 3, 4, 5], [1, -1, 2]).astype("float64"), R(5, 2, dtype="float64")], grad=False)
cmp("lstsq_bad_driver", lambda P, x, y: P.linalg.lstsq(x, y, driver="foo"), [R(5, 3), R(5, 2)], grad=False)
cmp("lstsq_vector_y", lambda P, x, y: P.linalg.lstsq(x, y), [R(5, 3), R(5)], grad=False)
cmp("lstsq_dtypes", lambda P, x, y: P.linalg.lstsq(x, y), [R(5, 3), R(5, 2, dtype="float64")], grad=False)
