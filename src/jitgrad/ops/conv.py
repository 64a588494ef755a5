"""conv1d / conv2d (im2col + batched GEMM) and their transposes; pooling is in pool.py.

The im2col primitive (ops/im2col.py) unrolls windows with a strided view; its backward is the
compiled COL2IM. The bias rides in the GEMM as an extra weight column against a ones row of
the columns, so a convolution's compiled backward is two GEMMs + COL2IM (the weights' one
computed transposed: ops/conv_product.py), and its double gradient comes from those
primitives."""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from .conv_product import conv_product
from .core import FLOAT16, call_in_float32, remember, require_float
from .im2col import _positions, im2col, im2col_node, out_size
from .indexing import concat
from .indexing import pad as _pad
from .linalg import matmul
from .shape import _scatter_flat, reshape, reshape_to, transpose


_POSITIVE = frozenset({"stride", "strides", "dilation", "dilations", "kernel_size",
                       "kernel_sizes"})


def _pair(v: Any, n: int, what: str) -> list[int]:
    if isinstance(v, (int, np.integer)):
        v = [int(v)] * n
    else:
        v = [int(a) for a in v]
        if len(v) != n:
            raise ValueError(f"{what} must be an int or {n} ints, got {v}")
    if what in _POSITIVE and min(v, default=1) <= 0:   # (a stride 0 divided by zero)
        raise ValueError(f"{what} must be positive, got {v}")
    return v


def _padding(padding: Any, nsp: int, ksize: Sequence[int], dil: Sequence[int],
             stride: Sequence[int], insize: Sequence[int], channels_last: bool = False
             ) -> list[tuple[int, int]]:
    """Paddle's padding forms: int, [p per dim], [before, after per dim], one [before,
    after] pair per dim of the input (batch and channel ones zero), 'SAME', 'VALID'."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return [(0, 0)] * nsp
        if mode != "SAME":
            raise ValueError(f"padding must be 'SAME', 'VALID' or numbers, got {padding!r}")
        out = []
        for k, d, s, n in zip(ksize, dil, stride, insize):
            total = max((math.ceil(n / s) - 1) * s + (k - 1) * d + 1 - n, 0)
            out.append((total // 2, total - total // 2))
        return out
    if isinstance(padding, (int, np.integer)):
        return [(int(padding), int(padding))] * nsp
    p = [int(a) for a in np.asarray(padding).ravel()]
    if len(p) == 2 * (nsp + 2) and np.ndim(padding) == 2:     # [[0, 0], [0, 0], [b, a], ...]
        spatial = p[2:-2] if channels_last else p[4:]
        if any(p[:2]) or any(p[-2:] if channels_last else p[2:4]):
            raise ValueError(f"padding {padding!r}: the batch and channel dims cannot be "
                             f"padded")
        p = spatial
    if len(p) == nsp:
        return [(a, a) for a in p]
    if len(p) == 2 * nsp:
        return [(p[2 * i], p[2 * i + 1]) for i in range(nsp)]
    raise ValueError(f"padding {padding!r} does not fit {nsp} spatial dims")


def _windows(shape: Sequence[int], ksize, stride, dil) -> tuple[np.ndarray, list[int]]:
    """Flat positions into an [N, C, H, W] array of every window element:
    shape [N, C, kh, kw, Ho, Wo] (cached: a training loop asks for the same maps each step)."""
    idx, out = _windows_cached(tuple(shape), tuple(ksize), tuple(stride), tuple(dil))
    return idx, list(out)


@functools.lru_cache(maxsize=64)
def _windows_cached(shape: tuple, ksize: tuple, stride: tuple, dil: tuple):
    N, C, H, W = shape
    (kh, kw), (sh, sw), (dh, dw) = ksize, stride, dil
    Ho = (H - (kh - 1) * dh - 1) // sh + 1
    Wo = (W - (kw - 1) * dw - 1) // sw + 1
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"the kernel {list(ksize)} (dilation {list(dil)}) is larger than the "
                         f"padded input {[H, W]}")
    n = np.arange(N).reshape(N, 1, 1, 1, 1, 1) * (C * H * W)
    c = np.arange(C).reshape(1, C, 1, 1, 1, 1) * (H * W)
    r = (np.arange(kh).reshape(1, 1, kh, 1, 1, 1) * dh
         + np.arange(Ho).reshape(1, 1, 1, 1, Ho, 1) * sh) * W
    q = (np.arange(kw).reshape(1, 1, 1, kw, 1, 1) * dw
         + np.arange(Wo).reshape(1, 1, 1, 1, 1, Wo) * sw)
    idx = (n + c + r + q).astype(np.int64)
    idx.setflags(write=False)
    return idx, (Ho, Wo)


def _channels_first(x: Tensor, data_format: str) -> tuple[Tensor, bool]:
    data_format = {"NCW": "NCL", "NWC": "NLC"}.get(data_format.upper(), data_format)  # (1-D)
    last = data_format.upper() in ("NHWC", "NLC")
    if data_format.upper() not in ("NCHW", "NHWC", "NCL", "NLC"):
        raise ValueError(f"unsupported data_format {data_format!r}")
    if last:
        x = transpose(x, [0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    return x, last


def _back(y: Tensor, last: bool) -> Tensor:
    return transpose(y, [0] + list(range(2, y.ndim)) + [1]) if last else y


def _spatial_pad(x: Tensor, widths: list[tuple[int, int]], value: float = 0.0) -> Tensor:
    if not any(a or b for a, b in widths):
        return x
    full = [0, 0, 0, 0] + [v for ab in widths for v in ab]
    return _pad(x, full, value=value)


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, data_format: str = "NCHW",
           name: str | None = None) -> Tensor:
    """2-D convolution (cross-correlation, as Paddle): x [N, C, H, W], weight
    [O, C / groups, kh, kw], bias [O]. A float16 x: computed in float32 and rounded once
    (core.call_in_float32)."""
    require_float(x, "conv2d")
    if x._data.dtype is FLOAT16:
        return call_in_float32(conv2d, locals())
    if data_format == "NCHW" and type(groups) is int and \
            (type(stride) is int or _ints(stride)) and \
            (type(padding) in _PLAIN or _ints(padding)) and \
            (type(dilation) is int or _ints(dilation)):
        # the common call (int, str or flat int-sequence arguments): its geometry, node
        # attributes and shapes cached, the same nodes recorded with fewer Python steps
        key = (x._data.shape, weight._data.shape, None if bias is None else bias._data.shape,
               _hashable(stride), _hashable(padding), _hashable(dilation), groups)
        plan = _PLANS.get(key)
        if plan is None:
            plan = _conv2d_plan(x, weight, bias, stride, padding, dilation, groups)
            remember(_PLANS, key, plan, _PLANS_MAX)
        if plan is not None:
            cols_attrs, w_attrs, b_attrs, y_attrs = plan
            cols = im2col_node(x, cols_attrs)
            w = reshape_to(weight, w_attrs)
            if bias is not None:
                w = concat([w, reshape_to(bias, b_attrs)], axis=2)
            return reshape_to(conv_product(w, cols), y_attrs)
    return _conv2d(x, weight, bias, stride, padding, dilation, groups, data_format)


_PLAIN = (int, str)


def _ints(v: Any) -> bool:
    """v a list or tuple of Python ints (conv1d's and the usual per-dim forms)."""
    if type(v) is not list and type(v) is not tuple:
        return False
    for a in v:
        if type(a) is not int:
            return False
    return True


def _hashable(v: Any) -> Any:
    return tuple(v) if type(v) is list else v


_PLANS: dict = {}       # (shapes, stride, padding, dilation, groups) -> _conv2d_plan's
_PLANS_MAX = 256


def _conv2d_dims(x: Tensor, weight: Tensor, groups: int) -> tuple:
    """(N, C, H, W, O, Cg, kh, kw) of an NCHW x and its weight, checked."""
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"conv2d needs a 4-D input and weight, got {x.shape} and "
                         f"{weight.shape}")
    N, C, H, W = x.shape
    O, Cg, kh, kw = weight.shape
    if not groups > 0:          # (else ZeroDivisionError 'integer modulo by zero')
        raise ValueError(f"conv2d: groups must be a positive int, got {groups}")
    if C % groups or O % groups or Cg != C // groups:
        raise ValueError(f"conv2d: input channels {C}, weight {weight.shape} and groups "
                         f"{groups} do not fit")
    return N, C, H, W, O, Cg, kh, kw


def _conv2d_plan(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                 dilation: Any, groups: int) -> tuple | None:
    """conv2d's node attributes for an NCHW call (the checks _conv2d makes raise here), or
    None when a bias of another shape than [O] leaves the call to _conv2d."""
    N, C, H, W, O, Cg, kh, kw = _conv2d_dims(x, weight, groups)
    if bias is not None and tuple(bias._data.shape) != (O,):
        return None
    st, dl = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dl = [1, 1]
    widths = _padding(padding, 2, (kh, kw), dl, st, (H, W), False)
    pads = tuple((int(p[0]), int(p[1])) for p in widths)
    Ho, Wo = (out_size(*a) for a in zip((H, W), (kh, kw), st, dl, pads))
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"the kernel {[kh, kw]} (dilation {dl}) is larger than the "
                         f"padded input {[H + sum(pads[0]), W + sum(pads[1])]}")
    G = int(groups)
    cols_attrs = {"ksize": (kh, kw), "stride": tuple(st), "dil": tuple(dl), "pads": pads,
                  "groups": G, "ones_row": bias is not None}
    return (cols_attrs, {"shape": (G, O // G, Cg * kh * kw)}, {"shape": (G, O // G, 1)},
            {"shape": (N, O, Ho, Wo)})


def _conv2d(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int, data_format: str) -> Tensor:
    """conv2d's general path (any argument forms, NHWC)."""
    x, last = _channels_first(x, data_format)
    N, C, H, W, O, Cg, kh, kw = _conv2d_dims(x, weight, groups)
    if bias is not None and tuple(bias.shape) != (O,):
        raise ValueError(f"conv2d: bias must have shape [{O}] (one value per output "
                         f"channel of weight {list(weight.shape)}), got {list(bias.shape)}")
    st, dl = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dl = [1, 1]                     # Paddle 3.3.1's SAME padding drops the dilation
    widths = _padding(padding, 2, (kh, kw), dl, st, (H, W), last)
    G = groups
    cols = im2col(x, (kh, kw), st, dl, widths, G, ones_row=bias is not None)
    w = reshape(weight, [G, O // G, Cg * kh * kw])
    if bias is not None:        # a ones row in cols: the bias gradient comes out of the GEMM
        w = concat([w, reshape(bias, [G, O // G, 1])], axis=2)
    Ho, Wo = (out_size(*a) for a in zip((H, W), (kh, kw), st, dl, widths))
    y = reshape(conv_product(w, cols), [N, O, Ho, Wo])
    return _back(y, last)


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, data_format: str = "NCL",
           name: str | None = None) -> Tensor:
    """1-D convolution: x [N, C, L], weight [O, C / groups, k]; conv2d with H = 1."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(conv1d, locals())
    x, last = _channels_first(x, data_format)
    if x.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"conv1d needs a 3-D input and weight, got {x.shape} and "
                         f"{weight.shape}")
    if isinstance(padding, str):
        pads = padding
    else:
        (a, b), = _padding(padding, 1, (weight.shape[-1],), [1], [1], [x.shape[-1]], last)
        pads = [0, 0, a, b]
    y = conv2d(reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]]),
               reshape(weight, [weight.shape[0], weight.shape[1], 1, weight.shape[2]]), bias,
               [1, _pair(stride, 1, "stride")[0]], pads,
               [1, _pair(dilation, 1, "dilation")[0]], groups)
    y = reshape(y, [y.shape[0], y.shape[1], y.shape[3]])
    return _back(y, last)


# ---- 1-D as 2-D: [N, C, L] <-> [N, C, 1, L] (the 1-D pools and conv1d_transpose) -------

def _pad1d(padding: Any, channels_last: bool = False) -> Any:
    """Paddle's 1-D padding forms (str, p, [p], [before, after], [[0, 0], [0, 0], [b, a]],
    or [[0, 0], [b, a], [0, 0]] for channels-last input) as the 2-D pools' [top, bottom,
    left, right] (or the string)."""
    if isinstance(padding, str):
        return padding
    if isinstance(padding, (int, np.integer)):
        return [0, 0, int(padding), int(padding)]
    p = list(padding)
    if len(p) == 3 and all(isinstance(a, (list, tuple)) for a in p):
        at = 1 if channels_last else 2
        if any(list(p[i]) != [0, 0] for i in range(3) if i != at):
            raise ValueError(f"padding {padding!r}: the batch and channel dims cannot be padded")
        p = list(p[at])
    if len(p) == 1:
        p = [p[0], p[0]]
    if len(p) != 2 or not all(isinstance(a, (int, np.integer)) for a in p):
        raise ValueError(f"padding {padding!r} must be a string, an int, [p], [before, after] "
                         f"or [[0, 0], [0, 0], [before, after]]")
    return [0, 0, int(p[0]), int(p[1])]


def _one(v: Any, what: str) -> int:
    return _pair(v, 1, what)[0]


def _unit_h(x: Tensor, what: str) -> Tensor:
    if x.ndim != 3:
        raise ValueError(f"{what} needs a 3-D input [N, C, L], got shape {x.shape}")
    return reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])


def _drop_h(y: Tensor) -> Tensor:
    return reshape(y, [y.shape[0], y.shape[1], y.shape[3]])


# ---- transposed convolutions: the columns of x scattered back onto the image (col2im) -----

def conv2d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, dilation: Any = 1,
                     groups: int = 1, output_size: Any = None, data_format: str = "NCHW",
                     name: str | None = None) -> Tensor:
    """2-D transposed convolution (the gradient of conv2d with respect to its input):
    x [N, C, H, W], weight [C, O / groups, kh, kw], bias [O]. Output size
    (H - 1) * stride - pad_before - pad_after + dilation * (kh - 1) + 1 + output_padding;
    output_size, when given, picks output_padding (it must lie below inferred + stride).
    Note Paddle's order: dilation comes before groups here (after it in conv1d_transpose).
    'SAME' pads as conv2d would on the input, with dilation 1 (Paddle's rule).

    A composite: one batched GEMM gives the columns W^T x [N, G, O/G * kh * kw, H * W], which
    a scatter adds onto the padded output (col2im), then the padding is cropped."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(conv2d_transpose, locals())
    require_float(x, "conv2d_transpose")
    x, last = _channels_first(x, data_format)
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"conv2d_transpose needs a 4-D input and weight, got {x.shape} and "
                         f"{weight.shape}")
    N, C, H, W = x.shape
    Cw, Og, kh, kw = weight.shape
    G = int(groups)
    if Cw != C or C % G:
        raise ValueError(f"conv2d_transpose: input channels {C}, weight {weight.shape} and "
                         f"groups {G} do not fit (weight is [C, O / groups, kh, kw])")
    st, dl = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dl = [1, 1]
    if (not isinstance(padding, str) and isinstance(padding, (list, tuple)) and len(padding) == 4
            and all(isinstance(p, (list, tuple)) for p in padding)):
        padding = [v for p in (padding[2:] if not last else padding[1:3]) for v in p]
    widths = _padding(padding, 2, (kh, kw), dl, st, (H, W))
    full = [(n - 1) * s + d * (k - 1) + 1 for n, s, d, k in zip((H, W), st, dl, (kh, kw))]
    inferred = [f - a - b for f, (a, b) in zip(full, widths)]
    if output_size is not None:
        want = _pair(output_size, 2, "output_size")
        extra = [o - i for o, i in zip(want, inferred)]
        if any(e < 0 or e >= s for e, s in zip(extra, st)):
            raise ValueError(f"conv2d_transpose: output_size {want} must lie in [inferred "
                             f"{inferred}, inferred + stride {st})")
    else:
        extra = _pair(output_padding, 2, "output_padding")
        if any(e < 0 or (e >= s and e >= d) for e, s, d in zip(extra, st, dl)):
            raise ValueError(f"conv2d_transpose: output_padding {extra} must be less than "
                             f"the stride {st} or the dilation {dl}")
    if min(inferred) <= 0:
        raise ValueError(f"conv2d_transpose: the padding {widths} leaves no output "
                         f"({inferred}) for the input {[H, W]}")
    Hp, Wp = full[0] + extra[0], full[1] + extra[1]
    O = Og * G
    w = transpose(reshape(weight, [G, C // G, Og * kh * kw]), [0, 2, 1])
    cols = matmul(w, reshape(x, [N, G, C // G, H * W]))      # [N, G, Og * kh * kw, H * W]
    idx, padded = _positions((N, O, Hp, Wp), (kh, kw), tuple(st), tuple(dl),
                             ((0, 0), (0, 0)), G)
    y = _scatter_flat(reshape(cols, [-1]), idx, padded)
    (pt, pb), (pl, pr) = widths
    if pt or pb or pl or pr:
        y = y[:, :, pt:Hp - pb, pl:Wp - pr]
    if bias is not None:
        y = y + reshape(bias, [1, O, 1, 1])
    return _back(y, last)


def conv1d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1, output_size: Any = None, data_format: str = "NCL",
                     name: str | None = None) -> Tensor:
    """1-D transposed convolution: x [N, C, L], weight [C, O / groups, k]; conv2d_transpose
    over [N, C, 1, L] (Paddle's order: groups before dilation here)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(conv1d_transpose, locals())
    x, last = _channels_first(x, data_format)
    if x.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"conv1d_transpose needs a 3-D input and weight, got {x.shape} and "
                         f"{weight.shape}")
    size = None if output_size is None else [1, _one(output_size, "output_size")]
    y = conv2d_transpose(_unit_h(x, "conv1d_transpose"),
                         reshape(weight, [weight.shape[0], weight.shape[1], 1, weight.shape[2]]),
                         bias, [1, _one(stride, "stride")], _pad1d(padding, last),
                         [0, _one(output_padding, "output_padding")],
                         [1, _one(dilation, "dilation")], groups, size)
    return _back(_drop_h(y), last)
