"""Common layers (paddle.nn names): thin Layer wrappers over nn.functional."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Iterable, Iterator

from ..core import dtypes
from ..core.dtypes import get_default_dtype
from ..ops.shape import flatten
from ..core.tensor import Tensor
from . import functional as F
from .initializer import Constant, Normal, ParamAttr, XavierUniform
from .layer import Layer
from ..core.places import to_place
from .layer_repr import conv_repr, name_suffix, pool_repr


class Linear(Layer):
    """y = x @ weight + bias, weight [in_features, out_features] (Paddle's layout)."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None,
                 bias_attr: Any = None, name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())     # the default dtype, as Paddle
        self.in_features, self.out_features = in_features, out_features
        self._name = name
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_features], bias_attr, is_bias=True)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, " \
               f"dtype={self._dtype}{name_suffix(self._name)}"


_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Layer):
    """padding_mode other than 'zeros' pads the input with F.pad (Paddle's order: last
    spatial dim first) and convolves with no padding, as Paddle's _ConvNd does."""

    def __init__(self, nd: int, in_channels: int, out_channels: int, kernel_size: Any,
                 stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 padding_mode: str = "zeros") -> None:
        super().__init__(dtype=get_default_dtype())
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"padding_mode must be one of {_PAD_MODES}, got "
                             f"{padding_mode!r}")
        self._padding_mode, self._pad = padding_mode, None
        self._repr_args = (in_channels, out_channels, kernel_size, nd, stride, padding,
                           dilation, groups, data_format, padding_mode)
        if padding_mode != "zeros":
            if isinstance(padding, int) and not isinstance(padding, bool):
                pads = [padding] * nd
            elif isinstance(padding, (list, tuple)) and len(padding) == nd and \
                    all(isinstance(v, int) for v in padding):
                pads = list(padding)
            else:
                raise ValueError(f"padding_mode={padding_mode!r} needs padding as an int or "
                                 f"{nd} ints, got {padding!r}")
            self._pad = [v for v in reversed(pads) for _ in range(2)]
            padding = 0
        k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
        if min(k, default=1) <= 0 or in_channels <= 0 or not groups > 0:
            # (a zero divided by zero below: ZeroDivisionError)
            raise ValueError(f"{type(self).__name__}: in_channels, kernel_size and groups must "
                             f"be positive, got {in_channels}, {kernel_size} and {groups}")
        fan_in = in_channels * math.prod(k)     # (all of in_channels, groups or not: Paddle's)
        self.weight = self.create_parameter([out_channels, in_channels // groups] + k,
                                            weight_attr,
                                            default_initializer=Normal(0, (2 / fan_in) ** 0.5))
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], bias_attr, is_bias=True)
        self._args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                          data_format=data_format)

    def extra_repr(self) -> str:
        return conv_repr(*self._repr_args)


class Conv2D(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 padding_mode: str = "zeros", weight_attr: Any = None, bias_attr: Any = None,
                 data_format: str = "NCHW", *, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        to_place(device, "Conv2D")
        bias_attr = False if bias is False else bias_attr     # (Paddle 3.3.1's bias=False)
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, weight_attr, bias_attr, data_format, padding_mode)
        if dtype is not None:             # (Paddle 3.3.1's keyword: the parameters' dtype)
            self.to(dtype=dtype)

    def forward(self, x: Tensor) -> Tensor:
        if self._pad is not None:
            x = F.pad(x, self._pad, mode=self._padding_mode,
                      data_format=self._args["data_format"])
        return F.conv2d(x, self.weight, self.bias, **self._args)


class Conv1D(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 padding_mode: str = "zeros", weight_attr: Any = None, bias_attr: Any = None,
                 data_format: str = "NCL", *, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        to_place(device, "Conv1D")
        bias_attr = False if bias is False else bias_attr     # (Paddle 3.3.1's bias=False)
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, weight_attr, bias_attr, data_format, padding_mode)
        if dtype is not None:             # (Paddle 3.3.1's keyword: the parameters' dtype)
            self.to(dtype=dtype)

    def forward(self, x: Tensor) -> Tensor:
        if self._pad is not None:
            x = F.pad(x, self._pad, mode=self._padding_mode,
                      data_format=self._args["data_format"])
        return F.conv1d(x, self.weight, self.bias, **self._args)


class _BatchNorm(Layer):
    # True (the old nn.BatchNorm's trainable_statistics): batch statistics in eval mode too
    _trainable_statistics = False

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 use_global_stats: bool | None = None, name: str | None = None, *,
                 _dtype: Any = None) -> None:
        # the default dtype, but float32 for float16 (Paddle 3.3.1 keeps batch-norm
        # parameters and statistics in float32 then); the old nn.BatchNorm passes its dtype
        dtype = get_default_dtype() if _dtype is None else dtypes.to_dtype(_dtype).name
        dtype = "float32" if dtype == "float16" else dtype
        super().__init__(dtype=dtype)
        # weight_attr / bias_attr False: no scale / shift (Paddle 3.3.1 makes no parameter)
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_features], weight_attr, dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else \
            self.create_parameter([num_features], bias_attr, dtype, is_bias=True)
        # The running statistics are parameters that are not trained, as in Paddle 3.3.1
        # (in parameters() and named_parameters(), trainable False, stop_gradient True, no
        # buffers), named <layer>.w_1 and .w_2
        self._mean, self._variance = (self.create_parameter(
            [num_features], ParamAttr(initializer=Constant(v), trainable=False), dtype)
            for v in (0., 1.))
        self._momentum, self._epsilon, self._format = momentum, epsilon, data_format
        self._use_global_stats = use_global_stats
        self._num_features, self._name = num_features, name

    def forward(self, input: Tensor) -> Tensor:
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                            training=self.training or self._trainable_statistics,
                            momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self) -> str:
        s = f"num_features={self._num_features}, momentum={self._momentum}, " \
            f"epsilon={self._epsilon}"
        if self._format != "NCHW":
            s += f", data_format={self._format}"
        return s if self._name is None else s + f", name={self._name}"


class BatchNorm1D(_BatchNorm):
    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 use_global_stats: bool | None = None, name: str | None = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNorm):
    pass


class BatchNorm(BatchNorm2D):
    """Paddle's older nn.BatchNorm, with its arguments and their order (num_channels, act,
    is_test, momentum, ...): batch norm as BatchNorm2D, then the activation `act` ('relu',
    'sigmoid', ... by name). is_test=True starts the layer in eval mode (Paddle 3.3.1 sets
    training = not is_test; train() / eval() decide afterwards) and use_global_stats=False
    follows the mode. trainable_statistics=True: eval
    mode normalizes with the batch's statistics and updates the running ones, as training
    does (Paddle 3.3.1's dygraph; use_global_stats=True still wins). It prints as
    `BatchNorm()`."""

    def __init__(self, num_channels: int, act: str | None = None, is_test: bool = False,
                 momentum: float = 0.9, epsilon: float = 1e-05, param_attr: Any = None,
                 bias_attr: Any = None, dtype: Any = "float32", data_layout: str = "NCHW",
                 in_place: bool = False, moving_mean_name: str | None = None,
                 moving_variance_name: str | None = None,
                 do_model_average_for_mean_and_var: bool = True,
                 use_global_stats: bool = False, trainable_statistics: bool = False) -> None:
        if act is not None and not callable(getattr(F, act, None)):
            raise ValueError(f"BatchNorm: unknown activation act={act!r}")
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         True if use_global_stats else None, _dtype=dtype)
        self._act, self._trainable_statistics = act, bool(trainable_statistics)
        self.training = not is_test

    def forward(self, input: Tensor) -> Tensor:
        y = super().forward(input)
        return y if self._act is None else getattr(F, self._act)(y)

    def extra_repr(self) -> str:
        return ""


class LayerNorm(Layer):
    def __init__(self, normalized_shape: Any, epsilon: float = 1e-05, weight_attr: Any = None,
                 bias_attr: Any = None, name: str | None = None, *,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        to_place(device, "LayerNorm")
        super().__init__(dtype=get_default_dtype() if dtype is None else dtype)
        if not elementwise_affine:          # (Paddle 3.3.1's keywords: no weight, no bias)
            weight_attr = bias_attr = False
        elif bias is False:
            bias_attr = False
        shape = [normalized_shape] if isinstance(normalized_shape, int) else \
            list(normalized_shape)
        self._shape, self._epsilon = shape, epsilon
        # one flat [prod(normalized_shape)] weight and bias, as Paddle's (so its state dicts
        # load), reshaped to normalized_shape in forward
        flat = [math.prod(shape)]
        self.weight = None if weight_attr is False else self.create_parameter(
            flat, weight_attr, self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else \
            self.create_parameter(flat, bias_attr, self._dtype, is_bias=True)

    def forward(self, input: Tensor) -> Tensor:
        w, b = self.weight, self.bias
        if len(self._shape) > 1:
            w = None if w is None else w.reshape(self._shape)
            b = None if b is None else b.reshape(self._shape)
        return F.layer_norm(input, self._shape, w, b, self._epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"


class Embedding(Layer):
    """Paddle 3.3.1's arguments (max_norm and norm_type by position, the rest by name)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, *,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Any = None,
                 _freeze: bool = False, device: Any = None, dtype: Any = None,
                 weight_attr: Any = None, name: str | None = None) -> None:
        to_place(device, "Embedding")
        super().__init__(dtype=get_default_dtype() if dtype is None else dtype)
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._padding_idx = padding_idx
        self._max_norm, self._norm_type = max_norm, norm_type
        self._scale_grad_by_freq = scale_grad_by_freq
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._sparse, self._name = sparse, name
        self.weight = self.create_parameter([num_embeddings, embedding_dim], weight_attr)
        if padding_idx is not None and -num_embeddings <= padding_idx < num_embeddings:
            # the padding row starts at zero (Paddle 3.3.1), so padding embeds to 0; its
            # gradient is masked, so it stays 0
            w = self.weight.numpy().copy()
            w[padding_idx] = 0
            self.weight.set_value(w)
        if _weight is not None:
            self.weight.set_value(_weight)
        if _freeze:
            self.weight.stop_gradient = True

    def forward(self, x: Any) -> Tensor:
        return F.embedding(x, self.weight, self._padding_idx, self._max_norm, self._norm_type,
                           scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self) -> str:
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        s += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        return s if self._name is None else s + f", name={self._name}"


class Dropout(Layer):
    """Paddle 3.3.1's arguments (inplace second)."""

    def __init__(self, p: float = 0.5, inplace: bool = False, axis: Any = None,
                 mode: str = "upscale_in_train", name: str | None = None) -> None:
        super().__init__()
        self.p, self.axis, self.mode, self.inplace = p, axis, mode, bool(inplace)
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.axis, self.training, self.inplace, self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name_suffix(self._name)}, " \
               f"inplace={self.inplace}"


class Flatten(Layer):
    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input: Tensor) -> Tensor:
        return flatten(input, self.start_axis, self.stop_axis)


class MaxPool2D(Layer):
    """Paddle 3.3.1's arguments (return_mask before ceil_mode)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 return_mask: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                          return_mask=return_mask, ceil_mode=ceil_mode,
                          data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, **self._args)

    def extra_repr(self) -> str:
        return pool_repr(self._args["kernel_size"], self._args["stride"], self._args["padding"])


class AvgPool2D(Layer):
    """Paddle 3.3.1's arguments (divisor_override before data_format)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, exclusive: bool = True,
                 divisor_override: float | None = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, exclusive=exclusive,
                          divisor_override=divisor_override, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, **self._args)

    def extra_repr(self) -> str:
        return pool_repr(self._args["kernel_size"], self._args["stride"], self._args["padding"])


class AdaptiveAvgPool2D(Layer):
    def __init__(self, output_size: Any, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self.output_size, self.data_format = output_size, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(x, self.output_size, self.data_format)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class Sequential(Layer):
    """Layers applied in order: Sequential(l1, l2), Sequential(('name', l1), ...) or
    Sequential(OrderedDict(name=layer)). As Paddle 3.3.1's, `del seq[i]` removes the
    sublayer named str(i) and does not renumber the others; insert renumbers."""

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], OrderedDict):
            pairs = list(layers[0].items())
        elif layers and isinstance(layers[0], (list, tuple)):
            pairs = [tuple(item) for item in layers]
        else:
            pairs = [(str(i), layer) for i, layer in enumerate(layers)]
        for name, layer in pairs:
            self.add_sublayer(name, layer)

    def forward(self, input: Any) -> Any:
        for layer in self._sub_layers.values():
            input = layer(input)
        return input

    def __getitem__(self, i: int | str | slice) -> Layer:
        """A sublayer by position or name; a slice is a new Sequential of those sublayers,
        numbered from 0 (Paddle 3.3.1)."""
        if isinstance(i, str):
            return self._sub_layers[i]
        if isinstance(i, slice):
            return Sequential(*list(self._sub_layers.values())[i])
        return list(self._sub_layers.values())[i]

    def __setitem__(self, name: int | str, layer: Layer) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential: a sublayer must be a Layer, got "
                            f"{type(layer).__name__}")
        setattr(self, str(name), layer)

    def __delitem__(self, name: int | str) -> None:
        if str(name) not in self._sub_layers:
            raise KeyError(f"Sequential has no sublayer named {str(name)!r} (del seq[i] "
                           f"takes a sublayer's name; it has {list(self._sub_layers)})")
        delattr(self, str(name))

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def append(self, module: Layer) -> Sequential:
        self.add_sublayer(str(len(self)), module)
        return self

    def insert(self, index: int, module: Layer) -> Sequential:
        """module at position index; the sublayers from there on are named str(position)
        (Paddle 3.3.1)."""
        if not isinstance(module, Layer):
            raise TypeError(f"Sequential.insert: module must be a Layer, got "
                            f"{type(module).__name__}")
        n = len(self._sub_layers)
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index!r} is out of range for {n} "
                             f"sublayers")
        index = index + n if index < 0 else index
        items = list(self._sub_layers.items())
        _rename(self, items[:index] + [(str(index), module)] +
                [(str(index + 1 + k), layer) for k, (_, layer) in enumerate(items[index:])])
        return self

    def extend(self, sequential: Iterable[Layer]) -> Sequential:
        for layer in sequential:
            self.append(layer)
        return self


def _rename(layer: Layer, pairs: list[tuple[str, Layer]]) -> None:
    """Make (name, sublayer) pairs the sublayers of layer, in that order."""
    for name in list(layer._sub_layers):
        delattr(layer, name)
    for name, sub in pairs:
        layer.add_sublayer(name, sub)


class LayerList(Layer):
    """Sublayers named '0', '1', ... in order (Paddle 3.3.1's methods: indexing and
    assignment with negative indices, del of an index or a slice, append, insert, extend,
    + and +=); every change renumbers them."""

    def __init__(self, sublayers: Iterable[Layer] | None = None) -> None:
        super().__init__()
        for layer in sublayers or []:
            self.append(layer)

    def _index(self, i: int) -> int:
        n = len(self._sub_layers)
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"LayerList indices must be integers or slices, got "
                            f"{type(i).__name__}")
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range, should be an integer in range "
                             f"[{-n}, {n})")
        return i + n if i < 0 else i

    def append(self, sublayer: Layer) -> LayerList:
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def pop(self, key: int | slice = -1) -> Layer:
        """Remove and return the sublayer at key (Paddle's: the rest are renumbered)."""
        value = self[key]
        del self[key]
        return value

    def insert(self, index: int, sublayer: Layer) -> None:
        n = len(self._sub_layers)
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"LayerList.insert: index should be an integer in range "
                             f"[{-n}, {n}], got {index!r}")
        layers = list(self._sub_layers.values())
        layers.insert(index + n if index < 0 else index, sublayer)
        _rename(self, [(str(k), layer) for k, layer in enumerate(layers)])

    def extend(self, sublayers: Iterable[Layer]) -> LayerList:
        for layer in list(sublayers):
            self.append(layer)
        return self

    def __getitem__(self, idx: int | slice) -> Layer:
        """A sublayer by position; a slice is a new LayerList, numbered from 0 (Paddle)."""
        if isinstance(idx, slice):
            return LayerList(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(self._index(idx))]

    def __setitem__(self, idx: int, sublayer: Layer) -> None:
        setattr(self, str(self._index(idx)), sublayer)

    def __delitem__(self, idx: int | slice) -> None:
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[self._index(idx)]
        _rename(self, [(str(k), layer) for k, layer in enumerate(layers)])

    def __iadd__(self, modules: Iterable[Layer]) -> LayerList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Layer]) -> LayerList:
        return LayerList(list(self) + list(other))

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def __len__(self) -> int:
        return len(self._sub_layers)


class Identity(Layer):
    """Returns its input (extra constructor arguments are ignored, as Paddle's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class PReLU(Layer):
    """prelu with a learnable slope: one shared (num_parameters=1) or one per channel,
    initialised to `init`."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr: Any = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())     # the default dtype, as Paddle
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or \
                num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive int, got "
                             f"{num_parameters!r}")
        # Paddle's name: `_weight` (the state dict key Paddle's checkpoints hold)
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=Constant(float(init)))
        self._data_format = data_format
        self._num_parameters, self._init, self._name = num_parameters, init, name

    @property
    def weight(self) -> Tensor:
        """The slope parameter (`_weight`, as Paddle names it)."""
        return self._weight

    def forward(self, x: Tensor) -> Tensor:
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, " \
               f"init={self._init}, dtype={self._dtype}{name_suffix(self._name)}"




class _InstanceNorm(Layer):
    """instance_norm with a learnable per-channel scale (named `scale`, as Paddle's) and bias;
    weight_attr / bias_attr False leave them out."""

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        self.scale = None if weight_attr is False else self.create_parameter(
            [num_features], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else \
            self.create_parameter([num_features], bias_attr, is_bias=True)
        self._epsilon, self._format = epsilon, data_format
        self._num_features = num_features

    def forward(self, input: Tensor) -> Tensor:
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._format)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNorm):
    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 name: str | None = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class InstanceNorm2D(_InstanceNorm):
    pass


class _ConvTransposeNd(Layer):
    """Weights [in_channels, out_channels / groups, *kernel], as Paddle's."""

    def __init__(self, nd: int, in_channels: int, out_channels: int, kernel_size: Any,
                 args: dict, weight_attr: Any, bias_attr: Any) -> None:
        super().__init__(dtype=get_default_dtype())
        groups = args["groups"]
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels {in_channels} and out_channels {out_channels} must "
                             f"both divide by groups {groups}")
        k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
        self.weight = self.create_parameter([in_channels, out_channels // groups] + k,
                                            weight_attr, default_initializer=XavierUniform())
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], bias_attr, is_bias=True)
        self._args = args
        self._conv = F.conv2d_transpose if nd == 2 else F.conv1d_transpose
        self._repr_args = (in_channels, out_channels, kernel_size, nd, args["stride"],
                           args["padding"], args["dilation"], groups, args["data_format"],
                           "zeros", args["output_padding"])

    def extra_repr(self) -> str:
        return conv_repr(*self._repr_args)

    def forward(self, x: Tensor, output_size: Any = None) -> Tensor:
        return self._conv(x, self.weight, self.bias, output_size=output_size, **self._args)


class Conv2DTranspose(_ConvTransposeNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW"
                 ) -> None:
        super().__init__(2, in_channels, out_channels, kernel_size,
                         dict(stride=stride, padding=padding, output_padding=output_padding,
                              dilation=dilation, groups=groups, data_format=data_format),
                         weight_attr, bias_attr)


class Conv1DTranspose(_ConvTransposeNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL"
                 ) -> None:
        super().__init__(1, in_channels, out_channels, kernel_size,
                         dict(stride=stride, padding=padding, output_padding=output_padding,
                              dilation=dilation, groups=groups, data_format=data_format),
                         weight_attr, bias_attr)
