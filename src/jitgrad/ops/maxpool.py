"""The pooling primitives: max pooling, the first maximum of each window (Paddle CPU's tie
rule), and block_mean, average pooling over non-overlapping windows without padding.

The forward finds each window's winner (compiled once Numba is loaded; before, one strided
numpy view per kernel offset) and saves its offset k = i * kw + j in the window (int32).
The compiled backward is one POOL_BWD instruction that sends each output gradient to its
winner, with the winners read from the saved offsets (arena values) rather than an index
table: the Program depends only on shapes and attributes, never on the data, and the -inf
padding is folded in (no pad node)."""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from ..core.tensor import Tensor
from .core import apply_xy, vjp_on_arrays
from .elementwise import _compiled_forward
from .registry import defop
from .shape import _scatter_flat, getitem


def _geometry(shape, ksize, stride, pads):
    N, C, H, W = shape
    Ho = (H + sum(pads[0]) - ksize[0]) // stride[0] + 1
    Wo = (W + sum(pads[1]) - ksize[1]) // stride[1] + 1
    return N, C, H, W, Ho, Wo


def first_max(xp: np.ndarray, k: Sequence[int], st: Sequence[int]
              ) -> tuple[np.ndarray, np.ndarray]:
    """(max, offset i * kw + j of its first occurrence) of every window of xp, row-major;
    a NaN wins over numbers (the first NaN), as np.argmax."""
    N, C, Hp, Wp = xp.shape
    Ho, Wo = (Hp - k[0]) // st[0] + 1, (Wp - k[1]) // st[1] + 1
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"the kernel {list(k)} is larger than the padded input {[Hp, Wp]}")
    nan = bool(np.isnan(xp).any())          # NaN rule only when needed: ~30% faster
    best = arg = better = None
    for i in range(k[0]):
        for j in range(k[1]):
            v = xp[:, :, i:i + (Ho - 1) * st[0] + 1:st[0], j:j + (Wo - 1) * st[1] + 1:st[1]]
            if best is None:
                best, arg, better = v.copy(), np.zeros(v.shape, np.int32), np.empty(v.shape, bool)
                continue
            # strictly larger, or NaN over a number; offsets grow in scan order, so the
            # maximum with better * offset replaces exactly where better holds (np.where
            # and copyto(where=) measured 5-10x slower here)
            np.greater(v, best, out=better)
            if nan:
                better |= np.isnan(v) & ~np.isnan(best)
            np.maximum(arg, better * np.int32(i * k[1] + j), out=arg)
            np.maximum(best, v, out=best)
    return best, arg


def _first_max_padded(x: np.ndarray, ksize, stride, pads, lowest: float = -np.inf
                      ) -> tuple[np.ndarray, np.ndarray]:
    """first_max of x padded with -inf, maxima below `lowest` raised to it (NaN stays): by
    the compiled kernel once Numba is loaded (no padded copy, no NaN scan), else by
    numpy."""
    kernels = _compiled_forward() if x.dtype.char in "fd" and x.size else None
    if kernels is None:
        best, arg = first_max(_padded(x, pads), ksize, stride)
        if lowest > -np.inf:
            np.maximum(best, best.dtype.type(lowest), out=best)     # NaN stays NaN
        return best, arg
    N, C, H, W = x.shape
    (pt, pb), (pl, pr) = pads
    kh, kw = ksize
    sh, sw = stride
    Ho = (H + pt + pb - kh) // sh + 1
    Wo = (W + pl + pr - kw) // sw + 1
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"the kernel {list(ksize)} is larger than the padded input "
                         f"{[H + pt + pb, W + pl + pr]}")
    best = np.empty((N, C, Ho, Wo), x.dtype)
    arg = np.empty((N, C, Ho, Wo), np.int32)
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    kernels.first_max(x, int(kh), int(kw), int(sh), int(sw), int(pt), int(pl), float(lowest),
                      best, arg)
    return best, arg


def _padded(x: np.ndarray, pads: tuple) -> np.ndarray:
    if not any(map(any, pads)):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=-np.inf)


def window_offsets(x: np.ndarray, ksize, stride, pads) -> np.ndarray:
    """The offset in its window of every window's first maximum (what the op saves)."""
    return _first_max_padded(x, ksize, stride, tuple(pads))[1]


# Paddle's max pooling starts each window at -FLT_MAX (float64 too): a window that lies
# wholly in the padding (possible with ceil_mode or padding >= kernel) gives -3.4e38, not -inf
_LOWEST = -float(np.finfo(np.float32).max)


def pool_attrs(ksize, stride, pads) -> dict:
    """The max_pool2d node's attributes: plain ints (kh, kw, sh, sw, pt, pb, pl, pr), which
    the program cache's matcher compares inline, where the tuples ksize, stride and pads
    ((top, bottom), (left, right)) went through its general normaliser (~3 us a step)."""
    (pt, pb), (pl, pr) = pads
    return dict(kh=int(ksize[0]), kw=int(ksize[1]), sh=int(stride[0]), sw=int(stride[1]),
                pt=int(pt), pb=int(pb), pl=int(pl), pr=int(pr))


def _forward(x, kh, kw, sh, sw, pt, pb, pl, pr):
    best, arg = _first_max_padded(x, (kh, kw), (sh, sw), ((pt, pb), (pl, pr)),
                                  _LOWEST if pt or pb or pl or pr else -np.inf)
    return best, (arg,)


@functools.lru_cache(maxsize=32)
def _starts(N, C, Hp, Wp, Ho, Wo, st) -> np.ndarray:
    """Flat position in the padded input of every window's top-left element."""
    s = (np.arange(N * C).reshape(N, C, 1, 1) * (Hp * Wp)
         + np.arange(Ho).reshape(Ho, 1) * (st[0] * Wp) + np.arange(Wo) * st[1])
    s.setflags(write=False)
    return s


def winners(shape: tuple, arg: np.ndarray, ksize, stride, pads) -> tuple[np.ndarray, tuple]:
    """Flat positions in the padded input of the chosen elements, and the padded shape."""
    N, C, H, W, Ho, Wo = _geometry(shape, ksize, stride, pads)
    Hp, Wp = H + sum(pads[0]), W + sum(pads[1])
    i, j = np.divmod(arg.astype(np.int64), ksize[1])
    return _starts(N, C, Hp, Wp, Ho, Wo, tuple(stride)) + i * Wp + j, (N, C, Hp, Wp)


def _vjp(g, out, x, kh, kw, sh, sw, pt, pb, pl, pr):
    ksize, stride, pads = (kh, kw), (sh, sw), ((pt, pb), (pl, pr))
    arg = window_offsets(x._data, ksize, stride, pads)     # (eager rule: recomputed)
    pos, padded = winners(tuple(x._data.shape), arg, ksize, stride, pads)
    gx = _scatter_flat(g, pos.ravel(), padded)
    H, W = x._data.shape[2:]
    if padded[2:] != (H, W):
        (pt, _), (pl, _) = pads
        gx = getitem(gx, (slice(None), slice(None), slice(pt, pt + H), slice(pl, pl + W)))
    return (gx,)


def _pool_params(node) -> list[int]:
    """POOL_BWD's itab parameters for this node."""
    a = node.attrs
    N, C, H, W, Ho, Wo = _geometry(node.inputs[0]._data.shape, (a["kh"], a["kw"]),
                                   (a["sh"], a["sw"]), ((a["pt"], a["pb"]), (a["pl"], a["pr"])))
    return [N, C, H, W, a["kh"], a["kw"], a["sh"], a["sw"], a["pt"], a["pl"], Ho, Wo]


def _lower(b, node, g, gins):
    b.emit("POOL_BWD", gins[0], g, b.value(node.saved[0]), p=b.table(_pool_params(node)))


def _interp(node, g, want):
    """The interpreted rule (a new structure's first backward): the POOL_BWD kernel on the
    saved window offsets once Numba is loaded (the vjp found the winners again and
    scattered through np.add.at: 0.38 ms of an 8x16x32x32 first backward), else the vjp."""
    x = node.inputs[0]._data
    kernels = _compiled_forward()
    if kernels is None or g.dtype != x.dtype or x.dtype.char not in "fd":
        return vjp_on_arrays(node, np.asarray(g), want)
    out = np.empty(x.shape, x.dtype)
    kernels.pool_bwd(out.reshape(-1), np.ascontiguousarray(g).reshape(-1),
                     np.ascontiguousarray(node.saved[0]).reshape(-1),
                     np.array(_pool_params(node), np.int64))
    return (out,)


def _case(shape, ksize, stride, pads):
    return {"shapes": (shape,), "attrs": pool_attrs(ksize, stride, pads)}


max_pool_op = defop(
    "max_pool2d",
    fused="the pooling kernel: the winners' offsets found by the forward",
    forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower, interp=_interp,
    min_ndim=4,
    cases=(_case((1, 2, 5, 5), (3, 3), (2, 2), ((1, 1), (1, 1))),
           _case((2, 1, 5, 3), (2, 2), (2, 2), ((0, 1), (0, 1))),
           _case((2, 3, 4, 4), (2, 2), (2, 2), ((0, 0), (0, 0))),
           _case((1, 2, 3, 4), (2, 2), (1, 1), ((0, 0), (0, 1)))))
# (no tie cases here: central differences split a tie where the rule picks the first; the
# rule is tested in test_op_conventions.py)


def max_pool(x: Tensor, ksize: Sequence[int], stride: Sequence[int],
             pads: Sequence[tuple[int, int]]) -> Tensor:
    """Max over each window of x [N, C, H, W] padded with -inf by pads ((top, bottom),
    (left, right)); the gradient goes to the first maximum of a window."""
    return apply_xy(max_pool_op, x, None, pool_attrs(ksize, stride, pads))


# ---- the mean of non-overlapping blocks (avg_pool2d with stride = kernel, no padding) ----

def _block_mean_forward(x, kh, kw):
    """Sum of the kh * kw strided views (numpy's mean over the two block axes of a 6-D view
    took ~190 us for [8, 8, 16, 16] in 2 x 2 blocks, the views ~14 us), then / count."""
    N, C, H, W = x.shape
    if kh * kw > 16:
        return x.reshape(N, C, H // kh, kh, W // kw, kw).mean(axis=(3, 5))
    s = x[:, :, 0::kh, 0::kw].copy()
    for i in range(kh):
        for j in range(kw):
            if i or j:
                s += x[:, :, i::kh, j::kw]
    s /= x.dtype.type(kh * kw)
    return s


def _block_mean_vjp(g, out, x, kh, kw):
    N, C, Ho, Wo = g.shape
    from .shape import broadcast_to, reshape
    e = broadcast_to(reshape(g, [N, C, Ho, 1, Wo, 1]), [N, C, Ho, kh, Wo, kw])
    return (reshape(e, x.shape) * (1.0 / (kh * kw)),)


def _block_mean_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): g / (kh kw) spread over
    each block, as the lowered broadcast (the vjp ran reshape, broadcast_to and a scale
    through apply)."""
    kh, kw = node.attrs["kh"], node.attrs["kw"]
    scaled = np.multiply(g, node.inputs[0]._data.dtype.type(1.0 / (kh * kw)))
    # (two np.repeat: ~4x quicker than a reshaped 6-D broadcast, whose inner run is kw)
    return (np.repeat(np.repeat(scaled, kw, axis=3), kh, axis=2),)


def _block_mean_lower(b, node, g, gins):
    from ..compile.builder import Slot
    kh, kw = node.attrs["kh"], node.attrs["kw"]
    N, C, Ho, Wo = node.out_data.shape
    dest = gins[0]
    b.broadcast_into(Slot(dest.off, dest.n, (N, C, Ho, kh, Wo, kw)),
                     Slot(g.off, g.n, (N, C, Ho, 1, Wo, 1)), k=1.0 / (kh * kw))


block_mean_op = defop(
    "block_mean",
    fused=("adaptive average pooling: a per-block mean whose transpose spreads by block (no "
           "index table)"),
    forward=_block_mean_forward, vjp=_block_mean_vjp, lower=_block_mean_lower,
    interp=_block_mean_interp,
    min_ndim=4,
    cases=tuple({"shapes": (s,), "attrs": dict(kh=kh, kw=kw)} for s, kh, kw in
                (((2, 3, 4, 4), 2, 2), ((1, 2, 6, 4), 3, 2), ((1, 1, 2, 2), 2, 2),
                 ((1, 1, 5, 4), 5, 4))))


def block_mean(x: Tensor, kh: int, kw: int) -> Tensor:
    """The mean of each non-overlapping kh x kw block of x [N, C, H, W] (H, W multiples)."""
    return apply_xy(block_mean_op, x, None, {"kh": int(kh), "kw": int(kw)})
