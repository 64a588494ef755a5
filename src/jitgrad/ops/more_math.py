"""Paddle 3.3.1's math functions that numeric code reaches for less often (copysign, sgn,
ldexp, vecdot, baddbmm, pdist, histogram, ...): composites of the ops already here, so
their gradients come from those ops' rules. Each name a user can call is listed in NAMES
(ops/__init__.py exports them and binds them as Tensor methods)."""

from __future__ import annotations

NAMES: list[str] = []
