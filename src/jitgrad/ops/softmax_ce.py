"""paddle.nn.functional.softmax_with_cross_entropy: Paddle's legacy fused loss, unreduced.

A composite of log_softmax and cross_entropy's label handling, so it is differentiable to any
order with no rule of its own. The loss keeps the class axis with size 1 ([N, 1] for [N, C]
logits). Hard labels have the logits' rank with 1 at `axis` (integer ids, or floats holding
them, which Paddle accepts); positions labelled ignore_index get loss 0 and no gradient.
Soft labels have the logits' shape, are not differentiated, and ignore ignore_index.
log_softmax keeps it exact for large logits: Paddle 3.3.1 caps the loss at 64
(`[[1000, 0, -1000]]` labelled 2 gives 64, jitgrad 2000). numeric_stable_mode is accepted
and has no effect (jitgrad is always stable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .core import require_float
from .loss import _labels, cross_entropy
from .nn import softmax


def softmax_with_cross_entropy(logits: Tensor, label: Any, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1
                               ) -> Tensor | tuple[Tensor, Tensor]:
    """-log(softmax(logits)[label]) per position, the class axis kept as size 1; with
    return_softmax=True also softmax(logits)."""
    fname = "softmax_with_cross_entropy"
    if not isinstance(logits, Tensor):
        raise TypeError(f"{fname}: logits must be a Tensor, got {type(logits).__name__}")
    require_float(logits, fname)
    nd = logits.ndim
    if nd == 0:
        raise ValueError(f"{fname}: logits must have at least one dimension (the classes)")
    if isinstance(axis, bool) or not isinstance(axis, int) or not -nd <= axis < nd:
        raise ValueError(f"{fname}: axis {axis!r} is out of range for {nd}-D logits")
    ax = axis % nd
    lab = _labels(label)
    if soft_label:
        if list(lab.shape) != list(logits.shape):
            raise ValueError(f"{fname}: soft labels must have the logits' shape "
                             f"{list(logits.shape)}, got {list(lab.shape)}")
        loss = cross_entropy(logits, label, soft_label=True, reduction="none", axis=ax)
    else:
        want = list(logits.shape)
        want[ax] = 1
        if list(lab.shape) != want:
            raise ValueError(f"{fname}: hard labels must have shape {want} (the logits' shape "
                             f"with 1 at axis {ax}), got {list(lab.shape)}")
        if lab.dtype.kind == "f":
            lab = lab.astype(np.int64)
        loss = cross_entropy(logits, lab, ignore_index=ignore_index, reduction="none",
                             axis=ax)
    if return_softmax:
        return loss, softmax(logits, axis=ax)
    return loss
