"""paddle.amp, jit, static, device and metric as Paddle 3.3.1 behaves on a CPU (measured):
auto_cast keeps float32, GradScaler is off, to_static runs eagerly, metrics equal Paddle's."""

import warnings

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
SCORES = [[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
LABELS = [[1], [2], [2], [1]]


def test_auto_cast_keeps_float32_and_tracks_its_state():
    lin = paddle.nn.Linear(3, 3)
    assert not paddle.is_autocast_enabled()
    with paddle.amp.auto_cast():
        assert paddle.is_autocast_enabled()
        assert lin(TT(np.ones((2, 3), "float32"))).dtype == paddle.float32     # Paddle's CPU
    assert not paddle.is_autocast_enabled()

    @paddle.amp.auto_cast(dtype="bfloat16")
    def f(x):
        return paddle.get_autocast_dtype(), lin(x).dtype
    assert f(TT(np.ones((1, 3), "float32"))) == ("bfloat16", paddle.float32)
    with pytest.raises(ValueError, match="level"):
        paddle.amp.auto_cast(level="O3")


def test_grad_scaler_is_off_on_a_cpu_and_steps_the_optimizer():
    lin = paddle.nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    assert not scaler.is_enable() and scaler.get_init_loss_scaling() == 1.0    # Paddle's CPU
    loss = lin(TT([[1.0, 2.0]])).sum()
    assert scaler.scale(loss) is loss
    before = lin.weight.numpy().copy()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    # (float32 w - 0.1 g: a weight drawn near 0.1 g ends near 0, where float32's rounding of
    # the subtraction is large relative to the result: an absolute bound)
    np.testing.assert_allclose(lin.weight.numpy(), before - 0.1 * np.array([[1.0], [2.0]]),
                               rtol=1e-6, atol=1e-7)
    model, optimizer = paddle.amp.decorate(lin, opt, level="O2")
    assert model is lin and optimizer is opt


def test_to_static_runs_the_function_eagerly():
    @paddle.jit.to_static
    def double(x):
        return x * 2
    assert double(TT([1.0])).tolist() == [2.0]
    lin = paddle.nn.Linear(2, 2)
    spec = paddle.static.InputSpec([None, 2], "float32", "x")
    assert paddle.jit.to_static(lin, input_spec=[spec]) is lin and spec.shape == (-1, 2)
    assert paddle.jit.to_static(input_spec=[spec])(double) is double
    with pytest.raises(NotImplementedError, match="state_dict"):
        paddle.jit.save(lin, "/tmp/model")


def test_device_queries_of_a_cpu_library():
    # Paddle 3.3.1's CPU build: get_all_device_type() is [] (accelerators only) and
    # synchronize() raises TypeError (tests/test_devices.py has the whole table)
    assert paddle.device.get_device() == "cpu" and paddle.device.get_all_device_type() == []
    assert not paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() == 0
    with pytest.raises(TypeError, match="CPU only"):
        paddle.device.synchronize()


def test_accuracy_function_and_metric():
    acc = paddle.metric.accuracy(TT(SCORES), TT(LABELS))
    assert acc.shape == [] and acc.item() == 0.5                              # Paddle 3.3.1
    assert paddle.metric.accuracy(TT(SCORES), TT(LABELS), k=2).item() == 0.75
    m = paddle.metric.Accuracy()
    correct = m.compute(TT(SCORES), TT(LABELS))
    assert correct.tolist() == [[1.0], [0.0], [1.0], [0.0]] and m.name() == ["acc"]
    assert m.update(correct) == 0.5 and m.accumulate() == 0.5
    m.reset()
    assert m.accumulate() == 0.0
    m3 = paddle.metric.Accuracy(topk=(1, 3), name="top")
    assert m3.update(m3.compute(TT(SCORES), TT(LABELS))) == [0.5, 1.0]
    assert m3.name() == ["top_top1", "top_top3"]


def test_precision_recall_and_auc():
    preds = np.array([0.9, 0.2, 0.6, 0.4, 0.55])
    labels = np.array([1, 0, 0, 1, 1])
    p, r, a = paddle.metric.Precision(), paddle.metric.Recall(), paddle.metric.Auc()
    p.update(preds, labels)
    r.update(TT(preds), TT(labels))
    a.update(np.stack([1 - preds, preds], 1), labels.reshape(-1, 1))
    assert p.accumulate() == pytest.approx(2 / 3) and r.accumulate() == pytest.approx(2 / 3)
    assert a.accumulate() == pytest.approx(2 / 3)                             # Paddle 3.3.1
    assert (p.name(), r.name(), a.name()) == ("precision", "recall", "auc")
    assert paddle.metric.Auc().accumulate() == 0.0


def test_ger_is_the_outer_product():
    assert paddle.ger(TT([1.0, 2.0]), TT([3.0, 4.0, 5.0])).tolist() == [[3, 4, 5], [6, 8, 10]]
    with pytest.raises(ValueError, match="1-D"):
        paddle.ger(TT([[1.0]]), TT([1.0]))


def test_accuracy_results_are_numpy_floats_as_paddles():
    # Paddle 3.3.1 returns np.float64 (they print as np.float64(0.5) in a list)
    acc = paddle.metric.Accuracy(topk=(1, 2))
    pred = paddle.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
    step = acc.update(acc.compute(pred, paddle.to_tensor([[1], [2], [2], [0]])))
    assert step == [0.5, 0.75] and all(type(v) is np.float64 for v in step)
    assert all(type(v) is np.float64 for v in acc.accumulate())
    acc.reset()
    assert acc.accumulate() == [0.0, 0.0]
