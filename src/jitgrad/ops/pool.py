"""Pooling (paddle.nn.functional names): max and average over windows in 1-D and 2-D, and
their adaptive forms. Average pooling sums im2col columns; max pooling is a primitive of its
own (ops/maxpool.py: the first maximum of each window, Paddle's tie rule); the 1-D pools are
the 2-D ones over [N, C, 1, L], as Paddle's are."""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .conv import (_back, _channels_first, _drop_h, _one, _pad1d, _padding, _pair,
                   _unit_h)
from .core import apply_xy, compiled_kernels, const, require_float
from .core import FLOAT16, call_in_float32
from .im2col import im2col, out_size
from .maxpool import (block_mean, max_pool, max_pool_op, pool_attrs, window_offsets,
                      winners)
from .shape import _take_flat, reshape

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _pool_setup(x, kernel_size, stride, padding, ceil_mode, data_format):
    x, last = _channels_first(x, data_format)
    if x.ndim != 4:
        raise ValueError(f"pool2d needs a 4-D input, got shape {x.shape}")
    k = _pair(kernel_size, 2, "kernel_size")
    st = k if stride is None else _pair(stride, 2, "stride")
    if ceil_mode and isinstance(padding, str) and padding.upper() == "VALID":
        raise ValueError("padding 'VALID' cannot be used with ceil_mode=True (as Paddle)")
    widths = [_fit_one_window(w, n, kk, s, ceil_mode) for w, n, kk, s
              in zip(_padding(padding, 2, k, [1, 1], st, x.shape[2:]), x.shape[2:], k, st)]
    if ceil_mode:           # extra room at the end so that partial windows are kept
        widths = [(a, b + (-(n + a + b - kk)) % s) for (a, b), n, kk, s
                  in zip(widths, x.shape[2:], k, st)]
    return x, last, k, st, widths


def _fit_one_window(width: tuple, n: int, k: int, s: int, ceil_mode: bool) -> tuple:
    """The padding of one dim, widened at the end to the kernel when the kernel is larger
    than the padded input by less than a stride: Paddle 3.3.1's output size there is one
    window (its C division truncates (n + pads - k [+ s - 1]) / s to 0), over the whole
    input. Beyond that its size is 0 or less, and this raises."""
    a, b = width
    short = k - (n + a + b)
    if short <= 0:
        return width
    if short - (s - 1 if ceil_mode else 0) < s:
        return (a, b + short)
    raise ValueError(f"the pooling kernel ({k}) is larger than the padded input ({n + a + b}) "
                     f"by a stride ({s}) or more: no window fits (Paddle 3.3.1 returns an "
                     "empty or invalid shape there)")


# the attributes of max_pool2d(x, k, s, p) for int k, s (or None), p: the fast path's node
# attributes, the dict apply would build for them (shared: node.attrs is read only)
_POOL_ATTRS: dict[tuple, dict] = {}


def max_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
               name: str | None = None) -> Any:
    """Max over each window (padding counts as -inf). As in Paddle, the gradient goes to the
    first maximum of a window (row-major order), and return_mask gives its index h * W + w
    in the input plane."""
    if (type(kernel_size) is int and type(padding) is int and not return_mask and
            not ceil_mode and data_format == "NCHW" and (stride is None or type(stride) is int)):
        attrs = _POOL_ATTRS.get((kernel_size, stride, padding))
        if attrs is not None and x._data.ndim == 4 and x._data.dtype.kind == "f":
            try:
                return apply_xy(max_pool_op, x, attrs=attrs)   # the common call, one frame
            except ValueError:  # a kernel larger than the padded input: the path below
                pass
        if attrs is None and kernel_size > 0 and padding >= 0 and \
                (stride is None or stride > 0) and len(_POOL_ATTRS) < 64:
            s = kernel_size if stride is None else stride
            _POOL_ATTRS[(kernel_size, stride, padding)] = pool_attrs(
                (kernel_size,) * 2, (s, s), ((padding, padding),) * 2)
    require_float(x, "max_pool2d")
    x, last, k, st, widths = _pool_setup(x, kernel_size, stride, padding, ceil_mode,
                                         data_format)
    y = max_pool(x, k, st, widths)
    out = _back(y, last)
    if not return_mask:
        return out
    arg = y._node.saved[0] if y._node is not None else window_offsets(x._data, k, st, widths)
    pos, (_, _, Hp, Wp) = winners(tuple(x._data.shape), arg, k, st, widths)
    h, w = (pos // Wp) % Hp - widths[0][0], pos % Wp - widths[1][0]
    mask = Tensor._make((h * x.shape[3] + w).astype(np.int32))
    return out, _back(mask, last)


def avg_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, exclusive: bool = True,
               divisor_override: float | None = None, data_format: str = "NCHW",
               name: str | None = None) -> Tensor:
    """Mean over each window; exclusive=True leaves padding out of the count (Paddle's
    default). divisor_override scales that mean by kh * kw / divisor_override, as Paddle
    3.3.1 does (so the sum over the divisor only where the window holds kh * kw counted
    elements)."""
    require_float(x, "avg_pool2d")
    x, last, k, st, widths = _pool_setup(x, kernel_size, stride, padding, ceil_mode,
                                         data_format)
    N, C, H, W = x.shape
    if (list(st) == list(k) and not any(map(any, widths)) and H % k[0] == 0 and
            W % k[1] == 0 and not divisor_override):    # non-overlapping, no padding
        return _back(_block_mean(x, k[0], k[1]), last)
    total = _window_totals(x, k, st, widths)
    count = window_counts(k, (H, W), [a for a, _ in widths], st, total.shape[2:], not exclusive)
    if divisor_override:        # Paddle 3.3.1: the mean times kh * kw / divisor_override
        return _back(total * const(k[0] * k[1] / (count * float(divisor_override)),
                                   x._data.dtype), last)
    return _back(total * const(1.0 / count, x._data.dtype), last)


def _window_totals(x: Tensor, k: Sequence[int], st: Sequence[int], widths: Any) -> Tensor:
    """The sum over each window of x [N, C, H, W] (padding counts as zeros)."""
    N, C, H, W = x.shape
    Ho, Wo = (out_size(*a) for a in zip((H, W), k, st, (1, 1), widths))
    cols = im2col(x, k, st, (1, 1), widths, groups=C)      # [N, C, kh * kw, Ho * Wo]
    return reshape(R.sum(cols, axis=2), [N, C, Ho, Wo])


def sum_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, data_format: str = "NCHW") -> Tensor:
    """The sum over each window (padding as zeros): avg_pool3d's and lp_pool2d's numerator,
    which avg_pool2d's divisor_override cannot give (Paddle scales its mean instead)."""
    require_float(x, "sum_pool2d")
    x, last, k, st, widths = _pool_setup(x, kernel_size, stride, padding, ceil_mode,
                                         data_format)
    return _back(_window_totals(x, k, st, widths), last)


def window_counts(k: Sequence[int], sizes: Sequence[int], before: Sequence[int],
                  st: Sequence[int], outs: Sequence[int], inclusive: bool) -> np.ndarray:
    """The divisors of an average pool, [*outs] (float64): per dim, how many positions of
    the window [start, start + k), start = o * s - pad_before, count; the product over the
    dims. Exclusive: those inside the input. Inclusive: also the padding, but past the
    input's end only as far as the padding before it reaches: Paddle 3.3.1's count (a
    window ends at min(start + k, n + pad_before)), torch's for symmetric padding; the
    overhang ceil_mode adds is left out. A window wholly in the padding after the input
    counts 0 (exclusive), or as Paddle's formula gives, 0 or less (inclusive: 3.3.1's
    outputs there are nan and -0.0)."""
    count = np.ones(())
    for kk, n, a, s, o in zip(k, sizes, before, st, outs):
        start = s * np.arange(o) - a
        if inclusive:
            per = np.minimum(start + kk, n + a) - start
        else:
            per = np.maximum(np.minimum(start + kk, n) - np.maximum(start, 0), 0)
        count = np.multiply.outer(count, per)
    return count


def _block_mean(x: Tensor, kh: int, kw: int) -> Tensor:
    """The mean of each non-overlapping kh x kw block of x [N, C, H, W] (H, W multiples):
    one node, where the windowed path records im2col, a sum and a scale (or a slice and a
    mean per window)."""
    N, C, H, W = x.shape
    if kh == H and kw == W:
        return R.mean(x, axis=[2, 3], keepdim=True)
    return block_mean(x, kh, kw)


def adaptive_avg_pool2d(x: Tensor, output_size: Any, data_format: str = "NCHW",
                        name: str | None = None) -> Tensor:
    """Average over adaptive windows (start floor(i*H/Ho), end ceil((i+1)*H/Ho))."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(adaptive_avg_pool2d, locals())
    if (type(output_size) is int and output_size == 1 and data_format == "NCHW" and
            type(x) is Tensor):
        found = _global_mean(x)
        if found is not None:
            return found
    x, last = _channels_first(x, data_format)
    H, W = x.shape[2:]
    Ho, Wo = _adaptive_sizes(x, output_size)    # (None keeps that size, as Paddle)
    if H % Ho == 0 and W % Wo == 0:         # equal windows: a reshape and a mean
        return _back(_block_mean(x, H // Ho, W // Wo), last)
    rows = []
    for i in range(Ho):
        a, b = (i * H) // Ho, -(-((i + 1) * H) // Ho)
        cols = []
        for j in range(Wo):
            c, d = (j * W) // Wo, -(-((j + 1) * W) // Wo)
            cols.append(R.mean(x[:, :, a:b, c:d], axis=[2, 3]))
        rows.append(cols)
    from .indexing import stack
    y = stack([stack(r, axis=-1) for r in rows], axis=-2)
    return _back(y, last)


_GLOBAL_ATTRS: list = []        # the global mean's node attributes (reduce.py's, shared)


def _global_mean(x: Tensor) -> Tensor | None:
    """adaptive_avg_pool2d(x, 1) of a float32 / float64 NCHW x: the node R.mean(x, [2, 3],
    keepdim=True) records, recorded here directly (its checks and dispatch were ~40% of
    the op's time), its value by reduce.py's _mean_forward, or for a C-contiguous x once
    Numba is loaded by vm/forward_window.py's row_means (the same pairwise sums and
    division, bit for bit); None for any other x (the general path then)."""
    d = x._data
    dt = d.dtype
    if (dt is not _F32 and dt is not _F64) or d.ndim != 4:
        return None
    if not d.size:
        return None
    if not _GLOBAL_ATTRS:
        _GLOBAL_ATTRS.append(R.reduce_attrs(x, [2, 3], True))
    n = d.shape[2] * d.shape[3]
    kernels = compiled_kernels("forward_window") \
        if d.flags.c_contiguous and n <= R._EXACT_COUNT[dt] else None
    if kernels is None:
        out = R._mean_forward(d, (2, 3), True)
    else:
        out = np.empty(d.shape[:2] + (1, 1), dt)
        kernels.row_means(d.reshape(-1), out.reshape(-1), n)
    return apply_xy(R.mean_op, x, None, _GLOBAL_ATTRS[0], out)


# ---- 1-D pooling: the 2-D pools over [N, C, 1, L], as Paddle -------------------------------

def max_pool1d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               return_mask: bool = False, ceil_mode: bool = False, name: str | None = None
               ) -> Any:
    """Max over windows of x [N, C, L] (NCL only, as Paddle): max_pool2d over [N, C, 1, L].
    The gradient goes to the first maximum; the mask holds its index along L (int32)."""
    k = _one(kernel_size, "kernel_size")
    st = [1, k] if stride is None else [1, _one(stride, "stride")]
    out = max_pool2d(_unit_h(x, "max_pool1d"), [1, k], st, _pad1d(padding), return_mask,
                     ceil_mode)
    if return_mask:
        return _drop_h(out[0]), _drop_h(out[1])
    return _drop_h(out)


def avg_pool1d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               exclusive: bool = True, ceil_mode: bool = False, name: str | None = None
               ) -> Tensor:
    """Mean over windows of x [N, C, L]: avg_pool2d over [N, C, 1, L]. Note Paddle's order:
    exclusive comes before ceil_mode here (after it in avg_pool2d)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(avg_pool1d, locals())
    k = _one(kernel_size, "kernel_size")
    st = [1, k] if stride is None else [1, _one(stride, "stride")]
    return _drop_h(avg_pool2d(_unit_h(x, "avg_pool1d"), [1, k], st, _pad1d(padding),
                              ceil_mode, exclusive))


# ---- adaptive pooling ----------------------------------------------------------------------

def _adaptive_sizes(x: Tensor, output_size: Any) -> list[int]:
    """[Ho, Wo] from an int or a pair; None keeps that input size (as Paddle)."""
    if isinstance(output_size, (int, np.integer)):
        if output_size <= 0:            # (else ZeroDivisionError 'integer modulo by zero')
            raise ValueError(f"output_size must be positive, got {output_size!r}")
        return [int(output_size)] * 2
    out = list(output_size)
    if len(out) != 2:
        raise ValueError(f"output_size must be an int or 2 values, got {output_size!r}")
    out = [x.shape[2 + i] if v is None else int(v) for i, v in enumerate(out)]
    if min(out) <= 0:
        raise ValueError(f"output_size must be positive, got {output_size!r}")
    return out


@functools.lru_cache(maxsize=32)
def _adaptive_windows(H: int, W: int, Ho: int, Wo: int) -> np.ndarray:
    """Flat positions h * W + w of every adaptive window's elements, [Ho * Wo, K] row-major,
    each padded up to the largest window with copies of its first element (a copy after the
    real elements never wins over it: the first maximum stays the first)."""
    rows = [((i * H) // Ho, -(-((i + 1) * H) // Ho)) for i in range(Ho)]
    cols = [((j * W) // Wo, -(-((j + 1) * W) // Wo)) for j in range(Wo)]
    K = max(b - a for a, b in rows) * max(d - c for c, d in cols)
    table = np.empty((Ho * Wo, K), np.int64)
    for i, (a, b) in enumerate(rows):
        for j, (c, d) in enumerate(cols):
            pos = (np.arange(a, b)[:, None] * W + np.arange(c, d)).ravel()
            table[i * Wo + j] = np.concatenate([pos, np.full(K - pos.size, pos[0])])
    table.setflags(write=False)
    return table


def adaptive_max_pool2d(x: Tensor, output_size: Any, return_mask: bool = False,
                        name: str | None = None) -> Any:
    """Max over adaptive windows (rows floor(i*H/Ho) to ceil((i+1)*H/Ho), columns alike) of
    x [N, C, H, W] (NCHW only, as Paddle). The gradient goes to the first maximum of a window,
    and return_mask gives its index h * W + w (int32). The windows are gathered into
    [N, C, Ho * Wo, K] and reduced by the max-pooling primitive."""
    require_float(x, "adaptive_max_pool2d")
    if x.ndim != 4:
        raise ValueError(f"adaptive_max_pool2d needs a 4-D input, got shape {x.shape}")
    N, C, H, W = x.shape
    Ho, Wo = _adaptive_sizes(x, output_size)
    if H % Ho == 0 and W % Wo == 0:         # equal windows: plain max pooling, one node
        if not return_mask:
            kh, kw = H // Ho, W // Wo
            return apply_xy(max_pool_op, x, attrs=pool_attrs((kh, kw), (kh, kw),
                                                             ((0, 0), (0, 0))))
        return max_pool2d(x, [H // Ho, W // Wo], [H // Ho, W // Wo], 0, return_mask)
    table = _adaptive_windows(H, W, Ho, Wo)
    K = table.shape[1]
    idx = (np.arange(N * C, dtype=np.int64).reshape(N, C, 1, 1) * (H * W) + table).ravel()
    cols = _take_flat(x, idx, (N, C, Ho * Wo, K))
    y = reshape(max_pool(cols, (1, K), (1, K), ((0, 0), (0, 0))), [N, C, Ho, Wo])
    if not return_mask:
        return y
    arg = window_offsets(cols._data, (1, K), (1, K), ((0, 0), (0, 0)))[..., 0]
    mask = np.take_along_axis(np.broadcast_to(table, (N, C) + table.shape),
                              arg[..., None].astype(np.int64), axis=-1)
    return y, Tensor._make(mask.reshape(N, C, Ho, Wo).astype(np.int32))


def adaptive_max_pool1d(x: Tensor, output_size: Any, return_mask: bool = False,
                        name: str | None = None) -> Any:
    """adaptive_max_pool2d over [N, C, 1, L]; the mask holds indices along L."""
    out = adaptive_max_pool2d(_unit_h(x, "adaptive_max_pool1d"),
                              [1, _one(output_size, "output_size")], return_mask)
    if return_mask:
        return _drop_h(out[0]), _drop_h(out[1])
    return _drop_h(out)


def adaptive_avg_pool1d(x: Tensor, output_size: Any, name: str | None = None) -> Tensor:
    """adaptive_avg_pool2d over [N, C, 1, L]."""
    return _drop_h(adaptive_avg_pool2d(_unit_h(x, "adaptive_avg_pool1d"),
                                       [1, _one(output_size, "output_size")]))
