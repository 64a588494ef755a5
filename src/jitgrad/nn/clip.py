"""Gradient clipping for optimizers (grad_clip=...), acting on the numpy gradients."""

from __future__ import annotations

import numpy as np


class ClipGradByValue:
    def __init__(self, max: float, min: float | None = None) -> None:
        self.max, self.min = float(max), -float(max) if min is None else float(min)

    def __call__(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        return [np.clip(g, self.min, self.max) for g in grads]


class ClipGradByNorm:
    """Each gradient rescaled to an L2 norm of at most clip_norm."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def __call__(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for g in grads:
            n = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
            out.append(g * (self.clip_norm / n) if n > self.clip_norm else g)
        return out


class ClipGradByGlobalNorm:
    """All gradients rescaled together so that their joint L2 norm is at most clip_norm."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def __call__(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        n = float(np.sqrt(sum(np.sum(np.square(g, dtype=np.float64)) for g in grads)))
        if n <= self.clip_norm:
            return grads
        return [(g * (self.clip_norm / n)).astype(g.dtype) for g in grads]
