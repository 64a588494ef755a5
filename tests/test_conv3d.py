"""3-D convolution and pooling (ops/conv3d.py): against a direct numpy loop, gradients
against finite differences (perf/paddle_cases/conv3d.py compares them with Paddle 3.3.1)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor


def _conv3d_loop(x, w, stride, pad, dil):
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    N, C, D, H, W = xp.shape
    O, _, kd, kh, kw = w.shape
    out = [(n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip((D, H, W), (kd, kh, kw), stride,
                                                                dil)]
    y = np.zeros((N, O, *out))
    for a in range(out[0]):
        for b in range(out[1]):
            for c in range(out[2]):
                win = xp[:, :, a * stride[0]:a * stride[0] + dil[0] * (kd - 1) + 1:dil[0],
                         b * stride[1]:b * stride[1] + dil[1] * (kh - 1) + 1:dil[1],
                         c * stride[2]:c * stride[2] + dil[2] * (kw - 1) + 1:dil[2]]
                y[:, :, a, b, c] = np.einsum("ncdhw,ocdhw->no", win, w)
    return y


def test_conv3d_equals_a_direct_loop():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 5, 6, 4)), rng.standard_normal((4, 3, 2, 3, 2))
    got = F.conv3d(TT(x), TT(w), stride=[2, 1, 1], padding=[1, 0, 1], dilation=[1, 1, 2])
    np.testing.assert_allclose(got.numpy(), _conv3d_loop(x, w, (2, 1, 1), (1, 0, 1), (1, 1, 2)),
                               rtol=1e-10, atol=1e-10)


def test_conv3d_gradients_with_groups_and_bias():
    rng = np.random.default_rng(1)
    check_grads(lambda x, w, b: F.conv3d(x, w, b, padding=1, groups=2),
                rng.standard_normal((1, 4, 3, 3, 3)), rng.standard_normal((2, 2, 2, 2, 2)),
                rng.standard_normal(2))


@pytest.mark.parametrize("fn, kw", [(F.max_pool3d, {}), (F.avg_pool3d, {}),
                                    (F.avg_pool3d, {"exclusive": False}),
                                    (F.max_pool3d, {"ceil_mode": True})])
def test_pools_3d_gradients(fn, kw):
    x = np.random.default_rng(2).permutation(2 * 2 * 4 * 5 * 5).reshape(2, 2, 4, 5, 5) / 10.0
    check_grads(lambda t: fn(t, 3, stride=2, padding=1, **kw), x)


@pytest.mark.parametrize("kw, want", [
    # Paddle 3.3.1: past the end a window counts only as much padding as before the start
    (dict(kernel_size=[1, 3, 3], stride=[1, 3, 3], padding="SAME"),
     [7.0, 10.0, 22.0, 25.0, 37.0, 40.0, 52.0, 55.0]),
    (dict(kernel_size=[1, 3, 3], stride=[1, 2, 2], padding=[0, 0, 0, 1, 1, 0], ceil_mode=True),
     [13 / 3, 8, 10, 37 / 3, 20, 22, 49 / 3, 26, 28, 73 / 3, 38, 40, 97 / 3, 50, 52, 109 / 3,
      56, 58]),
])
def test_avg_pool3d_inclusive_counts_padding_as_paddle(kw, want):
    x = np.arange(60, dtype="float64").reshape(1, 1, 2, 5, 6)
    got = F.avg_pool3d(TT(x), exclusive=False, **kw).numpy().ravel()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grads(lambda t: F.avg_pool3d(t, exclusive=False, **kw), x / 30.0)


def test_max_pool3d_is_the_window_maximum():
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 4, 4))
    got = F.max_pool3d(TT(x), 2).numpy()
    want = x.reshape(1, 1, 2, 2, 2, 2, 2, 2).max(axis=(3, 5, 7))
    np.testing.assert_array_equal(got, want)
    assert F.avg_pool3d(TT(x), 2).numpy() == pytest.approx(
        x.reshape(1, 1, 2, 2, 2, 2, 2, 2).mean(axis=(3, 5, 7)))


def test_layers_3d_and_errors():
    conv = paddle.nn.Conv3D(2, 3, 2)
    assert conv.weight.shape == [3, 2, 2, 2, 2]
    assert conv(TT(np.ones((1, 2, 3, 3, 3), "float32"))).shape == [1, 3, 2, 2, 2]
    assert paddle.nn.MaxPool3D(2)(TT(np.ones((1, 1, 4, 4, 4), "float32"))).shape == [1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match="5-D input"):
        F.conv3d(TT(np.ones((1, 2, 3, 3), "float32")), conv.weight)
    with pytest.raises(ValueError, match="do not fit"):
        F.conv3d(TT(np.ones((1, 3, 3, 3, 3), "float32")), conv.weight)


def test_adaptive_pools_3d():
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 4, 3))
    got = F.adaptive_avg_pool3d(TT(x), [2, 2, 1]).numpy()
    assert got[0, 0, 0, 0, 0] == pytest.approx(x[0, 0, 0:3, 0:2, :].mean())
    assert got[0, 1, 1, 1, 0] == pytest.approx(x[0, 1, 2:5, 2:4, :].mean())
    top = F.adaptive_max_pool3d(TT(x), [2, 1, 1]).numpy()
    assert top[0, 0, 1, 0, 0] == x[0, 0, 2:5].max()
    check_grads(lambda t: F.adaptive_avg_pool3d(t, [2, 3, 2]), x)
    check_grads(lambda t: F.adaptive_max_pool3d(t, [3, 2, 2]), x)
    assert paddle.nn.AdaptiveAvgPool3D([None, 1, 1])(TT(x)).shape == [1, 2, 5, 1, 1]


def test_conv3d_transpose_is_the_gradient_of_conv3d():
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 2, 2, 3, 2))            # conv3d: 2 -> 3 channels
    x = TT(rng.standard_normal((1, 2, 5, 6, 4)), stop_gradient=False)
    y = F.conv3d(x, TT(w), stride=[2, 1, 2], padding=1)
    g = rng.standard_normal(y.shape)
    (y * TT(g)).sum().backward()
    back = F.conv3d_transpose(TT(g), TT(w), stride=[2, 1, 2], padding=1,
                              output_size=[5, 6, 4])
    np.testing.assert_allclose(back.numpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)
    check_grads(lambda a, b: F.conv3d_transpose(a, b, stride=2, groups=2),
                rng.standard_normal((1, 4, 2, 2, 2)), rng.standard_normal((4, 1, 2, 2, 2)))
    layer = paddle.nn.Conv3DTranspose(2, 3, 2, stride=2)
    assert layer.weight.shape == [2, 3, 2, 2, 2]
    assert layer(TT(np.ones((1, 2, 2, 2, 2), "float32"))).shape == [1, 3, 4, 4, 4]


@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
def test_conv3d_layer_circular_padding_wraps_around(data_format):
    # a 3x3x3 kernel of ones over a circularly padded input: each output is the sum of the
    # 27 wrapped neighbours, and each input reaches 27 outputs
    rng = np.random.default_rng(3)
    v = rng.standard_normal((1, 1, 3, 4, 5))
    conv = paddle.nn.Conv3D(1, 1, 3, padding=1, padding_mode="circular", bias_attr=False,
                            data_format=data_format)
    conv.weight.set_value(np.ones((1, 1, 3, 3, 3), "float32"))
    x = paddle.to_tensor((v if data_format == "NCDHW" else v.transpose(0, 2, 3, 4, 1))
                         .astype("float32"), stop_gradient=False)
    y = conv(x)
    y.sum().backward()
    want = sum(np.roll(v, (a, b, c), axis=(2, 3, 4))
               for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1))
    got = y.numpy() if data_format == "NCDHW" else y.numpy().transpose(0, 4, 1, 2, 3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), np.full(x.shape, 27.0), rtol=1e-6)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_conv3d_layer_padding_mode_is_pad_then_convolve(mode):
    rng = np.random.default_rng(4)
    conv = paddle.nn.Conv3D(2, 3, 3, padding=1, padding_mode=mode)
    x = paddle.to_tensor(rng.standard_normal((1, 2, 3, 4, 3)).astype("float32"))
    want = F.conv3d(F.pad(x, [1] * 6, mode=mode), conv.weight, conv.bias)
    np.testing.assert_array_equal(conv(x).numpy(), want.numpy())


def test_max_pool3d_gives_a_tie_to_the_first_maximum():
    # all-zero windows (after a ReLU): the first element of each window gets the whole
    # gradient, as Paddle 3.3.1 and torch give it (it was split across depth slices)
    x = paddle.zeros([1, 1, 2, 2, 4])
    x.stop_gradient = False
    y = F.max_pool3d(x, 2, 2)
    (y * TT([1.0, 2.0]).reshape(y.shape)).sum().backward()
    want = np.zeros(16, "float32")
    want[[0, 2]] = [1.0, 2.0]
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)
    v = TT(np.array([[[1.0, 5.0], [2.0, 0.0]], [[5.0, 0.0], [1.0, 1.0]]], "float32")
           .reshape(1, 1, 2, 2, 2), stop_gradient=False)
    F.max_pool3d(v, 2, 2).sum().backward()                 # 5 at (0, 0, 1) and (1, 0, 0)
    assert v.grad.numpy().ravel().tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    z = paddle.zeros([1, 1, 2, 2, 4])
    z.stop_gradient = False
    a = F.adaptive_max_pool3d(z, [1, 1, 3])
    (a * TT([1.0, 2.0, 3.0]).reshape(a.shape)).sum().backward()
    assert z.grad.numpy().ravel()[:4].tolist() == [1, 2, 3, 0] and z.grad.sum().item() == 6


@pytest.mark.parametrize("kw, want", [
    # measured on Paddle 3.3.1 for the input below (the first 20 mask entries)
    ({"kernel_size": 2}, [6, 7, 35, 38, 6, 2, 31, 12]),
    ({"kernel_size": 2, "stride": 1, "padding": 1},
     [0, 0, 2, 2, 3, 4, 5, 6, 6, 7, 3, 4, 5, 6, 6, 7, 13, 14, 10, 11]),
    ({"kernel_size": [2, 3, 2], "stride": [1, 2, 2], "ceil_mode": True},
     [6, 7, 24, 35, 38, 39, 21, 47, 49, 35, 38, 39, 6, 2, 14, 31, 12, 14, 31, 27]),
    ({"kernel_size": 3, "padding": 1, "stride": 2},
     [6, 6, 24, 6, 6, 39, 21, 47, 48, 46, 47, 48, 6, 2, 29, 6, 6, 14, 41, 27]),
])
def test_max_pool3d_return_mask_is_the_first_maximum_index_in_the_volume(kw, want):
    rng = np.random.default_rng(0)
    xv = np.round(rng.standard_normal((1, 2, 3, 4, 5)) * 2).astype("float32")
    y, mask = F.max_pool3d(TT(xv), return_mask=True, **kw)
    assert mask.dtype == paddle.int32 and mask.shape == y.shape
    assert mask.numpy().ravel().tolist()[:20] == want
    flat = xv.reshape(1, 2, -1)
    picked = np.take_along_axis(flat, mask.numpy().reshape(1, 2, -1), axis=2)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())


def test_adaptive_max_pool3d_return_mask_is_the_first_maximum_index_in_the_volume():
    xv = np.round(np.random.RandomState(3).randn(1, 2, 4, 4, 4)).astype("float32")   # ties
    y, mask = F.adaptive_max_pool3d(TT(xv), (2, 3, 1), return_mask=True)
    assert mask.dtype == paddle.int32 and mask.shape == y.shape == [1, 2, 2, 3, 1]
    # measured on Paddle 3.3.1
    assert mask.numpy().ravel().tolist() == [0, 11, 13, 38, 38, 63, 5, 5, 9, 35, 36, 40]
    picked = np.take_along_axis(xv.reshape(1, 2, -1), mask.numpy().reshape(1, 2, -1), axis=2)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())
    y2, mask2 = paddle.nn.AdaptiveMaxPool3D((2, 3, 1), return_mask=True)(TT(xv))
    assert mask2.numpy().tolist() == mask.numpy().tolist()
