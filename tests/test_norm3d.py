"""BatchNorm3D, InstanceNorm3D and SyncBatchNorm (perf/paddle_cases/norm3d.py compares them
with Paddle 3.3.1)."""

import numpy as np

import jitgrad as paddle
from jitgrad.testing import check_grads


def test_batch_norm_3d_normalises_over_n_and_the_spatial_dims():
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 3, 4))
    bn = paddle.nn.BatchNorm3D(3)
    out = bn(paddle.to_tensor(x.astype("float32"))).numpy()
    mean, var = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * mean.ravel(), rtol=1e-5, atol=1e-7)
    bn.eval()
    assert bn(paddle.to_tensor(x.astype("float32"))).shape == [2, 3, 2, 3, 4]


def test_instance_norm_3d_gradients():
    layer = paddle.nn.InstanceNorm3D(2)
    layer.to(dtype="float64")
    w = paddle.to_tensor(np.linspace(0.5, 1.5, 2 * 2 * 2 * 2 * 3).reshape(2, 2, 2, 2, 3))
    check_grads(lambda t: layer(t) * w,
                np.random.default_rng(1).standard_normal((2, 2, 2, 2, 3)))


def test_sync_batch_norm_is_batch_norm_in_one_process():
    x = paddle.to_tensor(np.random.default_rng(2).standard_normal((4, 3, 5, 5)).astype("float32"))
    sync, plain = paddle.nn.SyncBatchNorm(3), paddle.nn.BatchNorm2D(3)
    assert sync(x).tolist() == plain(x).tolist()
    model = paddle.nn.Sequential(paddle.nn.Conv2D(3, 3, 1), paddle.nn.BatchNorm2D(3))
    converted = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted[1]) is paddle.nn.SyncBatchNorm
