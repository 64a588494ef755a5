"""Chi2(df), as paddle.distribution.Chi2: a Gamma with concentration df / 2 and rate 1/2."""

from __future__ import annotations

from typing import Any

from . import _ops as P
from ..core.tensor import Tensor
from .gamma import Gamma


class Chi2(Gamma):
    """The chi-squared distribution with `df` degrees of freedom (a float, list, array or
    Tensor; every value must be positive)."""

    def __init__(self, df: Any) -> None:
        if isinstance(df, Tensor):
            self.df = df
        else:
            (self.df,) = self._to_tensor(df)
        if not bool((self.df._data > 0).all()):
            raise ValueError("Chi2: every df must be positive")
        super().__init__(self.df * 0.5, P.full_like(self.df, 0.5))
