"""paddle.histogramdd (ops/more_math.py), paddle.as_strided (ops/more_indexing.py),
paddle.linalg.ormqr, svd_lowrank and pca_lowrank (ops/more_linalg.py): values as measured on
Paddle 3.3.1 (written in below), gradients against finite differences on every backward
path (jitgrad.testing.check_grads)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor
F32 = paddle.float32


def _edges(edges):
    return [e.tolist() for e in edges]


# ---- histogramdd --------------------------------------------------------------------------

X4 = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]


def test_histogramdd_counts_and_weights_as_paddle():
    x = TT(X4)
    hist, edges = paddle.histogramdd(x, bins=[3, 3], weights=TT([1.0, 2.0, 4.0, 8.0]))
    assert hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]
    assert hist.dtype == F32 and hist.stop_gradient
    assert _edges(edges) == [[0.0, 0.6666666865348816, 1.3333332538604736, 2.0]] * 2
    assert all(e.dtype == F32 and e.stop_gradient for e in edges)
    hist, edges = paddle.histogramdd(x, bins=2)          # an int: that many bins per dim
    assert hist.tolist() == [[0.0, 1.0], [2.0, 1.0]] and _edges(edges) == [[0.0, 1.0, 2.0]] * 2
    hist, _ = x.histogramdd(2)                           # (a Tensor method, as Paddle's)
    assert hist.tolist() == [[0.0, 1.0], [2.0, 1.0]]


def test_histogramdd_ranges_density_and_dtypes_as_paddle():
    x = TT(X4)
    hist, edges = paddle.histogramdd(x, bins=2, ranges=[0.5, 1.5, -1, 3])
    assert hist.tolist() == [[0.0, 0.0], [1.0, 0.0]]
    assert _edges(edges) == [[0.5, 1.0, 1.5], [-1.0, 1.0, 3.0]]
    for r in ((0.5, 1.5, -1, 3), TT([0.5, 1.5, -1, 3]), np.array([0.5, 1.5, -1, 3])):
        assert paddle.histogramdd(x, bins=2, ranges=r)[0].tolist() == hist.tolist()
    hist, _ = paddle.histogramdd(x, bins=[3, 2], density=True)
    assert hist.numpy().tolist() == [[0.0, 0.375], [0.3750000596046448, 0.0],
                                     [0.3749999701976776, 0.3749999701976776]]
    hist, _ = paddle.histogramdd(x, bins=[3, 2], density=True, weights=TT([1.0, 2, 4, 8]))
    assert hist.numpy().tolist() == [[0.0, 0.10000000149011612], [0.20000003278255463, 0.0],
                                     [0.3999999761581421, 0.7999999523162842]]
    hist, _ = paddle.histogramdd(x, bins=[3, 2], density=True, weights=TT([1.0, -2, 4, 8]))
    np.testing.assert_allclose(hist.numpy(), [[0.0, 0.13636364042758942],
                                              [-0.2727273106575012, 0.0],
                                              [0.5454545021057129, 1.0909090042114258]],
                               rtol=1e-6)
    hist, edges = paddle.histogramdd(x.astype("float64"), bins=2)
    assert hist.dtype == paddle.float64 and edges[0].dtype == paddle.float64
    xi = TT([[0, 1], [1, 0], [2, 0], [2, 5]])            # ints: int edges and counts
    hist, edges = paddle.histogramdd(xi, bins=2, weights=TT([1, 2, 3, 4]))
    assert hist.dtype == paddle.int64 and hist.tolist() == [[1, 0], [5, 4]]
    assert _edges(edges) == [[0, 1, 2], [0, 2, 5]]
    hist, edges = paddle.histogramdd(xi, bins=3, ranges=[0, 2.5, 0, 5])   # (2.5 -> 2)
    assert hist.tolist() == [[0, 0, 0], [0, 1, 0], [2, 0, 1]]
    assert _edges(edges) == [[0, 0, 1, 2], [0, 1, 3, 5]]
    hist, edges = paddle.histogramdd(xi.astype("int32"), bins=2)
    assert hist.dtype == paddle.int32 and hist.tolist() == [[1, 0], [2, 1]]


def test_histogramdd_edges_given_as_a_tuple_of_tensors():
    x = TT(X4)
    hist, edges = paddle.histogramdd(x, bins=(TT([0.0, 1, 2]), TT([0.0, 0.5, 2.5])))
    assert hist.tolist() == [[0.0, 1.0], [2.0, 1.0]]
    assert _edges(edges) == [[0.0, 1.0, 2.0], [0.0, 0.5, 2.5]]
    hist, _ = paddle.histogramdd(x, bins=([0.0, 1, 2], [0.0, 0.5, 2.5]))   # lists too
    assert hist.tolist() == [[0.0, 1.0], [2.0, 1.0]]
    hist, _ = paddle.histogramdd(x, bins=(TT([0.0, 1, 2]), TT([0.0, 0.5, 2.5])), density=True)
    assert hist.tolist() == [[0.0, 0.125], [1.0, 0.125]]
    hist, _ = paddle.histogramdd(TT([[0, 1], [1, 0], [2, 0], [2, 5]]),
                                 bins=(TT([0, 1, 2]), TT([0, 3, 6])))
    assert hist.tolist() == [[1, 0], [2, 1]]
    with pytest.raises(ValueError, match="tuple of 1-D Tensors"):   # Paddle: a tuple only
        paddle.histogramdd(x, bins=[TT([0.0, 1, 2]), TT([0.0, 1, 2])])
    with pytest.raises(ValueError, match="for bin counts pass an int or a list of ints"):
        paddle.histogramdd(x, bins=(2, 2))
    with pytest.raises(TypeError, match="x's dtype float32, got float64"):
        paddle.histogramdd(x, bins=(TT([0.0, 1, 2], "float64"), TT([0.0, 1, 2])))
    with pytest.raises(ValueError, match="increasing"):
        paddle.histogramdd(x, bins=(TT([0.0, 2, 1]), TT([0.0, 1, 2])))
    with pytest.raises(ValueError, match="2 dims its edges"):
        paddle.histogramdd(x, bins=(TT([0.0, 1, 2]),))


def test_histogramdd_edges_outside_nan_and_empty_as_paddle():
    # the last edge is in the last bin; outside, NaN and inf are dropped
    pts = TT([[-5.0, 0.5], [0.5, 5], [1.0, 1.0], [0.0, 0.0], [np.nan, 0.5], [np.inf, 0.5]])
    hist, _ = paddle.histogramdd(pts, bins=2, ranges=[0, 1, 0, 1])
    assert hist.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    hist, edges = paddle.histogramdd(TT([[1.0, 1.0], [1.0, 1.0]]), bins=3)
    assert hist.tolist() == [[0.0] * 3, [0.0] * 3, [0.0, 0.0, 2.0]]  # zero width: last bin
    assert _edges(edges) == [[1.0] * 4] * 2
    hist, edges = paddle.histogramdd(TT(np.zeros((0, 2), "float32")), bins=2,
                                     ranges=[0, 1, 0, 1])
    assert hist.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    hist, edges = paddle.histogramdd(TT(X4), bins=0)
    assert hist.shape == [0, 0] and _edges(edges) == [[0.0], [0.0]]
    hist, _ = paddle.histogramdd(TT(X4), bins=2, ranges=[5, 6, 5, 6], density=True)
    assert np.isnan(hist.numpy()).all()                 # 0 / 0, as Paddle
    x3 = TT(np.arange(12.0, dtype="float32").reshape(2, 2, 3))      # [..., D]: 4 points
    hist, edges = paddle.histogramdd(x3, bins=2, weights=TT([[1.0, 2], [3, 4]]))
    assert hist.tolist() == [[[3.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 7.0]]]
    assert _edges(edges) == [[0.0, 4.5, 9.0], [1.0, 5.5, 10.0], [2.0, 6.5, 11.0]]


def test_histogramdd_random_points_as_paddle():
    x = TT(np.random.default_rng(0).normal(size=(50, 3)).astype("float32"))
    hist, edges = paddle.histogramdd(x, bins=[2, 3, 4])
    assert hist.tolist() == [[[2, 2, 5, 1], [0, 4, 6, 1], [0, 1, 1, 1]],
                             [[2, 1, 3, 5], [0, 1, 6, 1], [0, 3, 3, 1]]]
    assert _edges(edges) == [
        [-2.3653039932250977, -0.2818344831466675, 1.8016349077224731],
        [-1.2590655088424683, -0.17191290855407715, 0.9152399301528931, 2.002392530441284],
        [-1.9016352891921997, -0.9361618757247925, 0.029311537742614746, 0.994784951210022,
         1.9602583646774292]]


def test_histogramdd_has_no_gradient():
    x = TT([[0.0, 1.0], [1.0, 0.0]], stop_gradient=False)
    w = TT([1.0, 2.0], stop_gradient=False)
    hist, edges = paddle.histogramdd(x, bins=2, weights=w)
    assert hist.stop_gradient and all(e.stop_gradient for e in edges)   # (Paddle)
    assert hist.tolist() == [[0.0, 1.0], [2.0, 0.0]]


def test_histogramdd_bad_arguments_raise_saying_what_to_pass():
    x = TT(X4)
    cases = [
        (dict(x=TT([1.0, 2, 3])), ValueError, "at least 2 dims"),
        (dict(x=TT(np.zeros((3, 0), "float32"))), ValueError, "must not be 0"),
        (dict(x=x.astype("float16")), TypeError, "float32, float64, int32 or int64"),
        (dict(x=x, bins=2.0), ValueError, "an int, a list of 2 ints"),
        (dict(x=x, bins=TT([2, 2])), ValueError, "an int, a list of 2 ints"),
        (dict(x=x, bins=[2, 2, 2]), ValueError, "its bin count, got 3"),
        (dict(x=x, bins=-1), ValueError, "non-negative int"),
        (dict(x=x, ranges=[0.5, 1.5]), ValueError, "4 numbers"),
        (dict(x=x, ranges=[[0.5, 1.5], [-1, 3]]), ValueError, "must be flat"),
        (dict(x=x, ranges=[2, 0, 0, 2]), ValueError, "must not exceed its max"),
        (dict(x=x, ranges="abcd"), TypeError, "list or tuple"),
        (dict(x=x, ranges=[None, 1, 0, 1]), TypeError, "numbers"),
        (dict(x=x, weights=TT([1.0, 2, 4])), ValueError, r"without its last dim, \[4\]"),
        (dict(x=x, weights=TT([1.0, 2, 4, 8], "float64")), TypeError, "x's dtype"),
        (dict(x=TT([[1, 2], [3, 4]]), density=True), TypeError, "needs a float x"),
        (dict(x=TT(np.zeros((0, 2), "float32"))), ValueError, "give ranges"),
    ]
    for kwargs, err, msg in cases:
        with pytest.raises(err, match=msg):
            paddle.histogramdd(**kwargs)
    with pytest.raises(TypeError, match="must be a Tensor"):
        paddle.histogramdd([[1.0, 2.0]])


# ---- as_strided ---------------------------------------------------------------------------

X12 = np.arange(12.0, dtype="float32").reshape(3, 4)


def test_as_strided_values_as_paddle():
    x = TT(X12)
    assert paddle.as_strided(x, [2, 2], [1, 2]).tolist() == [[0.0, 2.0], [1.0, 3.0]]
    # the offset is in bytes, as Paddle 3.3.1's: 8 bytes = element 2 of float32
    assert paddle.as_strided(x, [3], [1], 8).tolist() == [2.0, 3.0, 4.0]
    assert paddle.as_strided(x, [3, 3], [1, 1], 8).tolist() == [[2.0, 3.0, 4.0],
                                                                 [3.0, 4.0, 5.0],
                                                                 [4.0, 5.0, 6.0]]
    assert paddle.as_strided(x.astype("float64"), [3], [1], 8).tolist() == [1.0, 2.0, 3.0]
    assert paddle.as_strided(x.astype("int32"), [3], [1], 8).tolist() == [2, 3, 4]
    assert paddle.as_strided(x, [2, 3], [0, 1]).tolist() == [[0.0, 1.0, 2.0]] * 2
    assert paddle.as_strided(x, [1], [1], 44).tolist() == [11.0]       # the last element
    assert paddle.as_strided(x, [0], [1], 48).shape == [0]
    y = paddle.as_strided(x, [], [])
    assert y.shape == [] and y.item() == 0.0
    assert paddle.as_strided(TT([1, 2, 3, 4]), [2, 2], [1, 1]).tolist() == [[1, 2], [2, 3]]
    assert paddle.as_strided(TT([True, False, True]), [2], [2]).tolist() == [True, True]
    assert paddle.as_strided(x, (2, 2), np.array([1, 2])).tolist() == [[0.0, 2.0], [1.0, 3.0]]
    assert x.as_strided([2], [1], 4).tolist() == [1.0, 2.0]            # (a Tensor method)
    assert paddle.as_strided(x=x, shape=[2], stride=[5], offset=4, name="s").tolist() == \
        [1.0, 6.0]


def test_as_strided_reads_x_in_row_major_order():
    """jitgrad's tensors are contiguous: x.t() is a new tensor, read in its own order
    (Paddle 3.3.1's x.t() is a view whose as_strided reads the base's buffer)."""
    xt = TT(X12).t()
    assert paddle.as_strided(xt, [4], [1]).tolist() == [0.0, 4.0, 8.0, 1.0]


def test_as_strided_overlapping_gradients_accumulate():
    x = TT(X12, stop_gradient=False)
    y = paddle.as_strided(x, [3, 3], [1, 1], 8)
    assert not y.stop_gradient
    (y * TT(np.arange(1.0, 10.0, dtype="float32").reshape(3, 3))).sum().backward()
    # each element sums its reads (Paddle 3.3.1: [1, 4, 7, 8, 9], one read each)
    assert x.grad.tolist() == [[0.0, 0.0, 1.0, 6.0], [15.0, 14.0, 9.0, 0.0], [0.0] * 4]
    x = TT(X12, stop_gradient=False)
    (paddle.as_strided(x, [2, 3], [0, 1]) * TT([[1.0, 2, 3], [4, 5, 6]])).sum().backward()
    assert x.grad.tolist() == [[5.0, 7.0, 9.0, 0.0], [0.0] * 4, [0.0] * 4]   # Paddle: 4, 5, 6
    rng = np.random.default_rng(0)
    for shape, stride, offset in [([3, 3], [1, 1], 16), ([2, 2, 2], [4, 1, 0], 8),
                                  ([4, 2], [2, 3], 0), ([], [], 40)]:
        check_grads(lambda a, s=shape, t=stride, o=offset: paddle.as_strided(a, s, t, 2 * o),
                    rng.standard_normal((3, 4)), order=2)


def test_as_strided_bad_arguments_raise():
    x = TT(X12)
    cases = [
        (([13], [1]), ValueError, "reach element 12, but x has 12 elements"),
        (([3, 3], [4, 1], 20), ValueError, "reach element 15"),
        (([1], [1], 48), ValueError, "reach element 12"),
        (([2], [-1], 20), ValueError, "non-negative"),
        (([-1], [1]), ValueError, "non-negative"),
        (([2, 3], [1]), ValueError, "one entry per dim"),
        (([2], [1], -4), ValueError, "offset must be a non-negative int"),
        (([2], [1], 2), ValueError, "multiple of x's itemsize 4"),
        (([2.0, 2], [1, 2]), TypeError, "list or tuple of ints"),
        ((TT([2, 2]), [1, 2]), TypeError, "got Tensor"),
        (([2], [1.5]), TypeError, "stride must be"),
    ]
    for args, err, msg in cases:
        with pytest.raises(err, match=msg):
            paddle.as_strided(x, *args)
    with pytest.raises(TypeError, match="must be a Tensor"):
        paddle.as_strided([1.0, 2.0], [1], [1])


# ---- linalg.ormqr -------------------------------------------------------------------------

HX = np.array([[2.0, -1.0, 0.5], [0.3, 1.5, -0.7], [-0.4, 0.2, 1.1], [0.6, -0.8, 0.25]])
HT = np.array([1.2, 0.7, 1.9])
Y3 = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, -2.0]])
Y4 = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, -2.0], [0.5, 1.5]])


def test_ormqr_values_as_paddle_and_torch_for_a_square_x():
    """Measured on Paddle 3.3.1; torch.ormqr agrees to 5e-16 for a square x."""
    x, t = TT(HX[:3]), TT(HT)
    qy = [[-0.141116, 0.442928], [-0.6108348, -0.5691216], [0.3777464, 2.3024288]]
    qty = [[0.28, -1.54], [-0.44012, -0.08684], [-0.6238584, 0.4400712]]
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y3)).numpy(), qy, atol=1e-14)
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y3), True, True).numpy(), qty,
                               atol=1e-14)
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y3.T), left=False).numpy(),
                               np.transpose(qty), atol=1e-14)
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y3.T), False, True).numpy(),
                               np.transpose(qy), atol=1e-14)
    np.testing.assert_allclose(x.ormqr(t, TT(Y3)).numpy(), qy, atol=1e-14)   # (a method)
    assert x.numpy().tolist() == HX[:3].tolist()          # x left alone (Paddle writes it)
    # Paddle's docstring example, float32
    a = TT([[-114.6, 10.9, 1.1], [-0.304, 38.07, 69.38], [-0.45, -0.17, 62]])
    out = paddle.linalg.ormqr(a, TT([1.55, 1.94, 3.0]), a)
    assert out.dtype == F32
    np.testing.assert_allclose(out.numpy(), [[63.82712936, -13.82312489, -116.28614807],
                                             [-53.65926361, -28.15783501, -70.42701721],
                                             [-79.54292297, 24.00182915, -41.34253311]],
                               rtol=2e-6)


def test_ormqr_of_a_tall_x_uses_q_s_first_k_columns_as_paddle():
    x, t = TT(HX), TT(HT)                       # Q [4, 3]
    np.testing.assert_allclose(
        paddle.linalg.ormqr(x, t, TT(Y4), True, True).numpy(),
        [[-0.08, -2.62], [-0.57556, -0.95684], [-0.393812, 0.726832]], atol=1e-14)
    # (torch.ormqr multiplies by the whole 4 x 4 Q: a fourth row [-1.053127, -0.992078])
    np.testing.assert_allclose(
        paddle.linalg.ormqr(x, t, TT(Y3)).numpy(),
        [[0.34498, -0.42184], [-0.531506, -0.296552], [0.170008, 2.754736],
         [-1.043762, -0.447104]], atol=1e-14)
    q = paddle.linalg.householder_product(x, t).numpy()
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y4.T), left=False).numpy(),
                               Y4.T @ q, atol=1e-14)
    np.testing.assert_allclose(paddle.linalg.ormqr(x, t, TT(Y3.T), False, True).numpy(),
                               Y3.T @ q.T, atol=1e-14)


def test_ormqr_batched_and_gradients():
    rng = np.random.default_rng(1)
    xb, tb, yb = rng.standard_normal((2, 4, 3)), rng.uniform(0.2, 1.8, (2, 3)), \
        rng.standard_normal((2, 3, 2))
    out = paddle.linalg.ormqr(TT(xb), TT(tb), TT(yb)).numpy()
    for i in range(2):
        q = paddle.linalg.householder_product(TT(xb[i]), TT(tb[i])).numpy()
        np.testing.assert_allclose(out[i], q @ yb[i], atol=1e-14)
    check_grads(lambda x, t, y: paddle.linalg.ormqr(x, t, y), HX[:3], HT, Y3, order=2)
    check_grads(lambda x, t, y: paddle.linalg.ormqr(x, t, y, False, True), HX, HT, Y3.T)
    check_grads(lambda x, t, y: paddle.linalg.ormqr(x, t, y, True, True), xb, tb,
                rng.standard_normal((2, 4, 2)))


def test_ormqr_bad_arguments_raise():
    x, t, y = TT(HX[:3]), TT(HT), TT(Y3)
    cases = [
        ((x, t, TT(Y3[:2])), ValueError, r"Q @ y with Q \[3, 3\] .* needs y with 3 rows"),
        ((TT(HX), t, TT(Y4)), ValueError, r"Q @ y with Q \[4, 3\] .* needs y with 3 rows"),
        ((TT(HX), t, TT(Y3), True, True), ValueError, "Q\\^T @ y .* needs y with 4 rows"),
        ((x, TT(HT[:2]), y), ValueError, "one entry per column of x"),
        ((TT(HT), t, y), ValueError, "must be"),
        ((x, t, TT(HT)), ValueError, "must be"),
        ((x, t, y.astype("float32")), TypeError, "one dtype"),
        ((TT([[1, 2], [3, 4]]), TT([1, 2]), TT([[1, 2], [3, 4]])), TypeError, "float32 or"),
        ((TT(HX[:3][None].repeat(2, 0)), TT(HT[None].repeat(2, 0)), TT(Y3[None])), ValueError,
         "same batch dims"),
        ((TT(HX.T), TT(np.ones(4)), TT(np.ones((3, 2)))), ValueError,
         "at least as many rows"),
    ]
    for args, err, msg in cases:
        with pytest.raises(err, match=msg):
            paddle.linalg.ormqr(*args)


# ---- linalg.svd_lowrank, pca_lowrank ------------------------------------------------------

def _low_rank(rng, m, n, r, batch=(), dtype="float64"):
    return (rng.standard_normal(batch + (m, r)) @ rng.standard_normal(batch + (r, n))
            ).astype(dtype)


def _check_factors(x, u, s, v, q, atol):
    """Shapes, orthonormal columns, S the top q singular values, and x rebuilt."""
    m, n = x.shape[-2:]
    assert u.shape == [*x.shape[:-2], m, q] and s.shape == [*x.shape[:-2], q]
    assert v.shape == [*x.shape[:-2], n, q]
    un, sn, vn = u.numpy(), s.numpy(), v.numpy()
    eye = np.broadcast_to(np.eye(q), un.shape[:-2] + (q, q))
    np.testing.assert_allclose(np.swapaxes(vn, -1, -2) @ vn, eye, atol=atol)
    np.testing.assert_allclose(sn, np.linalg.svd(x, compute_uv=False)[..., :q], atol=atol)
    np.testing.assert_allclose((un * sn[..., None, :]) @ np.swapaxes(vn, -1, -2), x,
                               atol=atol)


def test_svd_lowrank_recovers_a_low_rank_matrix():
    """As measured on Paddle 3.3.1 (same shapes and dtypes; its sketch draws other random
    numbers): q defaults to min(6, m, n), and a rank-r x with q >= r comes back exactly."""
    rng = np.random.default_rng(0)
    paddle.seed(5)
    for (m, n, r), q in [((10, 8, 3), None), ((10, 8, 3), 3), ((8, 10, 3), None),
                         ((5, 5, 2), None), ((20, 4, 2), 2), ((4, 20, 2), None),
                         ((3, 3, 3), 3)]:
        x = _low_rank(rng, m, n, r)
        u, s, v = paddle.linalg.svd_lowrank(TT(x), q=q)
        qq = min(6, m, n) if q is None else q
        _check_factors(x, u, s, v, qq, 1e-12)
        assert u.dtype == paddle.float64 and u.stop_gradient
        assert (s.numpy()[r:] < 1e-12).all()
    x = _low_rank(rng, 10, 8, 3, dtype="float32")
    u, s, v = paddle.linalg.svd_lowrank(TT(x))
    assert u.dtype == s.dtype == v.dtype == F32
    _check_factors(x.astype("float64"), u, s, v, 6, 2e-5)
    x = _low_rank(rng, 10, 8, 3, batch=(2, 3))
    _check_factors(x, *paddle.linalg.svd_lowrank(TT(x), q=4), 4, 1e-12)
    _check_factors(x[0, 0], *paddle.linalg.svd_lowrank(TT(x[0, 0]), q=3, niter=0), 3, 1e-12)
    _check_factors(x[0, 0], *TT(x[0, 0]).svd_lowrank(q=3), 3, 1e-12)     # (a method)


def test_svd_lowrank_of_x_minus_m():
    rng = np.random.default_rng(1)
    x = _low_rank(rng, 10, 8, 3)
    mean = rng.standard_normal((1, 8))
    u, s, v = paddle.linalg.svd_lowrank(TT(x + mean), q=4, M=TT(mean))   # M broadcasts
    _check_factors(x, u, s, v, 4, 1e-12)
    u, s, v = paddle.linalg.svd_lowrank(TT(x + mean), q=4, M=TT(np.repeat(mean, 10, 0)))
    _check_factors(x, u, s, v, 4, 1e-12)


def test_svd_lowrank_of_a_full_rank_matrix_finds_the_top_singular_values():
    """A decaying spectrum: q = 4 of 30 with 4 power iterations finds the top 4 to ~1e-9."""
    rng = np.random.default_rng(2)
    a, _ = np.linalg.qr(rng.standard_normal((40, 30)))
    b, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    sv = 0.5 ** np.arange(30.0)
    x = (a * sv) @ b.T
    _, s, _ = paddle.linalg.svd_lowrank(TT(x), q=4, niter=4)
    np.testing.assert_allclose(s.numpy(), sv[:4], rtol=1e-6)


def test_pca_lowrank_centers_the_columns():
    rng = np.random.default_rng(3)
    for m, n in [(10, 8), (8, 10), (5, 5)]:
        x = _low_rank(rng, m, n, 3)
        centered = x - x.mean(axis=-2, keepdims=True)
        u, s, v = paddle.linalg.pca_lowrank(TT(x))
        _check_factors(centered, u, s, v, min(6, m, n), 1e-12)
        u, s, v = paddle.linalg.pca_lowrank(TT(x), q=3, center=False)
        _check_factors(x, u, s, v, 3, 1e-12)
    x = _low_rank(rng, 6, 5, 2, batch=(2,))
    _check_factors(x - x.mean(-2, keepdims=True), *TT(x).pca_lowrank(q=3), 3, 1e-12)


def test_lowrank_empty_and_q_zero_as_paddle():
    u, s, v = paddle.linalg.svd_lowrank(TT(np.ones((10, 8))), q=0)
    assert (u.shape, s.shape, v.shape) == ([10, 0], [0], [8, 0])
    for fn in (paddle.linalg.svd_lowrank, paddle.linalg.pca_lowrank):
        u, s, v = fn(TT(np.zeros((0, 3))))
        assert (u.shape, s.shape, v.shape) == ([0, 0], [0], [3, 0])
    u, s, v = paddle.linalg.svd_lowrank(TT(np.zeros((0, 3))), q=2)     # (Paddle: no check)
    assert (u.shape, s.shape, v.shape) == ([0, 0], [0], [3, 0])


def test_lowrank_gradients_with_the_sketch_fixed():
    """Differentiable through matmul, qr and svd (Paddle 3.3.1's backward crashes in qr's);
    seeding inside the function fixes the sketch, so finite differences see one function."""
    rng = np.random.default_rng(4)

    def seeded(fn, pick):
        def f(*xs):
            paddle.seed(11)
            return pick(fn(*xs))
        return f

    x = rng.standard_normal((6, 5))
    check_grads(seeded(lambda a: paddle.linalg.svd_lowrank(a, q=2), lambda r: r[1]), x)
    check_grads(seeded(lambda a: paddle.linalg.svd_lowrank(a, q=5, niter=1),
                       lambda r: (r[0] * r[1].unsqueeze(-2)) @ r[2].t()), x)
    check_grads(seeded(lambda a: paddle.linalg.svd_lowrank(a.t(), q=3), lambda r: r[1]), x)
    check_grads(seeded(lambda a, mm: paddle.linalg.svd_lowrank(a, q=3, M=mm),
                       lambda r: r[1]), x, rng.standard_normal((1, 5)))
    check_grads(seeded(lambda a: paddle.linalg.pca_lowrank(a, q=2), lambda r: r[1]), x)
    # the exact case (q = min(m, n)): S's gradient is U V^T, whatever the sketch
    xt = TT(x, stop_gradient=False)
    u, s, v = paddle.linalg.svd_lowrank(xt, q=5)
    s.sum().backward()
    uu, _, vh = np.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose(xt.grad.numpy(), uu @ vh, atol=1e-10)


def test_lowrank_bad_arguments_raise_as_paddle():
    x = TT(np.ones((10, 8)))
    svd_lowrank, pca_lowrank = paddle.linalg.svd_lowrank, paddle.linalg.pca_lowrank
    for fn in (svd_lowrank, pca_lowrank):
        name = fn.__name__
        with pytest.raises(ValueError, match=r"q\(=9\) must be non-negative integer and not "
                                             r"greater than min\(m, n\)=8"):
            fn(x, q=9)
        with pytest.raises(ValueError, match=r"q\(=-1\)"):
            fn(x, q=-1)
        with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
            fn(x, niter=-1)
        with pytest.raises(TypeError, match="q must be an int"):
            fn(x, q=2.0)
        with pytest.raises(ValueError, match=f"{name}: x must be a matrix"):
            fn(TT(np.ones(8)))
        with pytest.raises(TypeError, match="float32 or float64"):
            fn(TT(np.ones((3, 3), "int64")))
        with pytest.raises(TypeError, match="must be a Tensor"):
            fn(np.ones((3, 3)))
    with pytest.raises(TypeError, match="M must have x's dtype"):
        svd_lowrank(x, M=TT(np.ones((1, 8), "float32")))
    with pytest.raises(ValueError, match="must broadcast to x's shape"):
        svd_lowrank(x, M=TT(np.ones((1, 7))))


def test_names_are_where_paddle_has_them_and_no_longer_missing():
    """Paddle 3.3.1: histogramdd and as_strided top-level (and in paddle.tensor.linalg and
    .manipulation), ormqr, svd_lowrank and pca_lowrank in paddle.linalg only; all five are
    Tensor methods."""
    from jitgrad.core.paddle_names import NAMES
    assert paddle.tensor.linalg.histogramdd is paddle.histogramdd
    assert paddle.tensor.manipulation.as_strided is paddle.as_strided
    for name in ("ormqr", "svd_lowrank", "pca_lowrank"):
        assert getattr(paddle.tensor.linalg, name) is getattr(paddle.linalg, name)
        assert not hasattr(paddle, name)
    x = TT(np.eye(2))
    for name in ("histogramdd", "as_strided", "ormqr", "svd_lowrank", "pca_lowrank"):
        assert callable(getattr(x, name)), name
    for space, names in (("", ("histogramdd", "as_strided")),
                         ("linalg", ("ormqr", "svd_lowrank", "pca_lowrank"))):
        ns = paddle.linalg if space else paddle
        for name in names:
            assert name in NAMES[space] and hasattr(ns, name), name
