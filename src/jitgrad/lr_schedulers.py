"""Learning-rate schedulers (paddle.optimizer.lr names). An optimizer given one reads its
current rate at every step(); the scheduler's own step() moves it to the next epoch. Rate
sequences match Paddle 3.3.1's (tests/test_more_optimizers.py)."""

from __future__ import annotations

import math
import types
from typing import Any, Callable

import numpy as np

from .tensor import Tensor


class LRScheduler:
    """Paddle's scheduler protocol: last_lr / __call__ is the current rate, step() moves to the
    next epoch. The constructor steps once (last_epoch -1 -> 0), so a subclass sets its own
    attributes before calling super().__init__; get_lr() is the rate at self.last_epoch."""

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float, got "
                            f"{type(learning_rate).__name__}")
        if learning_rate < 0:
            raise ValueError(f"{type(self).__name__}: invalid learning_rate "
                             f"{learning_rate!r}, expected >= 0")
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = int(last_epoch)
        self.verbose = bool(verbose)
        self.step()

    def __call__(self) -> float:
        return self.last_lr

    def get_lr(self) -> float:
        return self.base_lr

    def step(self, epoch: int | None = None) -> None:
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def state_dict(self) -> dict:
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore last_epoch and last_lr (and warn, as Paddle does, about other keys)."""
        for key in ("last_epoch", "last_lr"):
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: no {key!r} in "
                                   "the state dict")
            setattr(self, key, state_dict[key])
        if len(state_dict) > 2 + ("LinearWarmup_LR" in state_dict):
            import warnings
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer "
                          "have different 'LearningRateDecay' when invoking state_dict and "
                          "set_dict")

    set_dict = set_state_dict


def _positive_int(owner: str, key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {key} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{owner}: {key} must be a positive integer, got {value}")


class StepDecay(LRScheduler):
    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate: float, milestones: list[int], gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** sum(self.last_epoch >= m for m in self.milestones)


class ExponentialDecay(LRScheduler):
    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class CosineAnnealingDecay(LRScheduler):
    """eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2 (the closed form)."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LambdaDecay(LRScheduler):
    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class PiecewiseDecay(LRScheduler):
    def __init__(self, boundaries: list[int], values: list[float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay needs one more value than boundaries")
        self.boundaries, self.values = boundaries, values
        super().__init__(values[0], last_epoch, verbose)

    def get_lr(self) -> float:
        return self.values[sum(self.last_epoch >= b for b in self.boundaries)]


class LinearWarmup(LRScheduler):
    """Linear ramp from start_lr to end_lr over warmup_steps, then learning_rate (a float or
    another scheduler, stepped along)."""

    def __init__(self, learning_rate: float | LRScheduler, warmup_steps: int, start_lr: float,
                 end_lr: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.inner = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

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

    def state_dict(self) -> dict:
        """Paddle's: the wrapped scheduler's state under 'LinearWarmup_LR'."""
        out = super().state_dict()
        if isinstance(self.inner, LRScheduler):
            out["LinearWarmup_LR"] = self.inner.state_dict()
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict(state_dict)
        if isinstance(self.inner, LRScheduler):
            if "LinearWarmup_LR" not in state_dict:
                raise RuntimeError("LinearWarmup.set_state_dict: no 'LinearWarmup_LR' (the "
                                   "wrapped scheduler's state) in the state dict")
            self.inner.set_state_dict(state_dict["LinearWarmup_LR"])

    set_dict = set_state_dict


class NoamDecay(LRScheduler):
    """The Transformer schedule: lr * d_model^-0.5 * min(epoch^-0.5, epoch * warmup^-1.5),
    with epoch^-0.5 read as 1 at epoch 0 (so epoch 0 gives 0)."""

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be > 0, got {d_model}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class NaturalExpDecay(LRScheduler):
    """lr * exp(-gamma * epoch)."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not gamma > 0:
            raise ValueError(f"NaturalExpDecay: gamma must be > 0 so that the rate decays, "
                             f"got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr / (1 + gamma * epoch)."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(lr - end_lr) * (1 - epoch / decay_steps)^power + end_lr, the epoch held at decay_steps
    afterwards; with cycle=True decay_steps grows to the next multiple of itself past the
    epoch instead (epoch 0 counts as inside the first cycle)."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        _positive_int("PolynomialDecay", "decay_steps", decay_steps)
        if not power > 0:
            raise ValueError(f"PolynomialDecay: power must be > 0 so that the rate decays, "
                             f"got {power}")
        self.decay_steps, self.end_lr, self.power, self.cycle = \
            decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(float(epoch) / float(steps)) if epoch != 0 else 1
            steps = steps * div
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * \
            (1 - float(epoch) / float(steps)) ** self.power + self.end_lr


class OneCycleLR(LRScheduler):
    """The 1cycle policy: max_learning_rate / divide_factor up to max_learning_rate over the
    first phase_pct of total_steps, then down to end_learning_rate (three_phase: back to the
    initial rate first, then down), each phase annealed by 'cos' or 'linear'. Phase ends are
    at phase_pct * total_steps - 1 (and 2 * phase_pct * total_steps - 2), as in Paddle."""

    def __init__(self, max_learning_rate: float, total_steps: int,
                 divide_factor: float = 25.0, end_learning_rate: float = 0.0001,
                 phase_pct: float = 0.3, anneal_strategy: str = "cos",
                 three_phase: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        for key, value in (("max_learning_rate", max_learning_rate),
                           ("end_learning_rate", end_learning_rate),
                           ("divide_factor", divide_factor)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"OneCycleLR: {key} must be a float, got "
                                f"{type(value).__name__}")
            if value < 0:
                raise ValueError(f"OneCycleLR: {key} must be >= 0, got {value}")
        _positive_int("OneCycleLR", "total_steps", total_steps)
        if not isinstance(phase_pct, float):
            raise TypeError(f"OneCycleLR: phase_pct must be a float, got "
                            f"{type(phase_pct).__name__}")
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1], got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.total_steps = total_steps
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        n = total_steps
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("OneCycleLR: with three_phase=True phase_pct must be < 0.5, "
                                 f"got {phase_pct}")
            ends = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            sizes = [ends[1] - ends[0], ends[2] - ends[1], ends[3] - ends[2],
                     ends[3] - ends[2]]
            rates = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            ends = [0, phase_pct * n - 1, n - 1, n - 1]
            sizes = [ends[1] - ends[0], ends[2] - ends[1], ends[2] - ends[1]]
            rates = [initial_lr, max_learning_rate, min_lr]
        self._step_config, self._steps_size, self._lr_config = ends, sizes, rates
        self.anneal_strategy = anneal_strategy
        super().__init__(initial_lr, last_epoch, verbose)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> float:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step} times, but total_steps is "
                             f"{self.total_steps}")
        last = len(self._lr_config) - 2
        for i, (end, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end or i == last:
                pct = (step - self._step_config[i]) / size
                return self._anneal(self._lr_config[i], self._lr_config[i + 1], pct)
        raise AssertionError("unreachable")   # the last phase always returns


class CyclicLR(LRScheduler):
    """Cycles between base_learning_rate and max_learning_rate: up over step_size_up epochs,
    down over step_size_down (default: the same), the amplitude scaled per cycle
    ('triangular': 1, 'triangular2': halved each cycle) or per iteration ('exp_range':
    exp_gamma^iteration), or by scale_fn(cycle or iteration, per scale_mode)."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float,
                 step_size_up: int, step_size_down: int | None = None,
                 mode: str = "triangular", exp_gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if isinstance(max_learning_rate, bool) or \
                not isinstance(max_learning_rate, (int, float)):
            raise TypeError(f"CyclicLR: max_learning_rate must be a float, got "
                            f"{type(max_learning_rate).__name__}")
        if max_learning_rate < 0:
            raise ValueError(f"CyclicLR: max_learning_rate must be >= 0, got "
                             f"{max_learning_rate}")
        _positive_int("CyclicLR", "step_size_up", step_size_up)
        if step_size_down is not None:
            _positive_int("CyclicLR", "step_size_down", step_size_down)
        if not isinstance(exp_gamma, float):
            raise TypeError(f"CyclicLR: exp_gamma must be a float, got "
                            f"{type(exp_gamma).__name__}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or "
                             f"'exp_range' (or give scale_fn), got {mode!r}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got "
                             f"{scale_mode!r}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class ReduceOnPlateau(LRScheduler):
    """Multiplies the rate by factor (not below min_lr, and only if it drops by more than
    epsilon) once the metric passed to step(metrics) has not improved for more than patience
    epochs, then waits cooldown epochs. 'rel' improvement: below best * (1 - threshold)
    ('min') or above best * (1 + threshold) ('max'); 'abs': by threshold."""

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float = 0, epsilon: float = 1e-8,
                 verbose: bool = False) -> None:
        mode, threshold_mode = str(mode).lower(), str(threshold_mode).lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0 (new_lr = lr * factor), "
                             f"got {factor}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            raise TypeError(f"ReduceOnPlateau: learning_rate must be a float, got "
                            f"{type(learning_rate).__name__}")
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch, self.verbose = 0, bool(verbose)

    def state_dict(self) -> dict:
        return {"cooldown_counter": self.cooldown_counter, "best": self.best,
                "num_bad_epochs": self.num_bad_epochs, "last_epoch": self.last_epoch,
                "last_lr": self.last_lr}

    def set_state_dict(self, state_dict: dict) -> None:
        for key in ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"):
            if key not in state_dict:
                raise RuntimeError(f"ReduceOnPlateau.set_state_dict: no {key!r} in the "
                                   "state dict")
            setattr(self, key, state_dict[key])

    set_dict = set_state_dict

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """One epoch with this metric value (a number, or a one-element array or Tensor)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if isinstance(metrics, (Tensor, np.ndarray)):
            size = int(np.prod(metrics.shape))
            if size != 1:
                raise ValueError(f"ReduceOnPlateau.step: metrics must have one element, got "
                                 f"shape {list(metrics.shape)} (take paddle.mean first)")
            metrics = float(metrics.numpy() if isinstance(metrics, Tensor) else metrics)
        elif isinstance(metrics, bool) or not isinstance(metrics, (int, float, np.floating)):
            raise TypeError(f"ReduceOnPlateau.step: metrics must be a number, a numpy array "
                            f"or a Tensor, got {type(metrics).__name__}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                          f"{self.last_lr}.")

    def _is_better(self, current: float, best: float) -> bool:
        if self.threshold_mode == "rel":
            delta = best * self.threshold
        else:
            delta = self.threshold
        return current < best - delta if self.mode == "min" else current > best + delta


class MultiplicativeDecay(LRScheduler):
    """lr * prod(lr_lambda(e) for e in 1..epoch)."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be a function, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        rate = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            rate = rate * self.lr_lambda(epoch)
        return rate


class LinearLR(LRScheduler):
    """lr * factor, the factor going linearly from start_factor to end_factor over
    total_steps, then held. Computed incrementally from last_lr, as Paddle does (so step(epoch)
    applies one increment, not the closed form)."""

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, last_epoch: int = -1, verbose: bool = False) -> None:
        if not 0 < start_factor <= 1.0:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1], got {start_factor}")
        if not 0 <= end_factor <= 1.0:
            raise ValueError(f"LinearLR: end_factor must be in [0, 1], got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"LinearLR: total_steps must be > 0, got {total_steps}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        start = self.total_steps * self.start_factor
        delta = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + delta / (start + (self.last_epoch - 1) * delta))


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine from lr to eta_min over T_i epochs, then restart with T_i *= T_mult."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive integer, "
                             f"got {T_0!r}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an integer >= 1, "
                             f"got {T_mult!r}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: int | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur - self.T_i, self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts.step: epoch must be >= 0, "
                             f"got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: CosineAnnealingWarmRestarts set learning rate "
                  f"to {self.last_lr}.")

    def set_state_dict(self, state_dict: dict) -> None:
        """Also rebuilds the cycle position from last_epoch, which Paddle's state dict lacks
        (3.3.1 resumes with the cycle restarted)."""
        super().set_state_dict(state_dict)
        lr, verbose = self.last_lr, self.verbose
        self.verbose = False
        if self.last_epoch >= 0:
            self.step(self.last_epoch)
        self.last_lr, self.verbose = lr, verbose

    set_dict = set_state_dict

lr = types.SimpleNamespace(
    LRScheduler=LRScheduler, StepDecay=StepDecay, MultiStepDecay=MultiStepDecay,
    ExponentialDecay=ExponentialDecay, CosineAnnealingDecay=CosineAnnealingDecay,
    LambdaDecay=LambdaDecay, PiecewiseDecay=PiecewiseDecay, LinearWarmup=LinearWarmup,
    NoamDecay=NoamDecay, NaturalExpDecay=NaturalExpDecay, InverseTimeDecay=InverseTimeDecay,
    PolynomialDecay=PolynomialDecay, OneCycleLR=OneCycleLR, CyclicLR=CyclicLR,
    ReduceOnPlateau=ReduceOnPlateau, MultiplicativeDecay=MultiplicativeDecay,
    LinearLR=LinearLR, CosineAnnealingWarmRestarts=CosineAnnealingWarmRestarts)

from .namespaces import from_simple as _from_simple  # noqa: E402
lr = _from_simple("jitgrad.optimizer.lr", "optimizer.lr", lr,
                  "Paddle's paddle.optimizer.lr: the learning-rate schedulers.")
