"""A pooling kernel larger than the padded input by less than a stride covers the whole input
in one window, as Paddle 3.3.1 sizes it (its C division truncates toward 0). Values and
gradients below were measured on Paddle 3.3.1."""

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional


def _x(shape):
    return paddle.to_tensor(np.arange(np.prod(shape), dtype="float32").reshape(shape) + 1,
                            stop_gradient=False)


def test_avg_pool2d_kernel_4_over_3x3_is_the_mean_of_all():
    x = _x([1, 1, 3, 3])
    y = F.avg_pool2d(x, 4)
    y.sum().backward()
    assert y.shape == [1, 1, 1, 1]
    np.testing.assert_array_equal(y.numpy().ravel(), [5.0])
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 1, 3, 3), 1 / 9, "float32"))


def test_avg_pool2d_not_exclusive_counts_the_padding_before_the_input_only():
    x = _x([1, 1, 3, 3])
    y = F.avg_pool2d(x, 4, padding=1, exclusive=False)      # Paddle: 45 / 16
    np.testing.assert_array_equal(y.numpy().ravel(), [2.8125])


@pytest.mark.parametrize("pool", ["max_pool2d", "max_pool2d_layer"])
def test_max_pool2d_kernel_4_over_3x3_picks_the_largest(pool):
    x = _x([1, 3, 3, 3])
    y = F.max_pool2d(x, 4) if pool == "max_pool2d" else paddle.nn.MaxPool2D(4)(x)
    y.sum().backward()
    np.testing.assert_array_equal(y.numpy().ravel(), [9.0, 18.0, 27.0])
    want = np.zeros(27, "float32")
    want[[8, 17, 26]] = 1
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)


def test_one_dimensional_and_three_dimensional_pools_take_one_window():
    x = _x([1, 1, 3])
    np.testing.assert_array_equal(F.avg_pool1d(x, 4).numpy().ravel(), [2.0])
    np.testing.assert_array_equal(F.max_pool1d(x, 4).numpy().ravel(), [3.0])
    v = _x([1, 1, 3, 3, 3])
    y = F.avg_pool3d(v, 4)
    y.sum().backward()
    np.testing.assert_array_equal(y.numpy().ravel(), [14.0])
    np.testing.assert_allclose(v.grad.numpy(), np.full((1, 1, 3, 3, 3), 1 / 27), rtol=1e-6)
    np.testing.assert_array_equal(F.max_pool3d(_x([1, 1, 3, 3, 3]), 4).numpy().ravel(), [27])


def test_lp_pool2d_kernel_4_over_3x3_is_the_norm_of_all():
    x = _x([1, 1, 3, 3])
    y = F.lp_pool2d(x, 2.0, 4)
    np.testing.assert_allclose(y.numpy().ravel(), [np.sqrt(285.0)], rtol=1e-6)


def test_ceil_mode_window_past_the_input_by_less_than_a_stride():
    # H = 3, k = 5, s = 2, ceil_mode: (3 - 5 + 1) / 2 truncates to 0, one window (Paddle)
    x = _x([1, 1, 3, 4])
    y = F.avg_pool2d(x, 5, stride=2, ceil_mode=True)
    assert y.shape == [1, 1, 1, 1]
    np.testing.assert_array_equal(y.numpy().ravel(), [6.5])


def test_kernel_larger_by_a_stride_or_more_raises():
    # Paddle 3.3.1 returns a [1, 3, 0, 0] tensor here; no window fits
    with pytest.raises(ValueError, match="no window fits"):
        F.avg_pool2d(_x([1, 3, 3, 3]), 4, stride=1)
    with pytest.raises(ValueError, match="no window fits"):
        F.max_pool2d(_x([1, 3, 3, 3]), 6, stride=2)
