"""The replay path: no Python per node, exact results, Paddle's accumulation rules.

Peephole fusion (peephole.py), the tiered start and thread splits of the VM (vm/), CHAIN
kernels, leaf gradients owned through their writer rows, and the entry-point replays of a
retained graph's Binding (binding.py, executor.replay_retained).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor, graph, lower as lower_mod, peephole
from jitgrad import vm
from jitgrad.ops.registry import REGISTRY
from jitgrad.vm.program import EXT, OP
from jitgrad.core import config

TT = paddle.to_tensor


def _chain(n_ops, size=8, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    x = TT(rng.uniform(-1, 1, size), dtype=dtype, stop_gradient=False)
    h = x
    for i in range(n_ops):
        c = TT(rng.uniform(0.5, 1.5, size), dtype=dtype)
        kind = i % 5
        h = (paddle.sin(h) if kind == 0 else h * c if kind == 1 else h + c if kind == 2
             else paddle.tanh(h) if kind == 3 else paddle.exp(h))
    return x, paddle.sum(h)


def _retained_binding(loss):
    """The Binding a graph retained for `loss.backward(retain_graph=True)` keeps."""
    return loss._node.programs[id(loss)][0]


def _count_python_op_calls(monkeypatch):
    """Wrap every registry op's forward/save/vjp/lower, the lowering entry point, the
    Builder's emit and the graph walk."""
    calls = {"n": 0}

    def counted(fn):
        def wrapper(*a, **k):
            calls["n"] += 1
            return fn(*a, **k)
        return wrapper

    for op in REGISTRY.values():
        for attr in ("forward", "save", "vjp", "lower"):
            if getattr(op, attr) is not None:
                monkeypatch.setattr(op, attr, counted(getattr(op, attr)))
    monkeypatch.setattr(lower_mod, "lower", counted(lower_mod.lower))
    monkeypatch.setattr(executor, "lower", counted(executor.lower))
    monkeypatch.setattr(lower_mod.Builder, "emit", counted(lower_mod.Builder.emit))
    monkeypatch.setattr(graph, "_walk", counted(graph._walk))
    return calls


def test_replay_of_a_1000_op_graph_runs_no_python_op_code(monkeypatch):
    vm.warmup(quiet=True)
    x, loss = _chain(1000)
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    loss.backward(retain_graph=True)           # the first replay folds its chains (fold.py)
    calls = _count_python_op_calls(monkeypatch)
    runs = {"n": 0}
    b = _retained_binding(loss)
    real_execute, real_call = vm.execute, b.ws.call

    def counted_execute(*a, **k):
        runs["n"] += 1
        return real_execute(*a, **k)

    def counted_call():
        runs["n"] += 1
        return real_call()

    monkeypatch.setattr(vm, "execute", counted_execute)
    if real_call is not None:              # (None under JITGRAD_VM=reference)
        b.ws.call = counted_call
    loss.backward(retain_graph=True)
    paddle.autograd.backward([loss], retain_graph=True)
    assert calls["n"] == 0
    assert runs["n"] == 2                      # one interpreter call per replay
    np.testing.assert_allclose(x.grad.numpy(), 4 * first, rtol=1e-5)


def _grads(n_ops, vm_name, peephole, monkeypatch, dtype="float32", size=8):
    monkeypatch.setattr(config.SETTINGS, "peephole", peephole)
    monkeypatch.setattr(config.SETTINGS, "program_cache", False)     # lower this very graph
    monkeypatch.setattr(config.SETTINGS, "exact_replay", True)       # (fold.py: other bits)
    x, loss = _chain(n_ops, size=size, dtype=dtype)
    _backward_twice(loss, vm_name)
    return x.grad.numpy()


def _backward_twice(loss, vm_name):
    """A first backward (lowering) and a retained replay, on the given interpreter
    ("numba": the compiled one itself, not the tiered start)."""
    if vm_name == "numba":
        vm.warmup(quiet=True)
    with vm.using(vm_name):
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_program_is_bitwise_equal_to_unfused_in_the_reference(monkeypatch, dtype):
    plain = _grads(60, "reference", False, monkeypatch, dtype)
    fused = _grads(60, "reference", True, monkeypatch, dtype)
    np.testing.assert_array_equal(fused, plain)


@pytest.mark.parametrize("size", [8, 5000])        # 5000: many CHAIN tiles and a partial one
def test_compiled_fused_program_is_bitwise_equal_to_compiled_unfused(monkeypatch, size):
    assert size < peephole.TILE or size % peephole.TILE
    plain = _grads(60, "numba", False, monkeypatch, size=size)
    fused = _grads(60, "numba", True, monkeypatch, size=size)
    np.testing.assert_array_equal(fused, plain)


@pytest.mark.parametrize("size", [8, 5000])        # 5000 > one CHAIN tile
def test_compiled_fused_program_matches_reference(monkeypatch, size):
    ref = _grads(60, "reference", True, monkeypatch, size=size)
    jit = _grads(60, "numba", True, monkeypatch, size=size)
    np.testing.assert_allclose(jit, ref, rtol=2e-6, atol=1e-30)


def test_chain_is_fused_and_identities_dropped(monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "peephole", True)
    x, loss = _chain(50)
    prog, _ = lower_mod.lower([loss])
    ops = [int(r[0]) >> 1 for r in prog.code]
    assert ops == [OP["CHAIN"]]
    monkeypatch.setattr(config.SETTINGS, "peephole", False)
    assert len(lower_mod.lower([loss])[0]) == 51


def test_leaf_grad_accumulates_in_place_and_follows_paddle(monkeypatch):
    x, loss = _chain(20)
    loss.backward(retain_graph=True)
    g1 = x.grad.numpy().copy()
    held = x.grad                               # shares memory with x's gradient
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(held.numpy(), 2 * g1, rtol=1e-6)
    x.clear_grad()
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), g1, rtol=1e-6)
    x.grad = None
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), g1, rtol=1e-6)
    x.grad = TT(np.ones(8, np.float32))         # a gradient set by the user
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 1 + g1, rtol=1e-6)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 + 2 * g1, rtol=1e-6)


def test_a_leaf_grad_is_never_a_view_of_an_arena(monkeypatch, fresh_cache):
    """(Before, a retained graph's leaf .grad was a view of its Program's arena until the
    graph was freed.) Now the owned row writes through an address into the leaf's own
    array, retained or not, and a Workspace reused by the next graph of the structure
    cannot change a gradient someone kept."""
    monkeypatch.setattr(config.SETTINGS, "peephole", True)
    x, loss = _chain(20)
    loss.backward(retain_graph=True)
    b = _retained_binding(loss)
    assert b.program.leaf_rows                  # x's slot is owned
    g = x._grad
    assert g.flags.owndata and not np.shares_memory(g, b.ws.arena)
    first = g.copy()
    loss.backward()                             # frees the graph, its Workspace to the cache
    assert x._grad is g
    np.testing.assert_allclose(g, 2 * first, rtol=1e-6)
    x2, loss2 = _chain(20, seed=1)              # same structure: a hit, on that Workspace
    loss2.backward()
    assert paddle.cache_info().hits == 1
    assert x2._grad.flags.owndata and not np.shares_memory(x2._grad, g)
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-6)


def test_a_leaf_shared_by_two_retained_graphs_gets_both_gradients():
    x = TT([0.5, -0.25, 1.0], stop_gradient=False)
    l1 = paddle.sum(paddle.tanh(x) * 2.0)
    l2 = paddle.sum(paddle.exp(x))
    l1.backward(retain_graph=True)
    l2.backward(retain_graph=True)
    l1.backward(retain_graph=True)
    xs = x.numpy()
    want = 2 * 2 * (1 - np.tanh(xs) ** 2) + np.exp(xs)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5)


def test_leaf_slot_is_owned_only_without_hooks(monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "peephole", True)
    x, loss = _chain(10)
    prog, _ = lower_mod.lower([loss])
    (j, pos), = prog.leaf_rows
    assert prog.outputs[j][0] == "leaf"
    writers = [r for r in prog.code if int(r[1]) == EXT + (pos << 32)]
    assert len(writers) == 1 and int(writers[0][0]) & 1    # one row, accumulating
    x.register_hook(lambda g: g * 2.0)
    hooked, _ = lower_mod.lower([loss])
    assert hooked.callbacks and hooked.leaf_rows == ()
    assert not (hooked.code[:, 1] >= EXT).any()


def _hooked_chain_grads(monkeypatch, peephole, vm_name="numba"):
    monkeypatch.setattr(config.SETTINGS, "peephole", peephole)
    if vm_name == "numba":
        vm.warmup(quiet=True)
    rng = np.random.default_rng(5)
    x = TT(rng.uniform(-1, 1, 6), dtype="float32", stop_gradient=False)
    h, seen = x, []
    for i in range(30):
        h = paddle.tanh(h) * TT(rng.uniform(0.5, 1.5, 6), dtype="float32")
        if i == 14:
            h.register_hook(lambda g: (seen.append(g.numpy().copy()), g * 2.0)[1])
    with vm.using(vm_name):
        paddle.sum(paddle.exp(h)).backward()
    return x.grad.numpy(), seen[0]


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_a_hook_inside_a_fused_chain_sees_the_same_gradient(monkeypatch, vm_name):
    plain = _hooked_chain_grads(monkeypatch, False, vm_name)
    fused = _hooked_chain_grads(monkeypatch, True, vm_name)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def test_pinned_slots_are_not_fused_away(monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "peephole", False)
    x, loss = _chain(10)
    plain, _ = lower_mod.lower([loss])
    mid, n = int(plain.code[3, 1]), int(plain.code[3, 5])   # some intermediate gradient slot
    monkeypatch.setattr(config.SETTINGS, "peephole", True)
    real, moved = peephole.optimize, []

    def pinning(draft, backward=True):          # the Draft as lower() hands it over
        draft.pinned = frozenset({(mid, n)})
        real(draft, backward)
        remap = draft.offset_map if draft.offset_map is not None else (lambda off: off)
        moved.append(remap(mid))                # compaction moves slots
        return draft

    monkeypatch.setattr(peephole, "optimize", pinning)
    prog, _ = lower_mod.lower([loss])
    assert moved and moved[0] in {int(r[1]) for r in prog.code}
    assert len(prog) > 1                        # (unpinned, the whole chain is one row)


TIER_SCRIPT = """
import time
import numpy as np, jitgrad as paddle
from jitgrad import vm
from jitgrad.vm import reference
interpreted = []
real = reference.run
reference.run = lambda *a: (interpreted.append(1), real(*a))[1]
x = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
loss = paddle.sum(paddle.tanh(x) * paddle.exp(x))
loss.backward(retain_graph=True)
print(len(interpreted))
first = x.grad.numpy().copy()
deadline = time.monotonic() + 240
while not vm.compiled_ready("float32") and time.monotonic() < deadline:
    x.clear_grad()                            # (it loads in the background meanwhile)
    loss.backward(retain_graph=True)          # interpreted
    time.sleep(0.01)
before = len(interpreted)
loss.backward(retain_graph=True)              # compiled, adding to an interpreted run's grad
b = loss._node.programs[id(loss)][0]
want = 2 * first.astype(np.float64)
print(len(interpreted) == before, b.ws.call is not None,
      float(np.max(np.abs(x.grad.numpy() - want) / np.abs(want))))
"""


@pytest.mark.slow
def test_tiered_start_interprets_the_first_small_backward_then_compiles():
    src = os.path.join(os.path.dirname(__file__), "..", "src")
    env = {**os.environ, "PYTHONPATH": src, "JITGRAD_VM": "numba"}
    env.pop("JITGRAD_TIER", None)
    out = subprocess.run([sys.executable, "-c", TIER_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    first, later = out.stdout.split("\n")[:2]
    assert first == "1"                      # the first backward ran in the reference VM
    compiled, bound, rel_err = later.split()
    assert compiled == "True" and bound == "True" and float(rel_err) < 1e-5


def _relu_mlp_grads(monkeypatch, peephole, vm_name):
    monkeypatch.setattr(config.SETTINGS, "peephole", peephole)
    monkeypatch.setattr(config.SETTINGS, "program_cache", False)     # lower this very graph
    if vm_name == "numba":
        vm.warmup(quiet=True)
    rng = np.random.default_rng(7)
    x = TT(rng.standard_normal((64, 32)), dtype="float32")
    ps = [TT(rng.standard_normal(s) * 0.2, dtype="float32", stop_gradient=False)
          for s in ((32, 128), (128,), (128, 128), (128,), (128, 4), (4,))]
    h = x
    for i in range(0, 6, 2):
        h = paddle.matmul(h, ps[i]) + ps[i + 1]
        if i < 4:
            h = paddle.relu(h)
    loss = paddle.mean(h)
    prog, _ = lower_mod.lower([loss])
    with vm.using(vm_name):
        loss.backward()
    return [p.grad.numpy() for p in ps], prog.arena_size


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_slot_reuse_and_compaction_keep_mlp_gradients_exact(monkeypatch, vm_name):
    plain, plain_size = _relu_mlp_grads(monkeypatch, False, vm_name)
    opt, opt_size = _relu_mlp_grads(monkeypatch, True, vm_name)
    assert opt_size < plain_size
    for a, b in zip(opt, plain):
        np.testing.assert_array_equal(a, b)


def _random_graph(seed):
    """A random DAG over (3, 4) tensors: shared intermediates, broadcast leaves, reductions."""
    rng = np.random.default_rng(seed)
    leaves = [TT(rng.uniform(-1, 1, s), dtype="float32", stop_gradient=False)
              for s in ((3, 4), (4,), (3, 1), (3, 4))]
    pool = list(leaves)
    for _ in range(12):
        a = pool[rng.integers(len(pool))]
        b = pool[rng.integers(len(pool))]
        k = rng.integers(9)
        h = (a + b if k == 0 else a * b if k == 1 else paddle.tanh(a) if k == 2
             else paddle.sin(a) if k == 3 else paddle.sigmoid(a) if k == 4
             else paddle.relu(a - b) if k == 5 else a * 0.5 + 1.0 if k == 6
             else paddle.exp(paddle.tanh(a)) if k == 7 else a / (paddle.exp(b) + 1.0))
        pool.append(h)
    loss = paddle.sum(pool[-1]) + paddle.mean(pool[-2] * pool[-3])
    return leaves, loss


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_agree_with_and_without_peephole(monkeypatch, seed):
    vm.warmup(quiet=True)
    monkeypatch.setattr(config.SETTINGS, "program_cache", False)
    results = {}
    for peep in ("1", "0"):
        for vm_name in ("reference", "numba"):
            monkeypatch.setattr(config.SETTINGS, "peephole", peep == "0")
            leaves, loss = _random_graph(seed)
            with vm.using(vm_name):
                loss.backward(retain_graph=True)
                loss.backward()
            results[peep, vm_name] = [t.grad.numpy() if t.grad is not None else None
                                      for t in leaves]
    for a, b in zip(results["0", "reference"], results["1", "reference"]):
        if a is None or b is None:
            assert a is None and b is None
        else:
            np.testing.assert_array_equal(a, b)
    for a, b in zip(results["0", "numba"], results["0", "reference"]):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_threaded_chain_is_bitwise_equal_to_one_thread(monkeypatch, split_counter):
    from jitgrad.vm import threads
    calls = split_counter
    split = _grads(60, "numba", True, monkeypatch, size=5000)
    threads.set_num_threads(None)
    assert calls["chain"] == 2                 # both backward calls split their CHAIN row
    monkeypatch.setattr(config.SETTINGS, "num_threads", 1)
    threads.set_num_threads(None)                              # back to the setting
    assert threads.par_min() == threads.NEVER
    before = calls["n"]                        # (CHAIN rows and big float32 forwards)
    one = _grads(60, "numba", True, monkeypatch, size=5000)
    assert calls["n"] == before                # one thread: nothing split
    np.testing.assert_array_equal(split, one)
    plain = _grads(60, "numba", False, monkeypatch, size=5000)
    np.testing.assert_array_equal(split, plain)


def test_thread_count_settings(monkeypatch):
    from jitgrad.vm import threads
    for name in ("JITGRAD_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr(config, "SETTINGS", config.Settings.from_env())
    threads.set_num_threads(None)
    assert threads.num_threads() == 1
    monkeypatch.setenv("JITGRAD_NUM_THREADS", "3")           # jitgrad's own setting first
    monkeypatch.setattr(config, "SETTINGS", config.Settings.from_env())
    threads.set_num_threads(None)
    assert threads.num_threads() == 3 and threads.par_min() == threads.PAR_MIN
    monkeypatch.setenv("JITGRAD_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="JITGRAD_NUM_THREADS"):
        config.Settings.from_env()
    with pytest.raises(ValueError, match="positive int"):
        threads.set_num_threads(0)
    monkeypatch.undo()
    threads.set_num_threads(None)


def _scaled_chain(size, dtype="float32"):
    """Scales right before mul / div / log / sqrt steps (the folded pairs of peephole)."""
    rng = np.random.default_rng(1)
    x = TT(rng.uniform(0.5, 1.5, size), dtype=dtype, stop_gradient=False)
    h = x
    for i in range(24):
        c = TT(rng.uniform(0.5, 1.5, size), dtype=dtype)
        kind = i % 6
        h = (paddle.exp(h * 0.37) if kind == 0 else paddle.log(h * 1.3 + 2.0) if kind == 1
             else (h * 0.71) / c if kind == 2 else paddle.sqrt(h * 1.9 + 1.0) if kind == 3
             else paddle.tanh(h) * c * 1.1 if kind == 4 else paddle.sin(h * 0.9) + 1.5)
    return x, paddle.sum(h * 1.7)


def _chain_steps(loss, no_fold=None):
    if no_fold is not None:
        no_fold.setattr(peephole, "K_FIRST", set())
    prog, _ = lower_mod.lower([loss])
    if no_fold is not None:
        no_fold.setattr(peephole, "K_FIRST", {OP["MUL"], OP["DIV"], OP["MULDIV"]})
    return sum(int(prog.itab[int(r[6])]) for r in prog.code if int(r[0]) >> 1 == OP["CHAIN"])


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_folded_scale_steps_are_bitwise_equal_to_unfused(monkeypatch, vm_name, dtype):
    monkeypatch.setattr(config.SETTINGS, "program_cache", False)     # lower each graph, folds or not
    got = {}
    for peephole in (True, False):
        monkeypatch.setattr(config.SETTINGS, "peephole", peephole)
        x, loss = _scaled_chain(5000, dtype)
        if peephole:
            assert _chain_steps(loss) < _chain_steps(loss, monkeypatch)  # folds happened
        _backward_twice(loss, vm_name)
        got[peephole] = x.grad.numpy()
    assert np.all(np.isfinite(got[True]))
    np.testing.assert_array_equal(got[True], got[False])


@pytest.mark.parametrize("steps", [
    [("MUL", 1)],                               # one step: read the input, write the buffer
    [("TANH_BWD", 0), ("MUL", 1)],              # MUL last: written straight to the output
    [("MUL", 2), ("AXPY", 2), ("MUL", 1)],      # MUL first and last
    [("DIV", 2), ("SIGMOID_BWD", 0), ("RELU_BWD", 0), ("MULDIV", 2), ("DIVK", 2)],
])
@pytest.mark.parametrize("scalar", [0, 1])
@pytest.mark.parametrize("acc", [0, 1])
def test_chain_kernel_edges_match_reference(steps, scalar, acc):
    """Hand-built CHAIN rows over 5000 elements (tiles and a partial one), the MUL first /
    last shortcuts on and off, agree bitwise with the reference's step-by-step kernels."""
    from jitgrad.vm.program import WIDTH
    n = 5000
    rng = np.random.default_rng(len(steps) + 2 * scalar + acc)
    arena = rng.uniform(0.5, 1.5, 5 * n).astype(np.float32)      # a, b, c, out, spare
    table = [len(steps), scalar]
    for name, k in steps:
        table += [OP[name], n, 2 * n, k]
    code = np.zeros((1, WIDTH), np.int64)
    code[0] = [OP["CHAIN"] << 1 | acc, 3 * n, 0, 0, 0, n, 0, 0]
    consts = np.array([1.0, 1.0, 0.75], np.float32)
    arenas = []
    for name in ("reference", "numba"):
        out = arena.copy()
        vm.execute(code.copy(), out, np.array(table, np.int64), consts.copy(), vm=name)
        arenas.append(out)
    np.testing.assert_array_equal(arenas[1], arenas[0])
    assert not np.array_equal(arenas[0], arena)


def test_repeated_replays_through_the_entry_point_match_the_general_path(split_counter,
                                                                        monkeypatch):
    """A retained replay with ones seeds is just the compiled call through its entry point
    (Binding.quick: vm.compiled_call bound to the Workspace) and skips rewriting ones seeds
    it already holds; threaded splits, explicit seeds in between and a switch to the
    reference VM stay exact (in the unfolded order: fold.py's replays are test_fold.py's)."""
    monkeypatch.setattr(config.SETTINGS, "exact_replay", True)
    vm.warmup(quiet=True)
    splits = split_counter
    with vm.using("numba"):               # the compiled path, even under JITGRAD_VM=reference
        x, loss = _chain(40, size=5000)
        loss.backward(retain_graph=True)
        one = x.grad.numpy().copy()
        for k in range(2, 6):
            loss.backward(retain_graph=True)
            np.testing.assert_allclose(x.grad.numpy(), k * one, rtol=1e-5)
        b = _retained_binding(loss)
        assert b.simple and b.ws.call is not None and b.ws.ones_ready
        assert splits["chain"] == 5                          # every run split the CHAIN row
        x.clear_grad()
        loss.backward(TT(3.0), retain_graph=True)            # a non-ones seed in the slot
        np.testing.assert_allclose(x.grad.numpy(), 3 * one, rtol=1e-5)
        assert not b.ws.ones_ready
        x.clear_grad()
        loss.backward(retain_graph=True)                      # ones again, not 3s
        np.testing.assert_allclose(x.grad.numpy(), one, rtol=1e-5)
        assert splits["chain"] == 7
        with vm.using("reference"):
            x.clear_grad()
            loss.backward(retain_graph=True)
            np.testing.assert_allclose(x.grad.numpy(), one, rtol=2e-5, atol=1e-6)
        assert splits["chain"] == 7
