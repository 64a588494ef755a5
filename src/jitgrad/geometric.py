"""paddle.geometric: message passing and segment reductions for graph networks.

Every function is a composite of recorded ops (index_select gathers the messages, index_add
sums them into their rows, take_along_axis picks a row's maximum), so gradients, the program
cache and create_graph come from those ops. The integer work (which rows, which winner) is
numpy on the index arrays, which carry no gradient.

Semantics are Paddle 3.3.1's, measured: an output row that receives nothing is 0 for every
reduction; 'mean' divides by the number of rows received; segment ids must be sorted (the
send_* functions take any order). Ties of 'max' and 'min' give the gradient to the first
row in index order (Paddle gives each tied row the whole gradient, so a tie counts twice).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .core.tensor import Tensor
from .ops import elementwise as E
from .ops.composites import index_add
from .ops.creation import zeros
from .ops.indexing import concat, index_select, take_along_axis
from .ops.shape import reshape

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_min", "segment_max", "reindex_graph", "reindex_heter_graph"]

_REDUCE_OPS = ("sum", "mean", "max", "min")
_MESSAGE_OPS = ("add", "sub", "mul", "div")


def _index(value: Any, what: str, owner: str) -> np.ndarray:
    """A 1-D integer index array (a Tensor, array or list), checked non-negative."""
    arr = value._data if isinstance(value, Tensor) else np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{owner}: {what} must hold integers (int32 or int64), got {arr.dtype}")
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim == 2 and arr.shape[1:] == (1,) else arr
        if arr.ndim != 1:
            raise ValueError(f"{owner}: {what} must be 1-D, got shape {list(arr.shape)}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{owner}: {what} holds a negative index {int(arr.min())}")
    return arr.astype(np.int64, copy=False)


def _tensor(x: Any, owner: str, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{owner}: {name} must have at least one dimension (its rows)")
    return x


def _reduce_rows(m: Tensor, ids: np.ndarray, rows: int, op: str, owner: str) -> Tensor:
    """out[r] = op over the rows i of m with ids[i] == r (0 where there is none)."""
    if op not in _REDUCE_OPS:
        raise ValueError(f"{owner}: reduce_op must be 'sum', 'mean', 'max' or 'min', got "
                         f"{op!r}")
    if ids.size and ids.max() >= rows:
        raise ValueError(f"{owner}: index {int(ids.max())} is out of range for {rows} output "
                         "rows")
    feat = list(m.shape[1:])
    if op in ("sum", "mean"):
        out = index_add(zeros([rows] + feat, m.dtype), Tensor._make(ids), 0, m)
        if op == "sum":
            return out
        count = np.bincount(ids, minlength=rows).astype(m._data.dtype)
        return out / Tensor._make(np.maximum(count, 1).reshape([rows] + [1] * len(feat)))
    return take_along_axis(concat([m, zeros([1] + feat, m.dtype)]),
                           Tensor._make(_winners(m._data, ids, rows, op == "max")), 0)


def _winners(values: np.ndarray, ids: np.ndarray, rows: int, largest: bool) -> np.ndarray:
    """Per output row and feature, the first row of `values` holding its max (min), or
    len(values) (the zero row after them) for an output row that receives nothing."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    order = np.argsort(ids, kind="stable")
    win = np.full((rows, flat.shape[1]), n, np.int64)
    starts = np.searchsorted(ids[order], np.arange(rows + 1))
    for r in range(rows):
        members = order[starts[r]:starts[r + 1]]
        if members.size:
            block = flat[members]
            pick = np.argmax(block, axis=0) if largest else np.argmin(block, axis=0)
            win[r] = members[pick]
    return win.reshape((rows,) + values.shape[1:])


def _out_rows(out_size: Any, default: int, owner: str) -> int:
    if out_size is None:
        return default
    size = int(out_size.item() if isinstance(out_size, Tensor) else out_size)
    return default if size <= 0 else size


def _message(x: Tensor, y: Tensor, op: str, owner: str) -> Tensor:
    """x op y per edge, their feature dims broadcast (right-aligned) after the edge dim."""
    if op not in _MESSAGE_OPS:
        raise ValueError(f"{owner}: message_op must be 'add', 'sub', 'mul' or 'div', got "
                         f"{op!r}")
    nx, ny = x.ndim - 1, y.ndim - 1
    if nx < ny:
        x = reshape(x, [x.shape[0]] + [1] * (ny - nx) + list(x.shape[1:]))
    elif ny < nx:
        y = reshape(y, [y.shape[0]] + [1] * (nx - ny) + list(y.shape[1:]))
    return {"add": E.add, "sub": E.subtract, "mul": E.multiply, "div": E.divide}[op](x, y)


def send_u_recv(x: Tensor, src_index: Any, dst_index: Any, reduce_op: str = "sum",
                out_size: Any = None, name: str | None = None) -> Tensor:
    """out[d] = reduce over the edges e with dst_index[e] == d of x[src_index[e]]; out has
    out_size rows (x's row count when None or <= 0)."""
    owner = "send_u_recv"
    x = _tensor(x, owner, "x")
    src, dst = _edges(src_index, dst_index, owner)
    return _reduce_rows(index_select(x, Tensor._make(src)), dst,
                        _out_rows(out_size, x.shape[0], owner), reduce_op, owner)


def send_ue_recv(x: Tensor, y: Tensor, src_index: Any, dst_index: Any,
                 message_op: str = "add", reduce_op: str = "sum", out_size: Any = None,
                 name: str | None = None) -> Tensor:
    """send_u_recv of the edge messages x[src_index[e]] message_op y[e]."""
    owner = "send_ue_recv"
    x, y = _tensor(x, owner, "x"), _tensor(y, owner, "y")
    src, dst = _edges(src_index, dst_index, owner)
    if y.shape[0] != src.size:
        raise ValueError(f"send_ue_recv: y needs one row per edge ({src.size}), got shape "
                         f"{y.shape}")
    m = _message(index_select(x, Tensor._make(src)), y, message_op, owner)
    return _reduce_rows(m, dst, _out_rows(out_size, x.shape[0], owner), reduce_op, owner)


def send_uv(x: Tensor, y: Tensor, src_index: Any, dst_index: Any, message_op: str = "add",
            name: str | None = None) -> Tensor:
    """The edge messages x[src_index[e]] message_op y[dst_index[e]], one row per edge."""
    owner = "send_uv"
    x, y = _tensor(x, owner, "x"), _tensor(y, owner, "y")
    src, dst = _edges(src_index, dst_index, owner)
    for t, idx, what in ((x, src, "src_index"), (y, dst, "dst_index")):
        if idx.size and idx.max() >= t.shape[0]:
            raise ValueError(f"send_uv: {what} holds {int(idx.max())}, out of range for "
                             f"{t.shape[0]} rows")
    return _message(index_select(x, Tensor._make(src)), index_select(y, Tensor._make(dst)),
                    message_op, owner)


def _edges(src_index: Any, dst_index: Any, owner: str) -> tuple[np.ndarray, np.ndarray]:
    kinds = [(i._data if isinstance(i, Tensor) else np.asarray(i)).dtype
             for i in (src_index, dst_index)]
    src, dst = _index(src_index, "src_index", owner), _index(dst_index, "dst_index", owner)
    if kinds[0] != kinds[1]:
        raise TypeError(f"{owner}: src_index and dst_index must have the same dtype (both "
                        f"int32 or both int64), got {kinds[0]} and {kinds[1]}")
    if src.size != dst.size:
        raise ValueError(f"{owner}: src_index and dst_index must have the same length, got "
                         f"{src.size} and {dst.size}")
    return src, dst


def _segment(data: Tensor, segment_ids: Any, op: str) -> Tensor:
    owner = f"segment_{op}"
    data = _tensor(data, owner, "data")
    ids = _index(segment_ids, "segment_ids", owner)
    if ids.size != data.shape[0]:
        raise ValueError(f"{owner}: segment_ids needs one id per row of data "
                         f"({data.shape[0]}), got {ids.size}")
    if ids.size > 1 and (np.diff(ids) < 0).any():
        raise ValueError(f"{owner}: segment_ids must be sorted, got {ids.tolist()[:10]}")
    return _reduce_rows(data, ids, int(ids[-1]) + 1 if ids.size else 0, op, owner)


def segment_sum(data: Tensor, segment_ids: Any, name: str | None = None) -> Tensor:
    """out[s] = sum of the rows of data with segment id s (sorted ids; max id + 1 rows)."""
    return _segment(data, segment_ids, "sum")


def segment_mean(data: Tensor, segment_ids: Any, name: str | None = None) -> Tensor:
    """out[s] = mean of the rows of data with segment id s (0 for an empty segment)."""
    return _segment(data, segment_ids, "mean")


def segment_max(data: Tensor, segment_ids: Any, name: str | None = None) -> Tensor:
    """out[s] = elementwise max of the rows of data with segment id s (0 when empty)."""
    return _segment(data, segment_ids, "max")


def segment_min(data: Tensor, segment_ids: Any, name: str | None = None) -> Tensor:
    """out[s] = elementwise min of the rows of data with segment id s (0 when empty)."""
    return _segment(data, segment_ids, "min")


def reindex_graph(x: Any, neighbors: Any, count: Any, value_buffer: Any = None,
                  index_buffer: Any = None, name: str | None = None
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """Renumber a sampled subgraph from 0: (reindex_src, reindex_dst, out_nodes). out_nodes
    is x, then each new node of neighbors in first-seen order; reindex_src the neighbors'
    new numbers; reindex_dst x's new number (its position) repeated count times."""
    return reindex_heter_graph(x, [neighbors], [count], value_buffer, index_buffer)


def reindex_heter_graph(x: Any, neighbors: Sequence[Any], count: Sequence[Any],
                        value_buffer: Any = None, index_buffer: Any = None,
                        name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """reindex_graph over several edge types: their neighbors and destinations concatenated,
    numbered together."""
    owner = "reindex_graph"
    nodes = _index(x, "x", owner)
    if len(neighbors) != len(count):
        raise ValueError(f"{owner}: neighbors and count must be lists of the same length")
    dtype = (x._data if isinstance(x, Tensor) else np.asarray(x)).dtype
    number: dict[int, int] = {}
    for v in nodes.tolist():
        number.setdefault(v, len(number))
    srcs, dsts = [], []
    for nb, cnt in zip(neighbors, count):
        nb, cnt = _index(nb, "neighbors", owner), _index(cnt, "count", owner)
        if cnt.size != nodes.size or cnt.sum() != nb.size:
            raise ValueError(f"{owner}: count must give each of the {nodes.size} nodes its "
                             f"number of neighbors (summing to {nb.size}), got {cnt.tolist()}")
        srcs.append([number.setdefault(v, len(number)) for v in nb.tolist()])
        dsts.append(np.repeat(np.arange(nodes.size), cnt))
    out_nodes = np.fromiter(number.keys(), np.int64, len(number))
    return (Tensor._make(np.concatenate([np.asarray(s, np.int64) for s in srcs]).astype(dtype)),
            Tensor._make(np.concatenate(dsts).astype(dtype)),
            Tensor._make(out_nodes.astype(dtype)))
