"""Paddle 3.3.1's sampled and structured losses of nn.functional: multi_label_margin_loss,
hsigmoid_loss, margin_cross_entropy (single process), adaptive_log_softmax_with_loss, and the
integer helpers gather_tree and class_center_sample (single process). The losses are the
kernels' formulas over jitgrad ops (their gradients come from those ops); the index work
(tree paths, label masks, clusters) is numpy on the labels."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import const, require_float
from .creation import generator
from .indexing import concat, index_select, take_along_axis
from .linear_embedding import linear
from .math import acos
from .more_indexing import scatter_nd
from .nn import log_softmax
from .shape import reshape

NAMES = ["multi_label_margin_loss", "hsigmoid_loss", "margin_cross_entropy", "gather_tree",
         "class_center_sample", "adaptive_log_softmax_with_loss"]


def _ints(t: Any, what: str, arg: str = "label") -> np.ndarray:
    a = np.asarray(t._data if isinstance(t, Tensor) else t)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: {arg} must hold integers (int32 or int64), got {a.dtype}")
    return a


def _reduce(loss: Tensor, reduction: Any, what: str) -> Tensor:
    if reduction == "mean":
        return R.mean(loss)
    if reduction == "sum":
        return R.sum(loss)
    if reduction == "none" or reduction is None and what == "margin_cross_entropy":
        return loss
    raise ValueError(f"'reduction' in '{what}' should be 'sum', 'mean' or 'none', but "
                     f"received {reduction}.")


# ---- multi_label_margin_loss -------------------------------------------------------------------
def multi_label_margin_loss(input: Tensor, label: Any, reduction: str = "mean",
                            name: str | None = None) -> Tensor:
    """loss[n] = sum over the row's targets y (its labels up to the first -1) and the classes
    k that are not targets of max(0, 1 - x[n, y] + x[n, k]), over C (Paddle's formula: a
    repeated target counts each time; label may have any number of columns)."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'multi_label_margin_loss' should be 'sum', 'mean' or "
                         f"'none', but received {reduction}.")
    if input.ndim != 2:
        raise ValueError(f"Expected 2D input tensor, but got {input.ndim}D")
    lab = _ints(label, "multi_label_margin_loss").astype(np.int64)
    if lab.ndim != 2:
        raise ValueError(f"Expected 2D label tensor, but got {lab.ndim}D")
    N, C = input.shape
    if lab.shape[0] != N:
        raise ValueError(f"multi_label_margin_loss: label must have input's {N} rows, got "
                         f"label shape {list(lab.shape)}")
    if lab.size:
        if lab.min() < -1:
            raise ValueError("label values should be >= -1")
        if lab.max() >= C:
            raise ValueError(f"label values should be < {C}")
    if input._data.dtype.kind != "f":      # Paddle's result for integer input is float32
        input = E.astype(input, "float32")
    valid = np.cumprod(lab != -1, axis=1).astype(bool)                  # [N, K]
    rows = np.arange(N)[:, None]
    is_target = np.zeros((N, C), bool)
    is_target[np.broadcast_to(rows, lab.shape)[valid], lab[valid]] = True
    K = lab.shape[1]
    if N * K == 0 or not valid.any():
        loss = E.multiply(R.sum(input, axis=1), 0.0)
    else:
        target = take_along_axis(input, np.where(valid, lab, 0), axis=1)       # [N, K]
        margin = 1.0 - reshape(target, [N, K, 1]) + reshape(input, [N, 1, C])   # [N, K, C]
        keep = valid[:, :, None] & ~is_target[:, None, :]
        margin = E.where(keep, margin, 0.0)
        loss = R.sum(E.maximum(margin, 0.0), axis=[1, 2])
    return _reduce(loss / float(C), reduction, "multi_label_margin_loss")


# ---- hsigmoid_loss ------------------------------------------------------------------------------
def _bit_length(v: np.ndarray) -> np.ndarray:
    """Paddle's FindLastSet: the position of the highest set bit (0 for 0)."""
    v = v.astype(np.int64)
    out = np.zeros(v.shape, np.int64)
    while (v > 0).any():
        out += v > 0
        v = v >> 1
    return out


def hsigmoid_loss(input: Tensor, label: Any, num_classes: int, weight: Tensor,
                  bias: Tensor | None = None, path_table: Any = None, path_code: Any = None,
                  is_sparse: bool = False, name: str | None = None) -> Tensor:
    """Hierarchical sigmoid, [N, 1]: along each sample's path of tree nodes j with codes b_j,
    z_j = w[node_j] . x + bias[node_j] clipped to [-40, 40] and loss = sum_j log(1 + e^z_j)
    - b_j z_j. The default tree codes class c as c + num_classes (node (code >> (j + 1)) - 1,
    bit j of the code); a custom tree gives path_table / path_code [N, L] (a path ends at its
    first negative node). As Paddle's kernel: the L - len unused slots of a path still add
    log(2) each, and the gradient passes the clipping unchanged."""
    if num_classes < 2:
        raise ValueError(f"Expected num_classes >= 2 (got {num_classes})")
    require_float(input, "hsigmoid_loss")
    if input.ndim != 2 or weight.ndim != 2 or weight.shape[1] != input.shape[1]:
        raise ValueError(f"hsigmoid_loss: input must be [N, D] and weight [nodes, D], got "
                         f"{list(input.shape)} and {list(weight.shape)}")
    if weight._data.dtype != input._data.dtype or \
            bias is not None and bias._data.dtype != input._data.dtype:
        raise TypeError(f"hsigmoid_loss: weight and bias must have input's dtype "
                        f"{input.dtype.name}")
    lab = _ints(label, "hsigmoid_loss").astype(np.int64)
    N, D = input.shape
    if lab.ndim not in (1, 2) or lab.shape[0] != N or lab.size != N:
        raise ValueError(f"hsigmoid_loss: label must be [N, 1] (or [N]) with input's N = {N}, "
                         f"got shape {list(lab.shape)}")
    lab = lab.reshape(N)
    nodes = weight.shape[0]
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: give both path_table and path_code (a custom tree) "
                         "or neither (the default tree)")
    if path_table is None:
        if N and (lab.min() < 0 or lab.max() >= num_classes):
            raise ValueError(f"hsigmoid_loss: labels must lie in [0, {num_classes}), got "
                             f"[{lab.min()}, {lab.max()}]")
        if nodes < num_classes - 1:
            raise ValueError(f"hsigmoid_loss: the default tree needs weight [num_classes - 1, "
                             f"D] = [{num_classes - 1}, {D}], got {list(weight.shape)}")
        L = int(_bit_length(np.array(num_classes - 1)))
        code = lab + num_classes
        length = _bit_length(code) - 1
        j = np.arange(L)
        table = (code[:, None] >> (j + 1)) - 1
        bits = (code[:, None] >> j) & 1
    else:
        table = _ints(path_table, "hsigmoid_loss", "path_table").astype(np.int64)
        bits = _ints(path_code, "hsigmoid_loss", "path_code")
        if table.ndim != 2 or table.shape[0] != N or bits.shape != table.shape:
            raise ValueError(f"hsigmoid_loss: path_table and path_code must both be [N, L] "
                             f"with N = {N}, got {list(table.shape)} and {list(bits.shape)}")
        L = table.shape[1]
        neg = table < 0
        length = np.where(neg.any(axis=1), neg.argmax(axis=1), L)
    on = np.arange(L)[None, :] < length[:, None]                            # [N, L]
    if on.any() and (table[on].max() >= nodes):
        raise ValueError(f"hsigmoid_loss: path nodes must lie in [0, {nodes}) (weight's "
                         f"rows), got node {table[on].max()}")
    if bias is not None and bias._data.size != nodes:
        raise ValueError(f"hsigmoid_loss: bias must be [{nodes}, 1], got {list(bias.shape)}")
    node = np.where(on, table, 0).reshape(-1)
    rows = reshape(index_select(weight, node, axis=0), [N, L, D])
    pre = R.sum(rows * reshape(input, [N, 1, D]), axis=2)                   # [N, L]
    if bias is not None:
        pre = reshape(index_select(reshape(bias, [nodes]), node, axis=0), [N, L]) + pre
    pre = E.where(on, pre, 0.0)
    if (np.abs(pre._data) > 40.0).any():       # clipped values, the gradient passed as is
        pre = E.clip(pre, -40.0, 40.0).detach() + (pre - pre.detach())
    dt = input._data.dtype
    taken = R.sum(pre * const((bits != 0) & on, dt), axis=1, keepdim=True)
    return R.sum(E.log(E.exp(pre) + 1.0), axis=1, keepdim=True) - taken


# ---- margin_cross_entropy -----------------------------------------------------------------------
def margin_cross_entropy(logits: Tensor, label: Any, margin1: float = 1.0,
                         margin2: float = 0.5, margin3: float = 0.0, scale: float = 64.0,
                         group: Any = None, return_softmax: bool = False,
                         reduction: str | None = "mean") -> Any:
    """ArcFace-style loss: the target logit x becomes cos(margin1 * acos(x) + margin2) -
    margin3, every logit is scaled by `scale`, and loss = -log_softmax at the target, [N, 1]
    before reduction. Paddle 3.3.1's CPU build has no kernel for it: this follows its GPU
    kernel (a margin equal to its neutral value within 1e-8 is skipped) on one process.
    return_softmax also gives the softmax of the scaled logits, which carries no gradient
    (the kernel has none for it)."""
    if reduction not in ("mean", "sum", "none", None):
        raise ValueError(f"'reduction' in 'margin_cross_entropy' should be 'sum', 'mean', "
                         f"'none' or None, but received {reduction}.")
    if group is not None and group is not False:
        raise ValueError(f"margin_cross_entropy: only the single-process form is supported "
                         f"(group None or False), got group {group!r}")
    require_float(logits, "margin_cross_entropy")
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"Expected logit_dims[-1] > 0 (got logit_dims {list(logits.shape)})")
    lab = _ints(label, "margin_cross_entropy").astype(np.int64)
    shape = list(logits.shape)
    if lab.ndim == len(shape) - 1:
        lab = lab[..., None]
    if lab.ndim != len(shape) or list(lab.shape) != shape[:-1] + [1]:
        raise ValueError(f"margin_cross_entropy: label must be logits' shape without its last "
                         f"dim (or with it as 1), got {list(np.shape(lab))} for logits {shape}")
    C = shape[-1]
    if lab.size and (lab.min() < 0 or lab.max() >= C):
        raise ValueError(f"margin_cross_entropy: labels must lie in [0, {C}), got "
                         f"[{lab.min()}, {lab.max()}]")
    target = take_along_axis(logits, lab, axis=-1)
    if abs(margin1 - 1.0) > 1e-8 or abs(margin2) > 1e-8:
        theta = acos(target)
        if abs(margin1 - 1.0) > 1e-8:
            theta = theta * float(margin1)
        if abs(margin2) > 1e-8:
            theta = theta + float(margin2)
        target = E.cos(theta)
    if abs(margin3) > 1e-8:
        target = target - float(margin3)
    hit = np.arange(C) == lab
    z = E.where(hit, target, logits)
    if abs(scale - 1.0) > 1e-8:
        z = z * float(scale)
    logp = log_softmax(z, axis=-1)
    loss = -take_along_axis(logp, lab, axis=-1)
    loss = _reduce(loss, reduction, "margin_cross_entropy")
    if not return_softmax:
        return loss
    return loss, E.exp(logp.detach())


# ---- gather_tree --------------------------------------------------------------------------------
def gather_tree(ids: Any, parents: Any) -> Tensor:
    """Beam search's full sequences: out[t, b, k] follows beam k's parents back from the last
    step (ids and parents [max_time, batch, beam], ints of one dtype)."""
    a = _ints(ids, "gather_tree", "ids")
    p = _ints(parents, "gather_tree", "parents")
    if a.ndim != 3:
        raise ValueError("The input ids must be a 3D tensor with shape [length, batch_size, "
                         "beam_size]")
    if p.ndim != 3 or p.shape != a.shape:
        raise ValueError(f"gather_tree: parents must have ids' shape {list(a.shape)}, got "
                         f"{list(p.shape)}")
    if a.dtype != p.dtype:
        raise TypeError(f"gather_tree: ids and parents must share a dtype, got {a.dtype} and "
                        f"{p.dtype}")
    T, B, K = a.shape
    out = np.empty_like(a)
    if a.size:
        out[T - 1] = a[T - 1]
        parent = p[T - 1].astype(np.int64)
        b = np.arange(B)[:, None]
        for t in range(T - 2, -1, -1):
            if (parent < 0).any() or (parent >= K).any():
                bad = parent[(parent < 0) | (parent >= K)][0]
                raise ValueError(f"gather_tree: parents must lie in [0, beam size {K}), got "
                                 f"{bad}")
            out[t] = a[t][b, parent]
            parent = p[t][b, parent].astype(np.int64)
    return Tensor._make(out)


# ---- class_center_sample ------------------------------------------------------------------------
def class_center_sample(label: Any, num_classes: int, num_samples: int,
                        group: Any = None) -> tuple[Tensor, Tensor]:
    """(remapped_label, sampled_class_center): the distinct positive classes, ascending, then
    random other classes (paddle.seed's generator, in random order) up to num_samples in all;
    each label becomes its class's position in that list. Single process only."""
    if group is not None and group is not False:
        raise ValueError(f"class_center_sample: only the single-process form is supported "
                         f"(group None or False), got group {group!r}")
    if num_samples > num_classes:
        raise ValueError(f"Expected num_samples less than or equal to {num_classes}, got "
                         f"num_samples {num_samples}")
    lab = _ints(label, "class_center_sample")
    if lab.size < 1:
        raise ValueError(f"Expected label_size > 0 (got label_size: {lab.size})")
    if lab.ndim != 1:
        raise ValueError(f"Expected label_dims == 1 (got label_dims: {lab.ndim})")
    if num_classes <= 0:
        raise ValueError(f"class_center_sample: num_classes must be greater than 0, got "
                         f"{num_classes}")
    if num_samples <= 0:
        raise ValueError(f"class_center_sample: num_samples must be greater than 0, got "
                         f"{num_samples}")
    if lab.min() < 0 or lab.max() >= num_classes:
        raise ValueError(f"class_center_sample: labels must lie in [0, {num_classes}), got "
                         f"[{lab.min()}, {lab.max()}]")
    positive, remapped = np.unique(lab, return_inverse=True)
    need = int(num_samples) - positive.size
    if need > 0:
        others = np.setdiff1d(np.arange(num_classes, dtype=lab.dtype), positive)
        picked = generator().choice(others, need, replace=False).astype(lab.dtype)
        sampled = np.concatenate([positive, picked])
    else:
        sampled = positive
    return (Tensor._make(remapped.reshape(lab.shape).astype(lab.dtype)),
            Tensor._make(np.ascontiguousarray(sampled, lab.dtype)))


# ---- adaptive_log_softmax_with_loss -------------------------------------------------------------
def adaptive_log_softmax_with_loss(input: Tensor, label: Any, head_weight: Tensor,
                                   tail_weights: Sequence[Sequence[Tensor]],
                                   cutoffs: Sequence[Any], head_bias: Tensor | None = None,
                                   name: str | None = None) -> tuple[Tensor, Tensor]:
    """(output, loss): output[n] the log-probability of label[n] under the adaptive softmax
    (head log_softmax over the shortlist cutoffs[0] classes and one entry per cluster; a
    cluster i >= 1 label adds its cluster's log_softmax of input @ tail_weights[i - 1][0] @
    tail_weights[i - 1][1]), loss = mean(-output). A 0-d label takes a 1-D input."""
    lab = _ints(label, "adaptive_log_softmax_with_loss").astype(np.int64)
    require_float(input, "adaptive_log_softmax_with_loss")
    if lab.ndim == 1:
        if input.shape[0] != lab.shape[0] and lab.shape[0] != 0:
            raise ValueError("Input and label should have the same size in the batch "
                             "dimension.")
        if input.ndim != 2:
            raise ValueError(f"1D label tensor expects 2D input tensors, but found inputs with "
                             f"size {list(input.shape)}")
    elif lab.ndim == 0:
        if input.ndim != 1:
            raise ValueError(f"0D label tensor expects 1D input tensors, but found inputs with "
                             f"size {list(input.shape)}")
    else:
        raise ValueError("0D or 1D label tensor expected, multi-label not supported")
    for w in [head_weight, head_bias] + [t for pair in tail_weights for t in pair]:
        if w is not None and w._data.dtype != input._data.dtype:
            raise TypeError(f"adaptive_log_softmax_with_loss: the weights must have input's "
                            f"dtype {input.dtype.name}, got {w.dtype.name}")
    batched = lab.ndim > 0
    x = input if batched else reshape(input, [1, input.shape[0]])
    lab = lab.reshape(-1)
    B = lab.shape[0]
    cuts = [0] + [int(c.item() if isinstance(c, Tensor) else c) for c in cutoffs]
    gather = np.zeros(B, np.int64)
    used = np.zeros(B, bool)
    output = None
    for i in range(len(cuts) - 1):
        lo, hi = cuts[i], cuts[i + 1]
        rows = np.nonzero((lab >= lo) & (lab < hi))[0]
        if rows.size == 0:
            continue
        used[rows] = True
        if i == 0:
            gather[rows] = lab[rows]
            continue
        if i - 1 >= len(tail_weights):
            raise ValueError(f"adaptive_log_softmax_with_loss: cutoffs name {len(cuts) - 2} "
                             f"clusters but tail_weights has {len(tail_weights)}")
        w0, w1 = tail_weights[i - 1][0], tail_weights[i - 1][1]
        h = linear(linear(index_select(x, rows, axis=0), w0), w1)
        local = take_along_axis(log_softmax(h, axis=1), (lab[rows] - lo)[:, None], axis=1)
        part = scatter_nd(rows[:, None], reshape(local, [rows.size]), [B])
        output = part if output is None else output + part
        gather[rows] = cuts[1] + i - 1
    if not used.all():
        raise ValueError(f"label values should be in [0, n_classes - 1], but values in range "
                         f"[{lab.min()}, {lab.max()}] were found. ")
    if B == 0:
        output = Tensor._make(np.zeros(0, input._data.dtype))
    else:
        head = log_softmax(linear(x, head_weight, head_bias), axis=1)
        picked = reshape(take_along_axis(head, gather[:, None], axis=1), [B])
        output = picked if output is None else output + picked
    loss = R.mean(-output)
    if not batched:
        output = reshape(output, [])
    return output, loss


def full_log_prob(input: Tensor, head_weight: Tensor, head_bias: Tensor | None,
                  tail_weights: Sequence[Sequence[Tensor]], cutoffs: Sequence[int]) -> Tensor:
    """[N, n_classes] log-probabilities of every class (AdaptiveLogSoftmaxWithLoss.log_prob):
    cutoffs includes n_classes last."""
    head = log_softmax(linear(input, head_weight, head_bias), axis=1)
    short = cutoffs[0]
    N = input.shape[0]
    parts = [head[:, :short]]
    for i in range(len(cutoffs) - 1):
        h = linear(linear(input, tail_weights[i][0]), tail_weights[i][1])
        parts.append(log_softmax(h, axis=1) + reshape(head[:, short + i], [N, 1]))
    return concat(parts, axis=1)
