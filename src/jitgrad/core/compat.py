"""Paddle's device and mode switches, for scripts that call them before any math.

jitgrad runs eagerly on the CPU only: `set_device('cpu')` and `disable_static()` are
accepted no-ops, anything else raises instead of silently running somewhere unexpected.
"""

from __future__ import annotations

from typing import Any

from .dtypes import DType
from .tensor import Tensor

dtype = DType                       # isinstance(t.dtype, paddle.dtype)


class CPUPlace:
    """The only place jitgrad computes on; `to_tensor(..., place=CPUPlace())` accepts it."""

    def __repr__(self) -> str:
        return "Place(cpu)"


def set_device(device: str) -> str:
    if not isinstance(device, str) or device.split(":")[0] != "cpu":
        raise ValueError(f"jitgrad runs on the CPU only; set_device({device!r}) is not "
                         "supported (use 'cpu')")
    return "cpu"


def get_device() -> str:
    return "cpu"


def in_dynamic_mode() -> bool:
    return True


def disable_static(place: Any = None) -> None:
    """Eager (dynamic) mode is the only mode: nothing to switch."""


def enable_static() -> None:
    raise NotImplementedError("jitgrad has no static-graph mode; it records eagerly and "
                              "lowers each backward to a compiled program by itself")


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def is_floating_point(x: Tensor) -> bool:
    if not isinstance(x, Tensor):
        raise TypeError(f"is_floating_point(): argument 'x' must be a Tensor, got "
                        f"{type(x).__name__}")
    return x.is_floating_point()
