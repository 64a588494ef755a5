"""Optimizer.state_dict / set_state_dict / minimize, in Paddle 3.3.1's format.

Paddle keeps one accumulator tensor per (parameter, kind), named
`<param.name>_<kind>_<n>` (`linear_0.w_0_moment1_0`, n from utils/unique_name.py), and a
state dict lists them kind by kind, plus `LR_Scheduler` (the scheduler's state) when the
rate is a scheduler. jitgrad's optimizers keep the same accumulators under the kind names;
the per-step beta powers (`beta1_pow_acc`) are shape-[1] tensors in the file, as in Paddle.

Loading matches a key to a parameter by `<param.name>_<kind>_` whatever the trailing number,
so a second optimizer in the same process (whose names end in `_1`) loads the first one's
state; Paddle 3.3.1 refuses ("should in state dict"). Keys that match no parameter of this
optimizer are named in a warning when others matched (an optimizer over part of the saved
model, which Paddle loads silently), and raise ValueError when none did (a model built in
another order: nothing would load).

With multi_precision, a float16 parameter's float32 master is listed under
`master_weights` ({param.name: Tensor named `<param.name>_fp32_master_<n>`}, as Paddle), and
its accumulators are float32 and named after the master; loading takes the master back.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..utils import unique_name

_POWERS = ("beta1_pow_acc", "beta2_pow_acc")      # scalars in the state, [1] in the file
MASTER = "_fp32_master"         # a parameter's state key for its float32 master weights


def name_accumulators(opt: Any) -> None:
    """Give every parameter (and its accumulators) a Paddle name, once, at construction.
    A float16 parameter with master weights has its master named as Paddle names it,
    `<param.name>_fp32_master_<n>`, and its accumulators after the master (Paddle keeps
    them for the master: `<param.name>_fp32_master_0_moment1_0`)."""
    prefix = f"{opt._name}_" if opt._name else ""
    names: dict[tuple[int, str], str] = {}
    masters: dict[int, str] = {}
    for p in opt._params:               # (an unnamed tensor's name is made when first read)
        owner = p.name
        if opt._keeps_master(p) and id(p) not in masters:
            owner = masters[id(p)] = unique_name.generate(f"{p.name}_fp32_master")
        for kind in opt._accumulators:
            if (id(p), kind) not in names:
                names[id(p), kind] = unique_name.generate(f"{owner}_{prefix}{kind}")
    opt._acc_names, opt._master_names = names, masters


def _spec(opt: Any, p: Tensor, kind: str) -> tuple[list[int], np.dtype]:
    """An accumulator's shape and dtype in the file: the parameter's, [1] for the beta powers,
    or what the optimizer's _acc_spec says (ASGD: y is [batch_num, *shape], m int64 [1])."""
    spec = opt._acc_spec(p, kind) if hasattr(opt, "_acc_spec") else None
    if spec is not None:
        return list(spec[0]), np.dtype(spec[1])
    return ([1] if kind in _POWERS else list(p._data.shape)), opt._state_dtype(p)


def _as_array(opt: Any, p: Tensor, kind: str, value: Any) -> np.ndarray:
    shape, dt = _spec(opt, p, kind)
    if value is None:                        # e.g. RMSProp's mean_grad when not centered
        return np.zeros(shape, dtype=dt)
    arr = np.asarray(value, dtype=dt)
    return arr if list(arr.shape) == shape else np.full(shape, arr, dtype=dt)


def state_dict(opt: Any) -> dict:
    """Accumulators kind by kind (Paddle's order), then LR_Scheduler. Each value is a Tensor
    holding the accumulator's current values."""
    from .lr_schedulers import LRScheduler
    out: dict[str, Any] = {}
    for kind in opt._accumulators:
        for p in opt._params:
            state = opt._state.get(id(p))
            if not state:
                continue
            name = opt._acc_names[id(p), kind]
            if name not in out:
                t = Tensor._make(_as_array(opt, p, kind, state.get(kind)))
                t.name = name
                out[name] = t
    masters = _master_weights(opt)
    if masters:
        out["master_weights"] = masters
    if isinstance(opt._lr, LRScheduler):
        out["LR_Scheduler"] = opt._lr.state_dict()
    return out


def _master_weights(opt: Any) -> dict[str, Tensor]:
    """Paddle's `master_weights` entry: parameter name -> its float32 master (a copy),
    named `<param.name>_fp32_master_<n>`, for the parameters that have one."""
    out = {}
    for p in opt._params:
        master = opt._state.get(id(p), {}).get(MASTER)
        if master is not None and p.name not in out:
            t = Tensor._make(master.copy())
            t.name = opt._master_names.get(id(p), f"{p.name}_fp32_master_0")
            out[p.name] = t
    return out


def _load_masters(opt: Any, saved: Any) -> None:
    """Take each parameter's float32 master from a state dict's `master_weights` (keyed by
    parameter name, as Paddle's); a parameter without one gets it from its values at the
    next step."""
    if not isinstance(saved, dict):
        raise TypeError(f"set_state_dict: 'master_weights' must be a dict of parameter name "
                        f"-> Tensor, got {type(saved).__name__}")
    for p in opt._params:
        if p.name not in saved or not opt._keeps_master(p):
            continue
        arr = _value(f"master_weights[{p.name!r}]", saved[p.name])
        if list(arr.shape) != list(p._data.shape):
            raise ValueError(f"set_state_dict: master_weights[{p.name!r}] has shape "
                             f"{list(arr.shape)}, but the parameter has shape {p.shape}")
        opt._state.setdefault(id(p), {})[MASTER] = np.array(arr, dtype=np.float32, copy=True)


def _value(key: str, value: Any) -> np.ndarray:
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"set_state_dict: {key!r} holds a {type(value).__name__}, not a Tensor or "
                    "numpy array")


def set_state_dict(opt: Any, state: Any) -> None:
    """Load accumulators saved by jitgrad or by Paddle (see the module docstring)."""
    from .lr_schedulers import LambdaDecay, LRScheduler
    if not isinstance(state, dict):
        raise TypeError(f"set_state_dict: state_dict must be a dict, got {type(state).__name__}")
    state = dict(state)
    lr_state = state.pop("LR_Scheduler", None)
    masters = state.pop("master_weights", None)
    if isinstance(opt._lr, LRScheduler):
        if lr_state is None and not isinstance(opt._lr, LambdaDecay):
            raise ValueError("set_state_dict: the optimizer's rate is a scheduler, so the state "
                             "dict must hold 'LR_Scheduler' (the scheduler's state_dict())")
        if lr_state:
            opt._lr.set_state_dict(lr_state)
    updates, used = [], set()
    prefix = f"{opt._name}_" if opt._name else ""
    for p in opt._params:
        for kind in opt._accumulators:
            exact = opt._acc_names[id(p), kind]
            if exact in state:
                key = exact
            else:
                # with or without a master's name in between (saved with or without
                # multi_precision: the values are cast to this optimizer's dtype)
                pattern = re.compile(re.escape(p.name) + r"(?:_fp32_master_\d+)?"
                                     + re.escape(f"_{prefix}{kind}_") + r"\d+")
                found = [k for k in state if pattern.fullmatch(k)]
                if len(found) > 1:
                    raise ValueError(f"set_state_dict: several entries for {p.name}'s {kind}: "
                                     f"{sorted(found)}")
                if not found:
                    continue
                key = found[0]
            if key in used:
                continue
            arr = _value(key, state[key])
            want, dt = _spec(opt, p, kind)
            if kind in _POWERS and arr.size != 1 or kind not in _POWERS and \
                    list(arr.shape) != want:
                raise ValueError(f"set_state_dict: {key!r} has shape {list(arr.shape)}, but "
                                 f"{p.name}'s {kind} has shape {want}")
            value = dt.type(arr.reshape(-1)[0]) if kind in _POWERS else \
                np.array(arr, dtype=dt, copy=True)
            updates.append((p, kind, value))
            used.add(key)
    unknown = [k for k in state if k not in used]
    if unknown:
        msg = (f"set_state_dict: {len(unknown)} entries match no parameter of this "
               f"{type(opt).__name__}: {unknown[:4]}. Accumulators are matched by parameter "
               "name; build the model in the same order as when saving (or inside "
               "paddle.utils.unique_name.guard()) so its parameters get the same names.")
        if not used:
            raise ValueError(msg)
        import warnings         # (some matched: a subset of the saved model, as Paddle loads)
        warnings.warn(msg, stacklevel=3)
    for p, kind, value in updates:
        opt._state.setdefault(id(p), {})[kind] = value
    if masters is not None:
        _load_masters(opt, masters)


def minimize(opt: Any, loss: Tensor, parameters: Any = None, no_grad_set: Any = None
             ) -> tuple[list, list]:
    """Paddle's eager minimize: no backward (call loss.backward() first), one update of the
    parameters that have gradients, and `([], [(param, grad), ...])` back. Gradients stay.
    `parameters` (Tensors or names) limits the update; `no_grad_set` (Tensors or names)
    excludes parameters, as the docs say (Paddle 3.3.1's eager mode ignores it)."""
    if not isinstance(loss, Tensor):
        raise TypeError(f"minimize: loss must be a Tensor, got {type(loss).__name__}")

    by_name, own = {p.name: p for p in opt._params}, {id(p) for p in opt._params}

    def resolve(items: Any, what: str) -> set[int]:
        ids = set()
        for item in items:
            item = by_name.get(item, item) if isinstance(item, str) else item
            if not isinstance(item, Tensor):
                raise TypeError(f"minimize: {what} must hold Tensors or names, got "
                                f"{item!r}")
            if id(item) not in own:
                raise ValueError(f"minimize: {what} holds {item.name or 'a tensor'}, which is "
                                 "not among this optimizer's parameters")
            ids.add(id(item))
        return ids

    chosen = resolve(parameters, "parameters") if parameters else None
    skip = resolve(no_grad_set, "no_grad_set") if no_grad_set else set()
    rows = [r for r in opt._rows if (chosen is None or id(r[0]) in chosen)
            and id(r[0]) not in skip]
    pairs = [(r[0], r[0].grad) for r in rows if r[0]._grad is not None
             and not r[0]._stop_gradient]
    opt._step_rows(rows)
    return [], pairs
