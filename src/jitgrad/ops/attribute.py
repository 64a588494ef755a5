"""Paddle names ported code uses for shapes and copies: shape, rank, assign, mm, scale."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import tape
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor, to_tensor
from .elementwise import clone
from .linalg import matmul


def _check(x: Any, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}(): input must be a Tensor, got {type(x).__name__}")


def shape(input: Tensor) -> Tensor:
    """The shape as a 1-D int64 Tensor (Paddle 3's paddle.shape; `x.shape` is a list)."""
    _check(input, "shape")
    return Tensor._make(np.asarray(input._data.shape, dtype=np.int64))


def rank(input: Tensor) -> Tensor:
    """The number of dimensions as a 0-d int32 Tensor (paddle.rank)."""
    _check(input, "rank")
    return Tensor._make(np.asarray(input._data.ndim, dtype=np.int32))


def mm(input: Tensor, mat2: Tensor, name: str | None = None) -> Tensor:
    """Matrix product without transposes (paddle.mm): matmul(input, mat2)."""
    return matmul(input, mat2)


def scale(x: Tensor, scale: Any = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: Any = None, name: str | None = None) -> Tensor:
    """x * scale + bias (or (x + bias) * scale); differentiable in x (and a Tensor scale).
    An integer or bool x keeps its dtype, scale and bias truncated to integers first, as
    Paddle 3.3.1's kernel (scale(int [1, 2, 3], 2.7, -1.7) is [1, 3, 5])."""
    if act is not None:
        raise NotImplementedError("scale(act=...) is not supported; apply the activation "
                                  "to the result")
    if isinstance(x, Tensor):
        d = x._data
        if d.dtype.kind in "biu":
            return _int_scale(x, scale, bias, bias_after_scale)
        if (x._stop_gradient or not _MODE.grad_enabled) and (d.dtype is _F32 or d.dtype is _F64) \
                and type(scale) in _NUMBERS and type(bias) in _NUMBERS:
            # nothing to record (scale_ under no_grad, a constant): the two numpy steps the
            # ops below run, without their Tensors (~2.3 us of x.scale_'s ~10)
            return Tensor._make(d * scale + bias if bias_after_scale else (d + bias) * scale)
    return x * scale + bias if bias_after_scale else (x + bias) * scale


_MODE = tape.MODE
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_NUMBERS = (int, float)


def _int_scale(x: Tensor, scale: Any, bias: Any, bias_after_scale: bool) -> Tensor:
    s, b = (int(float(v._data) if isinstance(v, Tensor) else float(v)) for v in (scale, bias))
    d = x._data.astype(np.int64)
    out = d * s + b if bias_after_scale else (d + b) * s
    return Tensor._make(out.astype(x._data.dtype))


def _holds_tensor(x: Any) -> bool:
    return any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v))
               for v in x)


def assign(x: Any, output: Tensor | None = None) -> Tensor:
    """A copy of x (a Tensor, numpy array, list or number); a Tensor's copy carries its
    gradient (Paddle's assign_grad is the identity). With `output`, x is written into it in
    place, output taking x's shape and dtype too (as Paddle), and output is returned."""
    if isinstance(x, Tensor):
        src = clone(x)
    elif isinstance(x, np.ndarray) or (isinstance(x, (list, tuple)) and _holds_tensor(x)):
        src = to_tensor(x)
    else:   # as Paddle 3.3.1: numpy's dtype (float64 for floats), a number as shape [1]
        src = to_tensor(np.array([x] if np.isscalar(x) else x))
    if output is None:
        return src
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor, got {type(output).__name__}")
    if output._node is None and not output._stop_gradient and tape.is_grad_enabled():
        # a leaf that needs a gradient (a parameter's initial values, a weight copy), which
        # Paddle 3.3.1 lets assign write: a constant x leaves it a leaf with x's values; an x
        # that needs a gradient makes it x's copy in the graph (no longer a leaf)
        if src._stop_gradient:
            with no_grad():
                return _assign_into(src, output)
        output._stop_gradient = True
        try:
            return _assign_into(src, output)
        finally:
            output._stop_gradient = src._stop_gradient
    return _assign_into(src, output)


def _assign_into(src: Tensor, output: Tensor) -> Tensor:
    if src._data.shape == output._data.shape and src._data.dtype == output._data.dtype:
        from .inplace import inplace
        return inplace(output, lambda _: src, "assign")
    from .inplace_more import become  # output takes x's shape and dtype, as in Paddle
    return become(output, lambda _: src, "assign")
