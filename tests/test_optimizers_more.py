"""NAdam, RAdam, ASGD and Rprop against values measured on Paddle 3.3.1 (CPU, float32): the
parameters after 10 steps on a small quadratic (jitgrad reproduces them bit for bit; the
comparison allows 1e-6), the state_dict keys, shapes and dtypes, resuming from a state dict,
and the argument checks. perf/paddle_cases/optimizers_more.py sweeps more cases live."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.optimizer import ASGD, NAdam, RAdam, Rprop

W0 = np.array([[0.3, -1.2], [0.8, 0.1], [-0.5, 1.5]], "float32")
B0 = np.array([0.4, -0.7], "float32")
A0 = np.array([[1.0, 0.5], [2.0, 1.5], [0.25, 1.0]], "float32")
a0 = np.array([0.75, 1.25], "float32")


def _params():
    W = paddle.create_parameter([3, 2], "float32")
    W.set_value(W0)
    b = paddle.create_parameter([2], "float32")
    b.set_value(B0)
    return W, b


def _run(opt, W, b, steps):
    """steps of sum(A (W - 0.5)^2) + sum(a (b + 0.25)^2); a scheduler steps after each."""
    for _ in range(steps):
        loss = paddle.sum(paddle.to_tensor(A0) * (W - 0.5) * (W - 0.5)) + \
            paddle.sum(paddle.to_tensor(a0) * (b + 0.25) * (b + 0.25))
        loss.backward()
        opt.step()
        opt.clear_grad()
        if isinstance(opt._lr, paddle.optimizer.lr.LRScheduler):
            opt._lr.step()


def _groups(ps, **second):
    return [{"params": [ps[0]]}, {"params": [ps[1]], **second}]


O = paddle.optimizer
CASES = {
    "NAdam": lambda ps: O.NAdam(0.1, parameters=ps),
    "NAdam_wd": lambda ps: O.NAdam(0.1, parameters=ps, weight_decay=0.05),
    "RAdam": lambda ps: O.RAdam(0.1, parameters=ps),
    "RAdam_wd": lambda ps: O.RAdam(0.1, parameters=ps, weight_decay=0.05),
    "RAdam_rect": lambda ps: O.RAdam(0.1, beta2=0.8, parameters=ps),
    "ASGD_n3": lambda ps: O.ASGD(0.1, batch_num=3, parameters=ps),
    "ASGD_n3_wd": lambda ps: O.ASGD(0.1, batch_num=3, parameters=ps, weight_decay=0.05),
    "Rprop": lambda ps: O.Rprop(0.1, parameters=ps),
    "Rprop_args": lambda ps: O.Rprop(0.05, learning_rate_range=(0.01, 0.2), etas=(0.3, 1.5),
                                     parameters=ps),
    "NAdam_groups": lambda ps: O.NAdam(0.1, parameters=_groups(
        ps, learning_rate=0.5, beta1=0.7, momentum_decay=0.01, weight_decay=0.1)),
    "ASGD_groups": lambda ps: O.ASGD(0.1, batch_num=2, parameters=_groups(
        ps, learning_rate=0.5, weight_decay=0.1)),
    "NAdam_sched": lambda ps: O.NAdam(O.lr.StepDecay(0.1, 2, 0.5), parameters=ps),
    "RAdam_sched": lambda ps: O.RAdam(O.lr.StepDecay(0.1, 2, 0.5), parameters=ps),
}

# W and b after 10 steps, measured on Paddle 3.3.1 (paddlepaddle CPU wheel, the same model,
# start values and steps; /work/peers venv)
PADDLE = {
    "NAdam": ([0.50806737, -0.46305478, 0.47560605, 0.52958679, 0.17663494, 0.82336509],
              [-0.1877505, -0.22745052]),
    "NAdam_wd": ([0.49448386, -0.46419367, 0.46851116, 0.52189642, 0.16915181, 0.82148683],
                 [-0.18444355, -0.22359701]),
    "RAdam": ([0.47357658, -0.42139181, 0.42285752, 0.5331983, -0.24483849, 0.68753499],
              [-0.02854117, -0.265378]),
    "RAdam_wd": ([0.46642268, -0.399073, 0.41305727, 0.52851641, -0.23444808, 0.66266811],
                 [-0.034416072, -0.25510973]),
    "RAdam_rect": ([0.6232022, -0.073372841, 0.41807592, 0.63719749, 0.017273106, 0.39453855],
                   [-0.3019453, -0.098660849]),
    "ASGD_n3": ([0.49147004, -0.023980767, 0.50396872, 0.50415176, -0.083844155, 0.54264987],
                [-0.16056773, -0.24983805]),
    "ASGD_n3_wd": ([0.48097622, -0.0048190802, 0.49836674, 0.49578699, -0.071024776,
                    0.52460873], [-0.16161588, -0.24392794]),
    "Rprop": ([0.48639995, 0.87989056, 0.51160002, 0.56076795, 0.4631322, 0.53686768],
              [-0.29232004, -0.23923196]),
    "Rprop_args": ([0.52526569, 0.40624994, 0.49753129, 0.52776563, 0.44625002, 0.55375004],
                   [-0.12125005, -0.37875]),
    "NAdam_groups": ([0.50806737, -0.46305478, 0.47560605, 0.52958679, 0.17663494, 0.82336509],
                     [-0.0045227222, -0.33260733]),
    "ASGD_groups": ([0.48463255, -0.05879657, 0.49989697, 0.4968904, -0.091128156, 0.57683736],
                    [0.031554252, -0.34271711]),
    "NAdam_sched": ([0.49982965, -0.88381135, 0.54905385, 0.37475368, -0.19113562, 1.1911356],
                    [0.10199288, -0.41801959]),
    "RAdam_sched": ([0.41455784, -0.6831435, 0.50818241, 0.41537392, -0.34101507, 0.93477881],
                    [0.11319694, -0.39285025]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_paddle(case):
    W, b = _params()
    _run(CASES[case]([W, b]), W, b, 10)
    w_ref, b_ref = PADDLE[case]
    np.testing.assert_allclose(W.numpy().ravel(), w_ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b.numpy(), b_ref, rtol=1e-6, atol=1e-7)
    assert W.dtype == paddle.float32 and b.dtype == paddle.float32


# Paddle 3.3.1's state_dict after some steps: (key with the parameter names as W / b, shape,
# dtype), in its order; the beta powers, rho and mu_product have the parameter's shape
STATE_KEYS = {
    "NAdam": [(f"{p}_{k}_0", s, "float32") for k in
              ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")
              for p, s in (("W", [3, 2]), ("b", [2]))],
    "RAdam": [(f"{p}_{k}_0", s, "float32") for k in
              ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")
              for p, s in (("W", [3, 2]), ("b", [2]))],
    "ASGD_n3": [("W_d_0", [3, 2], "float32"), ("b_d_0", [2], "float32"),
                ("W_y_0", [3, 3, 2], "float32"), ("b_y_0", [3, 2], "float32"),
                ("W_m_0", [1], "int64"), ("b_m_0", [1], "int64")],
    "Rprop": [("W_prevs_0", [3, 2], "float32"), ("b_prevs_0", [2], "float32"),
              ("W_learning_rates_0", [3, 2], "float32"),
              ("b_learning_rates_0", [2], "float32")],
}


@pytest.mark.parametrize("case", sorted(STATE_KEYS))
def test_state_dict_keys_shapes_dtypes(case):
    with paddle.utils.unique_name.guard():
        W, b = _params()
        opt = CASES[case]([W, b])
    assert opt.state_dict() == {}                # no accumulators before the first step
    _run(opt, W, b, 2)
    got = [(k.replace(W.name, "W").replace(b.name, "b"), list(v.shape), v.dtype.name)
           for k, v in opt.state_dict().items()]
    assert got == STATE_KEYS[case]


def test_state_values():
    """A few accumulator values Paddle 3.3.1 holds after 2 steps (measured)."""
    W, b = _params()
    opt = NAdam(0.1, parameters=[W, b])
    _run(opt, W, b, 2)
    sd = {k.replace(W.name, "W"): v.numpy() for k, v in opt.state_dict().items()}
    np.testing.assert_allclose(sd["W_momentum_decay_pow_0"], np.full((3, 2), 0.9216),
                               rtol=1e-7)
    np.testing.assert_allclose(sd["W_beta2_pow_0"], np.full((3, 2), 0.998001), rtol=1e-7)
    W, b = _params()
    opt = ASGD(0.1, batch_num=3, parameters=[W, b])
    _run(opt, W, b, 4)
    sd = {k.replace(W.name, "W"): v.numpy() for k, v in opt.state_dict().items()}
    assert sd["W_m_0"].tolist() == [4]
    # y holds the last batch_num gradients by slot m % batch_num, d their sum
    np.testing.assert_allclose(sd["W_d_0"], sd["W_y_0"].sum(0), rtol=1e-6)


@pytest.mark.parametrize("case", ["NAdam", "NAdam_groups", "RAdam", "RAdam_sched", "ASGD_n3",
                                  "ASGD_groups", "Rprop", "Rprop_args"])
def test_set_state_dict_resumes_identically(case):
    W, b = _params()
    opt = CASES[case]([W, b])
    _run(opt, W, b, 4)
    # through numpy arrays, as a file would hold them; the scheduler's state too
    saved = {k: v if isinstance(v, dict) else v.numpy() for k, v in opt.state_dict().items()}
    w_saved, b_saved = W.numpy(), b.numpy()
    _run(opt, W, b, 1)                       # a step after state_dict() leaves `saved` alone
    W2, b2 = _params()
    W2.set_value(w_saved)
    b2.set_value(b_saved)
    W2.name, b2.name = W.name, b.name        # the same model, rebuilt
    opt2 = CASES[case]([W2, b2])
    opt2.set_state_dict(saved)
    _run(opt2, W2, b2, 6)
    w_ref, b_ref = PADDLE[case]
    np.testing.assert_allclose(W2.numpy().ravel(), w_ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b2.numpy(), b_ref, rtol=1e-6, atol=1e-7)


def test_state_dict_is_a_snapshot():
    W, b = _params()
    opt = ASGD(0.1, batch_num=2, parameters=[W, b])
    _run(opt, W, b, 1)
    sd = {k: v.numpy().copy() for k, v in opt.state_dict().items()}
    held = opt.state_dict()
    _run(opt, W, b, 1)
    for k, v in held.items():
        np.testing.assert_array_equal(v.numpy(), sd[k])


def test_set_state_dict_shape_checked():
    W, b = _params()
    opt = ASGD(0.1, batch_num=3, parameters=[W, b])
    _run(opt, W, b, 1)
    sd = opt.state_dict()
    W2, b2 = _params()
    W2.name, b2.name = W.name, b.name
    other = ASGD(0.1, batch_num=2, parameters=[W2, b2])      # y would be [2, 3, 2]
    with pytest.raises(ValueError, match="has shape"):
        other.set_state_dict(sd)


def test_rprop_ignores_the_global_rate():
    """Paddle's rprop kernel never reads the optimizer's rate: only the per-element rates,
    which start at learning_rate (so a group's learning_rate changes nothing)."""
    W, b = _params()
    opt = Rprop(0.1, parameters=_groups([W, b], learning_rate=0.01))
    _run(opt, W, b, 10)
    np.testing.assert_allclose(b.numpy(), PADDLE["Rprop"][1], rtol=1e-6)
    assert opt.get_lr() == 0.1


# (constructor, kwargs, exception, message) as Paddle 3.3.1 raises them (measured), except
# where noted
ERRORS = [
    (NAdam, {"learning_rate": -1.0}, ValueError, "learning_rate >= 0"),
    (NAdam, {"epsilon": -1.0}, ValueError, "epsilon >= 0"),
    (NAdam, {"beta1": 1.0}, ValueError, "beta1 < 1.0"),
    (NAdam, {"beta2": -0.1}, ValueError, "beta2 < 1.0"),
    (NAdam, {"momentum_decay": -1.0}, ValueError, "momentum_decay >= 0"),
    (NAdam, {"beta1": None}, TypeError, "beta1 must be a float"),     # Paddle: '<=' ... None
    (NAdam, {"learning_rate": "a"}, TypeError, "learning_rate"),
    (RAdam, {"learning_rate": -1.0}, ValueError, "learning_rate >= 0"),
    (RAdam, {"beta1": 1.0}, ValueError, "beta1 < 1.0"),
    (RAdam, {"beta2": 1.5}, ValueError, "beta2 < 1.0"),
    (RAdam, {"epsilon": -1e-8}, ValueError, "epsilon >= 0"),
    (ASGD, {"batch_num": 0}, ValueError, "batch_num should be greater than 0"),
    (ASGD, {"batch_num": -1}, ValueError, "batch_num should be greater than 0"),
    (ASGD, {"batch_num": None}, ValueError, "batch_num should not be None"),
    (ASGD, {"batch_num": 2.5}, TypeError, "batch_num must be an int"),  # Paddle: at step()
    (ASGD, {"learning_rate": None}, ValueError, "learning_rate should not be None"),
    (Rprop, {"learning_rate": None}, ValueError, "learning_rate is not set"),
    (Rprop, {"learning_rate": 100.0}, ValueError, "learning_rate_range"),
    (Rprop, {"learning_rate": 0.0}, ValueError, "learning_rate_range"),
    (Rprop, {"learning_rate": 0.01, "learning_rate_range": (0, 1)}, ValueError,
     "learning_rate_range"),
    (Rprop, {"learning_rate": 0.01, "learning_rate_range": (1, 0.001)}, ValueError,
     "learning_rate_range"),
    (Rprop, {"etas": (0.5, 1.0)}, ValueError, "etas"),
    (Rprop, {"etas": (1.0, 1.2)}, ValueError, "etas"),
    (Rprop, {"etas": (0, 1.2)}, ValueError, "etas"),
    (Rprop, {"etas": 0.5}, TypeError, "etas must be a pair"),
    (Rprop, {"weight_decay": 0.1}, TypeError, "weight_decay"),
    (Rprop, {"learning_rate": O.lr.StepDecay(0.01, 2)}, TypeError, "LRScheduler"),
]


@pytest.mark.parametrize("ctor,kwargs,exc,msg", ERRORS,
                         ids=[f"{c.__name__}-{'-'.join(k)}-{i}"
                              for i, (c, k, _, _) in enumerate(ERRORS)])
def test_argument_errors(ctor, kwargs, exc, msg):
    W, _ = _params()
    with pytest.raises(exc, match=msg):
        ctor(parameters=[W], **kwargs)


def test_accepted_arguments():
    W, _ = _params()
    NAdam(parameters=[W], beta1=paddle.to_tensor(0.8))        # a 0-D Tensor beta (Paddle)
    ASGD(learning_rate=-1.0, parameters=[W])                   # Paddle does not check the sign
    with pytest.raises(ValueError, match="parameters"):
        RAdam()


def test_signatures_defaults():
    import inspect
    sig = {c: inspect.signature(c.__init__).parameters for c in (NAdam, RAdam, ASGD, Rprop)}
    assert list(sig[NAdam]) == ["self", "learning_rate", "beta1", "beta2", "epsilon",
                                "momentum_decay", "parameters", "weight_decay", "grad_clip",
                                "name"]
    assert list(sig[RAdam]) == ["self", "learning_rate", "beta1", "beta2", "epsilon",
                                "parameters", "weight_decay", "grad_clip", "name"]
    assert list(sig[ASGD]) == ["self", "learning_rate", "batch_num", "parameters",
                               "weight_decay", "grad_clip", "multi_precision", "name"]
    assert list(sig[Rprop]) == ["self", "learning_rate", "learning_rate_range", "parameters",
                                "etas", "grad_clip", "multi_precision", "name"]
    assert sig[NAdam]["learning_rate"].default == 0.002
    assert sig[NAdam]["momentum_decay"].default == 0.004
    assert sig[Rprop]["learning_rate_range"].default == (1e-5, 50)
    assert sig[Rprop]["etas"].default == (0.5, 1.2)
    assert sig[ASGD]["batch_num"].default == 1
