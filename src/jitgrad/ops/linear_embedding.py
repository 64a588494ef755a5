"""linear, dropout, embedding, one_hot (paddle.nn.functional.common), as composites."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import creation
from ..core.param_aliases import UNSET, input_x
from .core import (FLOAT16, apply_xy, call_in_float32, checks_own_tensor_args, const,
                   require_float, tensor_arg_error)
from .linalg import matmul
from .indexing import _index_array
from .shape import fresh, take_flat_op


@checks_own_tensor_args
def linear(x: Tensor = UNSET, weight: Tensor = UNSET, bias: Tensor | None = None,
           name: str | None = None, *, input: Tensor = UNSET) -> Tensor:
    """x @ weight + bias, with Paddle's weight layout [in_features, out_features]. A float16
    x: computed in float32 and rounded once (core.call_in_float32). Its arguments are
    checked and torch's input= read here, without a wrapper's call layer: every
    nn.Linear calls it."""
    if input is not UNSET or x is UNSET:
        x = input_x("linear", x, input)
    if weight is UNSET:
        raise TypeError("linear() missing 1 required positional argument: 'weight'")
    if isinstance(x, Tensor) and x._data.dtype is FLOAT16:
        return call_in_float32(linear, {"x": x, "weight": weight, "bias": bias})
    try:
        y = matmul(x, weight)           # (numpy arrays too, as matmul takes them)
    except (AttributeError, TypeError, ValueError):
        for arg, v in (("x", x), ("weight", weight)):
            if not isinstance(v, (Tensor, np.ndarray)):
                raise tensor_arg_error("linear", arg, v) from None
        raise
    if bias is None:
        return y
    try:
        return y + bias
    except ValueError:      # (numpy's 'operands could not be broadcast together ...')
        raise ValueError(f"linear: bias of shape {list(getattr(bias, 'shape', []))} does not "
                         f"fit weight {list(weight.shape)} (expected [{weight.shape[-1]}])"
                         ) from None


def dropout(x: Tensor, p: float = 0.5, axis: Any = None, training: bool = True,
            inplace: bool = False, mode: str = "upscale_in_train",
            name: str | None = None) -> Tensor:
    """Zero each element with probability p (masks drawn from paddle.seed's generator).
    upscale_in_train scales kept values by 1/(1-p) in training and is the identity in eval;
    downscale_in_infer keeps them as they are in training and scales by (1-p) in eval.
    inplace: the result is written into x (Paddle's argument order)."""
    if inplace:
        from .inplace import inplace as write_into
        return write_into(x, lambda s: dropout(s, p, axis, training, False, mode), "dropout_")
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout: unknown mode {mode!r}")
    require_float(x, "dropout")
    if p == 0:
        return x
    if not training:
        if mode == "upscale_in_train":
            # Paddle 3.3.1: its dropout kernel's new tensor; with an axis (dropout2d) x
            return fresh(x) if axis is None else x
        return x * (1.0 - p)
    shape = list(x.shape)
    if axis is not None:
        axes = [axis] if isinstance(axis, int) else list(axis)
        for a in axes:      # (the modulo below would wrap an axis out of range)
            if not -x.ndim <= a < x.ndim:
                raise ValueError(f"dropout: axis {a} is out of range for {x.ndim} dims")
        shape = [s if i in [a % x.ndim for a in axes] else 1 for i, s in enumerate(shape)]
    keep = creation.generator().random(shape) >= p
    scale = 1.0 / (1.0 - p) if mode == "upscale_in_train" and p < 1 else 1.0
    return x * const(keep * scale, x._data.dtype)


@functools.lru_cache(maxsize=16)
def _columns(d: int) -> np.ndarray:
    """0..d-1, read-only and shared (an embedding row's flat offsets)."""
    a = np.arange(d)
    a.setflags(write=False)
    return a


_ROW_TABLE_MAX = 1 << 18        # a weight's elements up to which its position table is kept
_INT64 = np.dtype(np.int64)     # (a dtype compares with a dtype in half the time of a type)


@functools.lru_cache(maxsize=8)
def _row_positions(n: int, d: int) -> np.ndarray:
    """The flat position of each element of an (n, d) weight, read-only and shared. Its
    rows taken by the ids are the lookup's gather table in one numpy call that also checks
    the ids' bounds and wraps negative ones (as numpy's indexing): ~1 us where the
    min/max checks and ids * d + columns cost ~5. take() copies: no one gets a view of it."""
    t = np.arange(n * d, dtype=np.int64).reshape(n, d)
    t.setflags(write=False)
    return t


def _table_rows(x: Any, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a weight w whose position table is kept: the flat positions and the values of
    the rows the ids in x pick, each by one take (the general path's positions and values).
    Int64 ids are not copied: nothing keeps or writes them, the takes make new arrays."""
    ids = np.asarray(x._data if isinstance(x, Tensor) else x)
    if ids.dtype != _INT64:
        ids = _index_array(ids, "embedding")
    n, d = w.shape
    try:
        positions = _row_positions(n, d).take(ids, axis=0)
    except IndexError:
        raise IndexError(f"embedding: ids must lie in [0, {n}) (a negative id counts from "
                             f"the end, down to -{n})") from None
    return positions, w.take(ids, axis=0)


def _zero_padding(out: Tensor, keep: np.ndarray) -> Tensor:
    """out where `keep` (the looked-up id is not the padding one), else 0: a select, so the
    padding row gets 0 and no gradient whatever its values or the upstream gradient (an
    inf or NaN there gives 0, not NaN, as in Paddle 3.3.1)."""
    from .elementwise import where
    return where(keep, out, const(np.zeros((), out._data.dtype), out._data.dtype))


def embedding(x: Any, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0, sparse: bool = False,
              scale_grad_by_freq: bool = False, name: str | None = None) -> Tensor:
    """Rows of weight picked by the integer ids in x; the padding row gets no gradient.
    max_norm: the rows looked up are first scaled in place to a norm_type-norm of at most
    max_norm (Paddle's and torch's renorm, by max_norm / (norm + 1e-7)); scale_grad_by_freq:
    each row's gradient is divided by how often its id occurs in x."""
    w = weight._data
    if padding_idx is not None and not -w.shape[0] <= padding_idx < w.shape[0]:
        raise ValueError(f"embedding: padding_idx must be within [-{w.shape[0]}, "
                         f"{w.shape[0]}), got {padding_idx}")   # (else it wraps: a real row)
    if max_norm is None and not scale_grad_by_freq and w.ndim == 2 and \
            0 < w.size <= _ROW_TABLE_MAX:
        positions, rows = _table_rows(x, w)
        # (apply_xy called here, not in a helper: its call-site check looks one frame up,
        # at the user's code, and skips walking the stack)
        out = apply_xy(take_flat_op, weight, None,
                       {"idx": positions.reshape(-1), "shape": positions.shape}, out=rows)
        if padding_idx is None:
            return out
        n, d = w.shape
        # a row's first position is its wrapped id * d: the general path's ids != padding
        keep = positions[..., :1] != (padding_idx % n) * d
        return _zero_padding(out, keep)
    ids = _index_array(x, "embedding")
    n, d = weight.shape
    if ids.size:
        lo = ids.min()
        if lo < -n or ids.max() >= n:
            raise IndexError(f"embedding: ids must lie in [0, {n}) (a negative id counts from "
                             f"the end, down to -{n})")
        if lo < 0:
            ids = ids % n
    if max_norm is not None:
        _renorm_rows(weight, np.unique(ids), float(max_norm), float(norm_type))
    positions = ids[..., None] * d + _columns(d)
    # one take_flat node; its values picked as whole rows (faster than by flat position)
    out = apply_xy(take_flat_op, weight, None,
                   {"idx": positions.reshape(-1), "shape": positions.shape},
                   out=weight._data[ids])
    if padding_idx is not None:
        out = _zero_padding(out, (ids != padding_idx % n)[..., None])
    if scale_grad_by_freq and not out._stop_gradient:
        counts = np.bincount(ids.ravel(), minlength=n)[ids][..., None]
        # value exactly out's (out - out is 0), gradient divided by each id's count
        frozen = const(out._data, weight._data.dtype)
        out = frozen + (out - frozen) * const(1.0 / counts, weight._data.dtype)
    return out


def _renorm_rows(weight: Tensor, rows: np.ndarray, max_norm: float, p: float) -> None:
    """weight[rows] scaled in place to a p-norm of at most max_norm (no gradient), in
    weight's dtype as Paddle 3.3.1 computes it (a float32 row [3, 4] renormed to 1 is
    [0.6000000238, 0.8]: 5 + 1e-7 rounds to 5 in float32)."""
    from .inplace import set_value
    w = weight._data
    dt = w.dtype.type
    norms = np.linalg.norm(w[rows], ord=p, axis=1).astype(w.dtype)
    big = norms > max_norm
    if big.any():
        new = w.copy()
        scale = dt(max_norm) / (norms[big] + dt(1e-7))
        new[rows[big]] = (w[rows[big]] * scale[:, None]).astype(w.dtype)
        set_value(weight, new)


def embedding_renorm_(x: Any, weight: Tensor, max_norm: float, norm_type: float = 2.0
                      ) -> Tensor:
    """The rows of weight [n, d] that the ids in x pick, scaled in place to a
    norm_type-norm of at most max_norm (by max_norm / (norm + 1e-7)): embedding(max_norm=)'s
    renorm on its own (Paddle 3.3.1's nn.functional.embedding_renorm_, run without
    recording a gradient, so a leaf weight that needs one is changed too). Returns weight."""
    from ..core.grad_mode import no_grad
    if not isinstance(weight, Tensor):
        raise TypeError(f"embedding_renorm_: weight must be a Tensor, got "
                        f"{type(weight).__name__}")
    if weight.ndim != 2:
        raise ValueError(f"embedding_renorm_: weight must be 2-D [num_embeddings, dim], got "
                         f"shape {list(weight.shape)}")
    if isinstance(x, Tensor) and x._data.dtype.kind not in "iu":
        raise ValueError(f"embedding_renorm_: x must hold int32 or int64 ids, got {x.dtype}")
    ids = _index_array(x, "embedding_renorm_")
    n = weight.shape[0]
    if ids.size and (ids.min() < -n or ids.max() >= n):
        raise ValueError(f"embedding_renorm_: ids must lie in [-{n}, {n}), got ids from "
                         f"{int(ids.min())} to {int(ids.max())}")
    with no_grad():
        _renorm_rows(weight, np.unique(ids % n if ids.size else ids), float(max_norm),
                     float(norm_type))
    return weight


def one_hot(x: Any, num_classes: int = -1, name: str | None = None) -> Tensor:
    """float32 rows of the identity picked by x; num_classes -1: x's largest id + 1
    (Paddle 3.3.1's default)."""
    ids = _index_array(x, "one_hot")
    if int(num_classes) == -1:
        num_classes = int(ids.max()) + 1 if ids.size else 0
    n = int(num_classes)
    if ids.size and ids.min() < 0:          # (numpy would wrap a negative id)
        _one_hot_range_error(ids, n)
    try:
        return Tensor._make(_eye32(n)[ids])     # (fancy indexing copies: the eye stays)
    except IndexError:                      # (an id >= n)
        _one_hot_range_error(ids, n)


@functools.lru_cache(maxsize=16)
def _eye32(n: int) -> np.ndarray:
    """one_hot's rows, made once per class count (np.eye cost ~1 us a call, about what
    the range check of the ids added), read-only and shared."""
    e = np.eye(n, dtype=np.float32)
    e.setflags(write=False)
    return e


def _one_hot_range_error(ids: np.ndarray, n: int) -> None:
    raise ValueError(f"one_hot: ids must lie in [0, num_classes={n}), got ids from "
                     f"{int(ids.min())} to {int(ids.max())}")
