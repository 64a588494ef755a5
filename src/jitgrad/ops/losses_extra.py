"""Losses and products of Paddle 3.3.1's nn.functional that it writes in Python: dice_loss,
multi_margin_loss, npair_loss, triplet_margin_with_distance_loss, and bilinear. The same
formulas over jitgrad ops (their gradients come from those)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import FLOAT16, call_in_float32, const, require_float
from .linalg import matmul
from .nn import log_softmax
from .shape import reshape, transpose

NAMES = ["dice_loss", "multi_margin_loss", "npair_loss", "triplet_margin_with_distance_loss",
         "bilinear"]


def _reduce(loss: Tensor, reduction: str, what: str) -> Tensor:
    if reduction == "mean":
        return R.mean(loss)
    if reduction == "sum":
        return R.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"'reduction' in '{what}' should be 'sum', 'mean' or 'none', but "
                     f"received {reduction}.")


def _labels(label: Any, what: str) -> np.ndarray:
    lab = np.asarray(label._data if isinstance(label, Tensor) else label)
    if lab.dtype.kind not in "iu":
        raise TypeError(f"{what}: label must hold integers, got {lab.dtype}")
    return lab.astype(np.int64)


def dice_loss(input: Tensor, label: Any, epsilon: float = 1e-05,
              name: str | None = None) -> Tensor:
    """mean over the batch of 1 - 2 |input * onehot| / (|input| + |onehot| + epsilon), the
    sums over every dim but the first; label [..., 1] holds class ids."""
    require_float(input, "dice_loss")
    lab = _labels(label, "dice_loss")
    if input.ndim < 2 or lab.ndim != input.ndim or lab.shape[-1] != 1 or \
            tuple(lab.shape[:-1]) != tuple(input.shape[:-1]):
        raise ValueError(f"dice_loss: label must be input's shape with a last dim of 1, got "
                         f"{list(lab.shape)} for input {list(input.shape)}")
    C = input.shape[-1]
    onehot = np.eye(C, dtype=input._data.dtype)[lab[..., 0]]
    axes = list(range(1, input.ndim))
    inse = R.sum(input * const(onehot, input._data.dtype), axis=axes)
    denom = R.sum(input, axis=axes) + const(onehot.sum(axis=tuple(axes)), input._data.dtype)
    return R.mean(1.0 - inse * 2.0 / (denom + epsilon))


def multi_margin_loss(input: Tensor, label: Any, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, reduction: str = "mean",
                      name: str | None = None) -> Tensor:
    """Per row, mean over classes of w[y] * max(0, margin - x[y] + x[c])^p, the target
    class's own term (margin^p) taken out, as Paddle."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(multi_margin_loss, locals())
    require_float(input, "multi_margin_loss")
    lab = _labels(label, "multi_margin_loss").reshape(-1)
    if input.ndim != 2 or lab.shape[0] != input.shape[0]:
        raise ValueError(f"multi_margin_loss: input must be [N, C] and label [N], got "
                         f"{list(input.shape)} and {list(lab.shape)}")
    N, C = input.shape
    if lab.size and (lab.min() < 0 or lab.max() >= C):
        raise ValueError(f"multi_margin_loss: labels must lie in [0, {C})")
    from .indexing import take_along_axis
    target = take_along_axis(input, lab.reshape(-1, 1), axis=1)
    terms = E.clip(margin - target + input, min=0.0) ** p
    if weight is not None:
        if weight.ndim != 1 or weight.shape[0] != C:
            raise ValueError(f"multi_margin_loss: weight must be [{C}], got "
                             f"{list(weight.shape)}")
        from .indexing import index_select
        w = reshape(index_select(weight, lab, axis=0), [N, 1])
        loss = R.mean(w * terms, axis=1) - reshape(w * (margin ** p / C), [N])
    else:
        loss = R.mean(terms, axis=1) - margin ** p / C
    return _reduce(loss, reduction, "multi_margin_loss")


def npair_loss(anchor: Tensor, positive: Tensor, labels: Any, l2_reg: float = 0.002
               ) -> Tensor:
    """Soft-label cross entropy of anchor @ positive^T against the same-label pairs, plus
    l2_reg / 4 times the anchors' and positives' mean squared norms (Paddle's N-pair loss)."""
    if isinstance(anchor, Tensor) and anchor._data.dtype is FLOAT16:
        return call_in_float32(npair_loss, locals())
    for what, t in (("anchor", anchor), ("positive", positive)):
        require_float(t, "npair_loss")
        if t._data.size == 0:
            raise ValueError(f"npair_loss: {what} must not be empty")
    lab = np.asarray(labels._data if isinstance(labels, Tensor) else labels).reshape(-1, 1)
    same = (lab == lab.T).astype(anchor._data.dtype)
    soft = const(same / same.sum(axis=1, keepdims=True), anchor._data.dtype)
    l2 = R.mean(R.sum(anchor * anchor, axis=1)) + R.mean(R.sum(positive * positive, axis=1))
    logits = matmul(anchor, positive, transpose_y=True)
    ce = -R.sum(soft * log_softmax(logits, axis=1), axis=1, keepdim=True)
    return l2 * (0.25 * l2_reg) + R.mean(R.sum(soft * ce, axis=0))


def triplet_margin_with_distance_loss(input: Tensor, positive: Tensor, negative: Tensor,
                                      distance_function: Callable | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean", name: str | None = None
                                      ) -> Tensor:
    """max(d(input, positive) - d(input, negative) + margin, 0), d pairwise_distance (p = 2)
    unless given; swap: the negative distance is the smaller of d(a, n) and d(p, n)."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(triplet_margin_with_distance_loss, locals())
    from .margin_losses import pairwise_distance
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should "
                         "be greater than 0.")
    if not (input.shape == positive.shape == negative.shape):
        raise ValueError("input's shape must equal to positive's shape and negative's shape")
    dist = distance_function if distance_function is not None else \
        (lambda a, b: pairwise_distance(a, b, 2.0))
    pos, neg = dist(input, positive), dist(input, negative)
    if swap:
        neg = E.minimum(neg, dist(positive, negative))
    if (pos._data < 0).any() or (neg._data < 0).any():
        raise ValueError("The positive distance or negative distance should be greater than "
                         "0, The distance functions should be checked.")
    return _reduce(E.clip(pos - neg + margin, min=0.0), reduction,
                   "triplet_margin_with_distance_loss")


def bilinear(x1: Tensor, x2: Tensor, weight: Tensor, bias: Tensor | None = None,
             name: str | None = None) -> Tensor:
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]: x1 [N, I], x2 [N, J], weight
    [O, I, J], bias [1, O]."""
    if isinstance(x1, Tensor) and x1._data.dtype is FLOAT16:
        return call_in_float32(bilinear, locals())
    if x1.ndim != 2 or x2.ndim != 2 or weight.ndim != 3 or x1.shape[0] != x2.shape[0] or \
            weight.shape[1] != x1.shape[1] or weight.shape[2] != x2.shape[1]:
        raise ValueError(f"bilinear: need x1 [N, I], x2 [N, J] and weight [O, I, J], got "
                         f"{list(x1.shape)}, {list(x2.shape)} and {list(weight.shape)}")
    O, I, J = weight.shape
    left = matmul(x1, reshape(transpose(weight, [1, 0, 2]), [I, O * J]))     # [N, O * J]
    out = R.sum(reshape(left, [x1.shape[0], O, J]) * reshape(x2, [x2.shape[0], 1, J]), axis=2)
    return out if bias is None else out + reshape(bias, [1, O])
