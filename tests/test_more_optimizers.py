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


# ---------------------------------------------------------------- schedulers (optimizer.lr)

from jitgrad.optimizer.lr import (CosineAnnealingWarmRestarts, CyclicLR,  # noqa: E402
                                             InverseTimeDecay, LinearLR, MultiplicativeDecay,
                                             NaturalExpDecay, NoamDecay, OneCycleLR,
                                             PolynomialDecay, ReduceOnPlateau, StepDecay)


def _rates(sched, n=12):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


# Paddle 3.3.1: sched() before each of 12 step() calls
SCHEDULES = {
    "noam": (lambda: NoamDecay(16, 4, 1.0), [
        0.0, 0.03125, 0.0625, 0.09375, 0.125, 0.11180339887498948, 0.10206207261596575,
        0.09449111825230681, 0.08838834764831845, 0.08333333333333333, 0.07905694150420949,
        0.07537783614444091]),
    "noam_learning_rate": (lambda: NoamDecay(64, 3, 2.0), [
        0.0, 0.048112522432468816, 0.09622504486493763, 0.14433756729740643, 0.125,
        0.11180339887498948, 0.10206207261596575, 0.09449111825230681, 0.08838834764831845,
        0.08333333333333333, 0.07905694150420949, 0.07537783614444091]),
    "polynomial": (lambda: PolynomialDecay(0.1, 4, 0.01), [
        0.1, 0.0775, 0.05500000000000001, 0.0325] + [0.01] * 8),
    "polynomial_power": (lambda: PolynomialDecay(0.1, 5, 0.0, power=2.0), [
        0.1, 0.06400000000000002, 0.036, 0.016000000000000004, 0.003999999999999998]
        + [0.0] * 7),
    "polynomial_cycle": (lambda: PolynomialDecay(0.1, 4, 0.01, cycle=True), [
        0.1, 0.0775, 0.05500000000000001, 0.0325, 0.01, 0.043750000000000004, 0.0325,
        0.02125, 0.01, 0.0325, 0.024999999999999998, 0.017500000000000005]),
    "polynomial_cycle_power": (lambda: PolynomialDecay(0.1, 3, 0.02, power=0.5, cycle=True), [
        0.1, 0.0853197264742181, 0.06618802153517007, 0.02, 0.06618802153517007,
        0.05265986323710904, 0.02, 0.05771236166328253, 0.046666666666666676, 0.02,
        0.05265986323710904, 0.04309401076758504]),
    "inverse_time": (lambda: InverseTimeDecay(0.1, 0.5), [
        0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574,
        0.025, 0.022222222222222223, 0.02, 0.018181818181818184, 0.016666666666666666,
        0.015384615384615385]),
    "natural_exp": (lambda: NaturalExpDecay(0.1, 0.5), [
        0.1, 0.06065306597126335, 0.036787944117144235, 0.022313016014842982,
        0.013533528323661271, 0.008208499862389881, 0.004978706836786395,
        0.00301973834223185, 0.001831563888873418, 0.0011108996538242307,
        0.0006737946999085467, 0.00040867714384640666]),
    "one_cycle_cos": (lambda: OneCycleLR(0.1, 12), [
        0.0040000000000000036, 0.0349789654219583, 0.08792851591221287, 0.09944209976994517,
        0.09330796891903272, 0.08119331560284374, 0.06477302096182468, 0.046317231825358116,
        0.028377507231077976, 0.013434059002100185, 0.0035528562552220033, 0.0001]),
    "one_cycle_linear": (lambda: OneCycleLR(0.1, 12, anneal_strategy="linear"), [
        0.004, 0.04092307692307694, 0.07784615384615387, 0.09524285714285714,
        0.08335000000000001, 0.07145714285714286, 0.059564285714285715, 0.04767142857142857,
        0.035778571428571423, 0.023885714285714288, 0.011992857142857152,
        0.00010000000000000286]),
    "one_cycle_three_phase": (
        lambda: OneCycleLR(0.1, 12, divide_factor=10.0, end_learning_rate=0.001,
                           phase_pct=0.25, three_phase=True), [
            0.009999999999999995, 0.055, 0.1, 0.05500000000000001, 0.01, 0.009554359905560885,
            0.008305704108364302, 0.006501344202803416, 0.0044986557971965855,
            0.0026942958916356995, 0.0014456400944391143, 0.001]),
    "one_cycle_three_phase_linear": (
        lambda: OneCycleLR(1.0, 12, phase_pct=0.4, anneal_strategy="linear",
                           three_phase=True), [
            0.04, 0.2926315789473683, 0.5452631578947367, 0.7978947368421052,
            0.9494736842105265, 0.6968421052631582, 0.44421052631578983, 0.1915789473684214,
            0.035305882352941194, 0.023570588235294128, 0.011835294117647069,
            0.00010000000000000286]),
    "cyclic_triangular": (lambda: CyclicLR(0.01, 0.1, 2), [
        0.01, 0.05500000000000001, 0.1, 0.05500000000000001] * 3),
    "cyclic_step_size_down": (lambda: CyclicLR(0.01, 0.1, 2, step_size_down=3), [
        0.01, 0.055, 0.09999999999999999, 0.06999999999999999, 0.039999999999999994, 0.01,
        0.05500000000000005, 0.09999999999999999, 0.06999999999999999, 0.04000000000000003,
        0.01, 0.05500000000000005]),
    "cyclic_triangular2": (lambda: CyclicLR(0.01, 0.1, 2, mode="triangular2"), [
        0.01, 0.05500000000000001, 0.1, 0.05500000000000001, 0.01, 0.0325,
        0.05500000000000001, 0.0325, 0.01, 0.02125, 0.0325, 0.02125]),
    "cyclic_exp_range": (lambda: CyclicLR(0.01, 0.1, 2, mode="exp_range", exp_gamma=0.9), [
        0.01, 0.05050000000000001, 0.0829, 0.04280500000000001, 0.01, 0.03657205000000001,
        0.05782969000000001, 0.03152336050000001, 0.01, 0.027433922005000007,
        0.041381059609000015, 0.024121476824050005]),
    "cyclic_scale_fn_iterations": (
        lambda: CyclicLR(0.01, 0.1, 3, scale_fn=lambda x: 1.0 / (x + 1),
                         scale_mode="iterations"), [
            0.01, 0.02500000000000001, 0.03, 0.0325, 0.022000000000000006, 0.014999999999999996,
            0.01, 0.013750000000000007, 0.016666666666666663, 0.019000000000000003,
            0.01545454545454545, 0.012500000000000004]),
    "step_decay_last_epoch": (lambda: StepDecay(0.1, 2, 0.5, last_epoch=3), [
        0.025, 0.025, 0.0125, 0.0125, 0.00625, 0.00625, 0.003125, 0.003125, 0.0015625,
        0.0015625, 0.00078125, 0.00078125]),
    "polynomial_last_epoch": (lambda: PolynomialDecay(0.1, 4, 0.01, last_epoch=2),
                              [0.0325] + [0.01] * 11),
    "multiplicative": (lambda: MultiplicativeDecay(0.1, lambda e: 0.9 if e % 2 else 0.5), [
        0.1, 0.09000000000000001, 0.045000000000000005, 0.04050000000000001,
        0.020250000000000004, 0.018225000000000005, 0.009112500000000003,
        0.008201250000000002, 0.004100625000000001, 0.003690562500000001,
        0.0018452812500000006, 0.0016607531250000006]),
    "linear_lr": (lambda: LinearLR(0.1, 5), [
        0.03333333333333333, 0.04666666666666667, 0.060000000000000005, 0.07333333333333335,
        0.08666666666666668] + [0.1] * 7),
    "linear_lr_decreasing": (lambda: LinearLR(0.2, 4, start_factor=0.5, end_factor=0.1), [
        0.1, 0.08000000000000002, 0.06000000000000001, 0.04000000000000001] + [0.02] * 8),
    "warm_restarts": (lambda: CosineAnnealingWarmRestarts(0.1, 3), [
        0.1, 0.07500000000000001, 0.025000000000000012] * 4),
    "warm_restarts_t_mult": (
        lambda: CosineAnnealingWarmRestarts(0.1, 2, T_mult=2, eta_min=0.01), [
            0.1, 0.05500000000000001, 0.1, 0.08681980515339464, 0.05500000000000001,
            0.023180194846605363, 0.1, 0.0965745789630079, 0.08681980515339464,
            0.07222075445642905, 0.05500000000000001, 0.03777924554357097]),
}


@pytest.mark.parametrize("case", sorted(SCHEDULES))
def test_scheduler_rates_match_paddle(case):
    make, expected = SCHEDULES[case]
    np.testing.assert_allclose(_rates(make()), expected, rtol=1e-12, atol=1e-17)


def test_scheduler_namespace_and_optimizer_follow_the_rate():
    assert paddle.optimizer.lr.CyclicLR is CyclicLR
    assert paddle.optimizer.lr.ReduceOnPlateau is ReduceOnPlateau
    sched = paddle.optimizer.lr.NoamDecay(16, 4)
    opt = RMSProp(sched, parameters=[paddle.to_tensor(np.ones(2), stop_gradient=False)])
    sched.step()
    assert opt.get_lr() == 0.03125                # Paddle 3.3.1


def test_step_with_an_explicit_epoch_jumps_there():
    # Paddle 3.3.1
    poly = PolynomialDecay(0.1, 4, 0.01, cycle=True)
    poly.step(7)
    assert poly() == pytest.approx(0.02125, rel=1e-12)
    cyc = CyclicLR(0.01, 0.1, 2)
    cyc.step(5)
    assert cyc() == pytest.approx(0.05500000000000001, rel=1e-12)
    sgdr = CosineAnnealingWarmRestarts(0.1, 2, T_mult=2, eta_min=0.01)
    sgdr.step(9)
    assert (sgdr(), sgdr.last_epoch) == (pytest.approx(0.07222075445642905, rel=1e-12), 9)
    # LinearLR is incremental in Paddle: step(3) from epoch 0 applies one increment only
    lin = LinearLR(0.1, 5)
    lin.step(3)
    assert lin() == pytest.approx(0.040740740740740744, rel=1e-12)


def test_scheduler_state_dict_round_trip():
    a = PolynomialDecay(0.1, 4, 0.01)
    for _ in range(3):
        a.step()
    b = PolynomialDecay(0.1, 4, 0.01)
    b.set_state_dict(a.state_dict())
    assert (b.last_epoch, b()) == (3, a())
    b.step()
    assert b() == pytest.approx(0.01)
    with pytest.raises(RuntimeError, match="last_lr"):
        b.set_state_dict({"last_epoch": 1})


def test_one_cycle_raises_when_stepped_past_total_steps():
    sched = OneCycleLR(0.1, 3)
    for _ in range(3):
        sched.step()
    with pytest.raises(ValueError, match="total_steps"):
        sched.step()


_METRICS = [1.0, 0.9, 0.95, 0.93, 0.92, 0.91, 0.905, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0]


@pytest.mark.parametrize("kwargs, expected", [       # Paddle 3.3.1
    (dict(patience=1), [0.1, 0.1, 0.1, 0.01, 0.01, 1e-3, 1e-3, 1e-4, 1e-4, 1e-5, 1e-5, 1e-6,
                        1e-6]),
    (dict(patience=2, cooldown=1, factor=0.5),
     [0.1] * 4 + [0.05] * 4 + [0.025] * 4 + [0.0125]),
    (dict(mode="max", patience=0, threshold_mode="abs", threshold=0.02, min_lr=0.02),
     [0.1] + [0.02] * 12),
    (dict(patience=0, factor=0.5, min_lr=0.09, epsilon=1e-3), [0.1, 0.1] + [0.09] * 11),
])
def test_reduce_on_plateau_matches_paddle(kwargs, expected):
    sched = ReduceOnPlateau(0.1, **kwargs)
    out = []
    for i, m in enumerate(_METRICS):    # a Tensor, a numpy scalar and a float are all metrics
        sched.step(paddle.to_tensor(np.float32(m)) if i % 3 == 0
                   else np.float64(m) if i % 3 == 1 else m)
        out.append(sched())
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    assert sched.last_epoch == len(_METRICS)


def test_reduce_on_plateau_drives_an_optimizer():
    sched = ReduceOnPlateau(0.1, patience=0, factor=0.5)
    opt = Adagrad(sched, parameters=[paddle.to_tensor(np.ones(2), stop_gradient=False)])
    sched.step(1.0)
    sched.step(2.0)
    assert opt.get_lr() == 0.05


@pytest.mark.parametrize("make, exc, match", [
    (lambda: NoamDecay(0, 2), ValueError, "d_model"),
    (lambda: PolynomialDecay(0.1, 0), ValueError, "decay_steps"),
    (lambda: PolynomialDecay(0.1, 2.0), TypeError, "decay_steps"),
    (lambda: PolynomialDecay(0.1, 4, power=0.0), ValueError, "power"),
    (lambda: NaturalExpDecay(0.1, 0.0), ValueError, "gamma"),
    (lambda: InverseTimeDecay("a", 0.1), TypeError, "learning_rate"),
    (lambda: InverseTimeDecay(-1.0, 0.1), ValueError, "learning_rate"),
    (lambda: OneCycleLR(0.1, 0), ValueError, "total_steps"),
    (lambda: OneCycleLR(0.1, 10.0), TypeError, "total_steps"),
    (lambda: OneCycleLR(0.1, 10, phase_pct=1), TypeError, "phase_pct"),
    (lambda: OneCycleLR(0.1, 10, phase_pct=1.5), ValueError, "phase_pct"),
    (lambda: OneCycleLR(0.1, 10, anneal_strategy="exp"), ValueError, "anneal_strategy"),
    (lambda: OneCycleLR(0.1, 10, three_phase=True, phase_pct=0.5), ValueError, "three_phase"),
    (lambda: OneCycleLR(-0.1, 10), ValueError, "max_learning_rate"),
    (lambda: CyclicLR(0.01, 0.1, 0), ValueError, "step_size_up"),
    (lambda: CyclicLR(0.01, 0.1, 2, step_size_down=0), ValueError, "step_size_down"),
    (lambda: CyclicLR(0.01, 0.1, 2, mode="tri"), ValueError, "mode"),
    (lambda: CyclicLR(0.01, 0.1, 2, exp_gamma=1), TypeError, "exp_gamma"),
    (lambda: CyclicLR(0.01, 0.1, 2, scale_mode="x", scale_fn=abs), ValueError, "scale_mode"),
    (lambda: CyclicLR(0.01, -0.1, 2), ValueError, "max_learning_rate"),
    (lambda: ReduceOnPlateau(0.1, mode="mid"), ValueError, "mode"),
    (lambda: ReduceOnPlateau(0.1, factor=1.0), ValueError, "factor"),
    (lambda: ReduceOnPlateau(0.1, threshold_mode="x"), ValueError, "threshold_mode"),
    (lambda: ReduceOnPlateau("0.1"), TypeError, "learning_rate"),
    (lambda: ReduceOnPlateau(0.1).step("x"), TypeError, "metrics"),
    (lambda: ReduceOnPlateau(0.1).step(np.ones(2)), ValueError, "one element"),
    (lambda: MultiplicativeDecay(0.1, 0.5), TypeError, "lr_lambda"),
    (lambda: LinearLR(0.1, 5, start_factor=0.0), ValueError, "start_factor"),
    (lambda: LinearLR(0.1, 5, end_factor=1.5), ValueError, "end_factor"),
    (lambda: LinearLR(0.1, 0), ValueError, "total_steps"),
    (lambda: CosineAnnealingWarmRestarts(0.1, 0), ValueError, "T_0"),
    (lambda: CosineAnnealingWarmRestarts(0.1, 2, T_mult=0), ValueError, "T_mult"),
    (lambda: CosineAnnealingWarmRestarts(0.1, 2).step(-1), ValueError, "epoch"),
])
def test_scheduler_argument_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
