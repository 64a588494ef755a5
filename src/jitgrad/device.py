"""paddle.device for a CPU-only library: one device, 'cpu'; the accelerator queries say no
and the CUDA helpers are the no-ops (or zeros) Paddle's CPU build gives."""

from __future__ import annotations

import types
from typing import Any

from .core.compat import get_device, set_device

__all__ = ["get_device", "set_device", "get_all_device_type", "get_available_device",
           "get_all_custom_device_type", "get_available_custom_device",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_distribute",
           "is_compiled_with_custom_device", "synchronize", "cuda"]


def get_all_device_type() -> list[str]:
    return ["cpu"]


def get_available_device() -> list[str]:
    return ["cpu"]


def get_all_custom_device_type() -> list[str]:
    return []


def get_available_custom_device() -> list[str]:
    return []


def _no(*args: Any, **kwargs: Any) -> bool:
    return False


is_compiled_with_cuda = is_compiled_with_rocm = is_compiled_with_xpu = _no
is_compiled_with_ipu = is_compiled_with_cinn = is_compiled_with_distribute = _no
is_compiled_with_custom_device = _no


def synchronize(device: Any = None) -> None:
    return None


cuda = types.SimpleNamespace(
    device_count=lambda: 0, is_available=lambda: False, synchronize=synchronize,
    empty_cache=lambda: None, current_device=lambda: None,
    max_memory_allocated=lambda device=None: 0, memory_allocated=lambda device=None: 0,
    max_memory_reserved=lambda device=None: 0, memory_reserved=lambda device=None: 0)
