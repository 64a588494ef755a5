"""Paddle-style dtype objects and the promotion rules jitgrad follows.

Paddle compares dtypes by identity (`t.dtype == paddle.float32` is True, `== 'float32'` is
False), prints them as `paddle.float32` and reprs them as `<DataType.FLOAT32: 10>`; numpy
dtypes stay the storage truth.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """A named wrapper around a numpy dtype; one instance per dtype."""

    __slots__ = ("name", "np")

    def __init__(self, name: str, np_dtype: np.dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)

    def __repr__(self) -> str:
        """Paddle 3.3.1's repr, its DataType enum member (`print([t.dtype])` shows it)."""
        return f"<DataType.{self.name.upper()}: {_PADDLE_CODES.get(self.name, 0)}>"

    def __str__(self) -> str:
        return f"paddle.{self.name}"

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"


# Paddle 3.3.1's DataType numbers, for the repr
_PADDLE_CODES = {"bool": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 7, "int64": 9,
                 "float32": 10, "float64": 11, "float16": 15}

float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)

_BY_NP = {d.np: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)}
_BY_NAME = {d.name: d for d in _BY_NP.values()}
_BY_NAME["bool_"] = bool_

_default_dtype = float32

_NP_F16, _NP_F32 = np.dtype(np.float16), np.dtype(np.float32)


def to_dtype_array(value: Any, dt: np.dtype) -> np.ndarray:
    """value (a number or an array) as an array of dtype dt, converted as Paddle 3.3.1
    converts: its float16 is made from a float32 (phi's float16(double) casts to float
    first), so a float64 or a Python float reaches float16 through float32, rounding twice
    (1 + 2**-11 + 2**-30 is 1.0 in Paddle; numpy's direct rounding gives 1.000977)."""
    a = np.asarray(value)
    if dt == _NP_F16 and a.dtype != _NP_F16 and a.dtype.kind in "fiu":
        return a.astype(_NP_F32).astype(_NP_F16)
    return np.array(a, dtype=dt)


def number_operand(dt: np.dtype, v: Any) -> Any:
    """A Python or numpy number v meeting a tensor of dtype dt in a comparison: for float16,
    the number as a float16 made through float32, as Paddle 3.3.1 fills it (numpy would
    compare in float64 with np.float64 and round a Python float directly); else v."""
    if dt == _NP_F16 and isinstance(v, (int, float, np.integer, np.floating)) and \
            not isinstance(v, (bool, np.bool_)):
        return to_dtype_array(v, dt)
    return v


def get_default_dtype() -> str:
    return _default_dtype.name


def set_default_dtype(d: str | DType) -> None:
    global _default_dtype
    dt = to_dtype(d)
    if not dt.is_floating:
        raise TypeError(f"set_default_dtype only supports float dtypes, got {dt.name}")
    _default_dtype = dt


def default_float() -> DType:
    return _default_dtype


def to_dtype(d: object) -> DType:
    """Accept a DType, a name like 'float32', a numpy dtype or a numpy scalar type."""
    if isinstance(d, DType):
        return d
    if isinstance(d, str):
        name = d.replace("paddle.", "")
        if name in _BY_NAME:
            return _BY_NAME[name]
        raise TypeError(f"unknown dtype {d!r}; expected one of {sorted(_BY_NAME)}")
    try:
        return _BY_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"unsupported dtype {d!r}") from None


def from_numpy(np_dtype: np.dtype) -> DType:
    return to_dtype(np_dtype)


_F32 = np.dtype(np.float32)


def result_dtype(a: np.dtype, b: np.dtype, true_divide: bool = False) -> np.dtype:
    """Promotion between two tensors, as Paddle does it.

    float32 with float64 gives float64; an int tensor with a float tensor is refused (Paddle
    does not promote int and float between tensors), and so are two different int or bool
    dtypes (int32 with int64: Paddle 3.3.1 promotes between floats only); int / int gives
    float32 (whatever the default dtype, as 3.3.1).
    """
    fa, fb = a.kind == "f", b.kind == "f"
    if fa != fb:
        raise TypeError(
            f"cannot combine tensors of dtype {a} and {b}: cast one with .astype() first "
            "(jitgrad, like Paddle, does not promote between int and float tensors)"
        )
    if not fa and a != b:
        raise TypeError(
            f"cannot combine tensors of dtype {a} and {b}: cast one with .astype('{b}') "
            "first (jitgrad, like Paddle, promotes between float dtypes only)")
    if true_divide and not fa:
        return _F32             # (Paddle 3.3.1: float32 whatever the default dtype)
    return np.promote_types(a, b)


def check_combinable(a: np.ndarray, b: np.ndarray) -> None:
    """Refuse two tensors' values that Paddle 3.3.1 will not compare or combine: different
    dtypes, not both floats (result_dtype's errors); a 0-d side counts as a number."""
    if a.dtype != b.dtype and a.ndim and b.ndim:
        result_dtype(a.dtype, b.dtype)


def scalar_result_dtype(t: np.dtype, scalar: object, true_divide: bool = False) -> np.dtype:
    """Promotion of a tensor with a Python scalar: the tensor's dtype wins, except that an
    int tensor with a float scalar (or under true division) becomes float32 (Paddle 3.3.1,
    whatever the default dtype), and a bool one with an int int64; a bool tensor with a
    bool stays bool (b + True is a logical or, b * True an and, as Paddle). A numpy float
    scalar of any width counts as a float (np.float64 is a Python float already): Paddle
    3.3.1 truncates np.float32(1.5) to the int tensor's dtype (`x_i64 + np.float32(1.5)`
    is 2, `x_i64 / np.float32(1.5)` divides by 1) and ors it into a bool one."""
    if t.kind in "iub":
        if isinstance(scalar, (float, np.floating)) or true_divide:
            return _F32
        if t.kind == "b" and not isinstance(scalar, (bool, np.bool_)):
            return np.dtype(np.int64)
    return t
