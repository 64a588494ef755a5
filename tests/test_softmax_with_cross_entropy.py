"""nn.functional.softmax_with_cross_entropy (Paddle's legacy loss). Values measured on Paddle
3.3.1; gradients checked against finite differences to second order."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
swce = F.softmax_with_cross_entropy
LOGITS = [[1.0, 2.0, 3.0], [1.0, 1.0, 5.0]]


def test_hard_labels_give_an_unreduced_loss_with_the_class_axis_kept():
    x = paddle.to_tensor(LOGITS, stop_gradient=False)
    loss = swce(x, paddle.to_tensor([[2], [0]]))
    assert loss.shape == [2, 1]
    np.testing.assert_allclose(loss.numpy(), [[0.40760597], [4.03597641]], rtol=1e-6)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.09003057, 0.24472848, -0.33475906],
                                                [-0.98233157, 0.01766842, 0.96466321]],
                               rtol=1e-5)


def test_ignored_positions_get_zero_loss_and_zero_gradient():
    x = paddle.to_tensor(LOGITS, stop_gradient=False)
    loss = swce(x, paddle.to_tensor([[2], [-100]]))
    loss.sum().backward()
    assert loss.numpy()[1, 0] == 0.0 and x.grad.numpy()[1].tolist() == [0.0, 0.0, 0.0]
    assert swce(x, paddle.to_tensor([[1], [1]]), ignore_index=1).numpy().tolist() == [[0.0],
                                                                                      [0.0]]


def test_soft_labels_are_not_differentiated_and_ignore_ignore_index():
    x = paddle.to_tensor(LOGITS, stop_gradient=False)
    soft = paddle.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], stop_gradient=False)
    loss = swce(x, soft, soft_label=True, ignore_index=0)
    np.testing.assert_allclose(loss.numpy(), [[1.10760593], [0.83597630]], rtol=1e-6)
    loss.sum().backward()
    assert soft.grad is None
    np.testing.assert_allclose(x.grad.numpy(), [[-0.10996943, -0.05527154, 0.16524094],
                                                [-0.08233158, -0.08233158, 0.16466320]],
                               rtol=1e-5)


def test_axis_picks_the_class_dimension():
    x = paddle.to_tensor(np.arange(12.0, dtype="float32").reshape(2, 3, 2))
    loss = swce(x, paddle.to_tensor([[[1, 0]], [[2, 1]]]), axis=1)
    assert loss.shape == [2, 1, 2]
    np.testing.assert_allclose(loss.numpy(), [[[2.14293170, 4.14293146]],
                                              [[0.14293160, 2.14293170]]], rtol=1e-6)


def test_return_softmax_and_float_labels():
    x = paddle.to_tensor(LOGITS)
    loss, sm = swce(x, paddle.to_tensor([[2.0], [0.0]]), return_softmax=True)
    np.testing.assert_allclose(loss.numpy(), [[0.40760597], [4.03597641]], rtol=1e-6)
    np.testing.assert_allclose(sm.numpy(), F.softmax(x).numpy())


def test_large_logits_stay_exact():
    """Paddle 3.3.1 gives 64 here (it caps the loss); the gradient agrees: [1, 0, -1]."""
    x = paddle.to_tensor([[1000.0, 0.0, -1000.0]], stop_gradient=False)
    loss = swce(x, paddle.to_tensor([[2]]))
    assert loss.numpy().tolist() == [[2000.0]]
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, 0.0, -1.0]], atol=1e-7)


def test_dtypes_and_one_dimensional_logits():
    x64 = paddle.to_tensor([[1.0, 2.0]], dtype="float64")
    assert swce(x64, paddle.to_tensor([[1]], dtype="int32")).dtype == paddle.float64
    assert swce(paddle.to_tensor([1.0, 2.0, 3.0]), paddle.to_tensor([2])).shape == [1]


@pytest.mark.parametrize("label, match", [
    ([2, 0], r"hard labels must have shape \[2, 1\]"),
    ([[3], [0]], r"labels must lie in \[0, 3\)")])
def test_bad_labels_say_what_is_wrong(label, match):
    with pytest.raises(ValueError, match=match):
        swce(paddle.to_tensor(LOGITS), paddle.to_tensor(label))


def test_bad_axis_and_soft_label_shape():
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        swce(paddle.to_tensor(LOGITS), paddle.to_tensor([[2], [0]]), axis=2)
    with pytest.raises(ValueError, match="soft labels must have the logits' shape"):
        swce(paddle.to_tensor(LOGITS), paddle.ones([2, 2]), soft_label=True)


def test_gradients_match_finite_differences_to_second_order():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((3, 4))
    hard = paddle.to_tensor([[1], [-100], [3]])
    soft = rng.dirichlet(np.ones(4), size=3)
    check_grads(lambda x: swce(x, hard), logits, order=2)
    check_grads(lambda x: swce(x, paddle.to_tensor(soft), soft_label=True), logits, order=2)
    x3 = rng.standard_normal((2, 3, 2))
    check_grads(lambda x: swce(x, paddle.to_tensor([[[0, 2]], [[1, 1]]]), axis=1), x3,
                order=2)
