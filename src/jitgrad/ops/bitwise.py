"""Bitwise not and shifts on integer (and, for not, bool) tensors: no gradient.

Paddle's shifts are arithmetic by default; `is_arithmetic=False` shifts right as if the bits
were unsigned (a negative int8 -8 >> 1 is 124), and shifting left is the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..core.torch_kwargs import out_param
from .core import binary_operands

NAMES = ["bitwise_not", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift"]

_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def _integers(x: Tensor, what: str, bools: bool) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    d = x._data
    if d.dtype.kind not in ("iub" if bools else "iu"):
        raise TypeError(f"{what} needs an integer{' or bool' if bools else ''} tensor, got "
                        f"{x.dtype.name}")
    return d


def bitwise_not(x: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """~x: every bit flipped (logical not for bool)."""
    r = Tensor._make(np.invert(_integers(x, "bitwise_not", True)))
    return out_param("bitwise_not", out, r)


bitwise_invert = bitwise_not


def _shift_operands(x: Any, y: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = binary_operands(x, y)
    a, b = _integers(x, what, False), _integers(y, what, False)
    if (b < 0).any():
        raise ValueError(f"{what}: shift counts must not be negative")
    return a, b.astype(a.dtype)


def bitwise_left_shift(x: Any, y: Any, is_arithmetic: bool = True, out: Any = None,
                       name: str | None = None) -> Tensor:
    a, b = _shift_operands(x, y, "bitwise_left_shift")
    return out_param("bitwise_left_shift", out, Tensor._make(np.left_shift(a, b)))


def bitwise_right_shift(x: Any, y: Any, is_arithmetic: bool = True, out: Any = None,
                        name: str | None = None) -> Tensor:
    a, b = _shift_operands(x, y, "bitwise_right_shift")
    if is_arithmetic or a.dtype.kind == "u":
        r = np.right_shift(a, b)
    else:
        u = _UNSIGNED[a.dtype]
        r = np.right_shift(a.view(u), b.astype(u)).view(a.dtype)
    return out_param("bitwise_right_shift", out, Tensor._make(r))
