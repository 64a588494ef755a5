"""Layer.to / astype / float / double and forward hooks, as measured on Paddle 3.3.1 (and,
where 3.3.1 contradicts its docs, as the docs say)."""

import numpy as np
import pytest

import jitgrad as paddle


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)
        self.register_buffer("ids", paddle.to_tensor([1, 2]))
        self.register_buffer("scale", paddle.to_tensor([1.0, 2.0]))

    def forward(self, x):
        return self.fc(x) * self.scale


def trained_net():
    net = Net()
    net(paddle.ones([1, 2])).sum().backward()
    return net


def test_to_dtype_casts_parameters_grads_and_every_buffer_in_place():
    """Measured: the same Parameter objects, their grads, and the int buffer too."""
    net = trained_net()
    weight = net.fc.weight
    assert net.to(dtype="float64") is net
    assert net.fc.weight is weight and weight.dtype == paddle.float64
    assert weight.grad.dtype == paddle.float64 and not weight.stop_gradient
    assert net.ids.dtype == paddle.float64 and net.scale.dtype == paddle.float64
    assert net(paddle.ones([1, 2], dtype="float64")).dtype == paddle.float64


def test_an_optimizer_keeps_training_after_a_cast():
    """Paddle 3.3.1's next step fails on its float32 accumulators; jitgrad's continue."""
    net = trained_net()
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    opt.step()
    net.to(dtype="float64")
    opt.clear_grad()
    net(paddle.ones([1, 2], dtype="float64")).sum().backward()
    before = net.fc.weight.numpy().copy()
    opt.step()
    assert net.fc.weight.dtype == paddle.float64
    assert np.all(np.isfinite(net.fc.weight.numpy())) and np.any(net.fc.weight.numpy() != before)


def test_to_accepts_cpu_and_refuses_other_devices():
    net = Net()
    assert net.to("cpu") is net and net.to(device=paddle.CPUPlace()) is net
    assert net.cpu() is net and net.fc.weight.dtype == paddle.float32
    with pytest.raises(ValueError, match="CPU only"):
        net.to("gpu:0")
    with pytest.raises(ValueError, match="device must be a str"):
        net.to(3)


def test_float_and_double_cast_only_floating_tensors():
    """The docs' rule; Paddle 3.3.1's double() also turns int buffers into float64."""
    net = Net().double()
    assert net.fc.weight.dtype == paddle.float64 and net.scale.dtype == paddle.float64
    assert net.ids.dtype == paddle.int64
    net.float()
    assert net.fc.bias.dtype == paddle.float32 and net.ids.dtype == paddle.int64
    net.half()
    assert net.fc.weight.dtype == paddle.float16


def test_float_can_leave_layer_types_out():
    net = Net().double()
    net.float(excluded_layers=[paddle.nn.Linear])
    assert net.fc.weight.dtype == paddle.float64 and net.scale.dtype == paddle.float32
    with pytest.raises(TypeError, match="excluded_layers"):
        net.float(excluded_layers="Linear")


def test_astype_casts_parameters_and_buffers():
    """The docs' rule; Paddle 3.3.1's astype leaves them unchanged."""
    net = Net().astype("float64")
    assert net.fc.weight.dtype == paddle.float64 and net.ids.dtype == paddle.float64
    with pytest.raises(ValueError, match="dtype must be one of"):
        net.astype("float128")


def test_trainable_parameters_cannot_become_integers():
    with pytest.raises(TypeError, match="integer tensors cannot require gradients"):
        Net().to(dtype="int32")
    lin = paddle.nn.Linear(2, 2)
    for p in lin.parameters():
        p.stop_gradient = True
    assert lin.to(dtype="int32").weight.dtype == paddle.int32


def test_a_cast_stales_graphs_recorded_before_it():
    net = Net()
    out = net(paddle.ones([1, 2])).sum()
    net.to(dtype="float64")
    with pytest.raises(RuntimeError):
        out.backward()


class Affine(paddle.nn.Layer):
    def forward(self, x, scale=1.0, *, shift=0.0):
        return x * scale + shift


X = paddle.to_tensor([1.0, 2.0])


def test_a_pre_hook_sees_positional_args_and_may_replace_them():
    """Measured: args arrive as a tuple; a non-tuple result becomes a 1-tuple."""
    layer, seen = Affine(), []
    h = layer.register_forward_pre_hook(lambda lay, args: seen.append(args))
    assert layer(X, 2.0, shift=1.0).numpy().tolist() == [3.0, 5.0]
    assert len(seen[0]) == 2 and seen[0][1] == 2.0
    h.remove()
    h = layer.register_forward_pre_hook(lambda lay, args: args[0] * 10)
    assert layer(X).numpy().tolist() == [10.0, 20.0]
    h.remove()
    h = layer.register_forward_pre_hook(lambda lay, args: (args[0] + 1,))
    assert layer(X).numpy().tolist() == [2.0, 3.0]


def test_a_post_hook_may_replace_the_output_and_sees_the_hooked_args():
    layer, seen = Affine(), []
    layer.register_forward_pre_hook(lambda lay, args: (args[0] * 0,))
    layer.register_forward_post_hook(lambda lay, args, out: seen.append(args[0]) or out + 7)
    assert layer(X).numpy().tolist() == [7.0, 7.0]
    assert seen[0].numpy().tolist() == [0.0, 0.0]


def test_hooks_with_kwargs_get_and_may_replace_them():
    layer, seen = Affine(), []
    layer.register_forward_pre_hook(lambda lay, a, kw: (a, {**kw, "shift": 100.0}),
                                    with_kwargs=True)
    layer.register_forward_post_hook(lambda lay, a, kw, out: seen.append(dict(kw)),
                                     with_kwargs=True)
    assert layer(X, 2.0, shift=1.0).numpy().tolist() == [102.0, 104.0]
    assert seen == [{"shift": 100.0}]


def test_a_kwargs_pre_hook_must_return_args_and_kwargs():
    layer = Affine()
    layer.register_forward_pre_hook(lambda lay, a, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"tuple of \(new_args, new_kwargs\), but got 5"):
        layer(X)


def test_prepend_runs_first_and_remove_is_idempotent():
    layer, order = Affine(), []
    layer.register_forward_pre_hook(lambda lay, a: order.append("a"))
    hb = layer.register_forward_pre_hook(lambda lay, a: order.append("b"), prepend=True)
    layer(X)
    assert order == ["b", "a"]
    assert hb.remove() is None and hb.remove() is None
    layer(X)
    assert order == ["b", "a", "a"]


def test_always_call_post_hooks_run_when_forward_raises():
    class Broken(paddle.nn.Layer):
        def forward(self, x):
            raise RuntimeError("forward fails")
    layer, calls = Broken(), []
    layer.register_forward_post_hook(lambda lay, a, out: calls.append(out), always_call=True)
    layer.register_forward_post_hook(lambda lay, a, out: calls.append("plain"))
    with pytest.raises(RuntimeError, match="forward fails"):
        layer(X)
    assert calls == [None]


def test_hooks_on_a_sublayer_run_inside_a_container_and_gradients_flow():
    seq = paddle.nn.Sequential(paddle.nn.Linear(2, 2))
    seq[0].register_forward_post_hook(lambda lay, a, out: out * 3)
    x = paddle.to_tensor([[1.0, 2.0]], stop_gradient=False)
    seq(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * seq[0].weight.numpy().sum(1)[None],
                               rtol=1e-6)
    assert paddle.nn.Layer.register_forward_hook is paddle.nn.Layer.register_forward_post_hook


def test_a_hook_must_be_callable():
    with pytest.raises(TypeError, match="hook must be callable"):
        Affine().register_forward_pre_hook(3)
