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
