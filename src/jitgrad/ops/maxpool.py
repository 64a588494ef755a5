"""The max-pooling primitive: the first maximum of each window (Paddle CPU's tie rule).

The forward finds each window's winner with one strided view per kernel offset and saves
its offset k = i * kw + j in the window (int32). The compiled backward is one POOL_BWD
instruction that sends each output gradient to its winner, with the winners read from the
saved offsets (arena values) rather than an index table: the Program depends only on shapes
and attributes, never on the data, and the -inf padding is folded in (no pad node)."""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from ..core.tensor import Tensor
from .core import apply
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


def _padded(x: np.ndarray, pads: tuple) -> np.ndarray:
    if not any(map(any, pads)):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=-np.inf)


def window_offsets(x: np.ndarray, ksize, stride, pads) -> np.ndarray:
    """The offset in its window of every window's first maximum (what the op saves)."""
    return first_max(_padded(x, tuple(pads)), ksize, stride)[1]


# Paddle's max pooling starts each window at -FLT_MAX (float64 too): a window that lies
# wholly in the padding (possible with ceil_mode or padding >= kernel) gives -3.4e38, not -inf
_LOWEST = -float(np.finfo(np.float32).max)


def _forward(x, ksize, stride, pads):
    best, arg = first_max(_padded(x, pads), ksize, stride)
    if any(map(any, pads)):
        np.maximum(best, best.dtype.type(_LOWEST), out=best)    # NaN stays NaN
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


def _vjp(g, out, x, ksize, stride, pads):
    arg = window_offsets(x._data, ksize, stride, pads)     # (eager rule: recomputed)
    pos, padded = winners(tuple(x._data.shape), arg, ksize, stride, pads)
    gx = _scatter_flat(g, pos.ravel(), padded)
    H, W = x._data.shape[2:]
    if padded[2:] != (H, W):
        (pt, _), (pl, _) = pads
        gx = getitem(gx, (slice(None), slice(None), slice(pt, pt + H), slice(pl, pl + W)))
    return (gx,)


def _lower(b, node, g, gins):
    a = node.attrs
    N, C, H, W, Ho, Wo = _geometry(node.inputs[0]._data.shape, a["ksize"], a["stride"],
                                   a["pads"])
    b.emit("POOL_BWD", gins[0], g, b.value(node.saved[0]), p=b.table(
        [N, C, H, W, *a["ksize"], *a["stride"], a["pads"][0][0], a["pads"][1][0], Ho, Wo]))


def _case(shape, ksize, stride, pads):
    return {"shapes": (shape,), "attrs": dict(ksize=ksize, stride=stride, pads=pads)}


max_pool_op = defop(
    "max_pool2d", forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower,
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
    return apply(max_pool_op, x, ksize=tuple(int(v) for v in ksize),
                 stride=tuple(int(v) for v in stride),
                 pads=tuple((int(p[0]), int(p[1])) for p in pads))
