"""An in-place op without a graph to record (no_grad, a leaf x) skips what only recording
needs: no stand-in for x, no version-group lookup until some tensor shares its version
counter (detach), one copy into x's fresh buffer. x.add_(y) on [64, 2] float64 under
no_grad: ~6.2 -> ~4.0 us (Paddle 3.3.1 3.5, torch 0.9; perf/inplace_steps.py). The semantics kept:
copy on write, version counts, detach()es' shared counters."""

import numpy as np

import jitgrad as paddle
from jitgrad.core import tensor as T
from jitgrad.ops import inplace as IP


def _refuse(*args, **kwargs):
    raise AssertionError("called")


def test_no_stand_in_for_a_leaf_without_grad_mode(monkeypatch):
    x = paddle.to_tensor([1.0, 2.0])
    monkeypatch.setattr(IP, "stand_in", _refuse)
    with paddle.no_grad():
        x.add_(paddle.to_tensor([0.5, 0.5])).scale_(2.0).clip_(0.0, 4.0)
    np.testing.assert_array_equal(x.numpy(), [3.0, 4.0])
    assert x.inplace_version == 3


def test_no_version_group_lookup_before_any_group_exists(monkeypatch):
    made = T.VERSION_GROUPS_MADE[0]
    T.VERSION_GROUPS_MADE[0] = False
    try:
        monkeypatch.setattr(IP, "_vgroup_of", _refuse)
        x = paddle.to_tensor([1.0, 2.0])
        x.add_(paddle.to_tensor([1.0, 1.0]))
        assert x.inplace_version == 1
    finally:
        T.VERSION_GROUPS_MADE[0] = made


def test_detach_still_shares_versions_and_keeps_old_values():
    x = paddle.to_tensor([1.0, 2.0])
    y = x.detach()
    assert T.VERSION_GROUPS_MADE[0]
    x.add_(paddle.to_tensor([1.0, 1.0]))
    assert (x.inplace_version, y.inplace_version) == (1, 1)
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])     # copy on write
    np.testing.assert_array_equal(x.numpy(), [2.0, 3.0])


def test_a_write_takes_a_fresh_c_contiguous_buffer_in_xs_dtype():
    x = paddle.to_tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    old = x._data
    with paddle.no_grad():
        x.multiply_(paddle.to_tensor(np.full((2, 3), 2.0, np.float32)))
    assert x._data is not old and x._data.flags.c_contiguous and x.dtype == paddle.float32
    np.testing.assert_array_equal(old, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x.numpy(), 2 * np.arange(6.0).reshape(2, 3))


def test_a_recorded_in_place_op_still_uses_a_stand_in():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = w * 1.0
    h.multiply_(w)
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])
