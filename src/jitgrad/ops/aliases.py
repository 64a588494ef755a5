"""Other names Paddle 3.x gives to ops jitgrad already has (clamp, sub, mul, div, cat, eq,
permute, swapaxes, ...): each is a thin call of the op it names, so gradients and dtype rules
are the original's. Extra arguments these spellings carry (sub's alpha, div's rounding_mode)
are handled here."""

from __future__ import annotations

import copy as _copy
from typing import Any, Sequence

import numpy as np

from ..core.dtypes import DType, to_dtype
from ..core.places import is_dtype_name, to_place
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


def permute(input: Tensor, *perm: Any, dims: Any = None) -> Tensor:
    """transpose: permute(x, [1, 0]), permute(x, 1, 0) or permute(x, dims=[1, 0])."""
    if dims is not None:
        if perm:
            raise TypeError("permute(): give the axes by position or as dims=, not both")
        perm = (dims,)
    perm = perm[0] if len(perm) == 1 and isinstance(perm[0], (list, tuple)) else list(perm)
    return transpose(input, list(perm))


def swapaxes(x: Tensor, perm: Any = None, *second: Any, name: str | None = None,
             axis0: Any = None, axis1: Any = None, dim0: Any = None,
             dim1: Any = None) -> Tensor:
    """Paddle 3.3.1's swapaxes and swapdims take a full permutation, as transpose does, or
    two axes to swap, as torch's (swapaxes(x, 0, 2), swapaxes(x, axis0=0, axis1=2),
    swapdims(x, dim0=0, dim1=2))."""
    pairs = [p for p in ((axis0, axis1), (dim0, dim1)) if p != (None, None)]
    if pairs:
        if len(pairs) > 1 or None in pairs[0] or perm is not None or second:
            raise TypeError("swapaxes(): give a permutation or two axes (axis0= and axis1=, "
                            "or dim0= and dim1=)")
        perm, second = pairs[0][0], (pairs[0][1],)
    if not second:
        if perm is None:
            raise TypeError("swapaxes(): give a permutation or two axes")
        return transpose(x, list(perm))
    if len(second) != 1 or isinstance(second[0], str):
        raise TypeError("swapaxes: give a permutation or two axes")
    order = list(range(x.ndim))
    a, b = (_axis(int(v), x.ndim, "swapaxes") for v in (perm, second[0]))
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


def _view(x: Tensor, shape_or_dtype: Any = None, *more: Any, name: str | None = None,
          size: Any = None, dtype: Any = None) -> Tensor:
    """x.view(shape) is reshape; x.view(dtype) reinterprets the bytes (no gradient). As
    Paddle 3.3.1's view_decorator: x.view(4, -1) (the shape's ints), x.view(size=[4, -1]),
    x.view(dtype='int32'); a second argument that is not an int is the name."""
    if more or size is not None or dtype is not None:
        shape_or_dtype = _view_request(shape_or_dtype, more, size, dtype)
    if isinstance(shape_or_dtype, (list, tuple, Tensor)) or \
            isinstance(shape_or_dtype, (int, np.integer)):
        from .shape import reshape
        return reshape(x, shape_or_dtype)
    from ..core import dtypes
    return Tensor._make(x._data.view(dtypes.to_dtype(shape_or_dtype).np))


def _view_request(first: Any, more: tuple, size: Any, dtype: Any) -> Any:
    """The shape or dtype x.view was given in its torch-style forms (see _view)."""
    given = [v for v in (size, dtype) if v is not None]
    if len(given) > 1 or (given and first is not None):
        raise TypeError("view(): give one shape or dtype (positional, size= or dtype=)")
    if given:
        if more:
            raise TypeError("view(): too many arguments")
        return given[0]
    if all(isinstance(v, (int, np.integer)) for v in (first, *more)):
        return [first, *more]
    if len(more) == 1:          # view(shape, name)
        return first
    raise TypeError(f"view(): a shape by position must be ints, got {(first, *more)}")


_TO_KEYWORDS = frozenset(("device", "dtype", "blocking", "other"))


def _to_arguments(args: tuple, kwargs: dict) -> tuple[Any, Any]:
    """(device, dtype) of x.to(...), read as Paddle 3.3.1 reads them: x.to(dtype[, blocking]),
    x.to(device[, dtype[, blocking]]), x.to(other[, blocking]) or by keyword (device,
    dtype, blocking, other); a first argument is a dtype if it is a dtype object or a dtype
    name, else a device (x.to('float') and x.to(np.float32) are devices, and raise)."""
    if not 1 <= len(args) + len(kwargs) <= 3:
        raise TypeError("to() takes 1 to 3 arguments: to(dtype, blocking), "
                        "to(device, dtype, blocking) or to(other_tensor, blocking)")
    unknown = set(kwargs) - _TO_KEYWORDS
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    if not args:
        device, dtype = kwargs.get("device"), kwargs.get("dtype")
        other = kwargs.get("other")
        if device is None and dtype is None and other is not None:
            return other.place, other.dtype
        return device, dtype
    first = args[0]
    if isinstance(first, Tensor):
        return first.place, first.dtype          # (a second argument is blocking)
    if isinstance(first, (DType, np.dtype)) or is_dtype_name(first):
        return None, first
    dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
    return first, dtype


def _to(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """x.to('cpu'), x.to('float64'), x.to(other_tensor), x.to(device=..., dtype=...),
    non_blocking= and copy= too (Paddle 3.3.1's rules: _to_arguments). A device must be the
    CPU (core/places.py); a dtype casts, unless it is x's own paddle dtype (then x itself
    is returned, as Paddle: a dtype name or numpy dtype always makes a new tensor);
    copy=True returns a copy when nothing else did."""
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    device, dtype = _to_arguments(args, kwargs)
    if device is not None:
        to_place(device, "Tensor.to")
    if dtype is not None and not (isinstance(dtype, DType) and dtype == x.dtype):
        name = dtype.lower() if isinstance(dtype, str) else dtype
        return E.astype(x, to_dtype(name).name)
    return _copy.deepcopy(x) if copy else x


def _cuda(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    raise ValueError("cuda(): no GPU here; jitgrad runs on the CPU only")


def _pin_memory(x: Tensor, blocking: bool = True) -> Tensor:
    """Refused, as by Paddle 3.3.1's CPU build (RuntimeError: no CUDA pinned memory)."""
    raise RuntimeError("pin_memory(): jitgrad has no pinned memory, it runs on the CPU only "
                       "(as Paddle's CPU build: 'Cannot use CUDAPinnedPlace in CPU only "
                       "version'); leave the tensor where it is")


def _new(fill: Any):
    """x.new_zeros / new_ones / new_empty: the size as a list or the ints themselves
    (x.new_zeros(2, 3), as Paddle 3.3.1; jitgrad read the 3 as the fill value)."""
    def method(x: Tensor, size: Any, *more: Any, dtype: Any = None) -> Tensor:
        if more:
            if not all(isinstance(v, (int, np.integer)) for v in (size, *more)):
                raise TypeError(f"new_*(): the size by position must be ints, got "
                                f"{(size, *more)}")
            size = [size, *more]
        from .creation import full
        return full(size, fill, x.dtype if dtype is None else dtype)
    return method


def _new_full(x: Tensor, size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """x.new_full(size, fill_value): a tensor of x's dtype (or dtype) filled with it."""
    from .creation import full
    return full(size, fill_value, x.dtype if dtype is None else dtype)


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
           "pin_memory": _pin_memory,
           "new_zeros": _new(0), "new_ones": _new(1), "new_empty": _new(0),
           "new_full": _new_full, "element_size": lambda x: x._data.dtype.itemsize,
           "repeat": _repeat}
