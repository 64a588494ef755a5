"""Layers that hold one nn.functional call's arguments: activations, losses, 1-D and
adaptive pools.

Each is made by `_functional` from the function and the names of its positional
parameters, so the layer and the function cannot disagree.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..core.tensor import Tensor
from . import functional as F
from .layer import Layer


def _functional(name: str, fn: Any, params: Sequence[str] = (), strict: bool = True) -> type:
    """A layer holding fn's keyword arguments (`params` may come by position), called on any
    number of tensors. strict: more positional arguments than params raise TypeError (the
    older activation and loss layers, made with strict=False, ignore them)."""
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Layer.__init__(self)
        kwargs.pop("name", None)
        if strict and len(args) > len(params):
            raise TypeError(f"{name} takes at most {len(params)} positional arguments "
                            f"({', '.join(params)}), got {len(args)}")
        self._kw = dict(zip(params, args), **kwargs)

    def forward(self, *inputs: Any) -> Tensor:
        return fn(*inputs, **self._kw)

    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "__doc__": f"Layer form of nn.functional.{fn.__name__}."})


def _lenient(name: str, fn: Any, params: Sequence[str] = ()) -> type:
    """The activation and loss layers that predate strict: unchanged, they ignore surplus
    positional arguments."""
    return _functional(name, fn, params, strict=False)


ReLU = _lenient("ReLU", F.relu)
ReLU6 = _lenient("ReLU6", F.relu6)
LeakyReLU = _lenient("LeakyReLU", F.leaky_relu, ["negative_slope"])
ELU = _lenient("ELU", F.elu, ["alpha"])
SELU = _lenient("SELU", F.selu, ["scale", "alpha"])
GELU = _lenient("GELU", F.gelu, ["approximate"])
SiLU = _lenient("SiLU", F.silu)
Swish = SiLU
Sigmoid = _lenient("Sigmoid", F.sigmoid)
Tanh = _lenient("Tanh", F.tanh)
Softplus = _lenient("Softplus", F.softplus, ["beta", "threshold"])
Softsign = _lenient("Softsign", F.softsign)
Hardtanh = _lenient("Hardtanh", F.hardtanh, ["min", "max"])
Hardsigmoid = _lenient("Hardsigmoid", F.hardsigmoid)
Hardswish = _lenient("Hardswish", F.hardswish)
Mish = _lenient("Mish", F.mish)
Softmax = _lenient("Softmax", F.softmax, ["axis"])
LogSoftmax = _lenient("LogSoftmax", F.log_softmax, ["axis"])


MSELoss = _lenient("MSELoss", F.mse_loss, ["reduction"])
L1Loss = _lenient("L1Loss", F.l1_loss, ["reduction"])
SmoothL1Loss = _lenient("SmoothL1Loss", F.smooth_l1_loss, ["reduction", "delta"])
CrossEntropyLoss = _lenient("CrossEntropyLoss", F.cross_entropy,
                         ["weight", "ignore_index", "reduction", "soft_label", "axis",
                          "use_softmax", "label_smoothing"])
NLLLoss = _lenient("NLLLoss", F.nll_loss, ["weight", "ignore_index", "reduction"])
BCELoss = _lenient("BCELoss", F.binary_cross_entropy, ["weight", "reduction"])
BCEWithLogitsLoss = _lenient("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits,
                          ["weight", "reduction", "pos_weight"])
KLDivLoss = _lenient("KLDivLoss", F.kl_div, ["reduction", "log_target"])


Hardshrink = _functional("Hardshrink", F.hardshrink, ["threshold"])
Softshrink = _functional("Softshrink", F.softshrink, ["threshold"])
CELU = _functional("CELU", F.celu, ["alpha"])
ThresholdedReLU = _functional("ThresholdedReLU", F.thresholded_relu, ["threshold", "value"])
GLU = _functional("GLU", F.glu, ["axis"])
LogSigmoid = _functional("LogSigmoid", F.log_sigmoid)
Tanhshrink = _functional("Tanhshrink", F.tanhshrink)
MarginRankingLoss = _functional("MarginRankingLoss", F.margin_ranking_loss,
                                ["margin", "reduction"])
HingeEmbeddingLoss = _functional("HingeEmbeddingLoss", F.hinge_embedding_loss,
                                 ["margin", "reduction"])
SoftMarginLoss = _functional("SoftMarginLoss", F.soft_margin_loss, ["reduction"])
PoissonNLLLoss = _functional("PoissonNLLLoss", F.poisson_nll_loss,
                             ["log_input", "full", "epsilon", "reduction"])
GaussianNLLLoss = _functional("GaussianNLLLoss", F.gaussian_nll_loss,
                              ["full", "epsilon", "reduction"])
CosineEmbeddingLoss = _functional("CosineEmbeddingLoss", F.cosine_embedding_loss,
                                  ["margin", "reduction"])
TripletMarginLoss = _functional("TripletMarginLoss", F.triplet_margin_loss,
                                ["margin", "p", "epsilon", "swap", "reduction"])
MultiLabelSoftMarginLoss = _functional("MultiLabelSoftMarginLoss",
                                       F.multi_label_soft_margin_loss, ["weight", "reduction"])
PairwiseDistance = _functional("PairwiseDistance", F.pairwise_distance,
                               ["p", "epsilon", "keepdim"])
CosineSimilarity = _functional("CosineSimilarity", F.cosine_similarity, ["axis", "eps"])

MaxPool1D = _functional("MaxPool1D", F.max_pool1d,
                        ["kernel_size", "stride", "padding", "return_mask", "ceil_mode"])
AvgPool1D = _functional("AvgPool1D", F.avg_pool1d,
                        ["kernel_size", "stride", "padding", "exclusive", "ceil_mode"])
AdaptiveMaxPool2D = _functional("AdaptiveMaxPool2D", F.adaptive_max_pool2d,
                                ["output_size", "return_mask"])
AdaptiveMaxPool1D = _functional("AdaptiveMaxPool1D", F.adaptive_max_pool1d,
                                ["output_size", "return_mask"])
AdaptiveAvgPool1D = _functional("AdaptiveAvgPool1D", F.adaptive_avg_pool1d, ["output_size"])
