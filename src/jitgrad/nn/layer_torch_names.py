"""The torch-style Layer methods Paddle 3.3.1 has beside its own (modules, named_modules,
get_submodule, load_state_dict, requires_grad_, zero_grad ...), as forms of the Paddle
ones, bound onto Layer by nn/__init__.py."""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any, Iterator, Mapping

from ..core.tensor import Tensor
from .layer import Layer, Parameter

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def modules(self: Layer) -> Iterator[Layer]:
    """This layer and every sublayer, depth first."""
    return iter(self.sublayers(include_self=True))


def named_modules(self: Layer, memo: Any = None, prefix: str = "",
                  remove_duplicate: bool = True) -> Iterator[tuple[str, Layer]]:
    """(name, layer) for this layer ('' or prefix) and every sublayer."""
    return iter(self.named_sublayers(prefix=prefix, include_self=True))


def add_module(self: Layer, name: str, module: Layer | None) -> None:
    if module is None:
        object.__setattr__(self, name, None)
        return
    self.add_sublayer(name, module)


def register_parameter(self: Layer, name: str, param: Parameter | None) -> None:
    if param is None:
        object.__setattr__(self, name, None)
        return
    self.add_parameter(name, param)


def _walk(self: Layer, target: str, what: str) -> tuple[Layer, str]:
    """The layer holding the last part of a dotted target, and that part."""
    *path, last = target.split(".") if target else [""]
    layer = self
    for part in path:
        sub = layer._sub_layers.get(part)
        if sub is None:
            raise AttributeError(f"{type(layer).__name__} has no sublayer {part!r} "
                                 f"(looking for {what} {target!r})")
        layer = sub
    return layer, last


def get_submodule(self: Layer, target: str) -> Layer:
    if target == "":
        return self
    layer, last = _walk(self, target, "sublayer")
    sub = layer._sub_layers.get(last)
    if sub is None:
        raise AttributeError(f"{type(layer).__name__} has no sublayer {last!r}")
    return sub


def set_submodule(self: Layer, target: str, layer: Layer, strict: bool = False) -> None:
    holder, last = _walk(self, target, "sublayer")
    if strict and last not in holder._sub_layers:
        raise AttributeError(f"{type(holder).__name__} has no sublayer {last!r} to replace")
    holder.add_sublayer(last, layer)


def get_parameter(self: Layer, target: str) -> Parameter:
    layer, last = _walk(self, target, "parameter")
    p = layer._parameters.get(last)
    if p is None:
        raise AttributeError(f"{type(layer).__name__} has no parameter {last!r}")
    return p


def get_buffer(self: Layer, target: str) -> Tensor:
    layer, last = _walk(self, target, "buffer")
    if last not in layer._buffers:
        raise AttributeError(f"{type(layer).__name__} has no buffer {last!r}")
    return layer._buffers[last]


def load_state_dict(self: Layer, state_dict: Mapping[str, Any], strict: bool = True,
                    assign: bool = False) -> IncompatibleKeys:
    """set_state_dict, torch's way: strict raises RuntimeError naming missing and unexpected
    keys (Paddle 3.3.1's message), else returns them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        missing, unexpected = self.set_state_dict(state_dict)
    if strict and (missing or unexpected):
        msgs = []
        if missing:
            msgs.append("Missing key(s) in state_dict: "
                        + ", ".join(f'"{k}"' for k in missing) + ". ")
        if unexpected:
            msgs.append("Unexpected key(s) in state_dict: "
                        + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                           + "\n\t".join(msgs))
    return IncompatibleKeys(missing, unexpected)


def requires_grad_(self: Layer, requires_grad: bool = True) -> Layer:
    """Every parameter's stop_gradient set to not requires_grad; returns the layer."""
    for p in self.parameters():
        p.stop_gradient = not requires_grad
    return self


def zero_grad(self: Layer, set_to_none: bool = True) -> None:
    """Drop (set_to_none) or zero every parameter's gradient."""
    self.clear_gradients(set_to_zero=not set_to_none)


METHODS = {"modules": modules, "named_modules": named_modules, "add_module": add_module,
           "register_module": add_module, "register_parameter": register_parameter,
           "get_submodule": get_submodule, "get_sublayer": get_submodule,
           "set_submodule": set_submodule, "set_sublayer": set_submodule,
           "get_parameter": get_parameter, "get_buffer": get_buffer,
           "load_state_dict": load_state_dict, "requires_grad_": requires_grad_,
           "zero_grad": zero_grad}
