"""More of Paddle 3.3.1's nn.functional, as composites (their gradients come from the ops
they use): logsigmoid, swiglu, rms_norm, pixel_unshuffle, channel_shuffle, zeropad2d,
sequence_mask and the channel-wise and SELU-preserving dropouts."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .activation import log_sigmoid, silu
from .core import FLOAT16, call_in_float32, require_float
from .creation import generator
from .indexing import chunk, pad
from .linear_embedding import dropout
from .math import rsqrt
from .shape import reshape, transpose

NAMES = ["logsigmoid", "swiglu", "rms_norm", "pixel_unshuffle", "channel_shuffle",
         "zeropad2d", "sequence_mask", "dropout2d", "dropout3d", "alpha_dropout",
         "feature_alpha_dropout", "dropout1d", "gumbel_softmax", "rrelu", "lp_pool1d",
         "lp_pool2d", "fold", "max_unpool1d", "max_unpool2d", "max_unpool3d",
         "temporal_shift", "local_response_norm"]

logsigmoid = log_sigmoid

# SELU's constants: alpha_dropout keeps SELU activations' mean 0 and variance 1
_SELU_ALPHA_PRIME = -1.0507009873554805 * 1.6732632423543772


def swiglu(x: Tensor, y: Tensor | None = None, name: str | None = None) -> Tensor:
    """silu(x) * y; with y None, x's last axis is split in half: silu(first) * second."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(swiglu, locals())
    if y is None:
        if x.shape[-1] % 2:
            raise ValueError(f"swiglu: without y, x's last dim must be even, got {x.shape[-1]}")
        x, y = chunk(x, 2, axis=-1)
    return silu(x) * y


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float = 1e-05, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(input / sqrt(mean(input^2) + eps) * weight, 1 / sqrt(mean(input^2) + eps)), the mean
    over the trailing normalized_shape dims (Paddle 3.3.1's CPU build has no kernel for it:
    this follows its docs)."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(rms_norm, locals())
    require_float(input, "rms_norm")
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    n = len(shape)
    if n == 0 or list(input.shape[-n:]) != shape:
        raise ValueError(f"rms_norm: normalized_shape {shape} must be input's trailing dims "
                         f"(input shape {list(input.shape)})")
    axes = list(range(input.ndim - n, input.ndim))
    inv = rsqrt(R.mean(input * input, axis=axes, keepdim=True) + eps)
    out = input * inv
    if weight is not None:
        out = out * weight
    return out, reshape(inv, list(input.shape[:-n]))


def _channels_first(x: Tensor, data_format: str, what: str) -> tuple[Tensor, bool]:
    fmt = data_format.upper()
    if fmt not in ("NCHW", "NHWC"):
        raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x.ndim != 4:
        raise ValueError(f"{what} needs a 4-D input, got shape {list(x.shape)}")
    return (transpose(x, [0, 3, 1, 2]) if fmt == "NHWC" else x), fmt == "NHWC"


def _back(y: Tensor, last: bool) -> Tensor:
    return transpose(y, [0, 2, 3, 1]) if last else y


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str = "NCHW",
                    name: str | None = None) -> Tensor:
    """[N, C, H, W] -> [N, C * r * r, H / r, W / r]: pixel_shuffle's inverse."""
    x, last = _channels_first(x, data_format, "pixel_unshuffle")
    r = int(downscale_factor)
    N, C, H, W = x.shape
    if r <= 0 or H % r or W % r:
        raise ValueError(f"pixel_unshuffle: H ({H}) and W ({W}) must divide by the "
                         f"downscale_factor {r}")
    y = transpose(reshape(x, [N, C, H // r, r, W // r, r]), [0, 1, 3, 5, 2, 4])
    return _back(reshape(y, [N, C * r * r, H // r, W // r]), last)


def channel_shuffle(x: Tensor, groups: int, data_format: str = "NCHW",
                    name: str | None = None) -> Tensor:
    """The channels as [groups, C / groups], transposed (ShuffleNet's shuffle)."""
    x, last = _channels_first(x, data_format, "channel_shuffle")
    N, C, H, W = x.shape
    if groups <= 0 or C % groups:
        raise ValueError(f"channel_shuffle: the channels ({C}) must divide by groups "
                         f"({groups})")
    y = transpose(reshape(x, [N, groups, C // groups, H, W]), [0, 2, 1, 3, 4])
    return _back(reshape(y, [N, C, H, W]), last)


def zeropad2d(x: Tensor, padding: Any, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """Zeros around H and W: padding [left, right, top, bottom] (or one int)."""
    pads = [int(padding)] * 4 if isinstance(padding, (int, np.integer)) else \
        [int(p) for p in (padding._data.tolist() if isinstance(padding, Tensor) else padding)]
    if len(pads) != 4:
        raise ValueError(f"zeropad2d: padding must be an int or 4 ints, got {padding!r}")
    return pad(x, pads, mode="constant", value=0.0, data_format=data_format)


def sequence_mask(x: Tensor, maxlen: int | None = None, dtype: Any = "int64",
                  name: str | None = None) -> Tensor:
    """mask[..., j] = j < x[...]: x's lengths as masks of maxlen (default: the longest)."""
    from .elementwise import astype
    lengths = np.asarray(x._data if isinstance(x, Tensor) else x)
    if maxlen is None:
        maxlen = int(lengths.max()) if lengths.size else 0
    if isinstance(maxlen, Tensor):
        maxlen = int(maxlen.item())
    mask = np.arange(int(maxlen)) < lengths[..., None]
    return astype(Tensor._make(mask), dtype)


def _axes(x: Tensor, data_format: str, dims: int, what: str) -> list[int]:
    fmt = data_format.upper()
    if x.ndim != dims + 2:
        raise ValueError(f"{what} needs a {dims + 2}-D input, got shape {list(x.shape)}")
    if fmt == ("NCHW" if dims == 2 else "NCDHW"):
        return [0, 1]
    if fmt == ("NHWC" if dims == 2 else "NDHWC"):
        return [0, x.ndim - 1]
    raise ValueError(f"{what}: unsupported data_format {data_format!r}")


def dropout2d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """Whole channels zeroed with probability p, the rest scaled by 1 / (1 - p)."""
    return dropout(x, p, axis=_axes(x, data_format, 2, "dropout2d"), training=training)


def dropout3d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None) -> Tensor:
    return dropout(x, p, axis=_axes(x, data_format, 3, "dropout3d"), training=training)


def _alpha(x: Tensor, p: float, training: bool, mask_shape: tuple, what: str) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"{what}: p must be in [0, 1], got {p}")
    if not training or p == 0:
        return x
    require_float(x, what)
    dt = x._data.dtype
    if p == 1:                          # (every element dropped: the affine map is 0 / 0)
        return x * 0.0
    keep = generator().random(mask_shape) >= p
    a = 1.0 / math.sqrt((1 - p) * (1 + p * _SELU_ALPHA_PRIME ** 2))
    b = -a * _SELU_ALPHA_PRIME * p
    mask = Tensor._make(keep.astype(dt))
    fill = Tensor._make(((~keep) * (a * _SELU_ALPHA_PRIME) + b).astype(dt))
    return x * (mask * a) + fill


def alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True,
                  name: str | None = None) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value,
    and an affine map keeps the mean and variance."""
    return _alpha(x, p, training, tuple(x.shape), "alpha_dropout")


def feature_alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True,
                          name: str | None = None) -> Tensor:
    """alpha_dropout of whole channels (dims 0 and 1 masked together)."""
    shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2)
    return _alpha(x, p, training, shape, "feature_alpha_dropout")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> Tensor:
    """Whole channels of [N, C, L] (or [C, L]) zeroed with probability p, as Paddle's."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if input.ndim not in (2, 3):
        raise ValueError(f"dropout1d expects 2D or 3D input, got {input.ndim}D")
    if input.ndim == 2:
        return reshape(dropout(reshape(input, [1] + list(input.shape)), p, axis=1,
                               training=training), list(input.shape))
    return dropout(input, p, axis=1, training=training)


def gumbel_softmax(x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: str | None = None) -> Tensor:
    """softmax((x + Gumbel noise) / temperature) along axis; hard: the one-hot of its
    largest entry in value, the soft sample's gradient (straight through)."""
    from .nn import softmax
    require_float(x, "gumbel_softmax")
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    u = generator().random(x._data.shape)
    noise = Tensor._make((-np.log(-np.log(np.clip(u, 1e-20, 1.0)))).astype(x._data.dtype))
    soft = softmax((x + noise) / float(temperature), axis=axis)
    if not hard:
        return soft
    ax = axis % x.ndim
    top = np.argmax(soft._data, axis=ax)
    onehot = (np.arange(x.shape[ax]).reshape([-1 if i == ax else 1 for i in range(x.ndim)])
              == np.expand_dims(top, ax)).astype(x._data.dtype)
    return soft + Tensor._make(onehot - soft._data)


def rrelu(x: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name: str | None = None) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training
    and is (lower + upper) / 2 in eval."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"The lower and upper values must be float type. Received: lower "
                        f"{lower}, upper {upper}.")
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"rrelu: need 0 <= lower <= upper <= 1, got {lower} and {upper}")
    require_float(x, "rrelu")
    dt = x._data.dtype
    slope = generator().uniform(lower, upper, x._data.shape) if training else \
        np.full(x._data.shape, (lower + upper) / 2.0)
    factor = np.where(x._data >= 0, 1.0, slope).astype(dt)
    return x * Tensor._make(factor)


def lp_pool2d(x: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              padding: Any = 0, ceil_mode: bool = False, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """(sum over each window of x^p)^(1 / p), p = norm_type (padding adds zeros); for
    p = inf the window's maximum (max pooling, as Paddle 3.3.1)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(lp_pool2d, locals())
    from .pool import max_pool2d, sum_pool2d
    if norm_type == 0:
        raise ValueError("`norm_type` cannot be 0.")
    p = float(norm_type)
    if p in (np.inf, -np.inf):
        unpadded = padding == 0 or padding == "VALID" or (
            isinstance(padding, (list, tuple)) and not any(np.ravel(padding)))
        if p < 0 or not unpadded:
            raise ValueError(f"lp_pool: norm_type={p} is only supported as inf without "
                             f"padding (the window's maximum), got padding={padding!r}")
        return max_pool2d(x, kernel_size, stride, 0, ceil_mode=ceil_mode,
                          data_format=data_format)
    sums = sum_pool2d(x ** p, kernel_size, stride, padding, ceil_mode=ceil_mode,
                      data_format=data_format)
    return sums ** (1.0 / p)


def lp_pool1d(x: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              padding: Any = 0, ceil_mode: bool = False, data_format: str = "NCL",
              name: str | None = None) -> Tensor:
    """lp_pool2d over [N, C, 1, L] (or [N, L, 1, C] for NLC)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(lp_pool1d, locals())
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"lp_pool1d: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    last = data_format == "NLC"
    k = kernel_size[0] if isinstance(kernel_size, (list, tuple)) else kernel_size
    s = None if stride is None else (stride[0] if isinstance(stride, (list, tuple)) else stride)
    pads = padding if isinstance(padding, str) else \
        [0, 0] + ([int(padding)] * 2 if isinstance(padding, (int, np.integer)) else
                  ([int(padding[0])] * 2 if len(padding) == 1 else [int(v) for v in padding]))
    N = x.shape[0]
    x4 = reshape(x, [N, 1] + list(x.shape[1:])) if last else \
        reshape(x, [N, x.shape[1], 1, x.shape[2]])
    y = lp_pool2d(x4, norm_type, [1, k], None if s is None else [1, s], pads, ceil_mode,
                  "NHWC" if last else "NCHW")
    return reshape(y, [N, y.shape[2], y.shape[3]] if last else [N, y.shape[1], y.shape[3]])


def fold(x: Tensor, output_sizes: Any, kernel_sizes: Any, strides: Any = 1, paddings: Any = 0,
         dilations: Any = 1, name: str | None = None) -> Tensor:
    """col2im, unfold's adjoint: [N, C * kh * kw, L] blocks summed back into an [N, C, H, W]
    image (overlaps add up), H, W = output_sizes."""
    from .conv import _pair
    from .resample import block_padding
    from .im2col import _positions, out_size
    from .shape import _scatter_flat, getitem
    require_float(x, "fold")
    H, W = _pair(output_sizes, 2, "output_sizes")
    k = _pair(kernel_sizes, 2, "kernel_sizes")
    st, dl = _pair(strides, 2, "strides"), _pair(dilations, 2, "dilations")
    widths = block_padding(paddings, k, dl, st, (H, W))
    if x.ndim != 3 or x.shape[1] % (k[0] * k[1]):
        raise ValueError(f"fold: x must be [N, C * {k[0]} * {k[1]}, L], got {list(x.shape)}")
    N, C = x.shape[0], x.shape[1] // (k[0] * k[1])
    L = math.prod(out_size(*a) for a in zip((H, W), k, st, dl, widths))
    if x.shape[2] != L:
        raise ValueError(f"fold: x has {x.shape[2]} blocks, but output_sizes {[H, W]} with "
                         f"these kernel sizes, strides, paddings and dilations make {L}")
    idx, padded = _positions((N, C, H, W), tuple(k), tuple(st), tuple(dl), tuple(widths), 1)
    y = _scatter_flat(reshape(x, [-1]), idx, padded)
    (pt, _), (pl, _) = widths
    if padded[2:] != (H, W):
        y = getitem(y, (slice(None), slice(None), slice(pt, pt + H), slice(pl, pl + W)))
    return y


def _max_unpool(x: Tensor, indices: Any, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any, dims: int, what: str) -> Tensor:
    """Zeros of the unpooled size with x's values at indices (flat within each channel's
    spatial block, as max_pool's return_mask gives them)."""
    from .conv import _pair
    from .creation import zeros
    from .indexing import put_flat
    require_float(x, what)
    if x.ndim != dims + 2:
        raise ValueError(f"{what} needs a {dims + 2}-D input, got shape {list(x.shape)}")
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if idx.shape != tuple(x.shape):
        raise ValueError(f"{what}: indices must have x's shape {list(x.shape)}, got "
                         f"{list(idx.shape)}")
    k = _pair(kernel_size, dims, "kernel_size")
    st = k if stride is None else _pair(stride, dims, "stride")
    pd = _pair(padding, dims, "padding")
    sizes = [(n - 1) * s - 2 * p + kk for n, s, p, kk in zip(x.shape[2:], st, pd, k)]
    if output_size is not None:
        sizes = [int(v) for v in list(output_size)[-dims:]]
    N, C = x.shape[:2]
    block = math.prod(sizes)
    if idx.size and (idx.min() < 0 or idx.max() >= block):
        raise ValueError(f"{what}: an index is outside the output's {sizes} block")
    base = (np.arange(N * C, dtype=np.int64) * block).reshape((N, C) + (1,) * dims)
    out = zeros([N, C] + sizes, x._data.dtype)
    return put_flat(out, (base + idx.astype(np.int64)).ravel(), reshape(x, [-1]))


def max_unpool1d(x: Tensor, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, data_format: str = "NCL", output_size: Any = None,
                 name: str | None = None) -> Tensor:
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 1,
                       "max_unpool1d")


def max_unpool2d(x: Tensor, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, data_format: str = "NCHW", output_size: Any = None,
                 name: str | None = None) -> Tensor:
    """max_pool2d(return_mask=True)'s inverse: each value back at its recorded position,
    zeros elsewhere."""
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 2,
                       "max_unpool2d")


def max_unpool3d(x: Tensor, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, data_format: str = "NCDHW", output_size: Any = None,
                 name: str | None = None) -> Tensor:
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 3,
                       "max_unpool3d")


def temporal_shift(x: Tensor, seg_num: int, shift_ratio: float = 0.25, name: str | None = None,
                   data_format: str = "NCHW") -> Tensor:
    """TSM's shift of [N * T, C, H, W] (T = seg_num): the first C * shift_ratio channels
    take the previous frame's values, the next as many the next frame's (zeros past the
    ends), the rest stay."""
    from .creation import zeros
    from .indexing import concat
    from .shape import getitem
    x, last = _channels_first(x, data_format, "temporal_shift")
    NT, C, H, W = x.shape
    if seg_num <= 0 or NT % seg_num:
        raise ValueError(f"temporal_shift: the batch ({NT}) must divide by seg_num ({seg_num})")
    N, T, c1 = NT // seg_num, seg_num, int(C * shift_ratio)
    v = reshape(x, [N, T, C, H, W])
    if c1 == 0 or T == 1:
        parts = [v] if c1 == 0 else \
            [zeros([N, T, 2 * c1, H, W], x._data.dtype), getitem(v, (slice(None), slice(None),
                                                                       slice(2 * c1, None)))]
        return _back(reshape(concat(parts, axis=2) if len(parts) > 1 else v, [NT, C, H, W]),
                     last)
    pad = zeros([N, 1, c1, H, W], x._data.dtype)
    ch = (slice(None), slice(None))
    back = concat([pad, getitem(v, (slice(None), slice(0, T - 1), slice(0, c1)))], axis=1)
    fwd = concat([getitem(v, (slice(None), slice(1, T), slice(c1, 2 * c1))), pad], axis=1)
    rest = getitem(v, ch + (slice(2 * c1, None),))
    return _back(reshape(concat([back, fwd, rest], axis=2), [NT, C, H, W]), last)


def local_response_norm(x: Tensor, size: int, alpha: float = 0.0001, beta: float = 0.75,
                        k: float = 1.0, data_format: str = "NCHW",
                        name: str | None = None) -> Tensor:
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, the window
    [c - size // 2, c + (size - 1) // 2] zero-padded at the ends (Paddle's formula)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(local_response_norm, locals())
    from .indexing import concat
    from .creation import zeros
    from .shape import getitem
    require_float(x, "local_response_norm")
    fmt = data_format.upper()
    if fmt not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ValueError(f"local_response_norm: unsupported data_format {data_format!r}")
    if x.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input, but got {x.ndim} "
                         f"dimensions")
    if size <= 0:
        raise ValueError(f"local_response_norm: size must be positive, got {size}")
    last = fmt.endswith("C")
    if last:
        x = transpose(x, [0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    C = x.shape[1]
    sq = x * x
    before, after = size // 2, (size - 1) // 2
    shape = list(x.shape)
    parts = [zeros(shape[:1] + [before] + shape[2:], x._data.dtype)] if before else []
    parts.append(sq)
    if after:
        parts.append(zeros(shape[:1] + [after] + shape[2:], x._data.dtype))
    padded = concat(parts, axis=1) if len(parts) > 1 else sq
    total = None
    for j in range(size):
        part = getitem(padded, (slice(None), slice(j, j + C)))
        total = part if total is None else total + part
    out = x / (total * (alpha / size) + k) ** beta
    if last:
        out = transpose(out, [0] + list(range(2, out.ndim)) + [1])
    return out
