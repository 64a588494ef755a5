"""nn layers against Paddle 3.3.1 (nn hunt 24): configurations where jitgrad's result
differed silently, each pinned by the values Paddle gives."""

import jitgrad as paddle

nn = paddle.nn


def test_avg_pool2d_divisor_override_scales_the_exclusive_mean():
    # Paddle 3.3.1 returns pool2d's (exclusive) mean * kh * kw / divisor_override, not the
    # window sum over the divisor. Measured: AvgPool2D(3, 2, 1, divisor_override=4) on
    # arange(16) [1, 1, 4, 4] -> [5.625, 9, 19.125, 22.5] (the corner window sums 10 over
    # 4 elements: 10 / 4 * 9 / 4 = 5.625); ceil_mode=True -> [5.625, 9, 11.25, 19.125,
    # 22.5, 24.75, 28.125, 31.5, 33.75].
    x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    out = nn.AvgPool2D(3, 2, 1, divisor_override=4)(x)
    assert out.numpy().ravel().tolist() == [5.625, 9.0, 19.125, 22.5]
    ceil = nn.AvgPool2D(3, 2, 1, ceil_mode=True, divisor_override=4)(x)
    assert ceil.numpy().ravel().tolist() == [5.625, 9.0, 11.25, 19.125, 22.5, 24.75,
                                             28.125, 31.5, 33.75]


def test_avg_pool2d_divisor_override_inclusive_is_the_sum_over_it():
    # exclusive=False: Paddle's mean counts the padding, so its result is sum / divisor:
    # measured [2.5, 6, 12.75, 22.5]
    x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    out = nn.AvgPool2D(3, 2, 1, exclusive=False, divisor_override=4)(x)
    assert out.numpy().ravel().tolist() == [2.5, 6.0, 12.75, 22.5]


def test_avg_pool2d_divisor_override_gradient_is_the_scaled_window_share():
    # d out / d x = kh * kw / (count * divisor) for each window holding x: the corner
    # window (4 elements) gives 9 / 16 to x[0, 0], measured 0.5625 in Paddle
    x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    x.stop_gradient = False
    nn.AvgPool2D(3, 2, 1, divisor_override=4)(x).sum().backward()
    assert x.grad.numpy()[0, 0, 0, 0] == 0.5625


def test_avg_pool3d_divisor_override_scales_the_exclusive_mean():
    # Paddle 3.3.1: pool3d's mean * kd * kh * kw / divisor_override. On arange(8)
    # [1, 1, 2, 2, 2] with kernel 3, stride 2, padding 1 the one window holds all 8
    # (sum 28): 28 / 8 * 27 / 4 = 23.625 (measured); exclusive=False: 28 / 4 = 7
    x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
    assert nn.AvgPool3D(3, 2, 1, divisor_override=4)(x).item() == 23.625
    assert nn.AvgPool3D(3, 2, 1, exclusive=False, divisor_override=4)(x).item() == 7.0
