"""float16 results against Paddle 3.3.1 on CPU, bit for bit (the values below are Paddle's)."""

import numpy as np

import jitgrad as paddle


def _bits(t):
    return t.numpy().view(np.uint16).tolist()


def test_float16_sum_over_outer_axis_accumulates_in_float32():
    # Paddle 3.3.1: 50 x float16(0.1) summed over axis 0 is float16(4.9988) = 5.0 (float32
    # accumulation, one rounding); numpy's float16 reduction rounded each step: 5.004
    x = paddle.to_tensor(np.full((50, 4), 0.1, np.float16))
    want = np.full(4, 5.0, np.float16)
    for got in (x.sum(axis=0), paddle.sum(x, axis=0), x.sum(axis=0, keepdim=True)[0]):
        assert got.dtype == paddle.float16
        assert _bits(got) == want.view(np.uint16).tolist()
    assert x.T.sum().item() == 20.0      # 200 x 0.0999755859 = 19.995, to float16: 20.0


def test_float16_sum_gradient_flows_unchanged():
    x = paddle.to_tensor(np.full((50, 4), 0.1, np.float16), stop_gradient=False)
    x.sum(axis=0).sum().backward()
    assert x.grad.dtype == paddle.float16
    assert np.array_equal(x.grad.numpy(), np.ones((50, 4), np.float16))


# A value just above a float16 tie: numpy rounds it to float16 directly (1.000977); Paddle
# 3.3.1 makes its float16 from a float32 (phi's float16(double)), where it is the tie
# 1 + 2**-11 first, and then rounds to even: 1.0.
_ABOVE_TIE = 1 + 2 ** -11 + 2 ** -30
_ONE = np.float16(1.0).view(np.uint16).item()


def test_float16_cast_from_float64_rounds_through_float32():
    v = [_ABOVE_TIE, -_ABOVE_TIE, 2049.0000001, 2.98023224e-08 * (1 + 1e-9)]
    a = paddle.to_tensor(np.array(v, np.float64))
    want = np.array([1.0, -1.0, 2048.0, 0.0], np.float16).view(np.uint16).tolist()
    assert _bits(a.astype("float16")) == want
    assert _bits(paddle.cast(a, "float16")) == want


def test_float16_python_scalar_operand_rounds_through_float32():
    x = paddle.to_tensor(np.array([-3, 0, 3], np.float16))
    assert _bits(x * 0 + _ABOVE_TIE) == [_ONE] * 3
    assert x.add(paddle.to_tensor(0.0, dtype="float16")).numpy().tolist() == [-3, 0, 3]
    assert (x - _ABOVE_TIE).numpy().tolist() == [-4.0, -1.0, 2.0]
    assert (_ABOVE_TIE - x).numpy().tolist() == [4.0, 1.0, -2.0]
    assert (x / _ABOVE_TIE).numpy().tolist() == [-3.0, 0.0, 3.0]
    assert (x * np.float64(_ABOVE_TIE)).numpy().tolist() == [-3.0, 0.0, 3.0]
    assert paddle.scale(x, 1.0, _ABOVE_TIE).numpy().tolist() == [-2.0, 1.0, 4.0]


def test_float16_fill_values_round_through_float32():
    x = paddle.zeros([2], "float16")
    assert _bits(paddle.full([2], _ABOVE_TIE, dtype="float16")) == [_ONE] * 2
    assert _bits(paddle.full_like(x, _ABOVE_TIE)) == [_ONE] * 2
    assert _bits(paddle.ones([2], "float16").fill_(_ABOVE_TIE)) == [_ONE] * 2
    assert _bits(paddle.masked_fill(x, x == 0, _ABOVE_TIE)) == [_ONE] * 2


def test_float16_setitem_number_or_tensor_rounds_through_float32():
    x = paddle.zeros([3], "float16")
    x[0] = _ABOVE_TIE
    x[1:] = paddle.to_tensor([_ABOVE_TIE, _ABOVE_TIE], dtype="float64")
    assert _bits(x) == [_ONE] * 3
    w = paddle.zeros([2], "float16")
    w.stop_gradient = False
    y = w * 1.0
    y[0] = _ABOVE_TIE
    assert _bits(y)[0] == _ONE


def test_float16_compare_with_number_rounds_it_through_float32():
    one = paddle.ones([1], "float16")
    assert (one == _ABOVE_TIE).item() and not (one != _ABOVE_TIE).item()
    assert (_ABOVE_TIE == one).item()
    assert (one == np.float64(_ABOVE_TIE)).item()
    assert paddle.equal(one, _ABOVE_TIE).item()
    assert (one * (1 + 2 ** -10) > _ABOVE_TIE).item()


def _float16_leaf_grads(mode, c, retain):
    x = paddle.to_tensor(np.array([1, 2, 3], np.float16), stop_gradient=False)
    y = (x.astype("float64") * c).sum()          # dy/dx = c, float64, cast to float16
    if mode == "create_graph":
        y.backward(create_graph=True)
    elif mode == "eager":
        y.backward(retain_graph=retain)
    else:
        with paddle.vm.using(mode):
            y.backward(retain_graph=retain)
    out = [x.grad.numpy().copy()]
    if retain:                                   # the retained graph's replay
        x.clear_grad()
        with paddle.vm.using("numba" if mode == "eager" else mode):
            y.backward()
        out.append(x.grad.numpy())
    return out


def test_float16_gradient_from_float64_rounds_through_float32():
    # Paddle 3.3.1's cast_grad makes the float16 gradient from a float: [1, -1, 2048]
    from jitgrad import vm
    vm.warmup(quiet=True)
    c = paddle.to_tensor(np.array([_ABOVE_TIE, -_ABOVE_TIE, 2049.0000001]))
    want = np.array([1.0, -1.0, 2048.0], np.float16).view(np.uint16).tolist()
    for mode in ("eager", "create_graph", "reference", "numba"):
        for retain in (False, True):
            if mode == "create_graph" and retain:
                continue
            for _ in range(2):                   # the second: the structural cache's Program
                for g in _float16_leaf_grads(mode, c, retain):
                    assert g.dtype == np.float16
                    assert g.view(np.uint16).tolist() == want, (mode, retain)
    # a float16 leaf promoted by a float64 operand: its gradient is cast the same way
    x = paddle.to_tensor(np.array([1, 2, 3], np.float16), stop_gradient=False)
    (x * c).sum().backward()
    assert _bits(x.grad) == want


def test_float16_where_with_a_python_float_is_float32():
    # Paddle 3.3.1: the float is a float32 tensor, and float16 with float32 is float32
    x = paddle.to_tensor(np.array([-1, 2], np.float16), stop_gradient=False)
    for r, want in ((paddle.where(x > 0, x, 0.1), [0.1, 2.0]),
                    (paddle.where(x > 0, 0.1, x), [-1.0, 0.1])):
        assert r.dtype == paddle.float32
        assert r.numpy().tolist() == np.array(want, np.float32).tolist()
    paddle.where(x > 0, x, 0.1).sum().backward()
    assert x.grad.dtype == paddle.float16 and x.grad.numpy().tolist() == [0.0, 1.0]
    assert paddle.where(x > 0, x, x * 0).dtype == paddle.float16


def test_float16_add_n_accumulates_in_float32():
    # Paddle 3.3.1: 2048 + 1 + 1 = 2050 and 50 x 0.1 = 5.0 (one rounding); one float16
    # addition after another gave 2048 and 5.004
    a = [paddle.to_tensor(np.array([v], np.float16)) for v in (2048.0, 1.0, 1.0)]
    assert paddle.add_n(a).numpy().tolist() == [2050.0]
    xs = [paddle.to_tensor(np.full(4, 0.1, np.float16), stop_gradient=False) for _ in range(50)]
    s = paddle.add_n(xs)
    assert s.dtype == paddle.float16 and s.numpy().tolist() == [5.0] * 4
    s.sum().backward()
    assert xs[7].grad.dtype == paddle.float16 and xs[7].grad.numpy().tolist() == [1.0] * 4
