"""cross_entropy's edges, measured on Paddle 3.3.1: with use_softmax=False it reads
probabilities, and a zero probability in a class that carries no weight adds nothing (Paddle
reads the labelled class only); with label_smoothing and a weight, a row weighs the class
weights averaged by its smoothed target."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward, leaf

F = paddle.nn.functional
P = np.array([[0.5, 0.5, 0.0], [0.2, 0.8, 0.0]], "float32")
LAB = np.array([1, 0], "int64")


@pytest.mark.parametrize("path", PATHS)
def test_a_zero_probability_outside_the_label_gives_minus_log_of_the_labelled_one(path):
    p = leaf(P)
    loss = F.cross_entropy(p, paddle.to_tensor(LAB), use_softmax=False, reduction="none")
    np.testing.assert_allclose(loss.numpy().ravel(), -np.log([0.5, 0.2]), rtol=1e-7)
    backward(loss.sum(), path)
    assert p.grad.tolist() == [[0.0, -2.0, 0.0], [-5.0, 0.0, 0.0]]          # Paddle 3.3.1


def test_mean_soft_labels_and_smoothing_with_zero_probabilities():
    p, lab = paddle.to_tensor(P), paddle.to_tensor(LAB)
    mean = F.cross_entropy(p, lab, use_softmax=False)
    np.testing.assert_allclose(float(mean), -np.log([0.5, 0.2]).mean(), rtol=1e-6)
    soft = paddle.to_tensor(np.eye(3, dtype="float32")[LAB])
    out = F.cross_entropy(p, soft, soft_label=True, use_softmax=False, reduction="none")
    np.testing.assert_allclose(out.numpy().ravel(), -np.log([0.5, 0.2]), rtol=1e-7)
    # smoothing weighs every class: log(0) counts, the loss is infinite (not NaN)
    smooth = F.cross_entropy(p, lab, use_softmax=False, label_smoothing=0.1, reduction="none")
    assert np.isinf(smooth.numpy()).all()


def test_smoothing_with_class_weights_weighs_a_row_by_its_smoothed_target():
    x = np.array([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]])
    lab, w, eps = np.array([0, 2]), np.array([1.0, 2.0, 4.0]), 0.3
    lp = x - np.log(np.exp(x).sum(1, keepdims=True))
    q = np.eye(3)[lab] * (1 - eps) + eps / 3
    roww = (q * w).sum(1)                                   # [1.4, 3.5]
    want = -(q * lp).sum(1) * roww
    args = (paddle.to_tensor(lab), paddle.to_tensor(w))
    t = leaf(x, "float64")
    none = F.cross_entropy(t, *args, label_smoothing=eps, reduction="none")
    np.testing.assert_allclose(none.numpy().ravel(), want, rtol=1e-12)   # Paddle: [1.4909 7.7875]
    mean = F.cross_entropy(t, *args, label_smoothing=eps)
    np.testing.assert_allclose(float(mean), want.sum() / roww.sum(), rtol=1e-12)   # 1.89356
    mean.backward()
    sm = np.exp(lp)
    np.testing.assert_allclose(t.grad.numpy(), roww[:, None] * (sm - q) / roww.sum(), rtol=1e-10)


def test_soft_labels_with_class_weights_weigh_a_row_by_its_labels():
    from jitgrad.testing import check_grads
    r = np.random.RandomState(0)
    x, y, w = r.randn(4, 3), r.dirichlet([1, 1, 1], 4), np.array([1.0, 2.0, 3.0])
    lp = x - np.log(np.exp(x).sum(1, keepdims=True))
    roww = y @ w
    want = -(y * lp).sum(1) * roww               # Paddle 3.3.1: [2.7854 10.3587 3.1771 2.2693]
    args = dict(soft_label=True, weight=paddle.to_tensor(w))
    none = F.cross_entropy(paddle.to_tensor(x), paddle.to_tensor(y), reduction="none", **args)
    np.testing.assert_allclose(none.numpy().ravel(), want, rtol=1e-12)
    mean = F.cross_entropy(paddle.to_tensor(x), paddle.to_tensor(y), **args)
    np.testing.assert_allclose(float(mean), want.sum() / roww.sum(), rtol=1e-12)   # 2.07300
    labels = paddle.to_tensor(y)                 # (targets get no gradient, as in Paddle)
    check_grads(lambda t: F.cross_entropy(t, labels, **args), x)


@pytest.mark.parametrize("kw", [{}, {"ignore_index": 1}, {"label_smoothing": 0.1},
                                {"use_softmax": False},
                                {"weight": np.ones(5, "float32")}])
def test_a_batch_without_rows_has_mean_nan_and_sum_zero(kw):
    # Paddle 3.3.1: 'mean' over no rows is nan (0 / 0), 'sum' +0.0; nll_loss 0.0 for both
    if "weight" in kw:
        kw = {**kw, "weight": paddle.to_tensor(kw["weight"])}
    x = paddle.to_tensor(np.zeros((0, 5), "float32"), stop_gradient=False)
    lab = paddle.to_tensor(np.zeros((0,), "int64"))
    mean = F.cross_entropy(x, lab, **kw)
    assert np.isnan(float(mean))
    total = F.cross_entropy(x, lab, reduction="sum", **kw)
    assert float(total) == 0.0 and not np.signbit(float(total))
    total.backward()
    assert x.grad.shape == [0, 5]
    for reduction in ("mean", "sum"):
        nll = float(F.nll_loss(x, lab, reduction=reduction))
        assert nll == 0.0 and not np.signbit(nll)


def test_soft_labels_of_another_shape_are_refused():
    x = paddle.to_tensor(np.zeros((2, 5), "float32"))
    for shape in [(2, 1), (1, 5), (5,)]:            # Paddle 3.3.1 raises for each
        with pytest.raises(ValueError, match="soft labels must have the input's shape"):
            F.cross_entropy(x, paddle.to_tensor(np.full(shape, 0.2, "float32")),
                            soft_label=True)


@pytest.mark.parametrize("weight", [None, [1.0, 2.0, 3.0]])
def test_smoothing_with_reduction_none_keeps_a_1_at_the_class_axis(weight):
    # Paddle 3.3.1: smoothed labels are soft labels, whose unreduced loss is [..., 1]
    x = paddle.to_tensor(np.random.RandomState(1).randn(4, 3).astype("float32"))
    lab = paddle.to_tensor(np.array([0, 1, 2, 2], "int64"))
    w = None if weight is None else paddle.to_tensor(weight)
    assert F.cross_entropy(x, lab, weight=w, label_smoothing=0.1,
                           reduction="none").shape == [4, 1]
    x3 = paddle.to_tensor(np.zeros((2, 3, 5), "float32"))
    lab3 = paddle.to_tensor(np.zeros((2, 3), "int64"))
    loss = paddle.nn.CrossEntropyLoss(label_smoothing=0.1, reduction="none")(x3, lab3)
    assert loss.shape == [2, 3, 1]
    np.testing.assert_allclose(loss.numpy(), np.full((2, 3, 1), np.log(5.0)), rtol=1e-6)
