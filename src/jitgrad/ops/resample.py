"""interpolate (nearest, linear, bilinear, bicubic, trilinear, area), upsample, unfold and
pixel_shuffle as composites: for finite inputs a matrix product per resized dim
(_separable), else gathers with index maps built once (take_flat) and constant
interpolation weights, one per tap (2 per dim for the linear modes, 4 for bicubic); area is
adaptive average pooling, as in Paddle."""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..core.tensor import Tensor
from .conv import _channels_first, _back, _pair, _padding
from .im2col import im2col
from .core import FLOAT16, call_in_float32, apply_xy, const, remember, require_float
from .elementwise import clone
from .shape import _flat_positions, _take_flat, reshape, reshape_op, transpose, transpose_op


def _out_size(insize: Sequence[int], size: Any, scale: Any) -> tuple[list[int], list[float]]:
    n = len(insize)
    if size is not None:
        out = [int(s.item() if isinstance(s, Tensor) else s) for s in
               ([size] * n if isinstance(size, int) else size)]
        if len(out) != n:       # (zip would drop the extra ones, or numpy fail a reshape)
            raise ValueError(f"interpolate: size {out} needs {n} values for the {n} spatial "
                             f"dims {list(insize)}")
        return out, [i / o for i, o in zip(insize, out)]
    if scale is None:
        raise ValueError("interpolate needs size or scale_factor")
    sc = [float(scale)] * n if isinstance(scale, (int, float)) else [float(s) for s in scale]
    if len(sc) != n:
        raise ValueError(f"interpolate: scale_factor {sc} needs {n} values for the {n} "
                         f"spatial dims {list(insize)}")
    return [int(math.floor(i * s)) for i, s in zip(insize, sc)], [1 / s for s in sc]


# the cubic convolution's A, Paddle's (and torch's)
_CUBIC_A = -0.75


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """The four taps' weights at fractional offset t: Keys' cubic convolution kernel at
    distances t + 1, t, 1 - t, 2 - t, in t's dtype (as Paddle's kernel, in the input's)."""
    A = t.dtype.type(_CUBIC_A)

    def near(x):                        # |x| <= 1
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def far(x):                         # 1 < |x| < 2
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_source(n_in: int, n_out: int, ratio: float, align_corners: bool,
                  dtype: np.dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    """bicubic's four taps per output index, the source position as Paddle's kernel finds
    it (a float32 ratio; the position and the weights in the input's dtype)."""
    dst = np.arange(n_out)
    if align_corners:
        r = np.float32((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        src = (r * dst.astype(np.float32)).astype(dtype)
    else:
        src = (np.float64(np.float32(ratio)) * (dst + 0.5) - 0.5).astype(dtype)
    base = np.floor(src)
    t = src - base
    base = base.astype(np.int64)
    return [(np.clip(base + k - 1, 0, n_in - 1), w) for k, w in enumerate(_cubic_weights(t))]


def _source(n_in: int, n_out: int, ratio: float, mode: str, align_corners: bool,
            align_mode: int, dtype: np.dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per output index along one dim: its taps, (source indices, weights) pairs, read-only
    and kept per arguments (_source_made's: a training step resizes the same shapes again,
    and making them took ~10 numpy calls a dim)."""
    return _source_kept(n_in, n_out, float(ratio), mode, bool(align_corners),
                        0 if align_mode == 0 else 1, np.dtype(dtype))


@functools.lru_cache(maxsize=64)
def _source_kept(n_in: int, n_out: int, ratio: float, mode: str, align_corners: bool,
                 align_mode: int, dtype: np.dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    taps = _source_made(n_in, n_out, ratio, mode, align_corners, align_mode, dtype)
    for pair in taps:
        for a in pair:
            a.setflags(write=False)
    return taps


def _source_made(n_in: int, n_out: int, ratio: float, mode: str, align_corners: bool,
                 align_mode: int, dtype: np.dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    if mode == "bicubic":
        return _cubic_source(n_in, n_out, ratio, align_corners, dtype)
    dst = np.arange(n_out, dtype=np.float64)
    if mode == "nearest":
        src = (np.round(dst * (n_in - 1) / max(n_out - 1, 1)) if align_corners
               else np.floor(dst * ratio))
        return [(np.clip(src, 0, n_in - 1).astype(np.int64), np.ones(n_out))]
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    elif align_mode == 0:
        src = np.maximum((dst + 0.5) * ratio - 0.5, 0.0)
    else:
        src = dst * ratio
    base = np.floor(src)
    t = src - base
    i0 = np.clip(base.astype(np.int64), 0, n_in - 1)
    return [(i0, 1.0 - t), (np.minimum(i0 + 1, n_in - 1), t)]


# interpolate's modes and the input ranks each takes (Paddle 3.3.1)
_MODE_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "bicubic": (4,),
               "trilinear": (5,), "area": (3, 4, 5)}

# the integer dtypes Paddle 3.3.1's nearest_interp kernel takes (the other modes: floats only)
_NEAREST_INTS = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8))


def interpolate(x: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False,
                name: str | None = None) -> Tensor:
    """Resize the spatial dims of [N, C, W], [N, C, H, W] or [N, C, D, H, W] input: nearest,
    linear (3-D), bilinear and bicubic (4-D), trilinear (5-D) or area (adaptive average
    pooling to `size`). data_format None: channels first. recompute_scale_factor: the
    sizes floor(in * scale_factor), then resampled as if `size` had been given (the
    coordinates map by in / out, not by 1 / scale_factor), as Paddle and torch. Nearest
    also takes int32, int64 and uint8 input and keeps its dtype (Paddle's kernels)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(interpolate, locals())
    if not (mode.lower() == "nearest" and x._data.dtype in _NEAREST_INTS):
        require_float(x, "interpolate")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if data_format is None:
        data_format = {3: "NCW", 5: "NCDHW"}.get(x.ndim, "NCHW")
    if isinstance(scale_factor, Tensor):
        scale_factor = scale_factor.tolist()
    if recompute_scale_factor and size is None and scale_factor is not None:
        fmt = data_format.upper()
        spatial = x.shape[1:-1] if fmt in ("NWC", "NLC", "NHWC", "NDHWC") else x.shape[2:]
        size = _out_size(spatial, None, scale_factor)[0]
        scale_factor = None
    mode = mode.lower()
    if mode not in _MODE_RANKS:
        raise ValueError(f"interpolate: mode must be one of {', '.join(_MODE_RANKS)}, got "
                         f"{mode!r}")
    if x.ndim not in _MODE_RANKS[mode]:
        raise ValueError(f"interpolate: mode {mode!r} takes a "
                         f"{' or '.join(f'{r}-D' for r in _MODE_RANKS[mode])} input, got "
                         f"{x.ndim}-D")
    fmt = data_format.upper()
    fmt = "NCHW" if fmt == "NCDHW" else "NHWC" if fmt == "NDHWC" else fmt
    x, last = _channels_first(x, fmt)
    if mode == "area":
        if size is None:
            raise ValueError("interpolate: mode 'area' needs size (scale_factor is not "
                             "enough, as in Paddle)")
        from .conv3d import adaptive_avg_pool3d
        from .pool import adaptive_avg_pool1d, adaptive_avg_pool2d
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}
        return _back(pool[x.ndim](x, size), last)
    sp = x.shape[2:]
    out, ratios = _out_size(sp, size, scale_factor)
    if out == list(sp):     # Paddle 3.3.1's kernels copy x when no size changes (whatever
        return _back(clone(x), last)        # scale_factor, e.g. 1.2 on 4 -> 4)
    if mode == "nearest":
        reps = [_nearest_factor(i, o, r, bool(align_corners)) for i, o, r in
                zip(sp, out, ratios)]
        if all(reps):                   # an integer upsampling: a repeat (maps cached)
            return _back(_repeat_each(x, reps), last)
        # else one gather, whose gradient goes to each source and nowhere else (a matrix
        # product would spread an inf upstream as NaN)
        sel = _nearest_positions(tuple(x.shape), tuple(out), tuple(ratios),
                                 bool(align_corners))
        return _back(_take_flat(x, sel, (*x.shape[:2], *out)), last)
    if mode in ("bilinear", "bicubic"):     # Paddle 3.3.1's 2-D kernels: ratio 0 for a
        ratios = [0.0 if o == 1 else r for o, r in zip(out, ratios)]    # dim resized to 1
    maps = [_source(i, o, r, mode, align_corners, align_mode, x._data.dtype)
            for i, o, r in zip(sp, out, ratios)]
    reps = [_repeat_factor(i, o, m) for i, o, m in zip(sp, out, maps)]
    if all(reps):
        return _back(_repeat_each(x, reps), last)
    if bool(np.isfinite(x._data).all()):
        return _back(_separable(x, maps, out), last)
    # a gather per combination of taps, each weighted: as Paddle's kernels, a zero weight
    # times inf or NaN spreads it to the neighbours the taps reach, no further
    with np.errstate(all="ignore"):     # (inf - inf: NaN, silently, as Paddle's)
        return _back(_tap_sum(x, maps, out), last)


@functools.lru_cache(maxsize=32)
def _nearest_positions(shape: tuple, out: tuple, ratios: tuple, align_corners: bool
                       ) -> np.ndarray:
    """The flat input position each output element of a nearest resize reads (read-only,
    kept per shapes: a training step resizes the same shapes again)."""
    maps = [_source(i, o, r, "nearest", align_corners, 0, np.dtype(np.float64))[0][0]
            for i, o, r in zip(shape[2:], out, ratios)]
    sel = _flat_positions(shape)[(slice(None), slice(None)) + np.ix_(*maps)].ravel()
    sel = np.array(sel, np.int64)
    sel.setflags(write=False)
    return sel


def _tap_sum(x: Tensor, maps: list, out: list) -> Tensor:
    N, C = x.shape[:2]
    pos = _flat_positions(tuple(x.shape))
    y = None
    for combo in np.ndindex(*[len(m) for m in maps]):
        taps = [m[k] for m, k in zip(maps, combo)]
        w = np.ones(out)
        for d, (_, wd) in enumerate(taps):
            shape = [1] * len(out)
            shape[d] = out[d]
            w = w * wd.reshape(shape)
        if not w.any():
            continue
        sel = pos[(slice(None), slice(None)) + np.ix_(*[i for i, _ in taps])]
        term = _take_flat(x, sel.ravel(), (N, C, *out)) * const(w, x._data.dtype)
        y = term if y is None else y + term
    return y


@functools.lru_cache(maxsize=64)
def _nearest_factor(n_in: int, n_out: int, ratio: float, align_corners: bool) -> int:
    """_repeat_factor of nearest's map along one dim (which depends on these alone):
    cached, as a training loop asks for the same one every step."""
    return _repeat_factor(n_in, n_out, _source(n_in, n_out, ratio, "nearest", align_corners,
                                               0, np.dtype(np.float64)))


def _repeat_factor(n_in: int, n_out: int, source: tuple) -> int:
    """r when output index o reads input o // r (nearest by an integer factor), else 0."""
    if len(source) != 1:                # (nearest's one tap)
        return 0
    i0 = source[0][0]
    rep = n_out // n_in
    return rep if rep * n_in == n_out and np.array_equal(i0, np.arange(n_out) // rep) else 0


def _repeat_each(x: Tensor, reps: list[int]) -> Tensor:
    """Every spatial element repeated reps[d] times along dim d: [N, C, H, W] viewed as
    [N, C, H, 1, W, 1], broadcast to [N, C, H, rh, W, rw] and merged. Exact for any values
    (inf and nan too), and its gradient is a sum over the repeats (broadcast_to's), not
    the product with a resampling matrix that the general path's gradient runs. The values
    come from np.repeat (copying into the broadcast, whose innermost axis is a repeat of
    2 or 3, took ~3x as long), or for 2-D once Numba is loaded from vm/forward_window.py's
    repeat2d, the same copy in one pass (8x8x16x16 doubled: ~15 us, np.repeat's two ~45)."""
    from .core import apply_xy, compiled_kernels
    from .shape import broadcast_op
    inter, full, merged = list(x.shape[:2]), list(x.shape[:2]), list(x.shape[:2])
    for n, r in zip(x.shape[2:], reps):
        inter += [n, 1]
        full += [n, r]
        merged.append(n * r)
    data = x._data
    kernels = compiled_kernels("forward_window") if len(reps) == 2 and \
        data.dtype.char in "fd" and data.size else None
    if kernels is not None:             # (once Numba is loaded: one pass, ~3x faster)
        out = np.empty(merged, data.dtype)
        kernels.repeat2d(np.ascontiguousarray(data), int(reps[0]), int(reps[1]), out)
        data = out
    else:
        for axis, r in enumerate(reps):
            data = np.repeat(data, r, axis=2 + axis)
    spread = apply_xy(broadcast_op, reshape(x, inter), None, {"shape": tuple(full)},
                      out=data.reshape(full))
    return reshape(spread, merged)


def _resample_matrix(n_in: int, taps: list) -> np.ndarray:
    """[n_out, n_in]: row o holds output o's weights on its source indices (read-only; kept
    for _source's kept taps, which the entry holds: its id cannot be reused meanwhile)."""
    kept = _MATRICES.get(id(taps))
    if kept is not None and kept[0] is taps and kept[1] == n_in:
        return kept[2]
    m = np.zeros((taps[0][0].size, n_in))
    rows = np.arange(m.shape[0])
    for idx, w in taps:
        np.add.at(m, (rows, idx), w)
    m.setflags(write=False)
    if len(_MATRICES) >= 64:
        _MATRICES.clear()
    _MATRICES[id(taps)] = (taps, n_in, m)
    return m


_MATRICES: dict[int, tuple] = {}


def _separable(x: Tensor, maps: list, out: list) -> Tensor:
    """The resize as one matrix product per spatial dim, the last first (y = Mh @ x @ Mw^T
    for 2-D): a matmul node per dim with a small constant matrix instead of a gather
    (65536-entry index tables rebound every step) and a multiply and an add per tap. For
    finite x only: a zero weight times inf or NaN would spread it along the row."""
    from .linalg import matmul
    dt = x._data.dtype
    y = x
    nd = len(out)
    for d in reversed(range(nd)):
        n_in = x.shape[2 + d]
        if out[d] == n_in and len(maps[d]) == 1 and \
                np.array_equal(maps[d][0][0], np.arange(n_in)):
            continue                        # identity along this dim
        m = _resample_matrix(n_in, maps[d])
        if d == nd - 1:
            y = matmul(y, const(m.T, dt))
            continue
        m = const(m, dt)
        if d == nd - 2:
            y = matmul(m, y)
        else:                               # (trilinear's depth: moved next to last)
            perm = list(range(y.ndim))
            perm[2 + d], perm[-2] = perm[-2], perm[2 + d]
            y = transpose(matmul(m, transpose(y, perm)), perm)
    return y if y is not x else x * 1.0


def upsample(x: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def block_padding(paddings: Any, k: Any, dl: Any, st: Any, hw: Any) -> Any:
    """unfold's and fold's paddings as conv's _padding reads them: their four numbers are
    [top, left, bottom, right] (Paddle's order for these two), conv's [top, bottom, left,
    right]."""
    if isinstance(paddings, Tensor):
        paddings = paddings.tolist()
    if isinstance(paddings, (list, tuple)) and len(paddings) == 4 and \
            all(isinstance(p, (int, np.integer)) for p in paddings):
        t, left, b, r = paddings
        paddings = [t, b, left, r]
    return _padding(paddings, 2, k, dl, st, hw)


def unfold(x: Tensor, kernel_sizes: Any, strides: Any = 1, paddings: Any = 0,
           dilations: Any = 1, name: str | None = None) -> Tensor:
    """im2col: [N, C, H, W] -> [N, C * kh * kw, L] sliding blocks (Paddle's F.unfold)."""
    require_float(x, "unfold")
    k = _pair(kernel_sizes, 2, "kernel_sizes")
    st, dl = _pair(strides, 2, "strides"), _pair(dilations, 2, "dilations")
    widths = block_padding(paddings, k, dl, st, x.shape[2:])
    N, C = x.shape[:2]
    cols = im2col(x, k, st, dl, widths)
    return reshape(cols, [N, C * k[0] * k[1], cols.shape[3]])


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW",
                  name: str | None = None) -> Tensor:
    """[N, C, H, W] -> [N, C / r^2, H r, W r]: three nodes (reshape to [N, C / r^2, r, r, H,
    W], transpose to [N, C / r^2, H, r, W, r], reshape), their gradient one gather (the
    transpose's). The common case takes a plan cached per (shape, r) and the last node's
    values from r strided copies (_interleave); others the nodes' own forwards."""
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    s = x._data.shape
    if type(upscale_factor) is int and len(s) == 4 and fmt in ("NCHW", "NHWC"):
        last = fmt == "NHWC"
        plan = _shuffle_plan((s[0], s[3], s[1], s[2]) if last else s, upscale_factor)
        if plan is not None:
            if last:
                x = transpose(x, [0, 3, 1, 2])
            y = _shuffled(x, plan)
            return transpose(y, [0, 2, 3, 1]) if last else y
    return _shuffle_nodes(x, upscale_factor, data_format)


def _shuffle_nodes(x: Tensor, upscale_factor: int, data_format: str) -> Tensor:
    """pixel_shuffle by the public reshape and transpose (their checks and errors)."""
    x, last = _channels_first(x, data_format)
    N, C, H, W = x.shape
    r = int(upscale_factor)
    if C % (r * r):
        raise ValueError(f"pixel_shuffle: {C} channels are not divisible by {r * r}")
    y = reshape(x, [N, C // (r * r), r, r, H, W])
    y = transpose(y, [0, 1, 4, 2, 5, 3])
    return _back(reshape(y, [N, C // (r * r), H * r, W * r]), last)


class _Shuffle(NamedTuple):
    """pixel_shuffle's three nodes' attributes for one (shape, r): dicts the nodes share
    (nothing writes node.attrs), plain-int tuples (the program cache matches them fast)."""
    to6: dict           # reshape to [N, C / r^2, r, r, H, W]
    perm: dict          # transpose to [N, C / r^2, H, r, W, r]
    to4: dict           # reshape to [N, C / r^2, H r, W r]


_SHUFFLE_PERM = (0, 1, 4, 2, 5, 3)
_SHUFFLES: dict[tuple, _Shuffle] = {}
_SHUFFLES_KEPT = 128


def _shuffle_plan(shape: tuple, r: int) -> _Shuffle | None:
    """The cached plan of an NCHW pixel_shuffle; None for r < 2 or channels not divisible
    by r^2 (the public ops' path: its error, r = 1's view)."""
    key = (shape, r)
    plan = _SHUFFLES.get(key)
    if plan is None:
        N, C, H, W = shape
        if r < 2 or C % (r * r):
            return None
        c = C // (r * r)
        plan = _Shuffle({"shape": (N, c, r, r, H, W)}, {"perm": _SHUFFLE_PERM},
                        {"shape": (N, c, H * r, W * r)})
        remember(_SHUFFLES, key, plan, _SHUFFLES_KEPT)
    return plan


def _shuffled(x: Tensor, plan: _Shuffle) -> Tensor:
    """The three nodes _shuffle_nodes records, with the same values: the reshape's (a view,
    or numpy's C-order copy of a strided x), the transpose's view, and the last reshape's C
    order copy of it, made by _interleave (numpy's copy of the 6-D transposed view runs
    an inner loop of r elements: ~30 us of 16384 floats, _interleave's ~10)."""
    v6 = x._data.reshape(plan.to6["shape"])
    y6 = apply_xy(reshape_op, x, None, plan.to6, v6)
    t = apply_xy(transpose_op, y6, None, plan.perm, v6.transpose(_SHUFFLE_PERM))
    return apply_xy(reshape_op, t, None, plan.to4, _interleave(v6, plan.to4["shape"]))


def _interleave(v6: np.ndarray, out_shape: tuple) -> np.ndarray:
    """v6 [N, c, r, r, H, W] transposed to [N, c, H, r, W, r], C-contiguous, reshaped to
    out_shape: one strided copy per last-axis index j (inner runs of W elements)."""
    N, c, r, _, H, W = v6.shape
    out = np.empty((N, c, H, r, W, r), v6.dtype)
    for j in range(r):
        out[..., j] = v6[:, :, :, j].transpose(0, 1, 3, 2, 4)
    return out.reshape(out_shape)
