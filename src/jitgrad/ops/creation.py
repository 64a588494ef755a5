"""Creating tensors: constants, ranges and seeded random numbers (paddle.seed)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor

_rng = np.random.default_rng(0)


def seed(s: int) -> None:
    """Reseed jitgrad's generator (dropout, rand, randn, initializers)."""
    global _rng
    _rng = np.random.default_rng(int(s))


def generator() -> np.random.Generator:
    return _rng


def _dt(dtype: Any, default: Any = None) -> np.dtype:
    if dtype is None:
        return dtypes.default_float().np if default is None else np.dtype(default)
    return dtypes.to_dtype(dtype).np


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s.item() if isinstance(s, Tensor) else s) for s in shape)


def _t(arr: np.ndarray) -> Tensor:
    return Tensor._make(np.array(arr, order="C"))


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.zeros(_shape(shape), _dt(dtype)))


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.ones(_shape(shape), _dt(dtype)))


def full(shape: Any, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    if dtype is None and isinstance(fill_value, (bool, np.bool_)):
        dtype = "bool"
    elif dtype is None and isinstance(fill_value, (int, np.integer)):
        dtype = "int64"
    return _t(np.full(_shape(shape), fill_value, _dt(dtype)))


def zeros_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.zeros_like(x._data, dtype=_dt(dtype, x._data.dtype)))


def ones_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.ones_like(x._data, dtype=_dt(dtype, x._data.dtype)))


def full_like(x: Tensor, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.full_like(x._data, fill_value, dtype=_dt(dtype, x._data.dtype)))


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
           name: str | None = None) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = "int64" if all(isinstance(v, (int, np.integer)) for v in vals) else None
    return _t(np.arange(*vals, dtype=_dt(dtype)))


def linspace(start: float, stop: float, num: int, dtype: Any = None, name: str | None = None
             ) -> Tensor:
    return _t(np.linspace(start, stop, int(num), dtype=_dt(dtype)))


def eye(num_rows: int, num_columns: int | None = None, dtype: Any = None,
        name: str | None = None) -> Tensor:
    return _t(np.eye(num_rows, num_columns, dtype=_dt(dtype)))


def rand(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(_rng.random(_shape(shape)).astype(_dt(dtype)))


def randn(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(_rng.standard_normal(_shape(shape)).astype(_dt(dtype)))


def uniform(shape: Any, dtype: Any = None, min: float = -1.0, max: float = 1.0, seed: int = 0,
            name: str | None = None) -> Tensor:
    r = np.random.default_rng(seed) if seed else _rng
    return _t(r.uniform(min, max, _shape(shape)).astype(_dt(dtype)))


def normal(mean: float = 0.0, std: float = 1.0, shape: Any = None, name: str | None = None
           ) -> Tensor:
    return _t(_rng.normal(mean, std, _shape(shape if shape is not None else [1]))
              .astype(_dt(None)))


def randint(low: int = 0, high: int | None = None, shape: Sequence[int] = (1,),
            dtype: Any = None, name: str | None = None) -> Tensor:
    if high is None:
        low, high = 0, low
    return _t(_rng.integers(low, high, _shape(shape)).astype(_dt(dtype, np.int64)))


def randperm(n: int, dtype: Any = "int64", name: str | None = None) -> Tensor:
    return _t(_rng.permutation(int(n)).astype(_dt(dtype)))
