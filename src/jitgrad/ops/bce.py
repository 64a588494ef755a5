"""Binary cross entropy as two elementwise primitives, unreduced:

    bce(p, y)        = -(y max(log p, -100) + (1 - y) max(log(1 - p), -100))   (Paddle's clamp)
    bce_logits(x, y) = (1 - y) x + softplus(-x)      (stable for large |x|, exact at x = 0)

Why: as composites of logs, clamps, products and sums they recorded 6-12 nodes each (and
multi_label_soft_margin_loss 14); one node with its gradient factors saved in the forward
makes the backward one multiply per input: dp = g (p - y) / max(p (1 - p), 1e-12) (Paddle's
rule, finite at p = 0 and 1), dy = g (max(log(1 - p), -100) - max(log p, -100)); dx = g
(sigmoid(x) - y), dy = -g x.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from . import rounded
from . import elementwise as E
from .core import apply_xy, compiled_input
from .registry import defop

_EPS = 1e-12    # Paddle's bce_loss_grad: (p - y) / max(p (1 - p), eps), finite at p = 0, 1
_CASES = tuple({"shapes": (s, s)} for s in ((), (4,), (2, 3), (2, 1, 3)))


_BCE_SCALARS = {np.dtype(np.float32): tuple(np.float32(v) for v in (-100.0, 1, _EPS)),
                np.dtype(np.float64): tuple(np.float64(v) for v in (-100.0, 1, _EPS))}


def _bce_forward(p, y):
    """The numpy passes below, or once Numba is loaded numpy's log and log1p and one
    compiled loop for the rest (vm/forward_loss.py's bce_finish: the same values bit for
    bit, ~2x quicker for 32 x 64 float32)."""
    found = compiled_input("forward_loss", p, y) if p.shape == y.shape else None
    if found is None:
        return _bce_numpy(p, y)
    kernels, pd, yd = found
    pf = pd.reshape(-1)
    lp = np.log(pf)
    lq = np.negative(pf)
    lq = rounded.log1p(lq)
    out, dp, dl = np.empty_like(pf), np.empty_like(pf), np.empty_like(pf)
    kernels.bce_finish(pf, yd.reshape(-1), lp, lq, out, dp, dl, *_BCE_SCALARS[pd.dtype])
    shape = pd.shape
    return out.reshape(shape), (dp.reshape(shape), dl.reshape(shape))


def _bce_numpy(p, y):
    lp_raw, lq_raw = np.log(p), rounded.log1p(-p)
    lp, lq = np.maximum(lp_raw, -100.0), np.maximum(lq_raw, -100.0)
    out = -(y * lp + (1 - y) * lq)
    dp = (p - y) / np.maximum(p * (1 - p), _EPS)
    return out.astype(p.dtype, copy=False), (dp.astype(p.dtype, copy=False),
                                            (lq - lp).astype(p.dtype, copy=False))


def _bce_vjp(g, out, p, y):
    lp = E.maximum(E.log(p), -100.0)
    lq = E.maximum(E.log(1.0 - p), -100.0)
    return g * (p - y) / E.maximum(p * (1.0 - p), _EPS), g * (lq - lp)


def _mul_lower(b, node, g, gins):
    shape = node.out_data.shape
    for i in (0, 1):
        if gins[i] is not None:
            b.mul(gins[i], shape, g, node.saved[i])


def _mul_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): g times each input's saved
    factor, _mul_lower's rows on arrays (the vjp recomputed bce's logs, or the sigmoid, in
    Tensor ops: 256 x 512 bce 0.95 ms where torch's backward takes 0.2)."""
    return tuple([np.multiply(g, f) if w else None for f, w in zip(node.saved, want)])


bce_op = defop("bce",
               fused="a fused loss: each input's gradient factor saved by the forward",
               nin=2, forward=_bce_forward, forward_saves=True, vjp=_bce_vjp,
               lower=_mul_lower, interp=_mul_interp, quiet=True, domain=(0.05, 0.95),
               cases=_CASES)


def _logits_forward(x, y):
    found = compiled_input("forward_activation", x, y) if x.shape == y.shape else None
    if found is not None:           # the passes below compiled around numpy's exp and
        kernels, d, yd = found      # log1p (2048 float32: ~2x quicker)
        flat = d.reshape(-1)
        e = np.empty_like(flat)
        E.exp_neg_abs(kernels, flat, e)
        lg = rounded.log1p(e)
        out, dx, dy = np.empty_like(d), np.empty_like(d), np.empty_like(d)
        t = d.dtype.type
        kernels.bce_logits(flat, yd.reshape(-1), e, lg, out.reshape(-1), dx.reshape(-1),
                           dy.reshape(-1), t(1), t(0))
        return out, (dx, dy)
    e = np.exp(-np.abs(x))
    out = (1 - y) * x + (np.maximum(-x, 0) + rounded.log1p(e))
    sig = np.where(x >= 0, 1 / (1 + e), e / (1 + e))      # sigmoid(x), no overflow
    return out.astype(x.dtype, copy=False), ((sig - y).astype(x.dtype, copy=False),
                                            np.negative(x))


def _logits_vjp(g, out, x, y):
    return g * (E.sigmoid(x) - y), g * -x


bce_logits_op = defop("bce_logits",
                      fused="a fused loss: sigmoid(x) - y and -x saved by the forward",
                      nin=2, forward=_logits_forward, forward_saves=True,
                      vjp=_logits_vjp, lower=_mul_lower, interp=_mul_interp, quiet=True,
                      cases=_CASES)


def fusable(x: Tensor, y: Tensor) -> bool:
    """Both primitives take same-shape operands of one float dtype (else the composite)."""
    return (isinstance(y, Tensor) and x._data.shape == y._data.shape and
            x._data.dtype == y._data.dtype and x._data.dtype.kind == "f")


def bce(p: Tensor, y: Tensor) -> Tensor:
    return apply_xy(bce_op, p, y)


def bce_logits(x: Tensor, y: Tensor) -> Tensor:
    return apply_xy(bce_logits_op, x, y)
