"""ops/nn_extras.py and nn/extra_layers.py against Paddle 3.3.1 (random dropouts: shapes,
eval mode and p = 0 only)."""
import numpy as np

_F = "nn.functional"
_x = A((2, 8, 4, 6))
cmp("logsigmoid", lambda P, x: P.nn.functional.logsigmoid(x), [A((3, 4))])
cmp("swiglu_split", lambda P, x: P.nn.functional.swiglu(x), [A((3, 8))])
cmp("swiglu_xy", lambda P, x, y: P.nn.functional.swiglu(x, y), [A((3, 4)), A((3, 4))])
cmp("pixel_unshuffle", lambda P, x: P.nn.functional.pixel_unshuffle(x, 2), [_x])
cmp("pixel_unshuffle_nhwc", lambda P, x: P.nn.functional.pixel_unshuffle(x, 2, data_format="NHWC"), [A((2, 4, 6, 3))])
cmp("channel_shuffle", lambda P, x: P.nn.functional.channel_shuffle(x, 4), [_x])
cmp("channel_shuffle_nhwc", lambda P, x: P.nn.functional.channel_shuffle(x, 2, data_format="NHWC"), [A((2, 3, 3, 6))])
cmp("zeropad2d", lambda P, x: P.nn.functional.zeropad2d(x, [1, 2, 0, 3]), [_x])
cmp("sequence_mask", lambda P, x: P.nn.functional.sequence_mask(x, 5), [np.array([[1, 3], [0, 5]])], grad=False)
cmp("sequence_mask_default", lambda P, x: P.nn.functional.sequence_mask(x, dtype="float32"), [np.array([2, 4, 1])], grad=False)
cmp("PixelUnshuffle", lambda P, x: P.nn.PixelUnshuffle(2)(x), [_x])
cmp("ChannelShuffle", lambda P, x: P.nn.ChannelShuffle(2)(x), [_x])
cmp("dropout2d_eval", lambda P, x: P.nn.functional.dropout2d(x, 0.5, training=False), [_x])
cmp("dropout3d_p0", lambda P, x: P.nn.functional.dropout3d(x, 0.0), [A((2, 3, 2, 2, 2))])
cmp("alpha_dropout_eval", lambda P, x: P.nn.functional.alpha_dropout(x, 0.3, training=False), [_x])
cmp("Dropout2D_eval", lambda P, x: (lambda m: (m.eval(), m(x))[1])(P.nn.Dropout2D(0.7)), [_x])
cmp("AlphaDropout_eval", lambda P, x: (lambda m: (m.eval(), m(x))[1])(P.nn.AlphaDropout(0.7)), [_x])
cmp("FeatureAlphaDropout_shape", lambda P, x: P.to_tensor(list(P.nn.FeatureAlphaDropout(0.5)(x).shape)), [_x], grad=False)
cmp("dice_loss", lambda P, x, l: P.nn.functional.dice_loss(x, l), [A((3, 4, 5), 0.1, 1.0), np.random.default_rng(3).integers(0, 5, (3, 4, 1))])
cmp("multi_margin_loss", lambda P, x, l: P.nn.functional.multi_margin_loss(x, l), [A((4, 5)), np.array([0, 3, 4, 1])])
cmp("multi_margin_loss_p2_w", lambda P, x, l, w: P.nn.functional.multi_margin_loss(x, l, p=2, margin=0.5, weight=w, reduction="none"), [A((4, 5)), np.array([0, 3, 4, 1]), A((5,), 0.5, 1.5)])
cmp("MultiMarginLoss_sum", lambda P, x, l: P.nn.MultiMarginLoss(reduction="sum")(x, l), [A((4, 5)), np.array([2, 3, 4, 1])])
cmp("npair_loss", lambda P, a, p, l: P.nn.functional.npair_loss(a, p, l), [A((4, 3)), A((4, 3)), np.array([0, 1, 0, 2], "float32")])
cmp("triplet_margin_with_distance_loss", lambda P, a, p, n: P.nn.functional.triplet_margin_with_distance_loss(a, p, n), [A((4, 3)), A((4, 3)), A((4, 3))])
cmp("triplet_margin_with_distance_loss_swap", lambda P, a, p, n: P.nn.functional.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: P.sum((x - y) ** 2, axis=1), swap=True, margin=0.5, reduction="none"), [A((4, 3)), A((4, 3)), A((4, 3))])
cmp("TripletMarginWithDistanceLoss", lambda P, a, p, n: P.nn.TripletMarginWithDistanceLoss(margin=2.0)(a, p, n), [A((4, 3)), A((4, 3)), A((4, 3))])
cmp("bilinear", lambda P, a, b, w, bias: P.nn.functional.bilinear(a, b, w, bias), [A((3, 4)), A((3, 2)), A((5, 4, 2)), A((1, 5))])
cmp("Bilinear", lambda P, a, b: (lambda m: (m.weight.set_value(np.linspace(-1, 1, 40).reshape(5, 4, 2).astype("float32")), m(a, b))[1])(P.nn.Bilinear(4, 2, 5)), [A((3, 4)), A((3, 2))])
cmp("Bilinear_params", lambda P: P.to_tensor([list(p.shape) for p in P.nn.Bilinear(4, 2, 5).parameters()][1]), [], grad=False)
cmp("dropout1d_eval", lambda P, x: P.nn.functional.dropout1d(x, 0.5, training=False), [A((2, 3, 4))])
cmp("dropout1d_p0_2d", lambda P, x: P.nn.functional.dropout1d(x, 0.0), [A((3, 4))])
cmp("rrelu_eval", lambda P, x: P.nn.functional.rrelu(x, 0.1, 0.3, training=False), [A((3, 4))])
cmp("RReLU_eval", lambda P, x: (lambda m: (m.eval(), m(x))[1])(P.nn.RReLU()), [A((3, 4))])
cmp("lp_pool2d", lambda P, x: P.nn.functional.lp_pool2d(x, 2, 2), [A((1, 2, 4, 4), 0.1, 2.0)])
cmp("lp_pool2d_p3_stride_pad", lambda P, x: P.nn.functional.lp_pool2d(x, 3, [2, 3], stride=1, padding=1), [A((1, 2, 4, 5), 0.1, 2.0)])
cmp("lp_pool2d_neg", lambda P, x: P.nn.functional.lp_pool2d(x, 2, 2), [A((1, 2, 4, 4))])
cmp("lp_pool1d", lambda P, x: P.nn.functional.lp_pool1d(x, 2, 3, stride=2), [A((2, 3, 7), 0.1, 2.0)])
cmp("LPPool2D", lambda P, x: P.nn.LPPool2D(4, 2)(x), [A((1, 2, 4, 4), 0.1, 2.0)])
cmp("LPPool1D_nlc", lambda P, x: P.nn.LPPool1D(2, 2, data_format="NLC")(x), [A((2, 6, 3), 0.1, 2.0)])
cmp("gumbel_softmax_shape", lambda P, x: P.to_tensor(list(P.nn.functional.gumbel_softmax(x, hard=True).shape) + [float(P.nn.functional.gumbel_softmax(x, hard=True).sum().item())]), [A((3, 5))], grad=False)
cmp("fold", lambda P, x: P.nn.functional.fold(x, [4, 5], 2), [A((2, 3 * 4, 12))])
cmp("fold_stride_pad_dil", lambda P, x: P.nn.functional.fold(x, [5, 6], [2, 3], strides=2, paddings=1, dilations=[1, 2]), [A((1, 2 * 6, 6))])
cmp("fold_unfold", lambda P, x: P.nn.functional.fold(P.nn.functional.unfold(x, 3, paddings=1), [4, 4], 3, paddings=1), [A((1, 2, 4, 4))])
cmp("Fold", lambda P, x: P.nn.Fold([3, 3], 2)(x), [A((1, 4 * 2, 4))])


def _unpool2(P, x):
    out, mask = P.nn.functional.max_pool2d(x, 2, return_mask=True)
    return P.nn.functional.max_unpool2d(out, mask, 2)


def _unpool1(P, x):
    out, mask = P.nn.functional.max_pool1d(x, 2, return_mask=True)
    return P.nn.functional.max_unpool1d(out, mask, 2)


cmp("max_unpool2d", _unpool2, [A((2, 3, 4, 6))])
cmp("max_unpool1d", _unpool1, [A((2, 3, 8))])
cmp("max_unpool2d_output_size", lambda P, x: (lambda o, m: P.nn.functional.max_unpool2d(o, m, 2, output_size=[5, 7]))(*P.nn.functional.max_pool2d(x, 2, return_mask=True)), [A((1, 2, 5, 7))])
cmp("MaxUnPool2D", lambda P, x: (lambda o, m: P.nn.MaxUnPool2D(2)(o, m))(*P.nn.functional.max_pool2d(x, 2, return_mask=True)), [A((1, 2, 4, 4))])
cmp("embedding_max_norm", lambda P, w: (lambda t: [P.nn.functional.embedding(P.to_tensor([[1, 3], [1, 0]]), t, max_norm=2.0, norm_type=1.0), t * 1.0])(w * 1.0), [A((4, 3))])
cmp("embedding_scale_grad_by_freq", lambda P, w: P.nn.functional.embedding(P.to_tensor([[1, 3], [1, 1]]), w, scale_grad_by_freq=True), [A((4, 3))])
