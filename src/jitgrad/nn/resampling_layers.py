"""Layer forms of padding, resampling and reshaping functionals (Pad1D/2D/3D and their
Constant / Zero / Reflection / Replication / Circular forms, Upsample, PixelShuffle, Unfold,
Unflatten, Maxout), GroupNorm, and Paddle 3.3.1's torch-style aliases (Conv2d, ModuleList,
Silu ...). Each holds its arguments and calls one nn.functional function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.dtypes import get_default_dtype
from ..core.tensor import Tensor
from . import functional as F
from .initializer import Constant
from .layer import Layer
from ..core.places import to_place
from .layer_repr import name_suffix

_DIMS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def _padding(padding: Any, dims: int) -> list[int]:
    """An int pads every side; else 2 * dims ints (last dim's left and right first)."""
    if isinstance(padding, Tensor):
        padding = padding._data.tolist()
    if isinstance(padding, (int, np.integer)):
        return [int(padding)] * (2 * dims)
    padding = [int(p) for p in padding]
    if len(padding) != 2 * dims:
        raise ValueError(f"padding must be an int or {2 * dims} ints, got {padding}")
    return padding


def _pad_layer(name: str, dims: int, mode: str | None) -> type:
    """Pad{dims}D (mode and value arguments), or its fixed-mode form."""
    def __init__(self, padding: Any, *args: Any, data_format: str = _DIMS[dims],
                 name: str | None = None, **kwargs: Any) -> None:
        Layer.__init__(self)
        if mode is None:                        # Pad2D(padding, mode, value, data_format)
            opts = dict(zip(("mode", "value", "data_format"), args), **kwargs)
            self._mode = opts.get("mode", "constant")
            self._value_arg = opts.get("value", 0.0)
            data_format = opts.get("data_format", data_format)
        elif mode == "constant":                # ConstantPad2D(padding, value, data_format)
            opts = dict(zip(("value", "data_format"), args), **kwargs)
            if "value" not in opts:
                raise TypeError(f"{type(self).__name__} needs the fill value")
            self._mode, self._value_arg = "constant", opts["value"]
            data_format = opts.get("data_format", data_format)
        else:                                   # ZeroPad2D, ReflectionPad2D ...: (padding,
            opts = dict(zip(("data_format",), args), **kwargs)      # data_format)
            data_format = opts.get("data_format", data_format)
            self._mode, self._value_arg = ("constant" if mode == "zeros" else mode), 0.0
        self._value = float(self._value_arg)   # (the value as given: for the repr, as Paddle)
        self._padding = _padding(padding, dims)
        self._data_format, self._name = data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return F.pad(x, self._padding, mode=self._mode, value=self._value,
                     data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"padding={self._padding}, mode={self._mode}, value={self._value_arg}, " \
               f"data_format={self._data_format}{name_suffix(self._name)}"

    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr,
                                 "__doc__": f"nn.functional.pad as a layer ({dims}-D)."})


_PADS: dict[str, type] = {}
for _d in (1, 2, 3):
    _PADS[f"Pad{_d}D"] = _pad_layer(f"Pad{_d}D", _d, None)
    for _kind, _mode in (("Zero", "zeros"), ("Constant", "constant"), ("Reflection", "reflect"),
                         ("Replication", "replicate"), ("Circular", "circular")):
        _PADS[f"{_kind}Pad{_d}D"] = _PADS[f"{_kind}Pad{_d}d"] = \
            _pad_layer(f"{_kind}Pad{_d}D", _d, _mode)


class Upsample(Layer):
    """nn.functional.interpolate as a layer."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
                 recompute_scale_factor: bool | None = None, name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(size=size, scale_factor=scale_factor, mode=mode,
                        align_corners=align_corners, align_mode=align_mode,
                        recompute_scale_factor=recompute_scale_factor)
        self._data_format, self._name = data_format, name

    def forward(self, x: Tensor) -> Tensor:
        fmt = self._data_format or {3: "NCW", 4: "NCHW", 5: "NCDHW"}.get(x.ndim, "NCHW")
        return F.interpolate(x, data_format=fmt, **self._kw)

    def _size_repr(self) -> str:
        """Paddle's: the scale factor if given, else the size."""
        if self._kw["scale_factor"] is not None:
            return f"scale_factor={self._kw['scale_factor']}"
        return f"size={self._kw['size']}"

    def extra_repr(self) -> str:
        k = self._kw
        return f"{self._size_repr()}, mode={k['mode'].lower()}, " \
               f"align_corners={k['align_corners']}, align_mode={k['align_mode']}, " \
               f"data_format={self._data_format}{name_suffix(self._name)}"


class _Upsampling2D(Upsample):
    """UpsamplingNearest2D / UpsamplingBilinear2D: an int size means [size, size] (as
    Paddle stores it); the repr shows the size or scale and data_format."""

    def extra_repr(self) -> str:
        return f"{self._size_repr()}, data_format={self._data_format}" \
               f"{name_suffix(self._name)}"


class UpsamplingNearest2D(_Upsampling2D):
    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        if isinstance(size, int):
            size = [size, size]
        super().__init__(size, scale_factor, "nearest", data_format=data_format, name=name)


class UpsamplingBilinear2D(_Upsampling2D):
    """Bilinear with align_corners=True, as Paddle's."""

    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        if isinstance(size, int):
            size = [size, size]
        super().__init__(size, scale_factor, "bilinear", align_corners=True,
                         data_format=data_format, name=name)


class PixelShuffle(Layer):
    def __init__(self, upscale_factor: int, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self._factor, self._data_format, self._name = upscale_factor, data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return F.pixel_shuffle(x, self._factor, self._data_format)

    def extra_repr(self) -> str:
        s = f"upscale_factor={self._factor}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        return s if self._name is None else s + f", name={self._name}"


class Unfold(Layer):
    """nn.functional.unfold (im2col) as a layer."""

    def __init__(self, kernel_sizes: Any, dilations: Any = 1, paddings: Any = 0,
                 strides: Any = 1, name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(kernel_sizes=kernel_sizes, dilations=dilations, paddings=paddings,
                        strides=strides)
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, **self._kw)

    def extra_repr(self) -> str:
        k = self._kw
        return f"kernel_size={k['kernel_sizes']}, dilation={k['dilations']}, " \
               f"padding={k['paddings']}, stride={k['strides']}{name_suffix(self._name)}"


class Unflatten(Layer):
    """Splits axis into `shape`."""

    def __init__(self, axis: int, shape: Any, name: str | None = None) -> None:
        super().__init__()
        self._axis, self._shape, self._name = axis, shape, name

    def forward(self, input: Tensor) -> Tensor:
        from ..ops.more_manipulation import unflatten
        return unflatten(input, self._axis, self._shape)

    def extra_repr(self) -> str:
        return f"axis={self._axis}, shape={self._shape}{name_suffix(self._name)}"


class Maxout(Layer):
    def __init__(self, groups: int, axis: int = 1, name: str | None = None) -> None:
        super().__init__()
        self._groups, self._axis, self._name = groups, axis, name

    def forward(self, x: Tensor) -> Tensor:
        return F.maxout(x, self._groups, self._axis)

    def extra_repr(self) -> str:
        return f"groups={self._groups}, axis={self._axis}{name_suffix(self._name)}"


class GroupNorm(Layer):
    """nn.functional.group_norm with a learned per-channel scale (ones) and shift (zeros);
    weight_attr / bias_attr False, or affine=False, leave them out."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05, *,
                 affine: bool = True, device: Any = None, dtype: Any = None,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        to_place(device, "GroupNorm")
        super().__init__(dtype=get_default_dtype() if dtype is None else dtype)
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be a positive "
                             f"multiple of num_groups ({num_groups})")
        self._num_groups, self._epsilon, self._data_format = num_groups, epsilon, data_format
        self._num_channels = num_channels
        self.weight = None if weight_attr is False or not affine else self.create_parameter(
            [num_channels], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False or not affine else self.create_parameter(
            [num_channels], attr=bias_attr, is_bias=True)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self) -> str:
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, " \
               f"epsilon={self._epsilon}"


NAMES = {**_PADS, "Upsample": Upsample, "UpsamplingNearest2D": UpsamplingNearest2D,
         "UpsamplingBilinear2D": UpsamplingBilinear2D, "PixelShuffle": PixelShuffle,
         "Unfold": Unfold, "Unflatten": Unflatten, "Maxout": Maxout, "GroupNorm": GroupNorm}
