"""RMSProp, Adagrad, Adamax, Adadelta, Lamb and the extra optimizer.lr schedulers, against
values measured on Paddle 3.3.1 (/work/conf/h3_opt.py: the same model, inputs and steps)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.optimizer import Adadelta, Adagrad, Adamax, Lamb, RMSProp
from jitgrad.regularizer import L2Decay

_rng = np.random.default_rng(0)
W0 = _rng.standard_normal((3, 2)).astype("float32")
B0 = _rng.standard_normal(2).astype("float32")
X = _rng.standard_normal((4, 3)).astype("float32")


def _train(make_opt, steps=6):
    """mean(tanh(x @ W + b)^2), `steps` optimizer steps from the seeded W0, B0."""
    W = paddle.to_tensor(W0.copy(), stop_gradient=False)
    b = paddle.to_tensor(B0.copy(), stop_gradient=False)
    opt = make_opt([W, b])
    x = paddle.to_tensor(X)
    for _ in range(steps):
        loss = paddle.mean(paddle.tanh(paddle.matmul(x, W) + b) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return W.numpy(), b.numpy()


# Paddle 3.3.1: W and b after 6 steps
CASES = {
    "rmsprop": (
        lambda ps: RMSProp(0.1, parameters=ps),
        [[0.589020311832428, 0.20058012008666992], [0.33305442333221436, 0.11039455235004425],
         [-0.791513979434967, -0.12934324145317078]], [0.8668793439865112, 0.5045152902603149]),
    "rmsprop_momentum": (
        lambda ps: RMSProp(0.1, rho=0.9, epsilon=1e-3, momentum=0.5, parameters=ps),
        [[0.8141405582427979, 0.36765429377555847], [0.4296641945838928, 0.13287663459777832],
         [-0.715935468673706, -0.37910282611846924]], [0.9093918800354004, 0.3149644732475281]),
    "rmsprop_centered": (
        lambda ps: RMSProp(0.1, momentum=0.5, centered=True, parameters=ps),
        [[0.7136130332946777, 0.33877137303352356], [0.4249918758869171, 0.1698152869939804],
         [-0.7920796871185303, -0.3378068208694458]], [0.6827998161315918, 0.28753215074539185]),
    "rmsprop_weight_decay": (
        lambda ps: RMSProp(0.1, parameters=ps, weight_decay=0.1),
        [[0.27827638387680054, 0.10603019595146179], [0.11126774549484253, 0.03213232755661011],
         [-0.4765549302101135, -0.18654851615428925]], [0.5498405694961548, 0.3084942698478699]),
    "adagrad": (
        lambda ps: Adagrad(0.1, parameters=ps),
        [[0.48309993743896484, 0.13387459516525269], [0.5915296673774719, 0.27467092871665955],
         [-0.6881243586540222, 0.4225221574306488]], [0.9675630331039429, 0.6993475556373596]),
    "adagrad_initial_accumulator": (
        lambda ps: Adagrad(0.1, epsilon=1e-2, parameters=ps, initial_accumulator_value=0.5),
        [[0.28000542521476746, 0.003072516992688179], [0.6773304343223572, 0.28520071506500244],
         [-0.5301068425178528, 0.40802669525146484]], [1.140209674835205, 0.7627503871917725]),
    "adagrad_l2decay": (
        lambda ps: Adagrad(0.1, parameters=ps, weight_decay=L2Decay(0.1)),
        [[0.45373016595840454, 0.14778093993663788], [0.4973072111606598, 0.27373847365379333],
         [-0.33148226141929626, 0.2304629385471344]], [0.9638497233390808, 0.653983473777771]),
    "adamax": (
        lambda ps: Adamax(0.1, parameters=ps),
        [[0.6270310282707214, 0.21874558925628662], [0.5737816691398621, 0.3432787358760834],
         [-0.568111002445221, 0.5153286457061768]], [0.8984429240226746, 0.6200641989707947]),
    "adamax_epsilon_inside_max": (
        lambda ps: Adamax(0.1, beta1=0.8, beta2=0.5, epsilon=0.3, parameters=ps),
        [[0.38169026374816895, 0.0725574642419815], [0.6880180239677429, 0.3631923496723175],
         [-0.5322040319442749, 0.4157574772834778]], [1.025402307510376, 0.6474425792694092]),
    "adadelta": (
        lambda ps: Adadelta(1.0, parameters=ps),
        [[0.15353204309940338, -0.1044839471578598], [0.6645997762680054, 0.1322535127401352],
         [-0.5094167590141296, 0.3891434669494629]], [1.2769933938980103, 0.9196361899375916]),
    "adadelta_args": (
        lambda ps: Adadelta(0.5, epsilon=1e-3, rho=0.8, parameters=ps, weight_decay=0.1),
        [[0.3408459722995758, 0.06343865394592285], [0.5987229943275452, 0.2737337350845337],
         [-0.40491750836372375, 0.39950326085090637]], [1.0851035118103027, 0.7443111538887024]),
    "lamb": (
        lambda ps: Lamb(0.1, parameters=ps),
        [[0.4443672299385071, 0.14441071450710297], [0.5981963276863098, 0.31960076093673706],
         [-0.5968120098114014, 0.49588027596473694]], [0.745181143283844, 0.43796679377555847]),
    "lamb_args": (
        lambda ps: Lamb(0.1, lamb_weight_decay=0.1, beta1=0.8, beta2=0.9, epsilon=1e-3,
                        parameters=ps),
        [[0.4339740574359894, 0.13611480593681335], [0.5629721283912659, 0.2973490059375763],
         [-0.5960718989372253, 0.4621719717979431]], [0.7346155047416687, 0.4522358477115631]),
    "lamb_no_decay_no_trust_ratio": (
        lambda ps: Lamb(0.1, lamb_weight_decay=0.0, parameters=ps),
        [[0.6850736737251282, 0.23429274559020996], [0.5070575475692749, 0.33665406703948975],
         [-0.660761833190918, 0.47528842091560364]], [0.789334237575531, 0.5936511754989624]),
    "lamb_exclude_fn": (
        lambda ps: Lamb(0.1, parameters=ps, exclude_from_weight_decay_fn=lambda p: p.ndim == 1),
        [[0.4436269700527191, 0.1444702446460724], [0.6057169437408447, 0.3219704329967499],
         [-0.5841075778007507, 0.5019205808639526]], [0.7382104992866516, 0.4294440448284149]),
    "lamb_exclude_fn_always_adapt": (
        lambda ps: Lamb(0.1, parameters=ps, exclude_from_weight_decay_fn=lambda p: p.ndim == 1,
                        always_adapt=True),
        [[0.4444805383682251, 0.1443556547164917], [0.5983439683914185, 0.3194178342819214],
         [-0.5966096520423889, 0.4955381751060486]], [0.7458120584487915, 0.4372459650039673]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_matches_paddle_after_six_steps(case):
    make_opt, w_expected, b_expected = CASES[case]
    W, b = _train(make_opt)
    assert W.dtype == np.float32 and b.dtype == np.float32
    np.testing.assert_allclose(W, w_expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, b_expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [RMSProp, Adagrad, Adamax, Adadelta, Lamb])
def test_step_is_copy_on_write_and_bumps_the_version(cls):
    p = paddle.to_tensor(np.array([1.0, -2.0]), stop_gradient=False)
    before, version = p._data, p._version
    p.grad = paddle.to_tensor(np.array([0.5, 0.25]))
    cls(0.1, parameters=[p]).step()
    np.testing.assert_array_equal(before, [1.0, -2.0])
    assert p._version == version + 1
    assert np.all(p.numpy() != before)


def test_rmsprop_rate_sits_inside_the_momentum_buffer():
    # Paddle: mom = momentum * mom + lr * g / sqrt(ms + eps), so a rate change only scales
    # the newest term
    p = paddle.to_tensor(np.array([0.0]), stop_gradient=False)
    opt = RMSProp(1.0, rho=0.5, epsilon=0.0, momentum=0.5, parameters=[p])
    p.grad = paddle.to_tensor(np.array([2.0]))
    opt.step()                       # ms = 2, mom = 2 / sqrt(2)
    opt.set_lr(0.0)
    opt.step()                       # mom = 0.5 * mom
    np.testing.assert_allclose(p.numpy(), [-1.5 * np.sqrt(2.0)], rtol=1e-12)


def test_adagrad_moment_starts_at_initial_accumulator_value():
    p = paddle.to_tensor(np.array([0.0]), stop_gradient=False)
    opt = Adagrad(1.0, epsilon=0.0, initial_accumulator_value=5.0, parameters=[p])
    p.grad = paddle.to_tensor(np.array([2.0]))
    opt.step()
    np.testing.assert_allclose(p.numpy(), [-2.0 / 3.0], rtol=1e-12)


@pytest.mark.parametrize("make, match", [
    (lambda ps: RMSProp(0.1, rho=-0.1, parameters=ps), "rho"),
    (lambda ps: RMSProp(0.1, epsilon=-1.0, parameters=ps), "epsilon"),
    (lambda ps: RMSProp(0.1, momentum=-0.5, parameters=ps), "momentum"),
    (lambda ps: RMSProp(None, parameters=ps), "learning_rate"),
    (lambda ps: Adagrad(0.1, epsilon=None, parameters=ps), "epsilon"),
    (lambda ps: Adamax(0.1, beta1=1.0, parameters=ps), "beta1"),
    (lambda ps: Adamax(0.1, beta2=-0.1, parameters=ps), "beta2"),
    (lambda ps: Adamax(0.1, epsilon=-1e-8, parameters=ps), "epsilon"),
    (lambda ps: Adadelta(0.1, rho=None, parameters=ps), "rho"),
    (lambda ps: Lamb(0.1, beta2=1.5, parameters=ps), "beta2"),
    (lambda ps: Lamb(0.1), "parameters"),
])
def test_invalid_arguments_raise_value_error(make, match):
    p = paddle.to_tensor(np.array([1.0]), stop_gradient=False)
    with pytest.raises(ValueError, match=match):
        make([p])
