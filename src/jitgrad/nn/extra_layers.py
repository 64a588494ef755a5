"""Layer forms of ops/nn_extras.py's functions (Paddle 3.3.1's names and arguments)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..core.tensor import Tensor
from ..ops import losses_extra as LX
from ..ops import nn_extras as X
from ..core.dtypes import get_default_dtype
from .layer import Layer
from .layer_repr import name_suffix, pool_repr


def _format_suffix(data_format: str, name: Any) -> str:
    """Paddle's vision layers: data_format when not NCHW, then name when given."""
    s = "" if data_format == "NCHW" else f", data_format={data_format}"
    return s if name is None else s + f", name={name}"


class PixelUnshuffle(Layer):
    def __init__(self, downscale_factor: int, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self._factor, self._format, self._name = downscale_factor, data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return X.pixel_unshuffle(x, self._factor, self._format)

    def extra_repr(self) -> str:
        return f"downscale_factor={self._factor}{_format_suffix(self._format, self._name)}"


class ChannelShuffle(Layer):
    def __init__(self, groups: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._groups, self._format, self._name = groups, data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return X.channel_shuffle(x, self._groups, self._format)

    def extra_repr(self) -> str:
        return f"groups={self._groups}{_format_suffix(self._format, self._name)}"


class _Dropout(Layer):
    """Holds p (and data_format); active in training mode only."""

    fn = staticmethod(X.dropout2d)
    default_format: str | None = "NCHW"

    def __init__(self, p: float = 0.5, data_format: str | None = None,
                 name: str | None = None) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p}")
        self.p, self._format = p, data_format or self.default_format
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        if self._format is None:
            return self.fn(input, self.p, training=self.training)
        return self.fn(input, self.p, training=self.training, data_format=self._format)

    def extra_repr(self) -> str:
        fmt = "" if self._format is None else f", data_format={self._format}"
        return f"p={self.p}{fmt}{name_suffix(self._name)}"


class Dropout2D(_Dropout):
    pass


class Dropout3D(_Dropout):
    fn = staticmethod(X.dropout3d)
    default_format = "NCDHW"


class AlphaDropout(_Dropout):
    fn = staticmethod(X.alpha_dropout)
    default_format = None

    def __init__(self, p: float = 0.5, name: str | None = None) -> None:
        super().__init__(p, name=name)


class FeatureAlphaDropout(AlphaDropout):
    fn = staticmethod(X.feature_alpha_dropout)


class Bilinear(Layer):
    """out = x1 @ weight[o] @ x2 + bias: weight [out, in1, in2] (Xavier uniform), bias
    [1, out] (zeros), as Paddle's."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 weight_attr: Any = None, bias_attr: Any = None, name: str | None = None
                 ) -> None:
        super().__init__(dtype=get_default_dtype())     # the default dtype, as Paddle
        self._sizes, self._name = (in1_features, in2_features, out_features), name
        self._repr_dtype = get_default_dtype()      # what Paddle prints as its dtype
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([1, out_features], bias_attr, is_bias=True)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return LX.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        in1, in2, out = self._sizes
        return f"in1_features={in1}, in2_features={in2}, out_features={out}, " \
               f"dtype={self._repr_dtype}{name_suffix(self._name)}"


class MultiMarginLoss(Layer):
    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(p=p, margin=margin, weight=weight, reduction=reduction)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return LX.multi_margin_loss(input, label, **self._kw)


class TripletMarginWithDistanceLoss(Layer):
    def __init__(self, distance_function: Callable | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(distance_function=distance_function, margin=margin, swap=swap,
                        reduction=reduction)

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return LX.triplet_margin_with_distance_loss(input, positive, negative, **self._kw)


class RReLU(Layer):
    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
                 name: str | None = None) -> None:
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x: Tensor) -> Tensor:
        return X.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self) -> str:
        return f"lower={self._lower}, upper={self._upper}, training={self.training}, " \
               f"dtype={self._dtype}{name_suffix(self._name)}"


def _lp_layer(name: str, fn: Callable, fmt: str) -> type:
    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, ceil_mode: bool = False, data_format: str = fmt,
                 name: str | None = None) -> None:
        Layer.__init__(self)
        self._args = (norm_type, kernel_size, stride, padding, ceil_mode, data_format)

    def forward(self, x: Tensor) -> Tensor:
        return fn(x, *self._args)

    def extra_repr(self) -> str:
        # Paddle's: norm_type as a float; LPPool2D shows a stride of None as kernel_size
        norm_type, kernel_size, stride, padding = self._args[:4]
        if stride is None and fmt != "NCL":
            stride = kernel_size
        return f"norm_type={float(norm_type)}, " + pool_repr(kernel_size, stride, padding)
    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr})


LPPool1D = _lp_layer("LPPool1D", X.lp_pool1d, "NCL")
LPPool2D = _lp_layer("LPPool2D", X.lp_pool2d, "NCHW")


class Fold(Layer):
    def __init__(self, output_sizes: Any, kernel_sizes: Any, dilations: Any = 1,
                 paddings: Any = 0, strides: Any = 1, name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(output_sizes=output_sizes, kernel_sizes=kernel_sizes,
                        dilations=dilations, paddings=paddings, strides=strides)
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        return X.fold(input, **self._kw)

    def extra_repr(self) -> str:
        k = self._kw
        return f"kernel_size={k['kernel_sizes']}, dilation={k['dilations']}, " \
               f"padding={k['paddings']}, stride={k['strides']}{name_suffix(self._name)}"


def _unpool_layer(name: str, fn: Callable, fmt: str) -> type:
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 data_format: str = fmt, output_size: Any = None,
                 name: str | None = None) -> None:
        Layer.__init__(self)
        self._kw = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                        data_format=data_format, output_size=output_size)

    def forward(self, x: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        """output_size, when given, replaces the constructor's (Paddle warns then)."""
        if not output_size:
            return fn(x, indices, **self._kw)
        warnings.warn("output_size in forward overrides output_size in __init__. "
                      "The output_size parameter in forward has higher priority.", stacklevel=2)
        return fn(x, indices, **dict(self._kw, output_size=output_size))

    def extra_repr(self) -> str:
        return f"output_size={self._kw['output_size']}"
    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr})


MaxUnPool1D = _unpool_layer("MaxUnPool1D", X.max_unpool1d, "NCL")
MaxUnPool2D = _unpool_layer("MaxUnPool2D", X.max_unpool2d, "NCHW")
MaxUnPool3D = _unpool_layer("MaxUnPool3D", X.max_unpool3d, "NCDHW")


class LocalResponseNorm(Layer):
    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._args = (size, alpha, beta, k, data_format)
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        return X.local_response_norm(input, *self._args)

    def extra_repr(self) -> str:
        size, alpha, beta, k, data_format = self._args
        return f"size={size}, alpha={alpha}, beta={beta}, k={k}" + \
            _format_suffix(data_format, self._name)


NAMES = {"LocalResponseNorm": LocalResponseNorm, "MaxUnPool1D": MaxUnPool1D,
         "MaxUnPool2D": MaxUnPool2D, "MaxUnPool3D": MaxUnPool3D,
         "Fold": Fold, "RReLU": RReLU, "LPPool1D": LPPool1D, "LPPool2D": LPPool2D,
         "LPPool1d": LPPool1D, "LPPool2d": LPPool2D, "Bilinear": Bilinear,
         "MultiMarginLoss": MultiMarginLoss,
         "TripletMarginWithDistanceLoss": TripletMarginWithDistanceLoss,
         "PixelUnshuffle": PixelUnshuffle, "ChannelShuffle": ChannelShuffle,
         "Dropout2D": Dropout2D, "Dropout3D": Dropout3D, "AlphaDropout": AlphaDropout,
         "FeatureAlphaDropout": FeatureAlphaDropout}
