"""Optimizers (paddle.optimizer names): SGD, Momentum, Adam, AdamW, RMSProp, Adagrad,
Adamax, Adadelta, Lamb; the schedulers of `optimizer.lr` live in lr_schedulers.py.

step() updates each parameter from its .grad, outside any graph: the parameter gets a new
buffer (copy on write, so arrays shared with it keep their values) and its version counter
goes up, so a graph recorded before the step cannot be backpropagated through by mistake.
clear_grad() zeroes the gradients.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterable

import numpy as np

from . import state as optimizer_state
from ..core import grad_mode, tape
from .lr_schedulers import LRScheduler
from ..core.tensor import Tensor
from ..ops.core import compiled_kernels
from ..regularizer import L1Decay, L2Decay


def _clip(clip: Callable, params: list[Tensor], grads: list[np.ndarray]) -> list:
    """grad_clip on one group's gradients: jitgrad's clips take the arrays; another callable
    (a ClipGradBase subclass) gets Paddle's [(param, grad Tensor)] and gives them back."""
    fast = getattr(clip, "_clip_arrays", None)
    if fast is not None:
        return fast(grads)
    pairs = clip([(p, Tensor._make(g)) for p, g in zip(params, grads)])
    out = {id(p): g for p, g in pairs}
    return [g if id(p) not in out else
            (out[id(p)]._data if isinstance(out[id(p)], Tensor) else np.asarray(out[id(p)]))
            for p, g in zip(params, grads)]


def _number(value: float | Tensor) -> float:
    """A hyperparameter given as a float or a one-element Tensor, its value now."""
    return value if type(value) is float else float(value)


def _regularizer(owner: str, value: Any) -> tuple[str, float] | None:
    """weight_decay as Paddle reads it: a float (or int) is L2Decay(value); L1Decay and
    L2Decay as themselves; None or 0 is none."""
    if value is None:
        return None
    if isinstance(value, L1Decay):
        return ("l1", value.coeff) if value.coeff else None
    if isinstance(value, L2Decay):
        return ("l2", value.coeff) if value.coeff else None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{owner}: weight_decay must be a float, L1Decay or L2Decay, got "
                        f"{value!r}")
    return ("l2", float(value)) if value else None


_F16 = np.dtype(np.float16)
_MASTER = optimizer_state.MASTER       # keys in a float16 parameter's state: its master,
_WRITTEN = "_fp32_master_written"      # and the float16 array the last step gave it


def _master_in(p: Tensor, state: dict) -> tuple[Tensor, dict]:
    """Put p's float32 master in p._data for the update rule to read and replace. The
    master is made from p at the first step, and again when p no longer holds the master
    rounded (its values were set since, e.g. by loading a model without its optimizer)."""
    master = state.get(_MASTER)
    if master is None or (state.get(_WRITTEN) is not p._data and not np.array_equal(
            master.astype(np.float16), p._data)):
        master = p._data.astype(np.float32)
    p._data = master
    return p, state


def _float32_in(p: Tensor) -> tuple[Tensor, None]:
    """Put p's values as float32 in p._data for one update (no master kept): without
    multi_precision a float16 parameter's update still runs in float32 (Adam's eps 1e-8 is
    0 in float16 and v = (1 - b2) g^2 underflows: w went to -inf in three steps)."""
    p._data = p._data.astype(np.float32)
    return p, None


def _masters_out(swapped: list[tuple[Tensor, dict | None]]) -> None:
    """Keep each updated master (state None: none kept) and give its parameter the result
    rounded to float16."""
    for p, state in swapped:
        if state is None:
            p._data = p._data.astype(np.float16)
            continue
        state[_MASTER] = p._data
        p._data = state[_WRITTEN] = p._data.astype(np.float16)


def _fused_multiply_add(a: Any, b: Any, c: Any) -> Any:
    """a * b + c rounded once for float32, as Paddle's CPU optimizer kernels (built with FMA)
    round it; the float64 product of two float32 values is exact, so only the sum rounds
    (twice, float64 then float32: a 1-ulp slip is possible but rare)."""
    if np.result_type(a, b, c) != np.float32:
        return a * b + c
    if type(b) is np.ndarray and type(c) is np.ndarray and b.shape == c.shape and \
            b.dtype == c.dtype == np.float32 and b.flags.c_contiguous and \
            c.flags.c_contiguous and np.ndim(a) == 0:
        kernels = compiled_kernels("forward_binary")
        if kernels is not None:         # (one pass; numpy's form below made three copies)
            out = np.empty(b.shape, np.float32)
            kernels.scale_add32(float(a), b.reshape(-1), c.reshape(-1), out.reshape(-1))
            return out
    wide = np.float64
    return (np.asarray(a, wide) * np.asarray(b, wide) + np.asarray(c, wide)).astype(np.float32)


def _attr(value: float, dt: type) -> Any:
    """A hyperparameter as Paddle's kernels read it: a float32 attribute, widened to the
    parameter's precision (so float64 parameters see 0.95 as 0.949999988079071)."""
    return dt(np.float32(value))


class _Group:
    """One parameter group as a step reads it: its grad_clip, the hyperparameters it
    replaces (beta1, momentum...), AdamW's decoupled decay, and the rate scale and
    regularizer of its parameters that are plain Tensors (a Parameter carries its own, in
    optimize_attr and regularizer, read at every step as Paddle reads them)."""

    __slots__ = ("clip", "hyper", "decay", "lr", "regularizer")

    def __init__(self, clip: Callable | None, hyper: dict | None, decay: float, lr: float,
                 regularizer: Any) -> None:
        self.clip, self.hyper, self.decay = clip, hyper, decay
        self.lr, self.regularizer = lr, regularizer


_NO_ATTR = object()


class Optimizer:
    """The shared machinery: parameter groups, grad_clip, the update loop, the state dict.
    A subclass implements _update and names its accumulators as Paddle does.

    Weight decay as Paddle applies it: a parameter's own regularizer (ParamAttr(regularizer=),
    read at every step) replaces the optimizer's weight_decay; an L2 coefficient reaches
    _update as `wd` (the update rules add wd * p where Paddle's kernels do), anything else
    (L1Decay) is added to the gradient before _update. AdamW and Lamb (_decoupled) take their
    own decay in _update and get a parameter's regularizer added to the gradient.
    A parameter's optimize_attr['learning_rate'] (ParamAttr(learning_rate=), read at every
    step) scales the rate.

    Parameter groups (a list of dicts) as Paddle's _add_param_group: a group's learning_rate
    (1.0 when absent) becomes each of its parameters' optimize_attr['learning_rate'] and its
    weight_decay (the optimizer's when absent) their regularizer, replacing a ParamAttr's
    (AdamW: its decoupled decay instead); a group's grad_clip (the optimizer's when absent)
    clips that group alone; and its keys listed in _group_keys (beta1, epsilon, momentum...)
    replace the optimizer's for its parameters.

    multi_precision=True keeps a float32 master copy of each float16 parameter (Paddle's
    master weights): the step runs the same _update on the master, with a float32 gradient
    (clipped in float32) and float32 accumulators, and the parameter becomes the master
    rounded to float16, so updates smaller than half a float16 ulp add up instead of
    vanishing. The swap happens in _step_rows alone; see _master_in."""

    _accumulators: tuple[str, ...] = ()     # Paddle's accumulator names, in its order
    _group_keys: ClassVar[dict[str, str]] = {}    # a group's key -> the attribute it sets
    _decoupled = False                      # AdamW, Lamb: weight_decay is not a regularizer
    _group_decay_is_decoupled = False       # AdamW: a group's weight_decay is its decay

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        owner = type(self).__name__
        if parameters is None:
            raise ValueError(f"{owner} needs parameters=model.parameters() "
                             "(jitgrad has no static graph to collect them from)")
        if isinstance(parameters, (Tensor, dict, str)) or not hasattr(parameters, "__iter__"):
            raise TypeError(f"{owner}: parameters must be a list of Tensors (or of parameter "
                            f"group dicts), got {type(parameters).__name__}; wrap a single "
                            "parameter in a list")
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"{owner}: grad_clip must be a ClipGradByValue, ClipGradByNorm or "
                            f"ClipGradByGlobalNorm, got {grad_clip!r}")
        if not isinstance(learning_rate, (int, float, LRScheduler)):
            raise TypeError(f"learning_rate must be a float or an LRScheduler, got "
                            f"{learning_rate!r}")
        if self._decoupled:
            self._wd, self._reg = 0.0 if weight_decay is None else float(weight_decay), None
        else:
            self._reg = _regularizer(owner, weight_decay)
            self._wd = self._reg[1] if self._reg else 0.0
        self._reg_parsed: dict[int, tuple[Any, tuple | None]] = {}
        items = list(parameters)
        grouped = bool(items) and isinstance(items[0], dict)
        self._params, groups, seen = [], [], set()
        plain = None if grouped else _Group(grad_clip, None, self._wd, 1.0, None)
        for i, item in enumerate(items):
            if grouped != isinstance(item, dict):
                raise TypeError(f"{owner}: parameters mixes parameter group dicts and "
                                f"Tensors (item {i}); give a list of one kind")
            if grouped:
                params = item["params"]
                params = [params] if isinstance(params, Tensor) else list(params)
                grp = self._group(owner, item, weight_decay, grad_clip)
            else:
                params, grp = [item], plain     # one group: one global norm over all
            for p in params:
                if not isinstance(p, Tensor):
                    raise TypeError(f"parameters[{i}] holds a {type(p).__name__}, not a Tensor")
                if grouped:
                    if id(p) in seen:
                        raise ValueError(f"{owner}: parameter {p.name or ''} appears in more "
                                         "than one parameter group")
                    self._adopt(p, grp)
                seen.add(id(p))
                self._params.append(p)
                groups.append(grp)
        self._lr = learning_rate
        self._grad_clip = grad_clip
        self._state: dict[int, dict[str, Any]] = {}
        # per parameter, once: (tensor, state, group), so a step looks nothing up by id
        self._rows = [(p, self._state.setdefault(id(p), {}), grp)
                      for p, grp in zip(self._params, groups)]
        self._clipped = any(grp.clip is not None for grp in groups)
        self._name = name
        self._multi_precision = bool(multi_precision)
        optimizer_state.name_accumulators(self)

    def _group(self, owner: str, group: dict, weight_decay: Any, grad_clip: Any) -> _Group:
        hyper = {k: v for k, v in group.items() if k in self._group_keys} or None
        clip = group.get("grad_clip", grad_clip)
        if clip is not None and not callable(clip):
            raise TypeError(f"{owner}: a group's grad_clip must be a ClipGrad object, got "
                            f"{clip!r}")
        wd = group.get("weight_decay", weight_decay)
        if self._group_decay_is_decoupled:
            return _Group(clip, hyper, 0.0 if wd is None else float(wd),
                          float(group.get("learning_rate", 1.0)), None)
        _regularizer(owner, wd)                 # (checked here, read at each step)
        if isinstance(wd, (int, float)) and not isinstance(wd, bool):
            wd = L2Decay(float(wd))             # (0.0 too: no decay, not the optimizer's)
        return _Group(clip, hyper, self._wd, float(group.get("learning_rate", 1.0)), wd)

    def _adopt(self, p: Tensor, grp: _Group) -> None:
        """Paddle's _add_param_group on a Parameter: the group's rate and (but AdamW) its
        weight decay become the parameter's, replacing its ParamAttr's, for good."""
        if getattr(p, "optimize_attr", _NO_ATTR) is _NO_ATTR:
            return                              # a plain Tensor: the group keeps them
        p.optimize_attr = dict(p.optimize_attr or {}, learning_rate=grp.lr)
        if not self._group_decay_is_decoupled:
            p.regularizer = grp.regularizer

    def _decay_of(self, p: Tensor, grp: _Group) -> tuple[float, float, tuple | None]:
        """(rate scale, fused L2 coefficient, regularizer added to the gradient) for p now."""
        attr = getattr(p, "optimize_attr", _NO_ATTR)
        if attr is _NO_ATTR:
            scale, own = grp.lr, grp.regularizer
        else:
            scale = float(attr.get("learning_rate", 1.0)) if attr else 1.0
            own = getattr(p, "regularizer", None)
        if own is None:
            reg = self._reg
        else:
            hit = self._reg_parsed.get(id(own))
            if hit is None or hit[0] is not own:
                hit = self._reg_parsed[id(own)] = (own, _regularizer(
                    f"{type(self).__name__}: parameter {p.name}'s regularizer", own))
            reg = hit[1]
        if self._decoupled:
            return scale, grp.decay, reg
        if reg is not None and reg[0] == "l2":
            return scale, reg[1], None          # fused into the update, as in Paddle
        return scale, 0.0, reg

    def get_lr(self) -> float:
        return float(self._lr()) if isinstance(self._lr, LRScheduler) else float(self._lr)

    @property
    def _learning_rate(self) -> float | LRScheduler:
        """Paddle's attribute for the rate (a float or the LRScheduler), which Paddle code
        reads (`opt._learning_rate.step()`) though it is private."""
        return self._lr

    @_learning_rate.setter
    def _learning_rate(self, value: float | LRScheduler) -> None:
        if isinstance(value, LRScheduler):
            self.set_lr_scheduler(value)
        else:
            self._lr = float(value)

    def set_lr(self, value: float) -> None:
        if isinstance(self._lr, LRScheduler):
            raise RuntimeError("set_lr cannot be used while an LRScheduler sets the rate")
        self._lr = float(value)

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        """Let scheduler set the rate from now on (Paddle's; a float rate is replaced)."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"set_lr_scheduler: scheduler must be an LRScheduler, got "
                            f"{type(scheduler).__name__}")
        self._lr = scheduler

    def _live(self, rows: list[tuple]) -> list[tuple[tuple, np.ndarray]]:
        """(row, gradient) of each parameter with a gradient, after each group's grad_clip."""
        # (a float16 parameter's gradient as float32, before any clip: its update runs in
        # float32, on its master with multi_precision)
        live = [(row, g.astype(np.float32) if g.dtype == _F16 else g) for row in rows
                if (g := row[0]._grad) is not None and not row[0]._stop_gradient]
        if not self._clipped or not live:
            return live
        by_group: dict[int, list[int]] = {}
        for i, (row, _) in enumerate(live):
            if row[2].clip is not None and getattr(row[0], "need_clip", True):
                by_group.setdefault(id(row[2]), []).append(i)
        # a parameter made with ParamAttr(need_clip=False) is neither clipped nor counted in
        # a global norm (Paddle); each group is clipped on its own
        for members in by_group.values():
            clip = live[members[0]][0][2].clip
            grads = _clip(clip, [live[i][0][0] for i in members], [live[i][1] for i in members])
            for i, g in zip(members, grads):
                live[i] = (live[i][0], g)
        return live

    def step(self) -> None:
        """Apply one update to every parameter that has a gradient."""
        self._step_rows(self._rows)

    def apply_gradients(self, params_grads: list[tuple[Tensor, Tensor]]) -> list:
        """One update with the given (parameter, gradient) pairs in place of the parameters'
        .grad (Paddle's: clipped, regularized, then applied; .grad is left as it was)."""
        given = {}
        for p, g in params_grads:
            if g is not None:
                given[id(p)] = g._data if isinstance(g, Tensor) else np.asarray(g)
        rows = [row for row in self._rows if id(row[0]) in given]
        saved = [(row[0], row[0]._grad) for row in rows]
        try:
            for p, _ in saved:
                p._grad = given[id(p)]
            self._step_rows(rows)
        finally:
            for p, g in saved:
                p._grad = g
        return []

    def _step_rows(self, rows: list[tuple]) -> None:
        lr = self.get_lr()
        swapped: list[tuple[Tensor, dict]] = []    # parameters holding their master now
        try:
            with grad_mode.no_grad():
                for (p, state, grp), g in self._live(rows):
                    if type(g) is not np.ndarray or g.dtype != p._data.dtype:
                        if p._data.dtype == _F16:
                            swapped.append(_master_in(p, state) if self._multi_precision
                                           else _float32_in(p))
                        g = np.asarray(g, dtype=p._data.dtype)
                    scale, wd, reg = self._decay_of(p, grp)
                    if reg is None and grp.hyper is None:
                        self._update(p, g, lr * scale, wd, state)
                    else:
                        self._update_extra(p, g, lr * scale, wd, state, reg, grp.hyper)
                    p._version += 1
        finally:
            if swapped:
                _masters_out(swapped)
        tape.bump_epoch()

    def _state_dtype(self, p: Tensor) -> np.dtype:
        """The dtype of p's accumulators: float32 for a float16 parameter (its update runs in
        float32, on its master with multi_precision), else the parameter's."""
        dt = p._data.dtype
        return np.dtype(np.float32) if dt == _F16 else dt

    def _keeps_master(self, p: Tensor) -> bool:
        """Does p have a float32 master kept across steps (multi_precision, float16)?"""
        return self._multi_precision and p._data.dtype == _F16

    def _update_extra(self, p: Tensor, g: np.ndarray, lr: float, wd: float, state: dict,
                      reg: tuple[str, float] | None, hyper: dict | None) -> None:
        """_update with a regularizer added to the gradient (Paddle's
        append_regularization_ops: L1 coeff * sign(p), L2 coeff * p) and a group's
        hyperparameters in place of the optimizer's for this parameter."""
        if reg is not None:
            c = p._data.dtype.type(reg[1])
            g = g + c * (np.sign(p._data) if reg[0] == "l1" else p._data)
        saved = {}
        try:
            for key, value in (hyper or {}).items():
                attr = self._group_keys[key]
                old = saved[attr] = getattr(self, attr)
                setattr(self, attr, type(old)(value) if type(old) in (float, bool) else value)
            self._update(p, g, lr, wd, state)
        finally:
            for attr, old in saved.items():
                setattr(self, attr, old)

    def _update(self, p: Tensor, g: np.ndarray, lr: float, wd: float, state: dict) -> None:
        """Give p its new values (a new array: copy on write); wd is its weight decay."""
        raise NotImplementedError

    def clear_grad(self, set_to_zero: bool = True) -> None:
        for p in self._params:
            if p._grad is not None:
                if set_to_zero:
                    p._grad[...] = 0
                else:
                    p._grad = None

    clear_gradients = clear_grad

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's name (Paddle 3.3.1 has it): drop the gradients, or zero them."""
        self.clear_grad(set_to_zero=not set_to_none)

    def minimize(self, loss: Tensor, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> tuple[list, list]:
        """Paddle's eager minimize: apply the gradients of a loss already backpropagated;
        returns ([], [(param, grad), ...]) (state.py)."""
        return optimizer_state.minimize(self, loss, parameters, no_grad_set)

    def state_dict(self) -> dict:
        """Accumulators named as Paddle names them, and LR_Scheduler (state.py)."""
        return optimizer_state.state_dict(self)

    def set_state_dict(self, state_dict: dict) -> None:
        """Load a state dict saved by jitgrad or Paddle (state.py)."""
        optimizer_state.set_state_dict(self, state_dict)

    set_dict = load_state_dict = set_state_dict


class SGD(Optimizer):
    """p -= lr * (g + weight_decay * p)."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, multi_precision: bool = False,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision)

    def _update(self, p, g, lr, wd, state):
        if wd:
            g = g + wd * p._data
        p._data = p._data - p._data.dtype.type(lr) * g


class Momentum(Optimizer):
    """v = mu * v + g; p -= lr * v (Nesterov: p -= lr * (g + mu * v))."""

    _accumulators = ("velocity",)
    _group_keys: ClassVar[dict[str, str]] = {"momentum": "_mu", "use_nesterov": "_nesterov",
                                             "rescale_grad": "_rescale"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, momentum: float = 0.9,
                 parameters: Iterable[Tensor] | None = None, use_nesterov: bool = False,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: str | None = None) -> None:
        if momentum is None:
            raise ValueError("Momentum: momentum is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision)
        self._mu, self._nesterov = float(momentum), bool(use_nesterov)
        self._rescale = float(rescale_grad)

    def _update(self, p, g, lr, wd, state):
        if self._rescale != 1.0:        # Paddle's kernel: g * rescale_grad, then + wd * p
            g = g * p._data.dtype.type(self._rescale)
        if wd:      # the kernel's regularization_coeff: a float32 attribute, as mu below
            g = g + _attr(wd, p._data.dtype.type) * p._data
        v = state.get("velocity")
        # mu as the float32 attribute Paddle's kernel reads, also for float64 parameters
        # (3.3.1: velocity 0.9 * 1 + 1 = 1.899999976158142 in float64)
        mu = _attr(self._mu, p._data.dtype.type)
        v = g.copy() if v is None else mu * v + g
        state["velocity"] = v
        step = g + mu * v if self._nesterov else v
        p._data = p._data - (lr * step).astype(p._data.dtype)


class Adam(Optimizer):
    """Adam with Paddle's bias correction: lr_t = lr sqrt(1 - b2^t) / (1 - b1^t),
    p -= lr_t * m / (sqrt(v) + eps sqrt(1 - b2^t))."""

    _accumulators = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
    _group_keys: ClassVar[dict[str, str]] = {"beta1": "_b1", "beta2": "_b2", "epsilon": "_eps"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, lazy_mode: bool = False,
                 multi_precision: bool = False, use_multi_tensor: bool = False,
                 amsgrad: bool = False, name: str | None = None) -> None:
        self._amsgrad = bool(amsgrad)
        if self._amsgrad:       # Paddle's state dict lists moment2_max after moment2
            self._accumulators = ("moment1", "moment2", "moment2_max", "beta1_pow_acc",
                                  "beta2_pow_acc")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision)
        # a Tensor beta is read at every step, as Paddle reads it (a schedule may set it)
        self._b1, self._b2 = (b if isinstance(b, Tensor) else float(b) for b in (beta1, beta2))
        self._eps = float(epsilon)
        for k, b in (("beta1", self._b1), ("beta2", self._b2)):
            if not isinstance(b, Tensor) and not 0 <= b < 1:     # (Paddle 3.3.1 refuses)
                raise ValueError(f"{type(self).__name__}: {k} must lie in [0, 1), got {b}")
        if not self._eps >= 0:
            raise ValueError(f"{type(self).__name__}: epsilon must be >= 0, got {self._eps}")

    def _decay(self, p, g, lr, wd):
        return g + wd * p._data if wd else g

    def _update(self, p, g, lr, wd, state):
        g = self._decay(p, g, lr, wd)
        # beta^t as Paddle keeps it: a running product in the parameter's precision
        dt = p._data.dtype.type
        b1, b2 = dt(_number(self._b1)), dt(_number(self._b2))
        b1p, b2p = state.get("beta1_pow_acc", b1), state.get("beta2_pow_acc", b2)
        # 1 - beta in the parameter's precision too, as Paddle's kernel: with 0.999 in
        # float32, 1 - b2 is 9.9998713e-4, and the bias correction sqrt(1 - b2^t) must see
        # the same rounding or the first step is off by 6e-6 relative
        m = state["moment1"] = _fused_multiply_add(b1, state.get("moment1", 0.0), (1 - b1) * g)
        # beta * moment fused into the sum, and (1 - b2) * (g * g) grouped so: Paddle 3.3.1's
        # CPU kernel rounds so (measured: the plain forms are 1 ulp off from the first steps)
        v = state["moment2"] = _fused_multiply_add(b2, state.get("moment2", 0.0),
                                                   (1 - b2) * (g * g))
        if self._amsgrad:       # AMSGrad: the largest second moment so far
            v = state["moment2_max"] = np.maximum(state.get("moment2_max", 0.0), v)
        c2 = np.sqrt(1 - b2p)
        # grouped as Paddle's CPU kernel: lr * (c2 / (1 - b1^t)), then lr_t * (m / ...)
        # and p - lr_t * step fused as its FMA build rounds it (measured: 1 ulp off otherwise)
        lr_t = dt(lr) * (c2 / (1 - b1p))
        step = m / (np.sqrt(v) + self._eps * c2)
        p._data = _fused_multiply_add(-lr_t, step, p._data).astype(p._data.dtype)
        state["beta1_pow_acc"], state["beta2_pow_acc"] = b1p * b1, b2p * b2


class AdamW(Adam):
    """Adam with decoupled weight decay: p -= lr * coeff * p before the Adam step
    (weight_decay defaults to 0.01, as in Paddle). lr_ratio(p) scales the parameter's rate
    (decay and step), as Paddle's GPU kernel does (Paddle 3.3.1's CPU kernel refuses it)."""

    _decoupled = True
    _group_decay_is_decoupled = True

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = 0.01,
                 use_lowprecision_moment: bool = False, lr_ratio: Callable | None = None,
                 apply_decay_param_fun: Callable | None = None,
                 grad_clip: Callable | None = None, lazy_mode: bool = False,
                 multi_precision: bool = False, amsgrad: bool = False,
                 name: str | None = None) -> None:
        if isinstance(weight_decay, bool) or not isinstance(
                weight_decay, (int, float, np.floating, np.integer, Tensor)):
            raise TypeError(f"AdamW: weight_decay must be a float (the decoupled decay "
                            f"coefficient), got {weight_decay!r}; L2Decay / L1Decay belong "
                            "in ParamAttr(regularizer=...)")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"AdamW: lr_ratio must be a function of the parameter, got "
                            f"{lr_ratio!r}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                         grad_clip, multi_precision=multi_precision, amsgrad=amsgrad, name=name)
        self._apply_decay = apply_decay_param_fun
        self._lr_ratio = lr_ratio

    def _update(self, p, g, lr, wd, state):
        if self._lr_ratio is not None:
            lr = lr * float(self._lr_ratio(p))
        super()._update(p, g, lr, wd, state)

    def _decay(self, p, g, lr, wd):
        if wd and (self._apply_decay is None or self._apply_decay(p.name)):
            # lr * coeff in the parameter's precision, then fused into p - (lr coeff) p, as
            # Paddle 3.3.1's FMA CPU kernel rounds it (measured: 1 ulp off otherwise)
            dt = p._data.dtype.type
            p._data = _fused_multiply_add(-(dt(lr) * _attr(wd, dt)), p._data, p._data)
        return g


def _l2(p: Tensor, g: np.ndarray, wd: float) -> np.ndarray:
    """The weight_decay of Paddle's base Optimizer (L2Decay or a float): g + coeff * p."""
    return g + p._data.dtype.type(wd) * p._data if wd else g


def _nonneg(owner: str, **values: float) -> None:
    for key, value in values.items():
        if value is None:
            raise ValueError(f"{owner}: {key} is not set")
        if not value >= 0:
            raise ValueError(f"{owner}: invalid {key}={value!r}, expected {key} >= 0")


class RMSProp(Optimizer):
    """Paddle's RMSProp: the rate sits inside the momentum buffer and epsilon inside the root:
    ms = rho ms + (1-rho) g^2; (centered: mg = rho mg + (1-rho) g, ms -> ms - mg^2);
    mom = momentum mom + lr g / sqrt(ms + eps); p -= mom."""

    _accumulators = ("momentum", "mean_square", "mean_grad")
    _group_keys: ClassVar[dict[str, str]] = {"rho": "_rho", "epsilon": "_eps", "momentum": "_mu",
                                             "centered": "_centered"}

    def __init__(self, learning_rate: float | LRScheduler, rho: float = 0.95,
                 epsilon: float = 1.0e-6, momentum: float = 0.0, centered: bool = False,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None) -> None:
        if learning_rate is None:
            raise ValueError("RMSProp: learning_rate is not set")
        _nonneg("RMSProp", rho=rho, epsilon=epsilon, momentum=momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho, self._eps = float(rho), float(epsilon)
        self._mu, self._centered = float(momentum), bool(centered)

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        rho = _attr(self._rho, dt)
        ms = state["mean_square"] = rho * state.get("mean_square", 0.0) + (1 - rho) * g * g
        if self._centered:
            mg = state["mean_grad"] = rho * state.get("mean_grad", 0.0) + (1 - rho) * g
            ms = ms - mg * mg
        mom = dt(lr) * g / np.sqrt(ms + _attr(self._eps, dt))
        if "momentum" in state:
            mom = _attr(self._mu, dt) * state["momentum"] + mom
        state["momentum"] = mom
        p._data = p._data - mom.astype(p._data.dtype, copy=False)


class Adagrad(Optimizer):
    """moment += g^2 (starting from initial_accumulator_value);
    p -= lr g / (sqrt(moment) + eps)."""

    _accumulators = ("moment",)
    _group_keys: ClassVar[dict[str, str]] = {"epsilon": "_eps",
                                             "initial_accumulator_value": "_init_acc"}

    def __init__(self, learning_rate: float | LRScheduler, epsilon: float = 1.0e-6,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None,
                 initial_accumulator_value: float = 0.0) -> None:
        if learning_rate is None:
            raise ValueError("Adagrad: learning_rate is not set")
        _nonneg("Adagrad", epsilon=epsilon, initial_accumulator_value=initial_accumulator_value)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._eps, self._init_acc = float(epsilon), float(initial_accumulator_value)

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        acc = state.get("moment")
        if acc is None:
            acc = np.full_like(p._data, self._init_acc)
        acc = state["moment"] = acc + g * g
        p._data = p._data - (dt(lr) * g / (np.sqrt(acc) + _attr(self._eps, dt))).astype(
            p._data.dtype, copy=False)


class Adamax(Optimizer):
    """Paddle's Adamax (epsilon inside the max): m = b1 m + (1-b1) g;
    u = max(b2 u + eps, |g|); p -= lr / (1 - b1^t) * m / u."""

    _accumulators = ("moment", "inf_norm", "beta1_pow_acc")
    _group_keys: ClassVar[dict[str, str]] = {"beta1": "_b1", "beta2": "_b2", "epsilon": "_eps"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None) -> None:
        for key, b in (("beta1", beta1), ("beta2", beta2)):
            if not 0 <= b < 1:
                raise ValueError(f"Adamax: invalid {key}={b!r}, expected {key} in [0, 1)")
        _nonneg("Adamax", epsilon=epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._b1, self._b2, self._eps = float(beta1), float(beta2), float(epsilon)

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        b1p = state.get("beta1_pow_acc", dt(self._b1))   # beta1^t, as Paddle keeps it
        # 1 - b1 rounded as Paddle's kernel rounds it (see Adam), its betas and epsilon
        # float32 attributes (beta1^t stays a running product in the parameter's precision)
        b1 = _attr(self._b1, dt)
        m = state["moment"] = b1 * state.get("moment", 0.0) + (1 - b1) * g
        u = state["inf_norm"] = np.maximum(_attr(self._b2, dt) * state.get("inf_norm", 0.0)
                                           + _attr(self._eps, dt), np.abs(g))
        lr_t = dt(lr / (1 - b1p))
        state["beta1_pow_acc"] = b1p * dt(self._b1)
        p._data = p._data - (lr_t * m / u).astype(p._data.dtype, copy=False)


class Adadelta(Optimizer):
    """Paddle's Adadelta, which (unlike the paper) scales the step by learning_rate:
    Eg = rho Eg + (1-rho) g^2; d = -sqrt((Edx + eps) / (Eg + eps)) g;
    Edx = rho Edx + (1-rho) d^2; p += lr d."""

    _accumulators = ("_avg_squared_grad", "_avg_squared_update")
    _group_keys: ClassVar[dict[str, str]] = {"epsilon": "_eps", "rho": "_rho"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, epsilon: float = 1.0e-6,
                 rho: float = 0.95, parameters: Iterable[Tensor] | None = None,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        if learning_rate is None:
            raise ValueError("Adadelta: learning_rate is not set")
        _nonneg("Adadelta", epsilon=epsilon, rho=rho)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._eps, self._rho = float(epsilon), float(rho)

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        rho, eps = _attr(self._rho, dt), _attr(self._eps, dt)
        eg = state["_avg_squared_grad"] = rho * state.get("_avg_squared_grad", 0.0) + \
            (1 - rho) * g * g
        edx = state.get("_avg_squared_update", 0.0)
        d = -np.sqrt((edx + eps) / (eg + eps)) * g
        state["_avg_squared_update"] = rho * edx + (1 - rho) * d * d
        p._data = p._data + (dt(lr) * d).astype(p._data.dtype, copy=False)


class Lamb(Optimizer):
    """LAMB: r = m_hat / (sqrt(v_hat) + eps) + lamb_weight_decay * p (bias corrected with
    1 - beta^t), p -= lr * (||p|| / ||r||) * r, the trust ratio 1 when either norm is 0.
    A parameter for which exclude_from_weight_decay_fn(p) is true gets no decay (and, unless
    always_adapt, no trust ratio). Paddle's weight_decay argument does not exist here."""

    _accumulators = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
    _group_keys: ClassVar[dict[str, str]] = {"beta1": "_b1", "beta2": "_b2", "epsilon": "_eps",
                   "lamb_weight_decay": "_lamb_wd",
                   "exclude_from_weight_decay_fn": "_exclude"}
    _decoupled = True

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 lamb_weight_decay: float = 0.01, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, parameters: Iterable[Tensor] | None = None,
                 grad_clip: Callable | None = None,
                 exclude_from_weight_decay_fn: Callable[[Tensor], bool] | None = None,
                 multi_precision: bool = False, always_adapt: bool = False,
                 name: str | None = None) -> None:
        for key, b in (("beta1", beta1), ("beta2", beta2)):
            if b is None or not 0 <= b < 1:
                raise ValueError(f"Lamb: invalid {key}={b!r}, expected {key} in [0, 1)")
        _nonneg("Lamb", epsilon=epsilon)
        super().__init__(learning_rate, parameters, None, grad_clip, name, multi_precision)
        self._b1, self._b2, self._eps = float(beta1), float(beta2), float(epsilon)
        self._lamb_wd = float(lamb_weight_decay)
        self._exclude = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _update(self, p, g, lr, wd, state):
        dt = p._data.dtype.type
        b1, b2 = _attr(self._b1, dt), _attr(self._b2, dt)    # float32 attributes in Paddle
        # beta^t as Paddle keeps it: a running product in the parameter's precision,
        # starting from the exact beta
        b1p = state.get("beta1_pow_acc", dt(self._b1))
        b2p = state.get("beta2_pow_acc", dt(self._b2))
        state["beta1_pow_acc"], state["beta2_pow_acc"] = b1p * b1, b2p * b2
        m = state["moment1"] = b1 * state.get("moment1", 0.0) + (1 - b1) * g
        v = state["moment2"] = b2 * state.get("moment2", 0.0) + (1 - b2) * g * g
        wd = 0.0 if self._exclude is not None and self._exclude(p) else self._lamb_wd
        r = (m / (1 - b1p)) / (np.sqrt(v / (1 - b2p)) + _attr(self._eps, dt))
        if wd:
            r = r + _attr(wd, dt) * p._data
        ratio = 1.0
        if wd > 0 or self._always_adapt:
            p_norm, r_norm = float(np.linalg.norm(p._data)), float(np.linalg.norm(r))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        p._data = p._data - (dt(lr * ratio) * r).astype(p._data.dtype, copy=False)
