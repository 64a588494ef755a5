"""Optimizers (paddle.optimizer names): SGD, Momentum, Adam, AdamW.

step() updates each parameter from its .grad, outside any graph: the parameter gets a new
buffer (copy on write, so arrays shared with it keep their values) and its version counter
goes up, so a graph recorded before the step cannot be backpropagated through by mistake.
clear_grad() zeroes the gradients.
"""

from __future__ import annotations

import math
import types
from typing import Any, Callable, Iterable

import numpy as np

from . import tape
from .tensor import Tensor


class LRScheduler:
    """Minimal scheduler protocol: an object with last_lr / __call__ and step()."""

    def __init__(self, learning_rate: float = 0.1) -> None:
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = 0

    def __call__(self) -> float:
        return self.last_lr

    def get_lr(self) -> float:
        return self.base_lr

    def step(self, epoch: int | None = None) -> None:
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = self.get_lr()


class StepDecay(LRScheduler):
    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1) -> None:
        super().__init__(learning_rate)
        self.step_size, self.gamma = step_size, gamma

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate: float, milestones: list[int], gamma: float = 0.1) -> None:
        super().__init__(learning_rate)
        self.milestones, self.gamma = sorted(milestones), gamma

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** sum(self.last_epoch >= m for m in self.milestones)


class ExponentialDecay(LRScheduler):
    def __init__(self, learning_rate: float, gamma: float) -> None:
        super().__init__(learning_rate)
        self.gamma = gamma

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class CosineAnnealingDecay(LRScheduler):
    """eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2 (the closed form)."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0.0) -> None:
        super().__init__(learning_rate)
        self.T_max, self.eta_min = T_max, eta_min

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LambdaDecay(LRScheduler):
    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float]) -> None:
        super().__init__(learning_rate)
        self.lr_lambda = lr_lambda

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class PiecewiseDecay(LRScheduler):
    def __init__(self, boundaries: list[int], values: list[float]) -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay needs one more value than boundaries")
        super().__init__(values[0])
        self.boundaries, self.values = boundaries, values

    def get_lr(self) -> float:
        return self.values[sum(self.last_epoch >= b for b in self.boundaries)]


class LinearWarmup(LRScheduler):
    """Linear ramp from start_lr to end_lr over warmup_steps, then learning_rate (a float or
    another scheduler, stepped along)."""

    def __init__(self, learning_rate: float | LRScheduler, warmup_steps: int, start_lr: float,
                 end_lr: float) -> None:
        self.inner = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(start_lr)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * \
                self.last_epoch / self.warmup_steps
        if isinstance(self.inner, LRScheduler):
            return self.inner()
        return float(self.inner)

    def step(self, epoch: int | None = None) -> None:
        if isinstance(self.inner, LRScheduler) and self.last_epoch >= self.warmup_steps:
            self.inner.step()
        super().step(epoch)


lr = types.SimpleNamespace(
    LRScheduler=LRScheduler, StepDecay=StepDecay, MultiStepDecay=MultiStepDecay,
    ExponentialDecay=ExponentialDecay, CosineAnnealingDecay=CosineAnnealingDecay,
    LambdaDecay=LambdaDecay, PiecewiseDecay=PiecewiseDecay, LinearWarmup=LinearWarmup)


class Optimizer:
    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None) -> None:
        if parameters is None:
            raise ValueError(f"{type(self).__name__} needs parameters=model.parameters() "
                             "(jitgrad has no static graph to collect them from)")
        coeff = getattr(weight_decay, "coeff", weight_decay)    # L2Decay(coeff) or a float
        self._wd = 0.0 if coeff is None else float(coeff)
        # parameter groups: [{'params': [...], 'learning_rate': scale, 'weight_decay': c}]
        self._params, self._lr_scale, self._wd_of = [], {}, {}
        for i, item in enumerate(parameters):
            group = item if isinstance(item, dict) else {"params": [item]}
            wd = group.get("weight_decay", self._wd)
            wd = 0.0 if wd is None else float(getattr(wd, "coeff", wd))
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(f"parameters[{i}] holds a {type(p).__name__}, not a Tensor")
                self._params.append(p)
                self._lr_scale[id(p)] = float(group.get("learning_rate", 1.0))
                self._wd_of[id(p)] = wd
        if not isinstance(learning_rate, (int, float, LRScheduler)):
            raise TypeError(f"learning_rate must be a float or an LRScheduler, got "
                            f"{learning_rate!r}")
        self._lr = learning_rate
        self._grad_clip = grad_clip
        self._state: dict[int, dict[str, Any]] = {}
        # per parameter, once: (tensor, lr scale, weight decay, state), so a step looks
        # nothing up by id (a small model's step is mostly this loop)
        self._rows = [(p, self._lr_scale[id(p)], self._wd_of[id(p)],
                       self._state.setdefault(id(p), {})) for p in self._params]

    def get_lr(self) -> float:
        return float(self._lr()) if isinstance(self._lr, LRScheduler) else float(self._lr)

    def set_lr(self, value: float) -> None:
        if isinstance(self._lr, LRScheduler):
            raise RuntimeError("set_lr cannot be used while an LRScheduler sets the rate")
        self._lr = float(value)

    def _live(self) -> list[tuple[tuple, np.ndarray]]:
        """(row, gradient) of each parameter with a gradient, after grad_clip."""
        live = [(row, row[0]._grad) for row in self._rows
                if row[0]._grad is not None and not row[0]._stop_gradient]
        if self._grad_clip is not None and live:
            grads = self._grad_clip([g for _, g in live])
            live = [(row, g) for (row, _), g in zip(live, grads)]
        return live

    def step(self) -> None:
        """Apply one update to every parameter that has a gradient."""
        lr = self.get_lr()
        with tape.no_grad():
            for (p, scale, wd, state), g in self._live():
                if type(g) is not np.ndarray or g.dtype != p._data.dtype:
                    g = np.asarray(g, dtype=p._data.dtype)
                self._update(p, g, lr * scale, wd, state)
                p._version += 1
        tape.bump_epoch()

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

    def minimize(self, loss: Tensor, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> None:
        """Paddle's eager minimize: apply the gradients of a loss already backpropagated."""
        self.step()

    def state_dict(self) -> dict:
        return {f"param_{i}.{k}": v for i, p in enumerate(self._params)
                for k, v in self._state.get(id(p), {}).items()}


class SGD(Optimizer):
    """p -= lr * (g + weight_decay * p)."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip)

    def _update(self, p, g, lr, wd, state):
        if wd:
            g = g + wd * p._data
        p._data = p._data - p._data.dtype.type(lr) * g


class Momentum(Optimizer):
    """v = mu * v + g; p -= lr * v (Nesterov: p -= lr * (g + mu * v))."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001, momentum: float = 0.9,
                 parameters: Iterable[Tensor] | None = None, use_nesterov: bool = False,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip)
        self._mu, self._nesterov = float(momentum), bool(use_nesterov)

    def _update(self, p, g, lr, wd, state):
        if wd:
            g = g + wd * p._data
        v = state.get("velocity")
        v = g.copy() if v is None else self._mu * v + g
        state["velocity"] = v
        step = g + self._mu * v if self._nesterov else v
        p._data = p._data - (lr * step).astype(p._data.dtype)


class Adam(Optimizer):
    """Adam with Paddle's bias correction: lr_t = lr sqrt(1 - b2^t) / (1 - b1^t),
    p -= lr_t * m / (sqrt(v) + eps sqrt(1 - b2^t))."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, lazy_mode: bool = False,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip)
        self._b1, self._b2, self._eps = float(beta1), float(beta2), float(epsilon)

    def _decay(self, p, g, lr, wd):
        return g + wd * p._data if wd else g

    def _update(self, p, g, lr, wd, state):
        g = self._decay(p, g, lr, wd)
        t = state["t"] = state.get("t", 0) + 1
        m = state["moment1"] = self._b1 * state.get("moment1", 0.0) + (1 - self._b1) * g
        v = state["moment2"] = self._b2 * state.get("moment2", 0.0) + (1 - self._b2) * g * g
        c2 = np.sqrt(1 - self._b2 ** t)
        lr_t = lr * c2 / (1 - self._b1 ** t)
        p._data = p._data - (lr_t * m / (np.sqrt(v) + self._eps * c2)).astype(p._data.dtype)


class AdamW(Adam):
    """Adam with decoupled weight decay: p -= lr * coeff * p before the Adam step
    (weight_decay defaults to 0.01, as in Paddle)."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = 0.01,
                 lr_ratio: Callable | None = None,
                 apply_decay_param_fun: Callable | None = None,
                 grad_clip: Callable | None = None, lazy_mode: bool = False,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                         grad_clip)
        self._apply_decay = apply_decay_param_fun

    def _decay(self, p, g, lr, wd):
        if wd and (self._apply_decay is None or self._apply_decay(p.name)):
            p._data = p._data - p._data.dtype.type(lr * wd) * p._data
        return g
