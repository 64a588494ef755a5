"""affine_grid and grid_sample (perf/paddle_cases/grid_sample.py compares every mode,
padding and corner convention with Paddle 3.3.1, gradients included)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor


def test_identity_theta_samples_the_image_itself():
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 5))
    theta = TT(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]))
    for ac in (True, False):
        grid = F.affine_grid(theta, [1, 2, 4, 5], align_corners=ac)
        out = F.grid_sample(TT(x), grid, align_corners=ac).numpy()
        np.testing.assert_allclose(out, x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_bilinear_gradients_reach_the_image_and_the_grid(padding_mode):
    rng = np.random.default_rng(1)
    grid = rng.uniform(-1.2, 1.2, (1, 3, 2, 2))
    grid[np.abs((grid + 1) * 1.5 - np.round((grid + 1) * 1.5)) < 0.05] += 0.1   # off the kinks
    check_grads(lambda x, g: F.grid_sample(x, g, padding_mode=padding_mode),
                rng.standard_normal((1, 2, 4, 4)), grid)


def test_affine_grid_gradient_and_bad_arguments():
    # the grid is linear in theta: d(sum grid * w)/d theta by finite differences
    w = TT(np.random.default_rng(2).standard_normal((1, 2, 2, 2)))
    check_grads(lambda t: F.affine_grid(t, [1, 1, 2, 2], align_corners=False) * w,
                np.array([[[0.9, 0.1, 0.05], [-0.1, 0.8, 0.1]]]))
    with pytest.raises(ValueError, match="mode"):
        F.grid_sample(TT(np.ones((1, 1, 2, 2))), TT(np.zeros((1, 1, 1, 2))), mode="bicubic")
    with pytest.raises(ValueError, match=r"\[N, 2, 3\]"):
        F.affine_grid(TT(np.ones((1, 3, 3))), [1, 1, 2, 2])


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_samples_outside_the_image_are_plus_zero(mode):
    # Paddle 3.3.1 gives 0.0 there, not -0.0 (which prints as "-0.")
    x = paddle.to_tensor(-np.ones((1, 1, 2, 2), "float32"))
    grid = paddle.to_tensor(np.full((1, 1, 2, 2), 5.0, "float32"))     # far outside
    out = F.grid_sample(x, grid, mode=mode, padding_mode="zeros").numpy()
    assert (out == 0).all() and not np.signbit(out).any()


def test_diag_embed_is_in_nn_functional_too():
    v = paddle.to_tensor([[1.0, 2.0]])
    assert F.diag_embed(v).tolist() == [[[1.0, 0.0], [0.0, 2.0]]]


def test_identity_theta_samples_a_volume_itself():
    x = np.random.default_rng(3).standard_normal((2, 2, 3, 4, 5))
    theta = TT(np.tile(np.eye(3, 4), (2, 1, 1)))
    for ac in (True, False):
        grid = F.affine_grid(theta, [2, 2, 3, 4, 5], align_corners=ac)
        assert grid.shape == [2, 3, 4, 5, 3]
        out = F.grid_sample(TT(x), grid, align_corners=ac).numpy()
        np.testing.assert_allclose(out, x, rtol=1e-12, atol=1e-12)


def test_trilinear_sample_is_the_weighted_mean_of_eight_corners():
    x = np.arange(8.0).reshape(1, 1, 2, 2, 2)          # x[d, h, w] = 4 d + 2 h + w
    grid = TT(np.array([0.25, -0.5, 0.5]).reshape(1, 1, 1, 1, 3))   # (x, y, z)
    out = F.grid_sample(TT(x), grid, align_corners=True).numpy()
    # align_corners: w = 0.625, h = 0.25, d = 0.75; the value is linear: 4 d + 2 h + w
    np.testing.assert_allclose(out.ravel(), [4 * 0.75 + 2 * 0.25 + 0.625], rtol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_trilinear_gradients_reach_the_volume_and_the_grid(padding_mode):
    rng = np.random.default_rng(4)
    grid = rng.uniform(-1.2, 1.2, (1, 2, 2, 1, 3))
    grid[np.abs((grid + 1) * 1.5 - np.round((grid + 1) * 1.5)) < 0.05] += 0.1   # off the kinks
    check_grads(lambda x, g: F.grid_sample(x, g, padding_mode=padding_mode),
                rng.standard_normal((1, 2, 4, 4, 4)), grid)


def test_affine_grid_3d_gradient_and_shapes():
    w = TT(np.random.default_rng(5).standard_normal((1, 2, 2, 3, 3)))
    check_grads(lambda t: F.affine_grid(t, [1, 1, 2, 2, 3], align_corners=False) * w,
                np.array([[[0.9, 0.1, 0.05, 0.0], [-0.1, 0.8, 0.1, 0.2], [0.0, 0.1, 1.1, 0.0]]]))
    with pytest.raises(ValueError, match=r"\[N, 3, 4\]"):
        F.affine_grid(TT(np.ones((1, 2, 3))), [1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match="grid"):
        F.grid_sample(TT(np.ones((1, 1, 2, 2, 2))), TT(np.zeros((1, 1, 1, 1, 2))))
