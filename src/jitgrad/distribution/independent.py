"""Independent(base, reinterpreted_batch_rank), as paddle.distribution.Independent."""

from __future__ import annotations

from typing import Sequence

from ..core.tensor import Tensor
from .base import Distribution, sum_rightmost


class Independent(Distribution):
    """base with its rightmost reinterpreted_batch_rank batch dimensions made event
    dimensions: log_prob and entropy sum over them."""

    def __init__(self, base: Distribution, reinterpreted_batch_rank: int) -> None:
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: base must be a Distribution, got "
                            f"{type(base).__name__}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Independent: expected 0 < reinterpreted_batch_rank <= "
                             f"{len(base.batch_shape)} (base's batch rank), got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self) -> Tensor:
        return self._base.mean

    @property
    def variance(self) -> Tensor:
        return self._base.variance

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._base.sample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """base.rsample (a jitgrad addition: Paddle 3.3.1's Independent has none)."""
        return self._base.rsample(shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value: Tensor) -> Tensor:
        return self.log_prob(value).exp()

    def entropy(self) -> Tensor:
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
