"""paddle.Model and paddle.callbacks (jitgrad/hapi/model.py, callbacks.py, progressbar.py).

The printed progress lines, returned values, callback order and files are pinned to what
Paddle 3.3.1 gives for the same scripts (measured by running these models and data under
paddlepaddle 3.3.1 on CPU; the weights are set from numpy so both start alike). Timings
("3ms/step", "ETA: 0s") are masked; losses agree to the printed 4 decimals (the float32
last digits may differ).
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import nn
from jitgrad.hapi import model as hapi_model


class RandDS(paddle.io.Dataset):
    def __init__(self, n=20, seed=0, ylabel=True):
        r = np.random.RandomState(seed)
        self.x = r.randn(n, 4).astype("float32")
        self.y = r.randint(0, 2, (n, 1)).astype("int64")
        self.ylabel = ylabel

    def __getitem__(self, i):
        return (self.x[i], self.y[i]) if self.ylabel else (self.x[i],)

    def __len__(self):
        return len(self.x)


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(nn.functional.relu(self.fc1(x)))


def make_net(seed=1):
    net = MLP()
    r = np.random.RandomState(seed)
    for p in net.parameters():
        p.set_value((r.randn(*p.shape) * 0.5).astype("float32"))
    return net


def make_model(lr=0.1, metrics=True, opt=paddle.optimizer.SGD):
    model = paddle.Model(make_net())
    model.prepare(opt(learning_rate=lr, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy() if metrics else None)
    return model


def masked(text):
    text = re.sub(r"[0-9]+(s|ms|us)/step", "T/step", text)
    text = re.sub(r"ETA: [0-9:]+s?", "ETA: X", text)
    text = re.sub(r" +(\x08|\r|$)", r"\1", text, flags=re.MULTILINE)
    return re.sub(r"\x08+", "<BS>", text)


@pytest.fixture(autouse=True)
def fresh_logs():
    """Paddle's logs dict is one for the whole process; start each test as a new process."""
    hapi_model._SHARED_LOGS.clear()


FIT_V2 = """\
The loss value printed in the log is the current step, and the metric is the average value of previous steps.
Epoch 1/2
step 2/5 - loss: 0.6437 - acc: 0.5000 - T/step
step 4/5 - loss: 0.6305 - acc: 0.5000 - T/step
step 5/5 - loss: 0.9337 - acc: 0.4500 - T/step
Eval begin...
step 2/2 - loss: 0.9470 - acc: 0.6250 - T/step
Eval samples: 8
Epoch 2/2
step 2/5 - loss: 0.4661 - acc: 0.8750 - T/step
step 4/5 - loss: 0.4625 - acc: 0.8125 - T/step
step 5/5 - loss: 0.6990 - acc: 0.8000 - T/step
Eval begin...
step 2/2 - loss: 1.2374 - acc: 0.5000 - T/step
Eval samples: 8
"""


class Recorder(paddle.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            def hook(*args):
                logs = args[-1] if args else None
                self.events.append((name,) + args[:-1] +
                                   (sorted(logs) if isinstance(logs, dict) else logs,))
            return hook
        return super().__getattribute__(name)


def test_fit_verbose2_output_and_callback_order(capsys):
    model = make_model()
    rec = Recorder()
    model.fit(RandDS(20), RandDS(8, seed=3), batch_size=4, epochs=2, log_freq=2, verbose=2,
              shuffle=False, callbacks=[rec])
    assert masked(capsys.readouterr().out) == FIT_V2
    keys = ["acc", "batch_size", "loss", "step"]
    expect = [("on_train_begin", None)]
    for epoch in range(2):
        expect.append(("on_epoch_begin", epoch, None))
        for step in range(5):     # the shared logs dict is empty before the first step
            expect += [("on_train_batch_begin", step, [] if epoch == step == 0 else keys),
                       ("on_train_batch_end", step, keys)]
        expect += [("on_epoch_end", epoch, keys), ("on_eval_begin", ["metrics", "steps"])]
        for step in range(2):
            expect += [("on_eval_batch_begin", step, keys), ("on_eval_batch_end", step, keys)]
        expect.append(("on_eval_end", keys))
    expect.append(("on_train_end", keys))
    assert rec.events == expect
    assert rec.params == {"batch_size": None, "epochs": 2, "steps": 5, "verbose": 2,
                          "metrics": ["loss", "acc"]}

    res = model.evaluate(RandDS(8, seed=3), batch_size=4, verbose=2, log_freq=1)
    assert masked(capsys.readouterr().out) == (
        "Eval begin...\nstep 1/2 - loss: 0.6782 - acc: 0.5000 - T/step\n"
        "step 2/2 - loss: 1.2374 - acc: 0.5000 - T/step\nEval samples: 8\n")
    assert list(res) == ["loss", "acc"]
    assert isinstance(res["loss"], list) and isinstance(res["loss"][0], float)
    np.testing.assert_allclose(res["loss"], [1.2374030351638794], rtol=1e-6)
    assert res["acc"] == 0.5


def test_batch_methods_return_types():
    model = make_model()
    model.fit(RandDS(20), batch_size=4, epochs=2, verbose=0, shuffle=False)
    x = np.random.RandomState(9).randn(3, 4).astype("float32")
    y = np.array([[0], [1], [1]], "int64")
    losses, metrics = model.train_batch([x], [y])
    assert isinstance(losses, list) and losses[0].shape == () and losses[0].dtype == np.float32
    np.testing.assert_allclose(losses[0], 0.92894346, rtol=1e-5)   # Paddle 3.3.1
    assert metrics == [pytest.approx(2 / 3)]
    assert isinstance(metrics[0], np.floating)
    assert model.mode == "train"
    losses, metrics = model.eval_batch([x], [y])
    np.testing.assert_allclose(losses[0], 0.83222693, rtol=1e-5)
    assert metrics == [pytest.approx(2 / 3)]
    out = model.predict_batch([x])
    np.testing.assert_allclose(out[0], [[0.50244474, 0.34305328], [0.54347146, 1.154487],
                                        [1.098494, -0.07955837]], atol=1e-5)
    assert model.mode == "test"
    assert isinstance(out, list) and out[0].shape == (3, 2) and out[0].dtype == np.float32
    # the inputs' spec was inferred from the first batch (shape [4, 4] during fit)
    assert repr(model._inputs) == \
        "[InputSpec(shape=(4, 4), dtype=paddle.float32, name=x, stop_gradient=False)]"
    assert model._labels is None

    model2 = make_model(metrics=False, opt=paddle.optimizer.Adam, lr=0.001)
    r = model2.train_batch([x], [y])
    assert isinstance(r, list) and len(r) == 1
    np.testing.assert_allclose(r[0], 0.6004912, rtol=1e-5)   # Paddle 3.3.1
    r = model2.eval_batch([x], [y])
    np.testing.assert_allclose(r[0], 0.5974453, rtol=1e-5)
    assert model2.mode == "eval"

    model3 = paddle.Model(make_net())
    model3.prepare(metrics=paddle.metric.Accuracy())
    r = model3.eval_batch([x], [y])
    assert r == [pytest.approx(1 / 3)]


def test_train_batch_values():
    model = make_model()
    x = np.random.RandomState(9).randn(3, 4).astype("float32")
    y = np.array([[0], [1], [1]], "int64")
    losses, _ = model.eval_batch([x], [y])
    before = float(losses[0])
    losses2, _ = model.train_batch([x], [y])
    assert float(losses2[0]) == pytest.approx(before, rel=1e-6)   # the loss before the step
    after, _ = model.eval_batch([x], [y])
    assert float(after[0]) < before


def test_predict_outputs(capsys):
    model = make_model()
    out = model.predict(RandDS(6, seed=5, ylabel=False), batch_size=4)
    text = masked(capsys.readouterr().out)
    assert text == ("Predict begin...\n\rstep 2/2 [==============================] - T/step\n"
                    "Predict samples: 6\n")
    assert isinstance(out, list) and len(out) == 1 and isinstance(out[0], tuple)
    assert [o.shape for o in out[0]] == [(4, 2), (2, 2)]
    out = model.predict(RandDS(6, seed=5, ylabel=False), batch_size=4, stack_outputs=True,
                        verbose=2)
    assert capsys.readouterr().out == "Predict begin...\nPredict samples: 6\n"
    assert len(out) == 1 and out[0].shape == (6, 2)
    np.testing.assert_allclose(out[0], np.vstack(model.predict_batch(
        [RandDS(6, seed=5).x])), rtol=1e-6)


def test_fit_verbose1_redraws_one_line(capsys):
    model = paddle.Model(make_net())
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    model.fit(RandDS(20), RandDS(8, seed=3), batch_size=3, epochs=1, log_freq=2, verbose=1,
              shuffle=True)
    lines = masked(capsys.readouterr().out).split("\n")
    assert lines[1] == "Epoch 1/1"
    m = " - acc_top2: 1.0000 - "
    assert lines[2] == (
        "\rstep 2/7 [=======>......................] - loss: 1.1446 - acc_top1: 0.3333" + m +
        "ETA: X - T/step<BS>\rstep 4/7 [================>.............] - loss: 0.4613 - "
        "acc_top1: 0.5833" + m + "ETA: X - T/step<BS>\rstep 6/7 [========================>"
        ".....] - loss: 0.6802 - acc_top1: 0.5556" + m + "ETA: X - T/step<BS>\rstep 7/7 "
        "[==============================] - loss: 0.3206 - acc_top1: 0.6000" + m + "T/step")
    assert lines[3] == "Eval begin..."
    assert lines[4].startswith("\rstep 2/3 [===================>..........] - loss: 0.8500 "
                               "- acc_top1: 0.5000 - acc_top2: 1.0000 - ETA: X - T/step<BS>"
                               "\rstep 3/3 [==============================] - loss: 1.1468")
    assert lines[5:] == ["Eval samples: 8", ""]


def test_save_load_and_checkpoints(tmp_path, capsys):
    d = str(tmp_path / "ckpt")
    model = make_model(lr=0.01, metrics=False, opt=paddle.optimizer.Adam)
    model.fit(RandDS(12), batch_size=4, epochs=3, save_dir=d, save_freq=2, verbose=0,
              shuffle=False)
    assert capsys.readouterr().out == "".join(
        f"save checkpoint at {os.path.abspath(d)}/{n}\n" for n in ("0", "2", "final"))
    assert sorted(os.listdir(d)) == ["0.pdopt", "0.pdparams", "2.pdopt", "2.pdparams",
                                     "final.pdopt", "final.pdparams"]
    w = model.network.fc1.weight.numpy().copy()
    opt_keys = sorted(paddle.load(d + "/final.pdopt"))
    assert len(opt_keys) == 16 and opt_keys[0].endswith("b_0_beta1_pow_acc_0")

    m2 = paddle.Model(make_net(seed=7))
    m2.prepare(paddle.optimizer.Adam(learning_rate=0.01, parameters=m2.parameters()),
               nn.CrossEntropyLoss())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # other parameter names: Paddle skips the state
        m2.load(d + "/final")
    np.testing.assert_array_equal(m2.network.fc1.weight.numpy(), w)
    m2.load(d + "/final.pdparams", reset_optimizer=True)
    with pytest.raises(AssertionError, match="Failed to load parameters, please check path."):
        m2.load(d + "/nonexistent")

    # an SGD has no state: only .pdparams
    m3 = make_model()
    m3.save(d + "/sgd")
    m3.train_batch([np.ones((2, 4), "float32")], [np.ones((2, 1), "int64")])
    m3.save(d + "/sgd2")
    assert sorted(f for f in os.listdir(d) if f.startswith("sgd")) == ["sgd.pdparams",
                                                                      "sgd2.pdparams"]

    class Other(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)

        def forward(self, x):
            return self.fc1(x)

    m4 = paddle.Model(Other())
    m4.prepare(paddle.optimizer.Adam(parameters=m4.parameters()), nn.CrossEntropyLoss())
    with pytest.raises(ValueError, match=re.escape(
            "fc1.weight receives a shape [4, 8], but the expected shape is [4, 3].")):
        m4.load(d + "/final")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m4.load(d + "/final", skip_mismatch=True)
    assert [str(w.message) for w in caught] == [
        ("Skip loading for fc1.weight. fc1.weight receives a shape [4, 8], but the expected "
         "shape is [4, 3]."),
        ("Skip loading for fc1.bias. fc1.bias receives a shape [8], but the expected shape is "
         "[3].")]


def test_early_stopping(tmp_path, capsys):
    d = str(tmp_path)
    model = make_model(lr=0.5)
    es = paddle.callbacks.EarlyStopping(monitor="loss", patience=1, verbose=1)
    model.fit(RandDS(20), RandDS(8, seed=3), batch_size=5, epochs=10, verbose=2, log_freq=10,
              shuffle=False, callbacks=[es], save_dir=d)
    p = os.path.abspath(d)
    assert masked(capsys.readouterr().out) == f"""\
The loss value printed in the log is the current step, and the metric is the average value of previous steps.
Epoch 1/10
step 4/4 - loss: 0.6227 - acc: 0.6500 - T/step
save checkpoint at {p}/0
Eval begin...
step 2/2 - loss: 2.0120 - acc: 0.2500 - T/step
Eval samples: 8
Epoch 2/10
step 4/4 - loss: 0.5664 - acc: 0.8000 - T/step
save checkpoint at {p}/1
Eval begin...
step 2/2 - loss: 2.3349 - acc: 0.3750 - T/step
Eval samples: 8
Epoch 2: Early stopping.
Best checkpoint has been saved at {p}/best_model
save checkpoint at {p}/final
"""
    assert sorted(os.listdir(d)) == ["0.pdparams", "1.pdparams", "best_model.pdparams",
                                     "final.pdparams"]
    assert model.stop_training is True
    assert es.best_value == pytest.approx(2.0119848251342773, rel=1e-6)
    assert (es.wait_epoch, es.stopped_epoch) == (1, 2)

    # 'acc' is maximised; a baseline no epoch beats
    es2 = paddle.callbacks.EarlyStopping(monitor="acc", patience=2, baseline=0.9)
    m = make_model()
    m.fit(RandDS(20), RandDS(8, seed=3), batch_size=10, epochs=5, verbose=0, shuffle=False,
          callbacks=es2)
    assert capsys.readouterr().out == "Epoch 2: Early stopping.\n"
    assert (es2.stopped_epoch, es2.best_value, es2.min_delta) == (2, 0.9, 0)
    # as Paddle's, stop_training stays set: the next fit runs one epoch
    m.fit(RandDS(20), batch_size=10, epochs=3, verbose=2, shuffle=False)
    assert masked(capsys.readouterr().out).split("\n")[1:] == [
        "Epoch 1/3", "step 2/2 - loss: 0.6713 - acc: 0.7000 - T/step", ""]


def test_lr_scheduler_callback():
    for cb, expect in ((None, (8, 0.03125)),
                       (paddle.callbacks.LRScheduler(by_step=False, by_epoch=True), (2, 0.25))):
        sched = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5)
        m = paddle.Model(make_net())
        m.prepare(paddle.optimizer.SGD(learning_rate=sched, parameters=m.parameters()),
                  nn.CrossEntropyLoss())
        m.fit(RandDS(20), batch_size=5, epochs=2, verbose=0, shuffle=False, callbacks=cb)
        assert (sched.last_epoch, sched.get_lr()) == expect
        assert m._optimizer.get_lr() == expect[1]
    with pytest.raises(ValueError, match="by_step option is mutually exclusive with by_epoch"):
        paddle.callbacks.LRScheduler(by_step=True, by_epoch=True)


def test_reduce_lr_on_plateau(capsys):
    m = make_model(lr=0.9, metrics=False)
    rl = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, verbose=1, min_delta=0.0)
    m.fit(RandDS(20), RandDS(8, seed=3), batch_size=5, epochs=5, verbose=0, shuffle=False,
          callbacks=[rl])
    assert capsys.readouterr().out == "".join(
        f"\nEpoch {e}: ReduceLROnPlateau reducing learning rate to {lr}.\n"
        for e, lr in ((2, 0.45), (3, 0.225), (4, 0.1125), (5, 0.05625)))
    assert m._optimizer.get_lr() == 0.05625
    assert rl.best == pytest.approx(2.3958663940429688, rel=1e-6)
    assert (rl.wait, rl.epoch) == (0, 5)


def test_num_iters_and_evaluate_num_iters(capsys):
    m = make_model(metrics=False)
    m.fit(RandDS(20), batch_size=5, epochs=10, verbose=2, log_freq=1, shuffle=False,
          num_iters=6)
    losses = ["0.6190", "1.0927", "0.7556", "0.8107", "0.5386", "0.6517", "0.6517"]
    steps = [1, 2, 3, 4, 1, 2, 2]        # Paddle prints the last step twice
    lines = [f"step {s}/4 - loss: {v} - T/step" for s, v in zip(steps, losses)]
    assert masked(capsys.readouterr().out).split("\n")[1:] == \
        ["Epoch 1/2"] + lines[:4] + ["Epoch 2/2"] + lines[4:] + [""]
    assert m.stop_training is True and not hasattr(m, "num_iters")
    m.stop_training = False
    res = m.evaluate(RandDS(8, seed=3), batch_size=2, verbose=0, num_iters=3)
    assert res["loss"] == [pytest.approx(0.796856164932251, rel=1e-6)]
    assert m.stop_training is True


def test_accumulate_shuffle_eval_freq(capsys):
    m = make_model()
    m.fit(RandDS(20), RandDS(8, seed=3), batch_size=[3, 5], epochs=3, eval_freq=2, verbose=2,
          log_freq=3, accumulate_grad_batches=2, drop_last=True)
    assert masked(capsys.readouterr().out).split("\n")[1:] == [
        "Epoch 1/3",
        "step 3/6 - loss: 0.5882 - acc: 0.4444 - T/step",
        "step 6/6 - loss: 0.7845 - acc: 0.5000 - T/step",
        "Eval begin...",
        "step 2/2 - loss: 1.2080 - acc: 0.5000 - T/step",
        "Eval samples: 8",
        "Epoch 2/3",
        "step 3/6 - loss: 0.5156 - acc: 0.7778 - T/step",
        "step 6/6 - loss: 0.4711 - acc: 0.6667 - T/step",
        "Epoch 3/3",
        "step 3/6 - loss: 0.9587 - acc: 0.6667 - T/step",
        "step 6/6 - loss: 0.4721 - acc: 0.7222 - T/step",
        "Eval begin...",
        "step 2/2 - loss: 1.6243 - acc: 0.3750 - T/step",
        "Eval samples: 8", ""]
    np.testing.assert_allclose(m.network.fc1.weight.numpy()[0], [
        0.7737, -0.2126, -0.2651, -0.3906, 0.4667, -1.2194, 0.8759, -0.3388], atol=1e-4)


def test_two_inputs_input_spec_and_loader(capsys):
    from jitgrad.static import InputSpec

    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 2)
            self.b = nn.Linear(4, 2)

        def forward(self, x, z):
            return self.a(x), self.b(z)

    class DS2(paddle.io.Dataset):
        def __getitem__(self, i):
            r = np.random.RandomState(i)
            return (r.randn(4).astype("float32"), r.randn(4).astype("float32"),
                    np.array([i % 2], "int64"))

        def __len__(self):
            return 5

    net = Two()
    for p in net.parameters():
        p.set_value(np.full(p.shape, 0.1, "float32"))
    m = paddle.Model(net, inputs=[InputSpec([None, 4], "float32", "x"),
                                  InputSpec([None, 4], "float32", "z")],
                     labels=[InputSpec([None, 1], "int64", "label")])

    def loss_fn(o1, o2, y):
        return nn.functional.cross_entropy(o1, y), nn.functional.cross_entropy(o2, y)

    m.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=m.parameters()), loss_fn)
    m.fit(DS2(), batch_size=2, epochs=1, verbose=2, log_freq=1, shuffle=False)
    assert masked(capsys.readouterr().out).split("\n")[2:] == [
        "step 1/3 - loss: 0.6931 0.6931 - T/step", "step 2/3 - loss: 0.6053 0.7335 - T/step",
        "step 3/3 - loss: 0.5678 0.7118 - T/step", ""]
    res = m.evaluate(DS2(), batch_size=2, verbose=0)
    np.testing.assert_allclose(res["loss"], [0.4722389578819275, 0.5059969425201416],
                               rtol=1e-5)
    out = m.predict(DS2(), batch_size=2, verbose=0, stack_outputs=True)
    assert [o.shape for o in out] == [(5, 2), (5, 2)]
    assert m.summary() == {"total_params": 20, "trainable_params": 20}

    # a plain list of batches works as a loader
    ds = RandDS(8)
    m = make_model(metrics=False)
    batches = [(ds.x[i:i + 4], ds.y[i:i + 4]) for i in (0, 4)]
    m.fit(batches, epochs=1, verbose=0)
    assert m.evaluate(batches, verbose=0)["loss"] == [pytest.approx(0.26020491123199463,
                                                                    rel=1e-5)]


def test_errors_and_names():
    assert paddle.hapi.Model is paddle.Model
    from jitgrad.callbacks import ProgBarLogger, VisualDL
    assert paddle.callbacks.ProgBarLogger is ProgBarLogger
    with pytest.raises(TypeError, match="'loss' must be sub classes of `paddle.nn.Layer`"):
        paddle.Model(make_net()).prepare(loss=3)
    with pytest.raises(AssertionError, match="model not ready"):
        paddle.Model(make_net()).train_batch([np.ones((1, 4), "float32")])
    with pytest.raises(NotImplementedError, match="amp_configs"):
        paddle.Model(make_net()).prepare(amp_configs="O1")
    paddle.Model(make_net()).prepare(amp_configs="O0")
    with pytest.raises(ValueError, match="factor >= 1.0"):
        paddle.callbacks.ReduceLROnPlateau(factor=1.0)
    m = make_model(metrics=False)
    try:
        import visualdl  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="visualdl"):
            m.fit(RandDS(4), batch_size=4, verbose=0,
                  callbacks=[VisualDL(log_dir="/nonexistent/vdl")])
