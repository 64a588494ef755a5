"""interpolate's bicubic, trilinear and area modes (perf/paddle_cases/nn_more.py compares
them with Paddle 3.3.1)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional


def test_bicubic_keeps_a_constant_and_hits_the_corners_when_aligned():
    x = paddle.full([1, 1, 4, 5], 2.5)
    np.testing.assert_allclose(F.interpolate(x, size=[7, 3], mode="bicubic").numpy(), 2.5,
                               rtol=1e-6)
    ramp = np.arange(20, dtype="float32").reshape(1, 1, 4, 5)
    y = F.interpolate(paddle.to_tensor(ramp), size=[7, 9], mode="bicubic",
                      align_corners=True).numpy()
    assert y[0, 0, 0, 0] == 0.0 and y[0, 0, -1, -1] == 19.0
    np.testing.assert_allclose(y[0, 0, 3, 4], 9.5, rtol=1e-6)   # the centre of a ramp


def test_bicubic_weights_are_keys_kernel_with_a_minus_three_quarters():
    # doubling a 1 x 4 row: output 3 sits at source 1.25: taps 0..3 at distances
    # 1.25, 0.25, 0.75, 1.75
    x = paddle.to_tensor(np.array([[[[1.0, 0.0, 0.0, 0.0]]]], "float32"))
    y = F.interpolate(x, size=[1, 8], mode="bicubic").numpy()[0, 0, 0]
    A, d = -0.75, 1.25
    want = ((A * d - 5 * A) * d + 8 * A) * d - 4 * A
    assert y[3] == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("kw", [dict(size=[5, 7], mode="bicubic"),
                                dict(size=[2, 3], mode="bicubic", align_corners=True),
                                dict(size=[3, 2], mode="area")])
def test_2d_modes_gradients_match_finite_differences(kw):
    check_grads(lambda t: F.interpolate(t, **kw), np.random.default_rng(0).random((1, 2, 4, 3)))


@pytest.mark.parametrize("kw", [dict(size=[3, 2, 4], mode="trilinear"),
                                dict(scale_factor=2, mode="trilinear", align_corners=True),
                                dict(size=[1, 2, 2], mode="area")])
def test_3d_modes_gradients_match_finite_differences(kw):
    check_grads(lambda t: F.interpolate(t, **kw), np.random.default_rng(1).random((1, 1, 2, 3, 2)))


def test_trilinear_of_a_trilinear_function_is_exact():
    d, h, w = np.meshgrid(np.arange(3.0), np.arange(4.0), np.arange(5.0), indexing="ij")
    f = (1 + d) * (2 - 0.5 * h) + 0.25 * w
    y = F.interpolate(paddle.to_tensor(f[None, None]), size=[5, 7, 9], mode="trilinear",
                      align_corners=True).numpy()[0, 0]
    dd, hh, ww = np.meshgrid(np.linspace(0, 2, 5), np.linspace(0, 3, 7), np.linspace(0, 4, 9),
                             indexing="ij")
    np.testing.assert_allclose(y, (1 + dd) * (2 - 0.5 * hh) + 0.25 * ww, rtol=1e-12)


def test_area_is_adaptive_average_pooling():
    x = paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4))
    assert F.interpolate(x, size=[3, 3], mode="area").numpy()[0, 0].tolist() == \
        [[2.5, 3.5, 4.5], [6.5, 7.5, 8.5], [10.5, 11.5, 12.5]]


def test_bicubic_spreads_inf_and_nan_only_as_far_as_its_taps():
    x = np.zeros((1, 1, 8, 8), "float32")
    x[0, 0, 0, 0] = np.inf
    y = F.interpolate(paddle.to_tensor(x), size=[16, 16], mode="bicubic").numpy()[0, 0]
    assert not np.isfinite(y[:4, :4]).all() and np.isfinite(y[8:, 8:]).all()


@pytest.mark.parametrize("mode, shape", [("bilinear", (1, 1, 4)), ("linear", (1, 1, 4, 4)),
                                         ("trilinear", (1, 1, 4, 4)),
                                         ("bicubic", (1, 1, 2, 2, 2))])
def test_a_mode_for_another_rank_raises(mode, shape):
    with pytest.raises(ValueError, match=mode):
        F.interpolate(paddle.ones(list(shape)), scale_factor=2, mode=mode)


def test_area_needs_a_size():
    with pytest.raises(ValueError, match="size"):
        F.interpolate(paddle.ones([1, 1, 4]), scale_factor=2, mode="area")
