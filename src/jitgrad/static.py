"""paddle.static, as far as eager code uses it: InputSpec (to_static's input description)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .core import dtypes


class InputSpec:
    """The shape (None or -1 for a free dim), dtype and name of a model input."""

    def __init__(self, shape: Sequence[int | None], dtype: Any = "float32",
                 name: str | None = None, stop_gradient: bool = False) -> None:
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple, got {shape!r}")
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = dtypes.to_dtype(dtype)
        self.name, self.stop_gradient = name, stop_gradient

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> InputSpec:
        return cls(list(tensor.shape), tensor.dtype, name)

    @classmethod
    def from_numpy(cls, ndarray: np.ndarray, name: str | None = None) -> InputSpec:
        return cls(list(ndarray.shape), ndarray.dtype.name, name)

    def batch(self, batch_size: int) -> InputSpec:
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name, self.stop_gradient)

    def unbatch(self) -> InputSpec:
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the shape has no batch dim")
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def __repr__(self) -> str:
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, " \
               f"stop_gradient={self.stop_gradient})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputSpec) and (self.shape, self.dtype, self.name) == \
            (other.shape, other.dtype, other.name)

    __hash__ = None  # type: ignore[assignment]
