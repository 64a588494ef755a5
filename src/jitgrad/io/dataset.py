"""Datasets (paddle.io names): map-style Dataset, IterableDataset, TensorDataset, Subset,
ConcatDataset, ComposeDataset, ChainDataset and random_split.

random_split draws its permutation from jitgrad's generator (paddle.seed), as Paddle draws it
from paddle.randperm; a `generator` (an int seed or a numpy Generator) is used when given,
as Paddle's docs say (Paddle 3.3.1 ignores it).
"""

from __future__ import annotations

import bisect
import math
import warnings
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..core.tensor import Tensor


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""

    def __getitem__(self, idx: int) -> Any:
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self) -> int:
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__(); no indexing, no len."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx: int) -> Any:
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset "
                           f"{type(self).__name__}")

    def __len__(self) -> int:
        raise RuntimeError(f"'__len__' should not be called for IterableDataset "
                           f"{type(self).__name__}")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); every tensor (or numpy array, as Paddle takes)
    has the same first dimension."""

    def __init__(self, tensors: Sequence[Tensor]) -> None:
        tensors = list(tensors)
        if not tensors or not all(isinstance(t, (Tensor, np.ndarray)) for t in tensors):
            raise TypeError("TensorDataset: tensors must be a non-empty list of Tensors or "
                            "numpy arrays")
        if any(t.ndim == 0 or t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError(f"TensorDataset: tensors must share their first dimension, got "
                             f"shapes {[list(t.shape) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class Subset(Dataset):
    """The samples of dataset at the given indices, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: int) -> Any:
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def _map_style(datasets: Iterable[Dataset], owner: str) -> list[Dataset]:
    datasets = list(datasets)
    if not datasets:
        raise ValueError(f"{owner}: datasets should not be empty")
    if any(isinstance(d, IterableDataset) for d in datasets):
        raise TypeError(f"{owner} does not support IterableDataset")
    return datasets


class ConcatDataset(Dataset):
    """The samples of several datasets one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = _map_style(datasets, "ConcatDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ComposeDataset(Dataset):
    """Sample i joins sample i of every dataset into one tuple (fields flattened)."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = _map_style(datasets, "ComposeDataset")
        if len({len(d) for d in self.datasets}) != 1:
            raise ValueError("ComposeDataset: the datasets must have the same length")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, idx: int) -> tuple:
        out: list = []
        for d in self.datasets:
            sample = d[idx]
            out.extend(sample if isinstance(sample, (list, tuple)) else [sample])
        return tuple(out)


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets: Sequence[IterableDataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ChainDataset: datasets should not be empty")
        if not all(isinstance(d, IterableDataset) for d in self.datasets):
            raise TypeError("ChainDataset only supports IterableDatasets")

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d


def _permutation(n: int, generator: Any) -> list[int]:
    if generator is None:
        from ..ops.creation import generator as jitgrad_generator
        return jitgrad_generator().permutation(n).tolist()
    if isinstance(generator, np.random.Generator):
        return generator.permutation(n).tolist()
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        return np.random.default_rng(int(generator)).permutation(n).tolist()
    raise TypeError(f"random_split: generator must be None, an int seed or a "
                    f"numpy.random.Generator, got {type(generator).__name__}")


def random_split(dataset: Dataset, lengths: Sequence[float], generator: Any = None
                 ) -> list[Subset]:
    """Split into non-overlapping Subsets of the given lengths (or fractions summing to 1,
    the remainder going one by one to the first splits)."""
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(len(dataset) * frac)))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.")
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError(f"random_split: the lengths sum to {sum(lengths)}, but the dataset "
                         f"has {len(dataset)} samples")
    order = _permutation(int(sum(lengths)), generator)
    out, start = [], 0
    for size in lengths:
        out.append(Subset(dataset, order[start:start + int(size)]))
        start += int(size)
    return out
