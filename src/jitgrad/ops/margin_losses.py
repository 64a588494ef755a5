"""The less common losses of paddle.nn.functional (margin, ranking, probabilistic, distance),
composites on loss.py's helpers; each matches Paddle 3.3.1 as measured, and each departure
(where Paddle contradicts its docs) is named in its docstring."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import rounded
from . import elementwise as E
from . import reduce as R
from .activation import log_sigmoid, softplus
from .bce import bce_logits
from .bce import fusable as bce_fusable
from .core import apply_xy, compiled_input, compiled_kernels, const, remember, require_float
from .core import FLOAT16, call_in_float32
from .math import NO_FACTOR
from .cosine import cosine
from .derivative import binary, kernel_scalars
from .loss import _as_float, _check_reduction, _labels, _reduce
from .reduce import _kept_shape, _spread
from .registry import defop
from .shape import unsqueeze
from .stats import _l2_forward, _l2_smooth, norm


def _tensor(x: Any, fname: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}: {arg} must be a Tensor, got {type(x).__name__}")
    require_float(x, f"{fname} ({arg})")
    return x


def _same_shape(a: Tensor, b: Any, fname: str, what: str = "label") -> None:
    shape = list(b.shape) if isinstance(b, Tensor) else list(np.shape(b))
    if list(a.shape) != shape:
        raise ValueError(f"{fname}: input shape {list(a.shape)} and {what} shape {shape} "
                         "must be equal")


def _where_label(lab: np.ndarray, v: float, x: Tensor) -> Tensor:
    return E.where(lab == v, x, 0.0)


def margin_ranking_loss(input: Tensor, other: Tensor, label: Any, margin: float = 0.0,
                        reduction: str = "mean", name: str | None = None) -> Tensor:
    """relu(label * (other - input) + margin); label (+1 / -1) gets a gradient too, as in
    Paddle. A 0-d input stays 0-d with reduction='none' (Paddle adds the margin as a [1]
    tensor and returns [1]; its docs say the input's shape)."""
    _check_reduction(reduction)
    _tensor(input, "margin_ranking_loss", "input")
    out = (other - input) * (label if isinstance(label, Tensor) else _as_float(label, input))
    return _reduce(E.relu(out + float(margin)) if margin else E.relu(out), reduction)


# ---- hinge_embedding: one elementwise node ------------------------------------------------
# What where(y == 1, x, 0) + where(y == -1, relu(margin - x), 0) computed as five nodes, its
# values bit for bit (the same numpy operations, or vm/forward_loss.py's one loop once Numba
# is loaded). The slope it saves is 1, -1 or 0, so the gradient g * slope is the
# composite's up to the sign of a zero (the composite's sum of masked terms gives +0 where
# this gives g * 0). The label y is a constant (no gradient, as in Paddle).

def _hinge_forward(x, y, margin):
    t = x.dtype.type
    zero = t(0)
    r = np.maximum(np.subtract(t(margin), x), 0).astype(x.dtype, copy=False)
    return np.where(y == 1, x, zero) + np.where(y == -1, r, zero)


def _hinge_slope(m, x, y, out, margin):
    x, y = m.data(x), m.data(y)
    with np.errstate(all="ignore"):
        r = np.maximum(np.subtract(x.dtype.type(margin), x), 0)
    return m.mask(np.where(y == 1, 1.0, np.where((y == -1) & (r > 0), -1.0, 0.0)))


hinge_embedding_op = binary(
    "hinge_embedding", _hinge_forward, _hinge_slope, lambda m, x, y, out, margin: 0.0,
    cases=tuple({"shapes": (s, s), "attrs": {"margin": mg}}
                for s, mg in (((4,), 1.0), ((2, 3), 0.5), ((), 1.0), ((2, 1, 3), -0.5))))


def _hinge_scalars(t: type, margin: float) -> tuple:
    """hinge_embedding's kernel scalars in scalar type t (kept by kernel_scalars)."""
    with np.errstate(all="ignore"):
        return t(margin), t(0), t(1), t(-1)


def hinge_embedding_loss(input: Tensor, label: Any, margin: float = 1.0,
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """input where label == 1, relu(margin - input) where label == -1, 0 for other labels;
    the label is a constant (no gradient, as in Paddle). One hinge_embedding node (above)
    for a label of the input's shape and dtype or an integer one, else the composite."""
    _check_reduction(reduction)
    _tensor(input, "hinge_embedding_loss", "input")
    lab = _labels(label)
    d = input._data
    mg = float(margin)
    if lab.shape == d.shape and (lab.dtype is d.dtype or lab.dtype.kind in "iub"):
        y = lab if lab.dtype is d.dtype else lab.astype(d.dtype)     # (exact for +-1)
        attrs = {"margin": mg}
        found = compiled_input("forward_loss", d, y)
        if found is None:
            loss = apply_xy(hinge_embedding_op, input, Tensor._make(y), attrs)
        else:
            k, xd, yd = found
            out, slope = np.empty(d.shape, d.dtype), np.empty(d.shape, d.dtype)
            k.hinge_embedding(xd.reshape(-1), yd.reshape(-1),
                              *kernel_scalars("hinge_embedding", _hinge_scalars, d.dtype.type,
                                              attrs),
                              out.reshape(-1), slope.reshape(-1))
            loss = apply_xy(hinge_embedding_op, input, Tensor._make(y), attrs, out, (slope,))
        return _reduce(loss, reduction)
    loss = _where_label(lab, 1, input) + _where_label(lab, -1, E.relu(mg - input))
    return _reduce(loss, reduction)


# ---- soft_margin: softplus(-y x) as one node ----------------------------------------------
# What softplus(-y * x, threshold=inf) computed as three nodes (neg, mul, softplus), its
# values bit for bit: the same numpy operations (ops/activation.py's _softplus_fwd and
# _softplus_deriv for beta 1, no threshold), or once Numba is loaded vm/forward_loss.py's
# loop around numpy's exp, ops/rounded.py's log1p and softplus's factor kernel (~10%
# quicker: the node count is the gain, ~22 -> ~17 us for the 32 x 64 float32 loss). The
# forward saves softplus's factor f = sigmoid(z) (from the exp its output took), -y and x;
# the backward is the composite's: gz = g * f, then dx = gz * -y and dy = -(gz * x).

def _soft_margin_numpy(x, y):
    negy = np.negative(y)
    z = np.multiply(negy, x)
    out = (np.maximum(z, 0) + rounded.log1p(np.exp(-np.abs(z)))).astype(x.dtype, copy=False)
    f = E._sigmoid(z).astype(x.dtype, copy=False)
    return out, (f, negy, x)


_SM_SCALARS = {np.dtype(np.float32): (np.float32(0), np.float32(-1)),
               np.dtype(np.float64): (np.float64(0), np.float64(-1))}


# (float32_math.softplus's beta 1, no threshold, no factor; softplus_factor's scalars)
_SM_F32 = (NO_FACTOR, np.float32(1), np.float32(np.inf), False, np.float32(-1))
_SM_FACTOR = {t: (t(1), t(np.inf), False, t(1), t(0)) for t in (np.float32, np.float64)}


def _soft_margin_forward(x, y):
    found = compiled_input("forward_loss", x, y) if x.shape == y.shape else None
    if found is None:
        return _soft_margin_numpy(x, y)
    k, xd, yd = found
    shape = xd.shape
    xf = xd.reshape(-1)
    negy, z, a = np.empty_like(xf), np.empty_like(xf), np.empty_like(xf)
    k.soft_margin_parts(xf, yd.reshape(-1), negy, z, a)
    np.exp(a, out=a)
    out = np.empty_like(xf)
    f32 = compiled_kernels("float32_math") if xd.dtype == np.float32 else None
    if f32 is not None:     # softplus without a threshold: log1p and the rest in one pass
        f32.softplus(z, a, out, *_SM_F32)         # (vm/float32_math.py), these values
    else:                   # (the former factor's expm1 argument into a scratch array)
        k.soft_margin_finish(z, rounded.log1p(a), out, np.empty_like(xf),
                             *_SM_SCALARS[xd.dtype])
    compiled_kernels("forward_activation").softplus_factor(z, a, *_SM_FACTOR[xd.dtype.type])
    return out.reshape(shape), (a.reshape(shape), negy.reshape(shape), x)   # (a: factor)


def _soft_margin_vjp(g, out, x, y):
    negy = -y
    gz = g * E.sigmoid(negy * x)            # (softplus's factor, as its rule writes it)
    return gz * negy, -(gz * x)


def _soft_margin_interp(node, g, want):
    """The lowering's products on arrays (a graph's first backward, interpreted)."""
    f, negy, x = node.saved
    gz = g * f
    return (gz * negy if want[0] else None, np.negative(gz * x) if want[1] else None)


def _lower_soft_margin(b, node, g, gins):
    """gz = g * f (one MUL), then gx += gz * -y, gy += -(gz * x)."""
    f, negy, x = node.saved
    shape = node.out_data.shape
    gz = b.alloc(shape)
    b.emit("MUL", gz, g, b.value(f), acc=False)
    if gins[0] is not None:
        b.mul(gins[0], shape, gz, negy)
    if gins[1] is not None:
        b.mul(gins[1], shape, gz, x, k=-1.0)


soft_margin_op = defop(
    "soft_margin",
    fused="softplus(-y x): softplus's factor, -y and x saved by the forward",
    nin=2, forward=_soft_margin_forward, forward_saves=True, vjp=_soft_margin_vjp,
    lower=_lower_soft_margin, interp=_soft_margin_interp, quiet=True,
    cases=tuple({"shapes": (s, s)} for s in ((), (4,), (2, 3), (2, 1, 3), (8, 16))))


def soft_margin_loss(input: Tensor, label: Any, reduction: str = "mean",
                     name: str | None = None) -> Tensor:
    """log(1 + exp(-label * input)), computed stably (Paddle's overflows to inf once
    -label * input > 88 in float32); a float label gets a gradient, an int one is cast.
    One soft_margin node (above), then the reduction."""
    _check_reduction(reduction)
    _same_shape(_tensor(input, "soft_margin_loss", "input"), label, "soft_margin_loss")
    y = _as_float(label, input)
    if y._data.dtype is input._data.dtype and y._data.shape == input._data.shape:
        return _reduce(apply_xy(soft_margin_op, input, y), reduction)
    return _reduce(softplus(-y * input, threshold=float("inf")), reduction)


def log_loss(input: Tensor, label: Any, epsilon: float = 1e-4, name: str | None = None
             ) -> Tensor:
    """-label log(input + eps) - (1 - label) log(1 - input + eps), elementwise, for input
    and label of shape [N, 1] (Paddle's requirement); the label is a constant. Paddle has
    only a float32 kernel; float64 works here too."""
    _tensor(input, "log_loss", "input")
    if input.ndim != 2 or input.shape[1] != 1:
        raise ValueError(f"log_loss: input must have shape [N, 1], got {list(input.shape)}")
    _same_shape(input, label, "log_loss")
    if isinstance(label, Tensor):
        require_float(label, "log_loss (label)")
    y = const(_labels(label), input._data.dtype)
    return -(y * E.log(input + epsilon)) - (1.0 - y) * E.log(1.0 - input + epsilon)


def sigmoid_focal_loss(logit: Tensor, label: Tensor, normalizer: Tensor | None = None,
                       alpha: float = 0.25, gamma: float = 2.0, reduction: str = "sum",
                       name: str | None = None) -> Tensor:
    """alpha_t (1 - p_t)^gamma bce_with_logits(logit, label) / normalizer, where p_t and
    alpha_t pick sigmoid(logit) / alpha for label 1 and their complements for label 0.
    As in Paddle, the label's gradient flows through p_t and alpha_t but not through the
    cross entropy term (Paddle's sigmoid_cross_entropy_with_logits gives the label none)."""
    if isinstance(logit, Tensor) and logit._data.dtype is FLOAT16:
        return call_in_float32(sigmoid_focal_loss, locals())
    _check_reduction(reduction)
    _tensor(logit, "sigmoid_focal_loss", "logit")
    _tensor(label, "sigmoid_focal_loss", "label")
    _same_shape(logit, label, "sigmoid_focal_loss")
    if normalizer is not None:
        _tensor(normalizer, "sigmoid_focal_loss", "normalizer")
        if normalizer.ndim > 1:
            raise ValueError(f"sigmoid_focal_loss: normalizer must be 0-d or 1-D, got shape "
                             f"{list(normalizer.shape)}")
    y = const(label._data, logit._data.dtype)
    loss = softplus(logit, threshold=float("inf")) - logit * y
    pred = E.sigmoid(logit)
    p_t = pred * label + (1.0 - pred) * (1.0 - label)
    alpha_t = label * float(alpha) + (1.0 - label) * (1.0 - float(alpha))
    loss = (1.0 - p_t) ** float(gamma) * (alpha_t * loss)
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, label: Tensor, log_input: bool = True, full: bool = False,
                     epsilon: float = 1e-8, reduction: str = "mean", name: str | None = None
                     ) -> Tensor:
    """exp(input) - label * input (log_input) or input - label * log(input + epsilon); full
    adds Stirling's label log label - label + log(2 pi label) / 2 where label > 1. The
    label's gradient there is 0 elsewhere (Paddle's is nan where label <= 0: it takes
    log(label) before masking)."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(poisson_nll_loss, locals())
    if epsilon <= 0:
        raise ValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    _check_reduction(reduction)
    _tensor(input, "poisson_nll_loss", "input")
    _tensor(label, "poisson_nll_loss", "label")
    _same_shape(input, label, "poisson_nll_loss")
    if log_input:
        loss = E.exp(input) - label * input
    else:
        loss = input - label * E.log(input + float(epsilon))
    if full:
        big = label._data > 1
        lab = E.where(big, label, 1.0)
        stirling = lab * E.log(lab) - lab + 0.5 * E.log(lab * (2 * math.pi))
        loss = loss + E.where(big, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, label: Tensor, variance: Tensor, full: bool = False,
                      epsilon: float = 1e-6, reduction: str = "mean", name: str | None = None
                      ) -> Tensor:
    """(log(max(var, eps)) + (input - label)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 with
    full). variance has input's shape, or a last dim of 1, or one dim fewer. Unlike Paddle
    3.3.1, whose no_grad clip cuts it off, variance gets a gradient: its docs say input and
    variance are what the network predicts. The clamp itself is not differentiated (as in
    PyTorch, whose code Paddle's follows)."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(gaussian_nll_loss, locals())
    for t, arg in ((input, "input"), (label, "label"), (variance, "variance")):
        _tensor(t, "gaussian_nll_loss", arg)
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = unsqueeze(variance, -1)
        elif not (input.ndim and variance.ndim and list(input.shape[:-1]) ==
                  list(variance.shape[:-1]) and variance.shape[-1] == 1):
            raise ValueError(f"gaussian_nll_loss: variance shape {list(variance.shape)} fits "
                             f"neither input shape {list(input.shape)}, nor it with a last "
                             "dim of 1, nor it without its last dim")
    _check_reduction(reduction)
    v = variance._data
    if (v < 0).any():
        raise ValueError("gaussian_nll_loss: variance has negative entries")
    var = variance + const(np.maximum(v, epsilon) - v, v.dtype)
    loss = 0.5 * (E.log(var) + E.square(input - label) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, label: Any, margin: float = 0,
                          reduction: str = "mean", name: str | None = None) -> Tensor:
    """1 - cos(input1, input2) where label == 1, max(cos - margin, 0) where label == -1,
    over the last axis of [N, D] or [D] inputs (squared norms + 1e-11, as Paddle). Paddle
    returns None for an unknown reduction; this raises."""
    _check_reduction(reduction)
    lab = _labels(label)
    if lab.ndim != 1:
        raise ValueError(f"cosine_embedding_loss: label must be 1-D, got shape "
                         f"{list(lab.shape)}")
    _tensor(input1, "cosine_embedding_loss", "input1")
    _tensor(input2, "cosine_embedding_loss", "input2")
    if list(input1.shape) != list(input2.shape) or input1.ndim > 2:
        raise ValueError(f"cosine_embedding_loss: inputs must have one shape [N, D] or [D], "
                         f"got {list(input1.shape)} and {list(input2.shape)}")
    cos = cosine(input1, input2, -1, 1e-11, True)      # one node (ops/cosine.py), or:
    if cos is None:
        prod = R.sum(input1 * input2, axis=-1)
        mag1 = R.sum(E.square(input1), axis=-1) + 1e-11
        mag2 = R.sum(E.square(input2), axis=-1) + 1e-11
        cos = prod / E.sqrt(mag1 * mag2)
    out = _where_label(lab, 1, 1.0 - cos) + _where_label(lab, -1, E.clip(cos - margin, min=0.0))
    return _reduce(out, reduction)


def _p_norm_last(d: Tensor, p: float, keepdim: bool) -> Tensor:
    """Paddle's p_norm over the last axis: for p = +-inf every tied extreme gets the whole
    gradient (not a share), and p = 0 (the count of nonzeros) gives zero gradients."""
    ax = -1 if d.ndim else None
    if p in (np.inf, -np.inf, 0):
        a = np.abs(d._data)
        ext = (a.max if p == np.inf else a.min)(axis=ax, keepdims=True) if p else None
        value = (a != 0).sum(axis=ax, keepdims=True) if p == 0 else ext
        picked = R.sum(E.abs(d) * const(a == ext, a.dtype) if p else d * 0.0, axis=ax,
                       keepdim=True)
        out = const(value, a.dtype) + (picked - const(picked._data, a.dtype))
        return out if keepdim or d.ndim == 0 else R.sum(out, axis=-1)
    return norm(d, p=p, axis=ax, keepdim=keepdim and d.ndim > 0)


# ---- l2_distance: the Euclidean norm of x - y (+ eps) over axes, one node -------------------
# What l2_norm(x - y + eps) computes, its values bit for bit (the same numpy operations),
# recorded as one node instead of three: pairwise_distance, triplet_margin_loss and dist
# with p = 2. Its gradient is l2_norm's weights w = d / norm (0 for a zero vector, as
# Paddle) times g spread back over the axes, for x and negated for y.

def _difference(x: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    d = np.subtract(x, y)
    return np.add(d, np.asarray(eps, d.dtype)) if eps else d    # (x - y + eps as Tensors)


_ROWS: dict = {}        # (shape, axes, keepdim) -> (rows, row length, output shape) or None


def _rows(shape: tuple, axes: tuple | None, keepdim: bool) -> tuple | None:
    """The reduction over `axes` of a C-contiguous array of `shape` as one per row of a
    [rows, k] view: for the trailing axes (all of them with None), else None (and for a
    0-d or empty array)."""
    key = (shape, axes, keepdim)
    found = _ROWS.get(key, False)
    if found is False:
        ndim = len(shape)
        found = None
        if ndim and (axes is None or axes == tuple(range(ndim - len(axes), ndim))):
            kept = _kept_shape(shape, axes)
            rows = math.prod(kept)
            if rows and math.prod(shape):
                found = (rows, math.prod(shape) // rows, kept if keepdim else tuple(
                    [s for i, s in enumerate(shape) if axes is not None and i not in axes]))
        remember(_ROWS, key, found, 1024)
    return found


def _l2_distance_forward(x: np.ndarray, y: np.ndarray, eps: float, axes: tuple | None,
                         keepdim: bool) -> tuple[np.ndarray, tuple]:
    """(norm, (weights,)): _l2_forward of the difference. Float32 and float64 inputs of one
    shape reduced over their trailing axes (all of them, or the last ones) take one
    compiled pass once Numba is loaded (vm/forward.py's l2_rows: numpy's operations and
    pairwise sums, bit for bit; ~2 us for 32 x 64 where numpy's eight calls took ~11 us)."""
    layout = _rows(x.shape, axes, keepdim) if x.shape == y.shape else None
    found = None if layout is None else compiled_input("forward", x, y)
    if found is None:
        return _l2_forward(_difference(x, y, eps), axes, keepdim)
    kernels, x, y = found
    rows, k, shape = layout
    dt = x.dtype
    out = np.empty(shape, dt)
    w = np.empty(x.shape, dt)
    kernels.l2_rows(x, y, dt.type(eps), 2 if eps else 1, out, w, rows, k)
    return out, (w,)


def _l2_distance_vjp(g, out, x, y, eps, axes, keepdim):
    d = x - y
    if eps:
        d = d + float(eps)
    gd = _spread(g, d, axes) * _l2_smooth(out, d, axes, keepdim)
    return gd, -gd


def _l2_distance_interp(node, g, want):
    w = node.saved[0]
    gd = g.reshape(_kept_shape(w.shape, node.attrs["axes"])) * w
    return (gd if want[0] else None, np.negative(gd) if want[1] else None)


def _lower_l2_distance(b, node, g, gins):
    """gx += g[spread] * w (one EXPAND_MUL), gy -= the same."""
    shape = node.inputs[0]._data.shape
    kept = _kept_shape(shape, node.attrs["axes"])
    w = b.value(node.saved[0])
    if gins[1] is None:
        b.spread_mul(gins[0], g, w, kept, shape)
        return
    gd = b.alloc(shape)
    b.spread_mul(gd, g, w, kept, shape)
    if gins[0] is not None:
        b.emit("AXPY", gins[0], gd)
    b.emit("AXPY", gins[1], gd, k=-1.0)


l2_distance_op = defop(
    "l2_distance",
    fused="a reduction of two inputs' difference: l2_norm's weights, for x and negated for y",
    nin=2, forward=_l2_distance_forward, forward_saves=True, vjp=_l2_distance_vjp,
    lower=_lower_l2_distance, interp=_l2_distance_interp, quiet=True,
    # (the array rules read the saved weights: x and y may change in place before the
    # backward, as in Paddle 3.3.1's pairwise_distance, a composite of x - y; its dist
    # keeps them and refuses)
    grad_reads=(), rule_reads=(0, 1, "out"),
    cases=tuple({"shapes": (s, s), "attrs": {"eps": e, "axes": a, "keepdim": k}}
                for s, e, a, k in (((2, 3), 1e-6, (1,), False), ((2, 3), 0.0, None, False),
                                   ((), 1e-6, None, False), ((4,), 0.5, (0,), True),
                                   ((2, 3, 2), 0.0, (1, 2), True), ((3, 1), 1e-6, (1,), False),
                                   ((2, 3, 2), 1e-6, (0,), False))) + (
        # a zero distance: gradient 0 there (Paddle's p_norm), not nan
        {"shapes": ((2, 3), (2, 3)), "attrs": {"eps": 0.0, "axes": (1,), "keepdim": False},
         "values": [[[0.5, 1.0, -1.0], [1.0, -2.0, 2.0]], [[0.5, 1.0, -1.0], [0.0, 0.0, 0.0]]]},))


def l2_distance(x: Tensor, y: Tensor, eps: float, axes: tuple | None, keepdim: bool
                ) -> Tensor:
    """l2_norm(x - y + eps, axes, keepdim) as one node, for x and y of one shape and float
    dtype (axes normalised, None for a 0-d x)."""
    return apply_xy(l2_distance_op, x, y, {"axes": None if x._data.ndim == 0 else axes,
                                           "eps": float(eps), "keepdim": keepdim})


def pairwise_distance(x: Tensor, y: Tensor, p: float = 2.0, epsilon: float = 1e-6,
                      keepdim: bool = False, name: str | None = None) -> Tensor:
    """The p-norm of x - y + epsilon over the last axis (epsilon is added to the
    difference, as in Paddle, so it also shifts p = 1 and inf distances)."""
    _tensor(x, "pairwise_distance", "x")
    _tensor(y, "pairwise_distance", "y")
    if float(p) == 2.0 and x._data.dtype is y._data.dtype and x._data.shape == y._data.shape:
        # one node (l2_distance): what the composite below computes
        nd = x._data.ndim
        return l2_distance(x, y, float(epsilon), (nd - 1,) if nd else None,
                           bool(keepdim) and nd > 0)
    d = x - y
    if epsilon != 0:
        d = d + float(epsilon)
    return _p_norm_last(d, float(p), keepdim)


def triplet_margin_loss(input: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, epsilon: float = 1e-6, swap: bool = False,
                        reduction: str = "mean", name: str | None = None) -> Tensor:
    """max(d(input, positive) - d(input, negative) + margin, 0) with pairwise_distance d;
    swap uses min(d(input, negative), d(positive, negative)) for the negative distance."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(triplet_margin_loss, locals())
    _check_reduction(reduction)
    if margin < 0:
        raise ValueError(f"triplet_margin_loss: margin must be >= 0, got {margin}")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError(f"triplet_margin_loss: input, positive and negative must have one "
                         f"shape, got {list(input.shape)}, {list(positive.shape)}, "
                         f"{list(negative.shape)}")
    dp = pairwise_distance(input, positive, p, epsilon)
    dn = pairwise_distance(input, negative, p, epsilon)
    if swap:
        dn = E.minimum(dn, pairwise_distance(positive, negative, p, epsilon))
    return _reduce(E.clip(dp - dn + float(margin), min=0.0), reduction)


def multi_label_soft_margin_loss(input: Tensor, label: Any, weight: Tensor | None = None,
                                 reduction: str = "mean", name: str | None = None) -> Tensor:
    """-(label log sigmoid(input) + (1 - label) log sigmoid(-input)) * weight, averaged
    over the last axis (classes), then reduced over the batch; label and weight get
    gradients too, as in Paddle."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(multi_label_soft_margin_loss, locals())
    _check_reduction(reduction)
    _same_shape(_tensor(input, "multi_label_soft_margin_loss", "input"), label,
                "multi_label_soft_margin_loss")
    y = label if isinstance(label, Tensor) else _as_float(label, input)
    if bce_fusable(input, y):              # (1 - y) x + softplus(-x): the same, one node
        loss = bce_logits(input, y)
    else:
        loss = -(y * log_sigmoid(input) + (1.0 - y) * log_sigmoid(-input))
    if weight is not None:
        loss = loss * (weight if isinstance(weight, Tensor) else _as_float(weight, input))
    return _reduce(R.mean(loss, axis=-1), reduction)


def label_smooth(label: Tensor, prior_dist: Tensor | None = None, epsilon: float = 0.1,
                 name: str | None = None) -> Tensor:
    """(1 - epsilon) * label + epsilon * prior_dist (uniform 1 / C over the last axis when
    None); prior_dist ([C], [1, C] or broadcastable) is a constant, as in Paddle. A 0-d
    label has no class axis: an error here (Paddle returns (1 - epsilon) * label)."""
    if isinstance(label, Tensor) and label._data.dtype is FLOAT16:
        return call_in_float32(label_smooth, locals())
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"label_smooth: epsilon must lie in [0, 1], got {epsilon}")
    _tensor(label, "label_smooth", "label")
    if label.ndim == 0:
        raise ValueError("label_smooth: label must be at least 1-D (one-hot on the last axis)")
    dt = label._data.dtype
    if prior_dist is None:
        return label * (1.0 - epsilon) + epsilon / label.shape[-1]
    prior = np.asarray(prior_dist._data if isinstance(prior_dist, Tensor) else prior_dist)
    if prior.dtype != dt:
        raise TypeError(f"label_smooth: prior_dist dtype {prior.dtype} differs from label "
                        f"dtype {dt}; cast it")
    try:
        fits = np.broadcast_shapes(prior.shape, tuple(label.shape)) == tuple(label.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"label_smooth: prior_dist shape {list(prior.shape)} does not "
                         f"broadcast to label shape {list(label.shape)}")
    return label * (1.0 - epsilon) + const(epsilon * prior, dt)
