"""The fused normalization primitive behind layer_norm, batch_norm (batch statistics),
group_norm and instance_norm: normalise, then scale and shift, in one node.

Why one primitive: as composites (mean, subtract, square, mean, rsqrt, multiply, reshape,
multiply, add) each norm recorded 12-16 nodes, whose backward was as many passes over the
activation plus index-table gathers and scatters; torch's fused kernels ran its training
step 2-4x faster. Here the forward is a few numpy passes and the compiled backward is one
NORM_BWD row for the input plus per-channel sums (CHANSUM / ROWSUM) for weight and bias.

Layouts, as attributes: `stats` = (R, S, L) views x as [R, S, L], statistic s over its
R * L elements (batch_norm NCHW: [N, C, H * W]; the others [1, groups, group size]);
`affine` = (A, Q): element e's weight and bias are number (e // Q) % A, or e's position in
its statistic row when Q = 0 (layer_norm over a trailing block).
"""

from __future__ import annotations

from typing import Any

import math

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .core import apply, compiled_kernels, vjp_on_arrays
from .elementwise import _compiled_forward
from .math import rsqrt
from .registry import defop
from .shape import reshape


def _affine_view(shape_n: int, affine: tuple, L: int) -> tuple:
    """The shape that lines x up with w broadcast as [A, 1] (Q > 0) or [A] (Q = 0)."""
    A, Q = affine
    return (shape_n // (A * Q), A, Q) if Q else (shape_n // A, A)


def _stats(x3: np.ndarray) -> tuple:
    axes = (0, 2) if x3.shape[0] > 1 else 2
    mu = x3.mean(axis=axes, keepdims=True)
    d = x3 - mu
    var = np.mean(d * d, axis=axes, keepdims=True)
    return mu, d, var, axes


COMPILED_MIN = 256      # elements: below this numpy's few calls cost less than the entry


def _flat(a: np.ndarray) -> np.ndarray:
    return a if a.ndim == 1 and a.flags.c_contiguous else np.ascontiguousarray(a).reshape(-1)


def _compiled(x, w, b, stats, affine, eps):
    """The forward by vm.forward.norm_affine once Numba is loaded (None before)."""
    if x.size < COMPILED_MIN or not x.flags.c_contiguous or x.dtype.char not in "fd":
        return None
    kernels = _compiled_forward()
    if kernels is None:
        return None
    (Rn, S, L), (A, Q) = stats, affine
    dt = x.dtype
    y, xhat = np.empty(x.shape, dt), np.empty(x.shape, dt)
    mv, aux = np.empty((2, 1, S, 1), dt), np.empty(S + w.size, dt)   # aux: rstd, then w
    kernels.norm_affine(x.reshape(-1), _flat(w), _flat(b), Rn, S, L, A, Q, float(eps),
                        y.reshape(-1), xhat.reshape(-1), mv.reshape(-1), aux)
    return y, (xhat, aux, mv[0], mv[1])


def _forward(x, w, b, stats, affine, eps):
    fast = _compiled(x, w, b, stats, affine, eps)
    if fast is not None:
        return fast
    mu, d, var, _ = _stats(x.reshape(stats))
    rstd = (1.0 / np.sqrt(var + x.dtype.type(eps))).astype(x.dtype, copy=False)
    d *= rstd                                   # xhat, in place
    A, Q = affine
    view = _affine_view(x.size, affine, stats[2])
    wv, bv = (w.reshape(A, 1), b.reshape(A, 1)) if Q else (w.reshape(A), b.reshape(A))
    y = d.reshape(view) * wv
    y += bv
    aux = np.concatenate([rstd.ravel(), w.ravel().astype(x.dtype, copy=False)])
    return y.reshape(x.shape), (d.reshape(x.shape), aux, mu, var)


def _vjp(g, out, x, w, b, stats, affine, eps):
    """The same rule in Tensor ops (eager and create_graph backward)."""
    _, _, L = stats
    A, Q = affine
    axes = [0, 2]
    x3 = reshape(x, list(stats))
    mu = R.mean(x3, axis=axes, keepdim=True)
    d = x3 - mu
    rstd = rsqrt(R.mean(d * d, axis=axes, keepdim=True) + eps)
    xhat = d * rstd
    view = list(_affine_view(math.prod(x.shape), affine, L))
    wshape = [A, 1] if Q else [A]
    ga = reshape(g, view)
    h = reshape(ga * reshape(w, wshape), list(stats))
    gx = rstd * (h - R.mean(h, axis=axes, keepdim=True)
                 - xhat * R.mean(h * xhat, axis=axes, keepdim=True))
    red = [0, 2] if Q else [0]
    gw = reshape(R.sum(ga * reshape(xhat, view), axis=red), w.shape)
    gb = reshape(R.sum(ga, axis=red), b.shape)
    return reshape(gx, x.shape), gw, gb


def _lower(b, node, g, gins):
    from ..compile.builder import Slot
    a = node.attrs
    (Rn, S, L), (A, Q) = a["stats"], a["affine"]
    x = node.inputs[0]._data
    if gins[0] is None and gins[1] is None:
        xhat = None                         # (an unread value slot confuses compaction)
    else:
        xhat = b.value(node.saved[0])
    if gins[0] is not None:
        b.emit("NORM_BWD", gins[0], g, xhat, b.value(node.saved[1]),
               p=b.table([Rn, S, L, A, Q]))
    view = _affine_view(x.size, a["affine"], L)
    gv = Slot(g.off, g.n, view)
    dshape = (A, 1) if Q else (A,)
    if gins[1] is not None:
        b.contribute(Slot(gins[1].off, gins[1].n, dshape), view, "MUL", gv, xhat)
    if gins[2] is not None:
        b.reduce_into(Slot(gins[2].off, gins[2].n, dshape), gv)


def _interp(node, g, want):
    """The interpreted rule (a new structure's first backward) on the forward's saved xhat
    and rstd: x's gradient by the NORM_BWD kernel once Numba is loaded (its lowered row's
    values within float32 rounding: the kernel's sums may reassociate differently when
    called alone), the weight's and bias's by numpy sums; else the vjp on Tensors (it
    recomputes the statistics: 0.75 ms of a 256 x 512 layer_norm's first backward)."""
    a = node.attrs
    (Rn, S, L), (A, Q) = a["stats"], a["affine"]
    x = node.inputs[0]._data
    kernels = compiled_kernels("forward")
    if kernels is None or g.dtype != x.dtype or x.dtype.char not in "fd":
        return vjp_on_arrays(node, np.asarray(g), want)
    xhat, aux = node.saved[0], node.saved[1]
    g = np.ascontiguousarray(g)
    gx = gw = gb = None
    if want[0]:
        gx = np.empty(x.shape, x.dtype)
        kernels.norm_bwd(gx.reshape(-1), g.reshape(-1), xhat.reshape(-1), aux,
                         np.array([Rn, S, L, A, Q], np.int64))
    view = _affine_view(x.size, a["affine"], L)
    red = (0, 2) if Q else (0,)
    w_shape = node.inputs[1]._data.shape
    if want[1]:
        gw = (g.reshape(view) * xhat.reshape(view)).sum(axis=red).reshape(w_shape)
    if want[2]:
        gb = g.reshape(view).sum(axis=red).reshape(node.inputs[2]._data.shape)
    return gx, gw, gb


def _case(x, stats, affine, eps=1e-5):
    A = affine[0]
    return {"shapes": (x, (A,), (A,)), "attrs": dict(stats=stats, affine=affine, eps=eps)}


norm_op = defop(
    "normalize_affine",
    fused="the fused normalization (NORM_BWD)",
    nin=3, forward=_forward, forward_saves=True, vjp=_vjp, lower=_lower, interp=_interp,
    min_ndim=1,
    cases=(_case((2, 3, 4), (2, 3, 4), (3, 4)),            # batch_norm NCL
           _case((3, 4), (3, 4, 1), (4, 1)),               # batch_norm NC
           _case((2, 4, 3), (1, 4, 6), (4, 3), 0.1),       # group_norm, 2 groups
           _case((2, 3, 2, 2), (1, 6, 4), (3, 4)),         # instance_norm
           _case((2, 3, 4), (1, 6, 4), (4, 0)),            # layer_norm over the last dim
           _case((2, 3, 2), (1, 2, 6), (6, 0)),            # layer_norm over two dims
           # >= COMPILED_MIN elements: the compiled forward (once Numba is loaded)
           _case((64, 4), (64, 4, 1), (4, 1)),             # batch_norm NC: by columns
           _case((2, 4, 32), (1, 4, 64), (4, 32)),         # group_norm
           _case((4, 2, 32), (1, 8, 32), (32, 0))))        # layer_norm


def fusable(x: Tensor, *params: Tensor | None) -> bool:
    """Whether the primitive takes these operands: a non-empty float x, and weight / bias
    None or of x's dtype (anything else keeps the composite's promotion rules)."""
    dt = x._data.dtype
    return x._data.size > 0 and all(p is None or (isinstance(p, Tensor) and
                                                  p._data.dtype == dt) for p in params)


def normalize_affine(x: Tensor, weight: Tensor | None, bias: Tensor | None, stats: tuple,
                     affine: tuple, eps: float) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias with the layouts of the module doc;
    a missing weight is ones, a missing bias zeros (constants: no gradient)."""
    A, dt = int(affine[0]), x._data.dtype
    if weight is None:
        weight = Tensor._make(np.ones(A, dt))
    if bias is None:
        bias = Tensor._make(np.zeros(A, dt))
    return apply(norm_op, x, weight, bias, stats=tuple(map(int, stats)),
                 affine=tuple(map(int, affine)), eps=float(eps))


def batch_stats(y: Tensor, x: Tensor, stats: tuple) -> tuple[Any, Any]:
    """The batch mean and biased variance (per statistic) that normalized y, as arrays."""
    node = y._node
    if node is not None and len(node.saved) == 4 and node.op is norm_op:
        return node.saved[2], node.saved[3]
    mu, _, var, _ = _stats(x._data.reshape(stats))
    return mu, var
