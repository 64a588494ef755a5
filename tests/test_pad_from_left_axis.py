"""F.pad's pad_from_left_axis and Paddle 3.3.1's constant-mode rule for a list of pads:
with 2 * ndim entries and pad_from_left_axis (the default) the first dim first, otherwise
len(pad) // 2 dims from the last dim backward, whatever the data_format, unless the list
is as long as the spatial dims' (2 * (ndim - 2)): those are padded by the data_format.
Each case's output was measured on Paddle 3.3.1 (equal to np.pad with these widths)."""

import inspect

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward, leaf

F = paddle.nn.functional

CASES = [
    # (shape, pad, keywords, np.pad's widths giving Paddle 3.3.1's output)
    ((1, 1, 1, 2, 3), [0, 0, 0, 0, 0, 0, 1, 1, 0, 0], {},      # Paddle's docstring, case 0
     [(0, 0), (0, 0), (0, 0), (1, 1), (0, 0)]),
    ((1, 1, 1, 2, 3), [0, 0, 0, 0, 0, 0, 1, 1, 0, 0], {"pad_from_left_axis": False},  # 1
     [(0, 0), (1, 1), (0, 0), (0, 0), (0, 0)]),
    ((2, 3, 4), [1, 2, 0, 1, 2, 0], {"pad_from_left_axis": True}, [(1, 2), (0, 1), (2, 0)]),
    ((2, 3, 4), [1, 2, 0, 1, 2, 0], {"pad_from_left_axis": False, "value": 9.0},
     [(2, 0), (0, 1), (1, 2)]),
    ((3, 4), [1, 2, 3, 4], {}, [(1, 2), (3, 4)]),
    ((3, 4), [1, 2, 3, 4], {"pad_from_left_axis": False}, [(3, 4), (1, 2)]),
    # fewer entries: from the last dim, data_format or not (jitgrad raised for the 3-D one
    # and padded W of the NHWC one)
    ((2, 3, 4), [1, 2, 3, 4], {"pad_from_left_axis": True}, [(0, 0), (3, 4), (1, 2)]),
    ((2, 3, 2, 2), [1, 2], {"data_format": "NHWC"}, [(0, 0), (0, 0), (0, 0), (1, 2)]),
    # the spatial dims' length: by the data_format, the flag aside
    ((2, 3, 2, 2), [1, 2, 0, 1], {"data_format": "NHWC", "pad_from_left_axis": False},
     [(0, 0), (0, 1), (1, 2), (0, 0)]),
    ((2, 3, 4), [], {"pad_from_left_axis": False}, [(0, 0)] * 3),      # a copy
]


@pytest.mark.parametrize("shape, pad, kw, widths", CASES)
def test_constant_pad_values_as_paddle(shape, pad, kw, widths):
    a = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape) + 1
    y = F.pad(paddle.to_tensor(a), pad, **kw)
    want = np.pad(a, widths, constant_values=kw.get("value", 0.0))
    assert tuple(y.shape) == want.shape
    np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("path", PATHS)
def test_pad_from_the_right_gradient_is_the_interior(path):
    x = leaf(np.arange(24, dtype="float32").reshape(2, 3, 4))
    y = F.pad(x, [1, 2, 0, 1, 2, 0], pad_from_left_axis=False)
    g = np.arange(y.size, dtype="float32").reshape(y.shape)
    backward(y, path, grad_tensor=paddle.to_tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g[2:4, 0:3, 1:5])


def test_pad_from_left_axis_is_paddles_keyword_and_a_bool():
    params = list(inspect.signature(F.pad).parameters)
    assert params == ["x", "pad", "mode", "value", "data_format", "pad_from_left_axis",
                      "name"]
    x = paddle.to_tensor(np.zeros((2, 3), "float32"))
    with pytest.raises(TypeError, match="pad_from_left_axis"):
        F.pad(x, [1, 1, 1, 1], pad_from_left_axis="no")
    # the two orders are planned apart (the plan cache keys the flag)
    assert F.pad(x, [1, 1, 0, 0]).shape == [4, 3]
    assert F.pad(x, [1, 1, 0, 0], pad_from_left_axis=False).shape == [2, 5]
