"""The fused class-loss primitive behind cross_entropy and nll_loss:

    nll(x, coef) = -sum(coef * logp),  logp = log_softmax(x, axis) (or x itself)

summed along the class axis (kept as size 1) or, with `total`, over everything. The label
handling (class ids, ignore_index, class weights, label smoothing, the mean's divisor) is
folded into the constant `coef` by the callers, so a mean cross entropy is one node.

Why: as log_softmax, a multiply by the coefficients, two sums and a division it recorded
six nodes and its step ran ~2x slower than torch's. The gradient is saved in the forward:
dx = g * (softmax(x) * sum(coef) - coef) (or -g * coef), and dcoef = -g * logp.

Where the loss does not depend on x, x's gradient is 0 whatever g is (an inf or NaN
upstream gives 0, not the NaN of g * 0), as Paddle 3.3.1's and torch's kernels give: with
softmax, on a row whose coefficients are all 0 (a label equal to ignore_index, a class of
weight 0); without, wherever the coefficient is 0 (every class but the label's). Such a
node has the attribute `select` and saves a third array `keep`, > 0 where x counts: the
rows' 0/1 (softmax: kept axis of size 1 unreduced, so g is picked per row and spread once,
GATHER_MUL; x's shape for a total, whose one g is spread with no table) or an array of x's
shape (coef itself when it is >= 0). A softmax node selects only when some row is left out
(the callers know that from the labels); its saved dx is 0 on those rows, so a row of inf
logits gives 0 there too.
"""

from __future__ import annotations

import numpy as np

from ..core.quiet import quiet
from ..core.tensor import Tensor
from . import reduce as R
from .core import apply_xy, const
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
    # (0.0 + : a row of zero coefficients, ignored, has loss +0, as in Paddle, not -0)
    out = 0.0 + whole if total else np.add(rows, 0.0, out=rows).reshape(x.shape[:-1] + (1,))
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


def _keep(coef: np.ndarray, axis: int, use_softmax: bool) -> np.ndarray:
    """Where x's gradient is not 0 whatever g is, > 0 (see the module docstring), from the
    coefficients alone: the rows with any coefficient (softmax), the nonzero coefficients
    (coef itself when none is negative)."""
    if use_softmax:
        return (coef != 0).any(axis=axis, keepdims=True).astype(coef.dtype)
    return coef if not (coef < 0).any() else (coef != 0).astype(coef.dtype)


def _selected(found: tuple, coef: np.ndarray, axis: int, use_softmax: bool, total: bool,
              keep: np.ndarray | None = None) -> tuple:
    """A forward's (out, (dx, logp)) with `keep` saved too (computed when not given; for a
    softmax, the rows'); a softmax dx is 0 on the rows left out (NaN there from a row of
    inf logits), and a softmax total's keep spread to x's shape."""
    out, (dx, logp) = found
    if keep is None:
        keep = _keep(coef, axis, use_softmax)
    if use_softmax:
        dropped = keep.reshape(-1) == 0
        if axis == dx.ndim - 1 and dx.flags.c_contiguous:
            dx.reshape(-1, dx.shape[-1])[dropped] = 0
        else:
            np.copyto(dx, 0, where=np.broadcast_to(keep == 0, dx.shape))
        if total:
            keep = np.broadcast_to(keep, dx.shape).astype(dx.dtype)
    return out, (dx, logp, keep)


def _forward(x, coef, axis, total, use_softmax, select=False):
    found = _forward_values(x, coef, axis, total, use_softmax)
    return _selected(found, coef, axis, use_softmax, total) if select else found


def _forward_values(x, coef, axis, total, use_softmax):
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
    out = -prod.sum() if total else 0.0 - prod.sum(axis=axis, keepdims=True)
    if (out != out) if total else np.isnan(out).any():      # 0 * -inf: a class of weight 0
        # masked by a logit of -inf adds 0
        prod = np.multiply(coef, logp, out=np.zeros_like(prod), where=coef != 0)
        out = -prod.sum() if total else 0.0 - prod.sum(axis=axis, keepdims=True)
    return np.asarray(out, x.dtype), (dx, logp)


def _logp(x: Tensor, axis: int, use_softmax: bool) -> Tensor:
    return log_softmax(x, axis=axis) if use_softmax else x


def _vjp(g, out, x, coef, axis, total, use_softmax, select=False):
    if use_softmax:
        dx = softmax(x, axis=axis) * R.sum(coef, axis=axis, keepdim=True) - coef
    else:
        dx = -coef
    gx = g * dx
    if select:
        from .elementwise import where
        kept = np.broadcast_to(_keep(coef._data, axis, use_softmax) > 0, x._data.shape)
        gx = where(kept, gx, const(np.zeros((), x._data.dtype), x._data.dtype))
    return gx, -(g * _logp(x, axis, use_softmax))


def _lower(b, node, g, gins):
    from ..compile.builder import Slot
    x = node.inputs[0]._data
    attrs = node.attrs
    rows = tuple(1 if i == attrs["axis"] else s for i, s in enumerate(x.shape))
    src = Slot(g.off, g.n, () if attrs["total"] else rows)
    keep = node.saved[2] if attrs.get("select") else None
    if keep is not None and keep.shape != x.shape:      # softmax: g selected per row
        picked = b.alloc(rows)
        b.emit("RELU_BWD", picked, src, b.value(keep))
        if gins[1] is None:             # (x's gradient only: rows spread times dx, one pass)
            b.spread_mul(gins[0], picked, b.value(node.saved[0]), rows, x.shape)
            return
        src = picked
    gb = b.alloc(x.shape)
    b.broadcast_into(gb, src)
    for i in (0, 1):
        if gins[i] is None:
            continue
        if i == 0 and keep is not None and keep.shape == x.shape:
            # (a softmax dx is +0 where it does not count: RELU_BWD first; a plain one is
            # -coef, -0.0 there: select last, for +0)
            b.weighted(gins[0], x.shape, gb, node.saved[0], keep,
                       select_last=not attrs["use_softmax"])
        else:
            b.mul(gins[i], x.shape, gb, node.saved[i], k=1.0 if i == 0 else -1.0)


def _interp(node, g, want):
    """The interpreted rule (a new structure's first backward) on the forward's saved
    arrays, the same products as _lower's rows (the vjp recomputes the softmax in Tensor
    ops: 0.62 ms of a 256 x 512 cross entropy's first backward)."""
    x = node.inputs[0]._data
    attrs = node.attrs
    dt = x.dtype
    zero = dt.type(0)
    rows = tuple(1 if i == attrs["axis"] else s for i, s in enumerate(x.shape))
    g = np.asarray(g, dt).reshape(() if attrs["total"] else rows)
    keep = node.saved[2] if attrs.get("select") else None
    if keep is not None and keep.shape != x.shape:      # softmax: g selected per row
        g = np.where(keep > 0, g, zero)
    gb = np.broadcast_to(g, x.shape)
    gx = gc = None
    if want[0]:
        w = node.saved[0]
        if keep is not None and keep.shape == x.shape:
            if attrs["use_softmax"]:
                gx = np.where(keep > 0, gb, zero) * w
            else:
                gx = np.where(keep > 0, gb * w, zero)
        else:
            gx = gb * w
    if want[1]:
        gc = -gb * node.saved[1]
    return gx, gc


def _case(shape, axis, total, use_softmax, select=False):
    return {"shapes": (shape, shape),
            "attrs": dict(axis=axis, total=total, use_softmax=use_softmax, select=select)}


nll_op = defop(
    "nll",
    fused="the fused softmax cross entropy: its gradient computed by the forward's row kernel",
    nin=2, forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower, interp=_interp,
    quiet=True,
    # (the array rules read the saved dx and logp: the logits may change in place before
    # the backward, as in Paddle 3.3.1, whose cross entropy keeps the softmax)
    grad_reads=(1,), rule_reads=(0,),
    min_ndim=1,
    cases=(_case((3, 4), 1, True, True), _case((3, 4), 1, False, True),
           _case((2, 3, 2), 1, True, True), _case((4,), 0, False, True),
           _case((3, 4), 1, True, False, True), _case((2, 3, 2), 1, False, False, True),
           _case((8, 10), 1, True, True), _case((2, 4, 10), 2, False, True),   # compiled
           _case((3, 4), 1, False, True, True), _case((2, 3, 2), 1, True, True, True),
           _case((8, 10), 1, True, True, True), _case((2, 4, 10), 2, False, True, True)))


def nll(x: Tensor, coef: np.ndarray, axis: int, total: bool, use_softmax: bool,
        counted: np.ndarray | None = None) -> Tensor:
    """-sum(coef * logp) along `axis` (kept), or over everything when `total`; coef (an
    array of x's shape) enters as a constant. The public losses call it directly, so its
    node's call-site walk starts at their caller: the user's frame, found at once.
    `counted` (softmax): which positions count, a bool per row (any shape of that size),
    when the caller knows it from the labels; None: read from coef (a pass over it)."""
    d = x._data
    if type(coef) is not np.ndarray or coef.dtype is not d.dtype:   # (the losses' own: as is)
        coef = np.asarray(coef, d.dtype)
    keep = None
    if not use_softmax:
        select = True
    else:
        if counted is None:
            keep = _keep(coef, int(axis) % max(d.ndim, 1), True)
            select = not keep.all()
        else:
            select = not counted.all()
        if select and keep is None:
            rows = list(d.shape)
            rows[int(axis) % d.ndim] = 1
            keep = counted.reshape(rows).astype(d.dtype)
    # (the raw arguments as the key: np.int64(1) or a truthy 1 finds the normalized entry,
    # equal values hashing alike; int() and bool() per call cost more than the lookup)
    attrs = _ATTRS.get((axis, total, use_softmax, select))
    if attrs is None:
        attrs = _node_attrs(axis, total, use_softmax, select)
    if attrs["use_softmax"]:
        found = _quiet_compiled(d, coef, attrs["axis"], attrs["total"])
    else:
        found = _plain_total(d, coef) if attrs["total"] else None
    if found is None:                   # (the op's forward: its `keep` read from coef)
        return apply_xy(nll_op, x, Tensor._make(coef), attrs)
    if select:
        found = _selected(found, coef, attrs["axis"], attrs["use_softmax"], attrs["total"],
                          keep)
    return apply_xy(nll_op, x, Tensor._make(coef), attrs, found[0], found[1])


def _node_attrs(axis: int, total: bool, use_softmax: bool, select: bool = False) -> dict:
    """The node attributes for these arguments, made once (normalized: an int axis, bools)
    and kept under both the given and the normalized key."""
    key = (int(axis), bool(total), bool(use_softmax), bool(select))
    attrs = _ATTRS.get(key)
    if attrs is None:
        attrs = _ATTRS[key] = dict(axis=key[0], total=key[1], use_softmax=key[2],
                                   select=key[3])
    _ATTRS[(axis, total, use_softmax, select)] = attrs
    return attrs


# the nodes' attribute dicts by (axis, total, use_softmax, select): shared (node.attrs is
# read only)
_ATTRS: dict[tuple, dict] = {}
