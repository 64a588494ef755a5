"""paddle.callbacks: the hooks paddle.Model's fit / evaluate / predict call, with Paddle
3.3.1's behaviour (single process, so every rank check is "rank 0").

fit, evaluate and predict build their list with config_callbacks: a ProgBarLogger first
(unless one is given, or verbose=0), then the given callbacks, then a ModelCheckpoint and
an LRScheduler (each unless given). The call order is on_train_begin, then per epoch
on_epoch_begin, on_train_batch_begin/end per step, on_epoch_end, then (every eval_freq
epochs) on_eval_begin, on_eval_batch_begin/end, on_eval_end; finally on_train_end."""

from __future__ import annotations

import numbers
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL",  # noqa: RUF022
           "LRScheduler", "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]  # (Paddle's order)

_MODES = ("train", "eval", "predict")


def config_callbacks(callbacks: Any = None, model: Any = None, batch_size: int | None = None,
                     epochs: int | None = None, steps: int | None = None, log_freq: int = 2,
                     verbose: int = 2, save_freq: int = 1, save_dir: str | None = None,
                     metrics: list[str] | None = None, mode: str = "train") -> CallbackList:
    cbks = list(callbacks if isinstance(callbacks, (list, tuple)) else
                [callbacks] if callbacks else [])
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks.insert(0, ProgBarLogger(log_freq, verbose=verbose))
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks.append(LRScheduler())
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Calls each hook on every callback, in order."""

    def __init__(self, callbacks: Sequence[Callback] | None = None) -> None:
        assert callbacks is not None
        self.callbacks = list(callbacks)
        self.params: dict = {}
        self.model = None

    def append(self, callback: Callback) -> None:
        self.callbacks.append(callback)

    def __iter__(self) -> Iterator[Callback]:
        return iter(self.callbacks)

    def set_params(self, params: dict) -> None:
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model: Any) -> None:
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name: str, *args: Any) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode: str) -> None:
        assert mode in _MODES, "mode should be train, eval or predict"

    def on_begin(self, mode: str, logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step: int | None = None,
                       logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step: int | None = None,
                     logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """The base class: every hook does nothing. `self.model` is the paddle.Model, and
    `self.params` {'batch_size', 'epochs', 'steps', 'verbose', 'metrics'}."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_train_begin(self, logs: dict | None = None) -> None: ...
    def on_train_end(self, logs: dict | None = None) -> None: ...
    def on_eval_begin(self, logs: dict | None = None) -> None: ...
    def on_eval_end(self, logs: dict | None = None) -> None: ...
    def on_predict_begin(self, logs: dict | None = None) -> None: ...
    def on_predict_end(self, logs: dict | None = None) -> None: ...
    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_train_batch_begin(self, step: int, logs: dict | None = None) -> None: ...
    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None: ...
    def on_eval_batch_begin(self, step: int, logs: dict | None = None) -> None: ...
    def on_eval_batch_end(self, step: int, logs: dict | None = None) -> None: ...
    def on_predict_batch_begin(self, step: int, logs: dict | None = None) -> None: ...
    def on_predict_batch_end(self, step: int, logs: dict | None = None) -> None: ...


class ProgBarLogger(Callback):
    """Prints progress: "Epoch 1/2", then every log_freq steps and at an epoch's end a
    step line with the loss (of the current step) and the metrics (averaged so far).
    verbose: 0 silent, 1 one redrawn bar, 2 a line per update, 3 also reader/batch cost."""

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        self.epochs: int | None = None
        self.steps: int | None = None
        self.progbar: ProgressBar | None = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self) -> bool:
        return bool(self.verbose)

    @staticmethod
    def _new_timer() -> dict:
        return {"data_time": 0, "batch_time": 0, "count": 0, "samples": 0,
                "batch_start_time": time.time()}

    def _updates(self, logs: dict, mode: str) -> None:
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            cnt = timer["count"] if timer["count"] > 0 else 1.0
            samples = timer["samples"] if timer["samples"] > 0 else 1.0
            values.append(("avg_reader_cost", "%.5f sec" % (timer["data_time"] / cnt)))
            values.append(("avg_batch_cost", "%.5f sec" % (timer["batch_time"] / cnt)))
            values.append(("ips", "%.5f samples/sec"
                           % (samples / (timer["data_time"] + timer["batch_time"]))))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode: str) -> None:
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, mode: str, logs: dict | None) -> None:
        """Count the step; print every log_freq steps but the last (the end hook does)."""
        logs = logs or {}
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_time"] += time.time() - timer["batch_data_end_time"]
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        total = self.steps if mode == "train" else getattr(self, f"{mode}_steps")
        if self._is_print() and step % self.log_freq == 0 and (total is None or step < total):
            self._updates(logs, mode)
        timer["batch_start_time"] = time.time()

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._train_timer = self._new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("train")

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self._batch_end("train", logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    def _begin(self, mode: str, logs: dict | None, samples_attr: str, banner: str) -> None:
        setattr(self, f"{mode}_steps", logs.get("steps", None))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, samples_attr, 0)
        setattr(self, f"_{mode}_timer", self._new_timer())
        setattr(self, f"{mode}_progbar",
                ProgressBar(num=getattr(self, f"{mode}_steps"), verbose=self.verbose))
        if self._is_print():
            print(banner)
        getattr(self, f"_{mode}_timer")["batch_start_time"] = time.time()

    def on_eval_begin(self, logs: dict | None = None) -> None:
        self._begin("eval", logs, "evaled_samples", "Eval begin...")

    def on_eval_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("eval")

    def on_eval_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.evaled_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("eval", logs)

    def on_eval_end(self, logs: dict | None = None) -> None:
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs: dict | None = None) -> None:
        self._begin("test", logs, "tested_samples", "Predict begin...")

    def on_predict_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("test")

    def on_predict_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.tested_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("test", logs)

    def on_predict_end(self, logs: dict | None = None) -> None:
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model to `{save_dir}/{epoch}` every save_freq epochs and to
    `{save_dir}/final` when training ends (nothing without a save_dir)."""

    def __init__(self, save_freq: int = 1, save_dir: str | None = None) -> None:
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.epoch = epoch

    def _is_save(self) -> bool:
        return bool(self.model and self.save_dir)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs: dict | None = None) -> None:
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


def _scheduler_of(model: Any) -> Any:
    from ..optimizer.lr import LRScheduler as _Sched
    opt = model._optimizer
    lr = getattr(opt, "_learning_rate", None) if opt else None
    return lr if isinstance(lr, _Sched) else None


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (by_step) or every
    epoch (by_epoch)."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self.by_epoch and (sched := _scheduler_of(self.model)) is not None:
            sched.step()

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        if self.by_step and (sched := _scheduler_of(self.model)) is not None:
            sched.step()


def _monitored(logs: dict | None, monitor: str, who: str) -> Any:
    """The monitored value from eval logs (a list's first item), None to skip."""
    if logs is None or monitor not in logs:
        warnings.warn(f"Monitor of {who} should be loss or metric name.")
        return None
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        return current[0]
    return current if isinstance(current, numbers.Number) else None


class EarlyStopping(Callback):
    """Stops fit when the monitored eval value has not improved by more than min_delta
    for `patience` evaluations (mode 'auto': 'max' if 'acc' is in the name, else 'min');
    with save_best_model and fit's save_dir, saves each best model to save_dir/best_model."""

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0,
                 verbose: int = 1, min_delta: float = 0, baseline: float | None = None,
                 save_best_model: bool = True) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir: str | None = None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        greater = mode == "max" or (mode == "auto" and "acc" in self.monitor)
        self.monitor_op = np.greater if greater else np.less
        if not greater:
            self.min_delta *= -1

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs: dict | None = None) -> None:
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        best_path = os.path.join(self.save_dir, "best_model") if self.save_dir else None
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and best_path is not None:
                self.model.save(best_path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and best_path is not None:
                    print(f"Best checkpoint has been saved at {os.path.abspath(best_path)}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by `factor` when the monitored eval value has not
    improved for `patience` evaluations (then waits `cooldown` evaluations), not below
    min_lr."""

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 1, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best: float = 0
        self.mode = mode
        self.monitor_op: Any = None
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, "
                          "fallback to auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_eval_end(self, logs: dict | None = None) -> None:
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        try:
            lr = self.model._optimizer._learning_rate
        except AttributeError as e:
            warnings.warn(f"There are something wrong when get learning_rate from "
                          f"optimizer: {e}.")
            return
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model._optimizer._learning_rate = new_lr
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


def _try_import(name: str, what: str) -> Any:
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError(f"{what} needs the '{name}' package, which is not installed "
                          f"(pip install {name})") from None


class _LoggerCallback(Callback):
    """What VisualDL and WandbCallback share: the train loss / metrics after every batch
    (step = the batch count) and the eval ones after every evaluation (step = the epoch)."""

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.steps = self.params["steps"]
        self.epoch = epoch

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs: dict | None = None) -> None:
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def _scalars(self, logs: dict, mode: str) -> tuple[int, dict]:
        total_step = getattr(self, f"{mode}_step") if mode == "train" else self.epoch
        out = {}
        for k in getattr(self, f"{mode}_metrics"):
            if k in logs:
                v = logs[k]
                if isinstance(v, (list, tuple)):
                    out[f"{mode}/{k}"] = v[0]
                elif isinstance(v, numbers.Number):
                    out[f"{mode}/{k}"] = v
        return total_step, out

    def _updates(self, logs: dict, mode: str) -> None:
        raise NotImplementedError


class VisualDL(_LoggerCallback):
    """Writes the train and eval scalars with visualdl.LogWriter to log_dir (needs the
    visualdl package, imported when the first scalar is written)."""

    def __init__(self, log_dir: str) -> None:
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _updates(self, logs: dict, mode: str) -> None:
        if not hasattr(self, "writer"):
            self.writer = _try_import("visualdl", "paddle.callbacks.VisualDL").LogWriter(
                self.log_dir)
        step, scalars = self._scalars(logs, mode)
        for tag, value in scalars.items():
            self.writer.add_scalar(tag=tag, step=step, value=value)

    def on_train_end(self, logs: dict | None = None) -> None:
        if hasattr(self, "writer"):
            self.writer.close()
            delattr(self, "writer")

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit") and hasattr(self, "writer"):
            self.writer.close()
            delattr(self, "writer")


class WandbCallback(_LoggerCallback):
    """Logs the train and eval scalars to a Weights & Biases run (needs the wandb package,
    imported at construction)."""

    def __init__(self, project: str | None = None, entity: str | None = None,
                 name: str | None = None, dir: str | None = None, mode: str | None = None,
                 job_type: str | None = None, **kwargs: Any) -> None:
        self.wandb = _try_import("wandb", "paddle.callbacks.WandbCallback")
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir,
                           "mode": mode, "job_type": job_type, **kwargs}
        self._run = None
        _ = self.run

    @property
    def run(self) -> Any:
        if self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run. If this is "
                              "not desired , call `wandb.finish()` before instantiating "
                              "`WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs: dict | None = None) -> None:
        super().on_train_begin(logs)
        self.run.define_metric("train/step")
        self.run.define_metric("train/*", step_metric="train/step")
        self.run.define_metric("epoch")
        self.run.define_metric("eval/*", step_metric="epoch")

    def _updates(self, logs: dict, mode: str) -> None:
        step, scalars = self._scalars(logs, mode)
        self.run.log({("train/step" if mode == "train" else "epoch"): step, **scalars})

    def on_train_end(self, logs: dict | None = None) -> None:
        self.run.finish()

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit") and hasattr(self, "run"):
            self.run.finish()
