"""Layers on [N, C, D, H, W] input (NCDHW or NDHWC): Conv3D, MaxPool3D, AvgPool3D,
BatchNorm3D and InstanceNorm3D (layers.py's norms), and SyncBatchNorm, batch norm under
Paddle's multi-device name."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor
from ..ops.padding import pad
from ..ops.conv3d import (adaptive_avg_pool3d, adaptive_max_pool3d, avg_pool3d, conv3d,
                          conv3d_transpose, max_pool3d)
from .layer import Layer
from ..core.places import to_place
from .layer_repr import pool_repr
from .layers import BatchNorm2D, _BatchNorm, _ConvNd, _ConvTransposeNd, _InstanceNorm


class Conv3D(_ConvNd):
    """Weights [out_channels, in_channels / groups, kd, kh, kw]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 padding_mode: str = "zeros", weight_attr: Any = None, bias_attr: Any = None,
                 data_format: str = "NCDHW", *, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        to_place(device, "Conv3D")
        bias_attr = False if bias is False else bias_attr     # (Paddle 3.3.1's bias=False)
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, weight_attr, bias_attr, data_format, padding_mode)
        if dtype is not None:             # (Paddle 3.3.1's keyword: the parameters' dtype)
            self.to(dtype=dtype)

    def forward(self, x: Tensor) -> Tensor:
        if self._pad is not None:
            x = pad(x, self._pad, mode=self._padding_mode, data_format=self._args["data_format"])
        return conv3d(x, self.weight, self.bias, **self._args)


class Conv3DTranspose(_ConvTransposeNd):
    """Weights [in_channels, out_channels / groups, kd, kh, kw]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW"
                 ) -> None:
        super().__init__(3, in_channels, out_channels, kernel_size,
                         dict(stride=stride, padding=padding, output_padding=output_padding,
                              dilation=dilation, groups=groups, data_format=data_format),
                         weight_attr, bias_attr)
        self._conv = conv3d_transpose


class MaxPool3D(Layer):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 return_mask: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                        return_mask=return_mask, ceil_mode=ceil_mode, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        return max_pool3d(x, **self._kw)

    def extra_repr(self) -> str:
        return pool_repr(self._kw["kernel_size"], self._kw["stride"], self._kw["padding"])


class AvgPool3D(Layer):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, exclusive: bool = True, divisor_override: Any = None,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__()
        self._kw = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                        ceil_mode=ceil_mode, exclusive=exclusive,
                        divisor_override=divisor_override, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        return avg_pool3d(x, **self._kw)

    def extra_repr(self) -> str:
        return pool_repr(self._kw["kernel_size"], self._kw["stride"], self._kw["padding"])


class BatchNorm3D(_BatchNorm):
    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 use_global_stats: bool | None = None, name: str | None = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class InstanceNorm3D(_InstanceNorm):
    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class SyncBatchNorm(BatchNorm2D):
    """Batch norm whose statistics Paddle gathers across devices; jitgrad runs one process,
    where that is plain batch norm over the input's N and spatial dims."""

    def forward(self, x: Tensor) -> Tensor:       # Paddle's name here is x (BatchNorm2D's: input)
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """The layer with its batch norms as SyncBatchNorm (same parameters and buffers)."""
        if isinstance(layer, _BatchNorm) and not isinstance(layer, SyncBatchNorm):
            layer.__class__ = SyncBatchNorm
        for sub in layer.sublayers():
            if isinstance(sub, _BatchNorm) and not isinstance(sub, SyncBatchNorm):
                sub.__class__ = SyncBatchNorm
        return layer


class AdaptiveAvgPool3D(Layer):
    def __init__(self, output_size: Any, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__()
        self._size, self._format = output_size, data_format

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_avg_pool3d(x, self._size, self._format)

    def extra_repr(self) -> str:
        return f"output_size={self._size}"


class AdaptiveMaxPool3D(Layer):
    def __init__(self, output_size: Any, return_mask: bool = False,
                 name: str | None = None) -> None:
        super().__init__()
        self._size, self._mask = output_size, return_mask

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_max_pool3d(x, self._size, self._mask)

    def extra_repr(self) -> str:
        return f"output_size={self._size}, return_mask={self._mask}"
