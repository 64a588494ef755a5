"""Large saved values are read where the forward left them (external.py), not copied into
the arena: the gradients are bitwise those of the copied layout, on both interpreters."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor, external
from jitgrad import vm
from jitgrad.compile.lower import lower
from jitgrad.vm.program import EXT
from jitgrad.core import config

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
    # a reduction's saved weights (EXPAND_MUL's b; GATHER_MUL's when the axes are no grid)
    "max_along_an_axis": lambda x, w: paddle.sum(paddle.max(x * w, axis=1) * 2.0),
    "logsumexp": lambda x, w: paddle.sum(paddle.logsumexp(x * w, axis=0)),
    "max_over_two_axis_blocks": lambda x, w: paddle.sum(paddle.amax(
        paddle.reshape(x * w, [2, 3, 2, 4]), axis=[1, 3])),
}


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (6, 8)).astype(np.float32) for _ in range(2)]


def grads(graph, data, program_out=None):
    xs = [TT(a, stop_gradient=False) for a in data]
    loss = GRAPHS[graph](*xs)
    if program_out is not None:
        program_out.append(lower([loss])[0])
    loss.backward()
    return [x.grad.numpy() for x in xs]


@pytest.fixture
def every_value_in_place(monkeypatch, fresh_cache):
    """Values of any size are read in place (the threshold keeps small ones copied)."""
    monkeypatch.setattr(external, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(config.SETTINGS, "copy_values", False)


@pytest.mark.parametrize("which", ["numba", "reference"])
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_values_read_in_place_give_the_copied_layouts_gradients(graph, which, monkeypatch,
                                                                 every_value_in_place):
    if which == "numba":
        vm.warmup(quiet=True)             # the compiled interpreter, not the tiered start
    data = arrays()
    progs: list = []
    with vm.using(which):
        in_place = grads(graph, data, progs)
        monkeypatch.setattr(config.SETTINGS, "copy_values", True)
        paddle.cache_clear()              # (the layout is not part of the key)
        copied = grads(graph, data)
    for a, b in zip(in_place, copied):
        np.testing.assert_array_equal(a, b)
    assert progs[0].externals, "no value was read in place"
    assert (progs[0].code[:, 2:5] >= EXT).any() or chain_step_operands(progs[0]).max() >= EXT


def chain_step_operands(prog):
    """The operands (fields b, c) of every CHAIN step, as the itab holds them."""
    from jitgrad.vm.opcodes import OP, STEP_OPERANDS
    found = []
    for p in prog.code[(prog.code[:, 0] >> 1) == OP["CHAIN"], 6].tolist():
        for st in range(int(prog.itab[p])):
            q = p + 2 + 4 * st
            found += prog.itab[q + 1:q + 1 + STEP_OPERANDS[int(prog.itab[q])]].tolist()
    return np.array(found, np.int64)


def test_a_value_a_fused_chains_step_reads_is_read_in_place(every_value_in_place):
    x, w = (TT(a, stop_gradient=False) for a in arrays())
    prog, _ = lower([paddle.sum(paddle.exp(paddle.tanh(x) * w))])
    assert "CHAIN" in prog.text()
    assert prog.externals
    assert (chain_step_operands(prog) >= EXT).any()


def test_a_chain_split_between_threads_reads_its_values_in_place_bitwise(
        monkeypatch, every_value_in_place, split_counter):
    """A CHAIN row of 5000 elements shared by three threads, its step operands external:
    the gradients of one thread, and of the copied layout, bit for bit."""
    from jitgrad.vm import threads
    vm.warmup(quiet=True)
    rng = np.random.default_rng(3)
    data = [rng.uniform(-1, 1, 5000).astype(np.float32) for _ in range(2)]

    def run():
        xs = [TT(a, stop_gradient=False) for a in data]
        loss = GRAPHS["fused_chain_sharing_a_value"](*xs)
        prog = executor.program_for([loss])
        loss.backward()
        return prog, [x.grad.numpy() for x in xs]

    with vm.using("numba"):
        prog, split = run()
        assert split_counter["n"] >= 1 and (chain_step_operands(prog) >= EXT).any()
        threads.set_num_threads(1)
        _, one = run()
        monkeypatch.setattr(config.SETTINGS, "copy_values", True)
        paddle.cache_clear()
        _, copied = run()
    for a, b, c in zip(split, one, copied):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_cache_hits_rebind_values_read_in_place(fresh_cache, monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "copy_values", False)
    rng = np.random.default_rng(1)
    w = TT(rng.standard_normal((128, 128)).astype(np.float32), stop_gradient=False)

    def loss_of(xd):
        return paddle.sum(F.relu(paddle.matmul(TT(xd), w)))

    for step in range(3):
        xd = rng.standard_normal((128, 128)).astype(np.float32)
        w.clear_grad()
        loss_of(xd).backward()
        mask = (xd @ w.numpy() > 0).astype(np.float32)
        np.testing.assert_allclose(w.grad.numpy(), xd.T @ mask, rtol=1e-5, atol=1e-4)
    info = paddle.cache_info()
    assert (info.hits, info.misses, info.programs) == (2, 1, 1)
    prog = executor.program_for([loss_of(xd)])   # the cached Program (one more hit)
    assert paddle.cache_info().hits == 3
    assert prog.externals                     # x (16384 elements) is read in place


def test_a_value_of_another_dtype_is_read_from_a_private_copy(every_value_in_place):
    rng = np.random.default_rng(2)
    for step in range(3):                     # a lowering, then two cache hits
        xd = rng.integers(-3, 4, (6, 8)).astype(np.float32)    # sums of these are exact
        v = TT(np.ones((8, 4), np.float32), stop_gradient=False)
        s = TT(np.ones(3), stop_gradient=False)                # float64: a float64 arena
        loss = paddle.sum(paddle.matmul(TT(xd), v)) + paddle.sum(s * s)
        if step < 2:
            loss.backward()
        else:                                 # the last one bound by hand, to look inside
            b = executor.bind([loss])
            b.run(None)
        np.testing.assert_array_equal(v.grad.numpy(), xd.T @ np.ones((6, 4), np.float32))
    info = paddle.cache_info()
    assert (info.hits, info.misses) == (2, 1)
    assert b.program.dtype == np.float64
    (own,) = b.ws.private.values()            # the float32 x, converted into the arena's
    assert own.dtype == np.float64
    np.testing.assert_array_equal(own, xd)
    executor.release(b)


def test_program_text_names_values_read_in_place(every_value_in_place):
    x, w = (TT(a, stop_gradient=False) for a in arrays())
    assert "ext@" in lower([GRAPHS["matmul_relu_mean"](x, w)])[0].text()
