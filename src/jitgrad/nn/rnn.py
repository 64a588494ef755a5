"""Recurrent networks: paddle.nn.RNN / BiRNN (any cell) and SimpleRNN, LSTM, GRU.

A sequence of a built-in cell runs as one fused op (ops/recurrent.py): the inputs' projections
for all steps are one matmul, the recurrence one node, so a training step records a few
nodes instead of ~15 per step. Other cells (and `RNN` with sequence_length, whose padded
outputs Paddle leaves unmasked) loop over `cell.forward` as Paddle's dygraph `rnn` does.

Measured on Paddle 3.3.1 (CPU), which SimpleRNN/LSTM/GRU follow: padded steps
(sequence_length) leave the state unchanged and give zero outputs; final states are those of
the last valid step (step 0 for the backward direction); dropout (upscale_in_train) acts on
the input of every layer but the first; a bidirectional layer concatenates forward and
backward outputs and stacks final states as [l0 fw, l0 bw, l1 fw, ...].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..ops.core import const
from ..ops.recurrent import recurrence
from ..core.tensor import Tensor
from . import functional as F
from .layer import Layer
from .layers import LayerList
from .rnn_cells import GRUCell, LSTMCell, RNNCellBase, SimpleRNNCell

_MODES = {SimpleRNNCell: "RNN", LSTMCell: "LSTM", GRUCell: "GRU"}


def _time_major(x: Tensor) -> Tensor:
    return ops.transpose(x, [1, 0] + list(range(2, x.ndim)))


def _map(fn, *structs: Any) -> Any:
    """fn over the Tensors of equally nested tuples/lists."""
    if isinstance(structs[0], (list, tuple)):
        return type(structs[0])(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _mask(sequence_length: Any, T: int, B: int) -> np.ndarray:
    """[T, B] True where step t < the sequence's length."""
    lens = np.asarray(sequence_length.numpy() if isinstance(sequence_length, Tensor)
                      else sequence_length)
    if lens.shape != (B,) or lens.dtype.kind not in "iu":
        raise ValueError(f"sequence_length must hold {B} integer lengths (one per sequence), "
                         f"got {lens.dtype.name} of shape {list(lens.shape)}")
    return np.arange(T)[:, None] < lens[None, :]


def _fused_mode(cell: Any) -> str | None:
    mode = _MODES.get(type(cell))
    if mode == "LSTM" and cell.proj_size:
        return None
    if mode == "RNN":
        return "RNN_RELU" if cell.activation == "relu" else "RNN_TANH"
    return mode


def _run_fused(cell: RNNCellBase, mode: str, x_tm: Tensor, states: Any, reverse: bool,
               mask: np.ndarray | None) -> tuple[Tensor, Any]:
    """(outputs [T, B, H] time major, final states) of a built-in cell over x_tm."""
    T, B, I = x_tm.shape
    # as one 2-D product (a batched one over a transposed view does not reach BLAS: ~2x)
    gx = ops.matmul(ops.reshape(x_tm, [T * B, I]), cell.weight_ih, transpose_y=True)
    gx = ops.reshape(gx + cell.bias_ih, [T, B, -1])
    lstm = mode == "LSTM"
    S = recurrence(mode, gx, cell.weight_hh, cell.bias_hh,
                   tuple(states) if lstm else (states,), reverse, mask)
    last = 0 if reverse else x_tm.shape[0] - 1
    if lstm:
        return S[:, 0], (S[last, 0], S[last, 1])
    return S, S[last]


def rnn(cell: RNNCellBase, inputs: Tensor, initial_states: Any = None,
        sequence_length: Any = None, time_major: bool = False, is_reverse: bool = False,
        **kwargs: Any) -> tuple[Any, Any]:
    """Run `cell` over the time axis of `inputs` (Paddle's nn.layer.rnn.rnn): (outputs,
    final states). Padded steps (sequence_length) keep the previous state; their outputs
    are what the cell returned there, as in Paddle."""
    t_axis = 0 if time_major else 1
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs,
                                                 batch_dim_idx=1 if time_major else 0)
    mode = _fused_mode(cell)
    if mode and not kwargs and sequence_length is None and isinstance(inputs, Tensor):
        x_tm = inputs if time_major else _time_major(inputs)
        out, final = _run_fused(cell, mode, x_tm, initial_states, is_reverse, None)
        return (out if time_major else _time_major(out)), final
    xs = _map(lambda x: x if time_major else _time_major(x), inputs)
    first = xs
    while isinstance(first, (list, tuple)):
        first = first[0]
    T = first.shape[0]
    mask = None if sequence_length is None else _mask(sequence_length, T, first.shape[1])
    steps = range(T - 1, -1, -1) if is_reverse else range(T)
    states, outs = initial_states, []
    for i in steps:
        out, new = cell(_map(lambda x, i=i: x[i], xs), states, **kwargs)
        if mask is not None:            # Paddle's _maybe_copy: new * m + old * (1 - m)
            m = const(mask[i][:, None], first._data.dtype)
            new = _map(lambda s, n, m=m: n * m + s * (1.0 - m), states, new)
        states = new
        outs.append(out)
    if is_reverse:
        outs = outs[::-1]
    return _map(lambda *o: ops.stack(list(o), axis=t_axis), *outs), states


def birnn(cell_fw: RNNCellBase, cell_bw: RNNCellBase, inputs: Tensor,
          initial_states: Any = None, sequence_length: Any = None, time_major: bool = False,
          **kwargs: Any) -> tuple[Tensor, tuple[Any, Any]]:
    """Both directions over `inputs`, outputs concatenated on the last axis: (outputs,
    (final states forward, final states backward))."""
    if initial_states is None:
        bdim = 1 if time_major else 0
        initial_states = (cell_fw.get_initial_states(inputs, batch_dim_idx=bdim),
                          cell_bw.get_initial_states(inputs, batch_dim_idx=bdim))
    s_fw, s_bw = initial_states
    out_fw, s_fw = rnn(cell_fw, inputs, s_fw, sequence_length, time_major, **kwargs)
    out_bw, s_bw = rnn(cell_bw, inputs, s_bw, sequence_length, time_major, is_reverse=True,
                       **kwargs)
    return _map(lambda a, b: ops.concat([a, b], -1), out_fw, out_bw), (s_fw, s_bw)


class RNN(Layer):
    """A cell run over a sequence (see `rnn`); forward(inputs, initial_states=None,
    sequence_length=None, **kwargs) -> (outputs, final_states)."""

    def __init__(self, cell: RNNCellBase, is_reverse: bool = False, time_major: bool = False
                 ) -> None:
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs: Tensor, initial_states: Any = None, sequence_length: Any = None,
                **kwargs: Any) -> tuple[Any, Any]:
        return rnn(self.cell, inputs, initial_states, sequence_length, self.time_major,
                   self.is_reverse, **kwargs)


class BiRNN(Layer):
    """Two cells run forward and backward over a sequence (see `birnn`)."""

    def __init__(self, cell_fw: RNNCellBase, cell_bw: RNNCellBase, time_major: bool = False
                 ) -> None:
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equal that of backward cell({cell_bw.input_size})")
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs: Tensor, initial_states: Any = None, sequence_length: Any = None,
                **kwargs: Any) -> tuple[Tensor, tuple[Any, Any]]:
        if isinstance(initial_states, (list, tuple)) and len(initial_states) != 2:
            raise ValueError("BiRNN: initial_states must hold 2 entries (forward, backward), "
                             f"got {len(initial_states)}")
        return birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length,
                     self.time_major, **kwargs)


class RNNBase(LayerList):
    """Stacked, optionally bidirectional recurrent layers (SimpleRNN, LSTM, GRU).

    Parameters are the cells' (sublayers `0.cell`, or `0.cell_fw` / `0.cell_bw`), also
    registered as `weight_ih_l{k}`, `weight_hh_l{k}`, `bias_ih_l{k}`, `bias_hh_l{k}` (suffix
    `_reverse` for the backward direction), Paddle's names, so named_parameters and
    state_dict keys are Paddle's."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None,
                 bias_ih_attr: Any = None, bias_hh_attr: Any = None, proj_size: int = 0
                 ) -> None:
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise ValueError("direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"num_layers must be a positive int, got {num_layers!r}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"dropout must be in [0, 1], got {dropout}")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size is for LSTM only")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.dropout, self.time_major = num_layers, dropout, time_major
        self.num_directions = 1 if direction == "forward" else 2
        self.state_components = 2 if mode == "LSTM" else 1
        self.proj_size = proj_size
        kw: dict = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                        bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr)
        cls = LSTMCell if mode == "LSTM" else GRUCell if mode == "GRU" else SimpleRNNCell
        if mode == "LSTM":
            kw["proj_size"] = proj_size
        elif mode != "GRU":
            kw["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        width = (proj_size or hidden_size) * self.num_directions
        for k in range(num_layers):
            size = input_size if k == 0 else width
            if self.num_directions == 1:
                self.append(RNN(cls(size, hidden_size, **kw), False, time_major))
            else:
                self.append(BiRNN(cls(size, hidden_size, **kw), cls(size, hidden_size, **kw),
                                  time_major))
        names = ["weight_ih", "weight_hh"] + ["bias_ih"] * (bias_ih_attr is not False) + \
            ["bias_hh"] * (bias_hh_attr is not False)
        for k, cell, suffix in self._cells():
            for name in names:
                setattr(self, f"{name}_l{k}{suffix}", getattr(cell, name))
        # Paddle's cuDNN dropout state: a 0-d uint8 buffer, not persistable (named_buffers
        # lists it; nothing here reads it)
        self.register_buffer("_dropout_state", Tensor._make(np.zeros((), np.uint8)),
                             persistable=False)

    def _cells(self):
        """(layer, cell, name suffix) in Paddle's order: layer by layer, forward first."""
        for k, layer in enumerate(self):
            if isinstance(layer, BiRNN):
                yield k, layer.cell_fw, ""
                yield k, layer.cell_bw, "_reverse"
            else:
                yield k, layer.cell, ""

    def flatten_parameters(self) -> None:
        """Paddle packs the weights for cuDNN here; nothing to do on this CPU path."""

    def _initial(self, states: Any, B: int, dtype: Any) -> list:
        """Per (layer, direction), the cell state: a Tensor, or (h, c) for the LSTM."""
        n = self.num_layers * self.num_directions
        widths = [self.proj_size or self.hidden_size, self.hidden_size]
        if states is None:
            states = [ops.zeros([n, B, w], dtype) for w in widths[:self.state_components]]
        elif isinstance(states, Tensor):
            states = [states]
        states = list(states)
        if len(states) != self.state_components:
            raise ValueError(f"{type(self).__name__}: initial_states must be "
                             f"{'(h, c)' if self.state_components == 2 else 'one Tensor'}"
                             f", got {len(states)} tensors")
        for s, w in zip(states, widths):
            if list(s.shape) != [n, B, w]:
                raise ValueError(f"{type(self).__name__}: an initial state must have shape "
                                 f"{[n, B, w]} (layers * directions, batch, size), got "
                                 f"{list(s.shape)}")
        if self.state_components == 1:
            return [states[0][i] for i in range(n)]
        return [(states[0][i], states[1][i]) for i in range(n)]

    def forward(self, inputs: Tensor, initial_states: Any = None, sequence_length: Any = None
                ) -> tuple[Tensor, Any]:
        if not isinstance(inputs, Tensor) or inputs.ndim != 3:
            raise ValueError(f"{type(self).__name__} expects a 3-D input Tensor, got "
                             f"{getattr(inputs, 'shape', type(inputs).__name__)}")
        if inputs.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: input_size is {self.input_size}, but "
                             f"the input's last dimension is {inputs.shape[-1]}")
        wdt = self.weight_ih_l0.dtype
        if inputs.dtype != wdt:
            raise TypeError(f"{type(self).__name__}: the input is {inputs.dtype.name} but the "
                            f"weights are {wdt.name}; cast one to the other")
        x = inputs if self.time_major else _time_major(inputs)
        T, B = x.shape[0], x.shape[1]
        if T == 0 or B == 0:
            raise ValueError(f"{type(self).__name__}: the input has {T} time steps and batch "
                             f"size {B}; both must be positive")
        states = self._initial(initial_states, B, inputs.dtype)
        mask = None if sequence_length is None else _mask(sequence_length, T, B)
        finals: list = []
        for k, layer in enumerate(self):
            if k > 0 and self.dropout > 0:
                x = F.dropout(x, self.dropout, training=self.training, mode="upscale_in_train")
            x = self._layer(layer, k, x, states, mask, sequence_length, finals)
        out = x if self.time_major else _time_major(x)
        if self.state_components == 1:
            return out, ops.stack(finals)
        return out, (ops.stack([h for h, _ in finals]), ops.stack([c for _, c in finals]))

    def _layer(self, layer: Layer, k: int, x: Tensor, states: list, mask: Any,
               sequence_length: Any, finals: list) -> Tensor:
        """One layer over time-major x; appends its final states; returns its outputs."""
        cells = [layer.cell_fw, layer.cell_bw] if isinstance(layer, BiRNN) else [layer.cell]
        outs = []
        for d, cell in enumerate(cells):
            state = states[k * len(cells) + d]
            mode = _fused_mode(cell)
            if mode is None:            # LSTM with proj_size: the cell loop, as Paddle's
                out, final = rnn(cell, x, state, sequence_length, True, d == 1)
            else:
                out, final = _run_fused(cell, mode, x, state, d == 1, mask)
                if mask is not None:
                    out = out * const(mask[:, :, None], x._data.dtype)
            outs.append(out)
            finals.append(final)
        return outs[0] if len(outs) == 1 else ops.concat(outs, -1)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Elman RNN layers: h_t = act(x_t @ W_ih^T + b_ih + h_(t-1) @ W_hh^T + b_hh)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 activation: str = "tanh", weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: str | None = None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation


class LSTM(RNNBase):
    """LSTM layers; forward returns (outputs, (h, c)), each state [layers * directions,
    batch, size]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None,
                 bias_ih_attr: Any = None, bias_hh_attr: Any = None, proj_size: int = 0,
                 name: str | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         proj_size)


class GRU(RNNBase):
    """GRU layers (Paddle's gate order r, z, c; reset applied after the recurrent matmul)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None,
                 bias_ih_attr: Any = None, bias_hh_attr: Any = None, name: str | None = None
                 ) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
