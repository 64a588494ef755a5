"""Schedulers, metrics and datasets, measured on Paddle 3.3.1 by a fourth hunt."""

import numpy as np
import pytest

import jitgrad as paddle

L = paddle.optimizer.lr


def test_linear_warmup_sets_the_wrapped_scheduler_to_the_epoch():
    s = L.LinearWarmup(L.StepDecay(0.5, step_size=3, gamma=0.1), 5, 0.0, 0.5)
    s.step(15)                                  # the inner StepDecay at epoch 10
    assert s() == pytest.approx(0.0005) and s.learning_rate.last_epoch == 10
    s = L.LinearWarmup(L.ExponentialDecay(0.5, gamma=0.9), 5, 0.0, 0.5)
    got = []
    for e in (6, 8, 20):
        s.step(e)
        got.append(s())
    np.testing.assert_allclose(got, [0.45, 0.3645, 0.5 * 0.9 ** 15])      # Paddle 3.3.1
    resumed = L.LinearWarmup(L.StepDecay(0.5, 3, 0.1), 5, 0.0, 0.5, last_epoch=14)
    assert resumed() == pytest.approx(0.0005)


def test_linear_warmup_steps_the_wrapped_scheduler_one_epoch_at_a_time():
    s = L.LinearWarmup(L.StepDecay(0.5, step_size=2, gamma=0.1), 2, 0.0, 0.5)
    got = []
    for _ in range(7):
        got.append(s())
        s.step()
    np.testing.assert_allclose(got, [0.0, 0.25, 0.5, 0.5, 0.05, 0.05, 0.005])


def test_reduce_on_plateau_takes_a_metric_of_shape_1():
    s = L.ReduceOnPlateau(0.5, patience=0)
    s.step(np.array([1.0]))
    s.step(np.array([2.0]))
    s.step(paddle.to_tensor([3.0]))
    assert s() == pytest.approx(0.005)


@pytest.mark.parametrize("make", [lambda: L.StepDecay(0.5, 2, gamma=1.5),
                                  lambda: L.MultiStepDecay(0.5, [2, 4], gamma=1.0),
                                  lambda: L.StepDecay(0.5, 0)])   # (2.5: TypeError, as Paddle)
def test_step_decays_refuse_a_growing_rate_and_bad_step_sizes(make):
    with pytest.raises(ValueError):
        make()


def test_accuracy_reads_one_hot_labels_and_fills_0d_counts():
    pred = paddle.to_tensor([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1]])
    onehot = paddle.to_tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert paddle.metric.Accuracy().compute(pred, onehot).numpy().ravel().tolist() == [1, 0]
    c, t = paddle.zeros([1], "int32"), paddle.zeros([1], "int32")
    acc = paddle.metric.accuracy(pred, paddle.to_tensor([[1], [2]]), k=1, correct=c, total=t)
    assert float(acc) == 0.5 and c.shape == [] and t.shape == [] and (int(c), int(t)) == (1, 2)


def test_tensor_dataset_of_numpy_arrays():
    ds = paddle.io.TensorDataset([np.arange(6, dtype="float32").reshape(3, 2)])
    (row,) = ds[1]
    assert len(ds) == 3 and row.tolist() == [2.0, 3.0]
