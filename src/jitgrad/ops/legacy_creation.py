"""Creation functions Paddle keeps under paddle.tensor.* only: `paddle.tensor.fill_constant`
(paddle.tensor.creation / .manipulation) and `paddle.tensor.random.gaussian`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.places import to_place
from ..core.tensor import Tensor
from . import creation


def fill_constant(shape: Any, dtype: Any, value: Any, force_cpu: bool = False,
                  out: Tensor | None = None, place: Any = None, name: str | None = None
                  ) -> Tensor:
    """A tensor of `shape` filled with value cast to dtype (3.7 fills an int64 tensor with
    3, as Paddle); with out=, writes into out and returns it. place= must name the CPU."""
    if place is not None:
        to_place(place, "fill_constant(place=...)")
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"fill_constant: a Tensor value must have one element, got shape "
                             f"{list(value.shape)}")
        value = value._data.reshape(-1)[0]
    arr = np.full(creation._shape(shape), value).astype(creation._dt(dtype))
    if out is None:
        return creation._t(arr)
    if not isinstance(out, Tensor):
        raise TypeError(f"fill_constant: out must be a Tensor, got {type(out).__name__}")
    from .inplace import bump
    out._data = np.array(arr, order="C")
    bump(out)
    return out


def gaussian(shape: Any, mean: float = 0.0, std: float = 1.0, seed: int = 0, dtype: Any = None,
             name: str | None = None, *, out: Tensor | None = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """Samples of N(mean, std^2) of the given shape, from jitgrad's generator (paddle.seed),
    or from their own when seed is not 0."""
    if std < 0:
        raise ValueError(f"gaussian: std must be >= 0, got {std!r}")
    rng = np.random.default_rng(seed) if seed else creation.generator()
    t = creation._t(rng.normal(float(mean), float(std), creation._shape(shape))
                    .astype(creation._dt(dtype)))
    if requires_grad:
        t.stop_gradient = False
    return t if out is None else _write_out(out, t)


def _write_out(out: Tensor, t: Tensor) -> Tensor:
    from .inplace import bump
    if not isinstance(out, Tensor):
        raise TypeError(f"gaussian: out must be a Tensor, got {type(out).__name__}")
    out._data = t._data
    bump(out)
    return out


def _dtype_tensor_factory(name: str, dtype: str) -> type:
    """Paddle 3.3.1's legacy paddle.FloatTensor ... (tensor.creation.dtype_tensor_factory):
    a class whose call makes a tensor. FloatTensor() is empty (shape [0]); FloatTensor(data)
    of a list or tuple converts it to the dtype; FloatTensor(2, 3) is an uninitialised 2x3
    tensor (zeros here); a Tensor or numpy array keeps its own dtype (Paddle's
    Tensor(value, dtype=...) ignores dtype there). Not a type of tensors: isinstance(x,
    paddle.FloatTensor) is False, as in Paddle."""
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Tensor:
        if not args:
            return creation._t(np.zeros(0, creation._dt(dtype)))
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            from ..core.tensor import to_tensor
            return to_tensor(args[0], dtype)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return creation._t(np.zeros(creation._shape(list(args)), creation._dt(dtype)))
        if len(args) == 1 and isinstance(args[0], (Tensor, np.ndarray)):
            value = args[0]._data if isinstance(args[0], Tensor) else args[0]
            return creation._t(np.array(value, copy=True))
        raise ValueError(f"paddle.{name}: the first argument should be a list, a tuple, ints "
                         f"(a shape), a numpy array or a Tensor, got "
                         f"{', '.join(type(a).__name__ for a in args)} (as Paddle 3.3.1: "
                         "'the first argument should be PyArray or Tensor')")
    return type(name, (), {"__new__": __new__, "__doc__": f"paddle.{name}: tensors of "
                           f"dtype {dtype} (a legacy constructor, see _dtype_tensor_factory)",
                           "__module__": "jitgrad"})


TENSOR_FACTORIES = {name: _dtype_tensor_factory(name, dtype) for name, dtype in (
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
    ("LongTensor", "int64"), ("IntTensor", "int32"), ("ShortTensor", "int16"),
    ("CharTensor", "int8"), ("ByteTensor", "uint8"), ("BoolTensor", "bool"))}
