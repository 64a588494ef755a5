"""Paddle 3.3.1's less common manipulation and creation functions (block_diag, the *_scatter
family, index_put, unflatten, unique_consecutive, ...): composites of the moving
primitives already here (take_flat, put_flat, scatter_flat, reshape), so their gradients
come from those ops' rules. Each name a user can call is listed in NAMES (ops/__init__.py
exports them and binds them as Tensor methods)."""

from __future__ import annotations

NAMES: list[str] = []
