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
