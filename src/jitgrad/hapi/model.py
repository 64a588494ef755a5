"""paddle.Model: Paddle 3.3.1's high-level training loop over an nn.Layer, eager and
single-process (no static graph, no distributed, no AMP).

    model = paddle.Model(net)
    model.prepare(optimizer, loss, metrics)
    model.fit(train_dataset, eval_dataset, batch_size=64, epochs=2)
    model.evaluate(eval_dataset)        # {'loss': [0.31], 'acc': 0.91}
    model.predict(test_dataset)         # [ (array per batch, ...) ] per output

Returned values are Paddle's: train_batch / eval_batch give a list of 0-d numpy losses
(and, with metrics, a tuple (losses, [metric update per metric])); predict_batch a list
of numpy outputs; evaluate a dict of the last logs ({'loss': [float], metric: value}).

A batch from the loader is flattened to a list and split by the number of arguments of
network.forward: the first are inputs, the rest labels (for the loss and metrics).
As Paddle's, the logs dict passed to the callbacks is one dict shared by every run
(Paddle's mutable default argument), and stop_training, once set (by EarlyStopping or
num_iters), stays set."""

from __future__ import annotations

import inspect
import os
import warnings
from typing import Any

import numpy as np

from .callbacks import EarlyStopping, config_callbacks

_SHARED_LOGS: dict = {}   # Paddle's `_run_one_epoch(..., logs={})`: one dict for all runs


def _to_list(value: Any) -> Any:
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _to_numpy(x: Any) -> np.ndarray:
    return np.array(x)


def _flatten(nest: Any) -> list:
    """paddle.utils.flatten: the leaves of nested lists / tuples / dicts (by sorted key)."""
    if isinstance(nest, (list, tuple)):
        return [leaf for item in nest for leaf in _flatten(item)]
    if isinstance(nest, dict):
        return [leaf for key in sorted(nest) for leaf in _flatten(nest[key])]
    return [nest]


def _input_info(inputs: Any) -> tuple[list, list] | None:
    """([shape, ...], [dtype, ...]) of the given inputs (InputSpecs, tensors, arrays)."""
    from ..static import InputSpec
    if isinstance(inputs, InputSpec):
        inputs = [inputs]
    elif isinstance(inputs, dict):
        inputs = list(inputs.values())
    elif not isinstance(inputs, (list, tuple)):
        return None
    return [list(x.shape) for x in inputs], [x.dtype for x in inputs]


class Model:
    """Wraps `network` (an nn.Layer) with prepare / fit / evaluate / predict / save / load.
    inputs, labels: InputSpecs (paddle.static.InputSpec) of the network's inputs and of
    the labels; without inputs they are taken from forward's argument names and, after
    the first batch, from that batch's shapes."""

    def __init__(self, network: Any, inputs: Any = None, labels: Any = None) -> None:
        self.mode = "train"
        self.network = network
        self._inputs = None
        self._labels = None
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._metrics: list = []     # (Paddle sets them in prepare only)
        self._input_info = _input_info(inputs) if inputs else None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self.stop_training = False
        self._amp_level = "O0"
        self._batch_input_info = None
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)

    # ---- single batches -------------------------------------------------------------

    def _tensors(self, xs: Any) -> list:
        from ..core.tensor import Tensor, to_tensor
        return [x if isinstance(x, Tensor) else to_tensor(x) for x in _to_list(xs)]

    def _metric_updates(self, outputs: Any, labels: list) -> list:
        from ..core.tensor import Tensor
        updates = []
        for metric in self._metrics:
            outs = _to_list(metric.compute(*(_to_list(outputs) + labels)))
            updates.append(metric.update(*[_to_numpy(m) if isinstance(m, Tensor) else m
                                           for m in outs]))
        return updates

    def _after_batch(self) -> None:
        if self._input_info is None:
            self._update_inputs()

    def train_batch(self, inputs: Any, labels: Any = None, update: bool = True) -> Any:
        """One training step: forward, loss, backward and (if update) the optimizer step
        and clearing the gradients. Returns [loss arrays] or ([loss arrays], [metrics])."""
        from .. import add_n
        assert self._optimizer, "model not ready, please call `model.prepare()` first"
        if self._loss is None:
            raise ValueError("Model.train_batch needs a loss: pass one to model.prepare()")
        self.network.train()
        self.mode = "train"
        inputs = self._tensors(inputs)
        self._batch_input_info = _input_info(inputs)
        labels = self._tensors(labels) if labels is not None else []
        outputs = self.network(*inputs)
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        final_loss = add_n(losses)
        final_loss.backward()
        if update:
            self._optimizer.minimize(final_loss)
            self.network.clear_gradients()
        metrics = self._metric_updates(outputs, labels)
        result = [_to_numpy(loss) for loss in losses]
        self._after_batch()
        return (result, metrics) if metrics else result

    def eval_batch(self, inputs: Any, labels: Any = None) -> Any:
        """Forward in eval mode without gradients. Returns [loss arrays], ([loss arrays],
        [metrics]) or, without a loss, [metrics]."""
        from ..core.grad_mode import no_grad
        with no_grad():
            self.network.eval()
            self.mode = "eval"
            inputs = self._tensors(inputs)
            self._batch_input_info = _input_info(inputs)
            labels = self._tensors(labels) if labels is not None else []
            outputs = self.network(*inputs)
            losses = _to_list(self._loss(*(_to_list(outputs) + labels))) if self._loss \
                else None
            metrics = self._metric_updates(outputs, labels)
        self._after_batch()
        if self._loss:
            result = [_to_numpy(loss) for loss in losses]
            return (result, metrics) if metrics else result
        return metrics

    def predict_batch(self, inputs: Any) -> list[np.ndarray]:
        """The network's outputs for one batch, as a list of numpy arrays."""
        from ..core.grad_mode import no_grad
        with no_grad():
            self.network.eval()
            self.mode = "test"
            inputs = self._tensors(inputs)
            self._batch_input_info = _input_info(inputs)
            outputs = self.network(*inputs)
            result = [_to_numpy(o) for o in _to_list(outputs)]
        self._after_batch()
        return result

    # ---- saving ---------------------------------------------------------------------

    def save(self, path: str, training: bool = True) -> None:
        """training=True: the parameters to path.pdparams and the optimizer state (if any)
        to path.pdopt. training=False (an inference program) is not supported."""
        from .. import save
        if not training:
            raise NotImplementedError(
                "Model.save(training=False) writes Paddle's inference program (paddle.jit."
                "save), which jitgrad (eager only) does not make; save with training=True")
        save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            optim = self._optimizer.state_dict()
            if optim:
                save(optim, path + ".pdopt")

    def load(self, path: str, skip_mismatch: bool = False,
             reset_optimizer: bool = False) -> None:
        """Load path.pdparams into the network's parameters (by state-dict name) and, unless
        reset_optimizer, path.pdopt into the optimizer. skip_mismatch: warn about, and skip,
        missing or differently shaped entries (the optimizer state is then not loaded)."""
        from .. import load

        def from_file(file: str, return_numpy: bool) -> Any:
            return load(file, return_numpy=return_numpy) if os.path.exists(file) else None

        path, ext = os.path.splitext(path)
        assert ext in ("", ".pdparams", ".pdopt", ".pdmodel"), \
            f"Unknown postfix {ext} from weights"
        param_state = from_file(path + ".pdparams", True)
        assert param_state, "Failed to load parameters, please check path."
        matched = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key, None)
            if state is None:
                err = ValueError(f"{key} is not found in the providing file.")
            elif list(state.shape) != list(param.shape):
                err = ValueError(f"{key} receives a shape {list(state.shape)}, but the "
                                 f"expected shape is {list(param.shape)}.")
            else:
                matched.append((param, state))
                continue
            if not skip_mismatch:
                raise err
            warnings.warn(f"Skip loading for {key}. " + str(err))
            reset_optimizer = True
        optim_state = None if reset_optimizer else from_file(path + ".pdopt", False)
        for param, state in matched:
            param.set_value(state)
        if self._optimizer and optim_state:
            try:
                self._optimizer.set_state_dict(optim_state)
            except ValueError as e:     # Paddle drops accumulators it cannot match, silently
                warnings.warn(f"Model.load: the optimizer state in {path}.pdopt was not "
                              f"loaded ({e})")

    def parameters(self, *args: Any, **kwargs: Any) -> list:
        return self.network.parameters()

    # ---- prepare / fit / evaluate / predict ---------------------------------------

    def prepare(self, optimizer: Any = None, loss: Any = None, metrics: Any = None,
                amp_configs: Any = None) -> None:
        """Set the optimizer, the loss (an nn.Layer or a callable of outputs + labels) and
        the metrics (paddle.metric.Metric instances). amp_configs: only None / 'O0'."""
        from ..metric import Metric
        from ..nn import Layer
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        self._loss = loss
        metrics = _to_list(metrics or [])
        for metric in metrics:
            assert isinstance(metric, Metric), \
                f"{metric.__class__.__name__} is not sub class of Metric"
        self._metrics = metrics
        level = amp_configs.get("level", "O1") if isinstance(amp_configs, dict) \
            else amp_configs
        if amp_configs and level != "O0":
            if level not in ("O1", "O2"):
                raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
            raise NotImplementedError(f"Model.prepare: amp_configs level {level!r} (mixed "
                                      "precision) is not supported by jitgrad (CPU, float32)")

    def _loader(self, data: Any, batch_size: int, shuffle: bool = False,
                drop_last: bool = False, num_workers: int = 0) -> Any:
        from ..io import DataLoader, Dataset, DistributedBatchSampler
        if data is None or not isinstance(data, Dataset):
            return data
        sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle,
                                          drop_last=drop_last)
        return DataLoader(data, batch_sampler=sampler, num_workers=num_workers,
                          return_list=True)

    def fit(self, train_data: Any = None, eval_data: Any = None, batch_size: Any = 1,
            epochs: int = 1, eval_freq: int = 1, log_freq: int = 10,
            save_dir: str | None = None, save_freq: int = 1, verbose: int = 2,
            drop_last: bool = False, shuffle: bool = True, num_workers: int = 0,
            callbacks: Any = None, accumulate_grad_batches: int = 1,
            num_iters: int | None = None) -> None:
        """Train for `epochs` epochs (or num_iters steps), evaluating on eval_data every
        eval_freq epochs; datasets are batched with batch_size (or [train, eval] sizes)."""
        assert train_data is not None, "train_data must be given!"
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int)
                                                         for x in batch_size):
            assert len(batch_size) == 2, \
                "batch_size length error, expected train_batch_size and eval_batch_size."
            train_bs, eval_bs = batch_size
        else:
            train_bs = eval_bs = batch_size
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, eval_bs, num_workers=num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if isinstance(num_iters, int) and isinstance(steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn("EarlyStopping needs validation data.")
        logs = _SHARED_LOGS
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len_data_loader(eval_loader),
                                       "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data: Any, batch_size: int = 1, log_freq: int = 10,
                 verbose: int = 2, num_workers: int = 0, callbacks: Any = None,
                 num_iters: int | None = None) -> dict:
        """Run the loss and metrics over eval_data; returns {'loss': [last batch's loss],
        metric name: accumulated value, ...}."""
        eval_loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = eval_loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(eval_loader)
        self.num_iters = num_iters
        if isinstance(num_iters, int) and isinstance(eval_steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            eval_steps = min(num_iters, eval_steps)
            self.num_iters = eval_steps
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(eval_loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data: Any, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks: Any = None) -> list:
        """The network's outputs over test_data: one entry per output, each a list of the
        per-batch numpy arrays (stack_outputs: one array, the batches stacked)."""
        test_loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = test_loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len_data_loader(test_loader)})
        logs, outputs = self._run_one_epoch(test_loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader: Any, callbacks: Any, mode: str) -> Any:
        logs = _SHARED_LOGS
        outputs = []
        n_inputs = len(self._inputs) if self._inputs is not None else None
        for step, data in enumerate(data_loader):
            data = _flatten(data)
            batch_size = data[0].shape[0]
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                args: list = [data[:n_inputs], data[n_inputs:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0
                                or step + 1 == self._len_data_loader(data_loader))
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    values = [[float(v) for v in outs[0]]]
                elif self._loss:
                    values = [[float(v) for v in outs]]
                else:
                    values = []
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                names = self._metrics_name()
                assert len(names) == len(values)
                logs.update(zip(names, values))
            else:
                outputs.append(self.predict_batch(data[:n_inputs]))
            logs["step"] = step
            logs["batch_size"] = batch_size
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        for metric in self._metrics:
            metric.reset()
        return (logs, outputs) if mode == "predict" else logs

    # ---- inspection -----------------------------------------------------------------

    def summary(self, input_size: Any = None, dtype: Any = None) -> dict:
        """paddle.summary of the network, for input_size or the model's inputs."""
        from .model_summary import summary
        assert input_size is not None or self._inputs is not None, \
            "'input_size' or 'self._input' must be set"
        return summary(self.network, input_size if input_size is not None else self._inputs,
                       dtypes=dtype)

    def _verify_spec(self, specs: Any, shapes: Any = None, dtypes: Any = None,
                     is_input: bool = False) -> Any:
        from ..static import InputSpec
        if specs is None and is_input:
            names = inspect.getfullargspec(self.network.forward).args[1:]
            if shapes is not None and dtypes is not None:
                out = [InputSpec(name=n, dtype=d, shape=s)
                       for n, s, d in zip(names, shapes, dtypes)]
            else:
                out = [InputSpec(name=n, shape=[None]) for n in names]
        elif isinstance(specs, dict):
            assert is_input is False
            out = [specs[n] for n in inspect.getfullargspec(self.network.forward).args
                   if n != "self"]
        else:
            out = _to_list(specs)
        for i, spec in enumerate(out or []):
            assert isinstance(spec, InputSpec)
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with "
                                 f"{spec}.")
        return out

    def _metrics_name(self) -> list[str]:
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    @staticmethod
    def _len_data_loader(data_loader: Any) -> int | None:
        try:
            return len(data_loader)
        except (TypeError, ValueError, NotImplementedError):   # no len(): steps unknown
            return None

    def _update_inputs(self) -> None:
        self._input_info = self._batch_input_info
        if self._input_info is not None and len(self._input_info) == 2:
            self._inputs = self._verify_spec(None, self._input_info[0], self._input_info[1],
                                             True)
            self._is_shape_inferred = True
