"""sum and mean over a short axis (vm/forward_reduce.py's axis_sums, ops/reduce.py's
_axis_sum): numpy's add.reduce runs its inner loop once per short row there (a [64, 64, 2]
over its last or middle axis: 4096 calls of 2 elements, ~60 us where torch takes 6), so a
compiled loop sums them, bit for bit numpy's values (pairwise along a row, sequential
across rows, from 0: an all -0 group gives +0)."""

import numpy as np
import pytest
from bitwise import same_bits
from test_forward_reduce import _values

import jitgrad as paddle
from jitgrad.ops import reduce as R
from jitgrad.testing import check_grads

DTYPES = (np.float32, np.float64)
# (shape, axes) the kernel takes: short rows (Q = 1, n < 32), or short columns (Q < 32)
TAKEN = [((64, 64, 2), (2,)), ((64, 64, 2), (1,)), ((4096, 2), (1,)), ((1000, 3), (0,)),
         ((1000, 3), (1,)), ((50, 17), (1,)), ((7, 3, 9, 5), (1, 2)), ((3, 1000, 3), (1,)),
         ((2, 50, 31), (1,)), ((40, 8, 1), (1,)), ((40, 8, 1), (1, 2)), ((20, 3, 4, 2), (2, 3))]


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


def _numpy_sum(x, axes, keepdim):
    return np.add.reduce(x, axes, keepdims=keepdim)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", TAKEN)
def test_short_axis_sums_are_numpys_bit_for_bit(shape, axes, dtype):
    for kind in range(8):               # signed zeros, NaN, infinities, overflow included
        x = _values(shape, dtype, kind)
        with np.errstate(all="ignore"):
            for keepdim in (False, True):
                got = R._axis_sum(x, axes, keepdim)
                assert got is not None
                same_bits(got, _numpy_sum(x, axes, keepdim))
                same_bits(R._sum_forward(x, axes, keepdim), _numpy_sum(x, axes, keepdim))


def test_an_all_negative_zero_group_sums_to_positive_zero():
    x = np.full((64, 3), -0.0)
    got = R._axis_sum(x, (1,), False)
    same_bits(got, np.zeros(64))
    same_bits(R._axis_sum(x, (0,), False), np.zeros(3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_and_mean_over_a_short_axis_do_not_run_numpys_reduction(monkeypatch, dtype):
    x = _values((64, 64, 2), dtype, 0)
    want = {ax: (_numpy_sum(x, (ax,), False), np.mean(x, axis=ax).astype(dtype))
            for ax in (1, 2)}

    def numpy_reduce(*args, **kwargs):
        raise AssertionError("numpy's add.reduce ran")
    monkeypatch.setattr(R, "_add_reduce", numpy_reduce)
    t = paddle.to_tensor(x)
    for ax in (1, 2):
        same_bits(paddle.sum(t, axis=ax).numpy(), want[ax][0])
        same_bits(t.sum(ax - 3).numpy(), want[ax][0])
        np.testing.assert_array_equal(paddle.mean(t, axis=ax).numpy(), want[ax][1])


def test_other_layouts_keep_numpys_call():
    x = _values((8, 40, 5), np.float64, 0)
    assert R._axis_sum(x, (2,), False) is not None
    assert R._axis_sum(x[:, :, ::2].copy(), (1,), False) is not None
    assert R._axis_sum(np.asfortranarray(x), (2,), False) is None        # not C-contiguous
    assert R._axis_sum(x.astype(np.float16), (2,), False) is None
    assert R._axis_sum(x, (0, 2), False) is None                        # a gap
    assert R._axis_sum(_values((8, 40), np.float64, 0), (1,), False) is None   # long rows
    assert R._axis_sum(_values((8, 3, 40), np.float64, 0), (1,), False) is None  # wide Q
    assert R._axis_sum(_values((4, 3), np.float64, 0), (1,), False) is None     # few rows
    assert R._axis_sum(_values((40, 40, 1), np.float64, 0), (2,), False) is None  # axis of 1


def test_gradients_through_a_short_axis_sum_and_mean():
    x = _values((20, 6, 3), np.float64, 0)
    check_grads(lambda t: (paddle.sum(t, axis=-1) ** 2).sum() + paddle.mean(t, axis=1).sum(),
                x)
