"""The `ctx` of a PyLayer, and how `apply`'s arguments and `backward`'s results line up.

Measured on Paddle 3.3.1 (tests/test_pylayer_paddle.py pins each):
- The Tensors passed to `apply`, by position or by keyword, and those inside a list or
  tuple argument, are the node's inputs. Tensors inside a dict are not.
- `backward` returns one entry per such argument, in the order `apply` got them (a list
  argument's entry is a list), or fewer: the missing trailing ones must be inputs that need
  no gradient. An entry is a Tensor or None; anything else is an error.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..core import tape
from ..core.errors import OutputTypeError
from ..core.tensor import Tensor
from ..ops.core import out_tensor
from ..ops.elementwise import astype
from ..ops.shape import _take_flat

_MISSING = object()


class PyLayerContext:
    """The `ctx` passed to forward and backward: carries saved tensors and options."""

    def __init__(self) -> None:
        self._saved: tuple | None = None           # None until save_for_backward (Paddle)
        self._packed: tuple | None = None           # (unpack, [(packed, shape, dtype)])
        self.needs_input_grad: tuple = ()
        self.materialize_grads = True
        self.grad_in_dtype_consistent = True
        self.non_differentiable: tuple = ()
        self.not_inplace_tensors: tuple = ()
        self._arrived: dict = {}      # output position -> dtype its gradient arrived in
        self._saved_outputs: dict = {}  # saved position -> output position (py_layer)
        self._node_ref: Any = None      # weakref to the recorded node, when that is used

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward. Inside `saved_tensors_hooks`, each Tensor is packed
        now and unpacked by every `saved_tensor()` call (Paddle's rule)."""
        hooks = tape._saved_hooks
        if hooks is None:
            self._saved, self._packed = tensors, None
            return
        pack, unpack = hooks
        self._saved = ()
        self._packed = (unpack, [(pack(t), t._data.shape, t._data.dtype)
                                 if isinstance(t, Tensor) else (t, None, None)
                                 for t in tensors])

    def saved_tensor(self) -> tuple | None:
        """The tensors save_for_backward kept, as a tuple; None when forward saved nothing
        (Paddle 3.3.1; `save_for_backward()` with no arguments gives ())."""
        if self._packed is None:
            if not self._saved_outputs:
                return self._saved
            node = self._node_ref()
            if node is None:
                raise RuntimeError("a PyLayer's saved output is gone with its graph: call "
                                   "saved_tensor() inside backward")
            return tuple(self._recorded_output(node, self._saved_outputs[k])
                         if k in self._saved_outputs else t
                         for k, t in enumerate(self._saved))
        from ..ops.saved_hooks import unpacked
        unpack, items = self._packed
        return tuple(obj if shape is None else unpacked(unpack, obj, shape, dtype, "a "
                                                        "PyLayer's saved tensor")
                     for obj, shape, dtype in items)

    def _recorded_output(self, node: tape.Node, i: int) -> Tensor:
        """Output i as the node recorded it: differentiable (create_graph=True), with the
        values it had then."""
        idx = self._diff[i]
        if idx is None:
            return out_tensor(node)
        made = self._made[i]()             # the node that handed output i out (its slice,
        if made is not None:               # or the slice's cast), on the path backward's
            return out_tensor(made)        # gradient takes (_output_grads)
        shape, dtype = next((s, d) for j, s, d in self._outputs if j == i)
        out = _take_flat(out_tensor(node), idx, shape)
        self._slices[i] = weakref.ref(out._node)
        if out._data.dtype != dtype:
            out = astype(out, dtype)
        self._made[i] = weakref.ref(out._node)
        return out

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """These outputs get no gradient path (stop_gradient=True); backward still gets an
        entry for each: zeros, or None after set_materialize_grads(False)."""
        self.non_differentiable += tensors

    def mark_not_inplace(self, *tensors: Tensor) -> None:
        """These inputs, if forward returns them, come back as new tensors. Otherwise an
        input returned as an output is changed in place: it becomes the PyLayer's output
        (its version counter goes up), and a leaf that needs a gradient is refused."""
        self.not_inplace_tensors += tensors

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward gets None, not zeros, for outputs no gradient reached."""
        self.materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, flag: bool) -> None:
        """False: backward gets each output gradient in the dtype it arrived in, not cast
        to the output's dtype. In jitgrad only a later PyLayer's backward can return
        another dtype (built-in rules keep their inputs' dtypes)."""
        self.grad_in_dtype_consistent = bool(flag)


def is_in(t: Any, tensors: tuple) -> bool:
    return any(t is x for x in tensors)


# ---- apply's arguments -------------------------------------------------------------------

def input_slots(args: tuple, kwargs: dict) -> list:
    """apply's Tensor-bearing arguments in call order: a Tensor, or a list/tuple holding
    Tensors."""
    slots = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            slots.append(a)
        elif isinstance(a, (list, tuple)) and any(isinstance(e, Tensor) for e in a):
            slots.append(a)
    return slots


def flat_inputs(slots: list) -> list[Tensor]:
    out: list[Tensor] = []
    for s in slots:
        if isinstance(s, Tensor):
            out.append(s)
        else:
            out.extend(e for e in s if isinstance(e, Tensor))
    return out


def slot_shapes(slots: list) -> list:
    """What input_grads needs of the slots: None for a Tensor, else a list's Tensor mask."""
    return [None if isinstance(s, Tensor) else [isinstance(e, Tensor) for e in s]
            for s in slots]


def input_grads(name: str, res: Any, slots: list, needs: tuple) -> list:
    """backward's result as one gradient (Tensor or None) per flat input; `slots` from
    slot_shapes, `needs` one flag per flat input (does it need a gradient)."""
    if res is None or isinstance(res, (Tensor, list)):
        res = (res,)        # (a list is one list argument's gradients, never several
        #                     inputs': Paddle 3.3.1 raises ValueError for it otherwise)
    elif isinstance(res, tuple):
        pass
    else:
        raise OutputTypeError(f"{name}.backward must return Tensors or None (a tuple of "
                              f"them, one per Tensor input), got {type(res).__name__}")
    if len(res) > len(slots):
        raise ValueError(f"{name}.backward returned {len(res)} gradients but forward took "
                         f"{len(slots)} Tensor inputs; return one (or None) per input")
    out: list = []
    for i, slot in enumerate(slots):
        r = res[i] if i < len(res) else _MISSING
        if slot is None:
            rs = [r]
        elif r is _MISSING or r is None:
            rs = [r] * sum(slot)
        elif isinstance(r, (list, tuple)) and len(r) == len(slot):
            rs = [x for x, is_tensor in zip(r, slot) if is_tensor]
        else:
            raise OutputTypeError(f"{name}.backward: the gradient for argument {i}, a "
                                  f"sequence of {len(slot)}, must be a list or tuple of "
                                  f"{len(slot)} Tensors or None")
        for r in rs:
            j = len(out)
            if r is _MISSING:
                if needs[j]:
                    raise ValueError(f"{name}.backward returned {len(res)} gradients but "
                                     f"forward took {len(slots)} Tensor inputs, and input "
                                     f"{j} needs one; return one (or None) per input")
                r = None
            elif r is not None and not isinstance(r, Tensor):
                hint = ("; return a tuple, not a list, of one gradient per input (a list "
                        "is the gradients of one list argument, as in Paddle)"
                        if isinstance(r, list) else "")
                raise OutputTypeError(f"{name}.backward must return Tensors or None, got "
                                      f"{type(r).__name__} for input {j}{hint}")
            out.append(r)
    return out
