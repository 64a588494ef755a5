"""Gradient clipping for optimizers (grad_clip=...).

An optimizer hands a group's gradients to `_clip_arrays` (numpy arrays, no Tensor wrapping:
a small model's step is mostly this loop). Called directly, a clip takes Paddle's
`[(param, grad), ...]` and returns new pairs, skipping a grad that is None and a parameter
made with ParamAttr(need_clip=False). A user's clip subclasses ClipGradBase and implements
_dygraph_clip on those pairs, as in Paddle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor


class ClipGradBase:
    """Paddle's base class: __call__(params_grads) runs _dygraph_clip(params_grads)."""

    def __call__(self, params_grads: list[tuple[Tensor, Any]]) -> list[tuple[Tensor, Any]]:
        return self._dygraph_clip(params_grads)

    def _dygraph_clip(self, params_grads: list[tuple[Tensor, Any]]
                      ) -> list[tuple[Tensor, Any]]:
        raise NotImplementedError(f"{type(self).__name__} must implement "
                                  "_dygraph_clip(params_grads)")


class _ArrayClip(ClipGradBase):
    """A built-in clip: the rule is written once, on arrays (_clip_arrays)."""

    def _clip_arrays(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    def _dygraph_clip(self, params_grads: list[tuple[Tensor, Any]]
                      ) -> list[tuple[Tensor, Any]]:
        picked = [i for i, (p, g) in enumerate(params_grads)
                  if g is not None and getattr(p, "need_clip", True)]
        out = list(params_grads)
        grads = [params_grads[i][1] for i in picked]
        arrays = [g._data if isinstance(g, Tensor) else np.asarray(g) for g in grads]
        for i, g in zip(picked, self._clip_arrays(arrays)):
            out[i] = (params_grads[i][0], Tensor._make(np.asarray(g)))
        return out


class ClipGradByValue(_ArrayClip):
    def __init__(self, max: float, min: float | None = None) -> None:
        self.max, self.min = float(max), -float(max) if min is None else float(min)

    def _clip_arrays(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        return [np.clip(g, self.min, self.max) for g in grads]

    def __str__(self) -> str:
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"


class ClipGradByNorm(_ArrayClip):
    """Each gradient rescaled to an L2 norm of at most clip_norm."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def _clip_arrays(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for g in grads:
            n = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
            # (a NaN norm scales too, making the whole gradient NaN, as Paddle's kernel)
            out.append(g if n <= self.clip_norm else g * (self.clip_norm / n))
        return out

    def __str__(self) -> str:
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"


def _scale_in_place(g: np.ndarray, scale: np.generic) -> np.ndarray:
    """g times the scale rounded to g's dtype, written into g itself: Paddle 3.3.1 runs
    `g.multiply_(clip_var.astype(g.dtype))`, so a parameter's `.grad` is the clipped gradient
    after the step (measured: [6, 8] with clip_norm 1 reads [0.6, 0.8]). A 0-d or read-only
    gradient gets a new array (Paddle's multiply, not multiply_, for 0-d)."""
    s = scale.astype(g.dtype)
    if g.ndim and g.flags.writeable:
        return np.multiply(g, s, out=g)
    return g * s


class ClipGradByGlobalNorm(_ArrayClip):
    """All gradients rescaled together so that their joint L2 norm is at most clip_norm.
    group_name and auto_skip_clip are Paddle's (a label, and a static-graph switch: eager
    clipping never scales a norm already within clip_norm)."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False) -> None:
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: group_name must be a str, got "
                            f"{group_name!r}")
        self.clip_norm = float(clip_norm)
        self.group_name, self.auto_skip_clip = group_name, bool(auto_skip_clip)

    def _clip_arrays(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        # as Paddle 3.3.1 rounds it: each squared norm in the gradient's precision (float32
        # for half types), summed in float64 if any gradient is float64, else in float32,
        # and every gradient scaled by clip / max(norm, clip) in that precision
        if not grads:
            return grads
        wide = [np.float64 if g.dtype == np.float64 else np.float32 for g in grads]
        total_dtype = np.float64 if np.float64 in wide else np.float32
        total = total_dtype(0)
        for g, dt in zip(grads, wide):
            total = total + total_dtype(np.sum(np.square(g.astype(dt, copy=False))))
        norm = np.sqrt(total)
        if norm <= self.clip_norm:
            return grads
        clip = total_dtype(self.clip_norm)
        scale = clip / np.maximum(norm, clip)
        return [_scale_in_place(g, scale) for g in grads]

    def __str__(self) -> str:
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"
