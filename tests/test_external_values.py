"""Large saved values are read where the forward left them (external.py), not copied into
the arena: the gradients are bitwise those of the copied layout, on both interpreters."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import external, structural, vm
from jitgrad.lower import lower
from jitgrad.program import EXT

TT = paddle.to_tensor
F = paddle.nn.functional

GRAPHS = {
    "tanh_sigmoid_relu": lambda x, w: paddle.sum(paddle.tanh(x) * F.sigmoid(w) +
                                                 F.relu(x * w)),
    "divide": lambda x, w: paddle.sum(paddle.divide(x, w * w + 1.0)),
    "matmul_relu_mean": lambda x, w: paddle.mean(F.relu(paddle.matmul(x, w.T))),
    "batched_matmul": lambda x, w: paddle.sum(paddle.tanh(paddle.matmul(
        paddle.reshape(x, [2, 3, 8]), paddle.reshape(w, [2, 8, 3])))),
    "softmax": lambda x, w: paddle.sum(F.softmax(x, axis=1) * w),
    "log_softmax": lambda x, w: paddle.sum(F.log_softmax(x * w, axis=1) * w),
    "fused_chain_sharing_a_value": lambda x, w: paddle.sum(
        paddle.exp(paddle.tanh(x) * w) * paddle.tanh(x)),
}


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (6, 8)).astype(np.float32) for _ in range(2)]


def grads(graph, data, program_out=None):
    xs = [TT(a, stop_gradient=False) for a in data]
    loss = GRAPHS[graph](*xs)
    if program_out is not None:
        program_out.append(lower([loss]))
    loss.backward()
    return [x.grad.numpy() for x in xs]


@pytest.fixture
def every_value_in_place(monkeypatch, fresh_structural_cache):
    """Values of any size are read in place (the threshold keeps small ones copied)."""
    monkeypatch.setattr(external, "MIN_ELEMENTS", 1)
    monkeypatch.delenv("JITGRAD_COPY_VALUES", raising=False)


@pytest.mark.parametrize("which", ["numba", "reference"])
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_values_read_in_place_give_the_copied_layouts_gradients(graph, which, monkeypatch,
                                                                 every_value_in_place):
    data = arrays()
    progs: list = []
    with vm.using(which):
        in_place = grads(graph, data, progs)
        monkeypatch.setenv("JITGRAD_COPY_VALUES", "1")
        structural.clear()
        copied = grads(graph, data)
    for a, b in zip(in_place, copied):
        np.testing.assert_array_equal(a, b)
    if graph != "fused_chain_sharing_a_value":        # every value there feeds the CHAIN
        assert progs[0].ext_pos, "no value was read in place"
        assert (progs[0].code[:, 2:5] >= EXT).any()


def test_a_value_only_a_fused_chain_reads_stays_in_the_arena(every_value_in_place):
    x, w = (TT(a, stop_gradient=False) for a in arrays())
    prog = lower([paddle.sum(paddle.exp(paddle.tanh(x) * w))])
    assert "CHAIN" in prog.text()
    assert not prog.ext_pos


def test_structural_hits_rebind_values_read_in_place(fresh_structural_cache, monkeypatch):
    monkeypatch.delenv("JITGRAD_COPY_VALUES", raising=False)
    rng = np.random.default_rng(1)
    w = TT(rng.standard_normal((128, 128)).astype(np.float32), stop_gradient=False)
    for step in range(3):
        xd = rng.standard_normal((128, 128)).astype(np.float32)
        w.clear_grad()
        paddle.sum(F.relu(paddle.matmul(TT(xd), w))).backward()
        mask = (xd @ w.numpy() > 0).astype(np.float32)
        np.testing.assert_allclose(w.grad.numpy(), xd.T @ mask, rtol=1e-5, atol=1e-4)
    assert structural.stats["hits"] == 2
    (entry,) = structural._cache.values()
    assert entry.prog.ext_pos                 # x (16384 elements) is read in place


def test_a_value_of_another_dtype_is_read_from_a_private_copy(every_value_in_place):
    rng = np.random.default_rng(2)
    for step in range(3):                     # a lowering, then two structural hits
        xd = rng.integers(-3, 4, (6, 8)).astype(np.float32)    # sums of these are exact
        v = TT(np.ones((8, 4), np.float32), stop_gradient=False)
        s = TT(np.ones(3), stop_gradient=False)                # float64: a float64 arena
        (paddle.sum(paddle.matmul(TT(xd), v)) + paddle.sum(s * s)).backward()
        np.testing.assert_array_equal(v.grad.numpy(), xd.T @ np.ones((6, 4), np.float32))
    assert structural.stats["hits"] == 2
    (entry,) = structural._cache.values()
    assert entry.prog.arena.dtype == np.float64
    (own,) = entry.prog.ext_private.values()  # the float32 x, converted into the Program's
    np.testing.assert_array_equal(own, xd)


def test_program_text_names_values_read_in_place(every_value_in_place):
    x, w = (TT(a, stop_gradient=False) for a in arrays())
    assert "ext@" in lower([GRAPHS["matmul_relu_mean"](x, w)]).text()
