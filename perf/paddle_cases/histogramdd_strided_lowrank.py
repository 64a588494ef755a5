# paddle.histogramdd (ops/more_math.py), paddle.as_strided (ops/more_indexing.py),
# paddle.linalg.ormqr, svd_lowrank and pca_lowrank (ops/more_linalg.py) against Paddle 3.3.1.
import numpy as np

KNOWN = {}

# histogramdd: (hist, edges), no gradient (grad=True checks that neither side gives one)
_pts = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], "float32")
_w = np.array([1.0, 2.0, 4.0, 8.0], "float32")
_odd = np.array([[-5.0, 0.5], [0.5, 5], [1.0, 1.0], [0.0, 0.0], [np.nan, 0.5], [np.inf, 0.5]], "float32")
cmp("histogramdd", lambda P, x: P.histogramdd(x), [A((40, 2))])
cmp("histogramdd_bins_list", lambda P, x, w: P.histogramdd(x, bins=[3, 3], weights=w), [_pts, _w])
cmp("histogramdd_bins_int", lambda P, x: P.histogramdd(x, bins=2), [_pts])
cmp("histogramdd_3d_points", lambda P, x: P.histogramdd(x, bins=[2, 3, 4]), [A((50, 3))])
cmp("histogramdd_batched_points", lambda P, x, w: P.histogramdd(x, bins=3, weights=w), [A((4, 5, 2)), A((4, 5), 0.1, 2.0)])
cmp("histogramdd_ranges", lambda P, x: P.histogramdd(x, bins=2, ranges=[0.5, 1.5, -1, 3]), [_pts])
cmp("histogramdd_ranges_tuple", lambda P, x: P.histogramdd(x, bins=[4, 2], ranges=(-1.0, 1.0, -0.5, 0.5)), [A((30, 2))])
cmp("histogramdd_outside_nan_inf", lambda P, x: P.histogramdd(x, bins=2, ranges=[0, 1, 0, 1]), [_odd])
cmp("histogramdd_density", lambda P, x: P.histogramdd(x, bins=[3, 2], density=True), [_pts])
cmp("histogramdd_density_weights", lambda P, x, w: P.histogramdd(x, bins=[3, 4], density=True, weights=w), [A((30, 2)), A((30,), 0.1, 2.0)], rtol=1e-5)
cmp("histogramdd_density_empty_bins", lambda P, x: P.histogramdd(x, bins=2, ranges=[5, 6, 5, 6], density=True), [_pts])
cmp("histogramdd_f64", lambda P, x, w: P.histogramdd(x, bins=[3, 2], weights=w, density=True), [A((20, 2), dtype="float64"), A((20,), 0.1, 2.0, dtype="float64")], rtol=1e-12, atol=1e-12)
cmp("histogramdd_int", lambda P, x: P.histogramdd(x, bins=3), [A((20, 2), 0, 9, dtype="int64")])
cmp("histogramdd_int_ranges", lambda P, x: P.histogramdd(x, bins=3, ranges=[0, 2.5, 0, 5]), [np.array([[0, 1], [1, 0], [2, 0], [2, 5]])])
cmp("histogramdd_int32_weights", lambda P, x, w: P.histogramdd(x, bins=2, weights=w), [A((10, 2), 0, 5, dtype="int32"), A((10,), 0, 3, dtype="int32")])
cmp("histogramdd_edges_tuple", lambda P, x: P.histogramdd(x, bins=(P.to_tensor([0.0, 1, 2]), P.to_tensor([0.0, 0.5, 2.5]))), [_pts])
cmp("histogramdd_edges_tuple_density", lambda P, x: P.histogramdd(x, bins=(P.to_tensor([-2.0, -0.5, 0, 2]), P.to_tensor([-1.0, 0.5, 2.5])), density=True), [A((25, 2))])
cmp("histogramdd_constant", lambda P, x: P.histogramdd(x, bins=3), [np.ones((3, 2), "float32")])
cmp("histogramdd_zero_bins", lambda P, x: P.histogramdd(x, bins=0), [_pts])
cmp("histogramdd_no_points_ranges", lambda P, x: P.histogramdd(x, bins=2, ranges=[0, 1, 0, 1]), [np.zeros((0, 2), "float32")])
cmp("m.histogramdd", lambda P, x: x.histogramdd(bins=[2, 3]), [A((12, 2))])
cmp("histogramdd_err_1d", lambda P, x: P.histogramdd(x), [A((5,))])
cmp("histogramdd_err_ranges_len", lambda P, x: P.histogramdd(x, ranges=[0, 1]), [_pts])
cmp("histogramdd_err_weights_shape", lambda P, x, w: P.histogramdd(x, weights=w), [_pts, _w[:3]])
cmp("histogramdd_err_weights_dtype", lambda P, x, w: P.histogramdd(x, weights=w), [_pts, _w.astype("float64")])
cmp("histogramdd_err_bins_len", lambda P, x: P.histogramdd(x, bins=[2, 2, 2]), [_pts])
cmp("histogramdd_err_bins_float", lambda P, x: P.histogramdd(x, bins=2.5), [_pts])
cmp("histogramdd_err_bins_tensor_list", lambda P, x: P.histogramdd(x, bins=[P.to_tensor([0.0, 1]), P.to_tensor([0.0, 1])]), [_pts])
cmp("histogramdd_err_no_points", lambda P, x: P.histogramdd(x), [np.zeros((0, 2), "float32")])

# as_strided: strides in elements, offset in bytes (Paddle 3.3.1's)
KNOWN.update({
    "as_strided_overlap": "overlapping reads: an element's gradient sums over every place it "
                          "is read (Paddle 3.3.1 keeps one of them; finite differences agree "
                          "with the sum)",
    "as_strided_err": "Paddle 3.3.1 reads memory outside x (garbage values); jitgrad raises "
                      "ValueError",
})
_s = A((3, 4))
cmp("as_strided", lambda P, x: P.as_strided(x, [2, 2], [1, 2]), [_s])
cmp("as_strided_offset", lambda P, x: P.as_strided(x, [2, 3], [4, 1], 16), [_s])
cmp("as_strided_rows", lambda P, x: P.as_strided(x, [4, 3], [1, 4]), [_s])
cmp("as_strided_0d", lambda P, x: P.as_strided(x, [], [], 20), [_s])
cmp("as_strided_empty", lambda P, x: P.as_strided(x, [0, 2], [1, 1]), [_s])
cmp("as_strided_f64", lambda P, x: P.as_strided(x, [2, 2], [3, 1], 8), [A((2, 3), dtype="float64")], rtol=1e-12, atol=1e-12)
cmp("as_strided_int", lambda P, x: P.as_strided(x, [2, 2], [1, 1], 8), [A((5,), 0, 9, dtype="int64")])
cmp("as_strided_int32", lambda P, x: P.as_strided(x, [3], [2], 4), [A((7,), 0, 9, dtype="int32")])
cmp("as_strided_bool", lambda P, x: P.as_strided(x, [2, 2], [2, 1]), [A((6,), dtype="bool")])
cmp("as_strided_3d", lambda P, x: P.as_strided(x, [2, 2, 3], [12, 3, 1], 4), [A((2, 3, 4))])
cmp("as_strided_tuple", lambda P, x: P.as_strided(x, (3, 2), (2, 1)), [_s])
cmp("m.as_strided", lambda P, x: x.as_strided([2, 3], [1, 2], 4), [_s])
cmp("as_strided_overlap", lambda P, x: P.as_strided(x, [3, 3], [1, 1], 8), [_s])
cmp("as_strided_overlap_values", lambda P, x: P.as_strided(x, [3, 3], [1, 1], 8), [_s], grad=False)
cmp("as_strided_overlap_zero_stride", lambda P, x: P.as_strided(x, [2, 3], [0, 1]), [_s], grad=False)
cmp("as_strided_err_neg_offset", lambda P, x: P.as_strided(x, [2], [1], -4), [_s])
cmp("as_strided_err_float_shape", lambda P, x: P.as_strided(x, [2.0], [1]), [_s])
cmp("as_strided_err_past_the_end", lambda P, x: P.as_strided(x, [13], [1]), [_s], grad=False)

# linalg.ormqr: Paddle 3.3.1's product with Q = householder_product(x, tau) [m, k]
KNOWN["ormqr_grad"] = ("Paddle 3.3.1 writes ones into x's diagonal in place and its backward "
                       "fails (inplace-modified tensor); jitgrad leaves x alone and "
                       "differentiates (as householder_product)")
_ox, _ot = A((3, 3)), A((3,), 0.0, 1.5)
cmp("ormqr", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y), [_ox, _ot, A((3, 2))], grad=False)
cmp("ormqr_transpose", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, transpose=True), [_ox, _ot, A((3, 4))], grad=False)
cmp("ormqr_right", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, left=False), [_ox, _ot, A((2, 3))], grad=False)
cmp("ormqr_right_transpose", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, False, True), [_ox, _ot, A((2, 3))], grad=False)
cmp("ormqr_tall", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y), [A((5, 3)), _ot, A((3, 2))], grad=False)
cmp("ormqr_tall_transpose", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, True, True), [A((5, 3)), _ot, A((5, 2))], grad=False)
cmp("ormqr_batch", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y), [A((2, 3, 3)), A((2, 3), 0.0, 1.5), A((2, 3, 2))], grad=False)
cmp("ormqr_batch2", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y), [A((2, 2, 4, 2)), A((2, 2, 2), 0.0, 1.5), A((2, 2, 2, 3))], grad=False)
cmp("ormqr_batch2_transpose", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, True, True), [A((2, 2, 4, 2)), A((2, 2, 2), 0.0, 1.5), A((2, 2, 4, 3))], grad=False,
    known="Paddle 3.3.1 transposes Q with the permutation [0, 2, 1], which fails for two batch dims; jitgrad swaps Q's last two dims")
cmp("ormqr_f64", lambda P, x, t, y: P.linalg.ormqr(x.clone(), t, y, False, False), [A((3, 3), dtype="float64"), A((3,), 0.0, 1.5, dtype="float64"), A((4, 3), dtype="float64")], grad=False, rtol=1e-12, atol=1e-12)
cmp("m.ormqr", lambda P, x, t, y: x.clone().ormqr(t, y), [_ox, _ot, A((3, 2))], grad=False)
cmp("ormqr_grad", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [_ox, _ot, A((3, 2))])
cmp("ormqr_err_rows", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [_ox, _ot, A((2, 2))], grad=False)
cmp("ormqr_err_tau", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [_ox, _ot[:2], A((3, 2))], grad=False)
cmp("ormqr_err_dtype", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [_ox, _ot, A((3, 2), dtype="float64")], grad=False)
cmp("ormqr_err_batch", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [A((2, 3, 3)), A((2, 3)), A((1, 3, 2))], grad=False)
cmp("ormqr_err_wide", lambda P, x, t, y: P.linalg.ormqr(x, t, y), [A((2, 3)), A((3,)), A((3, 2))], grad=False)


# svd_lowrank / pca_lowrank draw a random sketch (other numbers in each library): compare
# what does not depend on it, S and U diag(S) V^T, for inputs of rank <= q (exact there).
# No gradients: Paddle 3.3.1's backward crashes the process (segfault in qr's).
def _lr(m, n, r, batch=(), dtype="float64"):
    return (A(batch + (m, r)).astype("float64") @ A(batch + (r, n)).astype("float64")).astype(dtype)


def _usv(res):
    u, s, v = res
    return s, (u * s.unsqueeze(-2)) @ v.transpose(list(range(v.ndim - 2)) + [v.ndim - 1, v.ndim - 2])


cmp("svd_lowrank", lambda P, x: _usv(P.linalg.svd_lowrank(x)), [_lr(10, 8, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_q", lambda P, x: _usv(P.linalg.svd_lowrank(x, q=3)), [_lr(10, 8, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_wide", lambda P, x: _usv(P.linalg.svd_lowrank(x, q=4)), [_lr(6, 12, 4)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_square_full", lambda P, x: _usv(P.linalg.svd_lowrank(x)), [_lr(5, 5, 5)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_tall_thin", lambda P, x: _usv(P.linalg.svd_lowrank(x, niter=0)), [_lr(20, 4, 2)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_batch", lambda P, x: _usv(P.linalg.svd_lowrank(x, q=4, niter=3)), [_lr(7, 9, 3, (2, 3))], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_f32", lambda P, x: _usv(P.linalg.svd_lowrank(x, q=3)), [_lr(10, 8, 3, dtype="float32")], grad=False, rtol=1e-4, atol=1e-4)
cmp("svd_lowrank_M", lambda P, x, m: _usv(P.linalg.svd_lowrank(x + m, q=3, M=m)), [_lr(10, 8, 3), A((1, 8), dtype="float64")], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_q0", lambda P, x: P.linalg.svd_lowrank(x, q=0), [_lr(4, 3, 2)], grad=False)
cmp("svd_lowrank_no_rows", lambda P, x: P.linalg.svd_lowrank(x), [np.zeros((0, 3))], grad=False)
cmp("m.svd_lowrank", lambda P, x: _usv(x.svd_lowrank(q=3)), [_lr(6, 5, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("pca_lowrank", lambda P, x: _usv(P.linalg.pca_lowrank(x)), [_lr(10, 8, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("pca_lowrank_q", lambda P, x: _usv(P.linalg.pca_lowrank(x, q=4, niter=1)), [_lr(8, 10, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("pca_lowrank_no_center", lambda P, x: _usv(P.linalg.pca_lowrank(x, q=3, center=False)), [_lr(9, 7, 3)], grad=False, rtol=1e-9, atol=1e-9)
cmp("pca_lowrank_batch", lambda P, x: _usv(P.linalg.pca_lowrank(x, q=3)), [_lr(6, 5, 2, (2,))], grad=False, rtol=1e-9, atol=1e-9)
cmp("m.pca_lowrank", lambda P, x: _usv(x.pca_lowrank(q=2)), [_lr(5, 5, 2)], grad=False, rtol=1e-9, atol=1e-9)
cmp("svd_lowrank_err_q", lambda P, x: P.linalg.svd_lowrank(x, q=9), [_lr(10, 8, 3)], grad=False)
cmp("svd_lowrank_err_niter", lambda P, x: P.linalg.svd_lowrank(x, niter=-1), [_lr(10, 8, 3)], grad=False)
cmp("svd_lowrank_err_1d", lambda P, x: P.linalg.svd_lowrank(x), [A((5,), dtype="float64")], grad=False)
cmp("svd_lowrank_err_M_dtype", lambda P, x, m: P.linalg.svd_lowrank(x, M=m), [_lr(10, 8, 3), A((1, 8))], grad=False)
cmp("pca_lowrank_err_q", lambda P, x: P.linalg.pca_lowrank(x, q=-1), [_lr(5, 5, 2)], grad=False)
cmp("pca_lowrank_err_niter", lambda P, x: P.linalg.pca_lowrank(x, niter=-2), [_lr(5, 5, 2)], grad=False)
