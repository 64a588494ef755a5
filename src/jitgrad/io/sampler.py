"""Samplers (paddle.io names): which indices a DataLoader reads, and in what batches.

RandomSampler and WeightedRandomSampler draw from numpy's global generator, exactly as
Paddle 3.3.1 does, so `np.random.seed(s)` gives the same shuffled order in both (and
`paddle.seed` does not change it, in Paddle either). SubsetRandomSampler uses jitgrad's
generator, as Paddle uses paddle.randperm.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sized

import numpy as np

from ..core.tensor import Tensor


def batches(items: Iterable[Any], size: int, drop_last: bool) -> Iterator[list]:
    """Lists of `size` consecutive items; a shorter last one unless drop_last."""
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class Sampler:
    """Base class: an iterable of indices (or of index lists, for batch samplers)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order (with replacement: num_samples independent draws). generator, if
    given, is an iterator of indices that is read instead (Paddle's meaning)."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Iterator[int] | None = None
                 ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        n = self.num_samples
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer, got "
                             f"{n!r}")
        if not replacement and n > len(data_source):
            raise ValueError(f"RandomSampler: num_samples ({n}) must not exceed the "
                             f"dataset's {len(data_source)} samples when replacement=False")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
            return
        n = len(self.data_source)
        yield from np.random.choice(np.arange(n), self.num_samples,
                                    replace=self.replacement).tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices: Any) -> None:
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices should not be empty")
        self.indices = indices

    def __iter__(self) -> Iterator[Any]:
        from ..ops.creation import generator
        for i in generator().permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability proportional to weights (each row of 2-D
    weights is its own draw)."""

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or \
                num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive "
                             f"integer, got {num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError("WeightedRandomSampler: replacement should be a bool")
        w = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights,
                       dtype=np.float64)
        if w.ndim not in (1, 2):
            raise ValueError("WeightedRandomSampler: weights should be 1-D or 2-D")
        w = w.reshape(-1, w.shape[-1])
        if not np.all(np.isfinite(w)) or np.any(w < 0) or np.any((w > 0).sum(1) == 0):
            raise ValueError("WeightedRandomSampler: weights must be finite, non-negative "
                             "and have a positive entry in every row")
        if not replacement and np.any((w > 0).sum(1) < num_samples):
            raise ValueError("WeightedRandomSampler: fewer positive weights than num_samples "
                             "with replacement=False")
        self.weights, self.num_samples, self.replacement = w, num_samples, replacement

    def __iter__(self) -> Iterator[int]:
        w = self.weights / self.weights.sum(axis=1, keepdims=True)
        rows = [np.random.choice(w.shape[1], self.num_samples, self.replacement, p)
                for p in w]
        return iter(np.array(rows).reshape(-1).tolist())

    def __len__(self) -> int:
        return self.num_samples * self.weights.shape[0]


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler (or from a Sequence/RandomSampler over
    dataset); drop_last drops a short last batch."""

    def __init__(self, dataset: Sized | None = None, sampler: Iterable[int] | None = None,
                 shuffle: bool = False, batch_size: int = 1, drop_last: bool = False) -> None:
        from .dataset import IterableDataset
        if dataset is None:
            if sampler is None:
                raise ValueError("BatchSampler: either dataset or sampler should be set")
            if not isinstance(sampler, Iterable):
                raise TypeError(f"BatchSampler: sampler should be a Sampler or an iterable, "
                                f"got {type(sampler).__name__}")
            if shuffle:
                raise ValueError("BatchSampler: shuffle should be False when sampler is set")
            self.sampler = sampler
        else:
            if isinstance(dataset, IterableDataset):
                raise TypeError("BatchSampler: dataset should not be an IterableDataset")
            if sampler is not None:
                raise ValueError("BatchSampler: set dataset or sampler, not both")
            if not isinstance(shuffle, bool):
                raise TypeError(f"BatchSampler: shuffle should be a bool, got {shuffle!r}")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size should be a positive integer, got "
                             f"{batch_size!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"BatchSampler: drop_last should be a bool, got {drop_last!r}")
        self.batch_size, self.shuffle, self.drop_last = batch_size, shuffle, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        return batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """The batches of one of `num_replicas` ranks (default: one process, rank 0), as
    Paddle's: the indices are padded cyclically to a multiple of num_replicas, shuffled
    with np.random.RandomState(epoch) when `shuffle` (the epoch then advances, or is set by
    set_epoch), then dealt rank by rank in runs of batch_size, the last short round split
    evenly; each rank gets ceil(len(dataset) / num_replicas) indices."""

    def __init__(self, dataset: Sized, batch_size: int, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = False, drop_last: bool = False
                 ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer, got {batch_size!r}")
        for flag, name in ((shuffle, "shuffle"), (drop_last, "drop_last")):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} should be a bool, got {flag!r}")
        nranks = 1 if num_replicas is None else num_replicas
        if isinstance(nranks, bool) or not isinstance(nranks, int) or nranks <= 0:
            raise ValueError(f"num_replicas should be a positive integer, got {num_replicas!r}")
        local = 0 if rank is None else rank
        if isinstance(local, bool) or not isinstance(local, int) or not 0 <= local < nranks:
            raise ValueError(f"rank should be an integer in [0, {nranks}), got {rank!r}")
        self.dataset, self.batch_size = dataset, batch_size
        self.shuffle, self.drop_last = shuffle, drop_last
        self.nranks, self.local_rank, self.epoch = nranks, local, 0
        self.num_samples = -(-len(dataset) // nranks)
        self.total_size = self.num_samples * nranks

    def set_epoch(self, epoch: int) -> None:
        """The shuffle's seed for the next pass (every rank must set the same)."""
        self.epoch = epoch

    def _rank_indices(self) -> list[int]:
        n = len(self.dataset)
        order = list(range(n))
        if n:
            order += [order[i % n] for i in range(self.total_size - n)]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(order)
            self.epoch += 1
        if self.nranks == 1:
            return order
        bs, R, r = self.batch_size, self.nranks, self.local_rank
        tail = self.total_size % (bs * R)           # the last, short round
        mine: list[int] = []
        for start in range(r * bs, self.total_size - tail, bs * R):
            mine.extend(order[start:start + bs])
        share = tail // R
        rest = order[self.total_size - tail:]
        mine.extend(rest[r * share:(r + 1) * share])
        return mine

    def __iter__(self) -> Iterator[list[int]]:
        return batches(self._rank_indices(), self.batch_size, self.drop_last)

    def __len__(self) -> int:
        n = self.num_samples
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
