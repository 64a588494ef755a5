"""Paddle's `paddle.nn.functional`: activations, losses, dropout, linear, padding."""

from ..ops import log_softmax, relu, sigmoid, tanh
from ..ops.nn import softmax     # (axis -1 by default; paddle.softmax: softmax_compat)
from ..ops.activation import (celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish,
                              hardtanh, leaky_relu, log_sigmoid, maxout, mish, prelu, relu6, selu,
                              silu, softplus, softshrink, softsign, swish, tanhshrink,
                              thresholded_relu)
from ..ops.conv import conv1d, conv1d_transpose, conv2d, conv2d_transpose
from ..ops.conv3d import (adaptive_avg_pool3d, adaptive_max_pool3d, avg_pool3d, conv3d,
                          conv3d_transpose, max_pool3d)
from ..ops.pool import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d,
                        adaptive_max_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d)
from ..ops.resample import interpolate, pixel_shuffle, unfold, upsample
from ..ops.norm import batch_norm, group_norm, instance_norm, layer_norm
from ..ops.linear_embedding import dropout, embedding, linear, one_hot
from ..ops.indexing import pad
from ..ops.loss import (binary_cross_entropy, binary_cross_entropy_with_logits,
                        cosine_similarity, cross_entropy, kl_div, l1_loss, mse_loss, nll_loss,
                        normalize, smooth_l1_loss, square_error_cost)
from ..ops.margin_losses import (cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss,
                                 label_smooth, log_loss, margin_ranking_loss,
                                 multi_label_soft_margin_loss, pairwise_distance,
                                 poisson_nll_loss, sigmoid_focal_loss, soft_margin_loss,
                                 triplet_margin_loss)

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "pad",
           "elu", "gelu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "log_sigmoid",
           "mish", "relu6", "selu", "silu", "softplus", "softsign", "swish", "tanhshrink",
           "dropout", "embedding", "linear", "one_hot",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_similarity",
           "cross_entropy", "kl_div", "l1_loss", "mse_loss", "nll_loss", "normalize",
           "smooth_l1_loss", "square_error_cost",
           "adaptive_avg_pool2d", "avg_pool2d", "conv1d", "conv2d", "max_pool2d",
           "batch_norm", "group_norm", "layer_norm",
           "interpolate", "pixel_shuffle", "unfold", "upsample",
           "celu", "glu", "hardshrink", "prelu", "softshrink", "thresholded_relu",
           "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "label_smooth",
           "log_loss", "margin_ranking_loss", "multi_label_soft_margin_loss",
           "pairwise_distance", "poisson_nll_loss", "sigmoid_focal_loss", "soft_margin_loss",
           "triplet_margin_loss",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "avg_pool1d",
           "conv1d_transpose", "conv2d_transpose", "max_pool1d", "instance_norm"]

from ..ops.inplace import _method as _inplace  # noqa: E402

# in-place forms (Paddle 3.3.1's nn.functional.relu_ ...): the ops' rules for in-place
# writes, see ops/inplace.py
relu_, elu_, leaky_relu_, hardtanh_, softmax_, tanh_, thresholded_relu_ = (
    _inplace(fn, name) for fn, name in (
        (relu, "relu_"), (elu, "elu_"), (leaky_relu, "leaky_relu_"), (hardtanh, "hardtanh_"),
        (softmax, "softmax_"), (tanh, "tanh_"), (thresholded_relu, "thresholded_relu_")))
__all__ += ["maxout", "relu_", "elu_", "leaky_relu_", "hardtanh_", "softmax_", "tanh_",
            "thresholded_relu_"]
_silu, _silu_inplace = silu, _inplace(silu, "silu_")


def silu(x, inplace: bool = False, name=None):  # noqa: F811
    """x * sigmoid(x); inplace=True writes it into x (Paddle 3.x's argument)."""
    return _silu_inplace(x) if inplace else _silu(x)

from ..ops.core import check_tensor_args as _check_tensor_args  # noqa: E402
for _name in __all__:                    # TypeError naming the argument for a non-Tensor
    globals()[_name] = _check_tensor_args(globals()[_name])

from ..ops.attention import scaled_dot_product_attention  # noqa: E402
scaled_dot_product_attention = _check_tensor_args(scaled_dot_product_attention)
__all__ += ["scaled_dot_product_attention"]
from ..ops import grid_sample as _grid_sample  # noqa: E402
from ..ops import losses_extra as _losses_extra, nn_extras as _nn_extras  # noqa: E402
from ..ops import losses_sampled as _losses_sampled, losses_seq as _losses_seq  # noqa: E402
from ..ops import pool_fractional as _pool_fractional  # noqa: E402
for _extra in (_nn_extras, _losses_extra, _grid_sample, _losses_seq, _losses_sampled,
               _pool_fractional):
    globals().update({_n: getattr(_extra, _n) for _n in _extra.NAMES})
    __all__ += _extra.NAMES
__all__ += ["conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
            "adaptive_max_pool3d"]
from ..ops.softmax_ce import softmax_with_cross_entropy  # noqa: E402
from ..ops.assemble import diag_embed  # noqa: E402  (Paddle 3.3.1 has it here too)
softmax_with_cross_entropy = _check_tensor_args(softmax_with_cross_entropy)
__all__ += ["softmax_with_cross_entropy", "diag_embed"]
from ..ops import pdist  # noqa: E402,F401  (Paddle 3.3.1: here and at the top)
from ..ops.linear_embedding import embedding_renorm_  # noqa: E402,F401

from ..core.namespace import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr('jitgrad.nn.functional', 'nn.functional')   # a missing name says what Paddle has
