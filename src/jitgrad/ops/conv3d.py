"""3-D convolution and pooling on [N, C, D, H, W] (or NDHWC) input, as sums and maxima over
the kernel's depth taps of the 2-D ops: tap k reads the depth slices k * dilation +
stride * [0, Do) (padded with zeros, or left out of a pooling window), each a batch of
[N * Do, C, H, W] images for conv2d / the 2-D pools. Gradients come from those ops' rules.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from .conv import _pair, _padding, conv2d
from .core import require_float
from .core import FLOAT16, call_in_float32
from .indexing import concat
from .pool import _fit_one_window, max_pool2d, sum_pool2d, window_counts
from .shape import getitem, reshape, transpose

NAMES = ["conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
         "adaptive_max_pool3d"]


def _to_ncdhw(x: Tensor, data_format: str, what: str) -> tuple[Tensor, bool]:
    fmt = data_format.upper()
    if fmt not in ("NCDHW", "NDHWC"):
        raise ValueError(f"{what}: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")
    if x.ndim != 5:
        raise ValueError(f"{what} needs a 5-D input, got shape {list(x.shape)}")
    last = fmt == "NDHWC"
    return (transpose(x, [0, 4, 1, 2, 3]) if last else x), last


def _from_ncdhw(y: Tensor, last: bool) -> Tensor:
    return transpose(y, [0, 2, 3, 4, 1]) if last else y


def _pad_depth(x: Tensor, before: int, after: int, value: float) -> Tensor:
    if not before and not after:
        return x
    N, C, _, H, W = x.shape
    fills = [Tensor._make(np.full((N, C, n, H, W), value, x._data.dtype)) if n else None
             for n in (before, after)]
    return concat([t for t in (fills[0], x, fills[1]) if t is not None], axis=2)


def _taps(x: Tensor, kd: int, sd: int, dd: int, Do: int) -> list[Tensor]:
    """For each depth tap, [N * Do, C, H, W]: the slices that tap reads, as images."""
    N, C, _, H, W = x.shape
    out = []
    for k in range(kd):
        start = k * dd
        part = getitem(x, (slice(None), slice(None), slice(start, start + sd * (Do - 1) + 1, sd)))
        out.append(reshape(transpose(part, [0, 2, 1, 3, 4]), [N * Do, C, H, W]))
    return out


def _volumes(y: Tensor, N: int, Do: int) -> Tensor:
    """[N * Do, O, Ho, Wo] -> [N, O, Do, Ho, Wo]."""
    _, O, Ho, Wo = y.shape
    return transpose(reshape(y, [N, Do, O, Ho, Wo]), [0, 2, 1, 3, 4])


def _out_len(n: int, k: int, s: int, d: int, pad: tuple[int, int], ceil: bool = False) -> int:
    span = n + pad[0] + pad[1] - d * (k - 1) - 1
    return (-(-span // s) if ceil else span // s) + 1


def conv3d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, data_format: str = "NCDHW",
           name: str | None = None) -> Tensor:
    """3-D convolution (cross-correlation, as Paddle): x [N, C, D, H, W], weight
    [O, C / groups, kd, kh, kw], bias [O]."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(conv3d, locals())
    require_float(x, "conv3d")
    x, last = _to_ncdhw(x, data_format, "conv3d")
    if weight.ndim != 5:
        raise ValueError(f"conv3d needs a 5-D weight, got shape {list(weight.shape)}")
    N, C, D, H, W = x.shape
    O, Cg, kd, kh, kw = weight.shape
    if C % groups or O % groups or Cg != C // groups:
        raise ValueError(f"conv3d: input channels {C}, weight {list(weight.shape)} and groups "
                         f"{groups} do not fit")
    st, dl = _pair(stride, 3, "stride"), _pair(dilation, 3, "dilation")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dl = [1, 1, 1]                  # Paddle 3.3.1's SAME padding drops the dilation
    widths = _padding(padding, 3, (kd, kh, kw), dl, st, (D, H, W), last)
    Do = _out_len(D, kd, st[0], dl[0], widths[0])
    if Do <= 0:
        raise ValueError(f"conv3d: the kernel ({kd} deep, dilation {dl[0]}) is larger than "
                         f"the padded depth {D + sum(widths[0])}")
    xp = _pad_depth(x, *widths[0], 0.0)
    pad2 = [widths[1][0], widths[1][1], widths[2][0], widths[2][1]]
    total = None
    for k, tap in enumerate(_taps(xp, kd, st[0], dl[0], Do)):
        y = conv2d(tap, getitem(weight, (slice(None), slice(None), k)), None, st[1:], pad2,
                   dl[1:], groups)
        total = y if total is None else total + y
    out = _volumes(total, N, Do)
    if bias is not None:
        out = out + reshape(bias, [1, O, 1, 1, 1])
    return _from_ncdhw(out, last)


def _pool3d(x: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
            data_format: str, what: str, pool2d: Callable, combine: Callable,
            fill: float) -> tuple[Tensor, bool, int, list]:
    require_float(x, what)
    x, last = _to_ncdhw(x, data_format, what)
    k = _pair(kernel_size, 3, "kernel_size")
    st = k if stride is None else _pair(stride, 3, "stride")
    widths = [_fit_one_window(w, n, kk, s, ceil_mode) for w, n, kk, s
              in zip(_padding(padding, 3, k, [1, 1, 1], st, x.shape[2:], last), x.shape[2:],
                     k, st)]
    N, C, D = x.shape[:3]
    Do = _out_len(D, k[0], st[0], 1, widths[0], ceil_mode)
    xp = _pad_depth(x, widths[0][0], widths[0][1] + st[0] * k[0], fill)   # (room for ceil)
    pad2 = [widths[1][0], widths[1][1], widths[2][0], widths[2][1]]
    total = None
    for tap in _taps(xp, k[0], st[0], 1, Do):
        y = pool2d(tap, k[1:], st[1:], pad2, ceil_mode)
        total = y if total is None else combine(total, y)
    return _volumes(total, N, Do), last, Do, [k, st, widths]


def _first_max(a: Tensor, b: Tensor) -> Tensor:
    """The larger of two depth slices' maxima, a (the earlier slice) on a tie and b where it
    is NaN and a is not: the first maximum in the window's row-major order gets the whole
    gradient, as Paddle's and torch's max pooling give it (E.maximum would split a tie)."""
    u, v = a._data, b._data
    later = (v > u) | (np.isnan(v) & ~np.isnan(u))
    return E.where(later, b, a)


def max_pool3d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCDHW",
               name: str | None = None) -> Tensor:
    """The largest value of each window (padding never wins: it is -inf). return_mask: also
    each window's first maximum as its index d * H * W + h * W + w in the input volume
    (int32, as Paddle)."""
    out, last, _, (k, st, widths) = _pool3d(
        x, kernel_size, stride, padding, ceil_mode, data_format, "max_pool3d",
        lambda t, k, s, p, c: max_pool2d(t, k, s, p, ceil_mode=c), _first_max, -np.inf)
    if not return_mask:
        return _from_ncdhw(out, last)
    data = x._data.transpose(0, 4, 1, 2, 3) if last else x._data
    mask = Tensor._make(_window_argmax(data, k, st, [a for a, _ in widths], out.shape[2:]))
    return _from_ncdhw(out, last), _from_ncdhw(mask, last)


def _window_argmax(x: np.ndarray, k: list, st: list, before: list, outs: list) -> np.ndarray:
    """Per output of a 3-D max pool, the input index (d * H + h) * W + w of its window's
    first maximum in row-major order (a NaN wins), the padding being -inf (int32)."""
    sizes = x.shape[2:]
    after = [max(0, (o - 1) * s + kk - (n + a)) for o, s, kk, n, a
             in zip(outs, st, k, sizes, before)]
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(before, after)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, tuple(k), axis=(2, 3, 4))
    win = win[:, :, ::st[0], ::st[1], ::st[2]][:, :, :outs[0], :outs[1], :outs[2]]
    offs = np.unravel_index(np.argmax(win.reshape(win.shape[:5] + (-1,)), axis=-1), tuple(k))
    pos = [np.arange(o).reshape([-1 if i == d else 1 for i in range(3)]) * s - a + off
           for d, (o, s, a, off) in enumerate(zip(outs, st, before, offs))]
    return ((pos[0] * sizes[1] + pos[1]) * sizes[2] + pos[2]).astype(np.int32)


def avg_pool3d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, exclusive: bool = True, divisor_override: Any = None,
               data_format: str = "NCDHW", name: str | None = None) -> Tensor:
    """The mean of each window: over its elements inside the input (exclusive, Paddle's
    default) or also over the padding it covers (as avg_pool2d counts it); divisor_override
    scales that mean by the kernel's volume over it (Paddle 3.3.1's formula)."""
    def sum2d(t: Tensor, k: Any, s: Any, p: Any, c: bool) -> Tensor:
        return sum_pool2d(t, k, s, p, ceil_mode=c)
    total, last, Do, (k, st, widths) = _pool3d(
        x, kernel_size, stride, padding, ceil_mode, data_format, "avg_pool3d", sum2d,
        lambda a, b: a + b, 0.0)
    count = window_counts(k, x.shape[1:4] if last else x.shape[2:], [a for a, _ in widths],
                          st, total.shape[2:], not exclusive)
    if divisor_override:        # Paddle 3.3.1: the mean times kd * kh * kw / divisor_override
        scale = k[0] * k[1] * k[2] / (count * float(divisor_override))
        return _from_ncdhw(total * Tensor._make(scale.astype(x._data.dtype)), last)
    if not exclusive:
        return _from_ncdhw(total * Tensor._make((1.0 / count).astype(x._data.dtype)), last)
    return _from_ncdhw(total / Tensor._make(count.astype(x._data.dtype)), last)


def _adaptive_depth(x: Tensor, output_size: Any, what: str, pool2d: Callable,
                    combine: Callable, finish: Callable) -> Tensor:
    """Pool each depth slice by pool2d to (Ho, Wo), then combine the slices of each adaptive
    depth window (floor(i * D / Do) to ceil((i + 1) * D / Do)) and finish(total, count)."""
    sizes = [output_size] * 3 if isinstance(output_size, (int, np.integer)) or \
        output_size is None else list(output_size)
    if len(sizes) != 3:
        raise ValueError(f"{what}: output_size must be an int or 3 sizes, got {output_size!r}")
    N, C, D, H, W = x.shape
    Do, Ho, Wo = (n if s is None else int(s) for s, n in zip(sizes, (D, H, W)))
    if min(Do, Ho, Wo) <= 0:
        raise ValueError(f"{what}: output sizes must be positive, got {[Do, Ho, Wo]}")
    planes = pool2d(reshape(transpose(x, [0, 2, 1, 3, 4]), [N * D, C, H, W]), [Ho, Wo])
    planes = reshape(planes, [N, D, C, Ho, Wo])
    outs = []
    for i in range(Do):
        a, b = (i * D) // Do, -(-((i + 1) * D) // Do)
        total = None
        for d in range(a, b):
            plane = getitem(planes, (slice(None), d))
            total = plane if total is None else combine(total, plane)
        outs.append(finish(total, b - a))
    return transpose(reshape(concat([reshape(o, [N, 1, C, Ho, Wo]) for o in outs], axis=1),
                             [N, Do, C, Ho, Wo]), [0, 2, 1, 3, 4])


def adaptive_avg_pool3d(x: Tensor, output_size: Any, data_format: str = "NCDHW",
                        name: str | None = None) -> Tensor:
    """The mean of each adaptive window (a None size keeps that dim)."""
    from .pool import adaptive_avg_pool2d
    require_float(x, "adaptive_avg_pool3d")
    x, last = _to_ncdhw(x, data_format, "adaptive_avg_pool3d")
    out = _adaptive_depth(x, output_size, "adaptive_avg_pool3d", adaptive_avg_pool2d,
                          lambda a, b: a + b, lambda t, n: t / float(n))
    return _from_ncdhw(out, last)


def adaptive_max_pool3d(x: Tensor, output_size: Any, return_mask: bool = False,
                        name: str | None = None) -> Tensor:
    """The largest value of each adaptive window (NCDHW, as Paddle)."""
    from .pool import adaptive_max_pool2d
    require_float(x, "adaptive_max_pool3d")
    x, _ = _to_ncdhw(x, "NCDHW", "adaptive_max_pool3d")
    out = _adaptive_depth(x, output_size, "adaptive_max_pool3d", adaptive_max_pool2d,
                          _first_max, lambda t, n: t)
    if not return_mask:
        return out
    return out, Tensor._make(_adaptive_argmax(x._data, out.shape[2:]))


def _adaptive_argmax(x: np.ndarray, outs: list) -> np.ndarray:
    """Per output of an adaptive 3-D max pool, the input index (d * H + h) * W + w of its
    window's first maximum in row-major order (a NaN wins), int32 as Paddle's mask."""
    N, C, D, H, W = x.shape
    spans = [[((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]
             for n, o in zip((D, H, W), outs)]
    mask = np.empty((N, C, *outs), np.int32)
    for i, (d0, d1) in enumerate(spans[0]):
        for j, (h0, h1) in enumerate(spans[1]):
            for k, (w0, w1) in enumerate(spans[2]):
                win = x[:, :, d0:d1, h0:h1, w0:w1]
                d, h, w = np.unravel_index(np.argmax(win.reshape(N, C, -1), axis=-1),
                                           win.shape[2:])
                mask[:, :, i, j, k] = ((d + d0) * H + h + h0) * W + w + w0
    return mask


def conv3d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1, output_size: Any = None, data_format: str = "NCDHW",
                     name: str | None = None) -> Tensor:
    """3-D transposed convolution (conv3d's gradient with respect to its input): x [N, C, D,
    H, W], weight [C, O / groups, kd, kh, kw] (Paddle's order: groups before dilation here).
    Each depth tap is a conv2d_transpose of the depth slices, added at depths i * stride +
    tap * dilation, then the depth padding is cropped."""
    from .conv import conv2d_transpose
    from .creation import zeros
    from .indexing import put_flat
    from .shape import _flat_positions
    require_float(x, "conv3d_transpose")
    x, last = _to_ncdhw(x, data_format, "conv3d_transpose")
    if weight.ndim != 5:
        raise ValueError(f"conv3d_transpose needs a 5-D weight, got shape {list(weight.shape)}")
    N, C, D, H, W = x.shape
    Cw, Og, kd, kh, kw = weight.shape
    if Cw != C or C % groups:
        raise ValueError(f"conv3d_transpose: input channels {C}, weight {list(weight.shape)} "
                         f"and groups {groups} do not fit (weight is [C, O / groups, k...])")
    st, dl = _pair(stride, 3, "stride"), _pair(dilation, 3, "dilation")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dl = [1, 1, 1]
    widths = _padding(padding, 3, (kd, kh, kw), dl, st, (D, H, W), last)
    full = [(n - 1) * s + d * (k - 1) + 1 for n, s, d, k in zip((D, H, W), st, dl, (kd, kh, kw))]
    inferred = [f - a - b for f, (a, b) in zip(full, widths)]
    if output_size is not None:
        want = _pair(output_size, 3, "output_size")
        extra = [o - i for o, i in zip(want, inferred)]
        if any(e < 0 or e >= s for e, s in zip(extra, st)):
            raise ValueError(f"conv3d_transpose: output_size {want} must lie in [inferred "
                             f"{inferred}, inferred + stride {st})")
    else:
        extra = _pair(output_padding, 3, "output_padding")
    if min(inferred) <= 0:
        raise ValueError(f"conv3d_transpose: the padding {widths} leaves no output "
                         f"({inferred}) for the input {[D, H, W]}")
    images = reshape(transpose(x, [0, 2, 1, 3, 4]), [N * D, C, H, W])
    pad2 = [widths[1][0], widths[1][1], widths[2][0], widths[2][1]]
    O = Og * groups
    Dp = full[0] + extra[0]
    out = None
    for k in range(kd):
        y = conv2d_transpose(images, getitem(weight, (slice(None), slice(None), k)), None,
                             st[1:], pad2, extra[1:], dl[1:], groups)
        Ho, Wo = y.shape[2:]
        if out is None:
            out = zeros([N, O, Dp, Ho, Wo], x._data.dtype)
            pos = _flat_positions((N, O, Dp, Ho, Wo))
        depths = np.arange(D) * st[0] + k * dl[0]
        out = put_flat(out, pos[:, :, depths], _volumes(y, N, D), "add")
    a, b = widths[0]
    if a or b:
        out = getitem(out, (slice(None), slice(None), slice(a, Dp - b)))
    if bias is not None:
        out = out + reshape(bias, [1, O, 1, 1, 1])
    return _from_ncdhw(out, last)
