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
