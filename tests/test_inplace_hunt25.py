"""In-place ops and autograd, against Paddle 3.3.1 (measured with /work/peers/bin/python; the
repro of each finding is in the hunt's notes): hooks on a tensor changed in place, and which
in-place changes of a recorded value a backward refuses."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward, leaf


@pytest.mark.parametrize("path", PATHS)
def test_hook_registered_after_an_inplace_op_runs_on_the_new_values_gradient(path):
    # Paddle 3.3.1: y = x * 2; hook a; z = y * 3; y.add_(1); hook b; (y*y).sum() + z.sum():
    # b sees [6, 10, 14] (2 y_new), a sees b's 100x plus z's 3: [603, 1003, 1403];
    # x.grad [12060, 20060, 28060]. (Both hooks had run on the old value's gradient: a on
    # [9, 13, 17], then b; x.grad [18000, 26000, 34000].)
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    calls = []
    y.register_hook(lambda g: calls.append(("a", g.numpy().tolist())) or g * 10)
    z = y * 3
    y.add_(paddle.to_tensor(1.0))
    y.register_hook(lambda g: calls.append(("b", g.numpy().tolist())) or g * 100)
    backward((y * y).sum() + z.sum(), path)
    assert calls == [("b", [6.0, 10.0, 14.0]), ("a", [603.0, 1003.0, 1403.0])]
    np.testing.assert_array_equal(x.grad.numpy(), [12060.0, 20060.0, 28060.0])


@pytest.mark.parametrize("path", PATHS)
def test_each_version_runs_its_own_hooks(path):
    # Paddle 3.3.1: hook on v0, add_, hook on v1, mul_(3), hook on v2, (y*y).sum(): the
    # hooks see [18, 30, 42] (v2), [540, 900, 1260] (v1), [5400, 9000, 12600] (v0)
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    calls = []
    for step in ("hook", "add", "hook", "mul", "hook"):
        if step == "hook":
            y.register_hook(lambda g: calls.append(g.numpy().tolist()) or g * 10)
        elif step == "add":
            y.add_(paddle.to_tensor(1.0))
        else:
            y.mul_(paddle.to_tensor(3.0))
    backward((y * y).sum(), path)
    assert calls == [[18.0, 30.0, 42.0], [540.0, 900.0, 1260.0], [5400.0, 9000.0, 12600.0]]
    np.testing.assert_array_equal(x.grad.numpy(), [108000.0, 180000.0, 252000.0])
