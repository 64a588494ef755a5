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
