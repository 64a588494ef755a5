"""Recurrent cells (paddle.nn.SimpleRNNCell, LSTMCell, GRUCell): one step, as composites.

Parameters are Paddle's: weight_ih [G*H, input_size], weight_hh [G*H, H], bias_ih and
bias_hh [G*H], all drawn from Uniform(-1/sqrt(H), 1/sqrt(H)); gates in Paddle's order (LSTM
i, f, g, o; GRU r, z, c with the reset gate applied after the recurrent matmul). An attr of
False gives a constant instead (weights 1, biases 0) that takes no gradient, as in Paddle.
Whole sequences of these cells run as one fused op (ops/recurrent.py) in nn.rnn.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import ops
from ..core.dtypes import get_default_dtype
from ..ops import creation
from ..core.tensor import Tensor
from .initializer import Constant, Uniform
from .layer import Layer


def _is_shape(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(s, int) for s in v)


def _map_shapes(fn, shapes: Any) -> Any:
    if _is_shape(shapes):
        return fn(list(shapes))
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


class RNNCellBase(Layer):
    """Base of the cells: `get_initial_states` builds zero (or init_value) states shaped by
    `state_shape`, with the batch size read from a reference tensor."""

    def get_initial_states(self, batch_ref: Any, shape: Any = None, dtype: Any = None,
                           init_value: float = 0.0, batch_dim_idx: int = 0) -> Any:
        while isinstance(batch_ref, (list, tuple)):
            batch_ref = batch_ref[0]
        batch = batch_ref.shape[batch_dim_idx]
        dtype = dtype or get_default_dtype()        # (Paddle's: not the input's dtype)

        def make(s: list) -> Tensor:
            s = s[1:] if s and s[0] == -1 else s
            return creation.full([batch] + s, init_value, dtype)
        return _map_shapes(make, self.state_shape if shape is None else shape)

    @property
    def state_shape(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define state_shape to make "
                                  "its initial states")

    @property
    def state_dtype(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define state_dtype")


def _check_sizes(cls: str, input_size: int, hidden_size: int) -> None:
    if hidden_size <= 0:
        raise ValueError(f"hidden_size of {cls} must be greater than 0, but now equals to "
                         f"{hidden_size}")
    if input_size <= 0:
        raise ValueError(f"input_size of {cls} must be greater than 0, got {input_size}")


def _make_params(cell: Layer, gates: int, input_size: int, hidden_size: int, hh_cols: int,
                 attrs: Sequence[Any]) -> None:
    """weight_ih, weight_hh, bias_ih, bias_hh with Paddle's shapes and initializers."""
    std = 1.0 / math.sqrt(hidden_size)
    shapes = ([gates * hidden_size, input_size], [gates * hidden_size, hh_cols],
              [gates * hidden_size], [gates * hidden_size])
    for name, shape, attr in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"), shapes,
                                 attrs):
        bias = name.startswith("bias")
        if attr is False:
            p = cell.create_parameter(shape, None, is_bias=bias,
                                      default_initializer=Constant(0.0 if bias else 1.0))
            p.stop_gradient = True
        else:
            p = cell.create_parameter(shape, attr, is_bias=bias,
                                      default_initializer=Uniform(-std, std))
        setattr(cell, name, p)


def _project(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    return ops.matmul(x, weight, transpose_y=True) + bias


class SimpleRNNCell(RNNCellBase):
    """h' = act(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh), act tanh or relu; returns (h', h')."""

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None,
                 bias_ih_attr: Any = None, bias_hh_attr: Any = None, name: str | None = None
                 ) -> None:
        super().__init__(dtype=get_default_dtype())
        _check_sizes(type(self).__name__, input_size, hidden_size)
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        _make_params(self, 1, input_size, hidden_size, hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.input_size, self.hidden_size, self.activation = input_size, hidden_size, activation

    def forward(self, inputs: Tensor, states: Tensor | None = None) -> tuple[Tensor, Tensor]:
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre = _project(inputs, self.weight_ih, self.bias_ih) + \
            _project(states, self.weight_hh, self.bias_hh)
        h = ops.tanh(pre) if self.activation == "tanh" else ops.relu(pre)
        return h, h

    @property
    def state_shape(self) -> tuple:
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        act = "" if self.activation == "tanh" else f", activation={self.activation}"
        return f"{self.input_size}, {self.hidden_size}{act}"


class LSTMCell(RNNCellBase):
    """c' = f * c + i * g, h' = o * tanh(c') (then h' @ weight_ho with proj_size); returns
    (h', (h', c'))."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, proj_size: int = 0, name: str | None = None
                 ) -> None:
        super().__init__(dtype=get_default_dtype())
        _check_sizes(type(self).__name__, input_size, hidden_size)
        if proj_size < 0:
            raise ValueError(f"proj_size of LSTMCell must not be negative, got {proj_size}")
        if proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size")
        _make_params(self, 4, input_size, hidden_size, proj_size or hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))
        self.input_size, self.hidden_size = input_size, hidden_size

    def forward(self, inputs: Tensor, states: Sequence[Tensor] | None = None
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_h, pre_c = states
        gates = _project(inputs, self.weight_ih, self.bias_ih) + \
            _project(pre_h, self.weight_hh, self.bias_hh)
        i, f, g, o = ops.split(gates, 4, axis=-1)
        c = ops.sigmoid(f) * pre_c + ops.sigmoid(i) * ops.tanh(g)
        h = ops.sigmoid(o) * ops.tanh(c)
        if self.proj_size > 0:
            h = ops.matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self) -> tuple:
        """((h,), (c,)) sizes; Paddle 3.3.1 lists (hidden_size,) first even with proj_size,
        whose h is proj_size wide: here h is (proj_size or hidden_size,)."""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """r, z = sigmoid(...), c = tanh(x_c + r * (h @ W_hc^T + b_hc)), h' = (h - c) * z + c;
    returns (h', h')."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        _check_sizes(type(self).__name__, input_size, hidden_size)
        _make_params(self, 3, input_size, hidden_size, hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.input_size, self.hidden_size = input_size, hidden_size

    def forward(self, inputs: Tensor, states: Tensor | None = None) -> tuple[Tensor, Tensor]:
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        x_r, x_z, x_c = ops.split(_project(inputs, self.weight_ih, self.bias_ih), 3, axis=1)
        h_r, h_z, h_c = ops.split(_project(states, self.weight_hh, self.bias_hh), 3, axis=1)
        r, z = ops.sigmoid(x_r + h_r), ops.sigmoid(x_z + h_z)
        c = ops.tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self) -> tuple:
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"
