"""nn.Layer: the container Paddle models subclass (parameters, sublayers, train/eval).

Layers and parameters are named as Paddle names them (`linear_0`, `linear_0.w_0`; see
utils/unique_name.py). State dicts live in layer_state.py, casts in layer_cast.py, forward
hooks in layer_hooks.py.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..core import dtypes
from ..core.errors import LayerNameError
from ..core.tensor import Tensor
from ..utils import unique_name
from . import layer_cast, layer_hooks, layer_state
from .initializer import (Constant, Initializer, ParamAttr, XavierUniform, as_param_attr,
                          global_initializer)

_FIRST_CAP, _ALL_CAP = re.compile("(.)([A-Z][a-z]+)"), re.compile("([a-z])([A-Z])")


def _snake(name: str) -> str:
    """Paddle's layer name scope: BatchNorm1D -> batch_norm1d, MyNet -> my_net."""
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


class Parameter(Tensor):
    """A leaf tensor that needs a gradient and belongs to a Layer."""

    # optimize_attr, regularizer, need_clip: from ParamAttr, read by the optimizers
    __slots__ = ("need_clip", "optimize_attr", "regularizer", "_model_average")
    persistable = True          # (Paddle's: saved by a static program)
    is_distributed = False      # (Paddle's: split across devices; never here)

    @property
    def do_model_average(self) -> bool:
        """ParamAttr's flag (True unless it said otherwise), kept for code reading it."""
        return getattr(self, "_model_average", True)

    @do_model_average.setter
    def do_model_average(self, value: bool) -> None:
        self._model_average = bool(value)

    @property
    def trainable(self) -> bool:
        """not stop_gradient, as in Paddle 3.3.1: setting either sets the other (a frozen
        parameter, `p.trainable = False`, gets no gradient at all)."""
        return not self._stop_gradient

    @trainable.setter
    def trainable(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"trainable must be True or False, got {value!r}")
        self.stop_gradient = not value

    def initialize(self) -> None:
        """Paddle runs the initializer LazyGuard delayed; jitgrad's LazyGuard initialises at
        once, so there is nothing left to do (the values stand)."""

    def _set_grad_ivar(self, value: Tensor) -> None:
        """Paddle's private `p.grad = value` (Tensor's refuses: Parameters only)."""
        self.grad = value

    def __str__(self) -> str:
        return "Parameter containing:\n" + super().__str__()

    __repr__ = __str__


def create_parameter(shape: Sequence[int], dtype: Any = None, name: str | None = None,
                     attr: Any = None, is_bias: bool = False,
                     default_initializer: Initializer | None = None) -> Parameter | None:
    """A new Parameter: attr's initializer, else default_initializer, else Xavier (weights)
    or zeros (biases). Named attr.name, else name, else `create_parameter_<n>.w_0` (Paddle's
    name for a parameter made outside a Layer). attr=False: no parameter (None), as in
    Paddle, where `bias_attr=False` means none."""
    attr = as_param_attr(attr)
    if attr is False:
        return None
    dt = dtypes.default_float().np if dtype is None else dtypes.to_dtype(dtype).np
    init = attr.initializer if isinstance(attr, ParamAttr) and attr.initializer else \
        global_initializer(is_bias) or default_initializer or \
        (Constant(0.0) if is_bias else XavierUniform())
    p = Parameter._make(np.array(init([int(s) for s in shape], dt), order="C"), False)
    p.trainable = not (isinstance(attr, ParamAttr) and not attr.trainable)
    own = attr if isinstance(attr, ParamAttr) else ParamAttr()
    p.optimize_attr = {"learning_rate": own.learning_rate}
    p.regularizer, p.need_clip = own.regularizer, own.need_clip
    p.do_model_average = own.do_model_average
    if isinstance(attr, ParamAttr) and attr.name:
        p.name = attr.name
    elif name:
        p.name = name
    else:
        scope = unique_name.generate("create_parameter")
        p.name = unique_name.generate(f"{scope}.{'b' if is_bias else 'w'}")
    return p


class Layer:
    """Base class of models: assign Parameters and Layers as attributes and they are found
    by parameters(); __call__ runs forward()."""

    def __init__(self, name_scope: str | None = None, dtype: Any = "float32") -> None:
        state = {"_parameters": OrderedDict(), "_sub_layers": OrderedDict(),
                 "_buffers": OrderedDict(), "_non_persistable_buffer_names_set": set(),
                 "training": True, "_dtype": dtype,
                 "_full_name": unique_name.generate(name_scope or _snake(type(self).__name__)),
                 "_forward_pre_hooks": OrderedDict(), "_forward_post_hooks": OrderedDict(),
                 "_forward_hooks_with_kwargs": OrderedDict(),
                 "_forward_post_hooks_always_called": OrderedDict(),
                 "_forward_hooks_any": OrderedDict(),
                 "_state_dict_hooks": OrderedDict()}
        for key, value in state.items():
            object.__setattr__(self, key, value)

    def full_name(self) -> str:
        """This layer's unique name (`linear_0`): its parameters are `<full_name>.w_0`..."""
        return self._full_name

    # ---- registration ------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                               "before assigning attributes")
        # Paddle 3.3.1's rules: a plain Tensor becomes a non-persistable buffer (so
        # named_buffers() and to(dtype=...) see it; register_buffer makes persistable ones),
        # a buffer stays one (keeping its persistable flag), and a parameter or sublayer
        # slot takes only its own kind or None
        kind = Parameter if name in self._parameters else \
            Layer if name in self._sub_layers else Tensor if name in self._buffers else None
        allowed = (Parameter,) if kind is Parameter else (Layer, Parameter) if kind is Layer \
            else (Tensor, Layer)
        if kind is not None and value is not None and not isinstance(value, allowed):
            what = {Parameter: "parameter", Layer: "sublayer", Tensor: "buffers"}[kind]
            raise TypeError(f"assignment to {what} '{name}' should be of type "
                            f"{'Tensor' if kind is Tensor else kind.__name__} or None, but got "
                            f"'{type(value).__name__}'")
        # the dict value goes to; a replaced entry keeps its place in it (Paddle's order:
        # `seq[0] = layer` or `model.fc = Linear(...)` stays where it was)
        home = self._parameters if isinstance(value, Parameter) else \
            self._sub_layers if isinstance(value, Layer) else \
            self._buffers if isinstance(value, Tensor) or kind is Tensor else None
        for d in (self._parameters, self._sub_layers, self._buffers):
            if d is not home:
                d.pop(name, None)
        if home is not None:
            if home is self._buffers and name not in home:
                self._non_persistable_buffer_names_set.add(name)
            elif home is not self._buffers:
                self._non_persistable_buffer_names_set.discard(name)
            home[name] = value
        else:
            self._non_persistable_buffer_names_set.discard(name)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: an entry code put straight into
        # _parameters / _sub_layers / _buffers (`self._sub_layers['fc'] = layer`, as Paddle's
        # own containers do) is an attribute too, as in Paddle
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        found = False
        for d in (self._parameters, self._sub_layers, self._buffers):
            found = d.pop(name, self) is not self or found
        self._non_persistable_buffer_names_set.discard(name)
        if not found or name in self.__dict__:
            object.__delattr__(self, name)

    def create_parameter(self, shape: Sequence[int], attr: Any = None, dtype: Any = None,
                         is_bias: bool = False,
                         default_initializer: Initializer | None = None) -> Parameter | None:
        """A parameter of this layer (see create_parameter). Without a dtype it takes the
        default dtype of the time (set_default_dtype), as Paddle 3.3.1 does, unless the layer
        was made with another dtype than float32, whose dtype it then takes."""
        attr = as_param_attr(attr)
        name = None if isinstance(attr, ParamAttr) and attr.name else \
            unique_name.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        if dtype is None and dtypes.to_dtype(self._dtype).np != np.float32:
            dtype = self._dtype
        return create_parameter(shape, dtype, name, attr, is_bias, default_initializer)

    def _free_name(self, name: str, store: dict, what: str) -> None:
        """Paddle 3.3.1's checks before add_parameter / register_buffer: a str, not empty,
        no '.', and not an attribute of another kind (`training`, a parameter's name for a
        buffer): replacing one silently would untrain a parameter or break the layer."""
        if not isinstance(name, str):
            raise TypeError(f"The name of {what} should be a string, but received "
                            f"{type(name).__name__}")
        if not name or "." in name:
            raise LayerNameError(f"The name of {what} must be a non-empty str without '.', "
                             f"got {name!r}")
        if name not in store and hasattr(self, name):
            raise LayerNameError(f"{type(self).__name__} already has an attribute {name!r}; "
                             f"delete it first (del layer.{name}) to make it a {what}")

    def add_parameter(self, name: str, parameter: Parameter | None) -> Parameter | None:
        self._free_name(name, self._parameters, "parameter")
        if parameter is None:                   # (Paddle's placeholder; reads back as None)
            object.__setattr__(self, name, None)
            return None
        if not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: the parameter to be added should be a Parameter "
                            f"(create_parameter), but received {type(parameter).__name__}")
        setattr(self, name, parameter)
        return parameter

    def add_sublayer(self, name: str, sublayer: Layer) -> Layer:
        if not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer: {name!r} must be a Layer, got "
                            f"{type(sublayer).__name__}")
        setattr(self, name, sublayer)
        return sublayer

    def register_buffer(self, name: str, tensor: Tensor | None, persistable: bool = True
                        ) -> None:
        """A tensor saved with the layer (unless persistable=False) but not trained."""
        self._free_name(name, self._buffers, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: the buffer {name!r} must be a Tensor or None, "
                            f"got {type(tensor).__name__}")
        for d in (self._parameters, self._sub_layers):
            d.pop(name, None)
        object.__setattr__(self, name, tensor)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    # ---- traversal -----------------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False,
                        layers_set: set | None = None, remove_duplicate: bool = True
                        ) -> Iterator[tuple[str, Layer]]:
        """Every sublayer once, under its first name (a layer registered twice, as in
        weight tying, is listed once: Paddle's layers_set); remove_duplicate=False lists it
        under every name."""
        seen = set() if layers_set is None else layers_set
        if include_self and (id(self) not in seen or not remove_duplicate):
            seen.add(id(self))
            yield prefix, self
        for name, layer in self._sub_layers.items():
            if layer is not None and (id(layer) not in seen or not remove_duplicate):
                yield from layer.named_sublayers(f"{prefix}.{name}" if prefix else name,
                                                 True, seen, remove_duplicate)

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def children(self) -> Iterator[Layer]:
        return (layer for _, layer in self.named_children())

    def named_children(self) -> Iterator[tuple[str, Layer]]:
        seen: set[int] = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def _named_tensors(self, store: str, prefix: str, include_sublayers: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Tensor]]:
        """(name, tensor) of each layer's `store` dict; a tensor reached twice (shared
        between layers or names) once, under its first name, unless remove_duplicate is
        False (Paddle 3.3.1)."""
        seen: set[int] = set()
        layers = self.named_sublayers(prefix, include_self=True,
                                      remove_duplicate=remove_duplicate) \
            if include_sublayers else [(prefix, self)]
        for lp, layer in layers:
            for name, t in getattr(layer, store).items():
                if t is not None and (id(t) not in seen or not remove_duplicate):
                    seen.add(id(t))
                    yield (f"{lp}.{name}" if lp else name), t

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        return self._named_tensors("_parameters", prefix, include_sublayers, remove_duplicate)

    def parameters(self, include_sublayers: bool = True) -> list[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_tensors("_buffers", prefix, include_sublayers, remove_duplicate)

    def buffers(self, include_sublayers: bool = True) -> list[Tensor]:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn: Callable[[Layer], Any]) -> Layer:
        """fn(layer) for every sublayer, then for self (Paddle's order)."""
        for layer in self._sub_layers.values():
            layer.apply(fn)
        fn(self)
        return self

    # ---- modes and running ---------------------------------------------------------------
    def train(self, mode: bool = True) -> Layer:
        """Training mode for this layer and every sublayer; `train(False)` (Paddle 3.3.1's
        torch-style argument) is evaluation mode."""
        if not isinstance(mode, (bool, np.bool_)):
            raise ValueError(f"training mode is expected to be boolean, got {mode!r}")
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", bool(mode))
        return self

    def eval(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_hooks_any:
            return layer_hooks.call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> layer_hooks.HookRemoveHelper:
        """hook(layer, args) before forward; a non-None result replaces args (see
        layer_hooks.py). Returns a handle whose remove() unregisters it."""
        return layer_hooks.register_pre(self, hook, prepend, with_kwargs)

    def register_forward_post_hook(self, hook: Callable, *, prepend: bool = False,
                                   with_kwargs: bool = False, always_call: bool = False
                                   ) -> layer_hooks.HookRemoveHelper:
        """hook(layer, args, output) after forward; a non-None result replaces the output."""
        return layer_hooks.register_post(self, hook, prepend, with_kwargs, always_call)

    register_forward_hook = register_forward_post_hook

    def register_state_dict_hook(self, hook: Callable) -> layer_hooks.HookRemoveHelper:
        """hook(state_dict) after state_dict() collects; a non-None result replaces it."""
        handle = layer_hooks.HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._hook_id] = hook
        return handle

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if set_to_zero:
                p.clear_grad()
            else:
                p._grad = None

    # ---- state and dtype (layer_state.py, layer_cast.py) -----------------------------------
    state_dict = layer_state.state_dict
    to_static_state_dict = layer_state.to_static_state_dict
    set_state_dict = layer_state.set_state_dict
    set_dict = load_dict = set_state_dict
    to = layer_cast.to
    astype = layer_cast.astype
    type = layer_cast.type_
    float = layer_cast.float_
    double = layer_cast.double
    half = float16 = layer_cast.half

    def cpu(self) -> Layer:
        return self

    def cuda(self, device: Any = None) -> Layer:
        """Refused: no GPU (Paddle 3.3.1's CPU build raises ValueError too)."""
        raise ValueError(f"{type(self).__name__}.cuda(): no GPU here; jitgrad runs on the "
                         "CPU only (the layer already is on the CPU)")

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        """Paddle's: Name(extra_repr, then one indented '(name): repr' line per sublayer; a
        multi-line extra_repr goes on its own indented lines)."""
        extra = self.extra_repr().split("\n")
        subs = [f"({name}): " + repr(layer).replace("\n", "\n  ")
                for name, layer in self._sub_layers.items()]
        out = type(self).__name__ + "("
        out += "\n  " + "\n  ".join(extra) + "\n" if len(extra) > 1 else extra[0]
        if subs:
            out += "\n  " + "\n  ".join(subs) + "\n"
        return out + ")"
