"""Optimizer and scheduler state: Paddle 3.3.1's keys (measured), resuming exactly where a
run left off, and minimize()."""

import io

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.utils import unique_name

O = paddle.optimizer
X = np.sin(np.arange(6, dtype="float32")).reshape(3, 2)

OPTIMIZERS = {
    "SGD": (lambda ps: O.SGD(0.1, parameters=ps), []),
    "Momentum": (lambda ps: O.Momentum(0.1, parameters=ps), ["velocity"]),
    "Adam": (lambda ps: O.Adam(0.1, parameters=ps),
             ["moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"]),
    "AdamW": (lambda ps: O.AdamW(0.1, parameters=ps),
              ["moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"]),
    "RMSProp": (lambda ps: O.RMSProp(0.1, parameters=ps),
                ["momentum", "mean_square", "mean_grad"]),
    "RMSProp centered": (lambda ps: O.RMSProp(0.1, momentum=0.5, centered=True, parameters=ps),
                         ["momentum", "mean_square", "mean_grad"]),
    "Adagrad": (lambda ps: O.Adagrad(0.1, parameters=ps), ["moment"]),
    "Adamax": (lambda ps: O.Adamax(0.1, parameters=ps), ["moment", "inf_norm", "beta1_pow_acc"]),
    "Adadelta": (lambda ps: O.Adadelta(0.1, parameters=ps),
                 ["_avg_squared_grad", "_avg_squared_update"]),
    "Lamb": (lambda ps: O.Lamb(0.1, parameters=ps),
             ["moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"]),
}


@pytest.fixture(autouse=True)
def fresh_names():
    """Names as in a fresh process (accumulator names count per parameter name)."""
    with unique_name.guard():
        yield


def model():
    lin = paddle.nn.Linear(2, 2)
    lin.weight.set_value(np.array([[0.5, -0.25], [0.75, 1.0]], "float32"))
    return lin


def train(lin, opt, steps):
    for _ in range(steps):
        (lin(paddle.to_tensor(X)) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_state_keys_are_paddles_accumulator_names(name):
    make, kinds = OPTIMIZERS[name]
    lin = model()
    opt = make(lin.parameters())
    assert opt.state_dict() == {}                       # nothing before the first step
    train(lin, opt, 2)
    assert list(opt.state_dict()) == [f"linear_0.{p}_{k}_0" for k in kinds for p in ("w_0", "b_0")]


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_resuming_from_a_saved_state_continues_the_run_exactly(name):
    make = OPTIMIZERS[name][0]
    lin = model()
    opt = make(lin.parameters())
    train(lin, opt, 3)
    buf_m, buf_o = io.BytesIO(), io.BytesIO()
    paddle.save(lin.state_dict(), buf_m)
    paddle.save(opt.state_dict() or {"LR_Scheduler": {}}, buf_o)      # SGD: nothing to save
    train(lin, opt, 2)
    with unique_name.guard():                           # the model named as when saved
        lin2 = model()
    for buf in (buf_m, buf_o):
        buf.seek(0)
    lin2.set_state_dict(paddle.load(buf_m))
    opt2 = make(lin2.parameters())                      # its keys end in _1: still matched
    opt2.set_state_dict(paddle.load(buf_o))
    train(lin2, opt2, 2)
    assert lin2.weight.name == lin.weight.name == "linear_0.w_0"
    assert all(k.endswith("_1") for k in opt2.state_dict())   # Paddle 3.3.1 refuses these
    for key, value in lin.state_dict().items():
        np.testing.assert_array_equal(lin2.state_dict()[key].numpy(), value.numpy(), err_msg=key)


def test_beta_powers_are_shape_1_tensors_of_beta_to_the_next_step():
    """Measured: after 2 Adam steps beta1_pow_acc is 0.9**3 (the power the next step uses)."""
    lin = model()
    opt = O.Adam(0.1, parameters=lin.parameters())
    train(lin, opt, 2)
    sd = opt.state_dict()
    acc = sd["linear_0.w_0_beta1_pow_acc_0"]
    assert acc.shape == [1] and acc.dtype == paddle.float32 and acc.name.endswith("acc_0")
    np.testing.assert_allclose(acc.numpy(), [0.9 ** 3], rtol=1e-6)
    np.testing.assert_allclose(sd["linear_0.b_0_beta2_pow_acc_0"].numpy(), [0.999 ** 3],
                               rtol=1e-6)


def test_a_scheduler_state_rides_along_and_is_required_back():
    lin = model()
    sched = O.lr.StepDecay(0.1, step_size=2)
    opt = O.SGD(sched, parameters=lin.parameters())
    assert opt.state_dict() == {"LR_Scheduler": {"last_epoch": 0, "last_lr": 0.1}}
    for _ in range(3):
        sched.step()
    sched2 = O.lr.StepDecay(0.1, step_size=2)
    opt2 = O.SGD(sched2, parameters=model().parameters())
    opt2.set_state_dict(opt.state_dict())
    assert (sched2.last_epoch, opt2.get_lr()) == (3, pytest.approx(0.01))
    with pytest.raises(ValueError, match="must hold 'LR_Scheduler'"):
        opt2.set_state_dict({})


def test_keys_for_no_parameter_raise_instead_of_vanishing():
    """Paddle 3.3.1 raises an AssertionError at the next step instead."""
    opt = O.Adam(0.1, parameters=model().parameters())
    with pytest.raises(ValueError, match=r"1 entries match no parameter.*'foo'"):
        opt.set_state_dict({"foo": paddle.ones([1])})


def test_a_state_for_more_parameters_loads_the_matching_ones_and_warns():
    import warnings
    net = model()
    full = O.Adam(0.1, parameters=net.parameters())
    for p in net.parameters():
        p.grad = paddle.ones(p.shape)
    full.step()
    part = O.Adam(0.1, parameters=net.parameters()[:1])     # a subset, as Paddle loads it
    with pytest.warns(UserWarning, match="match no parameter"):
        part.set_state_dict(full.state_dict())
    first = net.parameters()[0]
    np.testing.assert_array_equal(part._state[id(first)]["moment1"],
                                  full._state[id(first)]["moment1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        O.Adam(0.1, parameters=net.parameters()).set_state_dict(full.state_dict())


def test_a_misshapen_accumulator_is_refused():
    opt = O.Momentum(0.1, parameters=model().parameters())
    with pytest.raises(ValueError, match=r"has shape \[3\], but linear_0.w_0's velocity"):
        opt.set_state_dict({"linear_0.w_0_velocity_0": paddle.ones([3])})


def test_a_named_optimizer_prefixes_its_accumulators():
    lin = model()
    opt = O.Momentum(0.1, parameters=lin.parameters(), name="fast")
    train(lin, opt, 1)
    assert list(opt.state_dict())[0] == "linear_0.w_0_fast_velocity_0"


def test_unnamed_tensors_get_names_before_their_accumulators():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    opt = O.Momentum(0.1, parameters=[w])
    (w * w).sum().backward()
    opt.step()
    (key,) = opt.state_dict()
    assert w.name.startswith("generated_tensor_") and key.startswith(w.name + "_velocity_")


def test_minimize_applies_existing_gradients_and_returns_them():
    """Measured: no backward, one update, ([], [(param, grad)]), gradients kept."""
    lin = model()
    opt = O.SGD(0.1, parameters=lin.parameters())
    loss = lin(paddle.to_tensor(X)).sum()
    assert opt.minimize(loss) == ([], [])                     # no gradients yet
    loss.backward()
    w0 = lin.weight.numpy().copy()
    ops, pairs = opt.minimize(loss)
    assert ops == [] and [p.name for p, _ in pairs] == ["linear_0.w_0", "linear_0.b_0"]
    np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.1 * pairs[0][1].numpy())
    assert lin.weight.grad is not None


def test_minimize_limits_the_update_to_parameters_and_skips_no_grad_set():
    lin = model()
    opt = O.SGD(0.1, parameters=lin.parameters())
    lin(paddle.to_tensor(X)).sum().backward()
    b0 = lin.bias.numpy().copy()
    _, pairs = opt.minimize(None or lin(paddle.to_tensor(X)).sum(), parameters=[lin.weight])
    assert [p.name for p, _ in pairs] == ["linear_0.w_0"]
    np.testing.assert_array_equal(lin.bias.numpy(), b0)
    _, pairs = opt.minimize(lin(paddle.to_tensor(X)).sum(), no_grad_set={"linear_0.w_0"})
    assert [p.name for p, _ in pairs] == ["linear_0.b_0"]
    with pytest.raises(ValueError, match="not among this optimizer's parameters"):
        opt.minimize(lin(paddle.to_tensor(X)).sum(), parameters=[paddle.ones([1])])


def test_linear_warmup_saves_the_scheduler_it_wraps():
    """Measured: the inner scheduler's state sits under 'LinearWarmup_LR'."""
    w = O.lr.LinearWarmup(O.lr.StepDecay(0.1, 2), 3, 0.0, 0.1)
    for _ in range(5):
        w.step()
    state = w.state_dict()
    assert state == {"last_epoch": 5, "last_lr": pytest.approx(0.01),
                     "LinearWarmup_LR": {"last_epoch": 2, "last_lr": pytest.approx(0.01)}}
    w2 = O.lr.LinearWarmup(O.lr.StepDecay(0.1, 2), 3, 0.0, 0.1)
    w2.set_state_dict(state)
    w.step()
    w2.step()
    assert w2() == w() and w2.learning_rate.last_epoch == 3


def test_cosine_warm_restarts_resume_inside_their_cycle():
    """Paddle 3.3.1 restarts the cycle after set_state_dict (0.075 here instead of 0.025)."""
    a = O.lr.CosineAnnealingWarmRestarts(0.1, 3)
    for _ in range(4):
        a.step()
    b = O.lr.CosineAnnealingWarmRestarts(0.1, 3)
    b.set_state_dict(a.state_dict())
    a.step()
    b.step()
    assert b() == a() == pytest.approx(0.025)


def test_extra_scheduler_keys_warn_as_in_paddle():
    s = O.lr.StepDecay(0.1, 2)
    with pytest.warns(UserWarning, match="unused values in state_dict"):
        s.set_state_dict({"last_epoch": 1, "last_lr": 0.1, "other": 3})
