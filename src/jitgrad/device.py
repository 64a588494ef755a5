"""paddle.device (and paddle.cuda) as Paddle 3.3.1's CPU build has them: one device, 'cpu';
no accelerator device types (get_all_device_type() is [] there: it lists GPU and custom
devices, not the CPU); the compiled-with queries say no, except distribute (Paddle's CPU
build has paddle.distributed, and so has jitgrad); the CUDA helpers give zeros or raise
as Paddle's do (perf/paddle_devices.py measures them; tests/test_devices.py pins them)."""

from __future__ import annotations

import types
from typing import Any

from .core.compat import get_device, set_device
from .core.places import Place, to_place

__all__ = ["get_device", "set_device", "get_all_device_type", "get_available_device",
           "get_all_custom_device_type", "get_available_custom_device",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_distribute",
           "is_compiled_with_custom_device", "is_available", "device_count", "synchronize",
           "get_cudnn_version", "device", "cuda", "device_guard"]


def get_all_device_type() -> list[str]:
    return []


def get_available_device() -> list[str]:
    return []


def get_all_custom_device_type() -> list[str]:
    return []


def get_available_custom_device() -> list[str]:
    return []


def _no(*args: Any, **kwargs: Any) -> bool:
    return False


is_compiled_with_cuda = is_compiled_with_rocm = is_compiled_with_xpu = _no
is_compiled_with_ipu = is_compiled_with_cinn = is_compiled_with_custom_device = _no
is_available = _no                          # (an accelerator: none)


def is_compiled_with_distribute() -> bool:
    return True


def device_count() -> int:
    """How many accelerators: none."""
    return 0


def synchronize(device: Any = None) -> None:
    """Refused as by Paddle 3.3.1's CPU build (TypeError): there is no accelerator stream to
    wait for; jitgrad's CPU ops are done when they return."""
    raise TypeError(f"synchronize({'' if device is None else repr(device)}): device should be "
                    "a gpu or xpu device and jitgrad runs on the CPU only, where there is "
                    "nothing to wait for (remove the call)")


def get_cudnn_version() -> None:
    """No cuDNN: None (as Paddle's CPU build)."""
    return None


class device:                                       # noqa: N801  (Paddle's name)
    """`with paddle.device.device('cpu'):` selects a device for the block; only the CPU,
    read with set_device's rules (core/places.py), so the block changes nothing."""

    def __init__(self, device: Any = None) -> None:
        self.place: Place = to_place(device, "paddle.device.device", set_device=True)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class device_guard:                                 # noqa: N801  (Paddle's name)
    """`with paddle.device_guard('cpu'):` (Paddle 3.3.1: paddle.device.device_guard): the
    device is a str or a place, read as the other device readers read one ('CPU' is the CPU,
    ' cpu ', 'cpu:0' and 'gpu' raise ValueError); None or an int raise ValueError too, as
    Paddle's. Only the CPU, so the block changes nothing."""

    def __init__(self, device: Any) -> None:
        if not isinstance(device, (str, Place)):
            raise ValueError(f"device_guard: 'device' must be a string or a place such as "
                             f"paddle.CPUPlace(), but got {type(device)}")
        self.place: Place = to_place(device, "paddle.device_guard")

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class Device(str):
    """What paddle.get_default_device() returns: a str naming the device ('cpu'), with
    Paddle's .type ('cpu') and .index (None)."""

    @property
    def type(self) -> str:
        return str(self).partition(":")[0]

    @property
    def index(self) -> int | None:
        return None


def get_default_device() -> Device:
    """The default device: 'cpu' (jitgrad computes on the CPU only)."""
    return Device("cpu")


def _cuda_synchronize(device: Any = None) -> None:
    raise RuntimeError("paddle.device.cuda.synchronize(): jitgrad is not compiled with CUDA, "
                       "it runs on the CPU only (as Paddle's CPU build: RuntimeError)")


def _cuda_only(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"paddle.device.cuda.{name} is not supported on the CPU: jitgrad "
                         "runs on the CPU only (as Paddle's CPU-only build: ValueError)")
    refuse.__name__ = name
    return refuse


def _empty_cache() -> None:
    """Nothing cached on a device: a no-op (Paddle's CPU build too)."""


cuda = types.SimpleNamespace(
    device_count=device_count, synchronize=_cuda_synchronize, empty_cache=_empty_cache,
    **{name: _cuda_only(name) for name in (
        "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
        "reset_max_memory_allocated", "get_device_properties", "get_device_name",
        "get_device_capability")})

# paddle.cuda (torch-style): its CPU build's answers for the calls a device check makes
cuda_module = types.SimpleNamespace(
    is_available=is_available, device_count=device_count, current_device=lambda: 0,
    synchronize=synchronize, device=device)
