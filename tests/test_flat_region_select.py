"""Where an op is flat (clip outside its bounds, where's unpicked side, the relu family's
zero region), the gradient is 0 whatever arrives from upstream: an inf or nan there gives 0,
not the nan a multiply by 0 would give. Paddle 3.3.1's clip, where and masked_fill kernels
select this way (measured); torch selects for all of these. On every backward path."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward, leaf

F = paddle.nn.functional
INF, NAN = np.inf, np.nan

X = [-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 7.0]
G = [INF, NAN, -INF, INF, NAN, INF, NAN]


def _zeros7():
    return paddle.to_tensor(np.zeros(7, "float32"))


CASES = {
    # op: (function, x's gradient for upstream G at X)
    "clip": (lambda x: paddle.clip(x, -1.0, 1.0), [0, NAN, -INF, INF, NAN, 0, 0]),
    "where": (lambda x: paddle.where(x > 0, x, _zeros7()), [0, 0, 0, INF, NAN, INF, NAN]),
    "masked_fill": (lambda x: paddle.masked_fill(x, x > 1, 0.0),
                    [INF, NAN, -INF, INF, NAN, 0, 0]),
    "relu": (F.relu, [0, 0, 0, INF, NAN, INF, NAN]),
    "relu6": (F.relu6, [0, 0, 0, INF, NAN, INF, 0]),
    "hardtanh": (F.hardtanh, [0, 0, -INF, INF, 0, 0, 0]),
    "hardshrink": (F.hardshrink, [INF, NAN, 0, INF, NAN, INF, NAN]),
    "softshrink": (F.softshrink, [INF, NAN, 0, 0, NAN, INF, NAN]),
    "thresholded_relu": (F.thresholded_relu, [0, 0, 0, 0, 0, INF, NAN]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", sorted(CASES))
def test_inf_or_nan_upstream_where_the_op_is_flat_gives_zero(op, path):
    fn, want = CASES[op]
    x = leaf(X)
    y = fn(x)
    backward(y, path, grad_tensor=paddle.to_tensor(np.array(G, "float32")))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, "float32"))


@pytest.mark.parametrize("path", PATHS)
def test_where_selects_for_both_sides_with_broadcasting(path):
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = leaf([10.0, 20.0, 30.0])
    cond = paddle.to_tensor(np.array([[True, False, True], [False, False, True]]))
    out = paddle.where(cond, x, y)
    g = np.array([[NAN, 1.0, INF], [2.0, INF, 3.0]], "float32")
    backward(out, path, grad_tensor=paddle.to_tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), [[NAN, 0, INF], [0, 0, 3.0]])
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, INF, 0])


@pytest.mark.parametrize("path", PATHS)
def test_clip_gradient_with_finite_upstream_is_unchanged(path):
    x = leaf([-2.0, -1.0, 0.25, 1.0, 3.0], dtype="float64")
    y = paddle.clip(x, -1.0, 1.0)
    backward(y, path, grad_tensor=paddle.to_tensor(np.array([5.0, -4.0, 3.0, 2.0, 1.0])))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, -4.0, 3.0, 2.0, 0.0])


def test_clip_second_derivative_through_the_select_is_zero():
    x = leaf([-2.0, 0.5, 3.0])
    (g,) = paddle.grad((paddle.clip(x, -1.0, 1.0) * x).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [-1.0, 1.0, 1.0])   # clip(x) + x * [in range]
    g.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 0.0])


G4 = np.array([[INF, NAN, -INF, 1.5], [NAN, INF, 0.0, 2.0]], "float32")


def _x4():
    return leaf(np.arange(8, dtype="float32").reshape(2, 4))


def _setitem(x):
    y = x * 1.0
    y[:, 1:3] = 0.0
    return y


OVERWRITES = {
    # op: (function of x [2, 4], x's gradient for upstream G4; Paddle 3.3.1 and torch)
    "setitem": (_setitem, [[INF, 0, 0, 1.5], [NAN, 0, 0, 2.0]]),
    "put_along_axis": (lambda x: paddle.put_along_axis(
        x, paddle.to_tensor([[1], [2]]), 9.0, axis=1), [[INF, 0, -INF, 1.5], [NAN, INF, 0, 2]]),
    "scatter": (lambda x: paddle.scatter(x, paddle.to_tensor([0]),
                                         paddle.to_tensor(np.ones((1, 4), "float32"))),
                [[0, 0, 0, 0], [NAN, INF, 0, 2.0]]),
    "tril": (paddle.tril, [[INF, 0, 0, 0], [NAN, INF, 0, 0]]),
    "triu": (lambda x: paddle.triu(x, 1), [[0, NAN, -INF, 1.5], [0, 0, 0, 2.0]]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", sorted(OVERWRITES))
def test_inf_or_nan_upstream_on_overwritten_positions_gives_zero(op, path):
    fn, want = OVERWRITES[op]
    x = _x4()
    backward(fn(x), path, grad_tensor=paddle.to_tensor(G4))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, "float32"))


def test_tril_of_an_infinite_entry_outside_the_triangle_is_zero():
    x = paddle.to_tensor(np.array([[1.0, INF], [2.0, 3.0]], "float32"))
    assert paddle.tril(x).tolist() == [[1.0, 0.0], [2.0, 3.0]]     # (inf * 0 was NaN)


@pytest.mark.parametrize("path", PATHS)
def test_embedding_padding_row_gets_zero_whatever_arrives(path):
    w = leaf(np.arange(8, dtype="float32").reshape(4, 2))
    ids = paddle.to_tensor(np.array([0, 1, 1, 2]))
    out = F.embedding(ids, w, padding_idx=1)
    g = np.array([[INF, 1.0], [NAN, INF], [1.0, 1.0], [2.0, NAN]], "float32")
    backward(out, path, grad_tensor=paddle.to_tensor(g))
    np.testing.assert_array_equal(w.grad.numpy(), [[INF, 1], [0, 0], [2, NAN], [0, 0]])
    assert out.numpy()[1:3].tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("path", PATHS)
def test_nearest_downsampling_sends_inf_or_nan_only_to_the_sources(path):
    # Paddle 3.3.1 and torch: pixels never sampled get 0 (a resize matrix spread NaN to all)
    x = leaf([[3.0, -1.0, 3.0, 0.5], [2.0, 7.0, -4.0, 7.0]])
    y = F.interpolate(x.reshape([1, 1, 2, 4]), scale_factor=0.5, mode="nearest")
    backward(y, path, grad_tensor=paddle.to_tensor(np.array([INF, NAN], "float32")
                                                   .reshape(1, 1, 1, 2)))
    np.testing.assert_array_equal(x.grad.numpy(), [[INF, 0, NAN, 0], [0, 0, 0, 0]])


GM = [INF, -INF, INF, NAN, 2.0]
XM = [1.0, 5.0, 2.0, 3.0, -1.0]
YM = [4.0, 2.0, 2.0, NAN, 0.0]

PICKS = {
    # op: (x's and y's gradients for upstream GM at XM, YM). Torch 2.13 gives these (a tie
    # halves: inf each; where y is NaN Paddle's rule gives neither any); Paddle 3.3.1's
    # maximum and minimum give NaN everywhere, its fmax and fmin NaN to the loser
    "maximum": ([0, -INF, INF, 0, 0], [INF, 0, INF, 0, 2.0]),
    "minimum": ([INF, 0, INF, 0, 2.0], [0, -INF, INF, 0, 0]),
    "fmax": ([0, -INF, INF, NAN, 0], [INF, 0, 0, 0, 2.0]),
    "fmin": ([INF, 0, INF, NAN, 2.0], [0, -INF, 0, 0, 0]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", sorted(PICKS))
def test_inf_or_nan_upstream_gives_the_loser_of_maximum_zero(op, path):
    x, y = leaf(XM), leaf(YM)
    backward(getattr(paddle, op)(x, y), path, grad_tensor=paddle.to_tensor(
        np.array(GM, "float32")))
    want_x, want_y = PICKS[op]
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want_x, "float32"))
    np.testing.assert_array_equal(y.grad.numpy(), np.array(want_y, "float32"))


@pytest.mark.parametrize("path", PATHS)
def test_maximum_selects_with_broadcasting_and_keeps_finite_values(path):
    x = leaf([[1.0, 2.0, 3.0], [4.0, 2.0, 0.0]], dtype="float64")
    y = leaf([2.0, 2.0, 2.0], dtype="float64")
    g = np.array([[-3.0, 5.0, 7.0], [INF, 1.0, INF]])
    backward(paddle.maximum(x, y), path, grad_tensor=paddle.to_tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 2.5, 7.0], [INF, 0.5, 0]])
    np.testing.assert_array_equal(y.grad.numpy(), [-3.0, 3.0, INF])
    assert not np.signbit(x.grad.numpy()[0, 0])     # +0 on every path (g * 0 was -0.0)


MEDIANS = {
    # op: (function of x [2, 4], x's gradient for upstream G2 = [inf, NaN] or G1 = inf;
    # Paddle 3.3.1's, which gives the unpicked elements 0 (torch: also 0, but only the
    # lower middle element of an even count)
    "median_axis": (lambda x: paddle.median(x, axis=1), [[INF, 0, INF, 0], [NAN, 0, 0, NAN]]),
    "median_all": (lambda x: paddle.median(x), [[INF, 0, 0, 0], [INF, 0, 0, 0]]),
    "median_min": (lambda x: paddle.median(x, axis=1, mode="min")[0],
                   [[0, 0, INF, 0], [NAN, 0, 0, 0]]),
    "nanmedian": (lambda x: paddle.nanmedian(_with_nan(x), axis=1),
                  [[INF, 0, 0, 0], [0, 0, 0, NAN]]),
}
XMED = [[3.0, 1.0, 2.0, 5.0], [4.0, 0.0, 7.0, 6.0]]


def _with_nan(x):
    return paddle.where(paddle.to_tensor(np.array([[False, True, False, False]] * 2)),
                        paddle.to_tensor(np.full((2, 4), NAN, "float32")), x)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", sorted(MEDIANS))
def test_inf_or_nan_upstream_gives_the_unpicked_elements_of_median_zero(op, path):
    fn, want = MEDIANS[op]
    x = leaf(XMED)
    y = fn(x)
    g = np.array([INF, NAN], "float32")[:y.size].reshape(y.shape) if y.ndim else \
        np.array(INF, "float32")
    backward(y, path, grad_tensor=paddle.to_tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, "float32"))


def _setitem_dup(x, v):
    y = x * 1.0
    y[paddle.to_tensor(np.array([2, 2, 0]))] = v
    return y


GD = np.array([INF, NAN, -INF, 1.0], "float32")
IDX = np.array([2, 2, 0])

DUPLICATES = {
    # op: (function of x [4] and v [3], x's and v's gradients for upstream GD). The value
    # written first to position 2 is overwritten: 0 (Paddle 3.3.1 gives put_along_axis's
    # 0 as well; its scatter and index_put give both duplicates -inf, setitem the first)
    "setitem": _setitem_dup,
    "scatter": lambda x, v: paddle.scatter(x, paddle.to_tensor(IDX), v, overwrite=True),
    "put_along_axis": lambda x, v: paddle.put_along_axis(x, paddle.to_tensor(IDX), v, 0),
    "index_put": lambda x, v: paddle.index_put(x, (paddle.to_tensor(IDX),), v),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", sorted(DUPLICATES))
def test_inf_or_nan_upstream_gives_an_overwritten_duplicate_zero(op, path):
    x, v = leaf([1.0, 2.0, 3.0, 4.0]), leaf([10.0, 11.0, 12.0])
    backward(DUPLICATES[op](x, v), path, grad_tensor=paddle.to_tensor(GD))
    np.testing.assert_array_equal(x.grad.numpy(), [0, NAN, 0, 1.0])
    np.testing.assert_array_equal(v.grad.numpy(), [0, -INF, INF])


EXTREMES = {
    # (reduce, include_self): x's and v's gradients for upstream [[inf, NaN, 1], [-inf, 2,
    # inf]], Paddle 3.3.1's (the losers get 0; torch gives them NaN)
    ("amax", True): ([[INF, 0, 1], [0, 2, 0]], [[NAN, 0], [-INF, INF]]),
    ("amax", False): ([[INF, 0, 1], [0, 2, 0]], [[NAN, 0], [-INF, INF]]),
    ("amin", True): ([[INF, 0, 1], [-INF, 2, INF]], [[0, NAN], [0, 0]]),
    ("amin", False): ([[INF, 0, 1], [0, 2, 0]], [[0, NAN], [-INF, INF]]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("reduce, include_self", sorted(EXTREMES))
def test_inf_or_nan_upstream_gives_the_losers_of_put_along_axis_extremes_zero(
        reduce, include_self, path):
    x, v = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), leaf([[10.0, 0.5], [12.0, 13.0]])
    out = paddle.put_along_axis(x, paddle.to_tensor(np.array([[1, 1], [0, 2]])), v, 1,
                                reduce=reduce, include_self=include_self)
    g = np.array([[INF, NAN, 1.0], [-INF, 2.0, INF]], "float32")
    backward(out, path, grad_tensor=paddle.to_tensor(g))
    want_x, want_v = EXTREMES[(reduce, include_self)]
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want_x, "float32"))
    np.testing.assert_array_equal(v.grad.numpy(), np.array(want_v, "float32"))


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
@pytest.mark.parametrize("path", PATHS)
def test_max_of_a_group_with_nan_still_gives_nan(path):     # (_tie_mask's 0 / 0 warns)
    # max and min are not selects: their weights in a group holding NaN are NaN (Paddle
    # 3.3.1 and torch's amax give the whole group NaN), so they keep their product
    x = leaf([[1.0, NAN, 3.0], [1.0, 2.0, 2.0]])
    backward(paddle.max(x, axis=1), path, grad_tensor=paddle.to_tensor([1.0, 1.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [[NAN, NAN, NAN], [0, 0.5, 0.5]])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("q, want", [
    (0.3, [INF, 0, INF, 0, 0]),     # index 1.2: both neighbours (Paddle 3.3.1, torch: same)
    (0.5, [INF, 0, 0, 0, 0]),       # index 2 exactly: hi is not read (Paddle, torch: NaN)
    (0.25, [0, 0, INF, 0, 0]),
])
def test_quantile_with_an_inf_upstream_gives_inf_to_the_picked_neighbours(q, want, path):
    # (the composite lo + w * (hi - lo) gave lo g - g * w: inf - inf, NaN)
    x = leaf([3.0, 1.0, 2.0, 5.0, 4.0])
    backward(paddle.quantile(x, q), path, grad_tensor=paddle.to_tensor(np.float32(INF)))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, "float32"))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_gradient_is_paddles_lerp_bit_for_bit(fn, path):
    # Paddle 3.3.1: lo gets g * (1 - w), 3.9999998 here (g - g * w gave 4.0), hi g * w
    x = leaf(np.arange(7, dtype="float32")[::-1].copy())
    y = getattr(paddle, fn)(x, 0.1)
    backward(y, path, grad_tensor=paddle.to_tensor(np.float32(10.0)))
    np.testing.assert_array_equal(x.grad.numpy(), np.array([0, 0, 0, 0, 0, 6.0, 3.9999998],
                                                           "float32"))


LOGITS = [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.0, 0.1, 0.2]]
PROBS = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
LABELS = [0, 2, 1]                      # row 1 ignored (ignore_index=2)
G3 = [INF, NAN, 2.0]


def _upstream(out, reduction):
    return paddle.to_tensor(np.array(G3, "float32") if reduction == "none" else
                            np.float32(INF))


CLASS_LOSSES = {
    # (loss, reduction): x's gradient for upstream G3 ('none') or inf, Paddle 3.3.1's: the
    # ignored row, and nll_loss's classes other than the label, get 0 (jitgrad gave NaN).
    # (cross_entropy's label class: (p - 1) * inf = -inf; Paddle: inf * p - inf = NaN)
    ("cross_entropy", "none"): [[-INF, INF, INF], [0, 0, 0], None],
    ("cross_entropy", "mean"): [[-INF, INF, INF], [0, 0, 0], [INF, -INF, INF]],
    ("cross_entropy", "sum"): [[-INF, INF, INF], [0, 0, 0], [INF, -INF, INF]],
    ("nll_loss", "none"): [[-INF, 0, 0], [0, 0, 0], [0, -2.0, 0]],
    ("nll_loss", "mean"): [[-INF, 0, 0], [0, 0, 0], [0, -INF, 0]],
    ("nll_loss", "sum"): [[-INF, 0, 0], [0, 0, 0], [0, -INF, 0]],
    ("log_softmax_nll", "none"): [[NAN, INF, INF], [0, 0, 0], None],
    ("no_softmax", "none"): [[-INF, 0, 0], [0, 0, 0], [0, -2.0 / 0.3, 0]],
    ("no_softmax", "mean"): [[-INF, 0, 0], [0, 0, 0], [0, -INF, 0]],
}


def _class_loss(kind, x, reduction):
    lab = paddle.to_tensor(np.array(LABELS))
    if kind == "cross_entropy":
        return F.cross_entropy(x, lab, ignore_index=2, reduction=reduction)
    if kind == "nll_loss":
        return F.nll_loss(x, lab, ignore_index=2, reduction=reduction)
    if kind == "log_softmax_nll":
        return F.nll_loss(F.log_softmax(x, axis=1), lab, ignore_index=2, reduction=reduction)
    return F.cross_entropy(x, lab, ignore_index=2, reduction=reduction, use_softmax=False)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind, reduction", sorted(CLASS_LOSSES))
def test_inf_or_nan_upstream_gives_an_ignored_row_zero(kind, reduction, path):
    x = leaf(PROBS if kind == "no_softmax" else LOGITS)
    out = _class_loss(kind, x, reduction)
    backward(out, path, grad_tensor=_upstream(out, reduction))
    got, want = x.grad.numpy(), CLASS_LOSSES[(kind, reduction)]
    for row in range(3):
        if want[row] is not None:       # (None: a finite row, as with finite upstream)
            np.testing.assert_allclose(got[row], np.array(want[row], "float32"), rtol=1e-6)
        else:
            assert np.isfinite(got[row]).all()
    if reduction == "none":             # the ignored row's loss is +0, as Paddle's
        assert out.numpy()[1] == 0 and not np.signbit(out.numpy()[1])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("kind", ["cross_entropy", "nll_loss", "smoothed", "weighted"])
def test_ignored_rows_select_on_the_compiled_kernels_too(kind, reduction, path):
    # 80 x 10 logits (the compiled forwards' sizes); every fourth row ignored: an inf or NaN
    # upstream there gives 0, and every other row's gradient is the one an upstream 0 on
    # the ignored rows gives, bit for bit ('none'); an inf total gives the other rows inf
    # with the sign of their gradient for 1 ('mean', 'sum')
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((80, 10)).astype("float32")
    lab = rng.integers(0, 10, 80)
    lab[::4] = -1
    w = paddle.to_tensor(rng.uniform(0.5, 2, 10).astype("float32"))

    def loss(x):
        lb = paddle.to_tensor(lab)
        if kind == "nll_loss":
            return F.nll_loss(x, lb, ignore_index=-1, reduction=reduction)
        return F.cross_entropy(x, lb, ignore_index=-1, reduction=reduction,
                               weight=w if kind == "weighted" else None,
                               label_smoothing=0.1 if kind == "smoothed" else 0.0)
    if reduction == "none":
        g = rng.standard_normal(80).astype("float32")
        g_bad, g_zero = g.copy(), g.copy()
        g_bad[::4] = np.where(np.arange(20) % 2, INF, NAN)
        g_zero[::4] = 0
    else:
        g_bad, g_zero = np.float32(INF), np.float32(1.0)
    grads = []
    for gv in (g_bad, g_zero):
        x = leaf(xv)
        out = loss(x)
        if reduction == "none" and out.ndim == 2:
            gv = gv[:, None]
        backward(out, path, grad_tensor=paddle.to_tensor(gv))
        grads.append(x.grad.numpy())
    assert (grads[0][::4] == 0).all() and not np.signbit(grads[0][::4]).any()
    if reduction == "none":
        np.testing.assert_array_equal(grads[0], grads[1])
    else:
        counted = np.arange(80) % 4 != 0
        one = grads[1][counted]
        want = np.where(one == 0, 0, np.copysign(INF, one))
        np.testing.assert_array_equal(grads[0][counted], want)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("rows", [3, 80])
def test_an_ignored_row_of_inf_logits_gets_zero(rows, path):
    # its softmax is NaN (inf - inf): Paddle 3.3.1 gives that row 0 (torch: NaN)
    xv = np.zeros((rows, 3), "float32")
    xv[1] = [INF, 0.1, 0.2]
    lab = np.zeros(rows, np.int64)
    lab[1] = 1
    x = leaf(xv)
    out = F.cross_entropy(x, paddle.to_tensor(lab), ignore_index=1)
    assert np.isfinite(out.numpy())
    backward(out, path)
    assert (x.grad.numpy()[1] == 0).all() and np.isfinite(x.grad.numpy()).all()
