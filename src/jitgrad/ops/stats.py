"""Statistics over axes: prod (a registry entry), and composites logsumexp, var, std, norm,
amax, amin, nansum, nanmean built from registry ops so their gradients (and double grads)
come for free. Order statistics (median, quantile) are in order_stats.py."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..core.torch_kwargs import out_param
from . import elementwise as E
from . import reduce as R
from .core import (apply_internal, apply_xy, compiled_input, const, float_input, norm_axis,
                   require_float)
from .core import FLOAT16, call_in_float32
from .reduce import REDUCE_CASES, _kept_shape, _spread
from .elementwise import _compiled_forward
from .registry import defop
from .shape import broadcast_to, reshape, transpose, unsqueeze


_multiply_reduce = np.multiply.reduce      # what np.prod runs, without its Python wrappers
_exp, _log = np.exp, np.log
_F64 = np.dtype(np.float64)


def _others_product(x: np.ndarray, axes: tuple | None) -> np.ndarray:
    """For each element, the product of the other elements of its reduction group.

    Exclusive prefix and suffix products: exact where x has zeros, unlike out / x.
    """
    if x.size == 0:                 # (no element: nothing to multiply, and -1 is ambiguous)
        return np.ones(x.shape, x.dtype)
    axes = tuple(range(x.ndim)) if axes is None else axes
    kernels = _compiled_forward() if x.dtype.char in "fd" else None
    if kernels is not None and x.flags.c_contiguous and \
            axes == tuple(range(x.ndim - len(axes), x.ndim)):
        # trailing axes (the common prod(x, -1), and full products): rows of x in place
        out = np.empty(x.shape, x.dtype)
        k = math.prod(x.shape[x.ndim - len(axes):])
        kernels.others_product(x.reshape(-1, k), out.reshape(-1, k))
        return out
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = np.transpose(x, perm)
    flat = xt.reshape(math.prod(xt.shape[:len(keep)]), -1)
    if kernels is not None:
        flat = np.ascontiguousarray(flat)
        out = np.empty(flat.shape, x.dtype)
        kernels.others_product(flat, out)
        return np.transpose(out.reshape(xt.shape), np.argsort(perm))
    ones = np.ones((flat.shape[0], 1), x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[:, :-1]], axis=1), axis=1)
    right = np.cumprod(np.concatenate([ones, flat[:, :0:-1]], axis=1), axis=1)[:, ::-1]
    return np.transpose((left * right).reshape(xt.shape), np.argsort(perm)).astype(x.dtype)


def _prod_vjp(g, out, x, axes, keepdim):
    spread = _spread(g, x, axes)
    if np.all(x._data != 0):
        return (spread * _spread(out, x, axes) / x,)
    return (spread * _others_tensor(x, axes),)


def _others_tensor(x: Tensor, axes: tuple | None) -> Tensor:
    """_others_product in jitgrad ops, differentiable at zeros: each group of K elements
    becomes a K x K matrix with ones on the diagonal, and prod runs along its rows."""
    axes = tuple(range(x.ndim)) if axes is None else axes
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = transpose(x, perm) if perm != list(range(x.ndim)) else x
    lead = [x.shape[i] for i in keep]
    k = math.prod([x.shape[a] for a in axes])
    rows = broadcast_to(unsqueeze(reshape(xt, lead + [k]), -2), lead + [k, k])
    eye = np.broadcast_to(np.eye(k, dtype=bool), tuple(lead) + (k, k))
    others = prod(E.where(Tensor._make(eye), 1.0, rows), axis=-1)
    others = reshape(others, [x.shape[i] for i in perm])
    return transpose(others, [int(i) for i in np.argsort(perm)]) if perm != \
        list(range(x.ndim)) else others


def _lower_prod(b, node, g, gins):
    x = node.inputs[0]._data
    b.spread_mul(gins[0], g, b.value(node.saved[0]), _kept_shape(x.shape, node.attrs["axes"]),
                 x.shape)


def _prod_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _lower_prod's row on
    arrays, g spread over its groups times the saved others-product (the vjp divided
    out / x in Tensor ops, or rebuilt the others-product where x has zeros)."""
    x = node.inputs[0]._data
    spread = np.reshape(g, _kept_shape(x.shape, node.attrs["axes"]))
    return (np.multiply(spread, node.saved[0]),)


prod_op = defop(
    "prod",
    fused=("a product whose gradient needs the exact others-product at zeros (and its own "
           "derivative for higher orders)"),
    forward=lambda x, axes, keepdim: _multiply_reduce(x, axes, None, None, keepdim),
    save=lambda out, x, axes, keepdim: (_others_product(x, axes),),
    vjp=_prod_vjp, lower=_lower_prod, interp=_prod_interp, domain=(0.5, 1.5),
    cases=REDUCE_CASES + ({"shapes": ((3,),), "attrs": {"axes": None, "keepdim": False},
                           "values": [[2.0, 0.0, 3.0]], "smooth": True},
                          {"shapes": ((2, 3),), "attrs": {"axes": (1,), "keepdim": True},
                           "values": [[[0.0, 0.0, 3.0], [1.5, 0.0, 0.5]]], "smooth": True}))


def prod(x: Tensor, axis: Any = None, keepdim: bool = False, dtype: Any = None,
         name: str | None = None) -> Tensor:
    """Product over `axis`; the gradient is exact where x has zeros. Integer and bool
    tensors multiply in int64."""
    if dtype is not None:
        x = x.astype(dtype)
    elif x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
        x = Tensor._make(x._data.astype(np.int64))
    return R._reduce(prod_op, x, axis, keepdim)


def _restore(y: Tensor, x: Tensor, axes: tuple | None, keepdim: bool) -> Tensor:
    """y computed with keepdim=True, reshaped to what keepdim asks for."""
    if keepdim:
        return y
    shape = [] if axes is None else [s for i, s in enumerate(x.shape) if i not in axes]
    return reshape(y, shape)


def _logsumexp_forward(x: np.ndarray, axes: tuple | None, keepdim: bool
                       ) -> tuple[np.ndarray, tuple]:
    """_logsumexp_np's values; for a C-contiguous float32 / float64 x reduced over its
    trailing axes (or all) once Numba is loaded, three compiled passes around numpy's own
    exp and log (vm/forward_reduce.py's lse_shift, lse_sums, lse_finish: the numpy path's
    operations, bit for bit, in two numpy calls instead of ~14)."""
    found = _rows_layout(x, axes, keepdim, "forward_reduce")
    if found is not None:
        kernels, x, rows, k, shape = found
        dt = x.dtype
        m = np.empty(rows, dt)
        s = np.empty(rows, dt)
        w = np.empty(x.shape, dt)
        d = w if dt is _F64 else np.empty(x.shape, _F64)
        t = np.empty(rows, _F64)
        kernels.lse_shift(x, m, d, rows, k)
        # exp_op's and log_op's forwards: numpy's float64 exp and log, in place (a float32
        # input cast to float64 and the result rounded back, by the kernels)
        _exp(d, out=d)
        kernels.lse_sums(d, w, s, t, rows, k)
        _log(t, out=t)
        out = np.empty(shape, dt)
        kernels.lse_finish(w, s, t, m, out.reshape(-1), rows, k)
        return out, (w,)
    return _logsumexp_np(x, axes, keepdim)


def _logsumexp_np(x: np.ndarray, axes: tuple | None, keepdim: bool
                  ) -> tuple[np.ndarray, tuple]:
    """log(sum(exp(x - m))) + m with m the (finite) max as a constant, and the gradient's
    weights exp(x - m) / sum: the softmax over the reduced axes."""
    dt = x.dtype
    m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((), dt)
    m = np.where(np.isfinite(m), m, 0).astype(dt)
    e = E.exp_op.forward(x - m)
    s = R._sum_forward(e, axes, True)
    y = E.log_op.forward(s) + m
    out = y if keepdim else y.reshape(() if axes is None else
                                      [n for i, n in enumerate(x.shape) if i not in axes])
    return out, ((e / s).astype(dt, copy=False),)


# a row, a column and a 3-D tensor reduced over two axes
_MORE_CASES = ({"shapes": ((1, 4),), "attrs": {"axes": (1,), "keepdim": False}},
               {"shapes": ((4, 1),), "attrs": {"axes": None, "keepdim": True}},
               {"shapes": ((2, 3, 2),), "attrs": {"axes": (0, 2), "keepdim": False}})

logsumexp_op = R.weighted_reduction(
    "logsumexp", _logsumexp_forward, lambda out, x, axes, keepdim: _logsumexp_forward(
        x, axes, keepdim)[1][0],
    forward_saves=True, quiet=True, cases=REDUCE_CASES + _MORE_CASES,
    # d/dx = softmax(x): exp(x - out) in jitgrad ops, for create_graph
    smooth=lambda out, x, axes, keepdim: E.exp(x - _spread(out, x, axes)),
    doc="log of the sum of exponentials over axes, without overflow")


def logsumexp(x: Tensor, axis: Any = None, keepdim: bool = False,
              name: str | None = None) -> Tensor:
    """log(sum(exp(x))) without overflow (the max is subtracted as a constant)."""
    x = float_input(x, "logsumexp")
    return R._reduce(logsumexp_op, x, axis, keepdim)


def _dof(shape: tuple, axes: tuple | None, unbiased: bool) -> int:
    """var's divisor: the reduced count, less one when unbiased."""
    n = math.prod(shape if axes is None else [shape[a] for a in axes])
    return n - int(unbiased)


def _var_forward(x: np.ndarray, axes: tuple | None, keepdim: bool, unbiased: bool
                 ) -> tuple[np.ndarray, tuple]:
    """sum((x - mean)^2) / dof, numpy's np.var arithmetic in x's dtype, and the gradient's
    weights 2 (x - mean) / dof. With no degree of freedom left both are nan (Paddle). A
    C-contiguous float32 / float64 x reduced over its trailing axes (or all) takes one
    compiled call once Numba is loaded (vm/forward.py's var_rows), the same values."""
    dt = x.dtype
    found = _rows_layout(x, axes, keepdim, "forward") if x.size else None
    if found is not None and found[3] <= R._EXACT_COUNT[dt]:
        kernels, x, rows, k, shape = found    # (vm/forward.py's var_rows: these values)
        dof = _dof(x.shape, axes, unbiased)
        scale = np.asarray(1.0 / dof if dof > 0 else math.nan, dt)
        out = np.empty(shape, dt)
        w = np.empty(x.shape, dt)
        kernels.var_rows(x.reshape(-1), out.reshape(-1), w.reshape(-1), rows, k, dt.type(k),
                         np.asarray(dof if dof > 0 else math.nan, dt)[()], scale + scale)
        return out, (w,)
    d = x - R._mean_forward(x, axes, True)
    total = R._sum_forward(d * d, axes, keepdim)
    dof = _dof(x.shape, axes, unbiased)
    scale = np.asarray(1.0 / dof if dof > 0 else math.nan, dt)
    out = np.asarray(total / np.asarray(dof if dof > 0 else math.nan, dt), dt)
    return out, ((d * (scale + scale)).astype(dt, copy=False),)


def _var_smooth(out: Tensor, x: Tensor, axes: tuple | None, keepdim: bool,
                unbiased: bool) -> Tensor:
    dof = _dof(x._data.shape, axes, unbiased)
    return (x - R.mean(x, axis=axes, keepdim=True)) * (2.0 / dof if dof > 0 else math.nan)


var_op = R.weighted_reduction(
    "var", _var_forward, lambda out, x, **attrs: _var_forward(x, **attrs)[1][0],
    forward_saves=True, quiet=True, smooth=_var_smooth,
    # (the array rules read the saved deviations: x may change in place before the
    # backward, as in Paddle 3.3.1, whose var is a composite that does not keep x)
    grad_reads=(), rule_reads=(0,),
    cases=tuple({"shapes": c["shapes"], "attrs": dict(c["attrs"], unbiased=u)}
                for c in REDUCE_CASES + _MORE_CASES for u in (True, False)
                if c["shapes"] != ((),) or not u),
    doc="variance over axes (unbiased divides by n - 1)")


def var(x: Tensor, axis: Any = None, unbiased: bool | None = None, keepdim: bool = False,
        name: str | None = None, *, correction: float = 1) -> Tensor:
    """Variance, dividing by n - correction (Paddle 3.x: 1 by default; unbiased=True or
    False, when given, means correction 1 or 0). With no degree of freedom left it is nan,
    gradient too (Paddle, numpy)."""
    require_float(x, "var")
    if not isinstance(keepdim, bool):
        raise TypeError(f"keepdim must be a bool, got {keepdim!r}")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    axes = norm_axis(axis, x.ndim)
    attrs = {"axes": None if x.ndim == 0 else axes, "keepdim": keepdim}
    if correction in (0, 1):
        return apply_internal(var_op, x, unbiased=bool(correction), **attrs)
    n = math.prod(x.shape[a] for a in (range(x.ndim) if axes is None else axes))
    scale = n / (n - correction) if n != correction else np.inf
    return apply_internal(var_op, x, unbiased=False, **attrs) * float(scale)


def std(x: Tensor, axis: Any = None, unbiased: bool | None = None, keepdim: bool = False,
        name: str | None = None, *, correction: float = 1) -> Tensor:
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(std, locals())
    return E.sqrt(var(x, axis, unbiased, keepdim, correction=correction))


def amax(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
         ) -> Tensor:
    """Largest value; tied maxima share the gradient equally (as max does here)."""
    return R.max(x, axis, keepdim)


def amin(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
         ) -> Tensor:
    return R.min(x, axis, keepdim)


def _l2_forward(x: np.ndarray, axes: tuple | None, keepdim: bool
                ) -> tuple[np.ndarray, tuple]:
    """sqrt(sum(x * x)) over axes, and the gradient's weights x / norm: 0 for a zero
    vector, as Paddle's p_norm gradient (the plain quotient is nan there)."""
    out = np.sqrt(R._sum_forward(x * x, axes, keepdim))
    kept = out if keepdim else out.reshape(_kept_shape(x.shape, axes))
    zero = x.dtype.type(0)
    return out, (np.where(kept == zero, zero, x / kept).astype(x.dtype, copy=False),)


def _l2_norm_forward(x: np.ndarray, axes: tuple | None, keepdim: bool
                     ) -> tuple[np.ndarray, tuple]:
    """l2_norm's forward: _l2_forward's values and weights, in one compiled pass for a
    C-contiguous float32 / float64 x reduced over its trailing axes (or all) once Numba is
    loaded (vm/forward.py's l2_rows, mode 0: numpy's operations and pairwise sums, bit
    for bit; ~1.5 us for 32 x 64 float32 where numpy's six calls took ~12 us)."""
    found = _rows_layout(x, axes, keepdim, "forward")
    if found is not None:
        kernels, x, rows, k, shape = found
        out = np.empty(shape, x.dtype)
        w = np.empty(x.shape, x.dtype)
        kernels.l2_rows(x, x, x.dtype.type(0), 0, out, w, rows, k)
        return out, (w,)
    return _l2_forward(x, axes, keepdim)


def _rows_layout(x: np.ndarray, axes: tuple | None, keepdim: bool, module: str
                 ) -> tuple | None:
    """(vm.<module>, x, rows, row length, output shape) for a C-contiguous float32 /
    float64 x reduced over its trailing axes (or all), once Numba is loaded; else None."""
    if not x.flags.c_contiguous:
        return None
    layout = R._groups(x.shape, axes, keepdim)
    if layout is None or layout[2] != 1:
        return None
    found = compiled_input(module, x)
    if found is None:
        return None
    rows, k, _, shape = layout
    return found[0], found[1], rows, k, shape


def _l2_smooth(out: Tensor, x: Tensor, axes: tuple | None, keepdim: bool) -> Tensor:
    """x / norm in jitgrad ops (create_graph differentiates the norm too), 0 where it is 0."""
    r = _spread(out, x, axes)
    zero = r._data == 0
    if not zero.any():
        return x / r
    at_zero = Tensor._make(zero)
    return E.where(at_zero, 0.0, x / E.where(at_zero, 1.0, r))


l2_norm_op = R.weighted_reduction(
    "l2_norm", _l2_norm_forward,
    lambda out, x, axes, keepdim: _l2_forward(x, axes, keepdim)[1][0],
    forward_saves=True, quiet=True, smooth=_l2_smooth, cases=REDUCE_CASES + _MORE_CASES + (
        {"shapes": ((2, 3),), "attrs": {"axes": (1,), "keepdim": False},
         "values": [[[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]]]},),
    doc="the Euclidean norm over axes (sqrt of the sum of squares)")


def l2_norm(x: Tensor, axes: tuple | None, keepdim: bool) -> Tensor:
    """vector_norm(x, 2, axes, keepdim) for axes already normalised (norm_axis)."""
    return apply_internal(l2_norm_op, x, axes=None if x.ndim == 0 else axes, keepdim=keepdim)


def vector_norm(x: Tensor, p: Any = 2.0, axis: Any = None, keepdim: bool = False,
                name: str | None = None, *, dtype: Any = None) -> Tensor:
    """Vector p-norm over `axis` (all elements by default): p = 2, 1, inf, -inf, 0 or any
    positive float, of x cast to dtype when given. The gradient at the zero vector is 0, as
    Paddle's (see _root)."""
    if dtype is not None:
        x = E.astype(x, dtype)
    require_float(x, "norm")
    if (type(p) is float or type(p) is int) and p == 2:     # the common case, checked once
        attrs = R.reduce_attrs(x, axis, keepdim)
        if attrs is not None:
            return apply_xy(l2_norm_op, x, None, attrs)
    axes = norm_axis(axis, x.ndim)
    if isinstance(p, str):
        raise ValueError(f"vector norm: p must be a number, got {p!r} ('fro' and 'nuc' are "
                         f"matrix norms: pass two axes)")
    p = float(p)
    if p == 2:
        return l2_norm(x, axes, keepdim)
    if abs(p) == np.inf and x._data.size == 0:
        return R.sum(E.abs(x), axis=axes, keepdim=keepdim)  # 0 over nothing (Paddle 3.3.1)
    if p == np.inf:
        return extreme_abs(E.abs(x), R.max, axes, keepdim)
    if p == -np.inf:
        return extreme_abs(E.abs(x), R.min, axes, keepdim)
    if p == 0:      # the count of nonzeros; differentiable (gradient 0), as Paddle's
        every = Tensor._make(np.ones(x._data.shape, np.bool_))
        nonzero = E.where(every, const(x._data != 0, x._data.dtype), x)
        return R.sum(nonzero, axes, keepdim=keepdim)
    if p == 1:
        return R.sum(E.abs(x), axis=axes, keepdim=keepdim)
    return norm_root(R.sum(E.abs(x) ** p, axis=axes, keepdim=keepdim), p)


def norm_root(s: Tensor, p: float) -> Tensor:
    """s ** (1 / p), with gradient 0 where s is 0 (a zero vector's norm), as Paddle's p_norm
    gradient; the plain root's slope there is inf, and inf * 0 from the sum is nan. The
    guard is recorded only when some s is 0, so the usual graph is unchanged."""
    root = E.sqrt if p == 2 else (lambda t: t ** (1.0 / p))
    if not (s._data == 0).any():
        return root(s)
    zero = Tensor._make(s._data == 0)
    return E.where(zero, 0.0, root(E.where(zero, 1.0, s)))


def extreme_abs(a: Tensor, pick: Any, axes: Any = None, keepdim: bool = False) -> Tensor:
    """pick (R.max or R.min) of a = |x| over axes, every tied element getting the whole
    gradient, as Paddle's inf-norms and dist do (max / min themselves share it equally):
    the added term is zero in value (a - a) and carries the missing (k - 1) / k to each of
    k ties. With a non-finite element the shared rule stays (a - a would be nan)."""
    best = pick(a, axes, True)
    ad = a._data
    tie = ad == best._data
    k = tie.sum(axis=axes, keepdims=True)
    if (k > 1).any() and np.isfinite(ad).all():
        weight = const(tie * ((k - 1) / np.maximum(k, 1)), ad.dtype)
        best = best + R.sum((a - const(ad, ad.dtype)) * weight, axis=axes, keepdim=True)
    if keepdim:
        return best
    return reshape(best, [s for i, s in enumerate(ad.shape)
                          if axes is not None and i not in axes])


def matrix_norm(x: Tensor, p: Any = "fro", axis: Any = (-2, -1), keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """Matrix norm over the two axes (rows, columns): 'fro'; 1 / -1 the largest / smallest
    absolute column sum; inf / -inf the largest / smallest absolute row sum; 'nuc' the sum
    of the singular values, 2 / -2 the largest / smallest one. Ties in the max / min share
    the gradient."""
    require_float(x, "matrix_norm")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if len(axes) != 2:
        raise ValueError(f"matrix_norm: axis must name two dims, got {axis!r}")
    r, c = (norm_axis(a, x.ndim)[0] for a in axes)
    if r == c:
        raise ValueError(f"matrix_norm: axis {axis!r} names the same dim twice")
    if p == "fro":
        return norm_root(R.sum(x * x, axis=[r, c], keepdim=keepdim), 2.0)
    if p == "nuc" or (not isinstance(p, str) and float(p) in (2.0, -2.0)):
        from .decompositions import svdvals           # (decompositions imports this module)
        rest = [i for i in range(x.ndim) if i not in (r, c)]
        sv = svdvals(transpose(x, rest + [r, c]) if (r, c) != (x.ndim - 2, x.ndim - 1)
                     else x)
        y = R.sum(sv, axis=-1) if p == "nuc" else (R.max if float(p) > 0 else R.min)(sv, -1)
        if keepdim:
            y = reshape(y, [1 if i in (r, c) else n for i, n in enumerate(x.shape)])
        return y
    if isinstance(p, str) or float(p) not in (1.0, -1.0, np.inf, -np.inf):
        raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                         f"got {p!r}")
    p = float(p)
    inner, outer = (r, c) if abs(p) == 1 else (c, r)   # 1: column sums; inf: row sums
    sums = R.sum(E.abs(x), axis=inner, keepdim=True)
    pick = R.max if p > 0 else R.min
    y = pick(sums, outer, True)
    if keepdim:
        return y
    return reshape(y, [s for i, s in enumerate(x.shape) if i not in (r, c)])


def norm(x: Tensor, p: Any = None, axis: Any = None, keepdim: bool = False,
         out: Any = None, dtype: Any = None, name: str | None = None) -> Tensor:
    """Paddle 3.x's norm: axis None or one int gives a vector norm (over all elements when
    None; p None or 'fro' mean 2), two axes a matrix norm (p None means 'fro'); see
    vector_norm and matrix_norm. dtype casts x first; out= takes the result
    (core/torch_kwargs.py). One frame for the common case (the call-site walk of the
    recorded op looks at most two jitgrad frames up before it walks the stack)."""
    if out is not None:
        return out_param("norm", out, norm(x, p, axis, keepdim, None, dtype))
    if dtype is not None:
        x = E.astype(x, dtype)
    if isinstance(axis, (list, tuple)):
        if len(axis) == 1:
            axis = axis[0]
        elif len(axis) != 2:
            if isinstance(p, str):
                raise ValueError(f"norm: p={p!r} needs axis None, an int or two ints, got "
                                 f"{axis!r}")
            # a vector norm over those axes ([]: all), as Paddle 3.3.1
            return vector_norm(x, 2.0 if p is None else p, list(axis) or None, keepdim)
    if isinstance(axis, (list, tuple)):
        return matrix_norm(x, "fro" if p is None else p, axis, keepdim)
    if axis is None and isinstance(p, str) and p == "nuc":
        if x.ndim != 2:
            raise ValueError(f"norm: p='nuc' without axis needs a 2-D tensor, got shape "
                             f"{x.shape} (pass the two axes)")
        return matrix_norm(x, "nuc", (0, 1), keepdim)
    return vector_norm(x, 2.0 if p is None or p == "fro" else p, axis, keepdim)


def nansum(x: Tensor, axis: Any = None, dtype: Any = None, keepdim: bool = False,
           name: str | None = None) -> Tensor:
    """Sum over `axis` with nan counted as zero; nan elements get a zero gradient. Int
    tensors sum to int64, as sum does; `dtype` casts first. Bool tensors are refused (as
    in Paddle, which has no isnan for them)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nansum: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype == np.bool_:
        raise TypeError("nansum: bool tensors are not supported; cast with .astype('int64')")
    if dtype is not None:
        x = x.astype(dtype)
    if x._data.dtype.kind == "f":
        nan = np.isnan(x._data)
        if nan.any():
            x = E.where(Tensor._make(nan), 0.0, x)
    return R.sum(x, axis=axis, keepdim=keepdim)


def nanmean(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None
            ) -> Tensor:
    """Mean over `axis` of the elements that are not nan; nan where all of them are (with a
    zero gradient there, as Paddle). Int tensors give float32."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nanmean: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        if x._data.dtype == np.bool_:
            raise TypeError("nanmean: bool tensors are not supported; cast with "
                            ".astype('float32')")
        x = Tensor._make(x._data.astype(np.float32))
    axes = norm_axis(axis, x.ndim)
    count = np.sum(~np.isnan(x._data), axis=axes, keepdims=keepdim)
    total = nansum(x, axis=axes, keepdim=keepdim)
    mean = total / const(np.maximum(count, 1), x._data.dtype)
    if (count == 0).any():
        mean = E.where(Tensor._make(np.asarray(count == 0)), np.nan, mean)
    return mean
