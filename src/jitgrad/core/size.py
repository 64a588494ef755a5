"""`Tensor.shape`'s type."""

from __future__ import annotations

from typing import Any


class Size(list):
    """`Tensor.shape`: a list (Paddle 3.3's `paddle.Size`) that also equals the same tuple.

    Prints as Paddle does (`paddle.Size([2, 3])`); `shape == [2, 3]` and `== (2, 3)` hold.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return list.__eq__(self, list(other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]  (a list: mutable, unhashable)

    def __add__(self, other: Any) -> Size:
        return Size(list(self) + list(other))

    def __repr__(self) -> str:
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__


class TensorSize(int):
    """`Tensor.size`: the number of elements (an int, as in Paddle 2.x) that is also
    callable as Paddle 3.3.1's TensorSize is, torch-style: `x.size()` is the shape
    (paddle.Size), `x.size(d)` / `x.size(dim=d)` its dim d (negative from the end).

    Made on each read of `x.size` (~0.12 us more than a plain int); it keeps the shape
    tuple, not the tensor. Arithmetic on it gives plain ints; it pickles as one.
    """

    def __call__(self, dim: Any = None) -> Any:
        shape = self._shape     # type: ignore[attr-defined]  (set by Tensor.size)
        if dim is None:
            return Size(shape)
        if not hasattr(type(dim), "__index__"):
            raise TypeError(f"size(dim): dim must be an int, got {type(dim).__name__}")
        d = dim.__index__()
        if not -len(shape) <= d < len(shape):
            raise IndexError(f"size(dim): dim {d} is out of range for a tensor of "
                             f"{len(shape)} dims (shape {list(shape)})")
        return shape[d]

    def __reduce__(self) -> tuple:
        return int, (int(self),)
