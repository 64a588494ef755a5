"""Hunt 23: paddle.io, paddle.save/load, nn.initializer and nn.utils against Paddle 3.3.1.

Each test pins one fix; the comment quotes what Paddle 3.3.1 gave (measured with
/work/peers/bin/python)."""

import numpy as np

import jitgrad as paddle
from jitgrad import io


def test_dataloader_batch_of_tensors_needing_grad_is_detached():
    # Paddle 3.3.1: every Tensor of a batch has stop_gradient=True (collated, converted by
    # batch_size=None or returned by a collate_fn), so a loss on it leaves the dataset alone.
    w = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    stacked = list(io.DataLoader([w[0], w[1]], batch_size=2))[0]
    unbatched = list(io.DataLoader([w], batch_size=None))[0]
    collated = list(io.DataLoader([w, w], batch_size=2, collate_fn=lambda b: b[0]))[0]
    for batch in (stacked, unbatched, collated):
        assert batch.stop_gradient and batch is not w
        np.testing.assert_array_equal(batch.numpy(), [[1., 2.], [3., 4.]])


def test_create_parameter_with_attr_false_makes_no_parameter():
    # Paddle 3.3.1: paddle.create_parameter(..., attr=False) and Layer.create_parameter
    # return None (no parameter, as bias_attr=False); jitgrad returned a parameter.
    assert paddle.create_parameter([3], "float32", attr=False) is None

    class NoBias(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.b = self.create_parameter([3], attr=False, is_bias=True)

    layer = NoBias()
    assert layer.b is None and layer.parameters() == []


def test_calculate_gain_knows_the_conv_transpose_names():
    # Paddle 3.3.1's table has conv_transpose1d/2d/3d (gain 1) besides conv2d_transpose.
    gain = paddle.nn.initializer.calculate_gain
    assert [gain(n) for n in ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")] \
        == [1, 1, 1]


def test_bilinear_initializer_is_the_bilinear_interpolation_kernel():
    # Missing before (AttributeError). Paddle 3.3.1 has nn.initializer.Bilinear; its docs
    # describe a (K, K) bilinear kernel, which jitgrad gives (3.3.1's K=4 row 0 is
    # [0.0625, 0.28125, 0.375, 0.15625], from a true division: kept difference).
    init = paddle.nn.initializer.Bilinear()
    w = paddle.create_parameter([2, 1, 4, 4], "float32", default_initializer=init)
    taps = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_array_equal(w.numpy()[1, 0], np.outer(taps, taps))
    # the docs' recipe: a channel-wise stride-2 transposed conv upsamples a constant map
    # to the same constant (away from the border)
    up = paddle.nn.Conv2DTranspose(2, 2, 4, stride=2, padding=1, groups=2, bias_attr=False,
                                   weight_attr=paddle.ParamAttr(initializer=init))
    out = up(paddle.full([1, 2, 5, 5], 3.0)).numpy()
    assert out.shape == (1, 2, 10, 10)
    np.testing.assert_allclose(out[:, :, 1:-1, 1:-1], 3.0)
    x = paddle.to_tensor(np.arange(5, dtype="float32").reshape(1, 1, 1, 5).repeat(5, 2)
                         .repeat(2, 1))
    row = up(x).numpy()[0, 0, 4, 1:-1]             # a ramp stays a ramp (linear interp)
    np.testing.assert_allclose(np.diff(row), 0.5)
    for shape in ([2, 3], [2, 2, 3, 4]):
        with np.testing.assert_raises(ValueError):
            paddle.create_parameter(shape, "float32", default_initializer=init)


def _params_with_grads(*grads):
    params = []
    for g in grads:
        p = paddle.create_parameter([len(g)], "float32")
        p.grad = paddle.to_tensor(g, dtype="float32")
        params.append(p)
    return params


def test_clip_grad_norm_with_a_nan_norm_makes_every_gradient_nan():
    # Paddle 3.3.1 (and torch): clip coefficient min(1, max_norm / (NaN + 1e-6)) = NaN
    # multiplies every gradient: [nan, nan] and [nan]. jitgrad left them unclipped
    # ([nan, 1.0] and [12.0]), so the next step applied the others as if all was well.
    a, b = _params_with_grads([float("nan"), 1.0], [12.0])
    total = paddle.nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert np.isnan(total.numpy())
    assert np.isnan(a.grad.numpy()).all() and np.isnan(b.grad.numpy()).all()


def test_clip_grad_norm_order_0_counts_the_gradients_holding_a_nonzero():
    # Paddle 3.3.1 (and torch): the L0 norm of the per-gradient L0 norms, here 2 (grads
    # [3, 4] and [12] scaled by 1 / (2 + 1e-6)); jitgrad raised ZeroDivisionError.
    a, b, c = _params_with_grads([3.0, 4.0], [12.0], [0.0])
    total = paddle.nn.utils.clip_grad_norm_([a, b, c], max_norm=1.0, norm_type=0)
    assert float(total) == 2.0
    np.testing.assert_allclose(a.grad.numpy(), np.float32([3, 4]) / (2 + 1e-6), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), np.float32([12]) / (2 + 1e-6), rtol=1e-6)
    with np.testing.assert_raises(ValueError):
        paddle.nn.utils.clip_grad_norm_([a], max_norm=1.0, norm_type=-1)


def test_vector_to_parameters_reads_the_start_of_a_longer_vector():
    # Paddle 3.3.1: a vec longer than the parameters fills them from its start (12 values
    # into 6 + 3: weight [[0, 1, 2], [3, 4, 5]], bias [6, 7, 8]); jitgrad raised ValueError.
    lin = paddle.nn.Linear(2, 3)
    paddle.nn.utils.vector_to_parameters(paddle.arange(12, dtype="float32"),
                                         lin.parameters())
    np.testing.assert_array_equal(lin.weight.numpy(), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(lin.bias.numpy(), [6, 7, 8])
    with np.testing.assert_raises(ValueError):              # shorter: refused, as Paddle
        paddle.nn.utils.vector_to_parameters(paddle.arange(8, dtype="float32"),
                                             lin.parameters())


def test_spectral_norm_of_conv3d_transpose_normalises_its_output_axis():
    # Paddle 3.3.1: dim defaults to 1 for every transposed convolution, Conv3DTranspose
    # included (weight [2, 3, 2, 2, 2]: weight_u [3], weight_v [16]); jitgrad used dim 0
    # there (u [2], v [24]), dividing by the singular value of another matrix.
    paddle.seed(0)
    conv = paddle.nn.Conv3DTranspose(2, 3, 2)
    paddle.nn.utils.spectral_norm(conv, n_power_iterations=30)
    assert conv.weight_u.shape == [3] and conv.weight_v.shape == [16]
    conv(paddle.ones([1, 2, 3, 3, 3]))
    w = conv.weight.numpy()
    sigma = np.linalg.svd(np.moveaxis(w, 1, 0).reshape(3, -1), compute_uv=False)[0]
    assert abs(sigma - 1) < 1e-3


def test_weight_norm_dim_minus_one_normalises_the_whole_weight():
    # Paddle 3.3.1: "(dim = -1) == (dim = None)": weight_g is the 0-d norm of the whole
    # weight (8.13941 for this one); jitgrad took the last axis (g [3.20156, 7.48331]).
    lin = paddle.nn.Linear(3, 2)
    w = np.float32([[1, 2], [3, -4], [0.5, 6]])
    lin.weight.set_value(paddle.to_tensor(w))
    paddle.nn.utils.weight_norm(lin, dim=-1)
    assert lin.weight_g.shape == []
    np.testing.assert_allclose(lin.weight_g.numpy(), np.linalg.norm(w), rtol=1e-6)
    np.testing.assert_allclose(lin.weight.numpy(), w, rtol=1e-6)
    lin(paddle.ones([1, 3])).sum().backward()                 # d/dg of sum(g * v / |v|)
    np.testing.assert_allclose(lin.weight_g.grad.numpy(), w.sum() / np.linalg.norm(w),
                               rtol=1e-5)


def test_normalising_a_weight_twice_says_so():
    # Paddle 3.3.1: RuntimeError "Cannot register two weight_norm (spectral_norm) hooks on
    # the same parameter weight"; jitgrad raised ValueError "the layer has no parameter
    # 'weight'", which hid the cause.
    U = paddle.nn.utils
    for normalise in (U.weight_norm, U.spectral_norm):
        lin = normalise(paddle.nn.Linear(3, 2))
        with np.testing.assert_raises_regex(RuntimeError, "Cannot register two"):
            normalise(lin)


def test_weight_norm_keeps_the_weight_under_a_global_initializer():
    # Paddle 3.3.1 creates weight_g / weight_v and then assigns them, so a global
    # initializer (Constant(0.7)) cannot reach them: weight, weight_v unchanged, weight_g
    # the column norms [2.23607, 5.0, 6.0208]. jitgrad initialised them with the global
    # Constant(0.7): the weight became 0.49497 everywhere, and 0.7 after remove_weight_norm.
    init = paddle.nn.initializer
    lin = paddle.nn.Linear(3, 2)
    w = np.float32([[1, 2], [3, -4], [0.5, 6]])
    lin.weight.set_value(paddle.to_tensor(w))
    init.set_global_initializer(init.Constant(0.7), init.Constant(0.2))
    try:
        paddle.nn.utils.weight_norm(lin)
        np.testing.assert_allclose(lin.weight.numpy(), w, rtol=1e-6)
        np.testing.assert_array_equal(lin.weight_v.numpy(), w)
        np.testing.assert_allclose(lin.weight_g.numpy(), np.linalg.norm(w, axis=1), rtol=1e-6)
        paddle.nn.utils.remove_weight_norm(lin)
        np.testing.assert_allclose(lin.weight.numpy(), w, rtol=1e-6)
    finally:
        init.set_global_initializer(None)


def test_weight_norm_parameters_are_named_as_paddle_names_them():
    # Paddle 3.3.1 makes weight_v, weight_g (and the weight remove_weight_norm restores)
    # with layer.create_parameter: linear_0.w_1, linear_0.w_2, then linear_0.w_3, so an
    # optimizer checkpoint names them so (linear_0.w_1_moment1_0). spectral_norm takes two
    # such names for u and v. jitgrad named them linear_0.w_0_v, linear_0.w_0_g, linear_0.w_0.
    lin = paddle.nn.Linear(3, 2)
    base = lin.full_name()
    paddle.nn.utils.weight_norm(lin)
    assert (lin.weight_v.name, lin.weight_g.name) == (f"{base}.w_1", f"{base}.w_2")
    paddle.nn.utils.remove_weight_norm(lin)
    assert lin.weight.name == f"{base}.w_3"
    conv = paddle.nn.Conv2D(2, 2, 1)
    paddle.nn.utils.spectral_norm(conv)
    paddle.nn.utils.weight_norm(conv, name="bias")
    assert (conv.bias_v.name, conv.bias_g.name) == (f"{conv.full_name()}.w_3",
                                                    f"{conv.full_name()}.w_4")


def test_kaiming_fan_out_mode_refuses_a_fan_in():
    # Paddle 3.3.1: ValueError "The mode of KaimingNormal/KaimingUniform is 'fan_out', but
    # fan_in is set. Please set fan_in to None."; jitgrad used the fan_in, ignoring the mode.
    init = paddle.nn.initializer
    for kaiming in (init.KaimingNormal, init.KaimingUniform):
        with np.testing.assert_raises_regex(ValueError, "fan_in"):
            kaiming(fan_in=9, mode="fan_out")


def test_uniform_bounds_and_a_negative_normal_std_are_handled_up_front():
    # Paddle 3.3.1: Uniform(2.0, 1.0) is refused when made ("high should greater or equal
    # than low"; jitgrad raised numpy's "high - low < 0" at the parameter), and Normal(0, -1)
    # draws mean + std * N(0, 1) (jitgrad raised numpy's "scale < 0").
    init = paddle.nn.initializer
    with np.testing.assert_raises_regex(ValueError, "Uniform: high"):
        init.Uniform(2.0, 1.0)
    paddle.seed(7)
    values = paddle.create_parameter([20000], "float32",
                                     default_initializer=init.Normal(1.0, -2.0)).numpy()
    assert abs(values.mean() - 1.0) < 0.1 and abs(values.std() - 2.0) < 0.1


def test_layer_create_parameter_takes_the_default_dtype_of_the_time():
    # Paddle 3.3.1: Layer.create_parameter without a dtype uses set_default_dtype's dtype
    # (float64 here), for a Layer subclass made without a dtype or with float32; jitgrad
    # used the layer's "float32" and silently made float32 parameters.
    class Custom(paddle.nn.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.p = self.create_parameter([2])

    paddle.set_default_dtype("float64")
    try:
        assert Custom().p.dtype == paddle.float64
        assert Custom(dtype="float32").p.dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")
    assert Custom().p.dtype == paddle.float32


def test_a_regularizer_as_weight_attr_reaches_the_parameter():
    # Paddle 3.3.1 reads weight_attr=L2Decay(0.5) as ParamAttr(regularizer=L2Decay(0.5)):
    # one SGD step (lr 0.1, zero data gradient) takes weight [1, 2] to [0.95, 1.9] and an
    # L1Decay(0.5) bias 1 to 0.85. jitgrad dropped the regularizer (weight unchanged, bias
    # 0.9), and ignored any other unknown attr ([1, 2], 0.5, a dict) where Paddle raises
    # TypeError.
    lin = paddle.nn.Linear(2, 1, weight_attr=paddle.regularizer.L2Decay(0.5),
                           bias_attr=paddle.regularizer.L1Decay(0.5))
    lin.weight.set_value(paddle.to_tensor([[1.0], [2.0]]))
    lin.bias.set_value(paddle.to_tensor([1.0]))
    opt = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
    lin(paddle.zeros([1, 2])).sum().backward()
    opt.step()
    np.testing.assert_allclose(lin.weight.numpy(), [[0.95], [1.9]], rtol=1e-6)
    np.testing.assert_allclose(lin.bias.numpy(), [0.85], rtol=1e-6)
    for bad in ([1, 2], 0.5, {"a": 1}):
        with np.testing.assert_raises(TypeError):
            paddle.nn.Linear(2, 2, weight_attr=bad)


def test_parameters_made_under_lazy_guard_can_be_initialized():
    # Paddle 3.3.1: parameters made inside LazyGuard are initialised by p.initialize()
    # (Constant(0.5): weight 0.5, y = [1.5, 1.5]); jitgrad raised AttributeError.
    with paddle.LazyGuard():
        lin = paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Constant(0.5))
    for p in lin.parameters():
        assert p.initialize() is None
    np.testing.assert_array_equal(lin(paddle.ones([1, 3])).numpy(), [[1.5, 1.5]])
