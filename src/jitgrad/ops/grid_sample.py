"""Spatial transformer sampling (2-D and 3-D): affine_grid builds normalised sampling
coordinates from [N, 2, 3] (or [N, 3, 4]) affine matrices, grid_sample reads x at them
(bilinear, trilinear in 3-D, or nearest; zeros / border / reflection padding). Composites:
the corner values are gathers of x, the interpolation weights are differentiable in the
grid, so gradients reach both x and the grid."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from .core import FLOAT16, call_in_float32, const, require_float
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
    """[N, H, W, 2] (x, y) coordinates: theta [N, 2, 3] applied to the output pixels'
    normalised positions in [-1, 1] (pixel corners with align_corners, else pixel centres);
    or, for out_shape [N, C, D, H, W] and theta [N, 3, 4], [N, D, H, W, 3] (x, y, z)."""
    if isinstance(theta, Tensor) and theta._data.dtype is FLOAT16:
        return call_in_float32(affine_grid, locals())
    require_float(theta, "affine_grid")
    shape = [int(v) for v in (out_shape._data.tolist() if isinstance(out_shape, Tensor)
                              else out_shape)]
    nd = len(shape) - 2
    if nd not in (2, 3) or theta.ndim != 3 or list(theta.shape[1:]) != [nd, nd + 1] or \
            shape[0] != theta.shape[0]:
        raise ValueError(f"affine_grid: theta must be [N, 2, 3] with out_shape [N, C, H, W], "
                         f"or [N, 3, 4] with [N, C, D, H, W]; got {list(theta.shape)} and "
                         f"{shape}")
    N, sizes = shape[0], shape[2:]
    # (x, y[, z]) vary along the last, second-last[, third-last] output dims
    axes = np.meshgrid(*[_base(n, align_corners) for n in sizes], indexing="ij")[::-1]
    base = np.stack([*axes, np.ones_like(axes[0])], axis=-1).reshape(1, -1, nd + 1)
    base = const(np.broadcast_to(base, (N, base.shape[1], nd + 1)), theta._data.dtype)
    return reshape(matmul(base, theta, transpose_y=True), [N, *sizes, nd])


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
    """out[n, c, h, w] = x[n, c] read at grid[n, h, w] = (x, y) in [-1, 1]; for a 5-D x
    [N, C, D, H, W], out[n, c, d, h, w] read at grid[n, d, h, w] = (x, y, z) (trilinear
    for 'bilinear', as Paddle)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(grid_sample, locals())
    require_float(x, "grid_sample")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or "
                         f"'reflection', got {padding_mode!r}")
    nd = x.ndim - 2
    if nd not in (2, 3) or grid.ndim != x.ndim or grid.shape[-1] != nd or \
            grid.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: x must be [N, C, H, W] with grid [N, Ho, Wo, 2], or "
                         f"[N, C, D, H, W] with grid [N, Do, Ho, Wo, 3]; got {list(x.shape)} "
                         f"and {list(grid.shape)}")
    N, C, sizes = x.shape[0], x.shape[1], x.shape[2:]
    outs = grid.shape[1:-1]
    # coords[d]: the position along spatial dim d (grid's last entry holds x: the last dim)
    coords = [_unnormalise(getitem(grid, (Ellipsis, nd - 1 - d)), sizes[d], align_corners)
              for d in range(nd)]
    if padding_mode == "border":
        coords = [E.clip(c, 0.0, n - 1.0) for c, n in zip(coords, sizes)]
    elif padding_mode == "reflection":
        coords = [_reflect(c, n, align_corners) for c, n in zip(coords, sizes)]
    flat = reshape(transpose(x, [0, *range(2, nd + 2), 1]), [-1])     # C values per pixel
    strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
    batch = (np.arange(N) * int(np.prod(sizes))).reshape((N,) + (1,) * nd)
    zero = const(np.zeros((), x._data.dtype), x._data.dtype)

    def corner(cs: list) -> Tensor:
        """[N, *outs, C] values at the integer corners cs (0 outside)."""
        inside = np.logical_and.reduce([(c >= 0) & (c < n) for c, n in zip(cs, sizes)])
        rows = batch + sum(np.clip(c, 0, n - 1) * st for c, n, st in zip(cs, sizes, strides))
        vals = _take(flat, rows[..., None] * C + np.arange(C))
        # (a where, not a product with the mask: 0 outside, not -0.0 as Paddle gives)
        return E.where(np.broadcast_to(inside[..., None], vals._data.shape), vals, zero)

    if mode == "nearest":       # (halves to even, as Paddle's nearbyint)
        out = corner([np.rint(c._data).astype(np.int64) for c in coords])
    else:
        lows = [np.floor(c._data).astype(np.int64) for c in coords]
        highs = [c - const(lo, x._data.dtype) for c, lo in zip(coords, lows)]
        weights = [(1.0 - h, h) for h in highs]             # (below, above) per dim
        out = None
        for bits in np.ndindex(*(2,) * nd):     # the 2^nd corners, the first dim slowest
            w = weights[0][bits[0]]
            for d in range(1, nd):
                w = w * weights[d][bits[d]]
            term = corner([lo + b for lo, b in zip(lows, bits)]) * reshape(w, [N, *outs, 1])
            out = term if out is None else out + term
    return transpose(out, [0, nd + 1, *range(1, nd + 1)])
