"""The cycling and metric-driven learning-rate schedulers (paddle.optimizer.lr names):
OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts and ReduceOnPlateau; the others and the
LRScheduler protocol are in lr_schedulers.py. Rate sequences match Paddle 3.3.1's
(tests/test_more_optimizers.py)."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .lr_schedulers import LRScheduler, _positive_int
from ..core.tensor import Tensor


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

    def get_lr(self) -> float:
        return self.last_lr

    def state_keys(self) -> None:
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """One epoch with this metric value (a number, or a one-element array or Tensor)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if isinstance(metrics, (Tensor, np.ndarray)):
            size = int(np.prod(metrics.shape))
            if size != 1:
                raise ValueError(f"ReduceOnPlateau.step: metrics must have one element, got "
                                 f"shape {list(metrics.shape)} (take paddle.mean first)")
            arr = metrics.numpy() if isinstance(metrics, Tensor) else metrics
            metrics = float(arr.reshape(-1)[0])     # (numpy 2 refuses float() of shape [1])
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
