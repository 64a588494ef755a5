"""Layer forms of this session's functional ops: each forwards its constructor arguments to
the functional op; PReLU owns a learnable slope."""

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional
TT = paddle.to_tensor
X = TT(np.linspace(-2, 2, 12, dtype="float32").reshape(3, 4))
LAB = TT([1.0, -1.0, 1.0])

CASES = [
    (paddle.nn.Hardshrink(0.3), lambda x: F.hardshrink(x, 0.3), [X]),
    (paddle.nn.Softshrink(threshold=0.3), lambda x: F.softshrink(x, 0.3), [X]),
    (paddle.nn.CELU(0.7), lambda x: F.celu(x, 0.7), [X]),
    (paddle.nn.ThresholdedReLU(0.5, 0.1), lambda x: F.thresholded_relu(x, 0.5, 0.1), [X]),
    (paddle.nn.GLU(0), lambda x: F.glu(x, 0), [X[:2]]),
    (paddle.nn.LogSigmoid(), F.log_sigmoid, [X]),
    (paddle.nn.Tanhshrink(), F.tanhshrink, [X]),
    (paddle.nn.MarginRankingLoss(0.2), lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.2),
     [X[:, 0], X[:, 1], LAB]),
    (paddle.nn.SoftMarginLoss("sum"), lambda a, y: F.soft_margin_loss(a, y, "sum"),
     [X[:, 0], LAB]),
    (paddle.nn.PairwiseDistance(1.0), lambda a, b: F.pairwise_distance(a, b, 1.0), [X, X * 0.5]),
    (paddle.nn.CosineSimilarity(0), lambda a, b: F.cosine_similarity(a, b, 0), [X, X + 1.0]),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_layer_equals_its_functional_form(i):
    layer, fn, inputs = CASES[i]
    np.testing.assert_array_equal(layer(*inputs).numpy(), fn(*inputs).numpy())


def test_prelu_owns_a_learnable_slope_per_channel():
    layer = paddle.nn.PReLU(num_parameters=3, init=0.1)
    assert [p.shape for p in layer.parameters()] == [[3]]
    assert layer.weight.tolist() == pytest.approx([0.1] * 3)
    x = TT(-np.ones((2, 3, 2), "float32"))
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), np.full((2, 3, 2), -0.1), rtol=1e-6)
    y.sum().backward()
    assert layer.weight.grad.tolist() == [-4.0, -4.0, -4.0]
    with pytest.raises(ValueError, match="num_parameters"):
        paddle.nn.PReLU(0)


def test_identity_and_argument_errors():
    assert paddle.nn.Identity(5, foo=1)(X) is X
    with pytest.raises(TypeError, match="at most 1 positional"):
        paddle.nn.Hardshrink(0.3, 0.4)


def test_pool_and_norm_layers_forward_to_their_functions():
    seq = TT(np.linspace(-1, 1, 2 * 3 * 9, dtype="float32").reshape(2, 3, 9))
    img = TT(np.linspace(-1, 1, 2 * 4 * 25, dtype="float32").reshape(2, 4, 5, 5))
    pairs = [(paddle.nn.MaxPool1D(3, 2, 1), F.max_pool1d(seq, 3, 2, 1), seq),
             (paddle.nn.AvgPool1D(3, 2, 1, False), F.avg_pool1d(seq, 3, 2, 1, False), seq),
             (paddle.nn.AdaptiveMaxPool2D((2, 3)), F.adaptive_max_pool2d(img, (2, 3)), img),
             (paddle.nn.AdaptiveAvgPool1D(4), F.adaptive_avg_pool1d(seq, 4), seq),
             (paddle.nn.InstanceNorm2D(4), F.instance_norm(img), img)]
    for layer, want, x in pairs:
        np.testing.assert_array_equal(layer(x).numpy(), want.numpy())


def test_instance_norm_layer_owns_scale_and_bias():
    layer = paddle.nn.InstanceNorm1D(3)
    assert [n for n, _ in layer.named_parameters()] == ["scale", "bias"]
    assert layer.scale.tolist() == [1.0, 1.0, 1.0] and layer.bias.tolist() == [0.0] * 3
    assert paddle.nn.InstanceNorm2D(3, weight_attr=False, bias_attr=False).parameters() == []


def test_transposed_conv_layers_use_paddles_weight_layout():
    layer = paddle.nn.Conv2DTranspose(4, 6, 3, stride=2, groups=2)
    assert layer.weight.shape == [4, 3, 3, 3] and layer.bias.shape == [6]
    x = TT(np.ones((1, 4, 5, 5), "float32"))
    want = F.conv2d_transpose(x, layer.weight, layer.bias, stride=2, groups=2)
    np.testing.assert_array_equal(layer(x).numpy(), want.numpy())
    assert layer(x).shape == [1, 6, 11, 11]
    assert paddle.nn.Conv1DTranspose(3, 2, 4, stride=3).weight.shape == [3, 2, 4]
    with pytest.raises(ValueError, match="divide by groups"):
        paddle.nn.Conv2DTranspose(3, 4, 3, groups=2)


def test_dropout_takes_inplace_in_paddles_position():
    d = paddle.nn.Dropout(0.5, True)                  # (p, inplace, axis, mode, name)
    assert d.inplace and d.axis is None and d.mode == "upscale_in_train"
    paddle.seed(1)
    x = paddle.ones([2, 3])
    y = paddle.nn.functional.dropout(x, 0.5, None, True, True)   # (x, p, axis, training,
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}    # inplace, ...)
    leaf = paddle.ones([2], dtype="float32")
    leaf.stop_gradient = False
    with pytest.raises(ValueError, match="in place"):
        paddle.nn.functional.dropout(leaf, 0.5, inplace=True)
