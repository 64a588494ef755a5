"""Layer.to / astype / type / float / double / half: cast a Layer's tensors in place.

Each parameter stays the same Tensor object (an optimizer holding it keeps working); its
values, its gradient and the buffers get the new dtype, as Paddle 3.3.1's `to(dtype=...)`
does. Where 3.3.1 contradicts its docs jitgrad follows the docs: `astype` casts the
parameters and buffers (3.3.1 only records the dtype), and `float`/`double`/`half` cast only
floating-point tensors (3.3.1's `double`/`half` also turn integer buffers into floats).
Trainable parameters cannot become integers (jitgrad's integer tensors never need grads).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core import dtypes
from ..core.places import to_place
from ..core.tensor import Tensor

_VALID = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")


def _target(dtype: Any, where: str) -> dtypes.DType:
    if isinstance(dtype, dtypes.DType):
        return dtype
    if isinstance(dtype, (str, np.dtype, type)):
        try:
            return dtypes.to_dtype(dtype)
        except TypeError:
            pass
    raise ValueError(f"{where}: dtype must be one of {', '.join(_VALID)} (or a paddle/numpy "
                     f"dtype), got {dtype!r}")


def _cast_tensor(t: Tensor, dt: np.dtype) -> None:
    from ..ops.inplace import bump
    if t._data.dtype == dt:
        return
    t._data = t._data.astype(dt)
    if t._grad is not None:
        t._grad = t._grad.astype(dt)
    bump(t)                       # graphs recorded with the old values cannot be replayed


def cast(layer: Any, dtype: Any, floating_only: bool, include_sublayers: bool,
         where: str) -> Any:
    dt = _target(dtype, where).np
    layers = layer.sublayers(include_self=True) if include_sublayers else [layer]
    tensors = [(p, True) for lay in layers for p in lay._parameters.values() if p is not None]
    tensors += [(b, False) for lay in layers for b in lay._buffers.values() if b is not None]
    if dt.kind != "f":
        bad = [p.name or "a parameter" for p, is_param in tensors
               if is_param and not p._stop_gradient]
        if bad:
            raise TypeError(f"{where}: cannot cast trainable parameters ({', '.join(bad[:3])}) "
                            f"to {np.dtype(dt).name}: integer tensors cannot require "
                            "gradients in jitgrad")
    for t, _ in tensors:
        if not floating_only or t._data.dtype.kind == "f":
            _cast_tensor(t, dt)
    for lay in layers:
        lay._dtype = dtypes.from_numpy(dt).name
    return layer


def to(layer: Any, device: Any = None, dtype: Any = None, blocking: bool | None = None,
       non_blocking: bool | None = None) -> Any:
    """Layer.to(device=None, dtype=None): every parameter, gradient and buffer to dtype."""
    to_place(device, "Layer.to")        # (None: the CPU)
    for key, flag in (("blocking", blocking), ("non_blocking", non_blocking)):
        if flag is not None and not isinstance(flag, bool):
            raise TypeError(f"Layer.to: {key} must be True, False or None, got {flag!r}")
    if dtype is None:
        return layer
    return cast(layer, dtype, False, True, "Layer.to")


def astype(layer: Any, dtype: Any = None) -> Any:
    """Every parameter and buffer to dtype (Paddle's docs; 3.3.1 leaves them unchanged)."""
    return cast(layer, dtype, False, True, "Layer.astype")


def type_(layer: Any, dst_type: Any) -> Any:
    return cast(layer, dst_type, False, True, "Layer.type")


def _floating(layer: Any, dtype: str, excluded_layers: Any, where: str) -> Any:
    if excluded_layers is None:
        excluded = []
    elif isinstance(excluded_layers, type):
        excluded = [excluded_layers]
    elif isinstance(excluded_layers, (list, tuple)):
        excluded = list(excluded_layers)
    else:
        raise TypeError(f"{where}: excluded_layers should be a Layer class or a list of them, "
                        f"got {type(excluded_layers).__name__}")
    for lay in layer.sublayers(include_self=True):
        if type(lay) not in excluded:
            cast(lay, dtype, True, False, where)
    return layer


def float_(layer: Any, excluded_layers: Sequence[type] | type | None = None) -> Any:
    return _floating(layer, "float32", excluded_layers, "Layer.float")


def double(layer: Any) -> Any:
    return _floating(layer, "float64", None, "Layer.double")


def half(layer: Any) -> Any:
    return _floating(layer, "float16", None, "Layer.half")
