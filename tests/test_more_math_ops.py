"""trunc, frac, rad2deg, deg2rad, logaddexp, nan_to_num (ops/math.py); nansum, nanmean
(ops/stats.py); median, nanmedian, quantile (ops/order_stats.py); inner, dist, unstack, slice,
strided_slice (ops/composites.py).
Expected values were measured on Paddle 3.3.1; gradients are checked against finite
differences in float64."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.math import deg2rad, frac, logaddexp, nan_to_num, rad2deg, trunc
from jitgrad.ops.composites import dist, inner, slice, strided_slice, unstack
from jitgrad.ops.order_stats import median, nanmedian, nanquantile, quantile
from jitgrad.ops.stats import nanmean, nansum
from jitgrad.testing import check_grads

TT = paddle.to_tensor
NAN, INF = float("nan"), float("inf")


def grad_of(fn, *values, dtype="float32"):
    xs = [TT(np.asarray(v, dtype=dtype), stop_gradient=False) for v in values]
    paddle.sum(fn(*xs)).backward()
    return [x.grad.numpy() for x in xs]


# ---- ops/math.py ---------------------------------------------------------------------------

def test_logaddexp_values_are_stable_for_large_inputs():
    x = TT(np.array([1, 2, 1000, -1000], "float32"))
    y = TT(np.array([1, -3, 1000, -1000], "float32"))
    out = logaddexp(x, y)
    # Paddle 3.3.1
    np.testing.assert_allclose(out.numpy(), [1.6931472, 2.0067153, 1000.6932, -999.3068],
                               rtol=1e-6)
    assert out.dtype == paddle.float32


def test_logaddexp_gradient_is_sigmoid_of_the_difference_and_half_at_ties():
    gx, gy = grad_of(logaddexp, [1.0, 2.0, 1000.0], [1.0, -3.0, 1000.0])
    # Paddle 3.3.1
    np.testing.assert_allclose(gx, [0.5, 0.9933072, 0.5], rtol=1e-6)
    np.testing.assert_allclose(gy, [0.5, 0.00669285, 0.5], rtol=1e-5)


def test_logaddexp_dtypes_follow_paddle():
    ints = logaddexp(TT(np.array([1, 2], "int64")), TT(np.array([0, 3], "int64")))
    assert ints.dtype == paddle.float32                                  # Paddle 3.3.1
    np.testing.assert_allclose(ints.numpy(), [1.3132617, 3.3132617], rtol=1e-6)
    mixed = logaddexp(TT(np.array([1.0], "float32")), TT(np.array([0.5], "float64")))
    assert mixed.dtype == paddle.float64
    assert logaddexp(TT(np.ones((2, 3), "float32")), TT([1.0, 2.0, 3.0])).shape == [2, 3]


def test_logaddexp_of_equal_infinities_is_that_infinity():
    # The documented formula; Paddle 3.3.1 itself returns nan here (inf - inf).
    out = logaddexp(TT([INF, -INF, INF]), TT([INF, -INF, 1.0]))
    assert out.tolist() == [INF, -INF, INF]
    assert math.isnan(logaddexp(TT([NAN]), TT([1.0])).item())


@pytest.mark.parametrize("create_graph", [False, True])
def test_logaddexp_gradient_at_equal_infinities_is_a_half_each(create_graph):
    # (the infinity test only runs where a slope is nan: it must still run there)
    x = TT([INF, -INF, 1.0, INF], stop_gradient=False)
    y = TT([INF, -INF, 2.0, 1.0], stop_gradient=False)
    with np.errstate(invalid="ignore"):
        gx, gy = paddle.grad(logaddexp(x, y).sum(), [x, y], create_graph=create_graph)
    s = 1 / (1 + math.exp(1.0))
    np.testing.assert_allclose(gx.numpy(), [0.5, 0.5, s, 1.0], rtol=1e-6)
    np.testing.assert_allclose(gy.numpy(), [0.5, 0.5, 1 - s, 0.0], rtol=1e-6)


def test_logaddexp_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    check_grads(logaddexp, rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (3,)), order=2)


def test_trunc_rounds_toward_zero_with_zero_gradient():
    x = [1.7, -1.7, 0.5, -0.5, INF]
    out = trunc(TT(x))
    assert out.tolist() == [1.0, -1.0, 0.0, -0.0, INF]                  # Paddle 3.3.1
    assert grad_of(trunc, x)[0].tolist() == [0.0] * 5
    i = TT(np.array([1, -2], "int32"))
    assert trunc(i).dtype == paddle.int32 and trunc(i).tolist() == [1, -2]


def test_frac_keeps_the_sign_and_has_gradient_one():
    x = [1.75, -1.75, 0.5, -3.0, INF]
    out = frac(TT(x))
    assert out.tolist()[:4] == [0.75, -0.75, 0.5, 0.0]                   # Paddle 3.3.1
    assert math.isnan(out.tolist()[4])
    assert grad_of(frac, x)[0].tolist() == [1.0] * 5
    i = frac(TT(np.array([1, -2], "int64")))
    assert i.dtype == paddle.int64 and i.tolist() == [0, 0]


def test_rad2deg_and_deg2rad():
    out = rad2deg(TT([1.0, -math.pi]))
    np.testing.assert_allclose(out.numpy(), [57.29578, -180.0], rtol=1e-6)  # Paddle 3.3.1
    assert rad2deg(TT(np.array([1, -2], "int32"))).dtype == paddle.float32
    np.testing.assert_allclose(deg2rad(TT(np.array([180, -90], "int64"))).numpy(),
                               [3.1415927, -1.5707964], rtol=1e-6)
    np.testing.assert_allclose(grad_of(rad2deg, [0.3, 2.0])[0], [57.29578] * 2, rtol=1e-6)
    check_grads(deg2rad, np.array([0.3, -1.0]))


def test_nan_to_num_replaces_with_the_dtype_limits_and_zeroes_their_gradient():
    x = [1.0, NAN, INF, -INF, -2.5]
    out = nan_to_num(TT(x))
    big = float(np.finfo(np.float32).max)
    assert out.tolist() == [1.0, 0.0, big, -big, -2.5]                   # Paddle 3.3.1
    assert nan_to_num(TT(x), nan=1.5, posinf=7, neginf=-7).tolist() == [1.0, 1.5, 7, -7, -2.5]
    assert nan_to_num(TT(x, dtype="float64")).numpy()[2] == np.finfo(np.float64).max
    assert grad_of(nan_to_num, x)[0].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]
    with pytest.raises(TypeError, match="float"):
        nan_to_num(TT(np.array([1, 2], "int64")))


# ---- ops/stats.py: nansum, nanmean --------------------------------------------------------

NANX = [[1.0, NAN, 3.0], [NAN, NAN, 2.0]]


def test_nansum_skips_nan_and_gives_it_zero_gradient():
    assert nansum(TT(NANX)).item() == 6.0                                # Paddle 3.3.1
    assert nansum(TT(NANX), axis=1).tolist() == [4.0, 2.0]
    assert nansum(TT(NANX), axis=1, keepdim=True).shape == [2, 1]
    assert grad_of(lambda x: nansum(x, axis=0), NANX)[0].tolist() == [[1, 0, 1], [0, 0, 1]]
    assert nansum(TT(NANX), dtype="float64").dtype == paddle.float64


def test_nansum_of_ints_is_int64_and_bool_is_refused():
    out = nansum(TT(np.array([1, 2, 3], "int32")))
    assert out.dtype == paddle.int64 and out.item() == 6                 # Paddle 3.3.1
    with pytest.raises(TypeError, match="bool"):
        nansum(TT(np.array([True, False])))


def test_nanmean_averages_the_non_nan_elements():
    assert nanmean(TT(NANX)).item() == 2.0                               # Paddle 3.3.1
    assert nanmean(TT(NANX), axis=1).tolist() == [2.0, 2.0]
    gx = grad_of(lambda x: nanmean(x, axis=1), NANX)[0]
    np.testing.assert_allclose(gx, [[0.5, 0, 0.5], [0, 0, 1]])
    out = nanmean(TT(np.array([1, 2, 4], "int64")))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.item(), 2.3333333, rtol=1e-6)


def test_nanmean_of_an_all_nan_group_is_nan_with_zero_gradient():
    x = [[NAN, 1.0], [NAN, 2.0]]
    out = nanmean(TT(x), axis=0, keepdim=True)
    assert out.shape == [1, 2] and math.isnan(out.tolist()[0][0]) and out.tolist()[0][1] == 1.5
    assert grad_of(lambda t: nanmean(t, axis=0), x)[0].tolist() == [[0, 0.5], [0, 0.5]]


def test_nansum_and_nanmean_gradients_match_finite_differences():
    # finite differences cannot step a nan: the nans are put in by a constant mask
    mask = np.zeros((2, 3, 4), bool)
    mask[0, 1, :] = True
    mask[1, 0, 2] = True

    def with_nans(t):
        return paddle.where(TT(mask), NAN, t)
    x = np.random.default_rng(1).uniform(-2, 2, (2, 3, 4))
    check_grads(lambda t: nansum(with_nans(t), axis=[0, 2]), x)
    check_grads(lambda t: nanmean(with_nans(t), axis=0, keepdim=True) * 2.0, x)
    check_grads(lambda t: nanmean(with_nans(t)), x)


# ---- ops/composites.py: inner, dist, unstack, slice, strided_slice --------------------------------

def test_inner_contracts_the_last_dims():
    x = TT(np.arange(6, dtype="float32").reshape(2, 3))
    y = TT(np.arange(12, dtype="float32").reshape(4, 3) / 3)
    out = inner(x, y)
    assert out.shape == [2, 4]
    np.testing.assert_allclose(out.numpy()[0], [1.6666667, 4.6666665, 7.666667, 10.666667],
                               rtol=1e-6)                                # Paddle 3.3.1
    assert inner(TT([1.0, 2.0, 3.0]), TT([4.0, 5.0, 6.0])).shape == []
    assert inner(TT(np.ones((2, 2, 3), "float32")), y).shape == [2, 2, 4]
    assert inner(TT(2.0), x).tolist() == [[0, 2, 4], [6, 8, 10]]
    ints = inner(TT(np.array([1, 2, 3])), TT(np.array([4, 5, 6])))
    assert ints.dtype == paddle.int64 and ints.item() == 32
    assert inner(TT(np.zeros((2, 0), "float32")), TT(np.zeros((3, 0), "float32"))).shape == \
        [2, 3]


def test_inner_refuses_mismatched_dims_and_dtypes():
    with pytest.raises(ValueError, match="last dims"):
        inner(TT([1.0, 2.0, 3.0]), TT([1.0, 2.0]))
    with pytest.raises(TypeError, match="one dtype"):
        inner(TT([1.0]), TT(np.array([1.0], "float64")))


def test_inner_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    check_grads(inner, rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 4, 3)), order=2)


def test_dist_values_for_each_p():
    x, y = TT([1.0, 2.0, 3.0]), TT([2.0, 0.0, 3.5])
    # Paddle 3.3.1
    want = {2: 2.291288, 1: 3.5, 0: 3.0, INF: 2.0, -INF: 0.5, 3: 2.0896697, 0.5: 9.742641}
    for p, v in want.items():
        np.testing.assert_allclose(dist(x, y, p).item(), v, rtol=1e-6)
    assert dist(TT(np.ones((2, 3), "float32")), x).shape == []
    assert dist(TT([1.0, NAN]), TT([0.0, 0.0]), 0).item() == 2.0        # nan counts


def test_dist_gradients_follow_paddle_at_zero_and_ties():
    x, y = [1.0, 2.0, 3.0], [0.0, 3.0, 3.0]
    # Paddle 3.3.1: every tie of the max |x - y| gets the whole gradient
    gx, gy = grad_of(lambda a, b: dist(a, b, INF), x, y)
    assert gx.tolist() == [1.0, -1.0, 0.0] and gy.tolist() == [-1.0, 1.0, 0.0]
    gx, _ = grad_of(lambda a, b: dist(a, b, -INF), x, [0.0, 3.0, 5.0])
    assert gx.tolist() == [1.0, -1.0, 0.0]
    for p in (2, 1, 3, INF):            # x == y: zero gradient, not nan
        gx, gy = grad_of(lambda a, b: dist(a, b, p), x, x)
        assert gx.tolist() == [0.0] * 3 and gy.tolist() == [0.0] * 3
    gx, gy = grad_of(lambda a, b: dist(a, b, 0), x, y)
    assert gx.tolist() == [0.0] * 3


def test_dist_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (3,))
    for p in (2, 1, 3, 0.5, -1.5, INF, -INF):
        check_grads(lambda s, t: dist(s, t, p), a, b)


def test_dist_refuses_ints_and_mixed_dtypes():
    with pytest.raises(TypeError, match="float"):
        dist(TT(np.array([1, 2])), TT(np.array([0, 0])))
    with pytest.raises(TypeError, match="one dtype"):
        dist(TT([1.0]), TT(np.array([1.0], "float64")))


def test_unstack_splits_along_an_axis():
    x = TT(np.arange(24, dtype="float32").reshape(2, 3, 4))
    parts = unstack(x, axis=-1)
    assert len(parts) == 4 and parts[1].shape == [2, 3]
    assert parts[1].numpy().ravel().tolist() == [1, 5, 9, 13, 17, 21]  # Paddle 3.3.1
    assert [p.shape for p in unstack(x, 1, num=3)] == [[2, 4]] * 3
    assert unstack(TT([1.0, 2.0]))[1].shape == []
    assert unstack(TT(np.zeros((0, 2), "float32"))) == []
    with pytest.raises(ValueError, match="num"):
        unstack(x, 1, num=2)
    with pytest.raises(ValueError, match="0-d"):
        unstack(TT(1.0))
    check_grads(lambda t: unstack(t, 1)[2] * 3.0 + unstack(t, 1)[0], np.ones((2, 3, 2)))


A3 = np.arange(24, dtype="float32").reshape(2, 3, 4)


def test_slice_clamps_like_python():
    x = TT(A3)
    # Paddle 3.3.1: out-of-range bounds clamp, negative ones count from the end
    assert slice(x, [2], [-3], [100]).numpy().tolist() == A3[:, :, -3:100].tolist()
    assert slice(x, [0], [-100], [1]).shape == [1, 3, 4]
    assert slice(x, [0], [5], [10]).shape == [0, 3, 4]
    assert slice(x, [-1], [1], [-1]).numpy().tolist() == A3[:, :, 1:-1].tolist()
    assert slice(x, [0, 2], [1, -2], [2, 2**31]).numpy().ravel().tolist() == \
        [14, 15, 18, 19, 22, 23]
    assert slice(x, [1], TT([1]), TT([3])).shape == [2, 2, 4]
    assert slice(x, [1, 2], [TT(1), 0], [3, TT([2])]).shape == [2, 2, 2]
    assert grad_of(lambda t: slice(t, [0, 1], [0, 1], [1, 3]), A3)[0][0].tolist() == \
        [[0] * 4, [1] * 4, [1] * 4]


def test_slice_errors():
    x = TT(A3)
    with pytest.raises(ValueError, match="out of range"):
        slice(x, [3], [0], [1])
    with pytest.raises(ValueError, match="named twice"):
        slice(x, [1, 1], [0, 1], [3, 2])
    with pytest.raises(ValueError, match="2 axes but 1 starts"):
        slice(x, [1, 2], [0], [1, 1])
    with pytest.raises(ValueError, match="0-d"):
        slice(TT(1.0), [0], [0], [1])


def test_strided_slice_steps_both_ways():
    b = TT(np.arange(10, dtype="float32"))
    # Paddle 3.3.1
    assert strided_slice(b, [0], [-1], [-100], [-2]).tolist() == [9, 7, 5, 3, 1]
    assert strided_slice(b, [0], [100], [-100], [-3]).tolist() == [9, 6, 3, 0]
    assert strided_slice(b, [0], [20], [5], [-1]).tolist() == [9, 8, 7, 6]
    assert strided_slice(b, [0], [0], [-1], [1]).shape == [9]
    assert strided_slice(b, [0], [5], [2], [1]).shape == [0]
    out = strided_slice(TT(A3), [0, 2], [1, 3], [-3, 0], [-1, -2])
    assert out.numpy().ravel().tolist()[:4] == [15, 13, 19, 17]
    assert grad_of(lambda t: strided_slice(t, [0], [0], [10], [3]),
                   np.arange(10.0))[0].tolist() == [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    with pytest.raises(ValueError, match="0"):
        strided_slice(b, [0], [0], [10], [0])
    with pytest.raises(ValueError, match="axes >= 0"):
        strided_slice(b, [-1], [8], [1], [-3])
    check_grads(lambda t: strided_slice(t, [1, 2], [2, 3], [-4, 0], [-1, -2]),
                np.arange(24.0).reshape(2, 3, 4))


# ---- ops/order_stats.py: median ----------------------------------------------------------

XM = [[3.0, 1.0, 2.0, 5.0], [4.0, 4.0, 0.0, 7.0], [1.0, 9.0, 2.0, 2.0]]


def test_median_avg_values_shapes_and_dtypes():
    x = TT(XM)
    # Paddle 3.3.1
    assert median(x).item() == 2.5 and median(x).shape == []
    assert median(x, keepdim=True).shape == [1, 1]
    assert median(x, axis=1).tolist() == [2.5, 4.0, 2.0]
    assert median(x, axis=0, keepdim=True).tolist() == [[3.0, 4.0, 2.0, 5.0]]
    ints = median(TT(np.array(XM, "int64")), axis=-1)
    assert ints.dtype == paddle.float32 and ints.tolist() == [2.5, 4.0, 2.0]
    assert median(TT(np.array(XM, "float64"))).dtype == paddle.float64
    assert median(TT(2.0)).item() == 2.0


def test_median_min_mode_returns_indices_with_an_axis():
    values, idx = median(TT(XM), axis=0, mode="min", keepdim=True)
    # Paddle 3.3.1
    assert values.tolist() == [[3.0, 4.0, 2.0, 5.0]] and idx.tolist() == [[0, 1, 0, 0]]
    assert idx.dtype == paddle.int64
    whole = median(TT(np.array(XM, "int64")), mode="min")
    assert whole.dtype == paddle.int64 and whole.item() == 2


def test_median_of_a_group_with_nan_is_nan():
    out = median(TT([[3.0, NAN, 2.0, 5.0], [4.0, 4.0, 0.0, 7.0]]), axis=1)
    assert math.isnan(out.tolist()[0]) and out.tolist()[1] == 4.0       # Paddle 3.3.1
    _, idx = median(TT([3.0, NAN, 1.0, NAN, 0.0]), axis=0, mode="min")
    assert idx.item() == 1


def test_median_gradient_splits_ties_like_paddle():
    # Paddle 3.3.1: the elements equal to the median share its gradient
    assert grad_of(median, [1.0, 2.0, 2.0, 2.0, 3.0])[0].tolist() == \
        pytest.approx([0, 1 / 3, 1 / 3, 1 / 3, 0])
    assert grad_of(median, [3.0, 2.0, 1.0, 2.0, 3.0, 2.0])[0].tolist() == \
        pytest.approx([0, 1 / 3, 0, 1 / 3, 0, 1 / 3])
    assert grad_of(median, [2.0, 2.0, 2.0, 2.0])[0].tolist() == [0.25] * 4
    # two different middle values: half each
    assert grad_of(lambda t: median(t, axis=1), XM)[0].tolist() == \
        [[0.5, 0, 0.5, 0], [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5]]
    # nan median: the nans share it
    assert grad_of(median, [3.0, NAN, 1.0, NAN, 0.0])[0].tolist() == [0, 0.5, 0, 0.5, 0]
    # mode 'min' with an axis: all to the returned index; without one, ties split
    assert grad_of(lambda t: median(t, axis=0, mode="min")[0], [2.0, 1.0, 3.0])[0].tolist() == \
        [1.0, 0.0, 0.0]
    assert grad_of(lambda t: median(t, mode="min"), [3.0, 2.0, 1.0, 2.0, 2.0])[0].tolist() == \
        pytest.approx([0, 1 / 3, 0, 1 / 3, 1 / 3])


def test_median_errors():
    with pytest.raises(ValueError, match="mode"):
        median(TT(XM), mode="max")
    with pytest.raises(ValueError, match="axis"):
        median(TT(XM), axis=[0, 1])
    with pytest.raises(ValueError, match="out of range"):
        median(TT(XM), axis=2)


def test_median_gradients_match_finite_differences():
    x = np.random.default_rng(4).uniform(-2, 2, (3, 4, 5))
    check_grads(lambda t: median(t, axis=1), x, order=2)
    check_grads(lambda t: median(t, axis=-1, keepdim=True), x)
    check_grads(median, x)
    check_grads(lambda t: median(t, axis=0, mode="min")[0], x)


# ---- ops/order_stats.py: quantile --------------------------------------------------------

def test_quantile_linear_values_and_shapes():
    x = TT(XM)
    # Paddle 3.3.1
    assert quantile(x, 0.5).item() == 2.5
    np.testing.assert_allclose(quantile(x, 0.3, axis=1).numpy(), [1.9, 3.6, 1.9], rtol=1e-6)
    both = quantile(x, [0.25, 0.5], axis=1)
    assert both.shape == [2, 3] and both.tolist() == [[1.75, 3.0, 1.75], [2.5, 4.0, 2.0]]
    assert quantile(x, [0.25, 0.5], axis=1, keepdim=True).shape == [2, 3, 1]
    assert quantile(x, [0.25], axis=0).tolist() == [2.0, 2.5, 1.0, 3.5]
    assert quantile(x, [0.25, 0.75]).tolist() == [1.75, 4.25]
    assert quantile(x, 0.4, axis=[0, 1], keepdim=True).shape == [1, 1]
    assert quantile(x, TT([0.2, 0.5])).shape == [2]


def test_quantile_interpolations():
    x = TT(XM)
    q = [0.3, 0.5, 0.7]
    # Paddle 3.3.1, first row of each [3, 3] result
    want = {"lower": [1, 2, 3], "higher": [2, 3, 5], "nearest": [2, 3, 3],
            "midpoint": [1.5, 2.5, 4.0]}
    for how, row in want.items():
        assert quantile(x, q, axis=1, interpolation=how).numpy()[:, 0].tolist() == row
    # 'nearest' rounds a half index to even, as Paddle
    assert quantile(TT([[3.0], [1.0]]), 0.5, axis=0, interpolation="nearest").tolist() == [1.0]


def test_quantile_nan_and_gradients_like_paddle():
    x = [[1.0, NAN, 3.0], [1.0, 2.0, 3.0]]
    out = quantile(TT(x), 0.5, axis=1)
    assert math.isnan(out.tolist()[0]) and out.tolist()[1] == 2.0        # Paddle 3.3.1
    assert grad_of(lambda t: quantile(t, 0.5, axis=1), x)[0].tolist() == \
        [[0, 1, 0], [0, 1, 0]]
    # ties: a stable sort picks the neighbours
    assert grad_of(lambda t: quantile(t, 0.5), [2.0, 2.0, 2.0, 1.0])[0].tolist() == \
        [0.5, 0.5, 0, 0]


def test_quantile_errors():
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        quantile(TT(XM), 1.5)
    with pytest.raises(ValueError, match="interpolation"):
        quantile(TT(XM), 0.5, interpolation="cubic")
    with pytest.raises(ValueError, match="axis"):
        quantile(TT(XM), 0.5, axis=2)
    with pytest.raises(TypeError, match="float"):
        quantile(TT(np.array(XM, "int64")), 0.5)


def test_quantile_gradients_match_finite_differences():
    x = np.random.default_rng(5).uniform(-2, 2, (3, 4, 5))
    for how in ("linear", "midpoint", "lower", "nearest"):
        check_grads(lambda t: quantile(t, [0.3, 0.8], axis=[2, 0], interpolation=how), x)
    check_grads(lambda t: quantile(t, 0.45, axis=1, keepdim=True), x, order=2)


# ---- ops/order_stats.py: nanmedian -------------------------------------------------------

def test_nanmedian_skips_nan():
    x = [[3.0, NAN, 2.0, 5.0], [4.0, 4.0, 0.0, 7.0]]
    # Paddle 3.3.1
    assert nanmedian(TT(x), axis=1).tolist() == [3.0, 4.0]
    assert nanmedian(TT(x)).item() == 4.0
    values, idx = nanmedian(TT([[NAN, NAN], [1.0, 2.0]]), axis=1, mode="min")
    assert math.isnan(values.tolist()[0]) and values.tolist()[1] == 1.0
    assert idx.tolist() == [-1, 0]
    ints = nanmedian(TT(np.array(XM, "int64")), axis=1)
    assert ints.dtype == paddle.int64 and ints.tolist() == [2, 4, 2]


def test_nanmedian_gradients_like_paddle():
    # Paddle 3.3.1
    assert grad_of(lambda t: nanmedian(t, axis=0), [3.0, NAN, 1.0, 5.0, NAN, 0.0])[0].tolist() \
        == [0.5, 0, 0.5, 0, 0, 0]
    assert grad_of(nanmedian, [2.0, NAN, 2.0, 5.0, NAN, 2.0])[0].tolist() == \
        pytest.approx([1 / 3, 0, 1 / 3, 0, 0, 1 / 3])
    assert grad_of(lambda t: nanmedian(t, axis=1), [[NAN, NAN], [1.0, 2.0]])[0].tolist() == \
        [[0.5, 0.5], [0.5, 0.5]]
    x = np.random.default_rng(6).uniform(-2, 2, (3, 4, 5))
    check_grads(lambda t: nanmedian(t, axis=2), x)


def test_nanquantile_skips_nan_and_matches_paddle():
    x = paddle.to_tensor([[1.0, float("nan"), 3.0, 2.0], [4.0, 1.0, 2.0, 3.0]],
                         stop_gradient=False)
    out = nanquantile(x, 0.4, axis=1)
    np.testing.assert_allclose(out.numpy(), [1.8, 2.2], rtol=1e-6)      # Paddle 3.3.1
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.2, 0, 0, 0.8], [0, 0, 0.8, 0.2]],
                               rtol=1e-5, atol=1e-7)
    allnan = nanquantile(paddle.to_tensor([[float("nan")] * 3]), 0.5, axis=1)
    assert np.isnan(allnan.numpy()).all()
    check_grads(lambda t: nanquantile(t, [0.3, 0.8], axis=0),
                np.array([[0.1, 2.0], [0.7, -1.0], [1.5, 0.4]]))
