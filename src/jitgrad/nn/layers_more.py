"""nn.Softmax2D and nn.SpectralNorm (Paddle 3.3.1's names and arguments)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..core import dtypes
from ..core.tensor import Tensor
from ..ops import matrix as MX
from ..ops import stats
from ..ops.shape import reshape, t, transpose
from . import functional as F
from .initializer import Normal
from .layer import Layer
from .layer_repr import name_suffix


class Softmax2D(Layer):
    """softmax over the channels of a [C, H, W] or [N, C, H, W] tensor (axis -3)."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D requires a 3D or 4D tensor as input, got {x.ndim}D")
        return F.softmax(x, axis=-3)

    def extra_repr(self) -> str:
        return name_suffix(self._name).lstrip(", ")


class SpectralNorm(Layer):
    """weight / sigma, sigma its largest singular value as a [weight_shape[dim], rest]
    matrix, estimated by power_iters power-iteration steps from the layer's vectors
    weight_u and weight_v (normal draws, not trained and, as in Paddle, never updated:
    every call starts from them): v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps),
    sigma = u^T W v. The gradient is that of this whole computation, the power iteration
    included (Paddle 3.3.1's kernel gives another, which finite differences disagree with;
    README)."""

    def __init__(self, weight_shape: Sequence[int], dim: int = 0, power_iters: int = 1,
                 eps: float = 1e-12, dtype: Any = "float32") -> None:
        super().__init__()
        shape = [int(s) for s in weight_shape]
        if not shape or math.prod(shape) <= 0:
            raise ValueError(f"SpectralNorm: weight_shape must have no dimension 0, got "
                             f"{shape}")
        if not 0 <= dim < len(shape):
            raise ValueError(f"SpectralNorm: dim must lie in [0, {len(shape)}), got {dim}")
        if power_iters < 0:
            raise ValueError(f"SpectralNorm: power_iters must be >= 0, got {power_iters}")
        self._shape, self._dim, self._iters, self._eps = shape, dim, power_iters, eps
        dt = dtypes.to_dtype(dtype).np
        h = shape[dim]
        self.weight_u = self.create_parameter([h], dtype=dt, default_initializer=Normal(0., 1.))
        self.weight_v = self.create_parameter([math.prod(shape) // h], dtype=dt,
                                              default_initializer=Normal(0., 1.))
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, x: Tensor) -> Tensor:
        if list(x.shape) != self._shape:
            raise ValueError(f"SpectralNorm: the weight's shape {list(x.shape)} is not "
                             f"the layer's weight_shape {self._shape}")
        d = self._dim
        w = x if d == 0 else transpose(x, [d] + [i for i in range(x.ndim) if i != d])
        mat = reshape(w, [self._shape[d], -1])
        u, v = Tensor._make(self.weight_u._data), Tensor._make(self.weight_v._data)
        for _ in range(self._iters):
            v = MX.mv(t(mat), u)
            v = v / (stats.norm(v) + self._eps)
            u = MX.mv(mat, v)
            u = u / (stats.norm(u) + self._eps)
        return x / MX.dot(u, MX.mv(mat, v))


NAMES: dict = {"Softmax2D": Softmax2D, "SpectralNorm": SpectralNorm}
