"""paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode (Paddle's nn/decode.py, eager form).

`dynamic_decode` drives any `Decoder` (initialize / step / finalize) one step at a time until
every sequence is finished or `max_step_num` is passed (max_step_num + 1 steps at most, as in
Paddle), stacks each step's outputs on a new leading time axis, calls `finalize` and puts batch
first unless `output_time_major`.

`BeamSearchDecoder` keeps `beam_size` hypotheses per batch entry, laid out [batch, beam, ...]:
each step runs the cell on [batch * beam, ...], turns the logits into log(softmax) and adds
each beam's running log probability; a finished beam may only emit `end_token` at no cost (any
other token costs 1e9). The best `beam_size` of the beam * vocab candidates survive; states,
finished flags and lengths follow their parent beam, a length grows while its beam is
unfinished (the step emitting end_token counts), and `finalize` backtracks the parents with
gather_tree. The running log probabilities (StateWrapper.log_probs, which equal the last
step's scores) stay differentiable, so a loss on them trains the cell, embedding_fn and
output_fn, as in Paddle's dynamic mode.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import ops
from ..core.dtypes import get_default_dtype
from ..core.tensor import Tensor
from . import functional as F

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]

_KINF = 1e9     # cost of a token other than end_token on a finished beam; start of beams 1..


# ---- nested structures (Paddle's paddle.utils.map_structure / flatten) -----------------------
def _is_seq(s: Any) -> bool:
    return isinstance(s, (list, tuple, dict))


def _flatten(s: Any) -> list:
    if isinstance(s, dict):
        return [x for k in sorted(s) for x in _flatten(s[k])]
    if isinstance(s, (list, tuple)):
        return [x for item in s for x in _flatten(item)]
    return [s]


def _map(fn: Callable, *structs: Any) -> Any:
    """fn applied leaf-wise over structures of one shape (lists, tuples, namedtuples, dicts)."""
    first = structs[0]
    if isinstance(first, dict):
        return type(first)((k, _map(fn, *(s[k] for s in structs))) for k in first)
    if isinstance(first, (list, tuple)):
        for s in structs[1:]:
            if not isinstance(s, (list, tuple)) or len(s) != len(first):
                raise ValueError("dynamic_decode: the decoder's states changed structure from "
                                 "one step to the next")
        items = [_map(fn, *parts) for parts in zip(*structs)]
        if hasattr(first, "_fields"):                       # namedtuple
            return type(first)(*items)
        return type(first)(items)
    return fn(*structs)


class Decoder:
    """Base of the decoders `dynamic_decode` drives.

    initialize(inits) -> (initial_inputs, initial_states, initial_finished);
    step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs, finished);
    finalize(outputs, final_states, sequence_lengths) -> (final_outputs, final_states), optional
    (NotImplementedError keeps the stacked outputs). A decoder whose `tracks_own_finished` is
    True reports its own lengths (next_states.lengths)."""

    def initialize(self, inits: Any) -> Any:
        raise NotImplementedError

    def step(self, time: Tensor, inputs: Any, states: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def finalize(self, outputs: Any, final_states: Any, sequence_lengths: Tensor) -> Any:
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        return False


def _check_int(value: Any, what: str, low: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"BeamSearchDecoder: {what} must be an int, got "
                        f"{type(value).__name__} {value!r}")
    if low is not None and value < low:
        raise ValueError(f"BeamSearchDecoder: {what} must be at least {low}, got {value}")
    return int(value)


class BeamSearchDecoder(Decoder):
    """Beam search over `cell` (an RNN cell or any callable (inputs, states, **kwargs) ->
    (outputs, new_states)); `embedding_fn` maps token ids [batch, beam] to the next inputs,
    `output_fn` maps the cell outputs [batch, beam, hidden] to logits over the vocabulary."""

    class OutputWrapper(NamedTuple):
        """One step's output: the surviving beams' scores, their tokens and parent beams."""
        scores: Tensor
        predicted_ids: Tensor
        parent_ids: Tensor

    class StateWrapper(NamedTuple):
        """The search state: cell states, running log probabilities, finished flags, lengths
        (all [batch, beam, ...])."""
        cell_states: Any
        log_probs: Tensor
        finished: Tensor
        lengths: Tensor

    def __init__(self, cell: Any, start_token: int, end_token: int, beam_size: int,
                 embedding_fn: Callable | None = None, output_fn: Callable | None = None
                 ) -> None:
        if not callable(cell):
            raise TypeError(f"BeamSearchDecoder: cell must be callable (an RNN cell), got "
                            f"{type(cell).__name__}")
        for name, fn in (("embedding_fn", embedding_fn), ("output_fn", output_fn)):
            if fn is not None and not callable(fn):
                raise TypeError(f"BeamSearchDecoder: {name} must be callable or None, got "
                                f"{type(fn).__name__}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = _check_int(start_token, "start_token", 0)
        self.end_token = _check_int(end_token, "end_token", 0)
        self.beam_size = _check_int(beam_size, "beam_size", 1)

    # -- layout helpers --
    @staticmethod
    def tile_beam_merge_with_batch(x: Tensor, beam_size: int) -> Tensor:
        """[batch, ...] -> [batch * beam_size, ...], each batch entry repeated beam_size times
        in a row (e.g. an encoder output for the cell's attention)."""
        beam_size = _check_int(beam_size, "beam_size", 1)
        if not isinstance(x, Tensor):
            raise TypeError(f"tile_beam_merge_with_batch: x must be a Tensor, got "
                            f"{type(x).__name__}")
        if x.ndim == 0:
            raise ValueError("tile_beam_merge_with_batch: x must have a batch dimension")
        return ops.repeat_interleave(x, beam_size, axis=0)

    def _expand_to_beam_size(self, x: Tensor) -> Tensor:
        x = ops.unsqueeze(x, 1)
        return ops.tile(x, [1, self.beam_size] + [1] * (x.ndim - 2))

    def _merge_batch_beams(self, x: Tensor) -> Tensor:
        return ops.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x: Tensor) -> Tensor:
        return ops.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _gather(self, x: Tensor, beam_index: Tensor) -> Tensor:
        """x[b, beam_index[b, k], ...] for x [batch, beam, ...] (differentiable in x)."""
        batch = x.shape[0]
        flat = ops.reshape(x, [batch * x.shape[1]] + list(x.shape[2:]))
        offsets = np.arange(batch, dtype=np.int64)[:, None] * x.shape[1]
        rows = (beam_index.numpy().astype(np.int64) + offsets).reshape(-1)
        out = ops.index_select(flat, Tensor._make(rows), axis=0)
        return ops.reshape(out, [batch, beam_index.shape[1]] + list(x.shape[2:]))

    # -- Decoder interface --
    def initialize(self, initial_cell_states: Any) -> tuple[Any, StateWrapper, Tensor]:
        """(start-token inputs [batch, beam(, emb)], StateWrapper, finished [batch, beam]) from
        the cell's initial states [batch, ...] (a tensor or a structure of them)."""
        leaves = _flatten(initial_cell_states)
        if initial_cell_states is None or not leaves or \
                not all(isinstance(t, Tensor) for t in leaves):
            raise TypeError("BeamSearchDecoder.initialize: inits must be the cell's initial "
                            "states, a Tensor [batch, ...] or a structure of them (e.g. "
                            "cell.get_initial_states(...)), got "
                            f"{type(initial_cell_states).__name__}")
        batch = leaves[0].shape[0]
        self.batch_size = batch
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        ids = ops.full([batch, self.beam_size], self.start_token, dtype="int64")
        dtype = "float64" if str(get_default_dtype()).endswith("float64") else "float32"
        row = np.array([[0.0] + [-_KINF] * (self.beam_size - 1)], dtype=np.float32)
        log_probs = Tensor._make(np.tile(row, (batch, 1)).astype(dtype))
        finished = ops.full([batch, self.beam_size], False, dtype="bool")
        lengths = ops.zeros_like(ids)
        inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, logits: Tensor, next_cell_states: Any, state: StateWrapper
                          ) -> tuple[OutputWrapper, StateWrapper]:
        if not isinstance(logits, Tensor) or logits.ndim != 3:
            raise ValueError("BeamSearchDecoder: the (output_fn of the) cell output must be "
                             "logits [batch * beam, vocab_size], got "
                             f"{getattr(logits, 'shape', type(logits).__name__)} after "
                             "splitting batch and beam")
        vocab = logits.shape[-1]
        if self.end_token >= vocab:
            raise ValueError(f"BeamSearchDecoder: end_token {self.end_token} is out of the "
                             f"vocabulary [0, {vocab}) of the logits")
        step_log_probs = ops.log(F.softmax(logits, axis=-1))
        noend = np.full([vocab], -_KINF, dtype=np.float32)
        noend[self.end_token] = 0.0
        noend = Tensor._make(noend.astype(step_log_probs.numpy().dtype))
        # a finished beam may only emit end_token, at no cost
        step_log_probs = ops.where(ops.unsqueeze(state.finished, 2), noend, step_log_probs)
        log_probs = step_log_probs + ops.unsqueeze(state.log_probs, 2)
        flat = ops.reshape(log_probs, [-1, self.beam_size * vocab])
        top_scores, top_index = ops.topk(flat, self.beam_size)
        top_np = top_index.numpy().astype(np.int64)
        beam_index = Tensor._make(top_np // vocab)
        token_index = Tensor._make(top_np % vocab)
        next_log_probs = ops.take_along_axis(flat, top_index, axis=1)
        next_cell_states = _map(lambda s: self._gather(s, beam_index), next_cell_states)
        was_finished = self._gather(state.finished, beam_index)
        lengths = self._gather(state.lengths, beam_index) + \
            ops.cast(ops.logical_not(was_finished), state.lengths.dtype)
        finished = ops.logical_or(was_finished, ops.equal(token_index, self.end_token))
        return (self.OutputWrapper(top_scores, token_index, beam_index),
                self.StateWrapper(next_cell_states, next_log_probs, finished, lengths))

    def step(self, time: Any, inputs: Any, states: StateWrapper, **kwargs: Any
             ) -> tuple[OutputWrapper, StateWrapper, Any, Tensor]:
        """One beam search step: (OutputWrapper, StateWrapper, next inputs, finished)."""
        cell_inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(cell_inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(cell_outputs, next_cell_states, states)
        ids = output.predicted_ids
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs: OutputWrapper, final_states: StateWrapper,
                 sequence_lengths: Tensor) -> tuple[Tensor, StateWrapper]:
        """The full token sequences [time, batch, beam], backtracked through parent_ids."""
        ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return ops.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self) -> bool:
        return True


def _keep_finished(state: Tensor, new_state: Tensor, finished: Tensor) -> Tensor:
    """impute_finished: the old state where finished (Paddle's _maybe_copy)."""
    mask = finished
    while mask.ndim < state.ndim:
        mask = ops.unsqueeze(mask, mask.ndim)
    return ops.where(mask, state, new_state)


def dynamic_decode(decoder: Any, inits: Any = None, max_step_num: int | None = None,
                   output_time_major: bool = False, impute_finished: bool = False,
                   is_test: bool = False, return_length: bool = False, **kwargs: Any) -> Any:
    """Run `decoder` step by step: (final_outputs, final_states[, sequence_lengths]).

    Stops once every sequence is finished or after max_step_num + 1 steps. final_outputs are
    the steps' outputs stacked on axis 1 (axis 0 with output_time_major) and passed through
    decoder.finalize (for BeamSearchDecoder: the predicted ids [batch, time, beam]).
    impute_finished keeps a finished sequence's states (decoders that do not track their own
    finished flags; BeamSearchDecoder does). is_test is accepted and ignored (dynamic mode);
    kwargs go to decoder.step (and on to the cell)."""
    for method in ("initialize", "step", "finalize"):
        if not callable(getattr(decoder, method, None)):
            raise TypeError(f"dynamic_decode: decoder must be a Decoder (initialize, step, "
                            f"finalize), got {type(decoder).__name__} without {method}()")
    if max_step_num is not None:
        if isinstance(max_step_num, (bool, np.bool_)) or \
                not isinstance(max_step_num, (int, np.integer)):
            raise TypeError(f"dynamic_decode: max_step_num must be an int or None, got "
                            f"{type(max_step_num).__name__}")
        if max_step_num < 0:
            raise ValueError(f"dynamic_decode: max_step_num must not be negative, got "
                             f"{max_step_num}")
    inputs, states, finished = decoder.initialize(inits)
    if not isinstance(finished, Tensor):
        raise TypeError("dynamic_decode: decoder.initialize must return a finished Tensor as "
                        "its third value")
    lengths = ops.zeros_like(ops.cast(finished, "int64"))
    own = bool(decoder.tracks_own_finished)
    steps: list = []
    step = 0
    while not bool(finished.numpy().all()):
        outputs, next_states, next_inputs, next_finished = decoder.step(
            Tensor._make(np.array([step], dtype=np.int64)), inputs, states, **kwargs)
        if own:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned "
                              "`sequence_lengths` would be all zeros.")
            lengths = getattr(next_states, "lengths", lengths)
        else:
            # Paddle's dynamic mode updates `finished` in place before counting, so the step
            # that finishes a sequence is not counted and its states are kept when imputing
            finished = ops.logical_or(next_finished, finished)
            next_finished = finished
            lengths = lengths + ops.cast(ops.logical_not(finished), lengths.dtype)
            if impute_finished:
                next_states = _map(lambda old, new: _keep_finished(old, new, finished),
                                   states, next_states)
        steps.append(outputs)
        inputs, states, finished = next_inputs, next_states, next_finished
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode: every sequence is finished before the first step, "
                         "so there is nothing to decode")
    final_outputs = _map(lambda *xs: ops.stack(list(xs), axis=0), *steps)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: ops.transpose(x, [1, 0] + list(range(2, x.ndim))),
                             final_outputs)
    if return_length:
        return final_outputs, final_states, lengths
    return final_outputs, final_states
