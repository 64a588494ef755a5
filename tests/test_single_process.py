"""Paddle's multi-device names in their one-process CPU form (measured on Paddle 3.3.1)."""

import pytest

import jitgrad as paddle


def test_data_parallel_wraps_the_model_and_keeps_its_state_dict_keys():
    inner = paddle.nn.Linear(2, 2)
    m = paddle.DataParallel(inner)
    assert list(m.state_dict()) == ["weight", "bias"]
    assert [n for n, _ in m.named_parameters()] == ["_layers.weight", "_layers.bias"]
    assert m._layers is inner and m(paddle.ones([1, 2])).shape == [1, 2]
    with m.no_sync():
        m(paddle.ones([1, 2])).sum().backward()
    assert inner.weight.grad is not None
    state = {k: v * 0 for k, v in m.state_dict().items()}
    m.set_state_dict(state)
    assert inner.weight.numpy().sum() == 0
    with pytest.raises(TypeError):
        paddle.DataParallel(lambda x: x)


def test_legacy_batch_reader():
    def reader():
        yield from range(7)
    assert list(paddle.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(paddle.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError):
        paddle.batch(reader, 0)


def test_gpu_only_calls_are_harmless_on_the_cpu():
    assert paddle.get_cuda_rng_state() == []
    paddle.set_cuda_rng_state([])
    paddle.disable_signal_handler()
    with paddle.LazyGuard():
        lin = paddle.nn.Linear(2, 3)
    assert lin.weight.shape == [2, 3]


def test_functional_ops_paddle_exports_at_the_top_level():
    F = paddle.nn.functional
    assert paddle.conv2d is F.conv2d and paddle.layer_norm is F.layer_norm
    assert paddle.adaptive_avg_pool1d is F.adaptive_avg_pool1d


def test_seed_returns_the_generator_and_its_state_round_trips():
    g = paddle.seed(3)
    assert isinstance(g, paddle.Generator) and g.initial_seed() == 3
    state = g.get_state()
    a = paddle.rand([3]).numpy()
    g.set_state(state)
    assert (paddle.rand([3]).numpy() == a).all()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    paddle.seed(5)
    b = paddle.rand([2]).numpy()
    g.manual_seed(5)
    assert (paddle.rand([2]).numpy() == b).all()
