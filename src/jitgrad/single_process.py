"""Paddle's top-level names for multi-device and GPU runs, in their single-process CPU form:
`paddle.DataParallel` (the wrapper a launch script puts around its model), the CUDA random
states, `LazyGuard`, `disable_signal_handler`, and the legacy reader `paddle.batch`.

Each behaves as Paddle 3.3.1 does when it runs on one CPU process (measured), so a training
script written for several GPUs runs here unchanged."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from .nn.layer import Layer


class DataParallel(Layer):
    """The model `layers` as a data-parallel Layer on one process: forward, parameters and
    state are the wrapped layer's (`_layers`); its state_dict keys carry no prefix, as
    Paddle's. (jitgrad.distributed.DataParallel is another thing: a trainer over Dask
    workers.)"""

    def __init__(self, layers: Layer, strategy: Any = None, comm_buffer_size: int = 25,
                 last_comm_buffer_size: int = 1, find_unused_parameters: bool = False,
                 group: Any = None) -> None:
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps a paddle.nn.Layer, got "
                            f"{type(layers).__name__}")
        super().__init__()
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Gradients are never synchronised on one process: nothing to suspend."""
        yield

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict: Any, use_structured_name: bool = True) -> Any:
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = load_dict = set_state_dict


def get_cuda_rng_state() -> list:
    """The CUDA generators' states: none on the CPU (Paddle 3.3.1 gives [] there too)."""
    return []


def set_cuda_rng_state(state_list: list) -> None:
    if not isinstance(state_list, (list, tuple)):
        raise TypeError(f"set_cuda_rng_state expects a list of states, got "
                        f"{type(state_list).__name__}")
    if state_list:
        raise ValueError("set_cuda_rng_state: there are no CUDA generators here (jitgrad "
                         "runs on the CPU); pass the [] get_cuda_rng_state() gave")


def disable_signal_handler() -> None:
    """Paddle removes its C++ signal handlers here; jitgrad installs none."""


@contextlib.contextmanager
def LazyGuard() -> Iterator[None]:  # noqa: N802  (Paddle's name)
    """Paddle delays parameter initialisation inside; here parameters are made at once, with
    the same values a later initialisation would give from the same seed state."""
    yield


def batch(reader: Callable[[], Any], batch_size: int, drop_last: bool = False
          ) -> Callable[[], Iterator[list]]:
    """The legacy reader decorator: a reader yielding lists of `batch_size` samples (the last
    shorter one dropped with drop_last)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer, got {batch_size!r}")

    def batch_reader() -> Iterator[list]:
        from .io.sampler import batches
        return batches(reader(), batch_size, drop_last)
    return batch_reader
