"""DataLoader(num_workers > 0): worker processes give what Paddle 3.3.1 gives (measured with
num_workers=2 on Paddle 3.3.1: the same batches, values, dtypes and order as num_workers=0;
its shuffled order, worker seeds, IterableDataset interleaving and error message), and never
leave a worker behind."""

import gc
import multiprocessing
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.io import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from jitgrad.io import workers
from io_helpers import Items


class Stream(IterableDataset):
    """Yields [i, worker id] for i < 5: every worker walks the whole stream."""

    def __iter__(self):
        info = get_worker_info()
        for i in range(5):
            yield np.array([i, -1 if info is None else info.id])


class SplitStream(IterableDataset):
    """Paddle's docs example: each worker takes its own ceil(n / num_workers) slice."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        per = -(-self.n // info.num_workers)
        start = info.id * per
        for i in range(start, min(start + per, self.n)):
            yield np.array([i])


class Pids(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return np.array([i, os.getpid()])


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"bad index {i}")
        return np.array([i])


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(2.0 if i == 1 else 0)
        return np.array([i])


def describe(batch):
    if isinstance(batch, paddle.Tensor):
        return (batch.dtype.name, batch.shape, batch.numpy().tolist(), batch.stop_gradient)
    if isinstance(batch, dict):
        return {k: describe(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [describe(v) for v in batch])
    return (type(batch).__name__, batch)


def run(dataset, **kw):
    return [describe(b) for b in DataLoader(dataset, **kw)]


def collate_to_tensors(batch):
    return [paddle.to_tensor(np.stack([x for x, _ in batch])),
            paddle.to_tensor([int(y) for _, y in batch])]


PAIRS = [(np.array([i, i], "float32"), np.array(i)) for i in range(5)]
CASES = {
    "pairs": (PAIRS, dict(batch_size=2)),
    "drop_last": (PAIRS, dict(batch_size=2, drop_last=True)),
    "batch_size_none": (PAIRS[:3], dict(batch_size=None)),
    "numbers": ([1.5, 2.5, 3.5], dict(batch_size=2)),
    "dicts": ([{"a": np.array([i]), "b": float(i)} for i in range(3)], dict(batch_size=2)),
    "strings_and_arrays": ([(f"s{i}", np.array([i])) for i in range(3)], dict(batch_size=2)),
    "collate_numpy": (PAIRS, dict(batch_size=2,
                                  collate_fn=lambda b: np.stack([x for x, _ in b]) * 10)),
    "collate_tensors": (PAIRS, dict(batch_size=2, collate_fn=collate_to_tensors)),
    "collate_tuple_of_mixed": ([np.array([i]) for i in range(3)],
                               dict(batch_size=2, collate_fn=lambda b: (np.stack(b), len(b), "x"))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_two_workers_give_the_single_process_batches_in_order(case):
    """Measured on Paddle 3.3.1: identical batches with num_workers 0 and 2 for each case."""
    items, kw = CASES[case]
    single = run(Items(items), **kw)
    assert single and run(Items(items), num_workers=2, **kw) == single


def test_tensor_samples_and_tensor_collate_arrive_as_new_leaves():
    """Paddle 3.3.1 (either mode) yields stop_gradient=True for a collate_fn's Tensor that
    had stop_gradient=False; a Tensor with a graph cannot be pickled, its array can."""
    data = TensorDataset([paddle.arange(6).reshape([3, 2]).astype("float32")])
    assert run(data, batch_size=2, num_workers=2) == run(data, batch_size=2)

    def with_graph(batch):
        t = paddle.to_tensor(np.stack(batch).astype("float32"), stop_gradient=False)
        return t * 2
    out = run(Items([np.array([i]) for i in range(3)]), batch_size=2, num_workers=2,
              collate_fn=with_graph)
    assert out == [("float32", [2, 1], [[0.0], [2.0]], True), ("float32", [1, 1], [[4.0]], True)]


def test_default_collation_in_a_worker_makes_no_tensor(monkeypatch):
    """Workers stack Tensor samples with numpy (the main process makes the Tensors)."""
    def no_stack(*args, **kwargs):
        raise AssertionError("paddle.stack called")
    monkeypatch.setattr("jitgrad.ops.stack", no_stack)
    data = TensorDataset([paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])])
    assert [b[0].numpy().tolist() for b in DataLoader(data, batch_size=2, num_workers=2)] == \
        [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]]


def test_shuffle_is_paddles_worker_order_and_covers_every_sample_once():
    """Measured on Paddle 3.3.1: np.random.seed(3), 7 samples, batch_size=2, shuffle:
    [4,6],[5,3],[1,0],[2] with num_workers=0 but [2,6],[5,4],[0,3],[1] with 2 workers (the
    workers' base seed is drawn from numpy's generator before the permutation)."""
    np.random.seed(3)
    out = [b.numpy().tolist() for b in DataLoader(Items(list(range(7))), batch_size=2,
                                                   shuffle=True, num_workers=2)]
    assert out == [[2, 6], [5, 4], [0, 3], [1]]
    assert sorted(sum(out, [])) == list(range(7))


def test_len_and_iterating_twice_are_unchanged():
    loader = DataLoader(Items(PAIRS), batch_size=2, num_workers=2)
    assert len(loader) == 3
    first = [describe(b) for b in loader]
    assert [describe(b) for b in loader()] == first and len(first) == 3


def test_every_worker_walks_its_own_copy_of_an_iterable_dataset():
    """Measured on Paddle 3.3.1: batches alternate between the workers, each yielding the
    whole stream; a short last batch from each (dropped with drop_last)."""
    got = [b.numpy().tolist() for b in DataLoader(Stream(), batch_size=2, num_workers=2)]
    assert got == [[[0, 0], [1, 0]], [[0, 1], [1, 1]], [[2, 0], [3, 0]], [[2, 1], [3, 1]],
                   [[4, 0]], [[4, 1]]]
    got = [b.numpy().tolist() for b in DataLoader(Stream(), batch_size=2, num_workers=2,
                                                  drop_last=True)]
    assert got == [[[0, 0], [1, 0]], [[0, 1], [1, 1]], [[2, 0], [3, 0]], [[2, 1], [3, 1]]]
    got = [b.numpy().tolist() for b in DataLoader(Stream(), batch_size=None, num_workers=2)]
    assert got == [[i, w] for i in range(5) for w in (0, 1)]


def test_a_split_iterable_dataset_interleaves_until_each_worker_runs_out():
    """Measured on Paddle 3.3.1 (its docs' splitting example): 7 samples over 3 workers
    (0-2, 3-5, 6) come as 0,3,6,1,4,2,5; over 2 workers in batches of 2 as
    [0,1],[4,5],[2,3],[6]."""
    got = [b.numpy().ravel().tolist() for b in DataLoader(SplitStream(7), batch_size=1,
                                                          num_workers=3)]
    assert got == [[0], [3], [6], [1], [4], [2], [5]]
    got = [b.numpy().ravel().tolist() for b in DataLoader(SplitStream(7), batch_size=2,
                                                          num_workers=2)]
    assert got == [[0, 1], [4, 5], [2, 3], [6]]


class Info(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        w = get_worker_info()
        with pytest.raises(RuntimeError, match="Cannot assign attributes"):
            w.id = 5
        return np.array([w.id, w.num_workers, w.seed, int(w.dataset is self),
                         np.random.randint(0, 1000), __import__("random").randint(0, 1000)])


def test_worker_info_fields_and_seeds_are_paddles():
    """Measured on Paddle 3.3.1 after np.random.seed(0): seed 900450186894289455 (the same in
    every worker), dataset is the worker's own; np.random.randint(0, 1000) and
    random.randint(0, 1000) in the workers give 522, 218 / 234, 791 / 297, 818 / 407, 832."""
    assert get_worker_info() is None
    np.random.seed(0)
    rows = [b.numpy()[0].tolist() for b in DataLoader(Info(), batch_size=1, num_workers=2)]
    seed = 900450186894289455
    assert rows == [[0, 2, seed, 1, 522, 218], [1, 2, seed, 1, 234, 791],
                    [0, 2, seed, 1, 297, 818], [1, 2, seed, 1, 407, 832]]


def record_init(worker_id):
    assert get_worker_info().id == worker_id
    np.random.seed(100 + worker_id)


def test_worker_init_fn_runs_in_each_worker_before_its_samples():
    class Draw(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return np.array([get_worker_info().id, np.random.randint(0, 10 ** 6)])
    got = [b.numpy()[0].tolist() for b in DataLoader(Draw(), batch_size=1, num_workers=2,
                                                     worker_init_fn=record_init)]
    assert got == [[w, np.random.RandomState(100 + w).randint(0, 10 ** 6)] for w in (0, 1)]


def test_an_exception_in_a_worker_reaches_the_user_with_its_traceback():
    """Paddle 3.3.1 builds this message (its own type, 'DataLoader worker(1) caught KeyError
    with message:' and the worker's traceback) but raises it in a thread, so its user sees
    a SystemError; the batches before the failing one came first."""
    got = []
    with pytest.raises(KeyError) as info:
        for b in DataLoader(Failing(), batch_size=1, num_workers=2):
            got.append(b.numpy().tolist())
    assert got == [[[0]], [[1]], [[2]]]
    message = str(info.value)
    assert "DataLoader worker(1) caught KeyError with message" in message
    assert "bad index 3" in message and "in __getitem__" in message
    assert multiprocessing.active_children() == []


def failing_init(worker_id):
    raise ValueError(f"init failed in {worker_id}")


def test_a_failing_worker_init_fn_is_raised():
    with pytest.raises(ValueError, match=r"DataLoader worker\(0\) caught ValueError(.|\n)*"
                                         r"init failed in 0"):
        list(DataLoader(Items([1, 2]), batch_size=1, num_workers=2,
                        worker_init_fn=failing_init))


def test_a_batch_that_cannot_be_sent_is_an_error_not_a_hang():
    with pytest.raises(TypeError, match="could not send its batch"):
        list(DataLoader(Items([1, 2]), batch_size=1, num_workers=2,
                        collate_fn=lambda b: lambda: b))


def test_a_worker_that_dies_is_reported():
    class Dies(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 1:
                os._exit(3)
            return np.array([i])
    with pytest.raises(RuntimeError, match=r"worker\(1\) .* exited unexpectedly with exit code 3"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2, timeout=30))
    assert multiprocessing.active_children() == []


def test_leaving_the_loop_early_stops_every_worker():
    """Paddle 3.3.1 leaves its workers running here (10 live children after two such
    loops and gc); jitgrad stops them when the iterator goes."""
    for b in DataLoader(Pids(), batch_size=1, num_workers=2):
        break
    assert multiprocessing.active_children() == []
    it = iter(DataLoader(Pids(), batch_size=1, num_workers=2))
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    gc.collect()
    assert multiprocessing.active_children() == []
    with pytest.raises(KeyboardInterrupt):
        for b in DataLoader(Pids(), batch_size=1, num_workers=2):
            raise KeyboardInterrupt
    assert multiprocessing.active_children() == []


def test_timeout_raises_when_a_batch_takes_longer():
    """A deliberate difference: Paddle 3.3.1 only polls its queue every `timeout` seconds
    (measured: timeout=1 with a 3 s sample returns every batch)."""
    got = []
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0.3 seconds waiting for batch 1"):
        for b in DataLoader(Slow(), batch_size=1, num_workers=2, timeout=0.3):
            got.append(b.numpy().tolist())
    assert got == [[[0]]] and time.monotonic() - start < 2.0
    assert multiprocessing.active_children() == []


def test_persistent_workers_serve_every_epoch_until_the_loader_goes():
    """Measured on Paddle 3.3.1: the same two worker pids in both epochs (its workers then
    outlive the loader; jitgrad's stop with it)."""
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.numpy().tolist() for b in loader]
    for b in loader:
        break
    second = [b.numpy().tolist() for b in loader]
    pids = {row[1] for batch in first + second for row in batch}
    assert [r[0] for b in first for r in b] == [r[0] for b in second for r in b] == list(range(6))
    assert len(pids) == 2 and len(multiprocessing.active_children()) == 2
    del loader
    gc.collect()
    assert multiprocessing.active_children() == []


def test_persistent_workers_keep_their_turn_across_epochs():
    """Each epoch restarts every worker's stream; the next epoch's first task goes to the
    next worker in turn (Paddle 3.3.1: map-style epochs alternate their first worker,
    measured). Here the turn after a drained stream follows the task order alone: 3.3.1's
    depends on when its reader thread hears that a worker ran out (measured in a quiet
    process: 3,6,0,4,1,5,2 where jitgrad always gives 6,0,3,1,4,2,5)."""
    loader = DataLoader(SplitStream(7), batch_size=1, num_workers=3, persistent_workers=True)
    got = [[b.numpy().item() for b in loader] for _ in range(3)]
    assert got == [[0, 3, 6, 1, 4, 2, 5]] + [[6, 0, 3, 1, 4, 2, 5]] * 2
    del loader
    gc.collect()
    assert multiprocessing.active_children() == []


def test_non_persistent_workers_are_new_each_epoch_and_gone_after_it():
    loader = DataLoader(Pids(), batch_size=2, num_workers=2)
    pids = [{row[1] for b in loader for row in b.numpy().tolist()} for _ in range(2)]
    assert len(pids[0]) == 2 and not pids[0] & pids[1]
    assert multiprocessing.active_children() == []


class Counted(Dataset):
    def __init__(self):
        self.count = multiprocessing.get_context("fork").Value("i", 0)

    def __len__(self):
        return 40

    def __getitem__(self, i):
        with self.count.get_lock():
            self.count.value += 1
        return np.array([i])


@pytest.mark.parametrize("prefetch_factor", [1, 2])
def test_prefetch_is_bounded_by_prefetch_factor_per_worker(prefetch_factor):
    """Measured on Paddle 3.3.1: after the first batch, prefetch_factor * num_workers + 1
    samples were read (3, 5, 9 for 1, 2, 4 with 2 workers)."""
    data = Counted()
    it = iter(DataLoader(data, batch_size=1, num_workers=2, prefetch_factor=prefetch_factor))
    next(it)
    expected = prefetch_factor * 2 + 1
    deadline = time.monotonic() + 10
    while data.count.value < expected and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    assert data.count.value == expected
    del it


def test_worker_options_are_checked():
    with pytest.raises(ValueError, match="prefetch_factor should be a positive int"):
        DataLoader(Items([1]), num_workers=2, prefetch_factor=0)
    with pytest.raises(ValueError, match="timeout should be a non-negative"):
        DataLoader(Items([1]), num_workers=2, timeout=-1)
    with pytest.raises(TypeError, match="worker_init_fn must be callable"):
        DataLoader(Items([1]), num_workers=2, worker_init_fn=3)


@pytest.mark.slow
def test_spawned_workers_give_the_same_batches(monkeypatch):
    """Outside Linux the workers are spawned; the dataset then travels by pickle."""
    monkeypatch.setattr(workers, "_context", lambda: multiprocessing.get_context("spawn"))
    items, kw = CASES["pairs"]
    assert run(Items(items), num_workers=2, **kw) == run(Items(items), **kw)
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_forking_while_the_compiled_interpreter_loads_does_not_hang_the_workers():
    """A child forked while the background loader holds Numba's and the import system's
    locks hung at its first compiled use (measured: vm.warmup in the workers timed out
    after 20 s); the pool waits for the loader before forking."""
    script = textwrap.dedent("""
        import numpy as np
        from jitgrad import vm
        from jitgrad.io import Dataset, DataLoader

        class Warm(Dataset):
            def __len__(self):
                return 2

            def __getitem__(self, i):
                vm.warmup(quiet=True)
                return np.array([i, vm.compiled_ready()])

        vm.load_in_background()
        print([b.numpy().tolist() for b in DataLoader(Warm(), batch_size=1, num_workers=2,
                                                      timeout=60)])
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITGRAD_")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=240, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[[[0, 1]], [[1, 1]]]"


# A subprocess script's start: a dataset whose samples from the third on take 30 s.
SLOW_DATASET = textwrap.dedent("""
    import multiprocessing, time
    import numpy as np
    from jitgrad.io import Dataset, DataLoader

    class Slow(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            time.sleep(30 if i >= 2 else 0)
            return np.array([i])
""")


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_and_reaches_only_the_main_process():
    """SIGINT to the whole process group (a terminal's Ctrl-C): the workers ignore it, the
    main process gets KeyboardInterrupt and stops them; no worker prints a traceback."""
    script = SLOW_DATASET + textwrap.dedent("""
        import os, signal, threading

        os.setpgid(0, 0)
        threading.Timer(0.5, lambda: os.killpg(0, signal.SIGINT)).start()
        try:
            for b in DataLoader(Slow(), batch_size=1, num_workers=2):
                pass
        except KeyboardInterrupt:
            print("interrupted", multiprocessing.active_children())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "interrupted []" and "Traceback" not in out.stderr, out.stderr


def test_a_second_pass_over_a_persistent_loader_takes_its_workers_over():
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    old = iter(loader)
    next(old)
    newer = [b.numpy() for b in loader]
    with pytest.raises(RuntimeError, match="a newer pass over this loader"):
        next(old)
    again = [b.numpy() for b in loader]
    assert [b[:, 0].tolist() for b in newer] == [b[:, 0].tolist() for b in again] == \
        [[0, 1], [2, 3], [4, 5]]
    assert {p for b in newer for p in b[:, 1]} == {p for b in again for p in b[:, 1]}
    del loader, old
    gc.collect()
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_the_interpreter_exits_promptly_with_busy_and_persistent_workers_left_alive():
    """A script ending with a half-read loader (its workers busy in a 30 s sample) and a
    persistent loader: exit stops all four workers (terminating the busy ones) at once."""
    script = SLOW_DATASET + textwrap.dedent("""

        busy = iter(DataLoader(Slow(), batch_size=1, num_workers=2))
        next(busy)
        kept = DataLoader(Slow(), batch_size=1, num_workers=2, persistent_workers=True)
        next(iter(kept))
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()))
    """)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - start < 15
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 4
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
