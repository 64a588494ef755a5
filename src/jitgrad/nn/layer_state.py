"""Layer.state_dict / set_state_dict, as Paddle 3.3.1 has them.

A state dict maps structured names (`fc.weight`) to the live parameters and persistable
buffers, layer by layer: a layer's own parameters, then its buffers, then each sublayer's.
set_state_dict skips (with a warning) keys it cannot find or whose shape differs, and returns
`(missing_keys, unexpected_keys)`; `use_structured_name=False` matches by tensor name
(`linear_0.w_0`) instead. Unlike Paddle 3.3.1 (an assertion after the earlier entries were
already written), a dtype mismatch raises TypeError before anything is loaded.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from ..core.tensor import Tensor


def collect(layer: Any, destination: OrderedDict, include_sublayers: bool, prefix: str,
            keep_vars: bool = True, use_hook: bool = False, non_persistable: bool = False
            ) -> OrderedDict:
    """With use_hook, each sublayer's state-dict hooks see the whole dict collected so far
    once that sublayer's entries are in (Paddle 3.3.1; what they return is not used, only
    their changes to the dict)."""
    for name, p in layer._parameters.items():
        if p is not None:
            destination[prefix + name] = p if keep_vars else p.detach()
    for name, b in layer._buffers.items():
        if b is not None and (non_persistable or
                              name not in layer._non_persistable_buffer_names_set):
            destination[prefix + name] = b if keep_vars else b.detach()
    if include_sublayers:
        for name, sub in layer._sub_layers.items():
            if sub is not None:
                collect(sub, destination, True, f"{prefix}{name}.", keep_vars, use_hook,
                        non_persistable)
                if use_hook:
                    for hook in list(sub._state_dict_hooks.values()):
                        hook(destination)
    return destination


def state_dict(layer: Any, destination: OrderedDict | None = None,
               include_sublayers: bool = True, structured_name_prefix: str = "",
               use_hook: bool = True, keep_vars: bool = True, *, prefix: str | None = None
               ) -> OrderedDict:
    """Paddle's arguments, and torch's `prefix=` (Paddle 3.3.1 accepts both)."""
    return _state_dict(layer, destination, include_sublayers,
                       structured_name_prefix if prefix is None else prefix, use_hook,
                       keep_vars, False)


def to_static_state_dict(layer: Any, destination: OrderedDict | None = None,
                         include_sublayers: bool = True, structured_name_prefix: str = "",
                         use_hook: bool = True, keep_vars: bool = True) -> OrderedDict:
    """state_dict with the non-persistable buffers too (Paddle's, for jit.save)."""
    return _state_dict(layer, destination, include_sublayers, structured_name_prefix,
                       use_hook, keep_vars, True)


def _state_dict(layer: Any, destination: OrderedDict | None, include_sublayers: bool,
                structured_name_prefix: str, use_hook: bool, keep_vars: bool,
                non_persistable: bool) -> OrderedDict:
    if not isinstance(structured_name_prefix, str):
        raise TypeError(f"state_dict: structured_name_prefix must be a str, got "
                        f"{type(structured_name_prefix).__name__}")
    out = collect(layer, OrderedDict() if destination is None else destination,
                  include_sublayers, structured_name_prefix, keep_vars, use_hook,
                  non_persistable)
    if use_hook:
        for hook in list(layer._state_dict_hooks.values()):
            result = hook(out)
            if result is not None:
                out = result
    return out


def _shape(value: Any) -> list[int] | None:
    shape = getattr(value, "shape", None)
    return None if shape is None else [int(s) for s in (shape() if callable(shape) else shape)]


def _dtype(value: Any) -> np.dtype:
    return value._data.dtype if isinstance(value, Tensor) else np.asarray(value).dtype


def set_state_dict(layer: Any, state_dict: Any, use_structured_name: bool = True
                   ) -> tuple[list[str], list[str]]:
    from ..ops.inplace import set_value
    if not hasattr(state_dict, "keys") or not hasattr(state_dict, "get"):
        raise TypeError(f"set_state_dict: state_dict must be a dict (name -> Tensor or numpy "
                        f"array), got {type(state_dict).__name__}")
    missing, matched, pairs = [], set(), []
    for key, own in collect(layer, OrderedDict(), True, "").items():
        look = key if use_structured_name else own.name
        value = state_dict.get(look, None)
        if value is None:
            missing.append(look)
            warnings.warn(f"Skip loading for {key}. {look} is not found in the provided dict.")
            continue
        shape = _shape(value)
        if shape is None:
            raise TypeError(f"set_state_dict: {look!r} holds a {type(value).__name__}, not a "
                            "Tensor or numpy array")
        if shape != list(own.shape):
            missing.append(look)
            warnings.warn(f"Skip loading for {key}. {look} receives a shape {shape}, but the "
                          f"expected shape is {list(own.shape)}.")
            continue
        if _dtype(value) != own._data.dtype:
            raise TypeError(f"set_state_dict: {look!r} is {np.dtype(_dtype(value)).name} but "
                            f"the layer's tensor is {own.dtype.name}; cast the checkpoint (or "
                            f"the layer, with layer.to(dtype=...)) first. Nothing was loaded.")
        matched.add(look)
        pairs.append((own, value))
    for own, value in pairs:
        set_value(own, value)
    unexpected = [k for k in state_dict.keys() if k not in matched]
    return missing, unexpected
