"""nn.Softmax2D, nn.SpectralNorm, nn.init and the torch-style aliases (perf/paddle_cases/
nn_more.py compares them with Paddle 3.3.1)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads


def test_softmax2d_normalises_over_the_channels():
    x = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 2, 2))
    y = paddle.nn.Softmax2D()(x).numpy()
    np.testing.assert_allclose(y.sum(axis=1), np.ones((2, 2, 2)), rtol=1e-6)
    with pytest.raises(ValueError, match="3D or 4D"):
        paddle.nn.Softmax2D()(paddle.ones([2, 3]))


def _spectral(dim=0, iters=1):
    sn = paddle.nn.SpectralNorm([3, 4], dim=dim, power_iters=iters)
    sn.weight_u.set_value(np.array([1.0, 0.5, -0.5] if dim == 0 else [1.0, 0.0, 0.5, 0.2],
                                   "float32"))
    sn.weight_v.set_value(np.array([0.3, -1.0, 0.2, 0.1] if dim == 0 else [0.5, 1.0, -1.0],
                                   "float32"))
    return sn


def test_spectral_norm_divides_by_the_power_iteration_estimate():
    w = np.array([[2.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, 0.5, 0]], "float32")
    sn = _spectral(iters=20)
    out = sn(paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(out, w / 2.0, rtol=1e-5)     # sigma_max = 2
    u = sn.weight_u.numpy().copy()
    sn(paddle.to_tensor(w))
    np.testing.assert_array_equal(sn.weight_u.numpy(), u)  # never updated, as in Paddle
    assert [n for n, _ in sn.named_parameters()] == ["weight_u", "weight_v"]
    assert sn.weight_u.stop_gradient and sn.weight_v.stop_gradient


@pytest.mark.parametrize("dim, iters", [(0, 1), (1, 2), (0, 0)])
def test_spectral_norm_gradient_matches_finite_differences(dim, iters):
    sn = _spectral(dim, iters)
    w = np.random.default_rng(dim).standard_normal((3, 4))
    check_grads(lambda t: sn(t), w)


def test_spectral_norm_rejects_a_weight_of_another_shape():
    with pytest.raises(ValueError, match="weight_shape"):
        _spectral()(paddle.ones([4, 3]))
    with pytest.raises(ValueError, match="dim"):
        paddle.nn.SpectralNorm([3, 4], dim=2)


def test_init_functions_fill_in_place_and_return_none():
    t = paddle.zeros([3, 4])
    assert paddle.nn.init.ones_(t) is None and t.numpy().tolist() == [[1.0] * 4] * 3
    paddle.nn.init.eye_(t)
    np.testing.assert_array_equal(t.numpy(), np.eye(3, 4, dtype="float32"))
    paddle.nn.init.constant_(t, 0.5)
    assert (t.numpy() == 0.5).all()
    c = paddle.zeros([4, 2, 3, 3])
    paddle.nn.init.dirac_(c, groups=2)
    assert c.numpy()[:, :, 1, 1].tolist() == [[1, 0], [0, 1], [1, 0], [0, 1]]
    with pytest.raises(ValueError, match="2-D"):
        paddle.nn.init.eye_(paddle.zeros([2, 2, 2]))


def test_random_init_functions_keep_their_bounds():
    paddle.seed(0)
    t = paddle.zeros([200, 300])
    paddle.nn.init.kaiming_uniform_(t)             # gain sqrt(2), fan_in 200
    bound = np.sqrt(2.0) * np.sqrt(3.0 / 200)
    assert np.abs(t.numpy()).max() <= bound and t.numpy().std() > 0.9 * bound / np.sqrt(3)
    paddle.nn.init.trunc_normal_(t, a=-1.0, b=1.0)
    assert np.abs(t.numpy()).max() <= 1.0
    paddle.nn.init.orthogonal_(t)
    np.testing.assert_allclose(t.numpy() @ t.numpy().T, np.eye(200), atol=1e-4)


def test_torch_style_aliases_are_the_same_classes():
    nn = paddle.nn
    assert nn.Conv2d is nn.Conv2D and nn.Module is nn.Layer and nn.HuberLoss is nn.SmoothL1Loss
    assert nn.AdaptiveAvgPool3d is nn.AdaptiveAvgPool3D and nn.MaxUnpool1d is nn.MaxUnPool1D
