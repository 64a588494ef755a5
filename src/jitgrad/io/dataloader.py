"""DataLoader and the default collation (paddle.io names), single-process.

default_collate_fn stacks a batch's samples field by field as Paddle 3.3.1 does: numpy
arrays with np.stack, Tensors with paddle.stack, numbers into a numpy array (Python floats
give float64, ints int64), strings into a list, dicts key by key, lists and tuples field by
field (as lists). The DataLoader then turns every numpy array of the batch into a Tensor
and detaches every Tensor (stop_gradient=True, as Paddle's copies).
Unlike Paddle 3.3.1, which yields nothing at all when a batch holds no array (a batch of
strings, or a collate_fn returning a list of ints), jitgrad yields that batch.

num_workers > 0 loads in worker processes (io/workers.py: the same batches in the same
order; Paddle's seeds, get_worker_info, prefetch_factor, timeout, persistent_workers).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator

import numpy as np

from ..core.tensor import Tensor
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, batches
from .workers import check_worker_options, worker_batches
from .workers import get_worker_info  # noqa: F401  (paddle.io's, re-exported)


def default_collate_fn(batch: list) -> Any:
    """Stack a list of samples into one batch (see the module docstring)."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, Tensor):
        from ..ops import stack
        return stack(batch, axis=0)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        if any(len(s) != len(sample) for s in batch):
            raise RuntimeError("default_collate_fn: fields number not same among samples in "
                               "a batch")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(f"default_collate_fn: batch data can only contain tensors, numpy arrays, "
                    f"numbers, strings, dicts and lists, but got {type(sample).__name__}")


def default_convert_fn(batch: Any) -> Any:
    """A sample as is, sequences as lists (batch_size=None: no collation)."""
    if isinstance(batch, (Tensor, np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(d) for d in batch]
    return batch


def _to_tensors(batch: Any) -> Any:
    """numpy arrays -> Tensors through dicts, lists and tuples (tuples become lists).

    A Tensor comes out detached, as in Paddle 3.3.1 (its loader copies every batch into new
    storage, stop_gradient=True): a dataset of tensors that need gradients must not put the
    batch into their graph, where a loss's backward would reach (and fill) the dataset's
    tensors."""
    if isinstance(batch, np.ndarray):
        from ..core.tensor import to_tensor
        return to_tensor(batch)
    if isinstance(batch, Tensor):
        return batch.detach()
    if isinstance(batch, Mapping):
        return {key: _to_tensors(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [_to_tensors(value) for value in batch]
    return batch


class NoLengthError(TypeError, ValueError):
    """len() of a loader over an IterableDataset. A ValueError, as in Paddle; also a TypeError,
    Python's "no len()", so that list(loader) works (in Paddle 3.3.1 it raises)."""


class DataLoader:
    """Batches from a Dataset (map-style or iterable): `for x, y in loader:` (or loader())."""

    def __init__(self, dataset: Dataset, feed_list: Any = None, places: Any = None,
                 return_list: bool = True, batch_sampler: Any = None, batch_size: int | None = 1,
                 shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Callable[[list], Any] | None = None, num_workers: int = 0,
                 use_buffer_reader: bool = True, reader_buffer_size: int = 2,
                 prefetch_factor: int = 2, use_shared_memory: bool = True, timeout: int = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 persistent_workers: bool = False) -> None:
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or \
                num_workers < 0:
            raise ValueError(f"DataLoader: num_workers should be a non-negative int, got "
                             f"{num_workers!r}")
        if num_workers > 0:
            check_worker_options(prefetch_factor, timeout, worker_init_fn)
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got "
                            f"{type(collate_fn).__name__}")
        self.dataset, self.collate_fn, self.return_list = dataset, collate_fn, return_list
        self.num_workers, self.prefetch_factor, self.timeout = num_workers, prefetch_factor, timeout
        self.worker_init_fn, self.persistent_workers = worker_init_fn, persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle:
                raise ValueError(f"IterableDataset not support shuffle, but got "
                                 f"shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("DataLoader: an IterableDataset takes no batch_sampler")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_size, shuffle and drop_last should not be "
                                 "set when batch_sampler is given")
            self.batch_sampler, self.batch_size = batch_sampler, None
        elif batch_size is None:
            self.batch_sampler, self.batch_size = None, None
        else:
            if isinstance(batch_size, bool) or not isinstance(batch_size, int) or \
                    batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size should be None or a positive int, "
                                 f"got {batch_size!r}")
            self.batch_size = batch_size
            self.batch_sampler = None if self._iterable else BatchSampler(
                dataset=dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_size is not None or batch_sampler is not None

    def __len__(self) -> int:
        if self._iterable:
            raise NoLengthError("length of IterableDataset not supported")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __call__(self) -> Iterator[Any]:
        return iter(self)

    def __iter__(self) -> Iterator[Any]:
        collate = self.collate_fn or (default_collate_fn if self.auto_collate_batch
                                      else default_convert_fn)
        if self.num_workers > 0:
            yield from worker_batches(self, collate, _to_tensors)
            return
        for samples in self._samples():
            yield _to_tensors(collate(samples))

    def _samples(self) -> Iterator[Any]:
        """Lists of samples to collate (or single samples without auto collation)."""
        if not self._iterable:
            if self.batch_sampler is None:
                for i in range(len(self.dataset)):
                    yield self.dataset[i]
            else:
                for indices in self.batch_sampler:
                    yield [self.dataset[i] for i in indices]
            return
        if not self.auto_collate_batch:
            yield from iter(self.dataset)
            return
        yield from batches(self.dataset, self.batch_size, self.drop_last)
