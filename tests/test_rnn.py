"""Recurrent cells and layers: Paddle 3.3.1's behaviour (values recorded from it), gradients
against finite differences, the fused sequence op against the cells stepped by hand, and
the program cache across training steps. (The fused ops' own gradient tests, orders 1 and
2 through every path, come from the registry: lstm_scan, gru_scan, rnn_scan.)"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.recurrent import recurrence
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def _set_linspace(layer):
    """Paddle-probe weights: parameter i = linspace(-0.5, 0.5) * (1 + 0.1 i)."""
    for i, p in enumerate(layer.parameters()):
        n = int(np.prod(p.shape))
        p.set_value(np.linspace(-0.5, 0.5, n).reshape(p.shape).astype("float32")
                    * (1 + 0.1 * i))


X = np.array([[[0.5, -1.0], [1.5, 0.25], [-0.75, 1.0]],
              [[1.0, 0.5], [-0.5, -1.5], [0.0, 0.0]]], "float32")

# bidirectional, sequence_length [3, 2]: measured on Paddle 3.3.1 (perf/paddle_cases/
# recurrent.py compares many more configurations)
PADDLE = {
    "LSTM": dict(
        out0=[[0.0161123, 0.0835652, 0.025174, 0.1504445],
              [0.027233, 0.1501736, 0.0243168, 0.1400789],
              [0.0485408, 0.1948473, 0.0393658, 0.1373669]],
        h=[[[0.0485408, 0.1948473], [0.0136347, 0.0708038]],
           [[0.025174, 0.1504445], [0.0193782, 0.1120152]]],
        xgrad1=[[-0.0670074, -0.0181118], [0.1503144, 0.2541763], [0.0, 0.0]],
        whh=[[0.001359, 0.0072779], [0.0050078, 0.0265016], [0.0003523, 0.0018128],
             [0.0019403, 0.0100672], [0.0110261, 0.0550596], [0.0115517, 0.0574864],
             [0.0005602, 0.002923], [0.0019586, 0.0100309]]),
    "GRU": dict(
        out0=[[0.140932, 0.2236141, 0.4194515, 0.5832274],
              [0.4756006, 0.4986914, 0.6570236, 0.5600866],
              [0.5136556, 0.6151158, 0.3623665, 0.3311201]],
        h=[[[0.5136556, 0.6151158], [0.1602005, 0.2093235]],
           [[0.4194515, 0.5832274], [0.4641916, 0.3148387]]],
        xgrad1=[[0.2862024, 0.2750974], [0.7667748, 1.1310365], [0.0, 0.0]],
        whh=[[0.048185, 0.0482358], [0.0628896, 0.0610745], [0.0093681, -0.0095026],
             [-0.0390554, -0.0653655], [0.1030403, 0.1023285], [0.0931037, 0.0898713]]),
    "SimpleRNN": dict(
        out0=[[-0.8700616, 0.6822618, -0.8559551, 0.9161136],
              [-0.9339193, 0.9508654, -0.9817923, 0.9907697],
              [-0.6058488, 0.9623481, -0.876006, 0.9745154]],
        h=[[[-0.6058488, 0.9623481], [-0.3783394, 0.637875]],
           [[-0.8559551, 0.9161136], [-0.9656883, 0.9831843]]],
        xgrad1=[[-0.0444935, 0.0750453], [-0.4452628, 0.6160674], [0.0, 0.0]],
        whh=[[-1.4792554, 1.4576955], [-0.7096642, 0.6829782]]),
}


@pytest.mark.parametrize("cls", sorted(PADDLE))
def test_bidirectional_padded_layer_matches_paddle_values_and_gradients(cls):
    """Padded steps give zero outputs and keep the state; the backward direction's final
    state is that of step 0; states stack as [forward, backward] (Paddle 3.3.1)."""
    want = PADDLE[cls]
    layer = getattr(paddle.nn, cls)(2, 2, direction="bidirect")
    _set_linspace(layer)
    x = TT(X, stop_gradient=False)
    out, st = layer(x, sequence_length=TT([3, 2]))
    h = st[0] if cls == "LSTM" else st
    np.testing.assert_allclose(out.numpy()[0], want["out0"], rtol=2e-5, atol=1e-6)
    assert out.numpy()[1, 2].tolist() == [0.0] * 4
    np.testing.assert_allclose(h.numpy(), want["h"], rtol=2e-5, atol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[1], want["xgrad1"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(layer.weight_hh_l0.grad.numpy(), want["whh"], rtol=1e-4,
                               atol=1e-6)


def test_parameter_names_and_shapes_are_paddles():
    """Top-level names first (weight_ih_l0, ..., _reverse), each the cell's own Parameter
    (measured on Paddle 3.3.1: named_parameters lists these 16 for this layer)."""
    m = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirect")
    names = [(n, list(p.shape)) for n, p in m.named_parameters()]
    assert names[:5] == [("weight_ih_l0", [12, 3]), ("weight_hh_l0", [12, 4]),
                         ("bias_ih_l0", [12]), ("bias_hh_l0", [12]),
                         ("weight_ih_l0_reverse", [12, 3])]
    assert names[8] == ("weight_ih_l1", [12, 8]) and len(names) == 16
    assert m.weight_ih_l1_reverse is m[1].cell_bw.weight_ih
    assert repr(m).splitlines()[:3] == ["GRU(3, 4, num_layers=2", "  (0): BiRNN(",
                                        "    (cell_fw): GRUCell(3, 4)"]


def test_weights_are_uniform_within_one_over_sqrt_hidden():
    """Paddle's initializer for every weight and bias: Uniform(-1/sqrt(H), 1/sqrt(H))."""
    paddle.seed(0)
    m = paddle.nn.LSTM(64, 100)
    for p in m.parameters():
        v = p.numpy()
        assert v.min() >= -0.1 and v.max() <= 0.1 and v.max() - v.min() > 0.19


def test_a_bias_attr_of_false_is_a_frozen_zero_bias_and_names_stay_right():
    """Paddle 3.3.1 segfaults on this layer, and binds the name bias_hh_l0 to the frozen
    bias_ih: here the bias_ih is a constant 0 and bias_hh_l0 the trainable bias_hh."""
    m = paddle.nn.SimpleRNN(2, 3, bias_ih_attr=False)
    names = [n for n, _ in m.named_parameters()]
    assert names[:3] == ["weight_ih_l0", "weight_hh_l0", "bias_hh_l0"]
    assert m.bias_hh_l0 is m[0].cell.bias_hh and not m.bias_hh_l0.stop_gradient
    assert m[0].cell.bias_ih.stop_gradient and m[0].cell.bias_ih.numpy().tolist() == [0] * 3
    m(paddle.randn([2, 4, 2]))[0].sum().backward()
    assert m[0].cell.bias_ih.grad is None and m.bias_hh_l0.grad is not None


def test_layers_are_differentiable_in_eval_mode():
    """Paddle 3.3.1's fused kernel has no backward in eval mode ("Tensor holds no
    memory"); here eval only switches the inter-layer dropout off."""
    m = paddle.nn.LSTM(2, 3, num_layers=2, dropout=0.5)
    m.eval()
    x = paddle.randn([2, 4, 2])
    a = m(x)[0]
    np.testing.assert_array_equal(a.numpy(), m(x)[0].numpy())
    a.sum().backward()
    assert m.weight_ih_l1.grad is not None


def test_dropout_acts_between_layers_only_in_training():
    m = paddle.nn.GRU(2, 3, num_layers=2, dropout=0.5)
    one = paddle.nn.GRU(2, 3, dropout=0.5)
    x = paddle.randn([2, 4, 2])
    assert not np.array_equal(m(x)[0].numpy(), m.eval()(x)[0].numpy())
    np.testing.assert_array_equal(one(x)[0].numpy(), one.eval()(x)[0].numpy())


def _lstm_by_hand(cell, x_tm, h, c, reverse=False):
    outs = [None] * x_tm.shape[0]
    for t in (range(x_tm.shape[0] - 1, -1, -1) if reverse else range(x_tm.shape[0])):
        outs[t], (h, c) = cell(x_tm[t], (h, c))
    return paddle.stack(outs), h, c


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_lstm_equals_its_cell_stepped_by_hand(reverse):
    """Values and every weight's gradient, float64 (one op vs ~15 per step)."""
    paddle.set_default_dtype("float64")
    try:
        cell = paddle.nn.LSTMCell(3, 4)
        rnn = paddle.nn.RNN(cell, is_reverse=reverse, time_major=True)
    finally:
        paddle.set_default_dtype("float32")
    rng = np.random.default_rng(0)
    x = TT(rng.standard_normal((5, 2, 3)))
    h0, c0 = TT(rng.standard_normal((2, 4))), TT(rng.standard_normal((2, 4)))
    out, (h, c) = rnn(x, (h0, c0))
    (out.sum() + (h * c).sum()).backward()
    fused = [p.grad.numpy().copy() for p in cell.parameters()]
    cell.clear_gradients()
    out2, h2, c2 = _lstm_by_hand(cell, x, h0, c0, reverse)
    (out2.sum() + (h2 * c2).sum()).backward()
    np.testing.assert_allclose(out.numpy(), out2.numpy(), rtol=1e-13, atol=1e-15)
    for a, p in zip(fused, cell.parameters()):
        np.testing.assert_allclose(a, p.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode, G", [("LSTM", 4), ("GRU", 3), ("RNN_TANH", 1)])
def test_padded_sequence_gradients_match_finite_differences_to_second_order(mode, G):
    """The whole path of a layer: input projection, the fused recurrence with a mask,
    masked outputs; every input and weight, orders 1 and 2, compiled/reference/eager."""
    rng = np.random.default_rng(1)
    T, B, I, H = 3, 2, 2, 2
    mask = np.array([[1, 1], [1, 0], [0, 0]], bool)

    def f(x, wih, bih, whh, bhh, h0, c0):
        gx = paddle.matmul(x, wih, transpose_y=True) + bih
        S = recurrence(mode, gx, whh, bhh, (h0, c0) if mode == "LSTM" else (h0,), True, mask)
        return S * paddle.to_tensor(mask[:, None, :, None] if mode == "LSTM" else
                                    mask[:, :, None], dtype="float64")

    arrays = [rng.uniform(-1, 1, s) for s in ((T, B, I), (G * H, I), (G * H,), (G * H, H),
                                               (G * H,), (B, H), (B, H))]
    check_grads(f, *arrays, order=2, rtol=1e-4, atol=1e-6)


def test_cell_gradients_match_finite_differences_to_second_order():
    paddle.set_default_dtype("float64")
    try:
        cells = [paddle.nn.LSTMCell(2, 3), paddle.nn.GRUCell(2, 3),
                 paddle.nn.SimpleRNNCell(2, 3)]
    finally:
        paddle.set_default_dtype("float32")
    rng = np.random.default_rng(2)
    x, h, c = rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))
    check_grads(lambda x, h, c: paddle.concat(cells[0](x, (h, c))[1], -1), x, h, c, order=2)
    check_grads(lambda x, h: cells[1](x, h)[0], x, h, order=2)
    check_grads(lambda x, h: cells[2](x, h)[0], x, h, order=2)


def test_training_steps_reuse_one_cached_program(fresh_cache):
    """A whole sequence's backward is one cached Program: every step after the first hits
    (and new batches of sequence lengths are bound per graph)."""
    m = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=m.parameters())
    rng = np.random.default_rng(3)
    for _ in range(4):
        x = TT(rng.standard_normal((2, 5, 3)).astype("float32"))
        out, (h, _) = m(x, sequence_length=TT(rng.integers(1, 6, 2)))
        (out.mean() + h.sum()).backward()
        opt.step()
        opt.clear_grad()
    info = paddle.cache_info()
    assert (info.misses, info.hits) == (1, 3)


def test_rnn_wrapper_with_lengths_keeps_the_cells_padded_outputs():
    """nn.RNN over a cell, with sequence_length (Paddle's dygraph `rnn`): the state stops
    at the last valid step, but the outputs at padded steps are the cell's, not zeros."""
    cell = paddle.nn.GRUCell(2, 3)
    x = paddle.randn([2, 4, 2])
    out, h = paddle.nn.RNN(cell)(x, sequence_length=TT([4, 2]))
    full, _ = paddle.nn.RNN(cell)(x[1:, :2])
    # (a batch of 2 against one of 1: BLAS may round differently)
    np.testing.assert_allclose(h.numpy()[1], full.numpy()[0, 1], rtol=1e-6, atol=1e-7)
    assert np.abs(out.numpy()[1, 2:]).min() > 0


def test_lstm_cell_with_projection_starts_from_zero_states():
    """Paddle 3.3.1's state_shape swaps h and c with proj_size (h is proj_size wide), so
    LSTMCell(proj_size=...) without states fails there; here h is [B, P], c is [B, H]."""
    cell = paddle.nn.LSTMCell(3, 4, proj_size=2)
    h, (_, c) = cell(paddle.randn([5, 3]))
    assert h.shape == [5, 2] and c.shape == [5, 4]
    out, (hn, cn) = paddle.nn.LSTM(3, 4, num_layers=2, proj_size=2)(paddle.randn([5, 6, 3]))
    assert out.shape == [5, 6, 2] and hn.shape == [2, 5, 2] and cn.shape == [2, 5, 4]


@pytest.mark.parametrize("make, call, error", [
    (lambda: paddle.nn.LSTM(3, 4, direction="both"), None, ValueError),
    (lambda: paddle.nn.GRU(3, 0), None, ValueError),
    (lambda: paddle.nn.SimpleRNN(3, 4, activation="gelu"), None, ValueError),
    (lambda: paddle.nn.LSTM(3, 4), lambda m: m(paddle.randn([2, 5, 2])), ValueError),
    (lambda: paddle.nn.LSTM(3, 4), lambda m: m(paddle.randn([2, 5, 3]).astype("float64")),
     TypeError),
    (lambda: paddle.nn.GRU(3, 4), lambda m: m(paddle.randn([2, 5, 3]), paddle.zeros([2, 2, 4])),
     ValueError),
    (lambda: paddle.nn.GRU(3, 4), lambda m: m(paddle.randn([2, 5, 3]), None, TT([5.0, 2.0])),
     ValueError),
    (lambda: paddle.nn.LSTM(3, 4), lambda m: m(paddle.randn([2, 5, 3]), (
        paddle.zeros([1, 2, 4], "float64"), paddle.zeros([1, 2, 4]))), ValueError),
    (lambda: paddle.nn.SimpleRNN(3, 4), lambda m: m(paddle.randn([2, 0, 3])), ValueError),
])
def test_bad_arguments_raise_errors_naming_them(make, call, error):
    with pytest.raises(error):
        m = make()
        call(m)
