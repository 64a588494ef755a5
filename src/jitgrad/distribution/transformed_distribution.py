"""TransformedDistribution(base, transforms), as paddle.distribution.TransformedDistribution."""

from __future__ import annotations

from typing import Any, Sequence

from ..core.tensor import Tensor
from .base import Distribution, sum_rightmost
from .independent import Independent
from .transform import ChainTransform, Transform


class TransformedDistribution(Distribution):
    """The distribution of transforms[-1](...transforms[0](x)), x ~ base; log_prob by the
    change of variables formula."""

    def __init__(self, base: Distribution, transforms: Sequence[Transform]) -> None:
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: base must be a Distribution, got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, (list, tuple)):
            raise TypeError(f"TransformedDistribution: transforms must be a list or tuple of "
                            f"Transforms, got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("TransformedDistribution: every element of transforms must be a "
                            "Transform")
        chain = ChainTransform(transforms)
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"TransformedDistribution: base's shape needs at least "
                             f"{chain._domain.event_rank} dimensions, got {len(base_shape)}")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        shape = tuple(chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape)))
        rank = chain._codomain.event_rank + max(len(base.event_shape)
                                                - chain._domain.event_rank, 0)
        super().__init__(shape[:len(shape) - rank], shape[len(shape) - rank:])

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value: Tensor) -> Any:
        log_prob: Any = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain.event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        event_rank - len(self._base.event_shape))
