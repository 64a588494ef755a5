"""nn.Layer: the container Paddle models subclass (parameters, sublayers, train/eval)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterator, Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .initializer import Constant, Initializer, ParamAttr, XavierUniform


class Parameter(Tensor):
    """A leaf tensor that needs a gradient and belongs to a Layer."""

    __slots__ = ("trainable",)

    def __str__(self) -> str:
        return "Parameter containing:\n" + super().__str__()

    __repr__ = __str__


def create_parameter(shape: Sequence[int], dtype: Any = None, name: str | None = None,
                     attr: Any = None, is_bias: bool = False,
                     default_initializer: Initializer | None = None) -> Parameter:
    """A new Parameter: attr's initializer, else default_initializer, else Xavier (weights)
    or zeros (biases)."""
    dt = dtypes.default_float().np if dtype is None else dtypes.to_dtype(dtype).np
    init = attr.initializer if isinstance(attr, ParamAttr) and attr.initializer else \
        default_initializer or (Constant(0.0) if is_bias else XavierUniform())
    p = Parameter._make(np.array(init([int(s) for s in shape], dt), order="C"), False)
    p.trainable = not (isinstance(attr, ParamAttr) and not attr.trainable)
    if not p.trainable:
        p._stop_gradient = True
    if isinstance(attr, ParamAttr) and attr.name:
        p.name = attr.name
    elif name:
        p.name = name
    return p


class Layer:
    """Base class of models: assign Parameters and Layers as attributes and they are found
    by parameters(); __call__ runs forward()."""

    def __init__(self, name_scope: str | None = None, dtype: Any = "float32") -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)
        self._dtype = dtype

    # ---- registration ------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                               "before assigning attributes")
        for d in (self._parameters, self._sub_layers, self._buffers):
            d.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for d in (self._parameters, self._sub_layers, self._buffers):
            d.pop(name, None)
        object.__delattr__(self, name)

    def create_parameter(self, shape: Sequence[int], attr: Any = None, dtype: Any = None,
                         is_bias: bool = False,
                         default_initializer: Initializer | None = None) -> Parameter:
        return create_parameter(shape, dtype or self._dtype, None, attr, is_bias,
                                default_initializer)

    def add_parameter(self, name: str, parameter: Parameter) -> Parameter:
        setattr(self, name, parameter)
        return parameter

    def add_sublayer(self, name: str, sublayer: Layer) -> Layer:
        setattr(self, name, sublayer)
        return sublayer

    def register_buffer(self, name: str, tensor: Tensor, persistable: bool = True) -> None:
        object.__setattr__(self, name, tensor)
        self._buffers[name] = tensor

    # ---- traversal -----------------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False
                        ) -> Iterator[tuple[str, Layer]]:
        if include_self:
            yield prefix, self
        for name, layer in self._sub_layers.items():
            full = f"{prefix}.{name}" if prefix else name
            yield full, layer
            yield from layer.named_sublayers(full)

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def children(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def named_children(self) -> Iterator[tuple[str, Layer]]:
        return iter(self._sub_layers.items())

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True
                         ) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else \
            [(prefix, self)]
        for lp, layer in layers:
            for name, p in layer._parameters.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{lp}.{name}" if lp else name), p

    def parameters(self, include_sublayers: bool = True) -> list[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for lp, layer in self.named_sublayers(prefix, include_self=True):
            for name, b in layer._buffers.items():
                yield (f"{lp}.{name}" if lp else name), b

    # ---- modes and running ---------------------------------------------------------------
    def train(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if set_to_zero:
                p.clear_grad()
            else:
                p._grad = None

    # ---- state -------------------------------------------------------------------------
    def state_dict(self) -> OrderedDict:
        out: OrderedDict = OrderedDict(self.named_parameters())
        out.update(self.named_buffers())
        return out

    def set_state_dict(self, state: dict, use_structured_name: bool = True) -> tuple:
        from ..ops.inplace import set_value
        own = self.state_dict()
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        for k, t in own.items():
            if k in state:
                set_value(t, state[k])
        return missing, unexpected

    load_dict = set_state_dict

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, layer in self._sub_layers.items():
            sub = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({name}): {sub}")
        return "\n".join(lines) + ("\n)" if len(lines) > 1 else ")")
