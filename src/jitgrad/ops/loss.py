"""Losses and similarity functions (paddle.nn.functional names), all composites: labels,
masks and class weights enter as constants, the differentiable part is registry ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.quiet import quiet
from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .activation import softplus
from .bce import bce, bce_logits
from .bce import fusable as bce_fusable
from .core import (apply, apply_xy, checks_own_tensor_args, compiled_kernels, const,
                   require_float, tensor_arg_error)
from .core import FLOAT16, call_in_float32
from .cosine import cosine
from .derivative import binary
from .elementwise import _compiled_forward
from .math import compiled_pair
from .nll import _node_attrs, _selected, nll, nll_op
from .nn import log_softmax
from .shape import squeeze
from .stats import norm

_REDUCTIONS = ("mean", "sum", "none")
_INT64 = range(-2 ** 63, 2 ** 63)
# (int64 arrays have this dtype object: `is` tests it at a third of `!= np.int64`'s cost;
# another int64 dtype object, a byte-swapped one say, only takes the conversion)
_INT64_DTYPE = np.dtype(np.int64)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
# the nll nodes' attributes of nll_loss's and cross_entropy's fused totals (shared dicts)
_NLL_TOTAL = _node_attrs(1, True, False, True)
_XENT_TOTAL = _node_attrs(1, True, True)
_XENT_TOTAL_SELECT = _node_attrs(1, True, True, True)      # (some row ignored: nll.py)


@quiet
def _quiet_asarray(t: float, dt: np.dtype) -> np.ndarray:
    return np.asarray(t, dt)


def _fused_kernels(d: np.ndarray) -> Any:
    """vm.forward_loss for [N, C] float32 / float64 C-contiguous d of >= 64 elements
    (ops/nll.py's compiled paths' condition: a smaller one takes numpy's path there, whose
    cross entropy sums in x's dtype), once Numba is loaded; else None."""
    dt = d.dtype
    if (dt is not _F32 and dt is not _F64) or d.size < 64 or not d.flags.c_contiguous:
        return None
    return compiled_kernels("forward_loss")


def _labels(label: Any) -> np.ndarray:
    return np.asarray(label._data if isinstance(label, Tensor) else label)


def _label_range_error(what: str, C: int, ignore_index: int) -> ValueError:
    return ValueError(f"{what}: labels must lie in [0, {C}) or equal ignore_index "
                      f"({ignore_index})")


def _hard_coefficients(lab: np.ndarray, C: int, ignore_index: int, mean: bool,
                       dtype: np.dtype, what: str, every_row: bool = False
                       ) -> np.ndarray | None:
    """[*lab.shape, C]: the one-hot coefficients of unweighted hard labels (1 / count of
    counted labels with mean, 1 / lab.size with every_row) by vm.forward's kernel in one
    pass with the range check; None before Numba is loaded, and for a dtype the kernel
    does not take (float16)."""
    kernels = _compiled_forward()
    if kernels is None or np.dtype(dtype).char not in "fd":
        return None
    if lab.dtype != np.int64 or not lab.flags.c_contiguous:
        lab = np.ascontiguousarray(lab, np.int64)
    return _kernel_coefficients(kernels, lab.reshape(-1), lab.shape, C, ignore_index,
                                2 if every_row else 1 if mean else 0, dtype, what)


def _kernel_coefficients(kernels: Any, flat: np.ndarray, lead: tuple, C: int,
                         ignore_index: int, mode: int, dtype: Any, what: str) -> np.ndarray:
    """[*lead, C] from hard_label_coefficients (mode 0: k = 1, 1: 1 / count of counted
    labels, 2: 1 / every label) for the flat int64 labels; its range check raises here."""
    coef = np.zeros(lead + (C,), dtype)
    bad = kernels.hard_label_coefficients(flat, C, ignore_index, mode,
                                          coef if coef.ndim == 2 else coef.reshape(-1, C))
    if bad >= 0:
        raise _label_range_error(what, C, ignore_index)
    return coef


def _plain_labels(label: Any, lead: tuple, keep_dim_ok: bool) -> tuple | None:
    """(flat int64 labels, kept class dim) for the common hard labels: a Tensor's or numpy
    integer array of shape `lead` (or lead + (1,) with keep_dim_ok). None for anything
    else: the caller's full checks take it and raise their errors. The kernel only reads
    the labels while building the coefficients (the node keeps those), so an int64
    array needs no copy: a user writing it later changes no recorded gradient."""
    lab = label._data if isinstance(label, Tensor) else label
    if type(lab) is not np.ndarray:
        return None
    dt = lab.dtype
    if dt is not _INT64_DTYPE and dt.kind not in "iu":
        return None
    shape = lab.shape
    keep_dim = shape != lead
    if keep_dim and not (keep_dim_ok and shape == lead + (1,)):
        return None
    if dt is not _INT64_DTYPE or not lab.flags.c_contiguous:
        lab = np.ascontiguousarray(lab, np.int64)       # (int32 ...: the kernel's int64)
    return (lab if lab.ndim == 1 else lab.reshape(-1)), keep_dim


def _check_reduction(reduction: str, extra: tuple = ()) -> None:
    if reduction not in _REDUCTIONS + extra:
        raise ValueError(f"reduction must be one of {_REDUCTIONS + extra}, got {reduction!r}")


def _reduce(loss: Tensor, reduction: str, extra: tuple = ()) -> Tensor:
    _check_reduction(reduction, extra)
    if reduction == "mean":
        return R.mean(loss)
    if reduction == "sum":
        return R.sum(loss)
    return loss


def _as_float(label: Any, like: Tensor) -> Tensor:
    if isinstance(label, Tensor):
        return label if label._data.dtype == like._data.dtype else label.astype(like._data.dtype)
    return const(label, like._data.dtype)


def _target(label: Any, like: Tensor) -> Tensor:
    """A target the loss does not differentiate: Paddle 3.3.1 gives the labels of
    cross_entropy (soft), binary_cross_entropy(_with_logits) and kl_div, and pos_weight, no
    gradient, so a teacher's outputs used as targets (distillation) are not trained."""
    t = _as_float(label, like)
    return t if t._stop_gradient else Tensor._make(t._data)


def mse_loss(input: Tensor, label: Any, reduction: str = "mean", name: str | None = None
             ) -> Tensor:
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(mse_loss, locals())
    d = input - _as_float(label, input)
    return _reduce(d * d, reduction)


def l1_loss(input: Tensor, label: Any, reduction: str = "mean", name: str | None = None
            ) -> Tensor:
    return _reduce(E.abs(input - _as_float(label, input)), reduction)


def _huber_forward(x: np.ndarray, y: np.ndarray, delta: float) -> np.ndarray:
    d = x - y
    a = np.abs(d)
    return np.where(a < delta, d * d * 0.5, (a - 0.5 * delta) * delta).astype(d.dtype)


def _huber_slope(m: Any, x: Any, y: Any, delta: float, sign: float) -> Any:
    """d/dx of huber(x - y): x - y where |x - y| < delta, else delta * sign(x - y)."""
    d = m.data(x) - m.data(y)
    return m.where(np.abs(d) < delta, (x - y) * sign, m.mask(np.sign(d)) * (delta * sign))


huber_op = binary(
    "huber", _huber_forward, lambda m, x, y, out, delta: _huber_slope(m, x, y, delta, 1.0),
    lambda m, x, y, out, delta: _huber_slope(m, x, y, delta, -1.0),
    # (the array rules read the saved slopes: x and y may change in place before the
    # backward, as in Paddle 3.3.1, whose huber_loss keeps the residual)
    grad_reads=(), rule_reads=(0, 1),
    cases=tuple({"shapes": s, "attrs": {"delta": 1.0}}
                for s in (((4,), (4,)), ((2, 3), (1, 3)), ((), ()), ((3,), ()))) +
    ({"shapes": ((5,), (5,)), "attrs": {"delta": 0.5}},))


def smooth_l1_loss(input: Tensor, label: Any, reduction: str = "mean", delta: float = 1.0,
                   is_huber: bool = True, name: str | None = None) -> Tensor:
    """Huber: 0.5 d^2 where |d| < delta, delta * (|d| - 0.5 delta) elsewhere (one `huber`
    node: its gradient is d or delta * sign(d)); is_huber=False divides it by delta before
    the reduction, as Paddle 3.3.1 does."""
    label = _as_float(label, input)
    delta = float(delta)
    loss = _huber(input, label, delta)
    return _reduce(loss if is_huber else loss / delta, reduction)


def _huber(input: Tensor, label: Tensor, delta: float) -> Tensor:
    """The unreduced Huber loss of input - label."""
    found = compiled_pair(input, label)
    if found is None or (found[4] is np.float32 and not abs(delta) < 3e38):
        return apply(huber_op, input, label, delta=delta)
    # one compiled pass for the output and both slopes (vm/forward_activation.py's huber:
    # _huber_forward's and _huber_slope's values bit for bit)
    k, a, b, shape, t, needs = found
    out, dx, dy = np.empty_like(a), np.empty_like(a), np.empty_like(a)
    k.huber(a, b, out, dx, dy, t(delta), t(0.5 * delta), t(0.5), t(1), t(0), t(-1))
    saved = (dx.reshape(shape) if needs[0] else None, dy.reshape(shape) if needs[1] else None)
    return apply_xy(huber_op, input, label, {"delta": delta}, out.reshape(shape), saved)


def _class_axis(input: Tensor, axis: int) -> int:
    if input.ndim == 0:
        raise ValueError("cross_entropy needs at least a 1-D input of class scores")
    return axis % input.ndim


@checks_own_tensor_args
def cross_entropy(input: Tensor, label: Any, weight: Tensor | None = None,
                  ignore_index: int = -100, reduction: str = "mean", soft_label: bool = False,
                  axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0,
                  name: str | None = None) -> Tensor:
    """Softmax cross entropy. Hard labels have shape [N] or [N, 1] (class ids; rows equal to
    ignore_index count for nothing); soft labels have the input's shape. 'mean' divides by
    the summed weights of the counted rows, as Paddle does; without weight and with a
    negative ignore_index (the default -100) Paddle 3.3.1 divides by every row, ignored ones
    included (its mean_all), and so does this. A float16 input: computed in float32 and
    rounded once (core.call_in_float32)."""
    if not isinstance(input, Tensor):
        raise tensor_arg_error("cross_entropy", "input", input)
    if input._data.dtype is FLOAT16:
        return call_in_float32(cross_entropy, locals())
    if label_smoothing and not 0 <= label_smoothing <= 1:
        # (Paddle 3.3.1 refuses it; above 1 the smoothed targets went negative)
        raise ValueError(f"cross_entropy: label_smoothing must lie in [0, 1], got "
                         f"{label_smoothing}")
    # The common call (integer labels [N] or [N, 1], class axis last, no weight) in a few
    # cheap tests: the kernel's coefficients, one nll node recorded from this frame. Any
    # other call, and every bad input, takes the full checks below with their errors.
    if weight is None and soft_label is False and use_softmax is True and \
            type(reduction) is str and reduction in _REDUCTIONS:
        d = input._data
        if type(axis) is int and d.ndim >= 2 and (axis == -1 or axis == d.ndim - 1) and \
                d.dtype.char in "fd" and d.size:    # (the kernels: float32, float64)
            kernels = _compiled_forward()
            found = None if kernels is None else _plain_labels(label, d.shape[:-1], True)
            if found is not None and d.ndim == 2 and reduction != "none" and \
                    not label_smoothing:
                fused = _fused_kernels(d)
                if fused is not None:
                    # (vm/forward_loss.py: ops/nll.py's compiled softmax forward with the
                    # coefficients' kernel folded into its first pass)
                    dt = d.dtype
                    coef, sh = np.empty(d.shape, dt), np.empty(d.shape, dt)
                    mode = (2 if ignore_index < 0 else 1) if reduction == "mean" else 0
                    ignored = fused.xent_hard_prep(d, found[0], ignore_index, mode, coef, sh)
                    if ignored >= 0:
                        raise _label_range_error("cross_entropy", d.shape[1], ignore_index)
                    e = np.exp(sh)
                    dx, logp = np.empty(d.shape, dt), np.empty(d.shape, dt)
                    t = 0.0 + kernels.xent_finish(sh, e, coef, dx, logp, np.empty(d.shape[0]))
                    # (the cast of a float64 total beyond float32's range warns: quiet)
                    out = np.asarray(t, dt) if dt is _F64 or -3e38 < t < 3e38 else \
                        _quiet_asarray(t, dt)
                    if ignored == -1:       # (every label counts: no select, nll.py)
                        return apply_xy(nll_op, input, Tensor._make(coef),
                                        _XENT_TOTAL, out, (dx, logp))
                    counted = (found[0] != ignore_index).astype(dt)[:, None]
                    out, saved = _selected((out, (dx, logp)), coef, 1, True, True, counted)
                    return apply_xy(nll_op, input, Tensor._make(coef), _XENT_TOTAL_SELECT,
                                    out, saved)
            coef = None if found is None else _hard_label_coefficients(
                kernels, d, found[0], ignore_index, reduction, label_smoothing)
            if coef is not None:            # (nll called here: see _hard_label_coefficients)
                counted = found[0] != ignore_index
                if reduction == "none":     # (smoothed: soft labels, a 1 at the class axis)
                    return _class_loss(input, coef, d.ndim - 1,
                                       found[1] or bool(label_smoothing), reduction, True,
                                       counted)
                return nll(input, coef, d.ndim - 1, True, True, counted)
    require_float(input, "cross_entropy")
    _check_reduction(reduction)
    ax = _class_axis(input, axis)
    C, dt = input.shape[ax], input._data.dtype
    no_rows = input._data.size == 0 and C and reduction != "none"
    if soft_label:
        lab = _target(label, input)
        if lab._data.shape != input._data.shape:
            raise ValueError(f"cross_entropy: soft labels must have the input's shape "
                             f"{input.shape}, got {lab.shape}")
        if no_rows:
            return _no_rows(input, reduction == "mean")
        if label_smoothing:
            lab = lab * (1.0 - label_smoothing) + label_smoothing / C
        if weight is not None:
            return _soft_weighted(input, lab, weight, ax, reduction, use_softmax)
        if use_softmax:
            rows = input._data.size // max(C, 1)
            coef = lab._data / float(rows or 1) if reduction == "mean" else lab._data
            return nll(input, coef, ax, reduction != "none", True)
        logp = _log_weighted(input, lab._data != 0)
        return _reduce(-R.sum(lab * logp, axis=ax, keepdim=True), reduction)
    lab = _labels(label)
    if lab.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: hard labels must be integers, got {lab.dtype} (pass "
                        "soft_label=True for probabilities)")
    keep_dim = lab.ndim == input.ndim
    if keep_dim:
        if lab.shape[ax] != 1:
            raise ValueError(f"cross_entropy: label shape {list(lab.shape)} does not fit input "
                             f"shape {input.shape}")
        lab = np.squeeze(lab, ax)
    expect = tuple(s for i, s in enumerate(input.shape) if i != ax)
    if lab.shape != expect:
        raise ValueError(f"cross_entropy: label shape {list(lab.shape)} does not fit input "
                         f"shape {input.shape} (expected {list(expect)} or with a 1 at axis)")
    if no_rows:
        return _no_rows(input, reduction == "mean")
    # Paddle's divisor for 'mean': every row when unweighted with ignore_index < 0
    every_row = reduction == "mean" and weight is None and ignore_index < 0
    if weight is None and not label_smoothing and use_softmax and ax == input.ndim - 1:
        coef = _hard_coefficients(lab, C, ignore_index, reduction == "mean", dt,
                                  "cross_entropy", every_row)
        if coef is not None:        # (every_row: 1 / lab.size, as coef * (1 / lab.size))
            return _class_loss(input, coef, ax, keep_dim, reduction, True,
                               lab != ignore_index)
    valid = lab != ignore_index
    if (weight is None and not label_smoothing and use_softmax and ax == input.ndim - 1 and
            valid.all() and lab.size and 0 <= lab.min() and lab.max() < C):
        # the common case: every label counts, weight 1: coefficients 1 / count (or 1)
        k = 1.0 / lab.size if reduction == "mean" else 1.0
        coef = np.zeros(lab.shape + (C,), dt)
        coef.reshape(-1, C)[np.arange(lab.size), lab.ravel()] = k
        return _class_loss(input, coef, ax, keep_dim, reduction, True, valid)
    safe = np.where(valid, lab, 0)
    if safe.size and (safe.max() >= C or safe.min() < 0):     # (ignored positions hold 0)
        raise _label_range_error("cross_entropy", C, ignore_index)
    if label_smoothing:
        keep_dim = True                 # soft labels: a 1 at the class axis, as Paddle
        target = np.eye(C)[safe] * (1 - label_smoothing) + label_smoothing / C
        # a row's weight: the class weights averaged by its smoothed target (Paddle 3.3.1)
        roww = valid.astype(np.float64) if weight is None else \
            (target @ _class_weights(weight, C)) * valid
    else:
        roww = _row_weights(weight, C, safe, valid)
    total = float(lab.size) if every_row else float(roww.sum())
    scale = _scaled(roww, reduction, total) if use_softmax else roww
    if label_smoothing:
        coef = target * scale[..., None]
    else:
        coef = _one_hot(safe, scale, C, dt if use_softmax else np.float64)
    if ax != coef.ndim - 1:
        coef = np.moveaxis(coef, -1, ax)
    if use_softmax:                 # (a row counts where its weight is not 0)
        return _class_loss(input, coef, ax, keep_dim, reduction, True, roww != 0)
    logp = _log_weighted(input, coef != 0)
    # -sum(coef * logp) as nll's plain node: a class whose coefficient is 0 (not the label,
    # an ignored row) gets 0 whatever the upstream gradient, as in Paddle 3.3.1
    loss = nll(logp, coef, ax, False, False)
    if not keep_dim:
        loss = squeeze(loss, ax)
    if reduction == "mean":
        return R.sum(loss) / (total or 1.0)
    return _reduce(loss, reduction)


def _no_rows(input: Tensor, mean: bool) -> Tensor:
    """A class loss of a batch without rows, as Paddle 3.3.1: 'sum' 0.0, 'mean' nan (0 / 0;
    nll_loss gives 0.0 for both), differentiable (an empty gradient)."""
    total = R.sum(input)
    return total + float("nan") if mean else total


def _soft_weighted(input: Tensor, lab: Tensor, weight: Any, ax: int, reduction: str,
                   use_softmax: bool) -> Tensor:
    """cross_entropy with soft labels and class weights, as Paddle 3.3.1: a row's loss
    times its weight sum_c lab_c w_c; 'mean' divides by the sum of those weights."""
    w = weight if isinstance(weight, Tensor) else Tensor._make(np.asarray(weight))
    if w._data.ndim != 1 or w._data.shape[0] != input.shape[ax]:
        raise ValueError(f"cross_entropy: weight must have one value per class "
                         f"({input.shape[ax]}), got shape {w.shape}")
    shape = [1] * input.ndim
    shape[ax] = input.shape[ax]
    roww = R.sum(lab * w.astype(input._data.dtype).reshape(shape), axis=ax, keepdim=True)
    logp = log_softmax(input, axis=ax) if use_softmax else _log_weighted(input, lab._data != 0)
    loss = -R.sum(lab * logp, axis=ax, keepdim=True) * roww
    if reduction == "mean":
        return R.sum(loss) / R.sum(roww)
    return _reduce(loss, reduction)


def _log_weighted(p: Tensor, weighted: np.ndarray) -> Tensor:
    """log(p) for cross_entropy without softmax, where only the `weighted` classes count: a
    zero probability in a class of weight 0 is read as 1, so its 0 * log(0) term and its
    gradient are 0, not NaN (Paddle 3.3.1 reads the labelled class only)."""
    unread = (p._data == 0) & ~weighted
    if unread.any():
        p = E.where(Tensor._make(~unread), p, Tensor._make(np.ones((), p._data.dtype)))
    return E.log(p)


def _hard_label_coefficients(kernels: Any, d: np.ndarray, lab: np.ndarray, ignore_index: int,
                             reduction: str, label_smoothing: Any) -> np.ndarray | None:
    """cross_entropy's coefficients for its common call (hard labels checked by
    _plain_labels, class axis last, no weight, softmax) without the general label handling:
    the same coefficients and errors, by the kernel; None for a smoothing it does not take.
    The caller records the node itself, so its call-site walk starts at the user's frame."""
    lead, C = d.shape[:-1], d.shape[-1]
    if not label_smoothing:
        # Paddle's divisor for 'mean': every row with a negative ignore_index (mode 2)
        mode = (2 if ignore_index < 0 else 1) if reduction == "mean" else 0
        return _kernel_coefficients(kernels, lab, lead, C, ignore_index, mode, d.dtype,
                                    "cross_entropy")
    if type(label_smoothing) is float and 0.0 < label_smoothing <= 1.0 and \
            type(ignore_index) is int and ignore_index in _INT64:
        # (the kernel's int64 ignore_index: the general path compares any value itself)
        return _smoothed_coefficients(kernels, lab, lead, C, ignore_index, reduction,
                                      label_smoothing)
    return None


def _smoothed_coefficients(kernels: Any, lab: np.ndarray, lead: tuple, C: int,
                           ignore_index: int, reduction: str, eps: float) -> np.ndarray:
    """cross_entropy's float64 coefficients with label smoothing `eps` (0 < eps <= 1), as
    the general path computes them, (eye[label] * (1 - eps) + eps / C) * scale, but with
    the one-hot rows from the kernel (which checks the range) and the products in place.
    Ignored rows get zeros there instead of eye[0]: scaled by 0 both give +0, since every
    smoothed target is finite and >= 0 for such an eps."""
    target = _kernel_coefficients(kernels, lab, (lab.size,), C, ignore_index, 0, np.float64,
                                  "cross_entropy")
    roww = (lab != ignore_index).astype(np.float64)
    every_row = reduction == "mean" and ignore_index < 0
    total = float(lab.size) if every_row else float(roww.sum())
    target *= 1 - eps
    target += eps / C
    target *= _scaled(roww, reduction, total)[:, None]
    return target.reshape(lead + (C,))


def _row_weights(weight: Any, C: int, safe: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Each position's class weight (1 without weights), 0 where the label is ignored."""
    if weight is None:
        return valid.astype(np.float64)
    return _class_weights(weight, C)[safe] * valid


def _class_weights(weight: Any, C: int) -> np.ndarray:
    """The class weights as a float64 array, one per class (a weight of another length
    would be indexed by the labels without complaint: Paddle 3.3.1 refuses it)."""
    w = np.asarray(weight._data if isinstance(weight, Tensor) else weight, dtype=np.float64)
    if w.shape != (C,):
        raise ValueError(f"weight must have one value per class ({C}), got shape "
                         f"{list(w.shape)}")
    return w


def _one_hot(safe: np.ndarray, roww: np.ndarray, C: int, dtype: Any = np.float64
             ) -> np.ndarray:
    """[..., C]: roww at each position's label, zeros elsewhere."""
    coef = np.zeros(safe.shape + (C,), dtype)
    coef.reshape(-1, C)[np.arange(safe.size), safe.ravel()] = roww.ravel()
    return coef


def _scaled(roww: np.ndarray, reduction: str, total: float | None = None) -> np.ndarray:
    """The row weights, divided for 'mean' by `total`, by default their sum (Paddle's
    divisor: the summed weights of the counted positions; 1 when none count)."""
    if reduction != "mean":
        return roww
    return roww / ((float(roww.sum()) if total is None else total) or 1.0)


def _class_loss(input: Tensor, coef: np.ndarray, ax: int, keep_dim: bool, reduction: str,
                use_softmax: bool, counted: np.ndarray | None = None) -> Tensor:
    """-sum(coef * logp) as one nll node, coef already scaled for 'mean' (_scaled);
    `counted`: nll's (which positions count, when the labels tell)."""
    if reduction in ("mean", "sum"):
        return nll(input, coef, ax, True, use_softmax, counted)
    loss = nll(input, coef, ax, False, use_softmax, counted)
    return loss if keep_dim else squeeze(loss, ax)


@checks_own_tensor_args
def nll_loss(input: Tensor, label: Any, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean", name: str | None = None) -> Tensor:
    """Negative log likelihood of log-probabilities input [N, C, ...] at labels [N, ...]."""
    if not isinstance(input, Tensor):
        raise tensor_arg_error("nll_loss", "input", input)
    if weight is None and type(reduction) is str and reduction in ("mean", "sum"):
        # the common call, [N, C] input, integer labels [N]: the general path's coefficients
        # and node, recorded here (the call-site walk then starts at the user's frame)
        d = input._data
        if d.ndim == 2 and d.dtype.char in "fd" and d.size:   # (kernels: float32, float64)
            kernels = _compiled_forward()
            found = None if kernels is None else _plain_labels(label, d.shape[:1], False)
            if found is not None:
                fused = _fused_kernels(d)
                if fused is not None:
                    # one kernel (vm/forward_loss.py): the coefficients, the saved gradient
                    # -coef and the total, as the path below computes them
                    coef, neg, out = np.empty(d.shape, d.dtype), np.empty(d.shape, d.dtype), \
                        np.empty((), d.dtype)
                    if fused.nll_hard_total(d, found[0], ignore_index,
                                            1 if reduction == "mean" else 0, coef, neg, out) >= 0:
                        raise _label_range_error("nll_loss", d.shape[1], ignore_index)
                    # (coef: its keep, nll.py's select: >= 0, 0 where x does not count)
                    return apply_xy(nll_op, input, Tensor._make(coef), _NLL_TOTAL, out,
                                    (neg, d, coef))
                coef = _kernel_coefficients(kernels, found[0], d.shape[:1], d.shape[1],
                                            ignore_index, 1 if reduction == "mean" else 0,
                                            d.dtype, "nll_loss")
                return nll(input, coef, 1, True, False)
    require_float(input, "nll_loss")
    if input.ndim < 2:
        raise ValueError(f"nll_loss: input must be [N, C, ...], got shape {input.shape}")
    lab = _labels(label)
    if lab.dtype.kind not in "iu":
        raise TypeError(f"nll_loss: labels must be integers (class ids), got {lab.dtype}")
    lab = lab.astype(np.int64)
    C = input.shape[1]
    if lab.shape != tuple(input.shape[:1] + input.shape[2:]):
        raise ValueError(f"nll_loss: label shape {list(lab.shape)} does not fit input shape "
                         f"{input.shape}")
    _check_reduction(reduction)
    if input._data.size == 0 and C and reduction != "none":
        return _no_rows(input, False)
    if weight is None and input.ndim == 2:
        coef = _hard_coefficients(lab, C, ignore_index, reduction == "mean",
                                  input._data.dtype, "nll_loss")
        if coef is not None:
            return _class_loss(input, coef, 1, False, reduction, False)
    valid = lab != ignore_index
    safe = np.where(valid, lab, 0)
    if safe.size and (safe.max() >= C or safe.min() < 0):
        raise _label_range_error("nll_loss", C, ignore_index)
    roww = _row_weights(weight, C, safe, valid)
    coef = _one_hot(safe, _scaled(roww, reduction), C, input._data.dtype)
    if coef.ndim > 2:
        coef = np.moveaxis(coef, -1, 1)
    return _class_loss(input, coef, 1, False, reduction, False)


def binary_cross_entropy(input: Tensor, label: Any, weight: Tensor | None = None,
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """-(y log p + (1 - y) log(1 - p)), each log clamped at -100 as in Paddle."""
    y = _target(label, input)
    if y._data.shape != input._data.shape and \
            np.broadcast_shapes(y._data.shape, input._data.shape) == input._data.shape:
        y = Tensor._make(np.broadcast_to(y._data, input._data.shape))
    if bce_fusable(input, y):
        loss = bce(input, y)
    else:
        lp = E.maximum(E.log(input), -100.0)
        lq = E.maximum(E.log(1.0 - input), -100.0)
        loss = -(y * lp + (1.0 - y) * lq)
    if weight is not None:
        loss = loss * _as_float(weight, input)
    out = _reduce(loss, reduction)
    if reduction != "none" and out._data != out._data:    # NaN: look for the cause
        _check_probabilities(input._data)
    return out


def _check_probabilities(d: np.ndarray) -> None:
    """binary_cross_entropy's error path: Paddle 3.3.1 refuses inputs outside [0, 1] (and
    NaN); checked only once a reduced loss came out NaN (no cost to a valid call)."""
    bad = (d < 0) | (d > 1) | (d != d)
    if bad.any():
        raise ValueError(f"binary_cross_entropy: input must hold probabilities in [0, 1] "
                         f"(apply sigmoid first, or use binary_cross_entropy_with_logits), "
                         f"got {float(d[bad].ravel()[0])}")


def binary_cross_entropy_with_logits(logit: Tensor, label: Any, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None,
                                     name: str | None = None) -> Tensor:
    """(1 - y) x + (1 + (pw - 1) y) softplus(-x): stable for large |x|, exact at x = 0."""
    if isinstance(logit, Tensor) and logit._data.dtype is FLOAT16:
        return call_in_float32(binary_cross_entropy_with_logits, locals())
    y = _target(label, logit)
    if y._data.shape != logit._data.shape:
        raise ValueError(f"binary_cross_entropy_with_logits: label shape {y.shape} must equal "
                         f"logit shape {logit.shape}")
    if pos_weight is None and bce_fusable(logit, y):
        loss = bce_logits(logit, y)
        if weight is not None:
            loss = loss * _as_float(weight, logit)
        return _reduce(loss, reduction)
    sp = softplus(-logit, threshold=float("inf"))
    if pos_weight is not None:
        loss = (1.0 - y) * logit + (1.0 + (_target(pos_weight, logit) - 1.0) * y) * sp
    else:
        loss = (1.0 - y) * logit + sp
    if weight is not None:
        loss = loss * _as_float(weight, logit)
    return _reduce(loss, reduction)


# ---- kl_div: label * (log(label) - input) as one node ------------------------------------
# What const(log(where(y > 0, y, 1))) - x, then y * it, computed as two nodes (subtract,
# multiply), its values bit for bit (the same numpy operations). Its x slope -y is a kernel
# factor (no saved array): g * y * -1, the composite's -(g * y). The label has no gradient
# in kl_div (_target); the op's y slope, log(y) + 1 - x (y > 0) or -x, is for the registry.

def _kl_forward(x, y):
    logy = np.log(np.where(y > 0, y, 1)).astype(y.dtype, copy=False)
    return np.multiply(y, np.subtract(logy, x))


def _kl_dy(m, x, y, out):
    pos = m.data(y) > 0
    return m.where(pos, m.log(m.where(pos, y, 1.0)) + 1.0 - x, -x)


kl_op = binary("kl_div", _kl_forward, lambda m, x, y, out: -y, _kl_dy, domain=(0.1, 2.0),
               cases=tuple({"shapes": (s, s)} for s in ((4,), (2, 3), (), (2, 1, 3))))


def kl_div(input: Tensor, label: Any, reduction: str = "mean", log_target: bool = False,
           name: str | None = None) -> Tensor:
    """label * (log(label) - input) with input log-probabilities; 0 where label is 0."""
    y = _target(label, input)
    if log_target:
        loss = E.exp(y) * (y - input)
    elif y._data.shape == input._data.shape and y._data.dtype is input._data.dtype and \
            input._data.dtype.kind == "f":
        loss = apply_xy(kl_op, input, y)            # (one node: _kl_forward)
    else:
        pos = y._data > 0
        logy = const(np.log(np.where(pos, y._data, 1)), input._data.dtype)
        loss = y * (logy - input)
    if reduction == "batchmean":
        return R.sum(loss) / float(input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction, ("batchmean",))


def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    """w12 / sqrt(max(w1 w2, eps^2)) along axis: one node (ops/cosine.py) for two float
    tensors of one shape, else the composite below (broadcasting)."""
    found = cosine(x1, x2, axis, eps, False) if isinstance(x1, Tensor) else None
    if found is not None:
        return found
    w12 = R.sum(x1 * x2, axis=axis)
    w1 = R.sum(x1 * x1, axis=axis)
    w2 = R.sum(x2 * x2, axis=axis)
    return w12 / E.sqrt(E.clip(w1 * w2, min=eps * eps))


def normalize(x: Tensor, p: float = 2, axis: int = 1, epsilon: float = 1e-12,
              name: str | None = None) -> Tensor:
    """x divided by its p-norm along axis (at least epsilon)."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(normalize, locals())
    n = norm(x, p=p, axis=axis, keepdim=True)
    return x / E.maximum(n, epsilon)


def square_error_cost(input: Tensor, label: Any) -> Tensor:
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(square_error_cost, locals())
    d = input - _as_float(label, input)
    return d * d
