"""The fused class-loss primitive behind cross_entropy and nll_loss:

    nll(x, coef) = -sum(coef * logp),  logp = log_softmax(x, axis) (or x itself)

summed along the class axis (kept as size 1) or, with `total`, over everything. The label
handling (class ids, ignore_index, class weights, label smoothing, the mean's divisor) is
folded into the constant `coef` by the callers, so a mean cross entropy is one node.

Why: as log_softmax, a multiply by the coefficients, two sums and a division it recorded
six nodes and its step ran ~2x slower than torch's. The gradient is saved in the forward:
dx = g * (softmax(x) * sum(coef) - coef) (or -g * coef), and dcoef = -g * logp.
"""

from __future__ import annotations

import numpy as np

from ..core.quiet import quiet
from ..core.tensor import Tensor
from . import reduce as R
from .core import apply_xy
from .elementwise import _compiled_forward
from .nn import log_softmax, softmax
from .registry import defop


def _compiled(x, coef, axis, total):
    """The softmax forward by vm.forward's row kernels around numpy's exp once Numba is
    loaded (class axis last); None when it does not apply. (dx and logp get arrays of their
    own: written over e and x - max, xent_finish's loop failed its alias check, 2x slower.)"""
    if axis != x.ndim - 1 or x.size < 64 or x.dtype.char not in "fd" or not x.flags.c_contiguous:
        return None
    kernels = _compiled_forward()
    if kernels is None:
        return None
    C = x.shape[-1]
    if coef.dtype != x.dtype or not coef.flags.c_contiguous:
        coef = np.ascontiguousarray(coef, x.dtype)
    dx, logp = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
    if x.ndim == 2:                     # (the common [N, C] logits: no views needed)
        x2, coef2, dx2, logp2 = x, coef, dx, logp
    else:
        x2, coef2, dx2, logp2 = (a.reshape(-1, C) for a in (x, coef, dx, logp))
    sh = np.empty(x2.shape, x.dtype)
    kernels.row_shift(x2, sh)
    e = np.exp(sh)
    rows = np.empty(x2.shape[0])
    whole = kernels.xent_finish(sh, e, coef2, dx2, logp2, rows)       # (= rows.sum())
    out = 0.0 + whole if total else rows.reshape(x.shape[:-1] + (1,))
    return np.asarray(out, x.dtype), (dx, logp)


def _plain_total(x, coef):
    """The forward without softmax, summed over everything (nll_loss's mean or sum), by
    vm.forward's weighted_total: the numpy path's values bit for bit in one call instead of
    a product, a sum and a NaN test; None when it does not apply."""
    if x.size < 64 or x.dtype.char not in "fd" or coef.dtype != x.dtype or \
            not (x.flags.c_contiguous and coef.flags.c_contiguous):
        return None
    kernels = _compiled_forward()
    if kernels is None:
        return None
    t = kernels.weighted_total(x.reshape(-1), coef.reshape(-1), np.empty(x.size, x.dtype))
    return np.asarray(-t, x.dtype), (np.negative(coef), x)


def _compiled_paths(x, coef, axis, total, use_softmax):
    """The forward by the compiled kernels; None when neither applies (numpy's path)."""
    if use_softmax:
        return _compiled(x, coef, axis, total)
    return _plain_total(x, coef) if total else None


# nll() runs it itself and hands apply_xy the result (no forward dispatch), quiet as the
# op's forward is: a float64 total beyond float32's range warns in the cast. (_plain_total
# needs no quiet: its kernel raises no numpy flags, its casts are exact.)
_quiet_compiled = quiet(_compiled)


def _forward(x, coef, axis, total, use_softmax):
    fast = _compiled_paths(x, coef, axis, total, use_softmax)
    if fast is not None:
        return fast
    if use_softmax:
        s = x - x.max(axis=axis, keepdims=True)
        e = np.exp(s)
        se = e.sum(axis=axis, keepdims=True)
        logp = s - np.log(se)
        dx = e / se
        dx *= coef.sum(axis=axis, keepdims=True)
        dx -= coef
    else:
        logp, dx = x, -coef
    prod = coef * logp
    out = -(prod.sum() if total else prod.sum(axis=axis, keepdims=True))
    if (out != out) if total else np.isnan(out).any():      # 0 * -inf: a class of weight 0
        # masked by a logit of -inf adds 0
        prod = np.multiply(coef, logp, out=np.zeros_like(prod), where=coef != 0)
        out = -(prod.sum() if total else prod.sum(axis=axis, keepdims=True))
    return np.asarray(out, x.dtype), (dx, logp)


def _logp(x: Tensor, axis: int, use_softmax: bool) -> Tensor:
    return log_softmax(x, axis=axis) if use_softmax else x


def _vjp(g, out, x, coef, axis, total, use_softmax):
    if use_softmax:
        dx = softmax(x, axis=axis) * R.sum(coef, axis=axis, keepdim=True) - coef
    else:
        dx = -coef
    return g * dx, -(g * _logp(x, axis, use_softmax))


def _lower(b, node, g, gins):
    from ..compile.builder import Slot
    x = node.inputs[0]._data
    keep = tuple(1 if i == node.attrs["axis"] else s for i, s in enumerate(x.shape))
    gb = b.alloc(x.shape)
    b.broadcast_into(gb, Slot(g.off, g.n, () if node.attrs["total"] else keep))
    for i in (0, 1):
        if gins[i] is not None:
            b.mul(gins[i], x.shape, gb, node.saved[i], k=1.0 if i == 0 else -1.0)


def _case(shape, axis, total, use_softmax):
    return {"shapes": (shape, shape),
            "attrs": dict(axis=axis, total=total, use_softmax=use_softmax)}


nll_op = defop(
    "nll",
    fused="the fused softmax cross entropy: its gradient computed by the forward's row kernel",
    nin=2, forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower, quiet=True,
    min_ndim=1,
    cases=(_case((3, 4), 1, True, True), _case((3, 4), 1, False, True),
           _case((2, 3, 2), 1, True, True), _case((4,), 0, False, True),
           _case((3, 4), 1, True, False), _case((2, 3, 2), 1, False, False),
           _case((8, 10), 1, True, True), _case((2, 4, 10), 2, False, True)))  # compiled


def nll(x: Tensor, coef: np.ndarray, axis: int, total: bool, use_softmax: bool) -> Tensor:
    """-sum(coef * logp) along `axis` (kept), or over everything when `total`; coef (an
    array of x's shape) enters as a constant. The public losses call it directly, so its
    node's call-site walk starts at their caller: the user's frame, found at once."""
    # (the raw arguments as the key: np.int64(1) or a truthy 1 finds the normalized entry,
    # equal values hashing alike; int() and bool() per call cost more than the lookup)
    attrs = _ATTRS.get((axis, total, use_softmax))
    if attrs is None:
        attrs = _node_attrs(axis, total, use_softmax)
    d = x._data
    if type(coef) is not np.ndarray or coef.dtype is not d.dtype:   # (the losses' own: as is)
        coef = np.asarray(coef, d.dtype)
    if attrs["use_softmax"]:
        found = _quiet_compiled(d, coef, attrs["axis"], attrs["total"])
    else:
        found = _plain_total(d, coef) if attrs["total"] else None
    if found is None:
        return apply_xy(nll_op, x, Tensor._make(coef), attrs)
    return apply_xy(nll_op, x, Tensor._make(coef), attrs, found[0], found[1])


def _node_attrs(axis: int, total: bool, use_softmax: bool) -> dict:
    """The node attributes for these arguments, made once (normalized: an int axis, bools)
    and kept under both the given and the normalized key."""
    key = (int(axis), bool(total), bool(use_softmax))
    attrs = _ATTRS.get(key)
    if attrs is None:
        attrs = _ATTRS[key] = dict(axis=key[0], total=key[1], use_softmax=key[2])
    _ATTRS[(axis, total, use_softmax)] = attrs
    return attrs


# the nodes' attribute dicts by (axis, total, use_softmax): shared (node.attrs is read only)
_ATTRS: dict[tuple, dict] = {}
