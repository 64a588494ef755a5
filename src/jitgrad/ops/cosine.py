"""The cosine of two tensors along one axis as one node: cosine_similarity and
cosine_embedding_loss.

    cos = w12 / sqrt(D),   w12 = sum(x1 x2), w1 = sum(x1^2), w2 = sum(x2^2)
    D = max(w1 w2, eps^2)                  (cosine_similarity, Paddle's clip)
    D = (w1 + eps) (w2 + eps)              (cosine_embedding_loss, eps = 1e-11)

Why: as sums, products, a clip, a sqrt and a division the cosine recorded 9 nodes (14 in
the loss). Its gradient is g spread over the axis times one weight per element, saved by
the forward (one GATHER_MUL row per input, as a weighted reduction's):

    d cos / d x1 = x2 / sqrt(D) - cos k1 x1,   k1 = (dD / dw1) / D
    k1 = 1 / w1 where w1 w2 >= eps^2, else 0   (clip: its gradient is 1 on the closed range)
    k1 = 1 / (w1 + eps)                        (the embedding loss's sum)

and likewise for x2. The output is the composite's, the same numpy operations in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import apply_xy, compiled_input, const
from .reduce import _kept_shape
from .registry import defop
from .shape import unsqueeze


def _cos_forward(x1: np.ndarray, x2: np.ndarray, axis: int, eps: float, add: bool) -> tuple:
    """The cosine and both weights: one compiled pass (vm/forward.py cos_rows) along the
    last axis of float32/float64 inputs once Numba is loaded, the numpy passes below
    otherwise (the same values bit for bit)."""
    if axis == x1.ndim - 1 and x1.size:
        found = compiled_input("forward", x1, x2)
        if found is not None:
            kernels, a, b = found
            t = a.dtype.type
            K = a.shape[-1]
            out = np.empty(a.shape[:-1], a.dtype)
            f1, f2 = np.empty(a.shape, a.dtype), np.empty(a.shape, a.dtype)
            kernels.cos_rows(a, b, t(eps) if add else t(eps * eps), add, out, f1, f2,
                             a.size // K, K, t(1), t(0))
            return out, (f1, f2)
    w12 = np.sum(x1 * x2, axis=axis)
    w1 = np.sum(x1 * x1, axis=axis)
    w2 = np.sum(x2 * x2, axis=axis)
    if add:
        a1, a2 = w1 + eps, w2 + eps
        d = a1 * a2
    else:
        p = w1 * w2
        d = np.clip(p, eps * eps, np.inf)
    root = np.sqrt(d)
    out = w12 / root
    one = x1.dtype.type(1)                  # (numpy's warnings are off: quiet=True)
    if add:
        k1, k2 = one / a1, one / a2
    else:
        on = p >= eps * eps
        k1 = np.where(on, one / np.where(on, w1, one), 0).astype(x1.dtype, copy=False)
        k2 = np.where(on, one / np.where(on, w2, one), 0).astype(x1.dtype, copy=False)
    kept = _kept_shape(x1.shape, (axis,))
    r = (one / root).reshape(kept)
    c = out.reshape(kept)
    f1 = x2 * r - (c * k1.reshape(kept)) * x1
    f2 = x1 * r - (c * k2.reshape(kept)) * x2
    return out, (f1, f2)


def _cos_vjp(g: Tensor, out: Tensor, x1: Tensor, x2: Tensor, axis: int, eps: float,
             add: bool) -> tuple:
    """The same weights in jitgrad ops (create_graph differentiates through them)."""
    w1 = R.sum(x1 * x1, axis=axis, keepdim=True)
    w2 = R.sum(x2 * x2, axis=axis, keepdim=True)
    if add:
        a1, a2 = w1 + eps, w2 + eps
        r = 1.0 / E.sqrt(a1 * a2)
        k1, k2 = 1.0 / a1, 1.0 / a2
    else:
        on = (w1._data * w2._data >= eps * eps)
        r = 1.0 / E.sqrt(E.clip(w1 * w2, min=eps * eps))
        mask = const(on.astype(x1._data.dtype), x1._data.dtype)
        k1 = mask / E.where(on, w1, const(np.ones_like(w1._data), x1._data.dtype))
        k2 = mask / E.where(on, w2, const(np.ones_like(w2._data), x1._data.dtype))
    c, gk = unsqueeze(out, axis), unsqueeze(g, axis)
    return gk * (x2 * r - (c * k1) * x1), gk * (x1 * r - (c * k2) * x2)


def _cos_interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
    f1, f2 = node.saved
    gk = g.reshape(_kept_shape(f1.shape, (node.attrs["axis"],)))
    return (gk * f1 if want[0] else None, gk * f2 if want[1] else None)


def _lower_cos(b: Any, node: Any, g: Any, gins: list) -> None:
    shape = node.inputs[0]._data.shape
    kept = _kept_shape(shape, (node.attrs["axis"],))
    for gi, f in zip(gins, node.saved):
        if gi is not None:
            b.spread_mul(gi, g, b.value(f), kept, shape)


cosine_op = defop(
    "cosine", nin=2, forward=_cos_forward, forward_saves=True, vjp=_cos_vjp,
    lower=_lower_cos, interp=_cos_interp, quiet=True, min_ndim=1,
    fused="a reduction of two inputs: g spread over the axis times each input's weight, "
    "saved by the forward",
    cases=tuple({"shapes": (s, s), "attrs": {"axis": a, "eps": e, "add": add}}
                for s, a, e, add in (((2, 3), 1, 1e-8, False), ((4,), 0, 1e-8, False),
                                     ((2, 3, 2), 1, 1e-8, False), ((3, 4), 1, 1e-11, True),
                                     ((3, 2), 0, 0.5, False), ((5,), 0, 1e-11, True))) + (
        # a zero vector: clipped, its row's gradient x2 / eps (no nan)
        {"shapes": ((2, 3), (2, 3)), "attrs": {"axis": 1, "eps": 1e-4, "add": False},
         "values": [[[0.5, 1.0, -1.0], [0.0, 0.0, 0.0]], [[0.5, -1.0, 2.0], [1.0, -2.0, 2.0]]]},))


def cosine(x1: Tensor, x2: Tensor, axis: int, eps: float, add: bool) -> Tensor | None:
    """cosine_op's node for two float tensors of one shape and dtype (axis normalised); None
    otherwise (the caller's composite)."""
    d1, d2 = x1._data, x2._data
    if not (isinstance(x2, Tensor) and d1.shape == d2.shape and d1.dtype is d2.dtype and
            d1.dtype.kind == "f" and d1.ndim and -d1.ndim <= axis < d1.ndim):
        return None
    return apply_xy(cosine_op, x1, x2, {"axis": axis % d1.ndim, "eps": float(eps),
                                        "add": bool(add)})
