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
