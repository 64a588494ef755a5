"""Spatial transformer sampling (2-D): affine_grid builds normalised sampling coordinates
from [N, 2, 3] affine matrices, grid_sample reads x at them (bilinear or nearest, zeros /
border / reflection padding). Composites: the corner values are gathers of x, the
bilinear weights are differentiable in the grid, so gradients reach both x and the grid."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from .core import const, require_float
from .indexing import _take
from .linalg import matmul
from .shape import getitem, reshape, transpose

NAMES = ["affine_grid", "grid_sample"]


def _base(n: int, align_corners: bool) -> np.ndarray:
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta: Tensor, out_shape: Any, align_corners: bool = True,
                name: str | None = None) -> Tensor:
    """[N, H, W, 2] (x, y) coordinates: theta applied to the output pixels' normalised
    positions in [-1, 1] (pixel corners with align_corners, else pixel centres)."""
    require_float(theta, "affine_grid")
    shape = [int(v) for v in (out_shape._data.tolist() if isinstance(out_shape, Tensor)
                              else out_shape)]
    if theta.ndim != 3 or list(theta.shape[1:]) != [2, 3] or len(shape) != 4 or \
            shape[0] != theta.shape[0]:
        raise ValueError(f"affine_grid: theta must be [N, 2, 3] and out_shape [N, C, H, W], got "
                         f"{list(theta.shape)} and {shape}")
    N, _, H, W = shape
    xs, ys = np.meshgrid(_base(W, align_corners), _base(H, align_corners))
    base = np.stack([xs, ys, np.ones_like(xs)], axis=-1).reshape(1, H * W, 3)
    base = const(np.broadcast_to(base, (N, H * W, 3)), theta._data.dtype)
    return reshape(matmul(base, theta, transpose_y=True), [N, H, W, 2])


def _unnormalise(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(c: Tensor, size: int, align_corners: bool) -> Tensor:
    """Coordinates folded back into range by reflection at the edges (as Paddle / torch)."""
    lo, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
    if span <= 0:
        return c * 0.0
    d = c._data - lo
    flips = np.floor(np.abs(d) / span)
    extra = np.abs(d) - flips * span
    mirrored = np.where(flips % 2 == 0, lo + extra, lo + span - extra)
    sign = np.where(d < 0, -1.0, 1.0) * np.where(flips % 2 == 0, 1.0, -1.0)
    out = c * const(sign, c._data.dtype) + const(mirrored - sign * c._data, c._data.dtype)
    return E.clip(out, 0.0, size - 1.0)


def grid_sample(x: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None) -> Tensor:
    """out[n, c, h, w] = x[n, c] read at grid[n, h, w] = (x, y) in [-1, 1]."""
    require_float(x, "grid_sample")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or "
                         f"'reflection', got {padding_mode!r}")
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: x must be [N, C, H, W] and grid [N, Ho, Wo, 2], got "
                         f"{list(x.shape)} and {list(grid.shape)}")
    N, C, H, W = x.shape
    Ho, Wo = grid.shape[1:3]
    ix = _unnormalise(getitem(grid, (Ellipsis, 0)), W, align_corners)
    iy = _unnormalise(getitem(grid, (Ellipsis, 1)), H, align_corners)
    if padding_mode == "border":
        ix, iy = E.clip(ix, 0.0, W - 1.0), E.clip(iy, 0.0, H - 1.0)
    elif padding_mode == "reflection":
        ix, iy = _reflect(ix, W, align_corners), _reflect(iy, H, align_corners)
    flat = reshape(transpose(x, [0, 2, 3, 1]), [N * H * W, C])        # a row per pixel
    batch = (np.arange(N) * H * W).reshape(N, 1, 1)

    def corner(cx: np.ndarray, cy: np.ndarray) -> tuple[Tensor, np.ndarray]:
        """[N, Ho, Wo, C] values at integer corners (0 outside), and the inside mask."""
        inside = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
        rows = batch + np.clip(cy, 0, H - 1) * W + np.clip(cx, 0, W - 1)
        pos = rows[..., None] * C + np.arange(C)
        vals = _take(reshape(flat, [-1]), pos)
        # (a where, not a product with the mask: 0 outside, not -0.0 as Paddle gives)
        return E.where(np.broadcast_to(inside[..., None], vals._data.shape), vals,
                       const(np.zeros((), x._data.dtype), x._data.dtype)), inside

    if mode == "nearest":
        cx = np.rint(ix._data).astype(np.int64)     # (halves to even, as Paddle's nearbyint)
        cy = np.rint(iy._data).astype(np.int64)
        out = corner(cx, cy)[0]
    else:
        x0 = np.floor(ix._data).astype(np.int64)
        y0 = np.floor(iy._data).astype(np.int64)
        wx1 = ix - const(x0, x._data.dtype)
        wy1 = iy - const(y0, x._data.dtype)
        wx0, wy0 = 1.0 - wx1, 1.0 - wy1
        out = None
        for cx, cy, w in ((x0, y0, wx0 * wy0), (x0 + 1, y0, wx1 * wy0),
                          (x0, y0 + 1, wx0 * wy1), (x0 + 1, y0 + 1, wx1 * wy1)):
            term = corner(cx, cy)[0] * reshape(w, [N, Ho, Wo, 1])
            out = term if out is None else out + term
    return transpose(out, [0, 3, 1, 2])
