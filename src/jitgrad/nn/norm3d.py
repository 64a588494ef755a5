"""BatchNorm3D, InstanceNorm3D and SyncBatchNorm: layers.py's batch and instance norms on
[N, C, D, H, W] input (NCDHW or NDHWC), and batch norm under Paddle's multi-device name."""

from __future__ import annotations

from typing import Any

from .layer import Layer
from .layers import BatchNorm2D, _BatchNorm, _InstanceNorm


class BatchNorm3D(_BatchNorm):
    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 use_global_stats: bool | None = None, name: str | None = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats)


class InstanceNorm3D(_InstanceNorm):
    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class SyncBatchNorm(BatchNorm2D):
    """Batch norm whose statistics Paddle gathers across devices; jitgrad runs one process,
    where that is plain batch norm over the input's N and spatial dims."""

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """The layer with its batch norms as SyncBatchNorm (same parameters and buffers)."""
        if isinstance(layer, _BatchNorm) and not isinstance(layer, SyncBatchNorm):
            layer.__class__ = SyncBatchNorm
        for sub in layer.sublayers():
            if isinstance(sub, _BatchNorm) and not isinstance(sub, SyncBatchNorm):
                sub.__class__ = SyncBatchNorm
        return layer
