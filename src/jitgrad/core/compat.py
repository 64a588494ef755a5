"""Paddle's device and mode switches, for scripts that call them before any math.

jitgrad runs eagerly on the CPU only: `set_device('cpu')` and `disable_static()` are
accepted no-ops, another device raises instead of silently running somewhere unexpected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import DType, to_dtype
from .places import CPU_PLACE, CPUPlace, Place, to_place
from .tensor import Tensor

dtype = DType                       # isinstance(t.dtype, paddle.dtype)


def set_device(device: Any) -> Place:
    """Paddle's global device: only the CPU (places.py reads `device` with set_device's
    rules: 'cpu' in any case and spacing, None, 0, a CPU place); returns its place."""
    place = to_place(device, "set_device", set_device=True)
    return CPUPlace() if place is CPU_PLACE else place


def get_device(input: Any = None) -> str | int:
    """'cpu', the only device; for a Tensor, its device index as Paddle gives it for a
    tensor on the CPU: -1."""
    return -1 if isinstance(input, Tensor) else "cpu"


def in_dynamic_mode() -> bool:
    return True


def disable_static(place: Any = None) -> None:
    """Eager (dynamic) mode is the only mode: nothing to switch."""


def enable_static() -> None:
    raise NotImplementedError("jitgrad has no static-graph mode; it records eagerly and "
                              "lowers each backward to a compiled program by itself")


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _tensor_arg(x: Any, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'x' must be a Tensor, got {type(x).__name__}")
    return x


def is_floating_point(x: Tensor) -> bool:
    return _tensor_arg(x, "is_floating_point").is_floating_point()


def is_complex(x: Tensor) -> bool:
    """False: jitgrad has no complex dtypes."""
    return _tensor_arg(x, "is_complex")._data.dtype.kind == "c"


def is_integer(x: Tensor) -> bool:
    return _tensor_arg(x, "is_integer")._data.dtype.kind in "iu"


def is_empty(x: Tensor, name: str | None = None) -> Tensor:
    """A 0-d bool tensor: does x have no elements? (Paddle returns a tensor, not a bool.)"""
    return Tensor._make(np.array(_tensor_arg(x, "is_empty")._data.size == 0))


def tolist(x: Tensor) -> Any:
    return _tensor_arg(x, "tolist").tolist()


class _Info:
    """finfo / iinfo: numpy's numbers under Paddle's names."""

    def __init__(self, info: Any, names: tuple) -> None:
        self._names = names
        for n in names:
            v = getattr(info, n)
            setattr(self, n, v if isinstance(v, (int, str)) else
                    str(v) if n == "dtype" else float(v))

    def __repr__(self) -> str:
        kind = "finfo" if "eps" in self._names else "iinfo"
        parts = ", ".join(f"{n}={getattr(self, n):.6g}" if isinstance(getattr(self, n), float)
                          else f"{n}={getattr(self, n)}" for n in self._names)
        return f"paddle.{kind}({parts})"


def finfo(dtype: Any) -> _Info:
    """Machine limits of a float dtype: min, max, eps, resolution, smallest_normal, tiny,
    bits, dtype (Paddle's fields)."""
    d = to_dtype(dtype).np
    if d.kind != "f":
        raise TypeError(f"finfo: {d.name} is not a float dtype (use iinfo)")
    info = np.finfo(d)
    out = _Info(info, ("min", "max", "eps", "resolution", "smallest_normal", "tiny", "bits",
                       "dtype"))
    out.resolution = 10.0 ** -info.precision      # (numpy's is rounded to the dtype)
    out.dtype = d.name
    return out


def iinfo(dtype: Any) -> _Info:
    """Limits of an integer dtype: min, max, bits, dtype."""
    d = to_dtype(dtype).np
    if d.kind not in "iu":
        raise TypeError(f"iinfo: {d.name} is not an integer dtype (use finfo)")
    out = _Info(np.iinfo(d), ("min", "max", "bits", "dtype"))
    out.dtype = d.name
    return out
