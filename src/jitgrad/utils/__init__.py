"""Paddle's `paddle.utils` pieces that model code uses: `unique_name`."""

from . import unique_name

__all__ = ["unique_name"]
