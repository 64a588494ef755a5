"""The compiled order-statistic forwards (vm/forward_order.py) give what the numpy paths
give: a stable argsort's indices (among equal values the lower index first, NaN last),
the same values and the same gradients, ties and NaN included."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import lookup as L
from jitgrad.ops import order_stats as O


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _rows(seed, nan=False):
    """Small float arrays with many ties (integers) or none, and NaN when asked."""
    rng = np.random.default_rng(seed)
    for t in range(40):
        shape = tuple(int(s) for s in rng.integers(1, 7, size=rng.integers(1, 4)))
        x = (rng.integers(-3, 4, size=shape) if t % 2 else rng.standard_normal(shape))
        x = x.astype(np.float32 if t % 3 else np.float64)
        if nan:
            x[rng.random(shape) < 0.25] = np.nan
        yield x


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_and_sort_are_stable(nan, descending):
    for x in _rows(1, nan):
        got = paddle.argsort(paddle.to_tensor(x), -1, descending).numpy()
        want = np.argsort(x, axis=-1, kind="stable")            # NaN last, as numpy
        if descending:                                          # NaN first (Paddle, torch)
            want = np.lexsort((np.where(np.isnan(x), 0, -x), ~np.isnan(x)), axis=-1)
        assert np.array_equal(got, want)
        assert np.array_equal(paddle.sort(paddle.to_tensor(x), -1, descending).numpy(),
                              np.take_along_axis(x, want, -1), equal_nan=True)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_for_every_k_keeps_equal_values_and_signed_zeros_in_index_order(largest):
    x = np.array([[0.0, -0.0, 2.0, 0.0, -1.0, 2.0, -0.0]], np.float32)
    for k in range(1, 8):
        vals, idx = paddle.topk(paddle.to_tensor(x), k, largest=largest)
        want = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
        assert np.array_equal(idx.numpy(), want)
        got = vals.numpy()
        assert np.array_equal(got, np.take_along_axis(x, want, -1))
        assert np.array_equal(np.signbit(got), np.signbit(np.take_along_axis(x, want, -1)))


def test_topk_gradient_lands_on_the_picked_elements():
    x = paddle.to_tensor(np.array([[3.0, 1.0, 3.0, 2.0], [0.5, 4.0, -1.0, 4.0]], np.float32),
                         stop_gradient=False)
    vals, idx = paddle.topk(x, 2)
    assert idx.numpy().tolist() == [[0, 2], [1, 3]]
    (vals * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 4.0]]


@pytest.mark.parametrize("largest", [True, False])
def test_topk_picks_the_stable_order(largest):
    for x in _rows(2):
        k = x.shape[-1] // 2 + 1
        vals, idx = paddle.topk(paddle.to_tensor(x), k, largest=largest)
        want = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
        assert np.array_equal(idx.numpy(), want)
        assert np.array_equal(vals.numpy(), np.take_along_axis(x, want, -1))


def test_kthvalue_picks_the_stable_order():
    for x in _rows(3):
        for k in (1, x.shape[-1]):
            vals, idx = paddle.kthvalue(paddle.to_tensor(x), k)
            want = np.argsort(x, axis=-1, kind="stable")[..., k - 1]
            assert np.array_equal(idx.numpy(), want)
            assert np.array_equal(vals.numpy(), np.take_along_axis(x, want[..., None], -1)[..., 0])


@pytest.mark.parametrize("nan", [False, True])
def test_cummax_and_cummin_indices_match_the_loop(nan):
    for x in _rows(4, nan):
        for fn, better in ((paddle.cummax, np.greater), (paddle.cummin, np.less)):
            vals, idx = fn(paddle.to_tensor(x), axis=-1)
            want = L._cumulative_loop(x, better)
            assert np.array_equal(idx.numpy(), want)
            assert np.array_equal(vals.numpy(), np.take_along_axis(x, want, -1),
                                  equal_nan=True)


@pytest.mark.parametrize("mode", ["avg", "min"])
def test_median_values_weights_and_indices_match_the_numpy_path(mode):
    for x in _rows(5):
        for axes in (None, (x.ndim - 1,)):
            for keepdim in (False, True):
                fast = O._median_compiled(x, axes, keepdim, mode, False)
                out = O._median_forward(x, axes, keepdim, mode)
                (w,) = O._median_weights(out, x, axes, keepdim, mode)
                assert fast is not None
                assert fast[0].dtype == out.dtype and np.array_equal(fast[0], out)
                assert fast[1][0].dtype == w.dtype and np.array_equal(fast[1][0], w)


def test_median_with_nan_takes_the_numpy_path():
    x = np.array([[1.0, np.nan, 2.0], [3.0, 1.0, 2.0]], np.float32)
    assert O._median_compiled(x, (1,), False, "avg", False) is None
    t = paddle.to_tensor(x, stop_gradient=False)
    m = paddle.median(t, axis=1)
    assert np.array_equal(m.numpy(), [np.nan, 2.0], equal_nan=True)
    m.sum().backward()
    assert np.array_equal(t.grad.numpy(), [[0, 1, 0], [0, 0, 1]])


def test_median_gradient_is_shared_by_ties():
    t = paddle.to_tensor(np.array([[2.0, 1.0, 2.0, 5.0, 0.0]], np.float32),
                         stop_gradient=False)
    paddle.median(t, axis=1).sum().backward()
    assert np.array_equal(t.grad.numpy(), [[0.5, 0, 0.5, 0, 0]])
