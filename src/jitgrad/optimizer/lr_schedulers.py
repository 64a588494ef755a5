"""Learning-rate schedulers (paddle.optimizer.lr names). An optimizer given one reads its
current rate at every step(); the scheduler's own step() moves it to the next epoch. Rate
sequences match Paddle 3.3.1's (tests/test_more_optimizers.py). The cycling and
metric-driven ones (OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts, ReduceOnPlateau)
are in lr_cycles.py."""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable


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
        """The rate at self.last_epoch: a subclass's rule (Paddle's base class raises)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr(), the "
                                  "rate at self.last_epoch")

    def step(self, epoch: int | None = None) -> None:
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def state_keys(self) -> None:
        """Set self.keys, the attributes state_dict saves (Paddle's hook: a subclass with
        more state overrides it)."""
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self) -> dict:
        """The attributes named by state_keys() (a one-element Tensor as a float)."""
        self.state_keys()
        out = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                out[key] = float(value) if hasattr(value, "numpy") else value
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore the attributes named by state_keys() (and warn, as Paddle does, about
        other keys)."""
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: no {key!r} in "
                                   "the state dict")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys) + ("LinearWarmup_LR" in state_dict):
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


def _decay_gamma(gamma: float, what: str) -> float:
    if not gamma < 1.0:         # (Paddle 3.3.1's check: a rate that would grow)
        raise ValueError(f"{what}: gamma should be < 1.0, got {gamma!r}")
    return gamma


class StepDecay(LRScheduler):
    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        _positive_int("StepDecay", "step_size", step_size)     # (Paddle: TypeError, then >0)
        self.step_size, self.gamma = step_size, _decay_gamma(gamma, "StepDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate: float, milestones: list[int], gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not all(a < b for a, b in zip(milestones, milestones[1:])):
            # Paddle 3.3.1 raises too; sorting [5, 3] or keeping [3, 3] (which decays twice
            # at epoch 3) silently gave another schedule than the one asked for
            raise ValueError(f"MultiStepDecay: milestones must be strictly increasing, got "
                             f"{list(milestones)}")
        self.milestones, self.gamma = milestones, _decay_gamma(gamma, "MultiStepDecay")
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
        if isinstance(T_max, bool) or not isinstance(T_max, numbers.Integral) or T_max <= 0:
            raise ValueError(f"CosineAnnealingDecay: T_max must be a positive integer, got "
                             f"{T_max!r}")      # (Paddle 3.3.1 asserts; 0 divided by zero)
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
    """values[i] before boundaries[i], the last value after the last boundary (values may
    be longer than boundaries + 1: Paddle uses the last)."""

    def __init__(self, boundaries: list[int], values: list[float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if len(boundaries) == 0:
            raise ValueError("PiecewiseDecay: boundaries cannot be empty")
        if len(values) <= len(boundaries):
            raise ValueError(f"PiecewiseDecay needs one more value than boundaries, got "
                             f"{len(values)} values for {len(boundaries)} boundaries")
        self.boundaries, self.values = boundaries, values
        super().__init__(last_epoch=last_epoch, verbose=verbose)    # base_lr 0.1, as Paddle

    def get_lr(self) -> float:
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class LinearWarmup(LRScheduler):
    """Linear ramp from start_lr to end_lr over warmup_steps, then learning_rate (a float or
    another scheduler, kept as `learning_rate` and set to epoch - warmup_steps at each step,
    as Paddle's: step(epoch) and last_epoch resume it where it was)."""

    def __init__(self, learning_rate: float | LRScheduler, warmup_steps: int, start_lr: float,
                 end_lr: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.learning_rate = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * \
                self.last_epoch / self.warmup_steps
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)

    def state_dict(self) -> dict:
        """Paddle's: the wrapped scheduler's state under 'LinearWarmup_LR'."""
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            if "LinearWarmup_LR" not in state_dict:
                raise RuntimeError("LinearWarmup.set_state_dict: no 'LinearWarmup_LR' (the "
                                   "wrapped scheduler's state) in the state dict")
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

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
