"""paddle.nn.utils and paddle.nn.initializer, as Paddle 3.3.1 (values measured there)."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

Init = paddle.nn.initializer
U = paddle.nn.utils
TT = paddle.to_tensor


def param(shape, init):
    return paddle.create_parameter(shape, "float32", default_initializer=init)


# ---- initializers ---------------------------------------------------------------------------

def test_calling_an_initializer_on_a_parameter_fills_it_in_place():
    w = param([3, 4], Init.Constant(0.0))
    assert Init.Constant(2.0)(w) is None and w.tolist() == [[2.0] * 4] * 3


def test_assign_dirac_and_calculate_gain():
    assert param([2, 3], Init.Assign(np.arange(6).reshape(2, 3))).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="shape"):
        param([2, 3], Init.Assign(np.arange(5)))
    d = param([4, 2, 3, 3], Init.Dirac(2)).numpy()
    ones = [[0, 0, 1, 1], [1, 1, 1, 1], [2, 0, 1, 1], [3, 1, 1, 1]]          # Paddle 3.3.1
    assert np.argwhere(d).tolist() == ones
    names = ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu")
    gains = [Init.calculate_gain(n) for n in names]
    assert gains == [1, 1, 1, 5 / 3, math.sqrt(2), 0.75]                    # Paddle 3.3.1
    assert Init.calculate_gain("leaky_relu", 0.2) == pytest.approx(1.3867504905630728)


def test_orthogonal_and_truncated_normal():
    paddle.seed(0)
    w = param([4, 3], Init.Orthogonal(2.0)).numpy()
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(3), atol=1e-5)
    wide = param([3, 6], Init.Orthogonal()).numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-5)
    t = param([400, 300], Init.TruncatedNormal(0.0, 1.0, -1.0, 1.5)).numpy()
    assert t.min() >= -1.0 and t.max() <= 1.5 and abs(t.mean() - 0.15) < 0.02


def test_xavier_and_kaiming_take_paddles_arguments():
    paddle.seed(1)
    xu = param([100, 200], Init.XavierUniform(fan_in=10, fan_out=20, gain=2.0)).numpy()
    assert abs(xu).max() <= 2 * math.sqrt(6 / 30) and abs(xu).max() > 0.99 * 2 * math.sqrt(6 / 30)
    kn = param([200, 300], Init.KaimingNormal(fan_in=10, nonlinearity="tanh")).numpy()
    assert abs(kn.std() - 5 / 3 / math.sqrt(10)) < 0.01
    ko = param([200, 300], Init.KaimingUniform(mode="fan_out")).numpy()
    assert abs(ko).max() <= math.sqrt(6 / 300)


def test_set_global_initializer_yields_to_param_attr():
    Init.set_global_initializer(Init.Constant(0.5), Init.Constant(0.25))
    try:
        lin = paddle.nn.Linear(2, 3)
        assert lin.weight.tolist() == [[0.5] * 3] * 2 and lin.bias.tolist() == [0.25] * 3
        own = paddle.nn.Linear(2, 3, weight_attr=paddle.ParamAttr(initializer=Init.Constant(1.0)))
        assert own.weight.tolist() == [[1.0] * 3] * 2
    finally:
        Init.set_global_initializer(None)
    assert paddle.nn.Linear(2, 3).bias.tolist() == [0.0] * 3


# ---- nn.utils ---------------------------------------------------------------------------------

def _two_params():
    ps = [TT([1.0, 2.0], stop_gradient=False), TT([[3.0, 4.0]], stop_gradient=False)]
    (ps[0].sum() * 3 + ps[1].sum() * 4).backward()
    return ps


def test_clip_grad_norm_scales_in_place_and_returns_the_norm():
    ps = _two_params()
    total = U.clip_grad_norm_(ps, 1.0)
    assert total.item() == pytest.approx(math.sqrt(50), rel=1e-6)               # Paddle 3.3.1
    np.testing.assert_allclose(ps[0].grad.numpy(), [0.42426404] * 2, rtol=1e-6)
    np.testing.assert_allclose(ps[1].grad.numpy(), [[0.5656854] * 2], rtol=1e-6)
    ps = _two_params()
    assert U.clip_grad_norm_(ps, 100.0).item() == pytest.approx(math.sqrt(50), rel=1e-6)
    assert ps[0].grad.tolist() == [3.0, 3.0]                # under max_norm: unchanged
    ps = _two_params()
    with paddle.no_grad():
        ps[0].grad.fill_(float("inf"))
    with pytest.raises(RuntimeError, match="non-finite"):
        U.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_vectors():
    ps = _two_params()
    U.clip_grad_value_(ps, 3.5)
    assert ps[0].grad.tolist() == [3.0, 3.0] and ps[1].grad.tolist() == [[3.5, 3.5]]
    v = U.parameters_to_vector(ps)
    assert v.tolist() == [1.0, 2.0, 3.0, 4.0] and not v.stop_gradient
    U.vector_to_parameters(TT([9.0, 8.0, 7.0, 6.0]), ps)
    assert ps[0].tolist() == [9.0, 8.0] and ps[1].tolist() == [[7.0, 6.0]]
    with pytest.raises(ValueError, match="4 elements"):
        U.vector_to_parameters(TT([1.0]), ps)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_reparameterises_and_is_differentiated(dim):
    lin = paddle.nn.Linear(3, 4)
    w0 = lin.weight.numpy().copy()
    U.weight_norm(lin, dim=dim)
    names = [n for n, _ in lin.named_parameters()]
    assert names == ["bias", "weight_v", "weight_g"]                        # Paddle's order
    np.testing.assert_allclose(lin.weight.numpy(), w0, rtol=1e-6)
    want_g = np.linalg.norm(w0) if dim is None else np.linalg.norm(w0, axis=1 - dim)
    np.testing.assert_allclose(lin.weight_g.numpy(), want_g, rtol=1e-6)
    x = np.random.default_rng(0).standard_normal((2, 3))
    g = lin.weight_g.numpy().astype(np.float64)
    v = lin.weight_v.numpy().astype(np.float64)

    def f(gg, vv):
        norm = paddle.linalg.norm(vv) if dim is None else \
            paddle.linalg.norm(vv, axis=1 - dim, keepdim=True)
        gs = gg if dim is None else gg.reshape([3, 1] if dim == 0 else [1, 4])
        return paddle.matmul(TT(x), vv * (gs / norm))
    check_grads(f, g, v)
    lin(TT(x.astype("float32"))).sum().backward()
    assert lin.weight_g.grad is not None and lin.weight_v.grad.shape == [3, 4]
    U.remove_weight_norm(lin)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(lin.weight.numpy(), w0, rtol=1e-6)
    with pytest.raises(ValueError, match="not found"):
        U.remove_weight_norm(lin)


def test_spectral_norm_divides_by_the_largest_singular_value():
    paddle.seed(0)
    lin = paddle.nn.Linear(3, 4)
    w0 = lin.weight.numpy().copy()
    U.spectral_norm(lin, n_power_iterations=30)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_orig"]    # Paddle's
    assert [n for n, _ in lin.named_buffers()] == ["weight", "weight_u", "weight_v"]
    assert lin.weight_u.shape == [4] and lin.weight_v.shape == [3]      # dim 1 for Linear
    x = TT(np.ones((2, 3), "float32"))
    lin(x)
    sigma = np.linalg.svd(w0, compute_uv=False)[0]
    np.testing.assert_allclose(lin.weight.numpy(), w0 / sigma, rtol=1e-4)
    lin(x).sum().backward()
    assert lin.weight_orig.grad is not None and lin.weight_u.grad is None
    lin.eval()
    u = lin.weight_u.numpy().copy()
    lin(x)
    assert lin.weight_u.numpy().tolist() == u.tolist()         # no power iteration in eval
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm"):
        U.spectral_norm(lin)                    # (Paddle 3.3.1's error and message)


def test_an_initializer_or_a_name_given_as_the_attr_itself():
    # Paddle's ParamAttr._to_attr: weight_attr=Constant(1.0) means
    # ParamAttr(initializer=Constant(1.0)); a str names the parameter (Paddle 3.3.1, measured)
    C = paddle.nn.initializer.Constant
    lin = paddle.nn.Linear(2, 3, weight_attr=C(1.0), bias_attr=C(0.5))
    np.testing.assert_array_equal(lin.weight.numpy(), np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(lin.bias.numpy(), np.full(3, 0.5, "float32"))
    conv = paddle.nn.Conv2D(1, 2, 2, weight_attr=C(2.0), bias_attr=C(-1.0))
    assert (conv.weight.numpy() == 2.0).all() and (conv.bias.numpy() == -1.0).all()
    assert (paddle.nn.Embedding(3, 2, weight_attr=C(3.0)).weight.numpy() == 3.0).all()
    assert paddle.create_parameter([2], "float32", attr=C(4.0)).tolist() == [4.0, 4.0]
    assert paddle.nn.Linear(2, 2, weight_attr="my_w").weight.name == "my_w"
    assert paddle.nn.Linear(2, 2, bias_attr=False).bias is None


def test_parameter_and_tensor_flags_paddle_code_reads():
    lin = paddle.nn.Linear(2, 2)
    w = lin.weight
    assert w.persistable is True and w.is_distributed is False and w.do_model_average is True
    p = paddle.create_parameter([2], "float32",
                                attr=paddle.ParamAttr(do_model_average=False))
    assert p.do_model_average is False
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.persistable is False
    (x * x).sum().backward()
    assert x._grad_ivar().tolist() == [2.0, 4.0]
    assert x._inplace_version() == 0

