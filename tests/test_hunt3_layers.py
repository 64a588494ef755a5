"""Layer and functional behaviours measured on Paddle 3.3.1 by a third hunt."""

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional


def test_unfold_reads_four_paddings_as_top_left_bottom_right():
    x = paddle.arange(1, 13, dtype="float32").reshape([1, 1, 3, 4])
    y = F.unfold(x, kernel_sizes=1, paddings=[1, 2, 0, 0])   # a row on top, 2 columns left
    want = np.pad(np.arange(1, 13.0).reshape(3, 4), ((1, 0), (2, 0)))
    np.testing.assert_array_equal(y.numpy().ravel(), want.ravel())      # Paddle 3.3.1
    assert paddle.nn.Unfold([2, 2], paddings=[0, 1, 0, 0])(x).shape == [1, 4, 8]


def test_fold_reads_four_paddings_as_unfold_does():
    # output 3x4, kernel 1: paddings [1, 2, 1, 2] pad to 5x8, so 40 blocks (Paddle 3.3.1)
    y = F.fold(paddle.ones([1, 1, 40]), [3, 4], 1, paddings=[1, 2, 1, 2])
    np.testing.assert_array_equal(y.numpy(), np.ones((1, 1, 3, 4)))
    with pytest.raises(ValueError):
        F.fold(paddle.ones([1, 1, 42]), [3, 4], 1, paddings=[1, 2, 1, 2])


@pytest.mark.parametrize("padding_idx, row", [(1, 1), (-1, 3)])
def test_embedding_padding_row_starts_at_zero(padding_idx, row):
    e = paddle.nn.Embedding(4, 3, padding_idx=padding_idx)
    w = e.weight.numpy()
    assert not w[row].any() and np.abs(np.delete(w, row, 0)).min() > 0


def test_grouped_conv_init_uses_all_input_channels_as_paddle():
    paddle.seed(0)
    w = paddle.nn.Conv2D(32, 64, 3, groups=4).weight.numpy()
    assert w.shape == (64, 8, 3, 3)
    # Normal(0, sqrt(2 / (32 * 9))): std 0.083 (with in_channels // groups it was 0.167)
    assert abs(w.std() / np.sqrt(2 / (32 * 9)) - 1) < 0.05


def test_transposed_conv_init_is_xavier_uniform():
    w = paddle.nn.Conv2DTranspose(32, 64, 3).weight.numpy()      # [32, 64, 3, 3]
    limit = np.sqrt(6 / (64 * 9 + 32 * 9))
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.95 * limit


@pytest.mark.parametrize("mode, want", [
    ("bilinear", [0, .4375, 1.0625, 1.6875, 2.3125, 2.9375, 3.5625, 4.0]),   # Paddle, torch
    ("nearest", [0, 0, 1, 1, 2, 3, 3, 4])])
def test_upsample_recompute_scale_factor_maps_by_the_sizes(mode, want):
    x = paddle.to_tensor(np.arange(5, dtype="float32").reshape(1, 1, 1, 5))
    up = paddle.nn.Upsample(scale_factor=1.7, mode=mode, recompute_scale_factor=True)
    np.testing.assert_allclose(up(x).numpy().ravel(), want, atol=1e-6)
    same = F.interpolate(x, size=[1, 8], mode=mode)
    np.testing.assert_array_equal(up(x).numpy(), same.numpy())


def test_interpolate_takes_a_0d_tensor_scale_factor():
    x = paddle.ones([1, 2, 4, 4])
    assert F.interpolate(x, scale_factor=paddle.to_tensor(2.0)).shape == [1, 2, 8, 8]
    with pytest.raises(NotImplementedError, match="antialias"):
        F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True)


@pytest.mark.parametrize("make", [
    lambda D: D.Gamma(2.0, 1.0), lambda D: D.Chi2(3.0), lambda D: D.Binomial(5, 0.4),
    lambda D: D.StudentT(4.0, 0.0, 1.0), lambda D: D.Poisson(paddle.to_tensor(2.0))])
def test_distributions_with_0d_parameters_sample_0d(make):
    s = make(paddle.distribution).sample()
    assert s.shape == [] and s.dtype == paddle.float32


def test_a_layer_registered_twice_is_listed_once():
    class Tied(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = paddle.nn.Linear(2, 3)
            self.b = self.a

    m = Tied()
    assert [n for n, _ in m.named_sublayers()] == ["a"]
    assert len(m.sublayers()) == 1 and len(list(m.children())) == 1
    assert [n for n, _ in m.named_children()] == ["a"]
    assert len(m.parameters()) == 2
    assert list(m.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias"]   # Paddle's


def test_paddle_3_keywords_of_conv_and_layer_norm():
    assert paddle.nn.Conv2D(4, 3, 3, bias=False).bias is None
    assert paddle.nn.Conv1D(4, 3, 3, bias=False).bias is None
    assert paddle.nn.LayerNorm(6, elementwise_affine=False).parameters() == []
    ln = paddle.nn.LayerNorm(6, bias=False)
    assert ln.bias is None and ln.weight.shape == [6]


def test_one_hot_infers_the_number_of_classes():
    y = F.one_hot(paddle.to_tensor([0, 3, 1]))
    assert y.shape == [3, 4] and y.numpy().argmax(1).tolist() == [0, 3, 1]


def test_legacy_batch_norm_takes_paddles_argument_order_and_activation():
    x = paddle.to_tensor(np.random.RandomState(0).randn(3, 4, 2, 2).astype("float32"))
    m = paddle.nn.BatchNorm(4, "relu", False, 0.8)         # num_channels, act, is_test, momentum
    y = m(x)
    ref = paddle.nn.BatchNorm2D(4, momentum=0.8)
    np.testing.assert_array_equal(y.numpy(), F.relu(ref(x)).numpy())
    np.testing.assert_array_equal(m._mean.numpy(), ref._mean.numpy())
    nhwc = paddle.nn.BatchNorm(4, data_layout="NHWC")(paddle.transpose(x, [0, 2, 3, 1]))
    np.testing.assert_allclose(nhwc.numpy(), paddle.transpose(ref(x), [0, 2, 3, 1]).numpy(),
                               rtol=1e-6, atol=1e-6)


def test_1d_convolutions_take_channels_last_padding_pairs():
    r = np.random.RandomState(0)
    x = paddle.to_tensor(r.randn(2, 7, 4).astype("float32"))            # N, L, C
    w = paddle.to_tensor(r.randn(3, 4, 3).astype("float32"))
    y = F.conv1d(x, w, padding=[[0, 0], [2, 1], [0, 0]], data_format="NLC")
    assert y.shape == [2, 8, 3]                                         # Paddle 3.3.1
    np.testing.assert_allclose(y.numpy(), F.conv1d(x, w, padding=[2, 1],
                                                   data_format="NLC").numpy(), rtol=1e-6)
    wt = paddle.to_tensor(r.randn(4, 3, 3).astype("float32"))
    t = F.conv1d_transpose(x, wt, padding=[[0, 0], [1, 1], [0, 0]], data_format="NLC")
    np.testing.assert_allclose(t.numpy(), F.conv1d_transpose(
        x, wt, padding=1, data_format="NLC").numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="cannot be padded"):
        F.conv1d(x, w, padding=[[0, 0], [0, 0], [2, 1]], data_format="NLC")
