"""Paddle's `paddle.nn.functional`: activations, losses, dropout, linear, padding."""

from ..ops import log_softmax, relu, sigmoid, softmax, tanh
from ..ops.activation import (elu, gelu, hardsigmoid, hardswish, hardtanh, leaky_relu,
                              log_sigmoid, mish, relu6, selu, silu, softplus, softsign, swish,
                              tanhshrink)
from ..ops.conv import adaptive_avg_pool2d, avg_pool2d, conv1d, conv2d, max_pool2d
from ..ops.resample import interpolate, pixel_shuffle, unfold, upsample
from ..ops.norm import batch_norm, group_norm, layer_norm
from ..ops.common import dropout, embedding, linear, one_hot
from ..ops.indexing import pad
from ..ops.loss import (binary_cross_entropy, binary_cross_entropy_with_logits,
                        cosine_similarity, cross_entropy, kl_div, l1_loss, mse_loss, nll_loss,
                        normalize, smooth_l1_loss, square_error_cost)

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "pad",
           "elu", "gelu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "log_sigmoid",
           "mish", "relu6", "selu", "silu", "softplus", "softsign", "swish", "tanhshrink",
           "dropout", "embedding", "linear", "one_hot",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_similarity",
           "cross_entropy", "kl_div", "l1_loss", "mse_loss", "nll_loss", "normalize",
           "smooth_l1_loss", "square_error_cost",
           "adaptive_avg_pool2d", "avg_pool2d", "conv1d", "conv2d", "max_pool2d",
           "batch_norm", "group_norm", "layer_norm",
           "interpolate", "pixel_shuffle", "unfold", "upsample"]

from ..ops.core import check_tensor_args as _check_tensor_args  # noqa: E402
for _name in __all__:                    # TypeError naming the argument for a non-Tensor
    globals()[_name] = _check_tensor_args(globals()[_name])
