"""Shared helpers of the paddle.distribution tests: float64 parameters and a float64
comparison."""

from __future__ import annotations

import numpy as np

import jitgrad as paddle


def t64(v, grad: bool = False) -> paddle.Tensor:
    """A float64 tensor of v (needing a gradient when `grad`)."""
    t = paddle.to_tensor(np.asarray(v, dtype=np.float64))
    t.stop_gradient = not grad
    return t


def close(t, want, tol: float = 1e-7) -> None:
    """t's values equal want within tol, relative and absolute, compared in float64."""
    np.testing.assert_allclose(np.asarray(t.numpy(), dtype=np.float64), want, rtol=tol,
                               atol=tol)
