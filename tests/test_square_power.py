"""x ** 2 (the operator, paddle.pow, pow_, and _fpow in the backward's rules) is x * x:
numpy's power of 2 is its square, so the values are np.power's bit for bit, without the
abs pass and np.power's dispatch (8192 float64 without a gradient: ~12 -> ~4.6 us)."""

import numpy as np
import pytest
from bitwise import same_bits

import jitgrad as paddle
from jitgrad.ops import elementwise as E

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-40, 3e38, -3e38, 1e200, -7.1]


def _values(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(500) * 10.0 ** rng.integers(-30, 30, 500)
    with np.errstate(all="ignore"):
        return np.concatenate([x, SPECIAL]).astype(dtype)


@pytest.mark.parametrize("dtype", (np.float16, np.float32, np.float64))
def test_square_is_numpys_power_bit_for_bit(dtype):
    x = _values(dtype)
    with np.errstate(all="ignore"):
        same_bits(E._fpow(x, 2.0), np.power(np.abs(x), dtype(2)))
        same_bits(E._fpow(x, 2), np.power(x, dtype(2)))


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_square_does_not_call_numpys_power(monkeypatch, dtype):
    x = _values(dtype)
    with np.errstate(all="ignore"):
        want = x * x

    E._power_two_is_square(np.dtype(dtype))     # (checked once per dtype, by np.power)

    def power(*args, **kwargs):
        raise AssertionError("np.power ran")
    monkeypatch.setattr(np, "power", power)
    with np.errstate(all="ignore"):
        same_bits(E._fpow(x, 2.0), want)
        t = paddle.to_tensor(x)
        same_bits((t ** 2).numpy(), want)
        same_bits(paddle.pow(t, 2).numpy(), want)
        with paddle.no_grad():
            same_bits((t ** 2.0).numpy(), want)


def test_square_records_its_node_and_gradient():
    x = paddle.to_tensor([1.5, -2.0, 0.25], dtype="float64", stop_gradient=False)
    y = x ** 2
    assert y.grad_fn is not None
    y.backward(paddle.to_tensor([1.0, 2.0, 3.0], dtype="float64"))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -8.0, 1.5])       # 2 x g
    g = paddle.grad((x ** 2).sum(), x, create_graph=True)[0]
    np.testing.assert_array_equal(paddle.grad(g.sum(), x)[0].numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_a_negative_nan_squares_to_a_positive_one_as_the_power_of_its_abs(dtype):
    # _fpow's |x|^2 (np.power of np.abs(x) before the square's shortcut): x * x alone would
    # keep -nan's sign, and x ** 3's compiled factor (|x| squared) would differ from it
    x = np.array([np.copysign(np.nan, -1.0), -2.0, -0.0], dtype)
    same_bits(E._fpow(x, 2), np.power(np.abs(x), dtype(2)))
    assert not np.signbit(E._fpow(x, 2)[0])
