"""More composites numeric code reaches for: gather_nd, scatter, scatter_nd_add, masked_fill,
index_add, kron, cross, diff, meshgrid, moveaxis, expand_as. Gradients come from the moving
primitives (take_flat, put_flat) and elementwise ops."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .indexing import _axis, _index_array, _take, concat, put_flat
from .shape import _flat_positions, broadcast_to, reshape, transpose, unsqueeze


def gather_nd(x: Tensor, index: Any, name: str | None = None) -> Tensor:
    """x[index[..., 0], index[..., 1], ...]: the last dim of index addresses leading dims."""
    idx = _index_array(index, "gather_nd")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"gather_nd: index addresses {k} dims of a {x.ndim}-D tensor")
    pos = _flat_positions(x._data.shape)[tuple(np.moveaxis(idx, -1, 0))]
    return _take(x, pos)


def scatter(x: Tensor, index: Any, updates: Tensor, overwrite: bool = True,
            name: str | None = None) -> Tensor:
    """Paddle's scatter: rows of x at a 1-D index replaced by (or, overwrite=False, added to,
    after zeroing) the rows of updates."""
    idx = _index_array(index, "scatter").reshape(-1)
    pos = _flat_positions(x._data.shape)[idx]
    if overwrite:
        return put_flat(x, pos, updates, "assign")
    zeroed = put_flat(x, pos, 0.0, "assign")
    return put_flat(zeroed, pos, updates, "add")


def scatter_nd_add(x: Tensor, index: Any, updates: Tensor, name: str | None = None) -> Tensor:
    idx = _index_array(index, "scatter_nd_add")
    pos = _flat_positions(x._data.shape)[tuple(np.moveaxis(idx, -1, 0))]
    return put_flat(x, pos, updates, "add")


def index_add(x: Tensor, index: Any, axis: int, value: Tensor, name: str | None = None
              ) -> Tensor:
    ax = _axis(axis, x.ndim, "index_add")
    idx = _index_array(index, "index_add")
    return put_flat(x, np.take(_flat_positions(x._data.shape), idx, axis=ax), value, "add")


def masked_fill(x: Tensor, mask: Any, value: Any, name: str | None = None) -> Tensor:
    m = np.asarray(mask._data if isinstance(mask, Tensor) else mask)
    if m.shape != x._data.shape:
        m = np.broadcast_to(m, x._data.shape)
    return E.where(Tensor._make(np.array(m, order="C")), value, x)


def kron(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    nd = max(x.ndim, y.ndim)
    xs = [1] * (nd - x.ndim) + x.shape
    ys = [1] * (nd - y.ndim) + y.shape
    a = reshape(x, [v for s in xs for v in (s, 1)])
    b = reshape(y, [v for s in ys for v in (1, s)])
    return reshape(a * b, [p * q for p, q in zip(xs, ys)])


def cross(x: Tensor, y: Tensor, axis: int = 9, name: str | None = None) -> Tensor:
    """Cross product along the axis of size 3 (the first such axis by default, as Paddle)."""
    if axis == 9:
        axis = next((i for i, s in enumerate(x.shape) if s == 3), None)
        if axis is None:
            raise ValueError(f"cross: no axis of size 3 in shape {x.shape}")
    ax = _axis(axis, x.ndim, "cross")

    def comp(t, i):
        key = [slice(None)] * t.ndim
        key[ax] = slice(i, i + 1)
        return t[tuple(key)]
    x0, x1, x2 = (comp(x, i) for i in range(3))
    y0, y1, y2 = (comp(y, i) for i in range(3))
    return concat([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0], axis=ax)


def diff(x: Tensor, n: int = 1, axis: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, name: str | None = None) -> Tensor:
    ax = _axis(axis, x.ndim, "diff")
    if prepend is not None or append is not None:
        x = concat([t for t in (prepend, x, append) if t is not None], axis=ax)
    for _ in range(n):
        hi = [slice(None)] * x.ndim
        lo = [slice(None)] * x.ndim
        hi[ax], lo[ax] = slice(1, None), slice(None, -1)
        x = x[tuple(hi)] - x[tuple(lo)]
    return x


def meshgrid(*args: Tensor, name: str | None = None) -> list[Tensor]:
    """'ij' indexing, as Paddle."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    shape = [t.size for t in args]
    out = []
    for i, t in enumerate(args):
        view = [1] * len(args)
        view[i] = t.size
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
    return broadcast_to(x, y.shape)


def logit(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    if eps is not None:
        x = E.clip(x, eps, 1 - eps)
    return E.log(x / (1.0 - x))


def rot90(x: Tensor, k: int = 1, axes: Sequence[int] = (0, 1), name: str | None = None
          ) -> Tensor:
    return _take(x, np.rot90(_flat_positions(x._data.shape), k, axes))


def cdist(x: Tensor, y: Tensor, p: float = 2.0, name: str | None = None) -> Tensor:
    """Pairwise p-norm distances between the rows of x [.., m, d] and y [.., n, d]."""
    d = unsqueeze(x, -2) - unsqueeze(y, -3)
    if p == 2.0:
        return E.sqrt(R.sum(d * d, axis=-1))
    if p == 1.0:
        return R.sum(E.abs(d), axis=-1)
    return R.sum(E.abs(d) ** p, axis=-1) ** (1.0 / p)


def addmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
          name: str | None = None) -> Tensor:
    from .linalg import matmul
    return input * beta + matmul(x, y) * alpha


