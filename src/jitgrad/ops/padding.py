"""paddle.nn.functional.pad: constant, reflect, replicate and circular padding.

Each pad is one node: constant padding a scatter_flat (its gradient gathers the input's
positions back), the other modes a take_flat (its gradient scatters). Their values come
from slice copies rather than the index maps (np.add.at, a fancy gather and np.pad's
Python overhead each cost a large share of a small pad's training step), and the index
maps are cached read-only per shape, so a rebinding Program does not copy them again.
"""

from __future__ import annotations

import builtins
import functools
from typing import Sequence

import numpy as np

from ..core.tensor import Tensor
from .core import apply_xy, const
from .shape import _flat_positions, scatter_flat_op, take_flat_op


_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_widths(ndim: int, pad: Sequence[int], data_format: str) -> list[tuple[int, int]]:
    pad = [int(p.item() if isinstance(p, Tensor) else p) for p in pad]
    if len(pad) % 2:
        raise ValueError(f"pad: needs an even number of entries, got {len(pad)}")
    if len(pad) == 2 * ndim:                    # every dim, first dim first
        return [(pad[2 * i], pad[2 * i + 1]) for i in range(ndim)]
    nsp = len(pad) // 2                         # spatial dims, last dim first
    if nsp > ndim - (2 if ndim > 2 else 0) or nsp == 0:
        raise ValueError(f"pad: {len(pad)} entries do not fit a {ndim}-D tensor")
    widths = [(0, 0)] * ndim
    channels_last = data_format.upper() in ("NLC", "NHWC", "NDHWC")
    last = ndim - 2 if channels_last else ndim - 1
    for i in range(nsp):
        widths[last - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


@functools.lru_cache(maxsize=64)
def _constant_pad_map(shape: tuple, widths: tuple):
    """Output shape, where each input element lands, and the mask of input positions."""
    out_shape = tuple(s + a + c for s, (a, c) in zip(shape, widths))
    where = np.pad(np.ones(shape, bool), widths)
    target = _flat_positions(out_shape)[where]
    target.setflags(write=False)
    where.setflags(write=False)
    return out_shape, target, where


def pad(x: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0,
        data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Paddle's pad: a list over all dims (first dim first) or over the spatial dims (last
    dim first: [left, right, top, bottom, ...]). Modes constant, reflect, replicate,
    circular; gradients scatter (constant) or gather (the others)."""
    widths = _pad_widths(x.ndim, pad, data_format)
    if builtins.any(a < 0 or c < 0 for a, c in widths):
        raise ValueError(f"pad: negative padding {list(pad)} is not supported")
    if mode == "constant":
        out_shape, target, where = _constant_pad_map(tuple(x._data.shape), tuple(widths))
        # the scatter_flat node, its value by a slice assignment (not np.add.at: ~5x faster)
        out = np.zeros(out_shape, x._data.dtype)
        out[tuple(slice(a, a + s) for s, (a, _) in zip(x._data.shape, widths))] = x._data
        y = apply_xy(scatter_flat_op, x, None, {"idx": target, "shape": out_shape}, out=out)
        if value != 0:
            y = y + const(np.where(where, 0, value), x._data.dtype)
        return y
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be constant, reflect, replicate or circular, "
                         f"got {mode!r}")
    if mode == "reflect" and builtins.any(
            a >= s or c >= s for s, (a, c) in zip(x._data.shape, widths) if a or c):
        raise ValueError("pad: reflect padding must be smaller than the padded dimension")
    table = _pad_positions(tuple(x._data.shape), tuple(map(tuple, widths)), mode)
    shape = tuple(s + a + c for s, (a, c) in zip(x._data.shape, widths))
    return apply_xy(take_flat_op, x, None, {"idx": table, "shape": shape},
                    out=_pad_values(x._data, widths, mode))


def _pad_values(x: np.ndarray, widths: list, mode: str) -> np.ndarray:
    """np.pad(x, widths, mode) by slice copies, one padded axis after another as np.pad
    does (its Python overhead was a third of a small pad's step); np.pad itself for
    circular pads wider than the axis."""
    if mode == "circular" and builtins.any(a > s or c > s for s, (a, c) in zip(x.shape, widths)):
        return np.pad(x, widths, mode=_MODES[mode])
    out = np.empty(tuple(s + a + c for s, (a, c) in zip(x.shape, widths)), x.dtype)
    out[tuple(slice(a, a + s) for s, (a, _) in zip(x.shape, widths))] = x
    full = [slice(None)] * x.ndim
    for d, (n, (a, c)) in enumerate(zip(x.shape, widths)):
        if not (a or c):
            continue
        def at(sl: slice) -> tuple:
            key = list(full)
            key[d] = sl
            return tuple(key)
        if mode == "reflect":               # (a, c < n: checked by the caller)
            stop = a + n - 2 - c
            src_lo, src_hi = slice(2 * a, a, -1), slice(a + n - 2, stop if stop >= 0 else None,
                                                        -1)
        elif mode == "replicate":
            src_lo, src_hi = slice(a, a + 1), slice(a + n - 1, a + n)
        else:                               # circular
            src_lo, src_hi = slice(n, n + a), slice(a, a + c)
        if a:
            out[at(slice(0, a))] = out[at(src_lo)]
        if c:
            out[at(slice(a + n, a + n + c))] = out[at(src_hi)]
    return out


@functools.lru_cache(maxsize=64)
def _pad_positions(shape: tuple, widths: tuple, mode: str) -> np.ndarray:
    """Which input element each output element of a non-constant pad reads (read-only: a
    rebinding Program need not copy it again)."""
    t = np.pad(_flat_positions(shape), widths, mode=_MODES[mode]).ravel()
    t.setflags(write=False)
    return t
