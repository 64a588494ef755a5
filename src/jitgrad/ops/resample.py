"""interpolate (nearest, bilinear, linear), upsample, unfold and pixel_shuffle as composites:
for finite inputs a matrix product per resized dim (_separable), else gathers with index maps
built once (take_flat) and constant interpolation weights."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from .conv import _channels_first, _back, _pair, _padding
from .im2col import im2col
from .core import const, require_float
from .shape import _flat_positions, _take_flat, reshape, transpose


def _out_size(insize: Sequence[int], size: Any, scale: Any) -> tuple[list[int], list[float]]:
    n = len(insize)
    if size is not None:
        out = [int(s.item() if isinstance(s, Tensor) else s) for s in
               ([size] * n if isinstance(size, int) else size)]
        return out, [i / o for i, o in zip(insize, out)]
    if scale is None:
        raise ValueError("interpolate needs size or scale_factor")
    sc = [float(scale)] * n if isinstance(scale, (int, float)) else [float(s) for s in scale]
    return [int(math.floor(i * s)) for i, s in zip(insize, sc)], [1 / s for s in sc]


def _source(n_in: int, n_out: int, ratio: float, mode: str, align_corners: bool,
            align_mode: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per output index: the two source indices and the weight of the second."""
    dst = np.arange(n_out, dtype=np.float64)
    if mode == "nearest":
        src = (np.round(dst * (n_in - 1) / max(n_out - 1, 1)) if align_corners
               else np.floor(dst * ratio))
        i0 = np.clip(src, 0, n_in - 1).astype(np.int64)
        return i0, i0, np.zeros(n_out)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    elif align_mode == 0:
        src = np.maximum((dst + 0.5) * ratio - 0.5, 0.0)
    else:
        src = dst * ratio
    i0 = np.clip(np.floor(src), 0, n_in - 1).astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    return i0, i1, src - i0


def interpolate(x: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                name: str | None = None) -> Tensor:
    """Resize the spatial dims of [N, C, (H,) W] input: nearest, linear or bilinear."""
    require_float(x, "interpolate")
    mode = mode.lower()
    if mode not in ("nearest", "linear", "bilinear"):
        raise ValueError(f"interpolate: mode must be nearest, linear or bilinear, got {mode!r}")
    x, last = _channels_first(x, data_format)
    sp = x.shape[2:]
    out, ratios = _out_size(sp, size, scale_factor)
    maps = [_source(i, o, r, mode, align_corners, align_mode)
            for i, o, r in zip(sp, out, ratios)]
    reps = [_repeat_factor(i, o, m) for i, o, m in zip(sp, out, maps)]
    if all(reps):
        return _back(_repeat_each(x, reps), last)
    if len(sp) <= 2 and bool(np.isfinite(x._data).all()):
        return _back(_separable(x, maps, out), last)
    N, C = x.shape[:2]
    pos = _flat_positions(tuple(x.shape))
    y = None
    for corner in np.ndindex(*([2] * len(sp))):
        idx = [m[c] for m, c in zip(maps, corner)]
        wts = [m[2] if c else 1 - m[2] for m, c in zip(maps, corner)]
        w = np.ones(out)
        for d, wd in enumerate(wts):
            shape = [1] * len(out)
            shape[d] = out[d]
            w = w * wd.reshape(shape)
        if mode != "nearest" and not w.any():
            continue
        sel = pos[(slice(None), slice(None)) + np.ix_(*idx)]
        term = _take_flat(x, sel.ravel(), (N, C, *out))
        if mode != "nearest":
            term = term * const(w, x._data.dtype)
        y = term if y is None else y + term
        if mode == "nearest":
            break
    return _back(y, last)


def _repeat_factor(n_in: int, n_out: int, source: tuple) -> int:
    """r when output index o reads input o // r (nearest by an integer factor), else 0."""
    i0, i1, lam = source
    rep = n_out // n_in
    return rep if rep * n_in == n_out and not lam.any() and \
        np.array_equal(i0, np.arange(n_out) // rep) else 0


def _repeat_each(x: Tensor, reps: list[int]) -> Tensor:
    """Every spatial element repeated reps[d] times along dim d: [N, C, H, W] viewed as
    [N, C, H, 1, W, 1], broadcast to [N, C, H, rh, W, rw] and merged. Exact for any values
    (inf and nan too), and its gradient is a sum over the repeats (broadcast_to's), not
    the product with a resampling matrix that the general path's gradient runs. The values
    come from np.repeat: copying into the broadcast, whose innermost axis is a repeat of
    2 or 3, took ~3x as long."""
    from .core import apply_xy
    from .shape import broadcast_op
    inter, full, merged = list(x.shape[:2]), list(x.shape[:2]), list(x.shape[:2])
    for n, r in zip(x.shape[2:], reps):
        inter += [n, 1]
        full += [n, r]
        merged.append(n * r)
    data = x._data
    for axis, r in enumerate(reps):
        data = np.repeat(data, r, axis=2 + axis)
    spread = apply_xy(broadcast_op, reshape(x, inter), None, {"shape": tuple(full)},
                      out=data.reshape(full))
    return reshape(spread, merged)


def _resample_matrix(n_in: int, i0: np.ndarray, i1: np.ndarray, lam: np.ndarray
                     ) -> np.ndarray:
    """[n_out, n_in]: row o holds output o's weights on its two source indices."""
    m = np.zeros((i0.size, n_in))
    rows = np.arange(i0.size)
    np.add.at(m, (rows, i0), 1.0 - lam)
    np.add.at(m, (rows, i1), lam)
    return m


def _separable(x: Tensor, maps: list, out: list) -> Tensor:
    """The resize as one matrix product per spatial dim, W then H (y = Mh @ x @ Mw^T): two
    matmul nodes with small constant matrices instead of a gather (65536-entry index
    tables rebound every step) and a multiply and an add per bilinear corner. For finite
    x only: a zero weight times inf or NaN would spread it along the row."""
    from .linalg import matmul
    dt = x._data.dtype
    y = x
    for d in reversed(range(len(out))):
        n_in = x.shape[2 + d]
        i0, i1, lam = maps[d]
        if out[d] == n_in and np.array_equal(i0, np.arange(n_in)) and not lam.any():
            continue                        # identity along this dim
        m = _resample_matrix(n_in, i0, i1, lam)
        if d == len(out) - 1:
            y = matmul(y, const(m.T, dt))
        else:
            y = matmul(const(m, dt), y)
    return y if y is not x else x * 1.0


def upsample(x: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
             name: str | None = None) -> Tensor:
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def unfold(x: Tensor, kernel_sizes: Any, strides: Any = 1, paddings: Any = 0,
           dilations: Any = 1, name: str | None = None) -> Tensor:
    """im2col: [N, C, H, W] -> [N, C * kh * kw, L] sliding blocks (Paddle's F.unfold)."""
    require_float(x, "unfold")
    k = _pair(kernel_sizes, 2, "kernel_sizes")
    st, dl = _pair(strides, 2, "strides"), _pair(dilations, 2, "dilations")
    widths = _padding(paddings, 2, k, dl, st, x.shape[2:])
    N, C = x.shape[:2]
    cols = im2col(x, k, st, dl, widths)
    return reshape(cols, [N, C * k[0] * k[1], cols.shape[3]])


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW",
                  name: str | None = None) -> Tensor:
    x, last = _channels_first(x, data_format)
    N, C, H, W = x.shape
    r = int(upscale_factor)
    if C % (r * r):
        raise ValueError(f"pixel_shuffle: {C} channels are not divisible by {r * r}")
    y = reshape(x, [N, C // (r * r), r, r, H, W])
    y = transpose(y, [0, 1, 4, 2, 5, 3])
    return _back(reshape(y, [N, C // (r * r), H * r, W * r]), last)
