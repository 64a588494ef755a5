"""paddle.distribution fixes from the eighth hunt (/work/scratch/hunt8): gradients against
closed forms, values outside the support, dtype promotion of the value. Values measured on
Paddle 3.3.1 or closed forms (noted where Paddle 3.3.1 is wrong)."""

from __future__ import annotations

import numpy as np

import jitgrad as paddle

D = paddle.distribution


def t64(v, grad=False):
    t = paddle.to_tensor(np.asarray(v, dtype=np.float64))
    t.stop_gradient = not grad
    return t


def close(t, want, tol=1e-7):
    np.testing.assert_allclose(np.asarray(t.numpy(), dtype=np.float64), want, rtol=tol,
                               atol=tol)


def test_student_t_variance_is_differentiable_in_df():
    # d var / d df = -2 scale^2 / (df - 2)^2 (Paddle 3.3.1 detaches df: 0; torch agrees here)
    df, scale = t64([3.0, 5.0, 1.5], grad=True), t64([2.0, 0.7, 1.0], grad=True)
    v = D.StudentT(df, t64([0.0, 0.0, 0.0]), scale).variance
    close(v[:2], [12.0, 0.49 * 5 / 3])
    assert float(v[2]) == float("inf")
    v[:2].sum().backward()
    close(df.grad, [-8.0, -2 * 0.49 / 9, 0.0])
    close(scale.grad, [2 * 2.0 * 3.0, 2 * 0.7 * 5 / 3, 0.0])
