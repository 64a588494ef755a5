"""Optimizer results measured bitwise against Paddle 3.3.1 (CPU, float32, OMP_NUM_THREADS=1)."""
import numpy as np
import pytest

import jitgrad as paddle


def _adam_three_steps():
    rng = np.random.RandomState(3)
    p0 = rng.randn(8).astype("float32")
    grads = rng.randn(3, 8).astype("float32")
    p = paddle.create_parameter([8], "float32")
    p.set_value(paddle.to_tensor(p0))
    opt = paddle.optimizer.Adam(0.01, parameters=[p])
    for g in grads:
        (p * paddle.to_tensor(g)).sum().backward()
        opt.step()
        opt.clear_grad()
    state = opt.state_dict()
    moment = {k.rsplit("_", 2)[-2]: v.numpy() for k, v in state.items() if "moment" in k}
    return p.numpy(), moment["moment1"], moment["moment2"]


def test_adam_moments_and_parameter_round_as_paddles_fma_kernel():
    # was: b * m + (1 - b) * g rounded twice and (1 - b2) * g * g grouped left to right,
    # 1 ulp off Paddle in moment2 from step 1 and in moment1 / the parameter from step 2.
    # Values printed by Paddle 3.3.1 for the same run.
    param, m1, m2 = _adam_three_steps()
    np.testing.assert_array_equal(param, np.array([
        1.8151136636734009, 0.4645986557006836, 0.10578456521034241, -1.8699301481246948,
        -0.28110814094543457, -0.37409141659736633, -0.10856176167726517,
        -0.6208312511444092], "float32"))
    np.testing.assert_array_equal(m1, np.array([
        -0.15501020848751068, -0.24913698434829712, 0.04451454058289528,
        -0.04349302500486374, -0.11215109378099442, 0.09696386754512787,
        0.2123117446899414, 0.18613672256469727], "float32"))
    np.testing.assert_array_equal(m2, np.array([
        0.0013471549609676003, 0.003124801442027092, 0.0030777622014284134,
        0.002017868682742119, 0.0027691738214343786, 0.003011922584846616,
        0.002764000091701746, 0.004124375991523266], "float32"))


def _four_steps(make_optimizer):
    rng = np.random.RandomState(2)
    p0 = rng.randn(12).astype("float32")
    grads = rng.randn(4, 12).astype("float32")
    p = paddle.create_parameter([12], "float32")
    p.set_value(paddle.to_tensor(p0))
    opt = make_optimizer([p])
    for g in grads:
        (p * paddle.to_tensor(g)).sum().backward()
        opt.step()
        opt.clear_grad()
    return p.numpy()


def test_adam_parameter_step_rounds_as_paddles_fma_kernel():
    # was: p - lr_t * step rounded twice, 1 ulp off Paddle in 2 of 12 values after 4 steps
    # (Paddle 3.3.1's printed values for the same run)
    got = _four_steps(lambda ps: paddle.optimizer.Adam(0.01, parameters=ps))
    np.testing.assert_array_equal(got, np.array([
        -0.4190973937511444, -0.022482777014374733, -2.147698402404785, 1.6694728136062622,
        -1.7617897987365723, -0.8701474070549011, 0.5358865261077881, -1.2799572944641113,
        -1.031915307044983, -0.8936365842819214, 0.5125942230224609, 2.3016679286956787],
        "float32"))


def test_adamw_decoupled_decay_rounds_as_paddles_fma_kernel():
    # was: p - float32(lr * coeff) * p rounded twice, 1 ulp off Paddle (Paddle 3.3.1's values)
    got = _four_steps(lambda ps: paddle.optimizer.AdamW(0.01, parameters=ps, weight_decay=0.1))
    np.testing.assert_array_equal(got, np.array([
        -0.417413592338562, -0.02231302671134472, -2.1391401290893555, 1.6628676652908325,
        -1.7546790838241577, -0.8667369484901428, 0.5338218808174133, -1.2749302387237549,
        -1.0277414321899414, -0.890044093132019, 0.5104511976242065, 2.2924888134002686],
        "float32"))


def test_multistep_decay_refuses_milestones_that_do_not_increase():
    # was: [5, 3] sorted silently and [3, 3] decayed twice at epoch 3 (rate 0.001 there);
    # Paddle 3.3.1 raises "ValueError: The elements of milestones must be incremented"
    for milestones in ([5, 3], [3, 3]):
        with pytest.raises(ValueError, match="strictly increasing"):
            paddle.optimizer.lr.MultiStepDecay(0.1, milestones)
    sched = paddle.optimizer.lr.MultiStepDecay(0.1, (2, 5))
    rates = []
    for _ in range(6):
        sched.step()
        rates.append(sched())
    # Paddle 3.3.1: [0.1, 0.010000000000000002 x3, 0.0010000000000000002 x2]
    assert rates == [0.1] + [0.1 * 0.1] * 3 + [0.1 * 0.1 ** 2] * 2


def test_momentum_on_float64_reads_mu_as_paddles_float32_attribute():
    # was: mu = 0.9 in float64, ~2e-8 relative off Paddle 3.3.1 on float64 parameters
    # (its kernel reads mu as a float32 attribute). Values printed by Paddle 3.3.1.
    expected = {
        False: [1.582764755349993, -0.5896588266340025, -0.5473531389155538,
                -1.0567599884288694, 0.8200447339032423, -2.234054518685999],
        True: [1.5722767341034911, -0.5862441254439804, -0.5489568934048203,
               -1.0563354728585252, 0.8026683200260484, -2.216447890229204]}
    for nesterov, values in expected.items():
        rng = np.random.RandomState(1)
        p = paddle.create_parameter([6], "float64")
        p.set_value(paddle.to_tensor(rng.randn(6)))
        opt = paddle.optimizer.Momentum(0.01, 0.9, parameters=[p], use_nesterov=nesterov)
        for _ in range(3):
            (p * paddle.to_tensor(rng.randn(6))).sum().backward()
            opt.step()
            opt.clear_grad()
        np.testing.assert_array_equal(p.numpy(), np.array(values))


@pytest.mark.parametrize("name, expected", [
    # Paddle 3.3.1, two steps from [1, 2] with gradient [1, -3], learning rate 0.01
    ("RMSProp", [0.9232536301794576, 2.0767469133214527]),
    ("Adadelta", [0.9999099884757068, 2.0000900123295513]),
    ("Adamax", [0.9799999953571119, 2.0200000046428883]),
    ("Lamb", [0.9678549831019276, 2.0311902394364494]),
    ("AdamW", [0.9798010102044377, 2.019599019942299]),
    ("Adagrad", [0.982928947188121, 2.0170710628118673]),
])
def test_float64_parameters_see_paddles_float32_hyperparameters(name, expected):
    # was: rho / betas / epsilon / AdamW's coeff exact in float64, up to 4e-5 relative off
    # Paddle 3.3.1, whose kernels read them as float32 attributes (RMSProp mean_square
    # 0.09750002264976487)
    p = paddle.create_parameter([2], "float64")
    p.set_value(paddle.to_tensor(np.array([1.0, 2.0])))
    opt = getattr(paddle.optimizer, name)(0.01, parameters=[p])
    for _ in range(2):
        (p * paddle.to_tensor(np.array([1.0, -3.0]))).sum().backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_array_equal(p.numpy(), np.array(expected))


def test_momentum_weight_decay_on_float64_is_paddles_float32_coefficient():
    # was: coeff 0.01 exact in float64, 480 of 480 values ~3e-9 relative off Paddle 3.3.1
    # (its momentum kernel reads regularization_coeff as a float32 attribute)
    for decay in (0.01, paddle.regularizer.L2Decay(0.01)):
        p = paddle.create_parameter([2], "float64")
        p.set_value(paddle.to_tensor(np.array([1.0, 2.0])))
        opt = paddle.optimizer.Momentum(0.01, 0.9, parameters=[p], weight_decay=decay)
        for _ in range(2):
            (p * paddle.to_tensor(np.array([1.0, -3.0]))).sum().backward()
            opt.step()
            opt.clear_grad()
        # Paddle 3.3.1's values
        np.testing.assert_array_equal(p.numpy(), np.array([0.970711010247262, 2.086417019302543]))


def test_clip_grad_by_global_norm_rounds_as_paddle_in_float32():
    # was: the norm and scale in float64, 1 ulp off Paddle 3.3.1 in some clipped values;
    # Paddle sums float32 squared norms in float32 and scales by clip / max(norm, clip)
    grads = [np.array([0.7610377073287964, 0.12167501449584961, 0.44386324286460876,
                       0.3336743414402008, 1.4940791130065918, -0.2051582634449005,
                       0.3130677044391632, -0.8540957570075989, -2.5529897212982178,
                       0.653618574142456, 0.8644362092018127, -0.7421650290489197],
                      "float32").reshape(3, 4),
             np.array([2.269754648208618, -1.4543657302856445, 0.04575851559638977,
                       -0.18718385696411133], "float32")]
    params = [paddle.create_parameter(list(g.shape), "float32") for g in grads]
    out = paddle.nn.ClipGradByGlobalNorm(1.0)(
        [(p, paddle.to_tensor(g)) for p, g in zip(params, grads)])
    # Paddle 3.3.1's values
    np.testing.assert_array_equal(out[0][1].numpy().ravel(), np.array([
        0.1721147894859314, 0.027517780661582947, 0.10038323700428009, 0.07546313107013702,
        0.33789798617362976, -0.046398188918828964, 0.07080277055501938,
        -0.19316060841083527, -0.5773791074752808, 0.1478210836648941, 0.19549918174743652,
        -0.16784657537937164], "float32"))
    np.testing.assert_array_equal(out[1][1].numpy(), np.array([
        0.5133232474327087, -0.3289164900779724, 0.01034865528345108, -0.04233312979340553],
        "float32"))


def test_clip_grad_by_global_norm_scales_the_gradient_in_place():
    # Paddle 3.3.1 runs g.multiply_(scale): after opt.step() the parameter's .grad reads the
    # clipped gradient, [6, 8] with clip_norm 1 -> [0.6, 0.8] (measured, SGD, Adam and
    # Momentum alike); ClipGradByNorm and ClipGradByValue leave .grad as it was ([6, 8])
    w = paddle.to_tensor(np.array([3.0, 4.0], "float32"), stop_gradient=False)
    opt = paddle.optimizer.SGD(0.1, parameters=[w], grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    (w * w).sum().backward()
    opt.step()
    scale = np.float32(1) / np.float32(10)
    np.testing.assert_array_equal(w.grad.numpy(), np.float32([6, 8]) * scale)
    np.testing.assert_array_equal(w.numpy(), np.float32([3, 4]) - np.float32(0.1) *
                                  (np.float32([6, 8]) * scale))
    v = paddle.to_tensor(np.array([3.0, 4.0], "float32"), stop_gradient=False)
    opt = paddle.optimizer.SGD(0.1, parameters=[v], grad_clip=paddle.nn.ClipGradByNorm(1.0))
    (v * v).sum().backward()
    opt.step()
    np.testing.assert_array_equal(v.grad.numpy(), [6, 8])


def test_clip_grad_by_global_norm_rounds_the_scale_to_each_gradients_dtype():
    # a float64 gradient makes the norm float64; Paddle 3.3.1 casts the scale to float32
    # before multiplying a float32 gradient (it multiplied in float64: [0.53041303, ...]
    # rounded once). Values printed by Paddle 3.3.1; the arguments are clipped in place
    a = paddle.to_tensor(np.array([3.0, 4.0], "float32"))
    b = paddle.to_tensor(np.array([1.1, 2.3, 0.7], "float64"))
    out = paddle.nn.ClipGradByGlobalNorm(1.0)([(paddle.create_parameter([2], "float32"), a),
                                               (paddle.create_parameter([3], "float64"), b)])
    np.testing.assert_array_equal(out[0][1].numpy(), np.float32([0.530413, 0.7072173]))
    np.testing.assert_array_equal(a.numpy(), out[0][1].numpy())
    np.testing.assert_array_equal(b.numpy(), [0.1944847554437912, 0.40664994320065423,
                                              0.12376302619150346])
