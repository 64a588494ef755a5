"""Every registry op through the production path: first sighting, recurrence, cached graph,
retained replay.

For each op and case, four graphs go through `paddle.autograd.backward` as a user's would,
with production's settings and a random seed: graph N, the structure's first backward (the
interpret state: rules on arrays, no Program), graph A of the same structure (it recurs:
lowered and cached), graph B with other values, other index data and other seeds (a cache
hit: A's Program bound to B's values), and graph C retained and replayed. A, B and C must
give exactly the gradients of a fresh lowering of the same graph with the cache off; every
one agrees with the numpy reference interpreter's to float32 rounding. On every hit the
cached Program is also checked against a fresh lowering of B (JITGRAD_VERIFY_CACHE's
check), so a lowering that reads a value it does not name as a source fails here even when
the gradients happen to agree.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config
from jitgrad.compile import executor, program_cache
from jitgrad import vm
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.core.tensor import Tensor

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i in range(len(op.cases))]


@pytest.fixture(autouse=True)
def verified_cache(monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "program_cache", True)
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)      # production's default
    monkeypatch.setattr(config.SETTINGS, "verify_cache", True)
    executor.cache_clear()
    yield
    executor.cache_clear()


def _other(v):
    """Other data of the same shape and kind for a bound attribute (indices reversed, a
    mask flipped), so graph B binds other tables than A."""
    if isinstance(v, np.ndarray):
        return np.array(~v) if v.dtype == bool else v[::-1].copy() if v.ndim == 1 else v
    if isinstance(v, tuple):
        return tuple(_other(x) for x in v)
    return v


def _graph(op, case, variant):
    """(leaves, output) with values drawn for `variant` (0: A, 1: B, 2: C)."""
    vm.warmup(quiet=True)
    rng = np.random.default_rng(10 + variant)
    attrs = dict(case.get("attrs", {}))
    if variant == 1:
        for name in op.extra.get("bound_attrs", ()):
            if name in attrs:
                attrs[name] = _other(attrs[name])
    if "values" in case:     # ties and kinks on purpose: scaled, so they stay where they are
        arrays = [np.asarray(v, np.float32) * (1.0 + 0.5 * variant) for v in case["values"]]
    else:
        lo, hi = op.domain
        arrays = [rng.uniform(lo, hi, size=s).astype(np.float32) for s in case["shapes"]]
    leaves = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    return leaves, apply(op, *leaves, **attrs)


def _seed(out, variant):
    rng = np.random.default_rng(100 + variant)
    return paddle.to_tensor(rng.standard_normal(out._data.shape).astype(out._data.dtype))


def _reference(op, case, variant, times=1, interpreted=None):
    """The gradients of a fresh lowering with the cache off: bitwise what the cached path
    must give. They, and `interpreted` (the interpret state's) when given, agree with the
    numpy reference interpreter's to float32 rounding."""
    leaves, out = _graph(op, case, variant)
    seed = _seed(out, variant)
    with config.override(program_cache=False):
        for _ in range(times):
            paddle.autograd.backward([out], [seed], retain_graph=True)
        want = _grads(leaves)
        leaves, out = _graph(op, case, variant)
        with vm.using("reference"):
            for _ in range(times):
                paddle.autograd.backward([out], [seed], retain_graph=True)
    reference = _grads(leaves)
    for got in (want, interpreted):
        if got is None:
            continue
        assert [g is None for g in got] == [r is None for r in reference]
        for w, r in zip(got, reference):
            if w is not None:
                np.testing.assert_allclose(w, r, rtol=2e-5, atol=2e-6)
    return want


def _grads(leaves):
    return [None if t.grad is None else t.grad.numpy() for t in leaves]


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_op_runs_the_production_path_fresh_cached_and_retained(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    vm.warmup(quiet=True)
    leaves, out = _graph(op, case, 0)
    if out._node is None:
        pytest.skip("no graph recorded for this case")
    before = executor.cache_info()
    paddle.autograd.backward([out], [_seed(out, 0)])
    after = executor.cache_info()
    assert (after.interpreted, after.misses) == (before.interpreted + 1, before.misses), \
        f"{name}: a new structure's first backward was not interpreted"
    _reference(op, case, 0, interpreted=_grads(leaves))
    first_leaves, first = leaves, _grads(leaves)
    for variant in (0, 1):
        leaves, out = _graph(op, case, variant)
        before = executor.cache_info()
        paddle.autograd.backward([out], [_seed(out, variant)])
        after = executor.cache_info()
        if variant == 0:
            assert after.misses == before.misses + 1, f"{name}: not cached"
        else:
            assert after.hits == before.hits + 1, f"{name}: missed the cached Program"
        _same(_grads(leaves), _reference(op, case, variant))
    leaves, out = _graph(op, case, 2)
    seed = _seed(out, 2)
    for _ in range(3):
        paddle.autograd.backward([out], [seed], retain_graph=True)
    _same(_grads(leaves), _reference(op, case, 2, times=3))
    # the .grad arrays the interpreted backward made take a cached backward's accumulation
    out = apply(op, *first_leaves, **case.get("attrs", {}))
    paddle.autograd.backward([out], [_seed(out, 0)])
    for t, g in zip(first_leaves, first):
        if g is not None:
            assert type(t._grad) is np.ndarray, f"{name}: .grad is a {type(t._grad)}"
            # (the first backward ran numpy's kernels, this one the compiled ones: float32
            # rounding differs at the scale of the largest entry, not of each entry)
            np.testing.assert_allclose(t.grad.numpy(), 2 * g, rtol=1e-6,
                                       atol=2e-6 * max(1.0, float(np.abs(g).max())))


def test_every_registry_op_is_cacheable_or_says_why():
    for name, op in REGISTRY.items():
        reason = op.extra.get("uncacheable")
        assert reason is None or isinstance(reason, str) and reason, name


def test_take_with_other_indices_reuses_the_program():
    """Index data is bound per graph: an embedding-style lookup with new indices each step
    hits the cache and gathers the new rows' gradients (the first step is interpreted, the
    second lowers, the third hits)."""
    vm.warmup(quiet=True)
    for step, idx in enumerate(([0, 2, 2], [3, 1, 0], [1, 1, 3])):
        w = paddle.to_tensor(np.arange(8, dtype=np.float32).reshape(4, 2), stop_gradient=False)
        (paddle.gather(w, paddle.to_tensor(idx)) * 2.0).sum().backward()
        want = np.zeros((4, 2), np.float32)
        for j in idx:
            want[j] += 2.0
        np.testing.assert_array_equal(w.grad.numpy(), want)
    assert executor.cache_info().hits >= 1


def test_kept_grad_is_not_overwritten_by_the_next_same_shape_graph():
    """Issue 13's saliency case: each step's gradient stays what that step computed (the
    first step is interpreted, the second lowers, the third and fourth hit)."""
    def step(v):
        w = paddle.to_tensor(np.ones(4, "float32"), stop_gradient=False)
        (w * paddle.to_tensor(np.full(4, v, "float32"))).sum().backward()
        return w.grad
    grads = [step(v) for v in (1.0, 2.0, 3.0, 4.0)]
    info = executor.cache_info()
    assert (info.interpreted, info.misses, info.hits) == (1, 1, 2)
    for v, g in zip((1.0, 2.0, 3.0, 4.0), grads):
        np.testing.assert_array_equal(g.numpy(), [v] * 4)


def test_kept_grad_survives_set_to_none_and_another_backward():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    kept = x.grad
    x.grad = None
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(kept.numpy(), [2, 4])
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3])


def in_threads(worker, n: int) -> None:
    """worker(0) ... worker(n - 1), each in its own thread, all started, then joined."""
    import threading
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def tanh_backwards_in_threads(size, steps: int, beside=None) -> list:
    """4 threads, each `steps` backwards of sum(tanh(w) * v), w ones of size(seed, step)
    elements on a fresh graph (and `beside()`, if given, in a fifth); the seeds of threads
    that saw a wrong w.grad."""
    wrong = []

    def worker(seed):
        if seed == 4:
            beside()
            return
        rng = np.random.default_rng(seed)
        for i in range(steps):
            n = size(seed, i)
            v = rng.standard_normal(n).astype(np.float32)
            w = paddle.to_tensor(np.ones(n, np.float32), stop_gradient=False)
            (paddle.tanh(w) * paddle.to_tensor(v)).sum().backward()
            want = v * (1 - np.tanh(np.float32(1)) ** 2)
            if not np.allclose(w.grad.numpy(), want, rtol=1e-6, atol=0):
                wrong.append(seed)
    in_threads(worker, 4 if beside is None else 5)
    return wrong


def test_concurrent_backwards_from_threads_are_each_right():
    vm.warmup(quiet=True)
    assert tanh_backwards_in_threads(lambda seed, i: 8, 300) == []


def test_concurrent_grad_calls_from_threads_are_each_right():
    """paddle.grad's cache hits (executor.grad_plain) from 4 threads on same-shape graphs."""
    vm.warmup(quiet=True)
    wrong = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        for _ in range(300):
            v = rng.standard_normal(8).astype(np.float32)
            w = paddle.to_tensor(np.ones(8, np.float32), stop_gradient=False)
            (g,) = paddle.grad((paddle.tanh(w) * paddle.to_tensor(v)).sum(), [w])
            if not np.allclose(g.numpy(), v * (1 - np.tanh(np.float32(1)) ** 2), rtol=1e-6,
                               atol=0) or w.grad is not None:
                wrong.append(seed)
    in_threads(worker, 4)
    assert wrong == []


def test_backwards_from_threads_stay_right_while_the_cache_is_emptied_and_rebounded():
    """The cache's lock is the runs' lock (a step takes it once): backwards from 4 threads
    stay right while a fifth empties the cache and changes its bound, and afterwards the
    byte count is what the cached Programs and their spare Workspaces hold."""
    vm.warmup(quiet=True)
    limit = executor.cache_info().max_bytes

    def churn():
        for i in range(200):
            if i % 3 == 0:
                executor.cache_clear()
            else:
                executor.set_cache_limit(1 << 12 if i % 2 else limit)
    try:
        assert tanh_backwards_in_threads(lambda seed, i: 8, 300, beside=churn) == []
    finally:
        executor.set_cache_limit(limit)
    entries = list(executor.CACHE._entries.values())
    assert executor.cache_info().bytes == sum(e.nbytes for e in entries)
    assert all(e.nbytes == e.program.nbytes + sum(ws.nbytes for ws in e.spare)
               for e in entries)


def test_shared_parameter_from_threads_accumulates_every_contribution():
    vm.warmup(quiet=True)
    w = paddle.to_tensor(np.zeros(16, np.float32), stop_gradient=False)

    def worker():
        for _ in range(200):
            (w * paddle.to_tensor(np.ones(16, np.float32))).sum().backward()
    in_threads(lambda seed: worker(), 4)
    np.testing.assert_array_equal(w.grad.numpy(), np.full(16, 800, np.float32))


def test_cache_memory_is_bounded_and_released():
    vm.warmup(quiet=True)
    executor.set_cache_limit(1 << 20)
    try:
        for n in (10_000, 20_000, 40_000, 80_000):
            x = paddle.to_tensor(np.ones(n, np.float32), stop_gradient=False)
            for _ in range(2):
                (paddle.tanh(x) * x).sum().backward()
            assert executor.cache_info().bytes <= 1 << 20
        assert executor.cache_info().programs >= 1
        executor.cache_clear()
        info = executor.cache_info()
        assert (info.programs, info.bytes, info.hits) == (0, 0, 0)
    finally:
        executor.set_cache_limit(program_cache.default_limit())


def test_program_is_pure_data_and_pickles():
    import pickle
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), stop_gradient=False)
    w = paddle.to_tensor(np.ones((3, 2), np.float32), stop_gradient=False)
    out = paddle.nn.functional.softmax(paddle.tanh(paddle.matmul(x, w)) * 2.0).sum()
    prog = executor.program_for([out])
    again = pickle.loads(pickle.dumps(prog))
    assert again.same(prog) and again.text() == prog.text()
    kinds = (np.ndarray, int, float, str, bytes, tuple, type(None), np.dtype, np.generic)

    def walk(v):
        assert isinstance(v, kinds), type(v)
        if isinstance(v, tuple):
            for item in v:
                walk(item)
    for field in prog.__dataclass_fields__:
        walk(getattr(prog, field))
    assert not any(isinstance(v, Tensor) for v in prog.__dict__.values())


_FIRST_USE_IN_THREADS = """
import sys, threading
import numpy as np
import jitgrad as paddle
paddle.warmup(quiet=True)
start, errors = threading.Barrier(4), []

def work(v):
    try:
        start.wait()
        for _ in range(50):
            w = paddle.to_tensor(np.ones(8, "float32"), stop_gradient=False)
            x = paddle.to_tensor(np.full((4, 8), v, "float32"))
            (paddle.tanh(x * w) * v).sum().backward()
            assert w.grad.shape == [8]
    except BaseException as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(float(v),)) for v in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print(errors or "ok")
"""


@pytest.mark.slow
def test_threads_first_using_the_compiled_forwards_at_once_all_get_them():
    """A new process whose first ops with compiled forwards (x * w of a row: the row
    kernel) run in four threads at once: each waits for the kernels' module that another
    thread is importing (taken half made from sys.modules, they failed with
    'partially initialized module jitgrad.vm.forward has no attribute row_op')."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _FIRST_USE_IN_THREADS], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok", out.stdout


# per step of _training_loop: clear .grad before it (else it accumulates onto the last)
_CLEARED = (False, False, True, True, False, False)


def _training_loop(op, case):
    """Steps of loss = (op(leaves) * c_k).sum(); loss.backward() on the same leaves, c_k new
    each step, .grad cleared before the steps _CLEARED says: the gradients after each."""
    leaves, _ = _graph(op, case, 0)
    rng = np.random.default_rng(7)
    got = []
    for clear in _CLEARED:
        out = apply(op, *leaves, **case.get("attrs", {}))
        c = paddle.to_tensor(rng.standard_normal(out._data.shape).astype(out._data.dtype))
        if clear:
            for t in leaves:
                t.clear_grad()
        (out * c).sum().backward()
        got.append(_grads(leaves))
    return got


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_op_in_a_training_loop_takes_the_quick_run_and_matches_a_fresh_lowering(
        name, i, monkeypatch, quick_runs):
    """Tensor.backward() on the same leaves step after step (executor._step: a matched
    graph bound into its Program's spare Workspace and run at once, binding.run_quick):
    after a cleared .grad every step's gradients are bitwise those of a fresh lowering of
    each graph; accumulated onto the last step's, within float32 rounding of them (a leaf's
    row adds into its .grad: a GEMM's panels may round as (C + AB1) + AB2,
    slot_layout.own_leaf_grads), and so is the first step's (interpreted: numpy's rules)."""
    op = REGISTRY[name]
    case = op.cases[i]
    leaves, out = _graph(op, case, 0)
    if out._node is None or out._data.dtype.kind != "f":
        pytest.skip("no graph recorded for this case")
    monkeypatch.setattr(config.SETTINGS, "verify_cache", False)
    got = _training_loop(op, case)
    with config.override(program_cache=False):
        want = _training_loop(op, case)
    for k, (g, w) in enumerate(zip(got, want)):
        if _CLEARED[k]:
            _same(g, w)
            continue
        assert [a is None for a in g] == [b is None for b in w]
        for a, b in zip(g, w):
            if b is not None:
                np.testing.assert_allclose(a, b, rtol=2e-6,
                                           atol=2e-6 * max(1.0, float(np.abs(b).max())))
    if op.extra.get("uncacheable") is None:
        assert True in quick_runs, f"{name}: no step took the quick run"
