"""Paddle 3.3.1's fractional max pooling (Graham, "Fractional Max-Pooling", 2015):
fractional_max_pool2d and fractional_max_pool3d, as composites.

The windows follow Paddle's CPU kernel (phi/kernels/funcs/pooling.{h,cc}) in float32
arithmetic, per spatial dim of input size n, output size m, kernel size k (0: none):

    alpha = (n - k) / (m - 1)               k > 0 (overlapping windows of size k)
    alpha = n / m, u = u * min((n // m + 2) / alpha - 1, (n + 1 - n // m) / alpha - (m - 1))
                                            k = 0 (disjoint windows)
    start_i = int((i + u) * alpha) - int(u * alpha)          (int truncates toward 0)
    end_i = start_i + k  (k > 0)   or   int((i + 1 + u) * alpha) - int(u * alpha)  (k = 0)

clipped to [0, n). Each output is the first maximum of its window in row-major scan order,
strictly above float32's lowest finite value (Paddle's starting value; NaN never wins); the
mask is its flat index within the channel's spatial block (int32). A window with no such
value gives that lowest value (float16: -inf) and mask -1, and no gradient.

The winners are found here in numpy and picked by one take_flat node, whose gradient sends
each output gradient to its winner (summed where overlapping windows share one), as
Paddle's grad kernel does."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .core import require_float
from .creation import generator
from .elementwise import where
from .shape import _take_flat

NAMES: list[str] = ["fractional_max_pool2d", "fractional_max_pool3d"]

_F32 = np.float32
_FLT_MAX = float(np.finfo(np.float32).max)


def _trunc(v: np.float32) -> int:
    """C++'s static_cast<int>(float) on x86: toward zero; inf / NaN give INT_MIN."""
    return int(v) if np.isfinite(v) else -2 ** 31


def intervals(n_in: int, n_out: int, k: int, u: float) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the n_out windows along one dim, as Paddle's kernel computes them
    (float32 arithmetic); k = 0: disjoint windows, k > 0: windows of size k."""
    u32 = _F32(u)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        alpha = _F32(_F32(n_in - k) / _F32(n_out - (1 if k > 0 else 0)))
        if k <= 0:
            base = n_in // n_out
            m1 = _F32(_F32(base + 2) / alpha) - _F32(1)
            m2 = _F32(_F32(n_in + 1 - base) / alpha) - _F32(n_out - 1)
            u32 = _F32(u32 * min(m1, m2))
        off = _trunc(_F32(u32 * alpha))
        starts = np.empty(n_out, np.int64)
        ends = np.empty(n_out, np.int64)
        for i in range(n_out):
            s = _trunc(_F32(_F32(_F32(i) + u32) * alpha)) - off
            e = s + k if k > 0 else _trunc(_F32(_F32(_F32(i + 1) + u32) * alpha)) - off
            starts[i], ends[i] = max(s, 0), min(e, n_in)
    return starts, ends


def _windows(sizes: list[int], outs: list[int], ks: list[int], u: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """(positions, valid), both [prod(outs), K]: every window's flat positions within the
    spatial block in row-major scan order, padded (valid False) up to the largest window."""
    table = np.zeros((1, 1), np.int64)
    valid = np.ones((1, 1), bool)
    stride = 1
    for n, m, k in reversed(list(zip(sizes, outs, ks))):
        st, en = intervals(n, m, k, u)
        width = int((en - st).max())
        pos = st[:, None] + np.arange(width)
        ok = pos < en[:, None]
        # outer product: this dim's (window, offset) in front of the later dims'
        table = ((pos * stride)[:, None, :, None] + table[None, :, None, :])
        valid = ok[:, None, :, None] & valid[None, :, None, :]
        table = table.reshape(m * table.shape[1], -1)
        valid = valid.reshape(table.shape)
        stride *= n
    return np.where(valid, table, 0), valid


def _as_ints(value: Any, dims: int, what: str, arg: str) -> list:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * dims
    if not isinstance(value, (list, tuple)) or len(value) != dims:
        raise ValueError(f"{what}: {arg} must be an int or {dims} values, got {value!r}")
    return list(value)


def _check_u(random_u: Any, what: str) -> float:
    if random_u is None:
        u = 0.0
        while u == 0.0:                     # Paddle's kernel draws u in (0, 1) itself
            u = float(_F32(generator().random()))
        return u
    try:
        u = float(random_u)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: random_u must be a float in (0, 1) or None, got "
                        f"{random_u!r}") from None
    if not 0.0 < u < 1.0:
        raise ValueError(f"{what}: random_u must be in the open interval (0, 1), got {u} "
                         "(or None for a random one)")
    if _F32(u) == 0:                        # 0 as float32: Paddle's kernel draws one
        return _check_u(None, what)
    return u


def _fractional(x: Tensor, output_size: Any, kernel_size: Any, random_u: Any,
                return_mask: bool, dims: int, what: str) -> Any:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    if x.ndim != dims + 2:
        layout = "[N, C, H, W]" if dims == 2 else "[N, C, D, H, W]"
        raise ValueError(f"{what} needs a {dims + 2}-D input {layout}, got shape "
                         f"{list(x.shape)}")
    require_float(x, what)
    u = _check_u(random_u, what)
    sizes = [int(s) for s in x.shape[2:]]
    outs = [sizes[i] if v is None else v
            for i, v in enumerate(_as_ints(output_size, dims, what, "output_size"))]
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0
           for v in outs):
        raise ValueError(f"{what}: output_size must hold positive ints (or None for the "
                         f"input's size), got {output_size!r}")
    outs = [int(v) for v in outs]
    ks = [0] * dims if kernel_size is None else \
        _as_ints(kernel_size, dims, what, "kernel_size")
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0 for v in ks):
        raise ValueError(f"{what}: kernel_size must hold non-negative ints (0 or None: "
                         f"disjoint windows), got {kernel_size!r}")
    ks = [int(v) for v in ks]
    for n, m, k in zip(sizes, outs, ks):
        if k > 0 and n < m - 1 + k:
            raise ValueError(f"{what}: an input size {n} is too small for output size {m} "
                             f"with kernel size {k} (needs input >= output - 1 + kernel); "
                             f"input spatial shape {sizes}, output_size {outs}, kernel_size "
                             f"{ks}")
        if k == 0 and m > n:
            raise ValueError(f"{what}: output size {m} is larger than the input size {n} "
                             f"(input spatial shape {sizes}, output_size {outs}): some "
                             "windows would be empty; use an output_size no larger than "
                             "the input")
    table, valid = _windows(sizes, outs, ks, u)
    N, C = int(x.shape[0]), int(x.shape[1])
    block = math.prod(sizes)
    data = x._data.reshape(N * C, block)
    dt = data.dtype
    lowest = dt.type(-np.inf) if float(np.finfo(dt).max) < _FLT_MAX else dt.type(-_FLT_MAX)
    vals = data[:, table]                                   # [N * C, P, K]
    vals = np.where(valid & ~np.isnan(vals), vals, dt.type(-np.inf))
    arg = np.argmax(vals, axis=-1) if vals.size else np.zeros(vals.shape[:-1], np.int64)
    best = np.take_along_axis(vals, arg[..., None], axis=-1)[..., 0]
    won = best > lowest                                     # [N * C, P]
    pos = np.take_along_axis(np.broadcast_to(table, vals.shape), arg[..., None],
                             axis=-1)[..., 0]
    base = np.arange(N * C, dtype=np.int64)[:, None] * block
    shape = [N, C] + outs
    y = _take_flat(x, (base + np.where(won, pos, 0)).ravel(), shape)
    if not won.all():
        y = where(won.reshape(shape), y, Tensor._make(np.full(shape, lowest, dt)))
    if not return_mask:
        return y
    mask = np.where(won, pos, -1).astype(np.int32).reshape(shape)
    return y, Tensor._make(mask)


def fractional_max_pool2d(x: Tensor, output_size: Any, kernel_size: Any = None,
                          random_u: float | None = None, return_mask: bool = False,
                          name: str | None = None) -> Any:
    """Fractional max pooling of x [N, C, H, W] to output_size [Ho, Wo] (an int, or a pair
    whose None keeps that input size): disjoint pseudo-random windows, or windows of
    kernel_size when given; random_u in (0, 1) fixes the sequence (None: random). With
    return_mask, also the int32 index h * W + w of each output's input element."""
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 2,
                       "fractional_max_pool2d")


def fractional_max_pool3d(x: Tensor, output_size: Any, kernel_size: Any = None,
                          random_u: float | None = None, return_mask: bool = False,
                          name: str | None = None) -> Any:
    """fractional_max_pool2d over x [N, C, D, H, W]; the mask index is (d * H + h) * W + w."""
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 3,
                       "fractional_max_pool3d")
