"""nn layers and optimizers measured on Paddle 3.3.1 by a differential sweep (the same calls
in both libraries, same initial weights, values compared; scripts in scratch s6/nn/bugN.py),
pinned here with Paddle's exact outputs. Each test names what jitgrad got wrong before."""

import numpy as np
import pytest

import jitgrad as paddle

G2 = [[0.3, -1.0, 2.0], [0.1, 0.5, -1.0]]


def _steps(make_opt, grads, values=(1.3, -0.7, 2.0), attr=None):
    """One parameter fed the given gradients (loss = sum(p * g)): its values after the last
    step."""
    p = paddle.create_parameter([len(values)], "float32", attr=attr)
    p.set_value(np.array(values, "float32"))
    opt = make_opt(p)
    for g in grads:
        (p * paddle.to_tensor(np.array(g, "float32"))).sum().backward()
        opt.step()
        opt.clear_grad()
    return p.numpy()


def test_adam_rounds_one_minus_beta_in_float32():
    # was: 1 - beta2 in float64 (0.001) against a float32 bias correction: 6e-6 off at step 1
    p = paddle.create_parameter([3], "float32")
    p.set_value(np.ones(3, "float32"))
    opt = paddle.optimizer.Adam(0.1, parameters=[p])
    (p * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    opt.step()
    moment2 = next(v for k, v in opt.state_dict().items() if "moment2" in k).numpy()
    np.testing.assert_array_equal(moment2 / np.array([1.0, 4.0, 9.0], "float32"),
                                  np.float32(0.0009999871))     # Paddle 3.3.1
    np.testing.assert_array_equal(p.numpy(), np.float32(0.9))   # Paddle 3.3.1


def test_adamax_and_rmsprop_round_their_constants_in_float32():
    grads = [[0.3, -1.0, 2.0], [0.1, 0.5, -1.0], [1.0, 1.0, 1.0]]
    np.testing.assert_array_equal(
        _steps(lambda p: paddle.optimizer.Adamax(0.1, parameters=[p]), grads),
        np.array([1.0858345031738281, -0.602542519569397, 1.8471283912658691],
                 "float32"))                                      # Paddle 3.3.1
    np.testing.assert_array_equal(
        _steps(lambda p: paddle.optimizer.RMSProp(0.01, parameters=[p]), grads),
        np.array([1.1979929208755493, -0.7062621116638184, 1.956725001335144],
                 "float32"))                                      # Paddle 3.3.1


@pytest.mark.parametrize("cls, options, expected", [
    # Paddle 3.3.1, after 2 steps
    ("Adam", {"beta1": 0.5, "epsilon": 0.1}, [1.173490047454834, -0.6090909242630005,
                                               1.9047619104385376]),
    ("Momentum", {"momentum": 0.2}, [1.253999948501587, -0.6299999952316284,
                                     1.8599998950958252]),
    ("Momentum", {"use_nesterov": True}, [1.199699878692627, -0.5239999890327454,
                                          1.6480000019073486]),
    ("RMSProp", {"rho": 0.5, "centered": True}, [1.0082420110702515, -0.581649899482727,
                                                 1.8816497325897217]),
    ("Adagrad", {"epsilon": 0.5}, [1.2502484321594238, -0.66423499584198,
                                   1.956548810005188]),
    ("Adamax", {"beta1": 0.5}, [1.1443887948989868, -0.5999999642372131,
                                1.899999976158142]),
    ("Adadelta", {"rho": 0.5}, [1.2997733354568481, -0.699974000453949,
                                1.9999741315841675]),
    ("Lamb", {"lamb_weight_decay": 0.5}, [0.9929378628730774, -0.520957887172699,
                                          1.694156289100647]),
])
def test_a_parameter_groups_hyperparameters_replace_the_optimizers(cls, options, expected):
    # was: a group's beta1 / epsilon / momentum / rho ... were ignored
    got = _steps(lambda p: getattr(paddle.optimizer, cls)(
        0.1, parameters=[{"params": [p], **options}]), G2)
    np.testing.assert_allclose(got, np.array(expected, "float32"), rtol=2e-7, atol=0)


def test_l1decay_adds_coeff_times_sign():
    # was: paddle.regularizer.L1Decay did not exist
    got = _steps(lambda p: paddle.optimizer.Momentum(
        0.1, parameters=[p], weight_decay=paddle.regularizer.L1Decay(0.5)), G2)
    np.testing.assert_array_equal(got, np.array(
        [1.087999939918518, -0.41499996185302734, 1.5750000476837158], "float32"))  # Paddle


def test_paramattr_learning_rate_scales_the_rate():
    # was: ParamAttr(learning_rate=0.5) ignored by the optimizers
    got = _steps(lambda p: paddle.optimizer.SGD(0.1, parameters=[p]), G2,
                 attr=paddle.ParamAttr(learning_rate=0.5))
    np.testing.assert_array_equal(got, np.array(
        [1.2799999713897705, -0.6749999523162842, 1.9499999284744263], "float32"))  # Paddle


def test_paramattr_regularizer_replaces_the_optimizers_weight_decay():
    # was: ParamAttr(regularizer=L2Decay(0.5)) ignored (the optimizer's 0.1 applied)
    got = _steps(lambda p: paddle.optimizer.SGD(0.1, parameters=[p], weight_decay=0.1), G2,
                 attr=paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(0.5)))
    np.testing.assert_array_equal(got, np.array(
        [1.1347498893737793, -0.5867499709129333, 1.715000033378601], "float32"))  # Paddle
    got = _steps(lambda p: paddle.optimizer.AdamW(0.1, parameters=[p]), G2,
                 attr=paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(0.5)))
    np.testing.assert_allclose(got, np.array(
        [1.099420189857483, -0.543350875377655, 1.8303714990615845], "float32"),
        rtol=2e-7, atol=0)                                          # Paddle 3.3.1


def test_paramattr_need_clip_false_leaves_the_parameter_out_of_grad_clip():
    # was: ParamAttr(need_clip=...) raised TypeError
    a = paddle.create_parameter([2], "float32", attr=paddle.ParamAttr(need_clip=False))
    b = paddle.create_parameter([2], "float32")
    for p in (a, b):
        p.set_value(np.ones(2, "float32"))
    opt = paddle.optimizer.SGD(1.0, parameters=[a, b],
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    (a * paddle.to_tensor([3.0, 4.0]) + b * paddle.to_tensor([3.0, 4.0])).sum().backward()
    opt.step()
    np.testing.assert_array_equal(a.numpy(), [-2.0, -3.0])          # Paddle 3.3.1
    np.testing.assert_array_equal(b.numpy(), np.array([0.3999999761581421,
                                                       0.19999998807907104], "float32"))


def test_adam_amsgrad_keeps_the_largest_second_moment():
    # was: amsgrad was not an argument (TypeError)
    grads = [[2.0, -1.0, 2.0], [0.1, 0.5, -1.0], [0.1, 0.1, 0.1]]
    got = _steps(lambda p: paddle.optimizer.Adam(0.1, epsilon=0.01, parameters=[p],
                                                 amsgrad=True), grads)
    np.testing.assert_allclose(got, np.array(
        [1.0731221437454224, -0.5601045489311218, 1.8507875204086304], "float32"),
        rtol=2e-7, atol=0)                                          # Paddle 3.3.1
    p = paddle.create_parameter([2], "float32")
    opt = paddle.optimizer.Adam(0.1, parameters=[p], amsgrad=True)
    (p * 2).sum().backward()
    opt.step()
    assert [k.split("w_0_")[1] for k in opt.state_dict()] == [
        "moment1_0", "moment2_0", "moment2_max_0", "beta1_pow_acc_0", "beta2_pow_acc_0"]


def test_adamw_lr_ratio_scales_the_parameters_rate():
    # was: lr_ratio accepted and ignored. Paddle 3.3.1's CPU kernel refuses lr_ratio; its
    # meaning (GPU) is the rate times lr_ratio(p): AdamW(0.05) measured on Paddle 3.3.1
    got = _steps(lambda p: paddle.optimizer.AdamW(0.1, parameters=[p], weight_decay=0.3,
                                                  lr_ratio=lambda p: 0.5), G2)
    np.testing.assert_allclose(got, np.array(
        [1.1684894561767578, -0.616590678691864, 1.8778833150863647], "float32"),
        rtol=2e-7, atol=0)


def test_adamw_refuses_a_regularizer_object_as_weight_decay():
    # was: L2Decay(0.3) silently used as the decoupled coefficient; Paddle 3.3.1: TypeError
    p = paddle.create_parameter([2], "float32")
    with pytest.raises(TypeError, match="weight_decay must be a float"):
        paddle.optimizer.AdamW(0.1, parameters=[p],
                               weight_decay=paddle.regularizer.L2Decay(0.3))


def test_momentum_takes_paddles_arguments_and_rescales_the_gradient():
    # was: multi_precision / rescale_grad / use_multi_tensor raised TypeError. rescale_grad
    # as Paddle documents it (g * rescale_grad): Momentum fed 0.5 * g, measured on Paddle
    # 3.3.1 (whose CPU kernel ignores rescale_grad)
    got = _steps(lambda p: paddle.optimizer.Momentum(0.1, parameters=[p], multi_precision=False,
                                                     rescale_grad=0.5, use_multi_tensor=False),
                 G2)
    np.testing.assert_array_equal(got, np.array(
        [1.2664999961853027, -0.6299999952316284, 1.8600000143051147], "float32"))


def test_set_lr_scheduler_hands_the_rate_to_a_scheduler():
    # was: AttributeError
    p = paddle.create_parameter([1], "float32")
    opt = paddle.optimizer.SGD(0.1, parameters=[p])
    sched = paddle.optimizer.lr.StepDecay(0.5, 1, 0.1)
    opt.set_lr_scheduler(sched)
    assert opt.get_lr() == 0.5                                      # Paddle 3.3.1
    sched.step()
    assert opt.get_lr() == pytest.approx(0.05, rel=1e-15)           # Paddle 3.3.1
    with pytest.raises(TypeError, match="LRScheduler"):
        opt.set_lr_scheduler(0.1)


@pytest.mark.parametrize("mode, row", [
    ("reflect", [30.0, 33.0, 42.0, 45.0]),                           # Paddle 3.3.1
    ("replicate", [15.0, 21.0, 30.0, 36.0]),                         # Paddle 3.3.1
    ("circular", [60.0, 57.0, 66.0, 63.0]),                          # Paddle 3.3.1
])
def test_conv2d_pads_by_padding_mode(mode, row):
    # was: padding_mode ignored (zeros: [10, 18, 24, 18])
    conv = paddle.nn.Conv2D(1, 1, 3, padding=1, padding_mode=mode, bias_attr=False)
    conv.weight.set_value(np.ones([1, 1, 3, 3], "float32"))
    out = conv(paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4)))
    np.testing.assert_array_equal(out.numpy()[0, 0, 0], row)


def test_conv1d_pads_by_padding_mode():
    conv = paddle.nn.Conv1D(1, 1, 3, padding=2, padding_mode="reflect", bias_attr=False)
    conv.weight.set_value(np.array([[[1.0, 2.0, 3.0]]], "float32"))
    out = conv(paddle.to_tensor(np.arange(5, dtype="float32").reshape(1, 1, 5)))
    np.testing.assert_array_equal(out.numpy().ravel(),
                                  [4.0, 4.0, 8.0, 14.0, 20.0, 20.0, 16.0])  # Paddle 3.3.1
    with pytest.raises(ValueError, match="padding_mode"):
        paddle.nn.Conv1D(1, 1, 3, padding_mode="mirror")


def test_batchnorm_without_weight_and_bias_has_no_parameters():
    # was: weight_attr=False / bias_attr=False still made a trainable weight and bias
    bn = paddle.nn.BatchNorm2D(3, weight_attr=False, bias_attr=False)
    assert list(bn.state_dict()) == ["_mean", "_variance"]          # Paddle 3.3.1
    assert bn.weight is None and bn.bias is None
    bn1 = paddle.nn.BatchNorm1D(2, weight_attr=False, bias_attr=False)
    out = bn1(paddle.to_tensor(np.array([[1.0, 2.0], [3.0, 6.0]], "float32")))
    np.testing.assert_allclose(out.numpy(), [[-0.999995, -0.9999987], [0.999995, 0.9999987]],
                               rtol=2e-7)                             # Paddle 3.3.1


def test_layernorm_over_several_dims_has_flat_parameters():
    # was: [4, 5] weight and bias, so a Paddle state dict did not load (skipped)
    ln = paddle.nn.LayerNorm([4, 5])
    assert [p.shape for p in ln.parameters()] == [[20], [20]]       # Paddle 3.3.1
    assert ln.set_state_dict({"weight": np.arange(20, dtype="float32"),
                              "bias": np.zeros(20, "float32")}) == ([], [])
    x = paddle.to_tensor(np.random.RandomState(0).randn(1, 4, 5).astype("float32"))
    np.testing.assert_allclose(ln(x).numpy()[0, 1], [-9.095701217651367, 2.687077522277832,
                                                     -5.9337921142578125, -6.328510284423828,
                                                     -1.6803622245788574], rtol=2e-7)


def test_prelu_parameter_is_named_underscore_weight():
    # was: `weight`, so Paddle's state dicts (key `_weight`) did not load
    m = paddle.nn.PReLU(3)
    assert list(m.state_dict()) == ["_weight"]                       # Paddle 3.3.1
    assert m.set_state_dict({"_weight": np.array([0.1, 0.2, 0.3], "float32")}) == ([], [])
    out = m(paddle.to_tensor(-np.ones([1, 3, 1], "float32")))
    np.testing.assert_allclose(out.numpy().ravel(), [-0.1, -0.2, -0.3], rtol=1e-7)
    assert m.weight is m._weight


def test_batch_norm_with_batch_statistics_in_eval_updates_the_running_ones():
    # was: not updated; Paddle 3.3.1 updates them whenever batch statistics are used
    x = np.random.RandomState(1).randn(2, 3, 5, 5).astype("float32")
    bn = paddle.nn.BatchNorm2D(3, use_global_stats=False)
    bn.eval()
    bn(paddle.to_tensor(x))
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * x.mean((0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.9 + 0.1 * x.var((0, 2, 3)), rtol=1e-5)
    plain = paddle.nn.BatchNorm2D(3)
    plain.eval()
    plain(paddle.to_tensor(x))                                  # running statistics: unchanged
    assert plain._mean.tolist() == [0.0] * 3 and plain._variance.tolist() == [1.0] * 3


def test_embedding_max_norm_and_scale_grad_by_freq():
    # was: neither argument existed (and Embedding's 4th positional was sparse, not max_norm)
    e = paddle.nn.Embedding(4, 3, None, 1.0)        # (max_norm is the 4th, as Paddle)
    e.weight.set_value(np.arange(12, dtype="float32").reshape(4, 3))
    out = e(paddle.to_tensor([1, 1, 3])).numpy()
    np.testing.assert_allclose(out[0], [0.4243, 0.5657, 0.7071], atol=1e-4)       # Paddle 3.3.1
    np.testing.assert_allclose(e.weight.numpy()[[0, 2]], [[0, 1, 2], [6, 7, 8]])   # untouched
    e2 = paddle.nn.Embedding(4, 2, scale_grad_by_freq=True)
    e2.weight.set_value(np.ones((4, 2), "float32"))
    e2(paddle.to_tensor([1, 1, 2])).sum().backward()
    assert e2.weight.grad.tolist() == [[0, 0], [1, 1], [1, 1], [0, 0]]
