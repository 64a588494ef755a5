"""Tensor methods Paddle 3.3.1 has that are not ops: casts by dtype name (x.int64(),
x.byte()), predicates (is_dense, is_integer ...), memory layout (strides in elements,
data_ptr), apply / apply_, split_with_sizes. Bound as methods by ops/__init__.py (METHODS).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..core import compat, tape
from ..core.tensor import Tensor
from . import elementwise as E
from .indexing import split

# x.<name>() casts to the dtype of that name (byte is uint8, char int8, short int16)
_CASTS = {"byte": "uint8", "char": "int8", "short": "int16", "int8": "int8", "int16": "int16",
          "int32": "int32", "int64": "int64", "uint8": "uint8", "float16": "float16",
          "float32": "float32", "float64": "float64"}


def _cast_method(dtype: str) -> Callable[[Tensor], Tensor]:
    def method(x: Tensor) -> Tensor:
        return E.astype(x, dtype)
    method.__name__ = dtype
    method.__doc__ = f"x cast to {dtype} (differentiable between float dtypes)."
    return method


def _strides(x: Tensor) -> list[int]:
    """Strides in elements, of the tensor as Paddle lays it out (contiguous)."""
    shape = x._data.shape
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return out[::-1]


def _stride(x: Tensor, dim: Any = None) -> Any:
    """x.stride() the strides, x.stride(d) / x.stride(dim=d) dim d's (Paddle 3.3.1)."""
    strides = _strides(x)
    if dim is None:
        return strides
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"stride(dim): dim must be an int, got {type(dim).__name__}")
    if not -len(strides) <= dim < len(strides):
        raise IndexError(f"stride(dim): dim {dim} is out of range for a tensor of "
                         f"{len(strides)} dims")
    return strides[dim]


def is_same_shape(x: Tensor, y: Tensor) -> bool:
    return isinstance(y, Tensor) and x._data.shape == y._data.shape


def data_ptr(x: Tensor) -> int:
    """The address of x's first element (its buffer changes on an in-place write: copy on
    write)."""
    return int(x._data.__array_interface__["data"][0])


def apply(x: Tensor, func: Callable[[Tensor], Tensor]) -> Tensor:
    """func(x) on a tensor that needs no gradient, as Paddle (which refuses one that does)."""
    if not x._stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    return func(x)


def apply_(x: Tensor, func: Callable[[Tensor], Tensor]) -> Tensor:
    """x = func(x) in place (x must need no gradient)."""
    from .inplace import set_value
    new = apply(x, func)
    if not isinstance(new, Tensor):
        raise TypeError(f"apply_: func must return a Tensor, got {type(new).__name__}")
    return set_value(x, new)


def split_with_sizes(x: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    """x split along dim into pieces of the given sizes (they must add up to its length)."""
    if sum(split_sizes) != x.shape[dim]:
        raise ValueError(f"split_with_sizes: sizes {list(split_sizes)} add up to "
                         f"{sum(split_sizes)}, not dim {dim}'s length {x.shape[dim]}")
    return split(x, list(split_sizes), axis=dim)


def _false(x: Tensor) -> bool:
    return False


def conj(x: Tensor, name: str | None = None) -> Tensor:
    """The complex conjugate; jitgrad's tensors are real, so x's values (a copy that passes
    the gradient on, as Paddle's conj of a real tensor)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"conj expects a Tensor, got {type(x).__name__}")
    return E.clone(x) if x._data.dtype.kind == "f" else Tensor._make(x._data.copy())


def angle(x: Tensor, name: str | None = None) -> Tensor:
    """The argument of each element: for real x, pi where x < 0, else 0 (-0.0 included), NaN
    kept; its gradient is zero (Paddle 3.3.1, which takes float tensors only)."""
    if not isinstance(x, Tensor) or x._data.dtype.kind != "f":
        raise TypeError("angle expects a float Tensor (jitgrad has no complex dtypes)")
    d = x._data
    out = np.where(d < 0, np.pi, 0.0).astype(d.dtype)
    out[np.isnan(d)] = np.nan
    if x._stop_gradient:
        return Tensor._make(out)
    # x enters only as the branch where() never takes: its gradient is zeros, as Paddle's
    return E.where(np.zeros(d.shape, bool), x, Tensor._make(out))


METHODS: dict[str, Callable] = {name: _cast_method(dt) for name, dt in _CASTS.items()}
METHODS.update(
    is_dense=lambda x: True, is_sparse=_false, is_sparse_coo=_false, is_sparse_csr=_false,
    is_selected_rows=_false, is_dist=_false, is_same_shape=is_same_shape,
    get_strides=_strides, stride=_stride, data_ptr=data_ptr, get_device=lambda x: -1,
    value=lambda x: x, apply=apply, apply_=apply_, split_with_sizes=split_with_sizes,
    is_complex=compat.is_complex, is_integer=compat.is_integer, is_empty=compat.is_empty,
    conj=conj, angle=angle)


class GradFn:
    """What `y.grad_fn` shows of the node that made y (Paddle's GradNodeBase): its `name()`
    and `next_functions`, the nodes its gradient goes to, one per input (None for an input
    it does not reach). A leaf that needs a gradient has a `GradNodeAccumulation` node, as
    in Paddle 3.3.1, whose next_functions is [None]."""

    __slots__ = ("_leaf", "_node")

    def __init__(self, node: tape.Node | None, leaf: Tensor | None = None) -> None:
        self._node = node
        self._leaf = leaf

    def name(self) -> str:
        return "GradNodeAccumulation" if self._node is None else self._node.grad_name

    @property
    def next_functions(self) -> list[GradFn | None]:
        node = self._node
        if node is None:
            return [None]
        return [(GradFn(t._node) if t._node is not None else GradFn(None, t)) if need
                else None for t, need in zip(node.inputs, node.needs)]

    def _key(self) -> int:
        return id(self._node) if self._node is not None else id(self._leaf)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GradFn) and self._key() == other._key()

    def __hash__(self) -> int:
        return self._key()

    def __repr__(self) -> str:
        return f"<GradFn {self.name()}>"


def grad_fn(x: Tensor) -> Any:
    """x's grad node: the op that made it, a leaf's accumulation node when x needs a
    gradient, or None (a constant; Paddle 3.3.1 also gives to_tensor's constants one)."""
    if x._node is not None:
        return GradFn(x._node)
    return None if x._stop_gradient else GradFn(None, x)

