"""Layer forward arguments as Paddle 3.3.1 names them, and the layer arguments a hunt
against it found missing: SmoothL1Loss(is_huber=...), MaxUnPool*D.forward(output_size=...),
AdaptiveAvgPool2D(name=...), nearest Upsample of an integer tensor and the old BatchNorm's
trainable_statistics=True. Every expected value was measured on Paddle 3.3.1."""

import inspect

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional

# inspect.signature(cls.forward) of every Layer class in paddle.nn (Paddle 3.3.1), without
# self: the parameter names (defaults after '=', *args and **kwargs starred) -> the classes
PADDLE_FORWARD = {
    "x": """
        AdaptiveAvgPool2D AdaptiveAvgPool2d AdaptiveAvgPool3D AdaptiveAvgPool3d
        AdaptiveMaxPool2D AdaptiveMaxPool2d AdaptiveMaxPool3D AdaptiveMaxPool3d
        AvgPool1D AvgPool2D AvgPool3D CELU ChannelShuffle CircularPad1D CircularPad1d
        CircularPad2D CircularPad2d CircularPad3D CircularPad3d ConstantPad1D
        ConstantPad1d ConstantPad2D ConstantPad2d ConstantPad3D ConstantPad3d Conv1D
        Conv1d Conv2D Conv2d Conv3D Conv3d ELU Embedding FractionalMaxPool2D
        FractionalMaxPool3D GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LPPool1D
        LPPool1d LPPool2D LPPool2d LeakyReLU LogSigmoid LogSoftmax MaxPool2D MaxPool3D
        Maxout Mish PReLU Pad1D Pad2D Pad3D PixelShuffle PixelUnshuffle RReLU ReLU ReLU6
        ReflectionPad1D ReflectionPad1d ReflectionPad2D ReflectionPad2d ReflectionPad3D
        ReflectionPad3d ReplicationPad1D ReplicationPad1d ReplicationPad2D
        ReplicationPad2d ReplicationPad3D ReplicationPad3d SELU SiLU Sigmoid Silu
        Softmax Softmax2D Softplus Softshrink Softsign SpectralNorm Swish SyncBatchNorm
        Tanh Tanhshrink ThresholdedReLU Upsample UpsamplingBilinear2D
        UpsamplingBilinear2d UpsamplingNearest2D UpsamplingNearest2d ZeroPad1D ZeroPad1d
        ZeroPad2D ZeroPad2d ZeroPad3D ZeroPad3d""",
    "input": """
        AdaptiveAvgPool1D AdaptiveAvgPool1d AdaptiveMaxPool1D AdaptiveMaxPool1d
        AlphaDropout BatchNorm BatchNorm1D BatchNorm2D BatchNorm3D Dropout Dropout2D
        Dropout3D FeatureAlphaDropout Flatten Fold GroupNorm Identity InstanceNorm1D
        InstanceNorm2D InstanceNorm3D LayerNorm Linear LocalResponseNorm MaxPool1D
        Sequential Unflatten Unfold""",
    "input, label": """
        AdaptiveLogSoftmaxWithLoss BCELoss CrossEntropyLoss HingeEmbeddingLoss HuberLoss
        KLDivLoss L1Loss MSELoss MultiLabelMarginLoss MultiLabelSoftMarginLoss
        MultiMarginLoss NLLLoss PoissonNLLLoss SmoothL1Loss SoftMarginLoss""",
    "*inputs, **kwargs": """
        Layer LayerDict LayerList Module ModuleDict ModuleList ParameterDict
        ParameterList RNNCellBase""",
    "x, indices, output_size=None": """
        MaxUnPool1D MaxUnPool2D MaxUnPool3D MaxUnpool1d MaxUnpool2d MaxUnpool3d""",
    "inputs, initial_states=None, sequence_length=None": """
        GRU LSTM SimpleRNN""",
    "inputs, states=None": """
        GRUCell LSTMCell SimpleRNNCell""",
    "x, output_size=None": """
        Conv1DTranspose Conv2DTranspose Conv3DTranspose""",
    "input, positive, negative": """
        TripletMarginLoss TripletMarginWithDistanceLoss""",
    "inputs, initial_states=None, sequence_length=None, **kwargs": """
        BiRNN RNN""",
    "src, src_mask=None, cache=None": """
        TransformerEncoder TransformerEncoderLayer""",
    "tgt, memory, tgt_mask=None, memory_mask=None, cache=None": """
        TransformerDecoder TransformerDecoderLayer""",
    "x1, x2": """
        Bilinear CosineSimilarity""",
    "input, label, input_lengths, label_lengths": """
        RNNTLoss""",
    "input, label, path_table=None, path_code=None": """
        HSigmoidLoss""",
    "input, label, variance": """
        GaussianNLLLoss""",
    "input, other, label": """
        MarginRankingLoss""",
    "input1, input2, label": """
        CosineEmbeddingLoss""",
    "log_probs, labels, input_lengths, label_lengths, norm_by_times=False": """
        CTCLoss""",
    "logit, label": """
        BCEWithLogitsLoss""",
    "query, key=None, value=None, attn_mask=None, cache=None": """
        MultiHeadAttention""",
    "src, tgt, src_mask=None, tgt_mask=None, memory_mask=None": """
        Transformer""",
    "x, y": """
        PairwiseDistance""",
}
LAYER_FORWARD = {name: sig for sig, names in PADDLE_FORWARD.items() for name in names.split()}


def _forward_parameters(cls: type) -> str:
    """cls.forward's parameters after self, written as in PADDLE_FORWARD."""
    out = []
    for p in list(inspect.signature(cls.forward).parameters.values())[1:]:
        star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append(star + p.name + ("" if p.default is p.empty else f"={p.default!r}"))
    return ", ".join(out)


@pytest.mark.parametrize("name", sorted(LAYER_FORWARD))
def test_forward_parameters_are_paddles(name):
    assert _forward_parameters(getattr(paddle.nn, name)) == LAYER_FORWARD[name]


def test_every_paddle_layer_class_is_in_the_table():
    assert len(LAYER_FORWARD) == 185


x = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 2, 2) / 10)


@pytest.mark.parametrize("layer", [
    paddle.nn.Linear(2, 2), paddle.nn.BatchNorm2D(3), paddle.nn.LayerNorm(2),
    paddle.nn.GroupNorm(1, 3), paddle.nn.Dropout(0.5), paddle.nn.Flatten(), paddle.nn.Identity(),
    paddle.nn.Sequential(paddle.nn.ReLU()), paddle.nn.InstanceNorm2D(3),
    paddle.nn.LocalResponseNorm(3), paddle.nn.Unfold(2), paddle.nn.MaxPool1D(2)],
    ids=lambda layer: type(layer).__name__)
def test_input_by_keyword_is_the_positional_call(layer):
    layer.eval()
    arg = x.reshape([2, 3, 4]) if isinstance(layer, paddle.nn.MaxPool1D) else x
    np.testing.assert_array_equal(layer(input=arg).numpy(), layer(arg).numpy())


def test_activations_take_x_and_losses_input_and_label_by_keyword():
    np.testing.assert_array_equal(paddle.nn.ReLU()(x=x - 1).numpy(), F.relu(x - 1).numpy())
    logits, label = paddle.to_tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]), paddle.to_tensor([0, 2])
    loss = paddle.nn.CrossEntropyLoss()(input=logits, label=label)
    assert loss.item() == paddle.nn.CrossEntropyLoss()(logits, label).item()
    mse = paddle.nn.MSELoss()(label=x * 0, input=x)
    assert mse.item() == np.float32(1.8016666173934937)                 # Paddle 3.3.1
    margin = paddle.nn.MarginRankingLoss(margin=0.5)
    one = paddle.ones([2])
    assert margin(input=one, other=one * 0, label=one).item() == 0.0


def test_forward_names_a_missing_or_unknown_argument():
    with pytest.raises(TypeError, match=r"MSELoss.forward\(input, label\).*label"):
        paddle.nn.MSELoss()(input=x)
    with pytest.raises(TypeError, match=r"ReLU.forward\(x\) got an unexpected keyword "
                                        r"argument 'input'"):
        paddle.nn.ReLU()(input=x)
    with pytest.raises(TypeError, match=r"ReLU.forward\(x\)"):
        paddle.nn.ReLU()(x, x)


# ---- SmoothL1Loss / HuberLoss is_huber ---------------------------------------------------
d = np.array([0.1, 0.4, 2.0, -3.0], "float32")


@pytest.mark.parametrize("reduction, want", [
    ("none", [0.010000000707805157, 0.1600000113248825, 1.75, 2.75]),    # Paddle 3.3.1
    ("mean", 1.1675000190734863), ("sum", 4.670000076293945)])
def test_smooth_l1_is_huber_false_divides_by_delta(reduction, want):
    loss = paddle.nn.SmoothL1Loss(reduction, 0.5, False)(paddle.to_tensor(d), paddle.zeros([4]))
    assert loss.dtype == paddle.float32
    np.testing.assert_array_equal(loss.numpy(), np.float32(want))


def test_huber_loss_is_smooth_l1_and_keeps_is_huber_true_by_default():
    assert paddle.nn.HuberLoss is paddle.nn.SmoothL1Loss
    loss = paddle.nn.HuberLoss(reduction="none", delta=0.5)(paddle.to_tensor(d), paddle.zeros([4]))
    np.testing.assert_array_equal(loss.numpy(), np.float32([0.005000000353902578,
                                                          0.08000000566244125, 0.875, 1.375]))
    f = F.smooth_l1_loss(paddle.to_tensor(d), paddle.zeros([4]), reduction="sum", delta=2.0,
                         is_huber=False)
    assert f.item() == np.float32(3.0425000190734863)


def test_smooth_l1_is_huber_false_gradient():
    t = paddle.to_tensor(d, stop_gradient=False)
    paddle.nn.SmoothL1Loss(delta=0.5, is_huber=False)(input=t, label=paddle.zeros([4])).backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.float32([0.05, 0.2, 0.25, -0.25]))
    check_grads(lambda a, b: F.smooth_l1_loss(a, b, "sum", 0.7, is_huber=False),
                [0.1, 0.4, 2.0, -3.0], [0.3, -0.2, 0.5, 1.0], order=2)     # |d| < 0.7 twice


# ---- MaxUnPool output_size, AdaptiveAvgPool2D name, Upsample of ints, trainable_statistics --
def test_max_unpool_forward_output_size_wins_over_the_constructors():
    v = paddle.to_tensor(np.arange(25, dtype="float32").reshape(1, 1, 5, 5))
    y, idx = F.max_pool2d(v, 2, return_mask=True)
    with pytest.warns(UserWarning, match="output_size in forward overrides"):
        out = paddle.nn.MaxUnPool2D(2, output_size=[4, 4])(y, idx, output_size=[5, 5])
    want = np.zeros((5, 5), "float32")
    want[1, 1], want[1, 3], want[3, 1], want[3, 3] = 6, 8, 16, 18      # Paddle 3.3.1
    np.testing.assert_array_equal(out.numpy()[0, 0], want)
    np.testing.assert_array_equal(paddle.nn.MaxUnPool2D(2, output_size=[5, 5])(y, idx).numpy(),
                                  out.numpy())
    y1, i1 = F.max_pool1d(paddle.arange(5, dtype="float32").reshape([1, 1, 5]), 2,
                          return_mask=True)
    with pytest.warns(UserWarning):
        out1 = paddle.nn.MaxUnPool1D(2)(y1, i1, output_size=[1, 1, 5])
    np.testing.assert_array_equal(out1.numpy().ravel(), [0, 1, 0, 3, 0])
    y3, i3 = F.max_pool3d(paddle.arange(27, dtype="float32").reshape([1, 1, 3, 3, 3]), 2,
                          return_mask=True)
    with pytest.warns(UserWarning):
        out3 = paddle.nn.MaxUnPool3D(2)(y3, i3, output_size=[3, 3, 3])
    assert out3.shape == [1, 1, 3, 3, 3] and out3.numpy()[0, 0, 1, 1, 1] == 13
    assert out3.numpy().sum() == 13


def test_adaptive_avg_pool2d_takes_name_and_prints_without_it():
    pool = paddle.nn.AdaptiveAvgPool2D(2, name="p")
    assert repr(pool) == "AdaptiveAvgPool2D(output_size=2)"
    assert pool(paddle.ones([1, 2, 4, 4])).shape == [1, 2, 2, 2]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_nearest_upsample_of_an_integer_tensor_keeps_its_dtype(dtype):
    v = paddle.to_tensor(np.arange(8).reshape(1, 1, 2, 4)).astype(dtype)
    up = paddle.nn.Upsample(scale_factor=2)(v)
    assert up.dtype == getattr(paddle, dtype)
    np.testing.assert_array_equal(up.numpy()[0, 0], [[0, 0, 1, 1, 2, 2, 3, 3]] * 2 +
                                  [[4, 4, 5, 5, 6, 6, 7, 7]] * 2)       # Paddle 3.3.1
    np.testing.assert_array_equal(paddle.nn.Upsample(size=[3, 5])(v).numpy()[0, 0],
                                  [[0, 0, 1, 2, 3], [0, 0, 1, 2, 3], [4, 4, 5, 6, 7]])
    big = paddle.to_tensor(np.array([[[[2**62 + 1, -5]]]]))                # exact, no float trip
    assert paddle.nn.Upsample(scale_factor=2)(big).numpy()[0, 0, 1].tolist() == \
        [2**62 + 1, 2**62 + 1, -5, -5]


@pytest.mark.parametrize("mode, dtype", [("bilinear", "int64"), ("nearest", "bool"),
                                         ("nearest", "int16")])
def test_upsample_refuses_what_paddle_has_no_kernel_for(mode, dtype):
    v = paddle.to_tensor(np.arange(8).reshape(1, 1, 2, 4)).astype(dtype)
    with pytest.raises(TypeError, match="interpolate expects a float tensor"):
        paddle.nn.Upsample(scale_factor=2, mode=mode)(v)


BN_X = np.array([[[[1., 2.], [3., 5.]], [[0., -1.], [4., 2.]]],
                 [[[2., 0.], [1., 1.]], [[3., 3.], [-2., 0.5]]]], "float32")
# Paddle 3.3.1, BatchNorm(2, trainable_statistics=True).eval()(BN_X): the batch's statistics
BN_Y = [-0.6024625897407532, 0.08606612682342529, 0.774594783782959, 2.1516523361206055,
        -0.5940394401550293, -1.094283103942871, 1.406935453414917, 0.40644800662994385,
        0.08606612682342529, -1.2909913063049316, -0.6024625897407532, -0.6024625897407532,
        0.9066917896270752, 0.9066917896270752, -1.5945268869400024, -0.343917578458786]


def test_batchnorm_trainable_statistics_normalizes_eval_batches_with_their_statistics():
    bn = paddle.nn.BatchNorm(2, trainable_statistics=True)
    bn.eval()
    y = bn(paddle.to_tensor(BN_X))
    np.testing.assert_allclose(y.numpy().ravel(), BN_Y, rtol=1e-6, atol=1e-6)
    # and the running statistics move, as in training (Paddle 3.3.1)
    np.testing.assert_allclose(bn._mean.numpy(), [0.1875, 0.11875], rtol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), [1.110937476158142, 1.2996094226837158],
                               rtol=1e-6)


def test_batchnorm_trainable_statistics_gradient_is_the_training_one():
    def train_and_eval_grads(mode):
        bn = paddle.nn.BatchNorm(2, trainable_statistics=True)
        getattr(bn, mode)()
        t = paddle.to_tensor(BN_X, stop_gradient=False)
        (bn(t) * paddle.arange(16, dtype="float32").reshape([2, 2, 2, 2])).sum().backward()
        return t.grad.numpy()
    np.testing.assert_array_equal(train_and_eval_grads("eval"), train_and_eval_grads("train"))
    check_grads(lambda a: F.batch_norm(a, paddle.zeros([2], "float64"),
                                       paddle.ones([2], "float64"), training=True),
                BN_X.astype("float64"))


def test_batchnorm_use_global_stats_wins_over_trainable_statistics():
    bn = paddle.nn.BatchNorm(2, trainable_statistics=True, use_global_stats=True)
    bn.eval()
    np.testing.assert_allclose(bn(paddle.to_tensor(BN_X)).numpy(), BN_X / np.sqrt(1 + 1e-5),
                               rtol=1e-6)


# ---- Paddle 3.3.1's forward keyword aliases (its param_one_alias / param_two_alias) -------
INPUT_ALIAS = """
    AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool2D AdaptiveMaxPool3D Conv1D Conv2D Conv3D
    Embedding GLU Hardshrink LPPool1D LPPool2D MaxUnPool1D MaxUnPool2D MaxUnPool3D Pad1D Pad2D
    Pad3D Softshrink UpsamplingBilinear2D UpsamplingNearest2D CircularPad1D CircularPad2D
    CircularPad3D ConstantPad1D ConstantPad2D ConstantPad3D ReflectionPad1D ReflectionPad2D
    ReflectionPad3D ReplicationPad1D ReplicationPad2D ReplicationPad3D ZeroPad1D ZeroPad2D
    ZeroPad3D""".split()


@pytest.mark.parametrize("name", INPUT_ALIAS)
def test_forward_takes_input_for_x_where_paddle_does(name):
    assert getattr(paddle.nn, name).forward.param_aliases == {"input": "x"}


def test_forward_aliases_give_the_positional_result():
    conv = paddle.nn.Conv2D(3, 2, 1)
    np.testing.assert_array_equal(conv(input=x).numpy(), conv(x).numpy())
    assert paddle.nn.ZeroPad2D(1)(input=x).shape == [2, 3, 4, 4]
    assert paddle.nn.Embedding(4, 2)(input=paddle.to_tensor([1, 2])).shape == [2, 2]
    dist = paddle.nn.PairwiseDistance()(x1=paddle.ones([2, 3]), x2=paddle.zeros([2, 3]))
    np.testing.assert_allclose(dist.numpy(), [1.7320524, 1.7320524], rtol=1e-6)   # Paddle
    loss = paddle.nn.SmoothL1Loss()
    assert loss(x, target=x * 0).item() == loss(x, x * 0).item()
    with pytest.raises(TypeError, match="got both 'input' and 'x'"):
        conv(input=x, x=x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'input'"):
        paddle.nn.Upsample(scale_factor=2)(input=x)        # no alias there, as in Paddle
