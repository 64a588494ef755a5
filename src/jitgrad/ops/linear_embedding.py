"""linear, dropout, embedding, one_hot (paddle.nn.functional.common), as composites."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import creation
from .core import apply_xy, const, require_float
from .linalg import matmul
from .indexing import _index_array
from .shape import take_flat_op


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None
           ) -> Tensor:
    """x @ weight + bias, with Paddle's weight layout [in_features, out_features]."""
    y = matmul(x, weight)
    return y if bias is None else y + bias


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
    if not training:
        return x if mode == "upscale_in_train" else x * (1.0 - p)
    if p == 0:
        return x
    shape = list(x.shape)
    if axis is not None:
        axes = [axis] if isinstance(axis, int) else list(axis)
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


def embedding(x: Any, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0, sparse: bool = False,
              scale_grad_by_freq: bool = False, name: str | None = None) -> Tensor:
    """Rows of weight picked by the integer ids in x; the padding row gets no gradient.
    max_norm: the rows looked up are first scaled in place to a norm_type-norm of at most
    max_norm (Paddle's and torch's renorm, by max_norm / (norm + 1e-7)); scale_grad_by_freq:
    each row's gradient is divided by how often its id occurs in x."""
    ids = _index_array(x, "embedding")
    n, d = weight.shape
    if ids.size:
        lo = ids.min()
        if lo < -n or ids.max() >= n:
            raise IndexError(f"embedding: ids must lie in [0, {n})")
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
        out = out * const((ids != padding_idx % n)[..., None], weight._data.dtype)
    if scale_grad_by_freq and not out._stop_gradient:
        counts = np.bincount(ids.ravel(), minlength=n)[ids][..., None]
        # value exactly out's (out - out is 0), gradient divided by each id's count
        frozen = const(out._data, weight._data.dtype)
        out = frozen + (out - frozen) * const(1.0 / counts, weight._data.dtype)
    return out


def _renorm_rows(weight: Tensor, rows: np.ndarray, max_norm: float, p: float) -> None:
    """weight[rows] scaled in place to a p-norm of at most max_norm (no gradient)."""
    from .inplace import set_value
    w = weight._data
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=p, axis=1)
    big = norms > max_norm
    if big.any():
        new = w.copy()
        new[rows[big]] = (w[rows[big]] * (max_norm / (norms[big] + 1e-7))[:, None]).astype(
            w.dtype)
        set_value(weight, new)


def one_hot(x: Any, num_classes: int, name: str | None = None) -> Tensor:
    ids = _index_array(x, "one_hot")
    return Tensor._make(np.eye(int(num_classes), dtype=np.float32)[ids])
