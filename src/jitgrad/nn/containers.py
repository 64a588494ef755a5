"""nn.ParameterList, nn.ParameterDict and nn.LayerDict: containers whose entries are found by parameters(),
state_dict() and the optimizers, keyed as Paddle keys them ('0', '1', ... and the dict keys).

Unlike Paddle 3.3.1 (KeyError '-1'), a ParameterList takes negative indices, and a missing
index raises IndexError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable, Iterator

from ..core.tensor import Tensor
from .layer import Layer, Parameter


class ParameterList(Layer):
    """A list of Parameters registered under '0', '1', ..."""

    def __init__(self, parameters: Iterable[Parameter] | None = None) -> None:
        super().__init__()
        for param in parameters or []:
            self.append(param)

    def _key(self, idx: int) -> str:
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise TypeError(f"ParameterList indices must be integers, got {type(idx).__name__}")
        n = len(self._parameters)
        if not -n <= idx < n:
            raise IndexError(f"ParameterList index {idx} is out of range for {n} parameters")
        return str(idx % n)

    def __getitem__(self, idx: int) -> Parameter:
        return self._parameters[self._key(idx)]

    def __setitem__(self, idx: int, param: Tensor) -> None:
        """Copies param's values into the parameter at idx (Paddle's paddle.assign), so an
        optimizer holding that parameter keeps training it."""
        from ..ops.inplace import bump
        if not isinstance(param, Tensor):
            raise TypeError(f"ParameterList: param should be a Parameter or Tensor, got "
                            f"{type(param).__name__}")
        own = self[idx]
        own._data = param._data.copy()
        bump(own)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(list(self._parameters.values()))

    def append(self, parameter: Parameter) -> ParameterList:
        if not isinstance(parameter, Parameter):
            raise TypeError(f"ParameterList: the parameter to be added should be a Parameter "
                            f"(paddle.create_parameter), got {type(parameter).__name__}")
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers: LayerDict({'a': Linear(2, 2)}) or from (key, layer)
    pairs."""

    def __init__(self, sublayers: Mapping[str, Layer] | Iterable[tuple[str, Layer]] | None
                 = None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        return self._sub_layers[key]

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key: str) -> None:
        if key not in self._sub_layers:
            raise KeyError(key)
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._sub_layers))

    def __contains__(self, key: object) -> bool:
        return key in self._sub_layers

    def clear(self) -> None:
        for key in list(self._sub_layers):
            delattr(self, key)

    def pop(self, key: str) -> Layer:
        layer = self[key]
        del self[key]
        return layer

    def keys(self) -> Any:
        return self._sub_layers.keys()

    def items(self) -> Any:
        return self._sub_layers.items()

    def values(self) -> Any:
        return self._sub_layers.values()

    def update(self, sublayers: Mapping[str, Layer] | Iterable[tuple[str, Layer]]) -> None:
        if isinstance(sublayers, (Mapping, LayerDict)):
            pairs = list(sublayers.items())
        elif isinstance(sublayers, Iterable):
            pairs = list(sublayers)
            for i, kv in enumerate(pairs):
                if not isinstance(kv, (tuple, list)) or len(kv) != 2:
                    raise ValueError(f"LayerDict.update: element {i} of sublayers must be a "
                                     f"(key, layer) pair, got {kv!r}")
        else:
            raise TypeError(f"LayerDict: sublayers must be a dict or an iterable of "
                            f"(key, layer) pairs, got {type(sublayers).__name__}")
        for key, layer in pairs:
            self.add_sublayer(key, layer)


class ParameterDict(Layer):
    """Parameters by name, registered as the layer's own (named '<key>'); Paddle 3.3.1's
    methods: indexing, `in`, len, iteration over the names, update."""

    def __init__(self, parameters: Mapping[str, Parameter] | Iterable[tuple[str, Parameter]]
                 | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, parameter: Parameter) -> None:
        if not isinstance(parameter, Parameter):
            raise TypeError(f"ParameterDict: the value for {key!r} should be a Parameter "
                            f"(paddle.create_parameter), got {type(parameter).__name__}")
        self.add_parameter(str(key), parameter)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._parameters))

    def __contains__(self, key: object) -> bool:
        return key in self._parameters

    def update(self, parameters: Mapping[str, Parameter] | Iterable[tuple[str, Parameter]]
               ) -> None:
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, parameter in items:
            self[key] = parameter
