"""Parameter initializers (paddle.nn.initializer names), drawing from paddle.seed's generator."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..ops import creation


def _fans(shape: Sequence[int]) -> tuple[int, int]:
    """fan_in, fan_out with Paddle's layouts: Linear [in, out], conv [out, in, k...]."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    rf = int(np.prod(shape[2:]))
    return shape[1] * rf, shape[0] * rf


class Initializer:
    def __call__(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, shape, dtype):
        return np.full(shape, self.value, dtype)


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0) -> None:
        self.low, self.high = low, high

    def __call__(self, shape, dtype):
        return creation.generator().uniform(self.low, self.high, shape).astype(dtype)


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0) -> None:
        self.mean, self.std = mean, std

    def __call__(self, shape, dtype):
        return creation.generator().normal(self.mean, self.std, shape).astype(dtype)


class XavierUniform(Initializer):
    def __call__(self, shape, dtype):
        fi, fo = _fans(shape)
        lim = math.sqrt(6.0 / (fi + fo))
        return Uniform(-lim, lim)(shape, dtype)


class XavierNormal(Initializer):
    def __call__(self, shape, dtype):
        fi, fo = _fans(shape)
        return Normal(0.0, math.sqrt(2.0 / (fi + fo)))(shape, dtype)


class KaimingUniform(Initializer):
    def __call__(self, shape, dtype):
        lim = math.sqrt(6.0 / _fans(shape)[0])
        return Uniform(-lim, lim)(shape, dtype)


class KaimingNormal(Initializer):
    def __call__(self, shape, dtype):
        return Normal(0.0, math.sqrt(2.0 / _fans(shape)[0]))(shape, dtype)


class ParamAttr:
    """Paddle's ParamAttr: an initializer, a trainable flag and a name."""

    def __init__(self, name: str | None = None, initializer: Initializer | None = None,
                 learning_rate: float = 1.0, regularizer: object = None, trainable: bool = True
                 ) -> None:
        self.name, self.initializer, self.trainable = name, initializer, trainable
        self.learning_rate, self.regularizer = learning_rate, regularizer
