"""paddle.nn.functional.pad: constant, reflect, replicate and circular padding.

Each pad is one node: constant padding a pad_constant, a linear op whose transpose is the
slice of the interior (getitem with a basic key: lowered as a STRIDED read, no table), the
other modes a take_flat (its gradient scatters). Their values come,
once Numba is loaded, from vm/forward_window.py's pad_hw for a pad of the last two axes
only (NCHW's H and W, NCL's L: ~2x quicker than the paths below), else from
vm/forward_gather.py's pad4 (but a constant pad's of up to 64K elements: np.zeros and one
strided copy, quicker there; pad4: one pass writing each output row;
numpy's slice copies, the fallback, are five strided copies with 1- to 16-element inner
runs: ~22 us of an 8 x 8 x 16 x 16 reflect pad), never from the index maps (np.add.at, a
fancy gather and np.pad's Python overhead each cost a large share of a small pad's step).
The plan per (shape, dtype, pad, mode, data_format) is cached: the index maps read-only
and owning their data (a rebinding Program does not copy them again), the node's attrs and
the kernel's arguments.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..core.tensor import Tensor
from .core import apply_xy, compiled_kernels, const, remember
from .linear import linear, step
from .shape import _flat_positions, getitem_op, take_flat_op


_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_widths(ndim: int, pad: Sequence[int], data_format: str, mode: str = "constant",
                from_left: bool = True) -> list[tuple[int, int]]:
    listed = isinstance(pad, (list, tuple))
    pad = [int(p.item() if isinstance(p, Tensor) else p) for p in pad]
    if len(pad) % 2:
        raise ValueError(f"pad: needs an even number of entries, got {len(pad)}")
    if mode == "constant" and listed and len(pad) != 2 * (ndim - 2):
        # Paddle 3.3.1's constant pad by a list (not of the spatial dims' length): every
        # dim first dim first when it has 2 * ndim entries and pad_from_left_axis, else
        # len(pad) // 2 dims from the last dim backward, whatever the data_format (none
        # for an empty list: a copy)
        if len(pad) > 2 * ndim:
            raise ValueError(f"pad: {len(pad)} entries do not fit a {ndim}-D tensor")
        if len(pad) == 2 * ndim and from_left:
            return [(pad[2 * i], pad[2 * i + 1]) for i in range(ndim)]
        widths = [(0, 0)] * ndim
        for i in range(len(pad) // 2):
            widths[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
        return widths
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
def _constant_pad_map(shape: tuple, widths: tuple) -> tuple:
    """Output shape, and the mask of the output positions holding the input."""
    out_shape = tuple(s + a + c for s, (a, c) in zip(shape, widths))
    where = np.pad(np.ones(shape, bool), widths)
    where.setflags(write=False)
    return out_shape, where


def _interior(shape: tuple, widths: tuple) -> tuple:
    """The slices of a constant pad's output that hold its input."""
    return tuple(slice(a, a + s) for s, (a, _) in zip(shape, widths))


def _pad_constant_forward(x: np.ndarray, widths: tuple, shape: tuple) -> np.ndarray:
    out = np.zeros(shape, x.dtype)
    out[_interior(x.shape, widths)] = x
    return out


pad_constant_op = linear(
    # zeros around x: its transpose slices the interior back out, as structure (the
    # widths), so the backward reads it through STRIDED's grid, not an index table
    "pad_constant", grad_reads=(), forward=_pad_constant_forward,
    transpose=lambda n, widths, shape: step(getitem_op, key=_interior(n.ins[0], widths)),
    cases=({"shapes": ((2, 3),), "attrs": {"widths": ((0, 0), (1, 2)), "shape": (2, 6)}},
           {"shapes": ((2, 2, 3, 4),),
            "attrs": {"widths": ((0, 0), (1, 0), (2, 1), (1, 1)), "shape": (2, 3, 6, 6)}},
           {"shapes": ((),), "attrs": {"widths": (), "shape": ()}}))


def pad(x: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0,
        data_format: str = "NCHW", pad_from_left_axis: bool = True,
        name: str | None = None) -> Tensor:
    """Paddle's pad: a list over all dims (first dim first) or over the spatial dims (last
    dim first: [left, right, top, bottom, ...]). Modes constant, reflect, replicate,
    circular; gradients scatter (constant) or gather (the others). In constant mode a list
    of another length than the spatial dims' pads from the last dim backward, whatever
    the data_format, and so does one over every dim with pad_from_left_axis=False (Paddle
    3.3.1's rule; the flag means nothing for the other modes)."""
    if not isinstance(pad_from_left_axis, (bool, np.bool_)):
        raise TypeError(f"pad: pad_from_left_axis must be a bool, got "
                        f"{type(pad_from_left_axis).__name__}")
    d = x._data
    plan = _cached_plan(d, pad, mode, data_format, bool(pad_from_left_axis))
    attrs = plan.attrs
    if plan.hw is not None:
        out = _pad_hw(d, attrs["shape"], plan.hw)
    elif plan.kernel is not None:
        out = _pad_compiled(d, attrs["shape"], plan.kernel)
    else:
        out = None
    if plan.op is pad_constant_op:
        if out is None:
            out = np.zeros(attrs["shape"], d.dtype)
            out[plan.interior] = d
        y = apply_xy(pad_constant_op, x, None, attrs, out=out)
        if value != 0:
            y = y + const(np.where(plan.where, 0, value), d.dtype)
        return y
    if out is None:
        out = _pad_values(d, plan.widths, mode)
    return apply_xy(take_flat_op, x, None, attrs, out=out)


class _Plan(NamedTuple):
    """One pad's node and values, per (shape, dtype, pad, mode, data_format)."""
    op: Any                 # pad_constant (constant) or take_flat (the other modes)
    attrs: dict             # the node's (take_flat's index table read-only), shared
    widths: tuple           # per axis (before, after)
    kernel: tuple | None    # pad4's arguments but the arrays (_kernel_args), None: numpy's
    where: np.ndarray | None    # constant mode: the output positions holding the input
    interior: tuple | None      # constant mode: those positions as a tuple of slices
    hw: tuple | None = None     # pad_hw's arguments but the arrays (_hw_args), None: not one


# pad's plans: a training loop pads the same shape the same way every step. Keyed by the
# dtype too (the kernel's fill value is of it), bounded: emptied when full.
_PLANS: dict = {}
_PLANS_KEPT = 128
_NUMPY_CONSTANT_MAX = 1 << 16       # output elements: a constant pad's values by numpy


def _cached_plan(d: np.ndarray, pad: Any, mode: str, data_format: str,
                 from_left: bool = True) -> _Plan:
    """The plan for padding d, from the cache when pad is a list or tuple of Python ints
    (a Tensor or float entry is planned each time: nothing keyed by its value)."""
    key = None
    if type(pad) is list or type(pad) is tuple:
        for p in pad:
            if type(p) is not int:
                break
        else:
            key = (d.shape, d.dtype, tuple(pad), mode, data_format, from_left)
            plan = _PLANS.get(key)
            if plan is not None:
                return plan
    plan = _plan(d.shape, d.dtype, pad, mode, data_format, from_left)  # (raises: none kept)
    if key is not None:
        remember(_PLANS, key, plan, _PLANS_KEPT)
    return plan


def _plan(shape: tuple, dtype: np.dtype, pad: Sequence[int], mode: str,
          data_format: str, from_left: bool = True) -> _Plan:
    widths = _pad_widths(len(shape), pad, data_format, mode, from_left)
    if builtins.any(a < 0 or c < 0 for a, c in widths):
        raise ValueError(f"pad: negative padding {list(pad)} is not supported")
    widths = tuple(map(tuple, widths))
    if mode == "constant":
        out_shape, where = _constant_pad_map(tuple(shape), widths)
        # (np.zeros and one strided copy beat pad4 up to ~64K elements: its call costs
        # ~1 us, and its per-row loop is no faster than numpy's; 8x8x20x18: 7.4 us, 8.7)
        kernel = _kernel_args(shape, dtype, widths, None) \
            if where.size > _NUMPY_CONSTANT_MAX else None
        return _Plan(pad_constant_op, {"widths": widths, "shape": out_shape}, widths, kernel,
                     where, _interior(shape, widths), _hw_args(shape, dtype, widths, None))
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be constant, reflect, replicate or circular, "
                         f"got {mode!r}")
    if mode == "reflect" and builtins.any(
            a >= s or c >= s for s, (a, c) in zip(shape, widths) if a or c):
        raise ValueError("pad: reflect padding must be smaller than the padded dimension")
    table = _pad_positions(tuple(shape), widths, mode)
    out_shape = tuple(s + a + c for s, (a, c) in zip(shape, widths))
    return _Plan(take_flat_op, {"idx": table, "shape": out_shape}, widths,
                 _kernel_args(shape, dtype, widths, _MODES[mode]), None, None,
                 _hw_args(shape, dtype, widths, _MODES[mode]))


def _kernel_args(shape: tuple, dtype: np.dtype, widths: tuple, np_mode: str | None
                 ) -> tuple | None:
    """pad4's arguments for this pad but the two arrays: (the input's 4-D shape, the
    output's, the four maps, a, n, the fill value in dtype); None for a dtype the kernel is
    not used for (bool, 8- and 16-bit) or a pad _kernel_maps cannot collapse to 4 dims."""
    if dtype.kind not in "fiu" or dtype.itemsize < 4:
        return None
    maps = _kernel_maps(shape, widths, np_mode)
    if maps is None:
        return None
    in4, (m0, m1, m2, m3), a, n = maps
    return (in4, (m0.size, m1.size, m2.size, m3.size), m0, m1, m2, m3, a, n, dtype.type(0))


def _kernel_maps(shape: tuple, widths: tuple, np_mode: str | None) -> tuple | None:
    """vm/forward_gather.py pad4's arguments for this pad: the input's shape collapsed to 4
    dims (runs of unpadded axes merged), the output's, the per-axis source maps (-1: the
    constant), and the last axis's unpadded run (a, n); None when the padded axes do not
    collapse to 4 dims or the tensor is empty."""
    dims = _collapsed(shape, widths)
    if dims is None:
        return None
    maps = tuple(_axis_map(s, a, c, np_mode) for s, a, c in dims)
    return (tuple(s for s, _, _ in dims), maps, dims[3][1], dims[3][0])


def _axis_map(s: int, lo: int, hi: int, np_mode: str | None) -> np.ndarray:
    """For each position along an axis of s elements padded by (lo, hi), the input index
    it reads (np.pad's choice for np_mode; -1: the constant), read-only."""
    if np_mode is None:
        m = np.full(s + lo + hi, -1, np.int64)
        m[lo:lo + s] = np.arange(s)
    else:
        m = np.pad(np.arange(s, dtype=np.int64), (lo, hi), mode=np_mode)
    m.setflags(write=False)
    return m


def _collapsed(shape: tuple, widths: tuple) -> list | None:
    """The pad as 4 axes [size, left, right] (runs of unpadded axes merged, ones in front);
    None when the padded axes do not collapse to 4 or the tensor is empty."""
    if not shape or 0 in shape:
        return None
    dims: list[list] = []                   # [size, left, right]
    for s, (a, c) in zip(shape, widths):
        if not (a or c) and dims and not (dims[-1][1] or dims[-1][2]):
            dims[-1][0] *= s
        else:
            dims.append([s, a, c])
    if len(dims) > 4:
        return None
    return [[1, 0, 0]] * (4 - len(dims)) + dims


# pad_hw's domain: rows of up to 48 input elements, outputs of up to 1M elements (longer
# rows copy as quickly by numpy's strided copy or pad4; 8 x 64 x 64 x 64 or 2 x 3 x 512 x
# 512 pads took ~1.3x as long by pad_hw: it writes a constant pad's interior twice)
_HW_ROW_MAX = 48
_HW_OUT_MAX = 1 << 20
_HW_OUT_MIN = 1 << 13       # a smaller constant pad: np.zeros and a copy (64 x 45: 2.8 us, 3.4)


def _hw_args(shape: tuple, dtype: np.dtype, widths: tuple, np_mode: str | None
             ) -> tuple | None:
    """vm/forward_window.py pad_hw's arguments but the two arrays, for a pad of (at most)
    the last two collapsed axes, the others one run of planes (NCHW's H and W, NCL's L):
    (its dims, the row map, the column map, the fill value in dtype), read-only; None for
    any other pad, a large one (_HW_ROW_MAX, _HW_OUT_MAX) or a dtype the kernels are not
    used for (bool, 8- and 16-bit). Plain loops with uint64 indices: numpy's np.zeros and
    strided copy (~7.7 us of an 8 x 8 x 16 x 16 constant pad) ~3.5 us, pad4's ~9 us of a
    reflect pad ~4.8."""
    if dtype.kind not in "fiu" or dtype.itemsize < 4:
        return None
    dims = _collapsed(shape, widths)
    if dims is None or dims[0][1] or dims[0][2] or dims[1][1] or dims[1][2]:
        return None
    (s0, _, _), (s1, _, _), (H, top, bottom), (W, a, c) = dims
    size = s0 * s1 * (H + top + bottom) * (W + a + c)
    if W > _HW_ROW_MAX or size > _HW_OUT_MAX or (np_mode is None and size < _HW_OUT_MIN):
        return None
    maps = (_axis_map(H, top, bottom, np_mode), _axis_map(W, a, c, np_mode))
    spec = np.array([s0 * s1, H, W, H + top + bottom, W + a + c, a, top, np_mode is None],
                    np.int64)
    spec.setflags(write=False)
    return spec, maps[0], maps[1], dtype.type(0)


def _pad_hw(x: np.ndarray, out_shape: tuple, args: tuple) -> np.ndarray | None:
    """The padded values by vm/forward_window.py's pad_hw once Numba is loaded (None
    before)."""
    kernels = compiled_kernels("forward_window")
    if kernels is None:
        return None
    out = np.empty(out_shape, x.dtype)
    kernels.pad_hw((x if x.flags.c_contiguous else np.ascontiguousarray(x)).reshape(-1),
                   out.reshape(-1), *args)
    return out


def _pad_compiled(x: np.ndarray, out_shape: tuple, args: tuple) -> np.ndarray | None:
    """The padded values by vm/forward_gather.py's pad4 once Numba is loaded (None before)."""
    kernels = compiled_kernels("forward_gather")
    if kernels is None:
        return None
    in4, out4, m0, m1, m2, m3, a, n, fill = args
    out = np.empty(out_shape, x.dtype)
    kernels.pad4((x if x.flags.c_contiguous else np.ascontiguousarray(x)).reshape(in4),
                 out.reshape(out4), m0, m1, m2, m3, a, n, fill)
    return out


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
    # (a copy owning its data: binding.bind_values skips recopying only such a table; the
    # ravel of np.pad's result was a view, copied into the Program every step)
    t = np.pad(_flat_positions(shape), widths, mode=_MODES[mode]).ravel().copy()
    t.setflags(write=False)
    return t
