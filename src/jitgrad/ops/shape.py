"""Shape and indexing ops. They only move values: each is linear (ops/linear.py), its
gradient its transpose (another op here), which lowers to AXPY (same flat layout), GATHER or
SCATTER with an index map computed once when the op is recorded (or from shapes)."""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np

from ..core.size import Size
from ..core.tensor import Tensor, bind_operators
from .core import apply_xy, broadcast_axes, compiled_kernels, int_entry, remember
from .linear import Chain, Recorded, linear, shaped, step
from .registry import REGISTRY


def _flat_positions(shape: tuple) -> np.ndarray:
    return np.arange(math.prod(shape), dtype=np.int64).reshape(shape)


@functools.lru_cache(maxsize=64)
def _axis_origins(shape: tuple, ax: int) -> np.ndarray:
    """The flat position in a C-ordered array of `shape` of each element with index 0 along
    ax, kept as a size-1 axis: read-only and shared (one per shape and axis)."""
    key = tuple(slice(0, 1) if d == ax else slice(None) for d in range(len(shape)))
    o = np.ascontiguousarray(_flat_positions(shape)[key])
    o.setflags(write=False)
    return o


def _along_axis_positions(shape: tuple, idx: np.ndarray, ax: int, what: str) -> np.ndarray:
    """np.take_along_axis(_flat_positions(shape), idx, ax) for an idx that broadcasts
    against shape off ax (its size along ax is free): built from the positions at index 0
    and a stride, instead of a full position table and numpy's fancy-index machinery (~12 us
    of a ~40 us gather step). Indices -n..n-1 as numpy; others raise IndexError."""
    n = shape[ax]
    if idx.size and idx.shape[ax + 1:] == shape[ax + 1:] and idx.shape[:ax] == shape[:ax] \
            and idx.ndim == len(shape) and idx.dtype == np.int64:
        kernels = compiled_kernels("forward_gather")
        if kernels is not None:
            # (vm/forward_gather.py: the bounds check and the positions in one pass)
            post = math.prod(shape[ax + 1:])
            k = idx.shape[ax]
            pos = np.empty(idx.shape, np.int64)
            if kernels.along_positions(np.ascontiguousarray(idx).reshape(-1, k, post), n,
                                       post, pos.reshape(-1, k, post)):
                return pos
    idx = _in_range(idx, n, ax, what)
    stride = math.prod(shape[ax + 1:])
    return _axis_origins(shape, ax) + (idx if stride == 1 else idx * stride)


def _in_range(idx: np.ndarray, n: int, ax: int, what: str) -> np.ndarray:
    """idx with negative indices counted from the end (-n..n-1, as numpy); others raise."""
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < -n or hi >= n:
            raise IndexError(f"{what}: index {hi if hi >= n else lo} is out of bounds for "
                             f"axis {ax} with size {n}")
        if lo < 0:
            idx = np.where(idx < 0, idx + n, idx)
    return idx


def _select_compiled(shape: tuple, idx: np.ndarray, ax: int) -> np.ndarray | None:
    """_select_positions by vm/forward_gather.py's select_positions (indices -n..n-1, as
    numpy's); None before Numba is loaded, for another dtype than int64, or for an index
    out of range (the caller's numpy path, which raises its own error)."""
    if idx.dtype != np.int64:
        return None
    kernels = compiled_kernels("forward_gather")
    if kernels is None:
        return None
    k = idx.shape[0]
    pos = np.empty(shape[:ax] + (k,) + shape[ax + 1:], np.int64)
    if kernels.select_positions(np.ascontiguousarray(idx), shape[ax],
                                pos.reshape(math.prod(shape[:ax]), k,
                                            math.prod(shape[ax + 1:]))):
        return pos
    return None


def _select_positions(shape: tuple, idx: np.ndarray, ax: int, what: str) -> np.ndarray:
    """_along_axis_positions for a 1-D int64 idx picking whole slices along ax (index_select's
    table, of shape shape[:ax] + idx.shape + shape[ax + 1:]): the bounds check and the
    positions in one compiled pass (vm/forward_gather.py select_positions) once Numba is
    loaded; the broadcast arithmetic otherwise, or to raise for an index out of range."""
    pos = _select_compiled(shape, idx, ax)
    if pos is not None:
        return pos
    along = idx.reshape((1,) * ax + idx.shape + (1,) * (len(shape) - ax - 1))
    return _along_axis_positions(shape, along, ax, what)


def _transposed_positions(shape: tuple, perm: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(positions, flat): the flat positions in x of transpose(x, perm)'s elements as a
    view of x's (Builder.take_positions: a strided read, no table)."""
    flat = _flat_positions(shape)
    return flat.transpose(perm), flat


def _inverse(perm: tuple) -> tuple:
    """argsort(perm) as a tuple of ints (numpy's argsort costs ~4 us on three axes)."""
    return tuple(sorted(range(len(perm)), key=perm.__getitem__))


# Each op below is linear (ops/linear.py): its gradient is its transpose, declared once,
# and `into` is how the op lowers when it is another op's transpose (dest += op(src)).

reshape_op = linear(
    "reshape", grad_reads=(), view=True, forward=lambda x, shape: x.reshape(shape),
    transpose=lambda n, shape: step(reshape_op, shape=n.ins[0]),
    cases=({"shapes": ((2, 3),), "attrs": {"shape": (3, 2)}},
           {"shapes": ((),), "attrs": {"shape": (1, 1)}}))

transpose_op = linear(
    "transpose", grad_reads=(), forward=lambda x, perm: np.transpose(x, perm),
    transpose=lambda n, perm: step(transpose_op, perm=_inverse(perm)),
    into=lambda b, dest, src, perm: b.take_positions(dest, src, *_transposed_positions(
        src.shape, perm)),
    cases=({"shapes": ((2, 3, 4),), "attrs": {"perm": (2, 0, 1)}},
           {"shapes": ((),), "attrs": {"perm": ()}}))


def _sum_to(n: Recorded, shape: tuple) -> Chain:
    """broadcast_to's transpose: g summed over the broadcast axes (kept), then reshaped to
    x's shape: the steps core.sum_to records (the axes are never empty: x's shape is not
    g's)."""
    g = n.out
    axes = broadcast_axes(g, shape)
    summed = (REGISTRY["sum"], {"axes": axes, "keepdim": True})    # (ops/reduce.py's sum)
    kept = tuple([1 if i in axes else t for i, t in enumerate(g)])
    return Chain((summed,) if kept == shape else (summed, (reshape_op, {"shape": shape})))


def _broadcast(x: np.ndarray, shape: tuple) -> np.ndarray:
    """np.broadcast_to(x, shape).copy() in one C call (np.broadcast_to alone is ~2 us of
    Python; copyto broadcasts by the same rules)."""
    out = np.empty(shape, x.dtype)
    np.copyto(out, x)
    return out


broadcast_op = linear(
    "broadcast_to", grad_reads=(), forward=_broadcast,
    transpose=lambda n, shape: _sum_to(n, n.ins[0]),
    into=lambda b, dest, src, shape, k=1.0: b.broadcast_into(shaped(dest, shape), src, k=k),
    cases=({"shapes": ((3, 1),), "attrs": {"shape": (2, 3, 4)}},
           {"shapes": ((),), "attrs": {"shape": (3,)}}))


def _getitem_into(b: Any, dest: Any, src: Any, key: tuple) -> None:
    """dest += src[key], for a key of slices and ints (concat's transpose): its table is
    computed here, as structure, so an index array (bound per graph) cannot be one."""
    if any(isinstance(k, np.ndarray) for k in key):
        raise NotImplementedError("getitem's into: an index array would make a table "
                                  "the program cache does not bind")
    flat = _flat_positions(src.shape)
    b.take_positions(dest, src, flat[key], flat)


def _basic_key(key: tuple) -> tuple | None:
    """A hashable spelling of a key of ints, slices, None and Ellipsis (slices are not
    hashable before Python 3.12); None for a key with an index array or a bool."""
    out = []
    for k in key:
        t = type(k)
        if t is slice:
            out.append((k.start, k.stop, k.step))
        elif t is int or k is None or k is Ellipsis:
            out.append(k)
        else:
            return None
    return tuple(out)


def _new_axes_only(key: tuple) -> bool:
    """Whether x[key] is x reshaped, its elements in their order (a key of None, full
    slices and Ellipsis: x[:, None, :]): its gradient is then the reshape back (AXPY),
    not a scatter over the index map."""
    for k in key:
        if k is None or k is Ellipsis:
            continue
        if type(k) is not slice or k.start is not None or k.stop is not None or \
                k.step is not None:
            return False
    return True


_BASIC_MAPS: dict[tuple, np.ndarray] = {}
_BASIC_MAPS_KEPT = 256


def _getitem_map(out: np.ndarray, x: np.ndarray, key: tuple) -> tuple:
    """getitem's saved index map: the flat position in x of each element of x[key]. A basic
    key's map is kept per (shape, key), read-only, so a training loop slicing the same way
    each step neither recomputes it nor recopies it into a Program's tables on rebinding."""
    basic = _basic_key(key)
    if basic is None:
        k = key[0] if len(key) == 1 else None
        if type(k) is np.ndarray and k.ndim == 1 and k.dtype == np.int64 and x.ndim:
            # rows picked by an int64 array (x[i]): the positions in one compiled pass,
            # without a table of all of x's positions (None before Numba is loaded)
            pos = _select_compiled(x.shape, k, 0)
            if pos is not None:
                return (pos.reshape(-1),)
        return (_flat_positions(x.shape)[key].ravel(),)
    ck = (x.shape, basic)
    t = _BASIC_MAPS.get(ck)
    if t is None:
        # (a copy owning its data: an int key's map is a view, which a rebinding Workspace
        # would copy into its itab again every step: binding.bind_values)
        t = _flat_positions(x.shape)[key].ravel().copy()
        t.setflags(write=False)
        remember(_BASIC_MAPS, ck, t, _BASIC_MAPS_KEPT)
    return (t,)


getitem_op = linear(
    "getitem", grad_reads=(), bound_attrs=("key",), forward=lambda x, key: x[key],
    save=_getitem_map,
    transpose=lambda n, key: step(reshape_op, shape=n.ins[0]) if _new_axes_only(key) else
    step(scatter_flat_op, idx=n.saved[0], shape=n.ins[0]),
    into=_getitem_into,
    cases=({"shapes": ((4, 5),), "attrs": {"key": (slice(1, None, 2), 3)}},
           {"shapes": ((6,),), "attrs": {"key": (np.array([0, 2, 2, 5]),)}},
           {"shapes": ((),), "attrs": {"key": ()}}))

scatter_flat_op = linear(      # (not float16_exact: adds duplicates in its dtype)
    "scatter_flat", float16_exact=None, grad_reads=(), bound_attrs=("idx",),
    forward=lambda g, idx, shape: _add_at(np.zeros(int(np.prod(shape)), g.dtype), idx,
                                          g.ravel()).reshape(shape),
    transpose=lambda n, idx, shape: step(take_flat_op, idx=idx, shape=n.ins[0]),
    into=lambda b, dest, src, idx, shape: b.scatter(dest, src, idx),
    cases=({"shapes": ((4,),), "attrs": {"idx": np.array([0, 2, 2, 1]), "shape": (3,)}},
           {"shapes": ((),), "attrs": {"idx": np.array([1]), "shape": (2,)}}))


def _take_flat_into(b: Any, dest: Any, src: Any, idx: np.ndarray, shape: tuple,
                    k: Any = 1.0) -> None:
    """dest += k * src.ravel()[idx]; an array k (put_flat's mask) fuses as GATHER_MUL."""
    if isinstance(k, np.ndarray):
        b.emit("GATHER_MUL", dest, src, b.value(k), p=b.table(idx))
    else:
        b.emit("GATHER", dest, src, p=b.table(idx), k=k)


take_flat_op = linear(
    # (gather, index_select, sort, roll: the gradient reads idx and x's shape, not x, so x
    # may change in place before the backward, as Paddle 3.3.1 lets it)
    "take_flat", grad_reads=(), bound_attrs=("idx",),
    forward=lambda x, idx, shape: x.ravel()[idx].reshape(shape),
    transpose=lambda n, idx, shape: step(scatter_flat_op, idx=idx, shape=n.ins[0]),
    into=_take_flat_into,
    cases=({"shapes": ((3,),), "attrs": {"idx": np.array([0, 2, 2, 1]), "shape": (2, 2)}},
           {"shapes": ((),), "attrs": {"idx": np.array([0, 0]), "shape": (2,)}}))


def _add_at(buf: np.ndarray, idx: np.ndarray, vals: np.ndarray) -> np.ndarray:
    np.add.at(buf, idx, vals)
    return buf


def _scatter_flat(g: Tensor, idx: np.ndarray, shape: Sequence[int]) -> Tensor:
    return apply_xy(scatter_flat_op, g, None, {"idx": idx, "shape": tuple(shape)})


def _take_flat(x: Tensor, idx: np.ndarray, shape: Sequence[int]) -> Tensor:
    return apply_xy(take_flat_op, x, None, {"idx": idx, "shape": tuple(shape)})


# ---- public functions ----------------------------------------------------------------------

def _resolve_shape(x: Tensor, shape: Any) -> tuple[int, ...]:
    kind = type(shape)
    if kind is list or kind is tuple or kind is Size:      # (Size: x.shape, edited)
        for s in shape:                 # the common case first: plain ints
            if type(s) is not int:
                break
        else:                           # resolved once per (shape, request): -1 and 0
            key = (x._data.shape, tuple(shape))     # cost ~1 us a reshape otherwise
            new = _RESOLVED.get(key)
            if new is None:
                new = _resolve_general(x, shape)    # (raises: nothing cached)
                remember(_RESOLVED, key, new, _RESOLVED_MAX)
            return new
    return _resolve_general(x, shape)


_RESOLVED: dict = {}            # (x's shape, requested shape) -> the shape reshape makes
_RESOLVED_MAX = 4096


def _resolve_general(x: Tensor, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    if x._data.size == 0:
        return _resolve_empty(x, shape)
    out = []
    for i, s in enumerate(shape):
        if type(s) is not int:
            s = int_entry(s, "reshape: shape must hold ints", shape)
        if s == 0 and i >= x.ndim:
            raise ValueError(f"reshape: a 0 in shape {list(shape)} keeps x's dim {i}, but x "
                             f"of shape {list(x.shape)} has {x.ndim} dims")
        out.append(x._data.shape[i] if s == 0 else s)   # Paddle: 0 keeps that dim
    if out.count(-1) > 1:
        raise ValueError(f"reshape: at most one -1 in shape, got {list(shape)}")
    known = math.prod([s for s in out if s != -1])
    if -1 in out:
        if known == 0 or x._data.size % known:
            raise ValueError(f"reshape: cannot reshape {x.shape} into {list(shape)}")
        out[out.index(-1)] = x._data.size // known
    if math.prod(out) != x._data.size:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {x.shape} ({x._data.size} "
                         f"elements) into {list(shape)}")
    return tuple(out)


def _resolve_empty(x: Tensor, shape: Any) -> tuple[int, ...]:
    """Paddle 3.3.1's reshape of a zero-size x: a 0 is a zero-size dim (not "keep x's
    dim"), and a -1 is 0, or, beside a 0, the product of x's nonzero dims over that of the
    others ((0, 3) as [0, -1] is [0, 3], as [3, -1] is [3, 0]; (3, 0) as [0, -1] is
    [0, 3])."""
    out = [s if type(s) is int else int_entry(s, "reshape: shape must hold ints", shape)
           for s in shape]
    if out.count(-1) > 1 or any(s < -1 for s in out):
        raise ValueError(f"reshape: shape {list(shape)} may hold one -1 and no other "
                         "negative size")
    if -1 in out:
        rest = math.prod([s for s in out if s not in (0, -1)])
        have = math.prod([s for s in x._data.shape if s])
        if 0 not in out:
            fill = 0
        elif have % rest:
            raise ValueError(f"reshape: cannot reshape {x.shape} into {list(shape)}")
        else:
            fill = have // rest
        out[out.index(-1)] = fill
    if 0 not in out:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {x.shape} (0 elements) "
                         f"into {list(shape)}")
    return tuple(out)


def reshape(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    new = _resolve_shape(x, shape)
    d = x._data
    if new == d.shape:
        return x
    # (apply_xy with the view made here: the op functions' one-frame path, ~1.5 us less a
    # reshape than apply's; composites reshape several times an op)
    return apply_xy(reshape_op, x, None, {"shape": new}, d.reshape(new))


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1,
            name: str | None = None, start_dim: Any = None, end_dim: Any = None) -> Tensor:
    """Axes start_axis..stop_axis merged into one: a reshape node. Its attrs are cached per
    (shape, start_axis, stop_axis) for Python-int axes (a training loop flattens the same
    shape every step: the list arithmetic and reshape's resolution cost ~1 us of a ~3 us
    op). The new shape goes to the node as it is, not through reshape's request rules,
    whose 0 means "keep that dim": a zero-size dim flattens as in Paddle 3.3.1.
    start_dim / end_dim: Paddle 3.3.1's torch-style names for start_axis / stop_axis (here,
    not in an alias wrapper: x.flatten(1) runs in a CNN's every forward, and a wrapper's
    call layer cost it ~0.35 us, 19%)."""
    if start_dim is not None:
        start_axis = start_dim
    if end_dim is not None:
        stop_axis = end_dim
    d = x._data
    if type(start_axis) is int and type(stop_axis) is int:
        key = (d.shape, start_axis, stop_axis)
        attrs = _FLATTENED.get(key)
        if attrs is None:
            attrs = {"shape": _flattened_shape(d.shape, start_axis, stop_axis)}  # (raises)
            remember(_FLATTENED, key, attrs, _FLATTENED_MAX)
    else:
        attrs = {"shape": _flattened_shape(d.shape, start_axis, stop_axis)}
    return reshape_to(x, attrs)


def reshape_to(x: Tensor, attrs: dict) -> Tensor:
    """x as attrs["shape"], a shape already resolved (no 0 or -1 requests), one reshape
    node whose attributes are this very dict (callers keep one per shape: the nodes share
    it, as nothing writes node.attrs); x itself when that is x's shape."""
    d = x._data
    new = attrs["shape"]
    if new == d.shape:
        return x
    return apply_xy(reshape_op, x, None, attrs, d.reshape(new))


def reshape_exact(x: Tensor, shape: Sequence[int]) -> Tensor:
    """x as `shape`, taken as it is: the ops' own reshapes to a shape they computed, where a
    0 is a zero-size dim (reshape's requests read a 0 as "keep x's dim"). The attributes
    are one dict per shape (the matcher recognises a shared dict by identity)."""
    return reshape_to(x, _exact_attrs(shape))


def _exact_attrs(shape: Sequence[int]) -> dict:
    """The reshape node attributes {"shape": shape}, one dict per shape (_EXACT)."""
    key = tuple(shape)
    attrs = _EXACT.get(key)
    if attrs is None:
        attrs = remember(_EXACT, key, {"shape": tuple(int(s) for s in key)}, _EXACT_MAX)
    return attrs


def fresh(x: Tensor) -> Tensor:
    """x's values as a new tensor (one reshape node to x's own shape, sharing its array:
    in-place writes copy on write, so neither sees the other's), for a public op that
    Paddle 3.3.1 answers with a new tensor where jitgrad would return x itself: an
    in-place change of the result must not change x, nor one of x the result. A constant
    x needs no node: a new leaf on the array (~0.3 us where the node costs ~1.5)."""
    if x._stop_gradient:
        return Tensor._make(x._data.view())
    return apply_xy(reshape_op, x, None, _exact_attrs(x._data.shape), x._data.view())


_EXACT: dict = {}               # shape -> {"shape": shape}: reshape_exact's node attributes
_EXACT_MAX = 1024


_FLATTENED: dict = {}           # (x's shape, start_axis, stop_axis) -> {"shape": new shape}
_FLATTENED_MAX = 1024


def _flattened_shape(shape: tuple, start_axis: Any, stop_axis: Any) -> tuple[int, ...]:
    """flatten's result shape: (1,) for a 0-d x, whatever the axes (as Paddle)."""
    if not shape:
        return (1,)
    nd = len(shape)
    for k, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not -nd <= a < nd:       # (numpy's modulo would wrap it onto another dim)
            raise ValueError(f"flatten: {k} {a} is out of range for {nd} dims")
    s, e = start_axis % nd, stop_axis % nd
    if s > e:
        raise ValueError(f"flatten: start_axis {start_axis} is after stop_axis {stop_axis}")
    return tuple(shape[:s]) + (math.prod(shape[s:e + 1]),) + tuple(shape[e + 1:])


def squeeze(x: Tensor, axis: Any = None, name: str | None = None) -> Tensor:
    shape = x.shape
    if axis is None:
        axes = {i for i, s in enumerate(shape) if s == 1}
    else:
        nd = max(len(shape), 1)
        axes = set()
        for a in ([axis] if isinstance(axis, (int, np.integer)) else axis):
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise TypeError(f"squeeze: axis must be an int or a list of ints, got "
                                f"{axis!r}")
            if not -nd <= a < nd:
                raise ValueError(f"squeeze: axis {a} is out of range for shape {list(shape)}")
            axes.add(int(a) % nd)
    return reshape_exact(x, [s for i, s in enumerate(shape) if not (i in axes and s == 1)])


def unsqueeze(x: Tensor, axis: Any, name: str | None = None) -> Tensor:
    shape = x.shape
    # Paddle inserts axes one after another; a negative one counts from the current end.
    for a in ([axis] if isinstance(axis, int) else list(axis)):
        a = a if a >= 0 else a + len(shape) + 1
        if not 0 <= a <= len(shape):
            raise ValueError(f"unsqueeze: axis {axis} out of range for shape {x.shape}")
        shape.insert(a, 1)
    return reshape_exact(x, shape)


def transpose(x: Tensor, perm: Any = None, name: Any = None, dim0: Any = None,
              dim1: Any = None) -> Tensor:
    """x with its axes in the order perm; Paddle 3.3.1's torch-style forms swap two axes:
    transpose(x, 0, 2) and transpose(x, dim0=0, dim1=2) (read off the cached path; dim0
    and dim1 are not keyword-only: CPython fills those defaults ~45 ns slower, 3%)."""
    d = x._data
    nd = d.ndim
    key = (tuple(perm), nd) if type(perm) is list or type(perm) is tuple else None
    found = _PERMS.get(key) if key is not None else None
    if found is None:
        if key is None:
            perm = _torch_transpose_perm(perm, name, dim0, dim1, nd)
        found = _checked_perm(perm, nd)
        if key is not None and all(type(p) is int for p in key[0]):
            remember(_PERMS, key, found, 256)
    return apply_xy(transpose_op, x, None, {"perm": found}, d.transpose(found))


def _torch_transpose_perm(perm: Any, second: Any, dim0: Any, dim1: Any, nd: int) -> Any:
    """The permutation that swaps two axes given torch-style (transpose(x, 0, 2): perm and
    name two ints; or dim0= and dim1=), as Paddle 3.3.1's transpose_decorator reads them;
    perm itself otherwise."""
    if isinstance(perm, int) and isinstance(second, int) and dim0 is not None:
        return _several_axes_perm([perm, second, dim0] + ([] if dim1 is None else [dim1]), nd)
    if dim0 is None and isinstance(perm, int):
        dim0, perm = perm, None
        if dim1 is None and isinstance(second, int):
            dim1 = second
    if dim0 is None and dim1 is None:
        if perm is None:
            raise TypeError("transpose() needs perm (a permutation of the axes) or the two "
                            "axes to swap (transpose(x, 0, 1), dim0=, dim1=)")
        return perm
    if perm is not None or dim0 is None or dim1 is None:
        raise TypeError("transpose(): give perm (a list), or the two axes to swap "
                        "(transpose(x, 0, 1) or dim0= and dim1=), not one axis or both")
    return _swap_perm(dim0, dim1, nd)


def _swap_perm(dim0: Any, dim1: Any, nd: int) -> list:
    """The permutation of nd axes that swaps dim0 and dim1."""
    pair = [int_entry(v, "transpose: dim0 and dim1 must be ints", (dim0, dim1))
            for v in (dim0, dim1)]
    if not all(-nd <= v < nd for v in pair):
        raise ValueError(f"transpose: axes {pair} out of range for a tensor of {nd} dims")
    a, b = (v % nd for v in pair) if nd else (0, 0)
    order = list(range(nd))
    order[a], order[b] = order[b], order[a]
    return order


def _several_axes_perm(axes: list, nd: int) -> list:
    """x.transpose(0, 2, 1): Paddle 3.3.1 swaps the first two axes and ignores the rest
    (shape [2, 3, 4] -> [4, 3, 2]), where numpy (and x.permute) read the permutation
    [0, 2, 1] ([2, 4, 3]). Given when both readings agree (x.transpose(1, 0, 2)); otherwise
    a TypeError that names both, rather than either silent guess."""
    swap = _swap_perm(axes[0], axes[1], nd)
    if len(axes) == nd and [a % nd if -nd <= a < nd else None for a in axes] == swap:
        return swap
    shown = ", ".join(map(str, axes))
    raise TypeError(f"transpose({shown}): Paddle 3.3.1 swaps axes {axes[0]} and {axes[1]} "
                    f"and ignores the rest, numpy permutes the axes to [{shown}]; write "
                    f"x.transpose({axes[0]}, {axes[1]}) for the swap, or x.permute({shown}) "
                    f"/ x.transpose([{shown}]) for the permutation")


def _broadcasts(src: tuple, dst: tuple) -> bool:
    """Whether an array of shape src broadcasts to exactly dst (np.broadcast_shapes costs
    ~1 us and accepts (5,) with (1,), whose broadcast is (5,))."""
    off = len(dst) - len(src)
    if off < 0 or (dst and min(dst) < 0):
        return False
    for i, n in enumerate(src):
        if n != 1 and n != dst[off + i]:
            return False
    return True


# (perm as given, ndim) -> the checked permutation: a model transposes with a few perms
_PERMS: dict = {}


def _checked_perm(perm: Sequence[int], nd: int) -> tuple:
    """perm as non-negative ints, or the ValueError of a perm that is not one."""
    given = [p if type(p) is int else int_entry(p, "transpose: perm must hold ints", perm)
             for p in perm]
    for p in given:
        if not -max(nd, 1) <= p < max(nd, 1):
            raise ValueError(f"transpose: perm {given} is not a permutation of {nd} axes "
                             f"(axis {p} is out of range)")
    perm = tuple(p % max(nd, 1) for p in given)
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"transpose: perm {given} is not a permutation of {nd} axes")
    return perm


def t(x: Tensor, name: str | None = None) -> Tensor:
    return x if x.ndim < 2 else transpose(x, [1, 0])


def broadcast_to(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    shape = tuple([s if type(s) is int else
                   int_entry(s, "expand / broadcast_to: shape must hold ints", shape)
                   for s in shape])
    if not _broadcasts(x._data.shape, shape):
        raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to "
                         f"{list(shape)}")
    if shape == x._data.shape:
        return x
    return apply_xy(broadcast_op, x, None, {"shape": shape})


def broadcast_to_new(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """paddle.broadcast_to and the method: broadcast_to, and a new tensor (fresh) where x
    has the shape already, as Paddle 3.3.1's kernel makes one (so an in-place change of
    either leaves the other); the ops' own calls keep x itself."""
    y = broadcast_to(x, shape)
    return fresh(x) if y is x else y


def expand(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """x broadcast to shape (-1 keeps a dim of x); a new tensor, as broadcast_to_new."""
    off = len(shape) - x.ndim
    if off > 0 and -1 in shape[:off]:   # (-1 keeps a dim of x: a new dim has none)
        raise ValueError(f"expand: shape {list(shape)} has -1 for a new leading dim (x has "
                         f"shape {list(x.shape)}); -1 only keeps one of x's dims")
    shape = [x.shape[i - off] if s == -1 else s for i, s in enumerate(shape)]
    return broadcast_to_new(x, shape)


def _normalize_key(key: Any, shape: tuple | None = None) -> Any:
    """The key as a tuple of ints, slices, None, Ellipsis and arrays. With x's shape, a key
    mixing ints and index arrays is rewritten to Paddle's (and torch's) order, where an int
    is basic indexing (numpy counts it as an index array: x[1, :, [0, 2]] would be [2, 3]
    there, [3, 2] in Paddle)."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    arrays = ints = False
    for k in key:
        t = type(k)
        if t is slice or k is None or k is Ellipsis:   # (the common items)
            out.append(k)
            continue
        if t is int:
            out.append(k)
            ints = True
            continue
        if isinstance(k, Tensor):
            k = k._data
        if isinstance(k, list):
            k = np.asarray(k)
            if k.size == 0:                 # (numpy makes [] float64): no index, x[[]] is
                k = k.astype(np.int64)      # [0, ...] as in Paddle 3.3.1
        if isinstance(k, float) or (isinstance(k, np.ndarray) and k.dtype.kind == "f"):
            raise TypeError("tensor indices must be integers, slices or bool masks, not floats")
        if _is_int(k):
            ints = True
        elif isinstance(k, np.ndarray) and k.ndim > 0:
            arrays = True
        out.append(k)
    if arrays and ints and shape is not None:
        return _ints_first(shape, tuple(out))
    return tuple(out)


def _is_int(k: Any) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) or \
        isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu"


def _ints_first(shape: tuple, key: tuple) -> tuple:
    """A key with ints and index arrays as one numpy key (an index array per dim) that
    picks Paddle's elements in Paddle's order: the ints applied first as basic indexing,
    then the rest (numpy's rules among the arrays)."""
    first, rest = [], []
    for k in key:
        if _is_int(k):
            first.append(k)
        elif isinstance(k, np.ndarray) and k.ndim > 0:
            first.extend([slice(None)] * (k.ndim if k.dtype == np.bool_ else 1))
            rest.append(k)
        elif k is None or type(k) is slice or isinstance(k, (bool, np.bool_)) or \
                isinstance(k, np.ndarray) and k.ndim == 0:      # (a 0-d bool: a new dim)
            first.append(k)
            rest.append(slice(None))
        else:                               # Ellipsis, and what numpy will refuse
            first.append(k)
            rest.append(k)
    pos = _flat_positions(shape)[tuple(first)][tuple(rest)]
    return np.unravel_index(pos, shape) if shape else (pos,)


def getitem(x: Tensor, key: Any) -> Tensor:
    try:
        key = _normalize_key(key, x._data.shape)
        return apply_xy(getitem_op, x, None, {"key": key})
    except IndexError as e:
        raise IndexError(f"index {key!r} does not fit a tensor of shape {list(x.shape)}: "
                         f"{e}") from None


# x[key] is getitem itself, not TensorOperators.__getitem__ forwarding to the public
# (checked) form: x is a Tensor, so two call layers (~0.3 us) had nothing to check
bind_operators(__getitem__=getitem)
