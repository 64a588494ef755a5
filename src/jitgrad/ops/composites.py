"""More composites numeric code reaches for: gather_nd, scatter, scatter_nd_add, masked_fill,
index_add, kron, cross, diff, meshgrid, moveaxis, expand_as, inner, dist, unstack, slice,
strided_slice. Gradients come from the moving primitives (take_flat, put_flat) and
elementwise ops."""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any, Sequence

import numpy as np

from . import siblings
from ..core import dtypes
from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .addmm_fused import addmm_op, fits as addmm_fits
from .core import apply, apply_internal, apply_xy, compiled_input, const
from .core import FLOAT16, call_in_float32
from .registry import defop
from .indexing import _axis, _index_array, _take, concat, put_along_axis, put_flat
from .shape import (_flat_positions, _select_compiled, broadcast_to, broadcast_to_new, reshape,
                    transpose, unsqueeze)
from .linalg import matmul
from .margin_losses import l2_distance
from .pair_distance import euclid_cdist
from .pair_distance import kron as kron_op_call
from .math import sign
from .stats import extreme_abs, l2_norm, norm_root

_slice = builtins.slice          # this module defines paddle.slice


def gather_nd(x: Tensor, index: Any, name: str | None = None) -> Tensor:
    """x[index[..., 0], index[..., 1], ...]: the last dim of index addresses leading dims."""
    idx = _index_array(index, "gather_nd")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"gather_nd: index addresses {k} dims of a {x.ndim}-D tensor")
    return _take(x, _nd_positions(x._data.shape, idx))


def _nd_positions(shape: tuple, idx: np.ndarray) -> np.ndarray:
    """Flat positions of x[idx[..., 0], idx[..., 1], ...], of shape idx.shape[:-1] +
    shape[k:]; an index with k = 0 picks the whole tensor for each of its rows."""
    pos = _flat_positions(shape)
    if idx.shape[-1] == 0:
        return np.broadcast_to(pos, idx.shape[:-1] + tuple(shape))
    return pos[tuple(np.moveaxis(idx, -1, 0))]


def scatter(x: Tensor, index: Any = None, updates: Any = None, overwrite: Any = True,
            name: str | None = None, *, dim: Any = None, src: Any = None, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """Paddle's scatter: rows of x at a 1-D index replaced by (or, overwrite=False, added to,
    after zeroing) the rows of updates. Given torch's form, scatter(x, 0, index, src) or
    scatter(x, dim=0, index=i, src=s) (value= for src, reduce=), Paddle 3.3.1 runs torch's
    scatter, put_along_axis without broadcasting, and so does this."""
    if dim is not None:
        return _torch_scatter(x, dim, index, src, value, reduce)
    if isinstance(index, int):          # scatter(x, dim, index, src, reduce): by position
        return _torch_scatter(x, index, updates, overwrite if src is None and overwrite
                              is not True else src, value, name if reduce is None else reduce)
    if index is None or updates is None:
        raise TypeError("scatter() needs index and updates (or torch's dim, index, src)")
    idx = _index_array(index, "scatter")
    if idx.ndim > 1 and (idx.ndim > 2 or idx.shape[1] != 1):     # (Paddle 3.3.1 refuses)
        raise ValueError(f"scatter: index must be 1-D or of shape [N, 1], got shape "
                         f"{list(idx.shape)} (for N-D positions use scatter_nd_add)")
    idx = idx.reshape(-1)
    shape = x._data.shape
    pos = _select_compiled(shape, idx, 0) if shape else None
    if pos is None:                     # (numpy's indexing: its error for an index out of range)
        pos = _flat_positions(shape)[idx]
    if overwrite:
        return put_flat(x, pos, updates, "assign")
    zeroed = put_flat(x, pos, 0.0, "assign")
    return put_flat(zeroed, pos, updates, "add")


def _torch_scatter(x: Tensor, dim: Any, index: Any, src: Any, value: Any, reduce: Any
                   ) -> Tensor:
    """torch's scatter as Paddle 3.3.1's _put_along_axis_wrapper runs it."""
    if src is None:
        src = value
        if src is None:
            raise TypeError("scatter(x, dim, index, src): src (or value) is missing")
    elif value is not None:
        raise TypeError("scatter(): give src or value, not both")
    if index is None:
        raise TypeError("scatter(x, dim, index, src): index is missing")
    return put_along_axis(x, index, src, dim, "assign" if reduce is None else reduce,
                          broadcast=False)


def scatter_nd_add(x: Tensor, index: Any, updates: Tensor, name: str | None = None) -> Tensor:
    idx = _index_array(index, "scatter_nd_add")
    return put_flat(x, _nd_positions(x._data.shape, idx), updates, "add")


def index_add(x: Tensor, index: Any, axis: int, value: Tensor, alpha: Any = 1,
              name: str | None = None) -> Tensor:
    """x with alpha * value added at index along axis (repeated indices add up)."""
    ax = _axis(axis, x.ndim, "index_add")
    idx = _index_array(index, "index_add")
    if not (type(alpha) is int and alpha == 1):
        value = value * alpha
    return put_flat(x, np.take(_flat_positions(x._data.shape), idx, axis=ax), value, "add")


def masked_fill(x: Tensor, mask: Any, value: Any, name: str | None = None) -> Tensor:
    """x with value where mask is True; x and mask broadcast together (Paddle 3.3.1: a [2, 1]
    mask over a [3] x gives [2, 3])."""
    m = np.asarray(mask._data if isinstance(mask, Tensor) else mask)
    if m.dtype.kind != "b":         # (else where's 'condition must be a bool tensor')
        raise TypeError(f"masked_fill: mask must be a bool tensor, got {m.dtype} (for "
                        f"nonzero entries pass mask != 0)")
    if m.shape != x._data.shape:
        try:
            m = np.broadcast_to(m, np.broadcast_shapes(m.shape, x._data.shape))
        except ValueError:
            raise ValueError(f"masked_fill: mask of shape {list(m.shape)} does not broadcast "
                             f"with x of shape {list(x.shape)}") from None
    if x._data.dtype.kind in "biu" and not isinstance(value, Tensor):
        # a number in x's dtype (2.7 -> 2 in an int x, 0.0 -> False in a bool one): x
        # keeps its dtype, as Paddle 3.3.1
        value = Tensor._make(np.asarray(value).astype(x._data.dtype))
    elif x._data.dtype == np.float16 and type(value) in (int, float):
        # x keeps float16 (where would make a Python float float32), the number made
        # through float32 as Paddle makes it
        value = Tensor._make(dtypes.to_dtype_array(value, x._data.dtype))
    return E.where(Tensor._make(np.array(m, order="C")), value, x)


def kron(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype \
            and x._data.dtype.kind == "f":
        return kron_op_call(x, y)       # the steps below as one node
    nd = max(x.ndim, y.ndim)
    xs = [1] * (nd - x.ndim) + x.shape
    ys = [1] * (nd - y.ndim) + y.shape
    a = reshape(x, [v for s in xs for v in (s, 1)])
    b = reshape(y, [v for s in ys for v in (1, s)])
    return reshape(a * b, [p * q for p, q in zip(xs, ys)])


def _cross_forward(x, y, axis):
    """x1 y2 - x2 y1 per component, by rolls along the axis (the composite's products and
    order); saves the rolled operands the gradient rows multiply by (negated where they
    subtract). Float32 and float64 take one compiled pass once Numba is loaded
    (vm/forward.py's cross3: the same products and differences, bit for bit; ~1 us for
    32 x 3 where numpy's nine calls took ~7 us)."""
    shape = x.shape
    found = compiled_input("forward", x, y) if shape == y.shape and x.size and \
        shape[axis] == 3 else None
    if found is None:
        return _cross_np(x, y, axis)
    kernels, x, y = found
    dt = x.dtype
    out, saves = np.empty(shape, dt), np.empty((4,) + shape, dt)
    kernels.cross3(x, y, out, saves, math.prod(shape[:axis]), math.prod(shape[axis + 1:]))
    return out, (saves[0], saves[1], saves[2], saves[3])


def _cross_np(x, y, axis):
    r1, r2 = [1, 2, 0], [2, 0, 1]           # roll by -1, -2 (np.take: np.roll is ~4x slower)
    xr1, xr2 = np.take(x, r1, axis), np.take(x, r2, axis)
    yr1, yr2 = np.take(y, r1, axis), np.take(y, r2, axis)
    out = xr1 * yr2
    out -= xr2 * yr1
    return out, (yr1, np.negative(yr2), xr2, np.negative(xr1))


@functools.lru_cache(maxsize=32)
def _roll_map(shape: tuple, axis: int, k: int) -> np.ndarray:
    t = np.roll(_flat_positions(shape), k, axis).ravel()
    t.setflags(write=False)
    return t


def _cross_lower(b, node, g, gins):
    """dx = roll(g, -2) * yr1 - roll(g, -1) * yr2, dy = roll(g, -1) * xr2 - roll(g, -2) * xr1:
    two GATHER_MUL rows each (the rolls as index tables of the shape)."""
    shape, ax = node.out_data.shape, node.attrs["axis"]
    m1, m2 = b.table(_roll_map(shape, ax, -1)), b.table(_roll_map(shape, ax, -2))
    yr1, nyr2, xr2, nxr1 = node.saved      # (placed only when read: an unread value
    if gins[0] is not None:                # slot confuses the compaction pass)
        b.emit("GATHER_MUL", gins[0], g, b.value(yr1), p=m2)
        b.emit("GATHER_MUL", gins[0], g, b.value(nyr2), p=m1)
    if gins[1] is not None:
        b.emit("GATHER_MUL", gins[1], g, b.value(xr2), p=m1)
        b.emit("GATHER_MUL", gins[1], g, b.value(nxr1), p=m2)


def _cross_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): _cross_lower's rows on
    arrays, g rolled along the axis times the saved rolled operands (the vjp ran two more
    cross products through apply)."""
    ax = node.attrs["axis"]
    yr1, nyr2, xr2, nxr1 = node.saved
    g1, g2 = np.take(g, [1, 2, 0], ax), np.take(g, [2, 0, 1], ax)     # roll by -1, -2
    gx = g2 * yr1 + g1 * nyr2 if want[0] else None
    gy = g1 * xr2 + g2 * nxr1 if want[1] else None
    return gx, gy


cross_op = defop(
    "cross",
    fused="bilinear: each input's gradient reads the other input",
    nin=2, forward=_cross_forward, forward_saves=True, lower=_cross_lower,
    interp=_cross_interp,
    vjp=lambda g, out, x, y, axis: (apply(cross_op, y, g, axis=axis),
                                    apply(cross_op, g, x, axis=axis)),
    min_ndim=1,
    cases=tuple({"shapes": (s, s), "attrs": {"axis": a}}
                for s, a in (((3,), 0), ((4, 3), 1), ((3, 2), 0), ((2, 3, 2), 1))))


def cross(x: Tensor, y: Tensor, axis: int = 9, name: str | None = None) -> Tensor:
    """Cross product along the axis of size 3 (the first such axis by default, as Paddle)."""
    if axis == 9:
        axis = next((i for i, s in enumerate(x.shape) if s == 3), None)
        if axis is None:
            raise ValueError(f"cross: no axis of size 3 in shape {x.shape}")
    ax = _axis(axis, x.ndim, "cross")
    if (isinstance(y, Tensor) and x._data.shape == y._data.shape and
            x._data.dtype == y._data.dtype and x._data.dtype.kind == "f"):
        return apply_xy(cross_op, x, y, {"axis": ax})

    def comp(t, i):
        key = [_slice(None)] * t.ndim
        key[ax] = _slice(i, i + 1)
        return t[tuple(key)]
    x0, x1, x2 = (comp(x, i) for i in range(3))
    y0, y1, y2 = (comp(y, i) for i in range(3))
    return concat([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0], axis=ax)


def diff(x: Tensor, n: int = 1, axis: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, name: str | None = None) -> Tensor:
    ax = _axis(axis, x.ndim, "diff")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"diff: n must be a non-negative int, got {n!r}")    # (-1 gave x)
    if prepend is not None or append is not None:
        x = concat([t for t in (prepend, x, append) if t is not None], axis=ax)
    for _ in range(n):
        hi = [_slice(None)] * x.ndim
        lo = [_slice(None)] * x.ndim
        hi[ax], lo[ax] = _slice(1, None), _slice(None, -1)
        x = x[tuple(hi)] - x[tuple(lo)]
    return x


def meshgrid(*args: Tensor, name: str | None = None) -> list[Tensor]:
    """'ij' indexing, as Paddle."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, t in enumerate(args):
        if t.ndim > 1:      # (Paddle 3.3.1 refuses: the size alone would be used)
            raise ValueError(f"meshgrid: expects 0-D or 1-D tensors, got shape {t.shape} for "
                             f"tensor {i}")
    shape = [t._data.size for t in args]
    out = []
    for i, t in enumerate(args):
        view = [1] * len(args)
        view[i] = t._data.size
        out.append(broadcast_to(reshape(t, view), shape))
    return out


def moveaxis(x: Tensor, source: Any, destination: Any, name: str | None = None) -> Tensor:
    """Move the dims `source` to the positions `destination` (ints or equal-length lists);
    the other dims keep their order."""
    src = [_axis(a, x.ndim, "moveaxis") for a in np.atleast_1d(source).tolist()]
    dst = [_axis(a, x.ndim, "moveaxis") for a in np.atleast_1d(destination).tolist()]
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         "must name as many dims")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: repeated dim in {source!r} or {destination!r}")
    perm = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return transpose(x, perm)


def expand_as(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    return broadcast_to_new(x, y.shape)


def rot90(x: Tensor, k: int = 1, axes: Sequence[int] = (0, 1), name: str | None = None
          ) -> Tensor:
    return _take(x, np.rot90(_flat_positions(x._data.shape), k, axes))


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist(x: Tensor, y: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: str | None = None) -> Tensor:
    """Pairwise p-norm distances between the rows of x [.., m, d] and y [.., n, d].

    As Paddle: for p = 2 with more than 25 rows in x or y (or compute_mode
    'use_mm_for_euclid_dist'), sqrt(max(-2 x y^T + |y|^2 + |x|^2, 0)) by one matrix
    product (a few small nodes instead of the [.., m, n, d] differences; rounding as
    Paddle's; one node for two float matrices: ops/pair_distance.py), else from the
    differences."""
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(cdist, locals())
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {', '.join(_CDIST_MODES)}, "
                         f"got {compute_mode!r}")
    if x.shape[-1:] != y.shape[-1:]:    # (else numpy's broadcast error, or a wrong pairing)
        raise ValueError(f"cdist: x and y must have the same last dim, got shapes {x.shape} "
                         f"and {y.shape}")
    if p == 2.0 and (compute_mode == _CDIST_MODES[1] or (
            compute_mode == _CDIST_MODES[0] and (x.shape[-2] > 25 or y.shape[-2] > 25))):
        xd, yd = x._data, y._data
        if xd.ndim == 2 and yd.ndim == 2 and xd.dtype is yd.dtype and xd.dtype.kind == "f" \
                and xd.size and yd.size and xd.shape[1] == yd.shape[1]:
            return euclid_cdist(x, y)       # two matrices: the steps below as one node
        xn = R.sum(x * x, axis=-1, keepdim=True)
        if y._stop_gradient and yd.ndim >= 2 and yd.dtype is x._data.dtype and \
                yd.dtype.kind == "f":
            # no gradient to y: |y|^2 as a row [.., 1, n] in numpy (the same multiply and
            # sum; moving a length-1 axis is a reshape), without three Tensor calls
            yt = Tensor._make(np.add.reduce(np.multiply(yd, yd), -1).reshape(
                yd.shape[:-2] + (1, yd.shape[-2])))
        else:
            yn = R.sum(y * y, axis=-1, keepdim=True)
            nd = yn.ndim
            yt = transpose(yn, [*range(nd - 2), nd - 1, nd - 2])
        res = matmul(x, y, transpose_y=True) * -2.0 + yt + xn
        return norm_root(E.clip(res, min=0.0), 2.0)
    d = unsqueeze(x, -2) - unsqueeze(y, -3)
    if p == 2.0:
        return l2_norm(d, (d.ndim - 1,), False)
    if p == 1.0:
        return R.sum(E.abs(d), axis=-1)
    if p == 0 or math.isinf(p):         # a count, the largest or smallest |difference|
        from .stats import norm
        return norm(d, p=float(p), axis=-1)
    return norm_root(R.sum(E.abs(d) ** p, axis=-1), p)


def addmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
          name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y), for 2-D x and y and an input that broadcasts to
    the product's shape (Paddle's checks and ValueErrors). beta = alpha = 1 with float
    matrices: one node (ops/addmm_fused.py, the same values)."""
    if isinstance(input, Tensor) and input._data.dtype is FLOAT16:
        return call_in_float32(addmm, locals())
    if type(beta) in _UNIT and beta == 1 and type(alpha) in _UNIT and alpha == 1 and \
            isinstance(input, Tensor) and isinstance(x, Tensor) and isinstance(y, Tensor) and \
            addmm_fits(input._data, x._data, y._data):
        return apply_internal(addmm_op, input, x, y)
    try:
        m = matmul(x, y)
        if m._data.ndim != 2 or (isinstance(input, Tensor) and input._data.ndim > 2):
            _check_addmm_tensors(input, x, y)       # (a 1-D x or y, a 3-D input: raises)
        return input * beta + m * alpha
    except ValueError:
        _check_addmm_tensors(input, x, y)           # Paddle's message for a shape error
        raise


_UNIT = (float, int)


def _check_addmm_tensors(input: Any, x: Any, y: Any) -> None:
    if isinstance(input, Tensor) and isinstance(x, Tensor) and isinstance(y, Tensor):
        _check_addmm(input._data.shape, x._data.shape, y._data.shape)


def _check_addmm(i: tuple, a: tuple, b: tuple) -> None:
    if len(a) != 2 or len(b) != 2:
        raise ValueError(f"addmm: x and y must be 2-D, got x of shape {list(a)} and y of "
                         f"shape {list(b)}")
    if a[1] != b[0]:
        raise ValueError(f"addmm: x's width must equal y's height, got x of shape {list(a)} "
                         f"and y of shape {list(b)}")
    if len(i) == 2:
        if i[0] not in (a[0], 1):
            raise ValueError(f"addmm: input's dimension 0 must be x's dimension 0 ({a[0]}) or "
                             f"1, got input of shape {list(i)}")
        if i[1] not in (b[1], 1):
            raise ValueError(f"addmm: input's dimension 1 must be y's dimension 1 ({b[1]}) or "
                             f"1, got input of shape {list(i)}")
    elif len(i) == 1:
        if i[0] not in (b[1], 1):
            raise ValueError(f"addmm: input of shape {list(i)} does not broadcast to the "
                             f"product's shape [x.shape[0], y.shape[1]] = [{a[0]}, {b[1]}]")
    else:
        raise ValueError(f"addmm: input must be 1-D or 2-D, got input of shape {list(i)}")


def inner(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Sum of products over the last dims: out[i..., j...] = sum_k x[i..., k] * y[j..., k],
    of shape x.shape[:-1] + y.shape[:-1]; a 0-d operand multiplies. Both must have one dtype
    (Paddle refuses float32 with float64 too)."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("inner: x and y must be Tensors")
    if x._data.dtype != y._data.dtype:
        raise TypeError(f"inner: x and y need one dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}; cast one with .astype()")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    k = x.shape[-1]
    if y.shape[-1] != k:
        raise ValueError(f"inner: the last dims must match, got shapes {x.shape} and {y.shape}")
    rows = [math.prod(t.shape[:-1]) for t in (x, y)]
    out = matmul(reshape(x, [rows[0], k]), reshape(y, [rows[1], k]), transpose_y=True)
    return reshape(out, x.shape[:-1] + y.shape[:-1])


def dist(x: Tensor, y: Tensor, p: float = 2, name: str | None = None) -> Tensor:
    """The p-norm of x - y (broadcast) as a 0-d tensor: p = 0 counts the nonzero
    differences (zero gradient), inf / -inf is the largest / smallest |x - y| (every tied
    element gets the whole gradient, as in Paddle), other p give (sum |x - y|^p)^(1/p).
    At x == y the gradient is zero, as in Paddle, not nan."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("dist: x and y must be Tensors")
    if x._data.dtype.kind != "f" or x._data.dtype != y._data.dtype:
        raise TypeError(f"dist: x and y must be float tensors of one dtype, got "
                        f"{x.dtype.name} and {y.dtype.name}")
    if isinstance(p, (str, bool)) or not isinstance(p, (int, float, np.number)):
        raise TypeError(f"dist: p must be a number, got {p!r}")
    p = float(p)
    if p == 2 and x._data.shape == y._data.shape:
        return l2_distance(x, y, 0.0, None, False)     # l2_norm(x - y) as one node
    try:
        np.broadcast_shapes(x._data.shape, y._data.shape)
    except ValueError:
        raise ValueError(f"dist: shapes {x.shape} and {y.shape} do not broadcast") from None
    d = x - y
    if p == 2:
        return l2_norm(d, None, False)
    if p == 0:      # the count (nan counts, as in Paddle); sign's gradient is zero
        return R.sum(E.abs(sign(E.where(Tensor._make(d._data != 0), 1.0, d))))
    a = E.abs(d)
    if p == np.inf:
        return extreme_abs(a, R.max)
    if p == -np.inf:
        return extreme_abs(a, R.min)
    if p == 1:
        return R.sum(a)
    return norm_root(R.sum(a ** p), p)


def unstack(x: Tensor, axis: int = 0, num: int | None = None) -> list[Tensor]:
    """The slices of x along `axis`, that axis removed (a list; empty for a size-0 axis).
    `num`, when given, must equal that axis' size."""
    if not isinstance(x, Tensor):
        raise TypeError(f"unstack: x must be a Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError("unstack: x is 0-d and has no axis to unstack")
    ax = _axis(axis, x.ndim, "unstack")
    if num is not None and num != x.shape[ax]:
        raise ValueError(f"unstack: num is {num} but axis {axis} has size {x.shape[ax]}")
    return siblings.note([x[(_slice(None),) * ax + (i,)] for i in range(x.shape[ax])])


def _int_list(v: Any, what: str) -> list[int]:
    """starts / ends / strides as Python ints: a list or tuple of ints or 1-element Tensors,
    or one 1-D int Tensor."""
    if isinstance(v, Tensor):
        v = v._data.reshape(-1).tolist()
    if isinstance(v, np.ndarray):
        v = v.reshape(-1).tolist()
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{what} must be a list or tuple of ints or a Tensor, got {v!r}")
    out = []
    for s in v:
        if isinstance(s, Tensor):
            s = s._data
        if isinstance(s, np.ndarray):
            if s.size != 1:
                raise ValueError(f"{what}: each element must hold one value, got shape "
                                 f"{list(s.shape)}")
            s = s.reshape(()).item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{what} must hold ints, got {s!r}")
        out.append(int(s))
    return out


def _sliced(x: Tensor, fn: str, axes: Any, *bounds: tuple[Any, str]) -> Tensor:
    """x sliced along `axes` by Python's rules (out-of-range starts and ends clamp, negative
    ones count from the end). A repeated axis is refused: Paddle 3.3.1's results for one
    are inconsistent (and some crash or hang it)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: input must be a Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{fn}: x is 0-d and has no axis to slice")
    axes = _int_list(axes, f"{fn}: axes")
    lists = [_int_list(v, f"{fn}: {what}") for v, what in bounds]
    for lst, (_, what) in zip(lists, bounds):
        if len(lst) != len(axes):
            raise ValueError(f"{fn}: {len(axes)} axes but {len(lst)} {what}")
    strided = len(lists) == 3
    key: list = [_slice(None)] * x.ndim
    for i, a in enumerate(axes):
        if not (0 if strided else -x.ndim) <= a < x.ndim:     # as Paddle's checks
            raise ValueError(f"{fn}: axis {a} is out of range for a {x.ndim}-D tensor"
                             + (" (strided_slice takes axes >= 0)" if strided else ""))
        a %= x.ndim
        if key[a] != _slice(None):
            raise ValueError(f"{fn}: axis {a} is named twice in axes {axes}; slice it once "
                             f"with the combined bounds")
        step = lists[2][i] if strided else None
        if step == 0:
            raise ValueError(f"{fn}: strides must not be 0")
        key[a] = _slice(lists[0][i], lists[1][i], step)
    return x[tuple(key)]


def slice(input: Tensor, axes: Sequence[int], starts: Any, ends: Any) -> Tensor:  # noqa: A001
    """input[starts[i]:ends[i]] along each of `axes` (Python's clamping of out-of-range and
    negative bounds, as Paddle's); starts and ends may be lists of ints / 1-element Tensors
    or one int Tensor."""
    return _sliced(input, "slice", axes, (starts, "starts"), (ends, "ends"))


def strided_slice(x: Tensor, axes: Sequence[int], starts: Any, ends: Any, strides: Any,
                  name: str | None = None) -> Tensor:
    """x[starts[i]:ends[i]:strides[i]] along each of `axes`, by Python's slicing rules
    (negative strides walk backwards; a stride of 0 is an error)."""
    return _sliced(x, "strided_slice", axes, (starts, "starts"), (ends, "ends"),
                   (strides, "strides"))
