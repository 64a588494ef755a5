"""Paddle's `paddle.io`: datasets, samplers and the DataLoader (single-process)."""

from .dataloader import DataLoader, default_collate_fn, default_convert_fn, get_worker_info
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,
                      SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "DistributedBatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader",
           "Dataset", "IterableDataset", "RandomSampler", "Sampler", "SequenceSampler",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate_fn", "default_convert_fn", "get_worker_info", "random_split"]
