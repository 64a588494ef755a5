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


def test_interpolate_scale_that_keeps_the_size_copies_the_input():
    # floor(4 * 1.2) = 4, floor(3 * 1.2) = 3: Paddle 3.3.1's kernels copy the input when no
    # spatial size changes, whatever the scale (measured: bilinear, bicubic, nearest and
    # trilinear give x back, the gradient passes unchanged); the 1 / 1.2 coordinate map
    # would give bilinear [0, 0.75, 1.5833, 2.25] for the first row
    x = paddle.arange(12, dtype="float32").reshape([1, 1, 4, 3])
    x.stop_gradient = False
    for mode in ("nearest", "bilinear", "bicubic"):
        y = nn.Upsample(scale_factor=1.2, mode=mode)(x)
        assert y.numpy().ravel().tolist() == list(range(12))
    w = paddle.arange(12, dtype="float32").reshape([1, 1, 4, 3])
    (nn.Upsample(scale_factor=1.2, mode="bilinear")(x) * w).sum().backward()
    assert x.grad.numpy().ravel().tolist() == list(range(12))
    x3 = paddle.arange(24, dtype="float32").reshape([1, 1, 2, 4, 3])
    y3 = nn.Upsample(scale_factor=1.2, mode="trilinear")(x3)
    assert y3.numpy().ravel().tolist() == list(range(24))


def test_interpolate_scale_that_keeps_one_size_still_resamples_the_other():
    # scale [1.13, 1.5] on [4, 3] -> [4, 4]: not a copy; Paddle 3.3.1 measured bilinear
    # first column [0, 2.482301, 5.1371684, 7.7920356] (the height mapped by 1 / 1.13)
    x = paddle.arange(12, dtype="float32").reshape([1, 1, 4, 3])
    y = nn.functional.interpolate(x, scale_factor=[1.13, 1.5], mode="bilinear")
    assert y.shape == [1, 1, 4, 4]
    assert abs(y.numpy()[0, 0, :, 0] - [0.0, 2.482301, 5.1371684, 7.7920356]).max() < 1e-5


def test_interpolate_same_size_output_is_a_new_tensor():
    # a copy, as Paddle's: writing into the result leaves x alone
    x = paddle.ones([1, 1, 2, 2])
    y = nn.functional.interpolate(x, scale_factor=1.3, mode="bilinear")
    y[0, 0, 0, 0] = 5.0
    assert x.numpy().ravel().tolist() == [1.0, 1.0, 1.0, 1.0]


def test_bilinear_and_bicubic_to_size_one_read_from_the_start():
    # Paddle 3.3.1's 2-D kernels set the ratio of a dim resized to 1 to 0 (align_corners
    # False): bilinear reads source index 0, bicubic the taps around -0.5. Measured on
    # arange(6) as [1, 1, 6, 1] to [1, 1]: bilinear 0.0, bicubic -0.09375 (weights
    # 1.09375 on x[0], -0.09375 on x[1]), and bicubic's x gradient of y * y
    # [-0.20507812, 0.01757812, 0, 0, 0, 0]; trilinear (5-D) keeps the centre, 2.5
    x = paddle.arange(6, dtype="float32").reshape([1, 1, 6, 1])
    x.stop_gradient = False
    F = nn.functional
    assert F.interpolate(x, size=[1, 1], mode="bilinear").item() == 0.0
    y = F.interpolate(x, size=[1, 1], mode="bicubic")
    assert y.item() == -0.09375
    (y * y).sum().backward()
    assert abs(x.grad.numpy().ravel() - [-0.20507812, 0.01757812, 0, 0, 0, 0]).max() < 1e-7
    x5 = paddle.arange(6, dtype="float32").reshape([1, 1, 6, 1, 1])
    assert F.interpolate(x5, size=[1, 1, 1], mode="trilinear").item() == 2.5


def test_bilinear_scale_that_leaves_one_row_reads_the_first():
    # scale [0.2, 1] on [6, 2]: one row; Paddle 3.3.1 measured [0, 1] (row 0), not row 2
    x = paddle.arange(12, dtype="float32").reshape([1, 1, 6, 2])
    y = nn.Upsample(scale_factor=[0.2, 1], mode="bilinear")(x)
    assert y.numpy().ravel().tolist() == [0.0, 1.0]
