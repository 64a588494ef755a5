"""nn.Layer / nn.Linear and the optimizers: a Paddle-style training loop trains, and each
update rule matches its closed form."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad import nn


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 16)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _data():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 2)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) * x[:, 1:]).astype(np.float32)
    return paddle.to_tensor(x), paddle.to_tensor(y)


@pytest.mark.parametrize("opt_cls, lr", [(paddle.optimizer.SGD, 0.2),
                                         (paddle.optimizer.Momentum, 0.05),
                                         (paddle.optimizer.Adam, 0.02),
                                         (paddle.optimizer.AdamW, 0.02)])
def test_small_model_trains_and_loss_drops(opt_cls, lr):
    paddle.seed(1)
    model = MLP()
    opt = opt_cls(learning_rate=lr, parameters=model.parameters())
    x, y = _data()
    losses = []
    for _ in range(150):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.25 * losses[0], (losses[0], losses[-1])
    assert all(p.grad is None or float(paddle.abs(p.grad).sum()) == 0
               for p in model.parameters())


def test_layer_collects_parameters_and_switches_modes():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 2))
    names = [n for n, _ in model.named_parameters()]
    assert names == ["0.weight", "0.bias", "3.weight", "3.bias"]
    assert model[0].weight.shape == [3, 4] and not model[0].weight.stop_gradient
    model.eval()
    assert not model[2].training
    x = paddle.ones([5, 3])
    np.testing.assert_array_equal(model(x).numpy(), model(x).numpy())   # no dropout in eval
    model.train()
    assert model[2].training
    assert nn.Linear(2, 2, bias_attr=False).bias is None


def test_state_dict_round_trip_and_buffers():
    bn = nn.BatchNorm2D(3)
    assert sorted(bn.state_dict()) == ["_mean", "_variance", "bias", "weight"]
    src = nn.Linear(2, 3)
    dst = nn.Linear(2, 3)
    missing, unexpected = dst.set_state_dict(src.state_dict())
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(dst.weight.numpy(), src.weight.numpy())


def test_batch_norm_layer_updates_running_stats_in_training_only():
    bn = nn.BatchNorm1D(2, momentum=0.9)
    x = paddle.to_tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
    bn(x)
    np.testing.assert_allclose(bn._mean.numpy(), [0.2, 0.4], rtol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), [0.9 + 0.1 * 1.0, 0.9 + 0.1 * 4.0],
                               rtol=1e-6)
    bn.eval()
    before = bn._mean.numpy()
    bn(x)
    np.testing.assert_array_equal(bn._mean.numpy(), before)


def _one_param(values):
    p = nn.create_parameter([len(values)], "float64")
    paddle.set_value(p, np.array(values))
    return p


def _run(opt, p, grads):
    for g in grads:
        p.grad = paddle.to_tensor(np.array(g))
        opt.step()
    return p.numpy()


GRADS = [[0.5, -1.0], [0.25, 2.0], [-0.5, 0.1]]


def test_sgd_with_weight_decay_matches_closed_form():
    p = _one_param([1.0, 2.0])
    got = _run(paddle.optimizer.SGD(0.1, parameters=[p],
                                    weight_decay=paddle.regularizer.L2Decay(0.01)), p, GRADS)
    w = np.array([1.0, 2.0])
    for g in GRADS:
        w = w - 0.1 * (np.array(g) + 0.01 * w)
    np.testing.assert_allclose(got, w, rtol=1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_closed_form(nesterov):
    p = _one_param([1.0, 2.0])
    got = _run(paddle.optimizer.Momentum(0.1, 0.9, parameters=[p], use_nesterov=nesterov), p,
               GRADS)
    w, v = np.array([1.0, 2.0]), np.zeros(2)
    mu = float(np.float32(0.9))     # Paddle 3.3.1's kernel reads mu as a float32 attribute
    for g in map(np.array, GRADS):
        v = mu * v + g
        w = w - 0.1 * (g + mu * v if nesterov else v)
    np.testing.assert_allclose(got, w, rtol=1e-12)


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_and_adamw_match_closed_form(decoupled):
    p = _one_param([1.0, 2.0])
    cls = paddle.optimizer.AdamW if decoupled else paddle.optimizer.Adam
    got = _run(cls(0.1, parameters=[p], weight_decay=0.05), p, GRADS)
    w, m, v = np.array([1.0, 2.0]), np.zeros(2), np.zeros(2)
    for t, g in enumerate(map(np.array, GRADS), start=1):
        if decoupled:
            w = w - 0.1 * 0.05 * w
        else:
            g = g + 0.05 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mhat, vhat = m / (1 - 0.9 ** t), v / (1 - 0.999 ** t)
        w = w - 0.1 * mhat / (np.sqrt(vhat) + 1e-8)
    np.testing.assert_allclose(got, w, rtol=1e-7)


def test_global_norm_clip_and_lr_scheduler():
    p = _one_param([0.0, 0.0])
    sched = paddle.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5)
    opt = paddle.optimizer.SGD(sched, parameters=[p],
                               grad_clip=nn.ClipGradByGlobalNorm(1.0))
    p.grad = paddle.to_tensor(np.array([3.0, 4.0]))
    opt.step()
    np.testing.assert_allclose(p.numpy(), [-0.6, -0.8])
    sched.step()
    assert opt.get_lr() == 0.5


def test_optimizer_step_invalidates_graphs_recorded_before_it():
    # (the input needs a gradient, which reads the weight the step changed; with a constant
    # input the weight's gradient reads only the input and the next backward runs, as in
    # Paddle 3.3.1: tests/test_inplace_hunt25.py)
    lin = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
    loss = lin(paddle.to_tensor([[1.0, 1.0]], stop_gradient=False)).sum()
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="in-place"):
        loss.backward()


def test_optimizer_argument_errors():
    with pytest.raises(ValueError, match="parameters"):
        paddle.optimizer.Adam(0.1)
    with pytest.raises(TypeError):
        paddle.optimizer.SGD("fast", parameters=[])


def test_tiny_cnn_with_batch_norm_and_dropout_trains():
    paddle.seed(3)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 1, 6, 6)).astype(np.float32)
    labels = (x[:, 0, :3].mean(axis=(1, 2)) > x[:, 0, 3:].mean(axis=(1, 2))).astype(np.int64)
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                          nn.MaxPool2D(2), nn.Flatten(), nn.Dropout(0.1), nn.Linear(36, 2))
    opt = paddle.optimizer.Adam(0.02, parameters=model.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(labels)
    losses = []
    for _ in range(40):
        loss = nn.CrossEntropyLoss()(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], (losses[0], losses[-1])
    model.eval()
    acc = (paddle.argmax(model(xt), axis=1).numpy() == labels).mean()
    assert acc > 0.8


def test_lr_schedulers_follow_their_closed_forms():
    import math
    L = paddle.optimizer.lr

    def run(sched, n=6):
        out = []
        for _ in range(n):
            out.append(sched())
            sched.step()
        return out
    assert run(L.MultiStepDecay(1.0, [2, 4], 0.5)) == [1, 1, 0.5, 0.5, 0.25, 0.25]
    assert run(L.ExponentialDecay(2.0, 0.5), 3) == [2.0, 1.0, 0.5]
    np.testing.assert_allclose(run(L.CosineAnnealingDecay(1.0, 4), 5),
                               [(1 + math.cos(math.pi * e / 4)) / 2 for e in range(5)])
    assert run(L.PiecewiseDecay([1, 3], [0.1, 0.01, 0.001]), 4) == [0.1, 0.01, 0.01, 0.001]
    assert run(L.LambdaDecay(0.5, lambda e: e + 1), 3) == [0.5, 1.0, 1.5]
    np.testing.assert_allclose(run(L.LinearWarmup(L.StepDecay(1.0, 1, 0.5), 2, 0.0, 1.0), 5),
                               [0.0, 0.5, 1.0, 0.5, 0.25])


def test_parameter_groups_scale_the_rate_and_set_their_decay():
    a, b = _one_param([1.0, 1.0]), _one_param([1.0, 1.0])
    opt = paddle.optimizer.SGD(0.1, parameters=[
        {"params": [a]}, {"params": [b], "learning_rate": 0.5, "weight_decay": 0.2}])
    a.grad = paddle.to_tensor(np.array([1.0, 2.0]))
    b.grad = paddle.to_tensor(np.array([1.0, 2.0]))
    opt.step()
    np.testing.assert_allclose(a.numpy(), [0.9, 0.8])
    np.testing.assert_allclose(b.numpy(), [1 - 0.05 * 1.2, 1 - 0.05 * 2.2])


def test_the_private_learning_rate_attribute_paddle_code_reads():
    w = paddle.create_parameter([2], "float32")
    opt = paddle.optimizer.SGD(0.1, parameters=[w])
    assert opt._learning_rate == 0.1
    sched = paddle.optimizer.lr.StepDecay(0.5, 1, 0.5)
    opt2 = paddle.optimizer.Adam(sched, parameters=[w])
    assert opt2._learning_rate is sched
    opt2._learning_rate.step()
    assert opt2.get_lr() == 0.25
    opt._learning_rate = 0.3
    assert opt.get_lr() == 0.3
