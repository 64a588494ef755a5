"""multi_precision: a float32 master copy of each float16 parameter (Paddle's master weights).

Measured on Paddle 3.3.1's CPU build: no optimizer has a float16 kernel (SGD, Momentum, Adam,
AdamW, Lamb, ASGD, Rprop all raise RuntimeError "The kernel with key (CPU, ..., float16) of
kernel `adam` is not registered", with multi_precision True or False), so the reference
values below are Paddle 3.3.1's float32 CPU kernels run on the float32 master: the same
start values (the float16 ones), the same gradient, 20 steps. That is the computation its
multi_precision path makes (the update in float32 on the master, param = master rounded).
The state dict layout (names and dtypes) was measured on 3.3.1 after a step that failed in
the kernel, when the master and accumulators exist already.
"""

import numpy as np
import pytest

import jitgrad as paddle

C = np.array([1.0, -2.0, 0.5, 3.0], "float32")         # d loss / d w, exact in float16
W0 = np.array([1.0, 2.0, -0.5, 0.25], "float16")
LR = 1e-4                                               # sub-ulp steps for most elements
opt_ns = paddle.optimizer


def _param(values=W0):
    """A parameter named create_parameter_0.w_0 (so a saved state dict matches it)."""
    init = paddle.nn.initializer.Assign(np.asarray(values))
    with paddle.utils.unique_name.guard():
        return paddle.create_parameter([len(values)], str(np.asarray(values).dtype),
                                       default_initializer=init)


def _train(opt, w, steps):
    for _ in range(steps):
        (w.astype("float32") * paddle.to_tensor(C)).sum().backward()
        opt.step()
        opt.clear_grad()


def _master(opt, w):
    return opt.state_dict()["master_weights"][w.name].numpy()


def test_sgd_takes_multi_precision():
    # was: TypeError (jitgrad's SGD had no multi_precision); Paddle 3.3.1's SGD has it
    w = _param()
    opt_ns.SGD(LR, parameters=[w], multi_precision=True)


def test_sub_ulp_sgd_steps_add_up_with_master_weights_and_vanish_without():
    w_mp, w_plain = _param(np.ones(1, "float16")), _param(np.ones(1, "float16"))
    for w, mp in ((w_mp, True), (w_plain, False)):
        opt = opt_ns.SGD(LR, parameters=[w], multi_precision=mp)
        for _ in range(10):
            w.sum().backward()              # gradient 1: each step is 1e-4, under half an ulp
            opt.step()
            opt.clear_grad()
    master = np.float32(1.0)
    for _ in range(10):                     # the same rule, in float32
        master = master - np.float32(LR) * np.float32(1.0)
    assert w_plain.numpy().tolist() == [1.0]
    assert w_mp.dtype == paddle.float16
    assert w_mp.numpy().tolist() == [float(np.float16(master))] == [0.9990234375]


def test_sgd_with_weight_decay_decays_the_float32_master():
    w = _param()
    opt = opt_ns.SGD(LR, parameters=[w], weight_decay=0.5, multi_precision=True)
    _train(opt, w, 20)
    master = W0.astype("float32")
    for _ in range(20):
        master = master - np.float32(LR) * (C + np.float32(0.5) * master)
    np.testing.assert_array_equal(_master(opt, w), master)
    np.testing.assert_array_equal(w.numpy(), master.astype("float16"))


# Paddle 3.3.1, float32 CPU kernels on the master, 20 steps of lr 1e-4 from W0 with gradient C
PADDLE_MASTERS = {
    "SGD": (opt_ns.SGD, {}, [0.9979996681213379, 2.004000663757324, -0.501000165939331,
                        0.2439998984336853]),
    "Momentum": (opt_ns.Momentum, {}, [0.9879058599472046, 2.02418851852417, -0.5060471296310425,
                                  0.21371744573116302]),
    "Adam": (opt_ns.Adam, {}, [0.9979996681213379, 2.001997947692871, -0.5020003318786621,
                          0.24799996614456177]),
    "AdamW": (opt_ns.AdamW, {}, [0.9979794025421143, 2.001959800720215, -0.5019907355308533,
                            0.24799489974975586]),
    "Lamb": (opt_ns.Lamb, {}, [0.9976643323898315, 2.002264976501465, -0.5023009777069092,
                          0.24768167734146118]),
    "ASGD": (opt_ns.ASGD, {}, [0.9979996681213379, 2.004000663757324, -0.501000165939331,
                          0.2439998984336853]),
    "Rprop": (opt_ns.Rprop, {}, [0.9813310503959656, 2.0186688899993896, -0.5186689496040344,
                            0.23133116960525513]),
    "Momentum weight_decay=0.1": (
        opt_ns.Momentum, {"weight_decay": 0.1},
        [0.9867005348205566, 2.0217623710632324, -0.5054405927658081, 0.2134263813495636]),
    "AdamW weight_decay=0.5": (
        opt_ns.AdamW, {"weight_decay": 0.5},
        [0.9970011115074158, 2.0, -0.501499593257904, 0.24775104224681854]),
    # the clip sees the float32 gradient (global norm sqrt(14.25): every step scaled)
    "SGD ClipGradByGlobalNorm(1.0)": (
        opt_ns.SGD, {"grad_clip": "global_norm_1"},
        [0.9994707107543945, 2.001058578491211, -0.5002646446228027, 0.2484106421470642]),
}


@pytest.mark.parametrize("case", sorted(PADDLE_MASTERS))
def test_master_and_parameter_match_paddles_float32_update(case):
    cls, kw, expected = PADDLE_MASTERS[case]
    if kw.get("grad_clip") == "global_norm_1":
        kw = dict(kw, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    w = _param()
    opt = cls(learning_rate=LR, parameters=[w], multi_precision=True, **kw)
    _train(opt, w, 20)
    expected = np.array(expected, "float32")
    np.testing.assert_array_equal(_master(opt, w), expected)
    assert w.dtype == paddle.float16
    np.testing.assert_array_equal(w.numpy(), expected.astype("float16"))


def test_without_multi_precision_the_sub_ulp_steps_are_lost():
    w = _param()
    opt = opt_ns.Adam(LR, parameters=[w])
    _train(opt, w, 20)
    # elements 0-2 never move (each step is under half an ulp); with the master they do
    assert w.numpy()[:3].tolist() == [1.0, 2.0, -0.5]
    assert "master_weights" not in opt.state_dict()


def test_float32_parameters_are_untouched_by_multi_precision():
    got = []
    for mp in (True, False):
        w = _param(W0.astype("float32"))
        opt = opt_ns.Adam(LR, parameters=[w], multi_precision=mp)
        _train(opt, w, 5)
        assert "master_weights" not in opt.state_dict()
        got.append(w.numpy())
    np.testing.assert_array_equal(got[0], got[1])


def test_state_dict_names_and_dtypes_are_paddles():
    # Paddle 3.3.1 (Adam, float16 parameter create_parameter_0.w_0, multi_precision=True):
    # accumulators named after the master, float32; master_weights maps the parameter name
    # to a float32 Tensor named create_parameter_0.w_0_fp32_master_0
    w = _param()
    with paddle.utils.unique_name.guard():
        opt = opt_ns.Adam(LR, parameters=[w], multi_precision=True)
    _train(opt, w, 1)
    sd = opt.state_dict()
    accs = {k: (str(v.dtype), list(v.shape)) for k, v in sd.items() if k != "master_weights"}
    base = "create_parameter_0.w_0_fp32_master_0"
    assert accs == {f"{base}_moment1_0": ("paddle.float32", [4]),
                    f"{base}_moment2_0": ("paddle.float32", [4]),
                    f"{base}_beta1_pow_acc_0": ("paddle.float32", [1]),
                    f"{base}_beta2_pow_acc_0": ("paddle.float32", [1])}
    master = sd["master_weights"]["create_parameter_0.w_0"]
    assert master.name == base and master.dtype == paddle.float32


def test_state_dict_round_trip_keeps_the_master():
    straight = _param()
    opt = opt_ns.Adam(LR, parameters=[straight], multi_precision=True)
    _train(opt, straight, 20)

    first = _param()
    opt1 = opt_ns.Adam(LR, parameters=[first], multi_precision=True)
    _train(opt1, first, 10)
    saved, saved_w = opt1.state_dict(), first.numpy()
    second = _param(saved_w)                # the model reloaded: float16 values only
    opt2 = opt_ns.Adam(LR, parameters=[second], multi_precision=True)
    opt2.set_state_dict(saved)
    _train(opt2, second, 10)
    # the master carried the sub-ulp progress across: the same as 20 steps in one go
    np.testing.assert_array_equal(_master(opt2, second), _master(opt, straight))
    np.testing.assert_array_equal(second.numpy(), straight.numpy())


def test_a_parameter_set_from_outside_restarts_its_master():
    # Paddle keeps a stale master and overwrites the new values at the next step; jitgrad
    # takes the parameter's new values as the master
    w = _param()
    opt = opt_ns.SGD(LR, parameters=[w], multi_precision=True)
    _train(opt, w, 3)
    w.set_value(np.array([4.0, 4.0, 4.0, 4.0], "float16"))
    _train(opt, w, 1)
    np.testing.assert_array_equal(_master(opt, w), np.float32(4.0) - np.float32(LR) * C)


def test_optimizers_paddle_gives_no_multi_precision_refuse_it():
    # Paddle 3.3.1: RMSProp, Adagrad, Adamax, Adadelta, NAdam, RAdam raise TypeError
    w = _param()
    for name in ("RMSProp", "Adagrad", "Adamax", "Adadelta", "NAdam", "RAdam"):
        cls = getattr(opt_ns, name)
        with pytest.raises(TypeError):
            cls(learning_rate=LR, parameters=[w], multi_precision=True)


def test_a_replicas_state_gives_the_master_weights_as_numpy(monkeypatch):
    # (DataParallel's state(): was a dict of Tensors inside the numpy state)
    from jitgrad.distributed import replica
    monkeypatch.setattr(replica, "worker_address", lambda: "test-worker")
    model = paddle.nn.Linear(2, 1)
    model.to(dtype="float16")
    r = replica.Replica(model, None, None, mean=False)
    r.optimizer = opt_ns.SGD(LR, parameters=r.params, multi_precision=True)
    model(paddle.ones([1, 2], "float16")).astype("float32").sum().backward()
    r.optimizer.step()
    monkeypatch.setitem(replica._REPLICAS, ("mp", "test-worker"), r)
    _, opt_state = replica.state("mp")
    masters = opt_state["master_weights"]
    assert sorted(masters) == sorted(p.name for p in model.parameters())
    for p in model.parameters():
        assert type(masters[p.name]) is np.ndarray and masters[p.name].dtype == np.float32


def _steps(opt_cls, dtype, grad, steps, round_each=False, **kw):
    """w (ones, [4]) after `steps` steps of opt_cls with d loss / d w = grad; round_each:
    a float32 w put back through float16 after every step."""
    w = paddle.create_parameter([4], dtype)
    w.set_value(np.ones(4, dtype))
    opt = opt_cls(learning_rate=1e-3, parameters=[w], **kw)
    for _ in range(steps):
        (w * paddle.to_tensor(np.full(4, grad, dtype))).sum().backward()
        opt.step()
        opt.clear_grad()
        if round_each:
            w.set_value(w.numpy().astype("float16").astype(dtype))
    return w, opt


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Lamb", "Adamax", "Adagrad", "RMSProp"])
def test_a_float16_update_without_master_weights_runs_in_float32(name):
    # Adam's eps 1e-8 is 0 in float16 and (1 - b2) g^2 underflows: a 1e-4 gradient took w to
    # -inf in three steps; now each step is the float32 rule on float32(w), rounded to float16
    cls = getattr(opt_ns, name)
    w16, _ = _steps(cls, "float16", 1e-4, 3)
    w32, _ = _steps(cls, "float32", np.float32(np.float16(1e-4)), 3, round_each=True)
    assert w16.dtype == paddle.float16 and np.isfinite(w16.numpy()).all()
    np.testing.assert_array_equal(w16.numpy(), w32.numpy().astype("float16"))


def test_a_float16_parameters_accumulators_are_float32_without_master_weights():
    # (Paddle 3.3.1's state dict without multi_precision: Adam's moments float32, plain names)
    w, opt = _steps(opt_ns.Adam, "float16", 1e-4, 1)
    state = opt.state_dict()
    assert "master_weights" not in state
    moments = {k: v for k, v in state.items() if "moment" in k}
    assert sorted(k.split(".")[-1].rsplit("_", 1)[0] for k in moments) == ["w_0_moment1",
                                                                          "w_0_moment2"]
    assert all(v.dtype == paddle.float32 for v in moments.values())
