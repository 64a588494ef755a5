"""nn/resampling_layers.py: each layer equals its functional call, with Paddle 3.3.1's
constructor arguments (perf/paddle_cases/resampling_layers.py compares them with Paddle)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor
X = np.arange(2 * 2 * 3 * 4, dtype="float32").reshape(2, 2, 3, 4)


@pytest.mark.parametrize("layer, mode, value", [
    (paddle.nn.Pad2D([1, 0, 2, 1], "reflect"), "reflect", 0.0),
    (paddle.nn.ZeroPad2D([1, 0, 2, 1]), "constant", 0.0),
    (paddle.nn.ConstantPad2D([1, 0, 2, 1], 3.5), "constant", 3.5),
    (paddle.nn.ReplicationPad2D([1, 0, 2, 1]), "replicate", 0.0),
    (paddle.nn.CircularPad2D([1, 0, 2, 1]), "circular", 0.0),
])
def test_pad_layers_call_pad(layer, mode, value):
    want = F.pad(TT(X), [1, 0, 2, 1], mode=mode, value=value)
    assert layer(TT(X)).tolist() == want.tolist()


def test_an_int_padding_pads_every_side_and_bad_lengths_raise():
    assert paddle.nn.ZeroPad1D(2)(TT(np.ones((1, 1, 3), "float32"))).shape == [1, 1, 7]
    assert paddle.nn.Pad3D(1)(TT(np.ones((1, 1, 2, 2, 2), "float32"))).shape == [1, 1, 4, 4, 4]
    with pytest.raises(ValueError, match="4 ints"):
        paddle.nn.Pad2D([1, 2, 3])
    with pytest.raises(TypeError, match="fill value"):
        paddle.nn.ConstantPad2D([1, 1, 1, 1])
    assert paddle.nn.ConstantPad2d is paddle.nn.ConstantPad2D


def test_upsample_layers():
    up = paddle.nn.Upsample(scale_factor=2)(TT(X))
    assert up.shape == [2, 2, 6, 8] and up.numpy()[0, 0, 1, 1] == X[0, 0, 0, 0]
    bil = paddle.nn.UpsamplingBilinear2D(size=[5, 7])(TT(X))
    want = F.interpolate(TT(X), size=[5, 7], mode="bilinear", align_corners=True)
    assert bil.tolist() == want.tolist()
    line = paddle.nn.Upsample(scale_factor=2, mode="linear")(TT(X[:, :, 0]))    # NCW
    assert line.shape == [2, 2, 8]


def test_group_norm_layer_parameters_and_gradients():
    gn = paddle.nn.GroupNorm(2, 4)
    assert [n for n, _ in gn.named_parameters()] == ["weight", "bias"]
    assert gn.weight.tolist() == [1.0] * 4 and gn.bias.tolist() == [0.0] * 4
    x = np.random.default_rng(0).standard_normal((2, 4, 3))
    out = gn(TT(x.astype("float32"))).numpy()
    g = x.reshape(2, 2, 6)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(out, want.reshape(2, 4, 3), rtol=1e-5, atol=1e-6)
    plain = paddle.nn.GroupNorm(2, 4, weight_attr=False, bias_attr=False)
    assert list(plain.parameters()) == []
    check_grads(lambda t: plain(t) * TT(np.linspace(0.5, 1.5, 24).reshape(2, 4, 3)), x)
    with pytest.raises(ValueError, match="multiple of num_groups"):
        paddle.nn.GroupNorm(3, 4)


@pytest.mark.parametrize("fmt, perm", [("NHWC", (0, 3, 1, 2)), ("NLC", (0, 2, 1))])
def test_group_norm_channels_last_normalises_the_last_axis(fmt, perm):
    # Paddle 3.3.1: NHWC is NCHW's result transposed (dim 1, here 3, need not split)
    x = np.random.default_rng(1).standard_normal((2, 3, 2, 4)[:len(perm)] if fmt == "NHWC"
                                                 else (2, 3, 4))
    w, b = np.linspace(0.5, 1.5, 4), np.linspace(-1, 1, 4)
    back = tuple(np.argsort(perm))
    out = F.group_norm(TT(x), 2, 1e-5, TT(w), TT(b), data_format=fmt).numpy()
    want = F.group_norm(TT(x.transpose(perm)), 2, 1e-5, TT(w), TT(b)).numpy().transpose(back)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    c = TT(np.linspace(0.5, 1.5, x.size).reshape(x.shape))
    check_grads(lambda t, tw: F.group_norm(t, 2, 1e-5, tw, data_format=fmt) * c, x, w)
    layer = paddle.nn.GroupNorm(2, 4, data_format=fmt)
    np.testing.assert_allclose(layer(TT(x.astype("float32"))).numpy(),
                               F.group_norm(TT(x.astype("float32")), 2, data_format=fmt).numpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="data_format"):
        F.group_norm(TT(x), 2, data_format="NWHC")


def test_shape_layers():
    assert paddle.nn.PixelShuffle(2)(TT(np.ones((1, 8, 2, 2), "float32"))).shape == [1, 2, 4, 4]
    assert paddle.nn.Unfold([2, 2])(TT(X)).shape == [2, 8, 6]
    assert paddle.nn.Unflatten(1, [2, 3])(TT(np.ones((2, 6), "float32"))).shape == [2, 2, 3]
    m = paddle.nn.Maxout(2)(TT(np.arange(8, dtype="float32").reshape(1, 4, 1, 2)))
    assert m.tolist() == [[[[2.0, 3.0]], [[6.0, 7.0]]]]


def test_torch_style_aliases():
    assert paddle.nn.ModuleList is paddle.nn.LayerList and paddle.nn.Silu is paddle.nn.SiLU
    assert paddle.nn.ModuleDict is paddle.nn.LayerDict
    assert paddle.nn.AdaptiveMaxPool2d is paddle.nn.AdaptiveMaxPool2D
