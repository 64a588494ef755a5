"""Checkpoints cross between Paddle and jitgrad: files written by PaddlePaddle 3.3.1
(tests/fixtures/paddle331/, made by tests/fixtures/make_paddle_fixtures.py from the recipe in
tests/fixtures/model.py) load into jitgrad, and files jitgrad writes load into Paddle (that
test needs paddle installed and is skipped otherwise)."""

import importlib.util
import io
import os

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.utils import unique_name

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "paddle331")
_spec = importlib.util.spec_from_file_location("paddle_fixture_model",
                                               os.path.join(HERE, "fixtures", "model.py"))
model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(model)


def fixture(name):
    return os.path.join(FIXTURES, name)


def test_a_paddle_linear_state_dict_loads_as_named_tensors():
    sd = paddle.load(fixture("linear.pdparams"))
    assert list(sd) == ["weight", "bias"]
    assert (sd["weight"].name, sd["bias"].name) == ("linear_0.w_0", "linear_0.b_0")
    assert sd["weight"].dtype == paddle.float32 and sd["weight"].stop_gradient
    np.testing.assert_array_equal(sd["weight"].numpy(), np.float32(
        [[-0.3, -0.2], [-0.1, 0.0], [0.1, 0.2]]))
    np.testing.assert_array_equal(sd["bias"].numpy(), [0.0, 0.25])


def test_a_protocol_2_file_and_the_name_table_on_request():
    sd = paddle.load(fixture("linear_protocol2.pdparams"), keep_name_table=True)
    assert sd["StructuredToParameterName@@"] == {"weight": "linear_0.w_0",
                                                 "bias": "linear_0.b_0"}
    np.testing.assert_array_equal(sd["bias"].numpy(), [0.0, 0.25])


def test_return_numpy_gives_the_arrays():
    sd = paddle.load(fixture("linear.pdparams"), return_numpy=True)
    assert isinstance(sd["weight"], np.ndarray) and sd["weight"].dtype == np.float32


def _trained(steps):
    """The fixture model trained in jitgrad, named as in a fresh Paddle process."""
    with unique_name.guard():
        net, opt, sched = model.build(paddle)
    model.train(paddle, net, opt, sched, steps)
    return net, opt, sched


def test_paddle_weights_after_three_adam_steps_load_into_the_same_model():
    net, _, _ = _trained(0)
    missing, unexpected = net.set_state_dict(paddle.load(fixture("mlp_step3.pdparams")))
    assert missing == [] and unexpected == []
    ref, _, _ = _trained(3)                        # jitgrad's own three steps agree
    for (k, a), (_, b) in zip(net.state_dict().items(), ref.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_a_paddle_adam_state_holds_paddles_names_and_jitgrads_values():
    state = paddle.load(fixture("mlp_step3_adam.pdopt"))
    _, opt, _ = _trained(3)
    mine = opt.state_dict()
    assert list(state) == list(mine)               # the same keys in the same order
    assert state["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.025}
    assert state["linear_0.w_0_beta1_pow_acc_0"].shape == [1]
    for key, value in state.items():
        if key != "LR_Scheduler":
            assert value.name == key
            np.testing.assert_allclose(value.numpy(), mine[key].numpy(), rtol=2e-5,
                                       atol=1e-7, err_msg=key)


def test_training_resumed_from_paddle_files_matches_paddles_own_run():
    """Weights and Adam state saved by Paddle after 3 steps, 2 more steps in jitgrad: the
    weights Paddle reached after 5 steps."""
    with unique_name.guard():
        net, opt, sched = model.build(paddle)
    net.set_state_dict(paddle.load(fixture("mlp_step3.pdparams")))
    opt.set_state_dict(paddle.load(fixture("mlp_step3_adam.pdopt")))
    assert (sched.last_epoch, sched()) == (3, 0.025)
    model.train(paddle, net, opt, sched, steps=2)
    want = paddle.load(fixture("mlp_step5.pdparams"))
    for key, value in net.state_dict().items():
        np.testing.assert_allclose(value.numpy(), want[key].numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=key)


def test_a_nested_paddle_checkpoint_keeps_its_structure():
    ckpt = paddle.load(fixture("checkpoint.pdckpt"))
    assert sorted(ckpt) == ["epoch", "history", "model", "note", "opt", "pair"]
    assert (ckpt["epoch"], ckpt["note"], ckpt["history"]) == (7, "hi", [1.5, 2.5])
    assert list(ckpt["model"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert ckpt["model"]["2.bias"].name == "linear_1.b_0"
    assert ckpt["opt"]["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.025}
    bias, three = ckpt["pair"]
    assert isinstance(ckpt["pair"], tuple) and three == 3 and bias.name == "linear_0.b_0"
    np.testing.assert_array_equal(bias.numpy(), ckpt["model"]["0.bias"].numpy())


def test_tensors_of_every_dtype_load_with_their_dtypes():
    loaded = paddle.load(fixture("tensors.pdtensor"))
    arrays = model.dtype_arrays()
    assert len(loaded) == len(arrays) + 1
    for t, a in zip(loaded, arrays):
        assert t.dtype == paddle.to_tensor(a).dtype and t.shape == list(a.shape)
        np.testing.assert_array_equal(t.numpy(), a)
    single = paddle.load(fixture("tensor.pdtensor"))
    assert single.name == loaded[0].name and single.name.startswith("generated_tensor_")
    np.testing.assert_array_equal(single.numpy(), arrays[0])


def test_a_paddle_bfloat16_tensor_loads_as_its_float32_values():
    bf16 = paddle.load(fixture("tensors.pdtensor"))[-1]
    assert bf16.dtype == paddle.float32
    np.testing.assert_array_equal(bf16.numpy(), model.BF16_VALUES)
    raw = paddle.load(fixture("tensors.pdtensor"), return_numpy=True)[-1]
    assert raw.dtype == np.uint16                  # Paddle's bit patterns, as Paddle returns


def test_files_jitgrad_writes_load_in_paddle(tmp_path):
    """Measured with Paddle 3.3.1 in the peers environment (skipped where paddle is absent)."""
    real = pytest.importorskip("paddle")
    with unique_name.guard():
        net, opt, sched = model.build(paddle)
    model.train(paddle, net, opt, sched, steps=3)
    paddle.save(net.state_dict(), str(tmp_path / "m.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "m.pdopt"))
    paddle.save({"model": net.state_dict(), "epoch": 4, "w": net[0].weight},
                str(tmp_path / "c.pdckpt"))
    from paddle.utils import unique_name as paddle_names
    with paddle_names.guard():
        pnet, popt, psched = model.build(real)
    assert pnet.set_state_dict(real.load(str(tmp_path / "m.pdparams"))) == ([], [])
    popt.set_state_dict(real.load(str(tmp_path / "m.pdopt")))
    assert psched.last_epoch == 3
    model.train(real, pnet, popt, psched, steps=2)
    model.train(paddle, net, opt, sched, steps=2)
    for (k, a), (_, b) in zip(pnet.state_dict().items(), net.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    ckpt = real.load(str(tmp_path / "c.pdckpt"))
    assert ckpt["epoch"] == 4 and ckpt["w"].name == "linear_0.w_0"
    assert ckpt["model"]["2.weight"].name == "linear_1.w_0"
    buf = io.BytesIO()
    paddle.save(paddle.to_tensor(np.array([1, 2], dtype="int32")), buf)
    buf.seek(0)
    t = real.load(buf)
    assert str(t.dtype) == "paddle.int32" and t.numpy().tolist() == [1, 2]


def test_paddle_optimizer_state_loads_from_numpy_arrays_too():
    """paddle.load(..., return_numpy=True) gives arrays; set_state_dict takes them."""
    with unique_name.guard():
        net, opt, sched = model.build(paddle)
    opt.set_state_dict(paddle.load(fixture("mlp_step3_adam.pdopt"), return_numpy=True))
    arrays = paddle.load(fixture("mlp_step3_adam.pdopt"), return_numpy=True)
    mine = opt.state_dict()
    assert sched.last_epoch == 3
    for key, value in arrays.items():
        if key != "LR_Scheduler":
            np.testing.assert_array_equal(mine[key].numpy(), value, err_msg=key)
