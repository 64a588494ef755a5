"""Other names Paddle 3.x gives to ops jitgrad already has (clamp, sub, mul, div, cat, eq,
permute, swapaxes, ...): each is a thin call of the op it names, so gradients and dtype rules
are the original's. Extra arguments these spellings carry (sub's alpha, div's rounding_mode)
are handled here."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import elementwise as E
from . import search as S
from .creation import zeros, zeros_like
from .indexing import _axis, concat, flip
from .shape import flatten, transpose


def clamp(x: Tensor, min: Any = None, max: Any = None, name: str | None = None) -> Tensor:
    """clip under its other name."""
    return E.clip(x, min, max)


def sub(x: Any, y: Any, name: str | None = None, *, alpha: Any = 1) -> Tensor:
    """x - alpha * y."""
    return E.subtract(x, y if alpha == 1 else y * alpha)


def mul(x: Any, y: Any, name: str | None = None) -> Tensor:
    return E.multiply(x, y)


def div(x: Any, y: Any, name: str | None = None, *, rounding_mode: str | None = None
        ) -> Tensor:
    """x / y; rounding_mode 'trunc' or 'floor' rounds the quotient (no gradient then, as
    for Paddle's floor_divide)."""
    if rounding_mode is None:
        return E.divide(x, y)
    if rounding_mode == "floor":
        return S.floor_divide(x, y)
    if rounding_mode == "trunc":
        q = E.divide(x, y)
        data = np.trunc(q._data)
        xd = x._data if isinstance(x, Tensor) else np.asarray(x)
        if xd.dtype.kind in "iu":
            data = data.astype(xd.dtype)
        return Tensor._make(data)
    raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got "
                     f"{rounding_mode!r}")


def true_divide(input: Any, other: Any) -> Tensor:
    return E.divide(input, other)


def negative(x: Tensor, name: str | None = None) -> Tensor:
    return E.neg(x)


def positive(x: Tensor, name: str | None = None) -> Tensor:
    """x itself; bool tensors are refused, as in Paddle."""
    if x._data.dtype == np.bool_:
        raise TypeError("positive() does not take a bool tensor")
    return x


eq, ne = S.equal, S.not_equal
gt = greater = S.greater_than
ge = S.greater_equal
lt = less = S.less_than
le = S.less_equal


def permute(input: Tensor, *dims: Any) -> Tensor:
    """transpose: permute(x, [1, 0]) or permute(x, 1, 0)."""
    perm = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else list(dims)
    return transpose(input, list(perm))


def swapaxes(x: Tensor, perm: Any, *axis1: Any, name: str | None = None) -> Tensor:
    """Paddle 3.3.1's swapaxes and swapdims take a full permutation, as transpose does, or
    two axes to swap, as torch's (swapaxes(x, 0, 2))."""
    if not axis1:
        return transpose(x, list(perm))
    if len(axis1) != 1 or isinstance(axis1[0], str):
        raise TypeError("swapaxes: give a permutation or two axes")
    order = list(range(x.ndim))
    a, b = (_axis(int(v), x.ndim, "swapaxes") for v in (perm, axis1[0]))
    order[a], order[b] = order[b], order[a]
    return transpose(x, order)


swapdims = swapaxes


def matrix_transpose(x: Tensor, name: str | None = None) -> Tensor:
    """The last two dims swapped."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dims, got shape {x.shape}")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


def ravel(input: Tensor) -> Tensor:
    return flatten(input)


def cat(x: Sequence[Tensor], axis: Any = 0, name: str | None = None) -> Tensor:
    return concat(x, axis)


concatenate = cat


def reverse(x: Tensor, axis: Any, name: str | None = None) -> Tensor:
    return flip(x, axis)


def empty(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Zeros (Paddle leaves the values unset; zeros are one valid choice)."""
    return zeros(shape, dtype)


def empty_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return zeros_like(x, dtype)


NAMES = ["clamp", "sub", "mul", "div", "true_divide", "negative", "positive", "eq", "ne", "gt",
         "greater", "ge", "lt", "less", "le", "permute", "swapaxes", "swapdims",
         "matrix_transpose", "ravel", "cat", "concatenate", "reverse", "empty", "empty_like"]


def _cast_to(dtype: str):
    def method(x: Tensor) -> Tensor:
        return E.astype(x, dtype)
    method.__name__ = f"to_{dtype}"
    method.__doc__ = f"x.astype('{dtype}') (a Tensor method in Paddle 3.x)."
    return method


def _requires_grad_(x: Tensor, requires_grad: bool = True) -> Tensor:
    """Paddle 3.x's torch-style spelling of `x.stop_gradient = not requires_grad`."""
    x.stop_gradient = not requires_grad
    return x


def _view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> Tensor:
    """x.view(shape) is reshape; x.view(dtype) reinterprets the bytes (no gradient)."""
    if isinstance(shape_or_dtype, (list, tuple, Tensor)) or \
            isinstance(shape_or_dtype, (int, np.integer)):
        from .shape import reshape
        return reshape(x, shape_or_dtype)
    from ..core import dtypes
    return Tensor._make(x._data.view(dtypes.to_dtype(shape_or_dtype).np))


def _to(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """x.to('cpu'), x.to('float64'), x.to(other_tensor), x.to(device=..., dtype=...): a dtype
    casts; the CPU is the only device."""
    from ..core import dtypes
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    kwargs.pop("blocking", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument {next(iter(kwargs))!r}")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) and a.split(":")[0].lower() in ("cpu", "gpu", "cuda", "xpu"):
            device = a
        elif isinstance(a, bool):
            continue                                     # non_blocking / copy flags
        else:
            dtype = a
    if device is not None and str(device).split(":")[0].lower() not in ("cpu", "place(cpu)"):
        raise ValueError(f"to({device!r}): jitgrad runs on the CPU only")
    if dtype is None:
        return x
    return E.astype(x, dtypes.to_dtype(dtype).name)


def _cuda(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    raise ValueError("cuda(): no GPU here; jitgrad runs on the CPU only")


def _new(fill: Any):
    def method(x: Tensor, size: Any, *args: Any, dtype: Any = None) -> Tensor:
        value = args[0] if args else fill
        from .creation import full
        return full(size, value, x.dtype if dtype is None else dtype)
    return method


def _repeat(x: Tensor, *repeats: Any) -> Tensor:
    """x.repeat(2, 1) or x.repeat([2, 1]): tile (the torch-style name Paddle 3.x offers)."""
    from .indexing import tile
    reps = repeats[0] if len(repeats) == 1 and not isinstance(repeats[0], (int, np.integer)) \
        else list(repeats)
    return tile(x, reps)


METHODS = {"float": _cast_to("float32"), "double": _cast_to("float64"),
           "half": _cast_to("float16"), "int": _cast_to("int32"), "long": _cast_to("int64"),
           "bool": _cast_to("bool"), "requires_grad_": _requires_grad_,
           "ndimension": lambda x: x.ndim, "cpu": lambda x: x, "contiguous": lambda x: x,
           "is_contiguous": lambda x: True, "view": _view,
           "view_as": lambda x, other, name=None: _view(x, other.shape), "to": _to,
           "type_as": lambda x, other: E.astype(x, other.dtype.name), "cuda": _cuda,
           "new_zeros": _new(0), "new_ones": _new(1), "new_empty": _new(0),
           "new_full": _new(None), "element_size": lambda x: x._data.dtype.itemsize,
           "repeat": _repeat}
