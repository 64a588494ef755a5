"""Worker processes for DataLoader(num_workers > 0), as Paddle 3.3.1 runs them.

Each worker (a 'fork' child on Linux, as Paddle's, so it works in notebooks; 'spawn'
elsewhere) reads its tasks from its own queue: a map-style Dataset's batch of indices, or for
an IterableDataset "the next batch_size samples" of the worker's own copy of the stream (so
each worker yields the whole dataset unless __iter__ splits it with get_worker_info()).
Tasks go to the workers in turn, at most prefetch_factor * num_workers ahead of the batch
being read; batches come back in sampler order.

Workers load and collate with numpy: the default collation stacks Tensor samples as arrays,
and Tensors a collate_fn returns travel as arrays; the main process makes every Tensor (new
leaves, stop_gradient=True, as in Paddle). A worker's exception is raised again in the main
process with the worker's traceback in its message. Workers stop when an epoch ends, when
the loop is left early (break, an exception, garbage collection) and at exit; a persistent
loader's when the loader is collected.

Before forking, the pool waits for jitgrad's background Numba loader if it is running
(vm.finish_background_load): a child forked mid-load would hang at its first compiled use.

Seeds, as Paddle's: the main process draws base_seed = np.random.randint(0, sys.maxsize)
before reading the sampler (so np.random.seed gives Paddle's shuffled order); worker i seeds
`random` and jitgrad with base_seed + i and numpy with the same SeedSequence words as
Paddle, so numpy draws in a worker match Paddle's.
"""

from __future__ import annotations

import itertools
import os
import pickle
import queue
import random
import signal
import sys
import time
import traceback
import weakref
from typing import Any, Callable, Iterator

import numpy as np

from ..core.tensor import Tensor, to_tensor

POLL_SECONDS = 0.5     # how often a waiting side checks the other is still alive
JOIN_SECONDS = 0.5     # how long stopping waits for busy workers before terminating them
MASK32 = 0xFFFFFFFF


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id (0..num_workers-1), num_workers,
    seed (the loader's base seed, the same in every worker) and dataset (this worker's
    copy). Read-only, as Paddle's."""

    id: int
    num_workers: int
    seed: int
    dataset: Any

    def __init__(self, **fields: Any) -> None:
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: Any) -> None:
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, "
                f"seed={self.seed})")


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's WorkerInfo inside a DataLoader worker process; None in the main one."""
    return _worker_info


def check_worker_options(prefetch_factor: int, timeout: float,
                         worker_init_fn: Callable[[int], None] | None) -> None:
    """The DataLoader options that only matter with workers (Paddle asserts on them)."""
    if isinstance(prefetch_factor, bool) or not isinstance(prefetch_factor, int) or \
            prefetch_factor <= 0:
        raise ValueError(f"DataLoader: prefetch_factor should be a positive int, got "
                         f"{prefetch_factor!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
        raise ValueError(f"DataLoader: timeout should be a non-negative number of seconds, "
                         f"got {timeout!r}")
    if worker_init_fn is not None and not callable(worker_init_fn):
        raise TypeError(f"DataLoader: worker_init_fn must be callable, got "
                        f"{type(worker_init_fn).__name__}")


def _context() -> Any:
    """fork on Linux (Paddle's choice; works in notebooks), spawn elsewhere."""
    import multiprocessing
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux")
                                       else "spawn")


# ---- what travels between the processes ---------------------------------------------------

class _SentTensor:
    """A Tensor crossing from a worker: its array (the main process makes a new leaf)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _map_leaves(batch: Any, fn: Callable[[Any], Any]) -> Any:
    """batch with fn applied to every leaf, through dicts, lists and tuples (kept as such)."""
    if isinstance(batch, dict):
        return {key: _map_leaves(value, fn) for key, value in batch.items()}
    if type(batch) in (list, tuple):        # (a namedtuple is a leaf)
        return type(batch)(_map_leaves(value, fn) for value in batch)
    return fn(batch)


def _tensor_to_array(leaf: Any) -> Any:
    return leaf.numpy() if isinstance(leaf, Tensor) else leaf


def _tensor_to_sent(leaf: Any) -> Any:
    return _SentTensor(leaf.numpy()) if isinstance(leaf, Tensor) else leaf


def _sent_to_tensor(leaf: Any) -> Any:
    return to_tensor(leaf.array) if isinstance(leaf, _SentTensor) else leaf


class _WorkerError:
    """An exception in a worker, to raise again in the main process (Paddle's message)."""

    def __init__(self, worker_id: int) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.message = (f"DataLoader worker({worker_id}) caught {exc_type.__name__} with "
                        f"message:\n{''.join(traceback.format_exception(exc_type, exc, tb))}")

    def exception(self) -> BaseException:
        try:
            return self.exc_type(self.message)
        except Exception:           # a type whose constructor wants other arguments
            return RuntimeError(self.message)


# ---- the worker process -------------------------------------------------------------------

class _Drained(Exception):
    """This worker's copy of an IterableDataset has no further batch."""


class _WorkerSpec:
    """Everything a worker needs from the loader (pickled once per worker under spawn)."""

    def __init__(self, loader: Any, collate: Callable, base_seed: int) -> None:
        self.dataset, self.iterable = loader.dataset, loader._iterable
        self.auto_collate, self.batch_size = loader.auto_collate_batch, loader.batch_size
        self.drop_last, self.collate = loader.drop_last, collate
        self.default_collate = loader.collate_fn is None
        self.init_fn, self.num_workers = loader.worker_init_fn, loader.num_workers
        self.base_seed = base_seed


def _seed_worker(base_seed: int, worker_id: int) -> None:
    """Paddle's worker seeds: random and jitgrad get base_seed + id; numpy the four words
    Paddle's _generate_states derives (numpy's SeedSequence of [id, low, high, 0])."""
    from ..ops.creation import seed
    random.seed(base_seed + worker_id)
    seed(base_seed + worker_id)
    words = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    np.random.seed(np.random.SeedSequence(words).generate_state(4))


class _Fetcher:
    """One worker's reading: samples for a task, collated with numpy."""

    def __init__(self, spec: _WorkerSpec) -> None:
        self.spec, self.stream = spec, None

    def restart(self) -> None:
        self.stream = None          # a new epoch iterates the dataset afresh

    def fetch(self, task: Any) -> Any:
        spec = self.spec
        samples = self._stream_samples() if spec.iterable else \
            [spec.dataset[i] for i in task] if spec.auto_collate else spec.dataset[task]
        if spec.default_collate:
            samples = _map_leaves(samples, _tensor_to_array)
        return _map_leaves(spec.collate(samples), _tensor_to_sent)

    def _stream_samples(self) -> Any:
        spec = self.spec
        if self.stream is None:
            self.stream = iter(spec.dataset)
        if not spec.auto_collate:
            try:
                return next(self.stream)
            except StopIteration:
                raise _Drained from None
        samples = list(itertools.islice(self.stream, spec.batch_size))
        if not samples or (spec.drop_last and len(samples) < spec.batch_size):
            raise _Drained
        return samples


def _worker_main(spec: _WorkerSpec, worker_id: int, tasks: Any, results: Any,
                 done: Any) -> None:
    """A worker's life: seed, worker_init_fn, then answer tasks until told to stop (None),
    the loader stops (done) or the main process dies."""
    global _worker_info
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the main process's to handle
    try:
        _seed_worker(spec.base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=spec.num_workers,
                                  seed=spec.base_seed, dataset=spec.dataset)
        init_error = None
        try:
            if spec.init_fn is not None:
                spec.init_fn(worker_id)
        except Exception:
            init_error = _WorkerError(worker_id)
        _answer_tasks(spec, worker_id, tasks, results, done, parent, init_error)
    finally:
        if done.is_set():
            results.cancel_join_thread()    # exit without flushing what nobody reads


def _answer_tasks(spec: _WorkerSpec, worker_id: int, tasks: Any, results: Any, done: Any,
                  parent: int, init_error: _WorkerError | None) -> None:
    fetcher, epoch, drained = _Fetcher(spec), None, False
    while True:
        try:
            task = tasks.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if os.getppid() != parent:
                return
            continue
        if task is None:
            return
        if done.is_set():
            continue
        task_epoch, index, work = task
        if task_epoch != epoch:
            epoch, drained = task_epoch, False
            fetcher.restart()
        if init_error is not None:
            reply = ("error", init_error)
        elif drained:
            reply = ("drained", None)
        else:
            try:
                reply = ("batch", fetcher.fetch(work))
            except _Drained:
                drained, reply = True, ("drained", None)
            except Exception:
                reply = ("error", _WorkerError(worker_id))
        results.put(_dumps(task_epoch, index, worker_id, reply))


def _dumps(epoch: int, index: int, worker_id: int, reply: tuple) -> bytes:
    """Pickled here rather than in the queue's feeder thread, where a failure would only be
    printed and the main process would wait for the batch forever."""
    try:
        return pickle.dumps((epoch, index, worker_id) + reply, pickle.HIGHEST_PROTOCOL)
    except Exception:
        if reply[0] == "error":         # an exception type that cannot be pickled
            reply[1].exc_type = RuntimeError
        else:
            try:
                raise TypeError(f"DataLoader worker could not send its batch to the main "
                                f"process: {sys.exc_info()[1]}")
            except TypeError:
                reply = ("error", _WorkerError(worker_id))
        return pickle.dumps((epoch, index, worker_id) + reply, pickle.HIGHEST_PROTOCOL)


# ---- the main process ---------------------------------------------------------------------

def _stop_workers(owner: int, workers: list, task_queues: list, results: Any,
                  done: Any) -> None:
    """Stop every worker: ask, wait up to JOIN_SECONDS, then terminate (or kill) the busy
    ones, so no worker outlives its pool and nothing hangs at exit."""
    if os.getpid() != owner:        # a forked child holding a copy of its parent's pool
        return
    workers = [w for w in workers if w.pid is not None]    # (started ones)
    try:
        done.set()
        for q in task_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + JOIN_SECONDS
        for w in workers:
            w.join(max(0.0, deadline - time.monotonic()))
    finally:                        # (even when a second Ctrl-C cuts the wait short)
        for w in workers:
            if w.is_alive():
                w.terminate()
                w.join(JOIN_SECONDS)
            if w.is_alive():
                w.kill()
                w.join()
        for q in task_queues + [results]:
            q.cancel_join_thread()
            q.close()


class _WorkerPool:
    """num_workers processes with a task queue each and one result queue."""

    def __init__(self, loader: Any, collate: Callable) -> None:
        from ..vm import finish_background_load
        ctx = _context()
        if ctx.get_start_method() == "fork":
            finish_background_load()
        self.base_seed = int(np.random.randint(low=0, high=sys.maxsize))
        spec = _WorkerSpec(loader, collate, self.base_seed)
        self.results, self.done = ctx.Queue(), ctx.Event()
        self.task_queues = [ctx.Queue() for _ in range(loader.num_workers)]
        self.workers = [ctx.Process(target=_worker_main, daemon=True,
                                    args=(spec, i, q, self.results, self.done),
                                    name=f"jitgrad DataLoader worker {i}")
                        for i, q in enumerate(self.task_queues)]
        self.epoch, self.turn = 0, 0
        self._finalizer = weakref.finalize(self, _stop_workers, os.getpid(), self.workers,
                                           self.task_queues, self.results, self.done)
        try:
            for w in self.workers:
                w.start()
        except BaseException:           # (spawn: a dataset or collate_fn that won't pickle)
            self.stop()
            raise

    def stop(self) -> None:
        self._finalizer()

    def stopped(self) -> bool:
        return not self._finalizer.alive

    def all_alive(self) -> bool:
        return all(w.exitcode is None for w in self.workers)

    def send(self, worker_id: int, task: tuple) -> None:
        self.task_queues[worker_id].put(task)

    def next_worker(self, drained: set) -> int | None:
        """The next worker in turn (Paddle's cycle) whose stream is not drained."""
        n = len(self.workers)
        for _ in range(n):
            worker_id, self.turn = self.turn, (self.turn + 1) % n
            if worker_id not in drained:
                return worker_id
        return None

    def receive(self, seconds: float) -> tuple | None:
        """The next reply, or None after `seconds`; RuntimeError if a worker died."""
        try:
            return pickle.loads(self.results.get(timeout=seconds))
        except queue.Empty:
            pass
        dead = [(i, w) for i, w in enumerate(self.workers) if w.exitcode is not None]
        if dead:
            i, w = dead[0]
            raise RuntimeError(f"DataLoader worker({i}) (pid {w.pid}) exited unexpectedly "
                               f"with exit code {w.exitcode}")
        return None


def _tasks(loader: Any) -> Iterator[Any]:
    """What each task asks for, in order: index lists, single indices, or (streams) the
    next batch, without end."""
    if loader._iterable:
        return itertools.repeat(None)
    if loader.batch_sampler is None:
        return iter(range(len(loader.dataset)))
    return iter(loader.batch_sampler)


class _Epoch:
    """One pass over the loader: sends tasks ahead, hands batches back in task order."""

    def __init__(self, pool: _WorkerPool, loader: Any) -> None:
        pool.epoch += 1
        self.pool, self.epoch, self.timeout = pool, pool.epoch, loader.timeout
        self.tasks = _tasks(loader)
        self.sent = self.received = 0
        self.ready: dict[int, Any] = {}
        self.drained: set[int] = set()
        self.stream = loader._iterable
        for _ in range(loader.prefetch_factor * loader.num_workers):
            self.send_one()

    def send_one(self) -> None:
        work = next(self.tasks, _END)
        if work is _END:
            return
        worker_id = self.pool.next_worker(self.drained)
        if worker_id is None:
            return
        self.pool.send(worker_id, (self.epoch, self.sent, work))
        self.sent += 1

    def batches(self) -> Iterator[Any]:
        """The collated batches (Tensors as _SentTensor), in order."""
        while self.received < self.sent:
            kind, payload = self._wait(self.received)
            self.received += 1
            self.send_one()
            if kind == "batch":
                yield payload

    def _wait(self, index: int) -> tuple:
        if self.pool.epoch != self.epoch:
            raise RuntimeError("DataLoader: a newer pass over this loader "
                               "(persistent_workers=True) took over its workers")
        deadline = time.monotonic() + self.timeout if self.timeout else None
        while index not in self.ready:
            seconds = POLL_SECONDS if deadline is None else \
                min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
            reply = self.pool.receive(seconds)
            if reply is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds "
                                       f"waiting for batch {index} from its workers")
                continue
            epoch, task, worker_id, kind, payload = reply
            if epoch != self.epoch:         # left over from an abandoned pass
                continue
            self.ready[task] = (kind, payload, worker_id)
        kind, payload, worker_id = self.ready.pop(index)
        if kind == "error":         # in its turn: the batches before it come first
            raise payload.exception()
        if kind == "drained":       # known in task order, not arrival order: which worker
            self.drained.add(worker_id)     # gets each task never depends on timing
        return kind, payload


_END = object()


def worker_batches(loader: Any, collate: Callable, finish: Callable[[Any], Any]
                   ) -> Iterator[Any]:
    """The loader's batches read by its worker processes (DataLoader.__iter__ with
    num_workers > 0); finish(batch) makes the main process's Tensors, as without workers."""
    pool = getattr(loader, "_worker_pool", None)
    if pool is not None and not pool.all_alive():
        pool.stop()                 # (a persistent worker died meanwhile: start afresh)
    if pool is None or pool.stopped():
        pool = _WorkerPool(loader, collate)
        if loader.persistent_workers:
            loader._worker_pool = pool
    keep, epoch = loader.persistent_workers, None
    try:
        epoch = _Epoch(pool, loader)
        for batch in epoch.batches():
            yield finish(_map_leaves(batch, _sent_to_tensor))
    except GeneratorExit:           # left early: a persistent pool serves the next pass
        raise
    except BaseException:           # an error or an interrupt: these workers are done,
        keep = keep and epoch is not None and pool.epoch != epoch.epoch   # unless a newer
        raise                                                    # pass took them over
    finally:
        if not keep:
            pool.stop()
