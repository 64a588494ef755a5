"""ops/pool_fractional.py and its layers (perf/paddle_cases/pool_fractional.py compares them
with Paddle 3.3.1: values, masks and gradients)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config
from jitgrad.compile import executor
from jitgrad.ops.pool_fractional import intervals
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor
LOWEST = np.float32(-np.finfo(np.float32).max)

# a 5x5 image with a tie: 8 at (2, 1) and (3, 1), both in window (1, 0)
IMG = np.array([[3, 1, 4, 1, 5],
                [9, 2, 6, 5, 3],
                [5, 8, 9, 7, 9],
                [3, 8, 3, 8, 4],
                [6, 2, 6, 4, 3]], "float32")


def test_windows_follow_paddles_sequence():
    # Paddle's docstring: length 7, output 5, u = 0.3 -> starts [0, 1, 3, 4, 6]
    starts, ends = intervals(7, 5, 0, 0.3)
    assert starts.tolist() == [0, 1, 3, 4, 6] and ends.tolist() == [1, 3, 4, 6, 7]
    y = F.fractional_max_pool2d(TT(np.array([[[[2, 4, 3, 1, 5, 2, 3]]]], "float32")), [1, 5],
                                random_u=0.3)
    assert y.numpy().ravel().tolist() == [2, 4, 1, 5, 3]
    # 5 -> 3, u = 0.5: alpha = 5/3, u scaled to 0.5 * min(3/alpha - 1, 5/alpha - 2) = 0.4
    assert [a.tolist() for a in intervals(5, 3, 0, 0.5)] == [[0, 2, 4], [2, 4, 5]]
    # overlapping, kernel 2: alpha = (5 - 2) / (3 - 1) = 1.5, starts int((i + u) * 1.5)
    assert [a.tolist() for a in intervals(5, 3, 2, 0.5)] == [[0, 2, 3], [2, 4, 5]]


def test_hand_worked_5x5_values_mask_and_gradient():
    # windows [0, 2), [2, 4), [4, 5) along both dims
    x = TT(IMG[None, None], stop_gradient=False)
    y, mask = F.fractional_max_pool2d(x, 3, random_u=0.5, return_mask=True)
    assert y.shape == [1, 1, 3, 3] and y.dtype == paddle.float32
    assert y.numpy()[0, 0].tolist() == [[9, 6, 5], [8, 9, 9], [6, 6, 3]]
    assert mask.dtype == paddle.int32
    # flat index h * W + w; the tie of 8s goes to the first in row-major order (11, not 16)
    assert mask.numpy()[0, 0].tolist() == [[5, 7, 4], [11, 12, 14], [20, 22, 24]]
    y.sum().backward()
    want = np.zeros(25, "float32")
    want[[5, 7, 4, 11, 12, 14, 20, 22, 24]] = 1
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)


def test_overlapping_windows_share_a_winner_and_sum_its_gradients():
    # kernel 2, windows [0, 2), [2, 4), [3, 5): columns 3 of the last two overlap
    x = TT(IMG[None, None], stop_gradient=False)
    y, mask = F.fractional_max_pool2d(x, 3, kernel_size=2, random_u=0.5, return_mask=True)
    assert y.numpy()[0, 0].tolist() == [[9, 6, 5], [8, 9, 9], [8, 8, 8]]
    # (3, 1) = 16 lost the tie in window (1, 0) but wins window (2, 0) (Paddle 3.3.1)
    assert mask.numpy()[0, 0].tolist() == [[5, 7, 4], [11, 12, 14], [16, 18, 18]]
    y.sum().backward()
    want = np.zeros(25, "float32")
    np.add.at(want, [5, 7, 4, 11, 12, 14, 16, 18, 18], 1)
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)     # 18 won two windows


def test_nan_never_wins_and_an_all_nan_window_gives_lowest_and_mask_minus_one():
    x = TT(np.array([[[[np.nan, np.nan], [1, 2], [np.nan, 7]]]], "float32"),
           stop_gradient=False)
    y, mask = F.fractional_max_pool2d(x, [3, 1], random_u=0.5, return_mask=True)
    assert y.numpy().ravel().tolist() == [LOWEST, 2, 7]
    assert mask.numpy().ravel().tolist() == [-1, 3, 5]
    y.sum().backward()
    assert x.grad.numpy().ravel().tolist() == [0, 0, 0, 1, 0, 1]


def test_3d_mask_is_the_flat_index_in_the_volume():
    x = TT(np.arange(2 * 4 * 5 * 6, dtype="float64").reshape(1, 2, 4, 5, 6))
    y, mask = F.fractional_max_pool3d(x, [2, 3, None], random_u=0.25, return_mask=True)
    assert y.shape == [1, 2, 2, 3, 6] and y.dtype == paddle.float64
    flat = x.numpy().reshape(2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, -1), 1),
                                  y.numpy().reshape(2, -1))
    # increasing input: each window's last element wins; the last window ends at the edge
    assert mask.numpy()[0, 0, -1, -1, -1] == 4 * 5 * 6 - 1


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    check_grads(lambda t: F.fractional_max_pool2d(t, [3, 4], random_u=0.7),
                rng.standard_normal((2, 2, 7, 9)))
    check_grads(lambda t: F.fractional_max_pool2d(t, 3, kernel_size=[3, 2], random_u=0.4),
                rng.standard_normal((1, 2, 6, 5)))
    check_grads(lambda t: F.fractional_max_pool3d(t, 2, kernel_size=2, random_u=0.6),
                rng.standard_normal((1, 2, 4, 3, 5)))


def test_fresh_graphs_of_one_structure_give_each_their_own_gradient(monkeypatch):
    # the production path: the first backward interpreted, the next lowered and cached, the
    # third a cache hit; each graph's winners (other data) must get the gradients
    monkeypatch.setattr(config.SETTINGS, "program_cache", True)
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    monkeypatch.setattr(config.SETTINGS, "verify_cache", True)     # a hit is re-lowered
    executor.cache_clear()
    rng = np.random.default_rng(3)
    c = TT(np.linspace(0.5, 1.5, 2 * 3 * 3 * 4).reshape(2, 3, 3, 4).astype("float32"))
    try:
        for _ in range(4):
            data = rng.standard_normal((2, 3, 8, 9)).astype("float32")
            x = TT(data, stop_gradient=False)
            y, mask = F.fractional_max_pool2d(x, [3, 4], kernel_size=[3, 2], random_u=0.35,
                                              return_mask=True)
            (y * c).sum().backward()
            want = np.zeros((6, 72), "float32")
            np.add.at(want, (np.arange(6)[:, None], mask.numpy().reshape(6, -1)),
                      c.numpy().reshape(6, -1))
            np.testing.assert_array_equal(x.grad.numpy().reshape(6, -1), want)
        assert executor.cache_info().hits >= 2          # the Program served later graphs
    finally:
        executor.cache_clear()


def test_random_u_none_gives_the_shape_and_window_maxima():
    paddle.seed(7)
    x = TT(np.random.default_rng(1).standard_normal((2, 3, 11, 10)).astype("float32"))
    y, mask = F.fractional_max_pool2d(x, [4, 6], return_mask=True)
    assert y.shape == [2, 3, 4, 6] and mask.shape == [2, 3, 4, 6]
    flat = x.numpy().reshape(6, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(6, -1), 1),
                                  y.numpy().reshape(6, -1))
    # every output is the maximum of its disjoint window for some u in (0, 1)
    ramp = TT(np.arange(110, dtype="float32").reshape(1, 1, 11, 10))
    rows, cols = np.divmod(F.fractional_max_pool2d(ramp, [4, 6], return_mask=True)[1]
                           .numpy()[0, 0], 10)
    assert (np.diff(rows[:, 0]) > 0).all() and (np.diff(cols[0]) > 0).all()
    assert rows[-1, 0] == 10 and cols[0, -1] == 9
    paddle.seed(7)
    again = F.fractional_max_pool2d(x, [4, 6])
    np.testing.assert_array_equal(again.numpy(), y.numpy())        # the seed fixes u


def test_dtypes_are_kept():
    for dt in ("float16", "float32", "float64"):
        y = F.fractional_max_pool2d(TT(IMG[None, None].astype(dt)), 3, random_u=0.5)
        assert y.dtype == getattr(paddle, dt)
        assert y.numpy()[0, 0].tolist() == [[9, 6, 5], [8, 9, 9], [6, 6, 3]]


def test_layers_call_the_functions_and_repr_as_paddle():
    x = TT(IMG[None, None])
    layer = paddle.nn.FractionalMaxPool2D(3, random_u=0.5, return_mask=True)
    assert repr(layer) == "FractionalMaxPool2D(output_size=3, return_mask=True)"
    y, mask = layer(x)
    assert mask.numpy()[0, 0, 1].tolist() == [11, 12, 14]
    layer3 = paddle.nn.FractionalMaxPool3D([2, 3, None], kernel_size=[2, 2, 1], random_u=0.5)
    assert repr(layer3) == "FractionalMaxPool3D(output_size=[2, 3, None], return_mask=False)"
    assert layer3(TT(np.ones((1, 1, 3, 4, 5), "float32"))).shape == [1, 1, 2, 3, 5]


@pytest.mark.parametrize("kwargs, match", [
    (dict(output_size=0), "positive ints"),
    (dict(output_size=[2, -1]), "positive ints"),
    (dict(output_size=[2, 2, 2]), "output_size must be an int or 2 values"),
    (dict(output_size=6), "larger than the input size"),
    (dict(output_size=3, kernel_size=4), "too small for output size"),
    (dict(output_size=3, kernel_size=-1), "non-negative ints"),
    (dict(output_size=3, kernel_size=[2, 2, 2]), "kernel_size must be an int or 2 values"),
    (dict(output_size=3, random_u=0.0), r"open interval \(0, 1\)"),
    (dict(output_size=3, random_u=1.0), r"open interval \(0, 1\)"),
    (dict(output_size=3, random_u=float("nan")), r"open interval \(0, 1\)"),
])
def test_bad_arguments_raise_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        F.fractional_max_pool2d(TT(IMG[None, None]), **kwargs)


def test_wrong_rank_and_integer_input_are_refused():
    with pytest.raises(ValueError, match="needs a 4-D input"):
        F.fractional_max_pool2d(TT(IMG[None]), 2, random_u=0.5)
    with pytest.raises(ValueError, match="needs a 5-D input"):
        F.fractional_max_pool3d(TT(IMG[None, None]), 2, random_u=0.5)
    with pytest.raises(TypeError, match="float tensor"):
        F.fractional_max_pool2d(TT(IMG[None, None].astype("int32")), 2, random_u=0.5)
