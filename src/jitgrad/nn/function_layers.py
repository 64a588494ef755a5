"""Layers that hold one nn.functional call's arguments: activations, losses, 1-D and
adaptive pools.

Each is made by `_functional` from the function and the names of its positional
parameters, so the layer and the function cannot disagree.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence, Union

from ..core.tensor import Tensor
from . import functional as F
from .layer import Layer
from .layer_repr import name_suffix, pool_repr

# extra_repr of a _functional layer (repr_fmt): a format string over its arguments (Paddle's
# defaults filled in), followed by Paddle's ', name=...' when a name was given; or a function
# of the arguments (name included); None: the empty repr of Paddle's loss layers.
_Repr = Union[str, Callable[[dict], str], None]


def _forward(name: str, fn: Any, inputs: Sequence[str]) -> Callable:
    """forward(self, <inputs>) -> fn(<inputs>, **self._kw): the tensors by position or by
    Paddle's names (`inputs`), which inspect.signature reports."""
    sig = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                             for n in ("self", *inputs)])
    call = f"{name}.forward({', '.join(inputs)})"

    def forward(self, *args: Any, **kwargs: Any) -> Tensor:
        if kwargs or len(args) != len(inputs):
            unknown = [k for k in kwargs if k not in inputs]
            if unknown:
                raise TypeError(f"{call} got an unexpected keyword argument {unknown[0]!r}")
            try:
                args = sig.bind(self, *args, **kwargs).args[1:]
            except TypeError as e:
                raise TypeError(f"{call}: {e}") from None
        return fn(*args, **self._kw)

    forward.__signature__ = sig
    return forward


def _functional(name: str, fn: Any, params: Sequence[str] = (), strict: bool = True,
                repr_fmt: _Repr = None, defaults: dict | None = None,
                inputs: Sequence[str] = ("x",)) -> type:
    """A layer holding fn's keyword arguments (`params` may come by position), called on the
    tensors named `inputs` (Paddle's forward parameters). strict: more positional arguments
    than params raise TypeError (the older activation and loss layers, made with
    strict=False, ignore them). repr_fmt and defaults give its extra_repr, as Paddle prints
    the layer."""
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Layer.__init__(self)
        self._name = kwargs.pop("name", None)
        if strict and len(args) > len(params):
            raise TypeError(f"{name} takes at most {len(params)} positional arguments "
                            f"({', '.join(params)}), got {len(args)}")
        self._kw = dict(zip(params, args), **kwargs)

    def extra_repr(self) -> str:
        args = {**(defaults or {}), **self._kw}
        if repr_fmt is None:
            return ""
        if callable(repr_fmt):
            return repr_fmt(dict(args, name=self._name))
        s = repr_fmt.format(**args)
        return s + name_suffix(self._name, first=not s)

    return type(name, (Layer,), {"__init__": __init__, "forward": _forward(name, fn, inputs),
                                 "extra_repr": extra_repr,
                                 "__doc__": f"Layer form of nn.functional.{fn.__name__}."})


def _lenient(name: str, fn: Any, params: Sequence[str] = (), repr_fmt: _Repr = None,
             defaults: dict | None = None, inputs: Sequence[str] = ("x",)) -> type:
    """The activation and loss layers that predate strict: unchanged, they ignore surplus
    positional arguments."""
    return _functional(name, fn, params, False, repr_fmt, defaults, inputs)


def _activation(name: str, fn: Any, **defaults: Any) -> type:
    """An activation layer whose arguments (in Paddle's order, with Paddle's defaults) print
    as 'arg=value, ...' (lenient: surplus positional arguments are ignored)."""
    fmt = ", ".join(f"{k}={{{k}}}" for k in defaults)
    return _lenient(name, fn, list(defaults), fmt, defaults)


class Silu(Layer):
    """Paddle 3.3.1's nn.Silu (nn.SiLU is the same class): silu(x); `inplace` is kept for
    the repr, the result is a new tensor here."""

    def __init__(self, inplace: bool = False, name: str | None = None) -> None:
        super().__init__()
        self._inplace, self._name = inplace, name

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x)

    def extra_repr(self) -> str:
        return f"inplace={self._inplace}{name_suffix(self._name)}"


ReLU = _activation("ReLU", F.relu)
ReLU6 = _activation("ReLU6", F.relu6)
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, negative_slope=0.01)
ELU = _activation("ELU", F.elu, alpha=1.0)
SELU = _lenient("SELU", F.selu, ["scale", "alpha"], "scale={scale:.16f}, alpha={alpha:.16f}",
                dict(scale=1.0507009873554805, alpha=1.6732632423543772))
GELU = _activation("GELU", F.gelu, approximate=False)
SiLU = Silu
Swish = _activation("Swish", F.silu)
Sigmoid = _activation("Sigmoid", F.sigmoid)
Tanh = _activation("Tanh", F.tanh)
Softplus = _activation("Softplus", F.softplus, beta=1, threshold=20)
Softsign = _activation("Softsign", F.softsign)
Hardtanh = _activation("Hardtanh", F.hardtanh, min=-1.0, max=1.0)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid)
Hardswish = _activation("Hardswish", F.hardswish)
Mish = _activation("Mish", F.mish)
Softmax = _activation("Softmax", F.softmax, axis=-1)
LogSoftmax = _activation("LogSoftmax", F.log_softmax, axis=-1)


_IL = ("input", "label")  # most loss layers: forward(input, label)
MSELoss = _lenient("MSELoss", F.mse_loss, ["reduction"], inputs=_IL)
L1Loss = _lenient("L1Loss", F.l1_loss, ["reduction"], inputs=_IL)
SmoothL1Loss = _lenient("SmoothL1Loss", F.smooth_l1_loss, ["reduction", "delta", "is_huber"],
                        inputs=_IL)
CrossEntropyLoss = _lenient("CrossEntropyLoss", F.cross_entropy,
                         ["weight", "ignore_index", "reduction", "soft_label", "axis",
                          "use_softmax", "label_smoothing"], inputs=_IL)
NLLLoss = _lenient("NLLLoss", F.nll_loss, ["weight", "ignore_index", "reduction"],
                   inputs=_IL)
BCELoss = _lenient("BCELoss", F.binary_cross_entropy, ["weight", "reduction"], inputs=_IL)
BCEWithLogitsLoss = _lenient("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits,
                          ["weight", "reduction", "pos_weight"], inputs=("logit", "label"))
KLDivLoss = _lenient("KLDivLoss", F.kl_div, ["reduction", "log_target"], inputs=_IL)


def _strict_activation(name: str, fn: Any, **defaults: Any) -> type:
    """_activation, but more positional arguments than it has raise TypeError."""
    fmt = ", ".join(f"{k}={{{k}}}" for k in defaults)
    return _functional(name, fn, list(defaults), True, fmt, defaults)


Hardshrink = _strict_activation("Hardshrink", F.hardshrink, threshold=0.5)
Softshrink = _strict_activation("Softshrink", F.softshrink, threshold=0.5)
CELU = _strict_activation("CELU", F.celu, alpha=1.0)
ThresholdedReLU = _strict_activation("ThresholdedReLU", F.thresholded_relu, threshold=1.0,
                                     value=0.0)
GLU = _strict_activation("GLU", F.glu, axis=-1)
LogSigmoid = _strict_activation("LogSigmoid", F.log_sigmoid)
Tanhshrink = _strict_activation("Tanhshrink", F.tanhshrink)
MarginRankingLoss = _functional("MarginRankingLoss", F.margin_ranking_loss,
                                ["margin", "reduction"], inputs=("input", "other", "label"))
HingeEmbeddingLoss = _functional("HingeEmbeddingLoss", F.hinge_embedding_loss,
                                 ["margin", "reduction"], inputs=_IL)
SoftMarginLoss = _functional("SoftMarginLoss", F.soft_margin_loss, ["reduction"],
                             inputs=_IL)
PoissonNLLLoss = _functional("PoissonNLLLoss", F.poisson_nll_loss,
                             ["log_input", "full", "epsilon", "reduction"], inputs=_IL)
GaussianNLLLoss = _functional("GaussianNLLLoss", F.gaussian_nll_loss,
                              ["full", "epsilon", "reduction"],
                              inputs=("input", "label", "variance"))
CosineEmbeddingLoss = _functional("CosineEmbeddingLoss", F.cosine_embedding_loss,
                                  ["margin", "reduction"], inputs=("input1", "input2", "label"))
TripletMarginLoss = _functional("TripletMarginLoss", F.triplet_margin_loss,
                                ["margin", "p", "epsilon", "swap", "reduction"],
                                inputs=("input", "positive", "negative"))
MultiLabelSoftMarginLoss = _functional("MultiLabelSoftMarginLoss",
                                       F.multi_label_soft_margin_loss, ["weight", "reduction"],
                                       inputs=_IL)


def _pairwise_repr(a: dict) -> str:
    """Paddle's PairwiseDistance.extra_repr: p, then epsilon and keepdim when not default."""
    s = f"p={a['p']}"
    if a["epsilon"] != 1e-6:
        s += f", epsilon={a['epsilon']}"
    if a["keepdim"] is not False:
        s += f", keepdim={a['keepdim']}"
    return s if a["name"] is None else s + f", name={a['name']}"


def _pool_repr(a: dict) -> str:
    return pool_repr(a["kernel_size"], a.get("stride"), a.get("padding", 0))


PairwiseDistance = _functional("PairwiseDistance", F.pairwise_distance,
                               ["p", "epsilon", "keepdim"], repr_fmt=_pairwise_repr,
                               defaults=dict(p=2.0, epsilon=1e-6, keepdim=False), inputs=("x", "y"))
CosineSimilarity = _functional("CosineSimilarity", F.cosine_similarity, ["axis", "eps"],
                               repr_fmt=lambda a: f"axis={a['axis']}, eps={a['eps']}",
                               defaults=dict(axis=1, eps=1e-8), inputs=("x1", "x2"))

MaxPool1D = _functional("MaxPool1D", F.max_pool1d,
                        ["kernel_size", "stride", "padding", "return_mask", "ceil_mode"],
                        repr_fmt=_pool_repr, inputs=("input",))
AvgPool1D = _functional("AvgPool1D", F.avg_pool1d,
                        ["kernel_size", "stride", "padding", "exclusive", "ceil_mode"],
                        repr_fmt=_pool_repr)
_ADAPTIVE_MAX = "output_size={output_size}, return_mask={return_mask}"
AdaptiveMaxPool2D = _functional("AdaptiveMaxPool2D", F.adaptive_max_pool2d,
                                ["output_size", "return_mask"],
                                repr_fmt=lambda a: _ADAPTIVE_MAX.format(**a),
                                defaults=dict(return_mask=False))
AdaptiveMaxPool1D = _functional("AdaptiveMaxPool1D", F.adaptive_max_pool1d,
                                ["output_size", "return_mask"],
                                repr_fmt=lambda a: _ADAPTIVE_MAX.format(**a),
                                defaults=dict(return_mask=False), inputs=("input",))
AdaptiveAvgPool1D = _functional("AdaptiveAvgPool1D", F.adaptive_avg_pool1d, ["output_size"],
                                repr_fmt=lambda a: f"output_size={a['output_size']}",
                                inputs=("input",))
