"""DataParallel: one model + optimizer replica per Dask worker, trained in lock step.

A step, all submitted to the scheduler at once:
  1. step(): the driver splits the batch along axis 0 into one shard per worker
     (np.array_split) and sends shard i with the task `grads` pinned to worker i;
     step_from(loader, index): worker i loads its own shard, loader(index, i, K), and the
     driver sends only the loader and the index;
  2. worker i first applies the previous step's update: it sums the previous step's
     payloads in worker order (the same additions on every worker, so every replica gets
     the same sum to the bit) and runs the optimizer step; then it runs forward and
     backward on its shard (its program cache makes every step after the first a replay)
     and keeps one flat payload: its gradients and loss, times its row count n_i for a
     mean loss, then n_i (the sum's last value is the batch's N, which a mean divides by
     after the sum: no worker needs another shard's size);
  3. with up to ALL_GATHER_MAX workers, that is the whole step: each worker fetches the
     others' payloads as the inputs of its next `grads` (one wave of tasks per step, one
     transfer hop on the critical path). With more, K(K-1) transfers per step would grow
     too fast: a binary tree of `add` tasks sums the payloads instead (each add pinned to
     the worker that holds its left operand, K-1 transfers up, K-1 fetches of the sum
     down), and the next `grads` takes the sum (two waves per step).

Bytes moved per step, K workers, a payload of (P+2)b bytes (P gradient values of b bytes,
the loss and the row count), a batch of B bytes: shards B (driver -> workers; 0 with
step_from), plus worker to worker K(K-1)(P+2)b gathered (K <= ALL_GATHER_MAX), or
(K-1)(P+2)b up and (K-1)(P+2)b down the tree. The driver never touches a gradient, so its
link carries only the batch (or the loader) and one float per step; `bytes_per_step`
reports these numbers. Parameters never move after init (the replicas start from the
driver's state dict).
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Iterable

import numpy as np

from . import replica
from ._deps import require

_POLL_S = 5.0        # while waiting for a step: how often to check that the replicas live
ALL_GATHER_MAX = 4   # up to this many workers, each gathers every payload (one wave a step)


class DataParallel:
    """Synchronous data-parallel training of `model_fn()` on the client's workers.

    model_fn() -> nn.Layer builds the model (on the driver once, for the initial state, and
    on every worker); optimizer_fn(parameters) -> Optimizer; loss_fn(model, *batch_tensors)
    -> scalar loss, a mean over the batch rows when reduction="mean" (the default) or a
    sum when reduction="sum". All three are pickled with cloudpickle: lambdas and functions
    of a script work, as long as the workers can import what they reference.
    """

    def __init__(self, client: Any, model_fn: Callable[[], Any],
                 optimizer_fn: Callable[[list], Any], loss_fn: Callable[..., Any], *,
                 workers: list[str] | None = None, reduction: str = "mean",
                 init_state: dict | None = None) -> None:
        require()
        for name, fn in (("model_fn", model_fn), ("optimizer_fn", optimizer_fn),
                         ("loss_fn", loss_fn)):
            if not callable(fn):
                raise TypeError(f"DataParallel: {name} must be callable, got "
                                f"{type(fn).__name__}")
        if reduction not in ("mean", "sum"):
            raise ValueError(f"DataParallel: reduction must be 'mean' or 'sum', got "
                             f"{reduction!r}")
        live = sorted(client.scheduler_info(n_workers=-1)["workers"])
        if workers is None:
            workers = live
        workers = list(workers)
        if not workers:
            raise ValueError("DataParallel: the client has no workers (start some, or wait "
                             "with client.wait_for_workers(n))")
        gone = [w for w in workers if w not in live]
        if gone:
            raise ValueError(f"DataParallel: workers {gone} are not in the cluster "
                             f"(known: {live})")
        if init_state is None:
            init_state = model_fn().state_dict()
        init_state = {k: np.array(getattr(v, "numpy", lambda v=v: v)()) for k, v in
                      init_state.items()}
        self.client, self.workers, self.reduction = client, workers, reduction
        self.tid = uuid.uuid4().hex[:12]
        self.step_count = 0
        self.bytes_init = len(workers) * sum(v.nbytes for v in init_state.values())
        futures = [self._on(i, replica.init, self.tid, model_fn, optimizer_fn, loss_fn,
                            init_state, reduction == "mean", key=f"jitgrad-init-{self.tid}-{i}")
                   for i in range(len(workers))]
        size, dtype = client.gather(futures)[0]
        self.payload_bytes = size * np.dtype(dtype).itemsize
        self.bytes_per_step: dict[str, int] = {}
        # the last step's payloads (or their sum), not yet applied: Dask futures
        self._pending: list | None = None
        self._closed = False

    def _on(self, i: int, fn: Callable, *args: Any, key: str) -> Any:
        return self.client.submit(fn, *args, key=key, workers=[self.workers[i]],
                                  allow_other_workers=False, pure=False)

    def step(self, *batch: Any) -> float:
        """One synchronous step on the whole batch (numpy arrays sharing their first axis);
        returns the batch's loss before the update."""
        return self._gather([self.step_async(*batch)])[0]

    def steps(self, batches: Iterable[tuple]) -> list[float]:
        """Several steps submitted at once (pipelined: no driver round trip between them,
        the scheduler starts step t+1 as soon as step t's sum exists); their losses."""
        return self._gather([self.step_async(*b) for b in batches])

    def step_async(self, *batch: Any) -> Any:
        """Submit one step; a Dask Future of its loss. The update itself is applied by
        each replica at the start of the next step (or by state_dict/close), so a step is
        one wave of tasks, `grads` on every worker (two with a tree of adds beyond
        ALL_GATHER_MAX workers)."""
        self._check_open()
        if not batch:
            raise ValueError("DataParallel.step needs at least one array (the batch)")
        arrays = [np.asarray(b) for b in batch]
        if any(a.ndim == 0 for a in arrays):
            raise ValueError("DataParallel.step: every batch array needs a first (batch) axis")
        n, k = arrays[0].shape[0], len(self.workers)
        if any(a.shape[0] != n for a in arrays):
            raise ValueError(f"DataParallel.step: the arrays' first axes differ "
                             f"({[a.shape[0] for a in arrays]}); they must be one batch")
        if n < k:
            raise ValueError(f"DataParallel.step: a batch of {n} rows cannot be split over "
                             f"{k} workers; give at least {k} rows")
        shards = [np.array_split(a, k) for a in arrays]          # views: no copy here
        return self._submit(lambda i, previous, key: self._on(
            i, replica.grads, self.tid, [sh[i] for sh in shards], previous, key=key),
            shard_bytes=int(sum(a.nbytes for a in arrays)))

    def step_from(self, loader: Callable[[Any, int, int], Any], index: Any) -> float:
        """One synchronous step on a batch each worker loads itself: worker `rank` of
        `world` trains on `loader(index, rank, world)`, a tuple of arrays sharing their first
        axis (or one array), so no batch passes through the driver. The batch's loss."""
        return self._gather([self.step_from_async(loader, index)])[0]

    def steps_from(self, loader: Callable[[Any, int, int], Any],
                   indices: Iterable[Any]) -> list[float]:
        """step_from for several indices, submitted at once (pipelined, as steps())."""
        return self._gather([self.step_from_async(loader, i) for i in indices])

    def step_from_async(self, loader: Callable[[Any, int, int], Any], index: Any) -> Any:
        """Submit one step_from; a Dask Future of its loss. The loader is pickled with each
        task: load or memory-map the shard there, rather than close over the data. A cache
        it keeps between steps must live in an importable module: cloudpickle ships a
        function of a script's __main__ by value, with a fresh copy of its globals."""
        self._check_open()
        if not callable(loader):
            raise TypeError(f"DataParallel.step_from: loader must be callable as "
                            f"loader(index, rank, world), got {type(loader).__name__}")
        k = len(self.workers)
        return self._submit(lambda i, previous, key: self._on(
            i, replica.grads_from, self.tid, loader, index, i, k, previous, key=key),
            shard_bytes=0)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("DataParallel.step after close()")

    def _submit(self, grads: Callable[[int, Any, str], Any], shard_bytes: int) -> Any:
        """One step's tasks: grads(i, previous payloads, key) on every worker i, then the
        sum (a tree beyond ALL_GATHER_MAX workers); a Future of the batch's loss."""
        if self._pending is not None and any(f.status == "error" for f in self._pending):
            self._pending = None        # the failed step's payloads do not all exist
        tag = f"{self.tid}-{self.step_count}"
        k = len(self.workers)
        level = [(grads(i, self._pending, f"jitgrad-grads-{tag}-{i}"), i) for i in range(k)]
        self.step_count += 1
        mean = self.reduction == "mean"
        if k <= ALL_GATHER_MAX:         # the next grads tasks gather every payload
            self._pending = [f for f, _ in level]
            moved = k * (k - 1) * self.payload_bytes
            self.bytes_per_step = {"shards": shard_bytes, "gradients_gathered": moved,
                                   "total": shard_bytes + moved}
            # (worker 0 fetches the others' payloads for this, as its next grads needs)
            return self._on(0, replica.loss, mean, *self._pending, key=f"jitgrad-loss-{tag}")
        depth = 0
        while len(level) > 1:                                    # the tree reduction
            nxt = []
            for j in range(0, len(level) - 1, 2):
                (a, i), (b, _) = level[j], level[j + 1]
                nxt.append((self._on(i, replica.add, a, b,
                                     key=f"jitgrad-add-{tag}-{depth}-{j}"), i))
            if len(level) % 2:
                nxt.append(level[-1])
            level, depth = nxt, depth + 1
        self._pending = [level[0][0]]
        moved = (k - 1) * self.payload_bytes
        self.bytes_per_step = {"shards": shard_bytes, "gradients_up": moved,
                               "gradients_down": moved, "total": shard_bytes + 2 * moved}
        return self._on(level[0][1], replica.loss, mean, level[0][0],
                        key=f"jitgrad-loss-{tag}")

    def _flush(self) -> None:
        """Apply the last step's update on every replica (the next step would have)."""
        if self._pending is not None and not any(f.status == "error" for f in self._pending):
            tag = f"{self.tid}-{self.step_count}"
            self._gather([self._on(i, replica.apply, self.tid, self._pending,
                                   key=f"jitgrad-apply-{tag}-{i}")
                          for i in range(len(self.workers))])
        self._pending = None        # (a failed step's payloads do not exist: nothing to apply)

    def _gather(self, futures: list) -> list:
        """The futures' results; raises if a replica's worker left the cluster meanwhile
        (its pinned tasks could never run)."""
        dist = require()
        while True:
            try:
                dist.wait(futures, timeout=_POLL_S)
                return self.client.gather(futures)
            except TimeoutError:
                live = self.client.scheduler_info(n_workers=-1)["workers"]
                gone = [w for w in self.workers if w not in live]
                if gone:
                    self.client.cancel(futures)
                    raise RuntimeError(f"DataParallel: worker(s) {gone} left the cluster; "
                                       f"their replicas are lost. Rebuild the trainer with "
                                       f"init_state=<a state_dict() taken earlier>") from None

    def state_dict(self, worker: int = 0) -> dict:
        """The model's parameters on one replica (all are equal), as numpy arrays."""
        return self._state(worker)[0]

    def optimizer_state_dict(self, worker: int = 0) -> dict:
        """The optimizer's accumulators on one replica, as numpy arrays."""
        return self._state(worker)[1]

    def _state(self, worker: int) -> tuple[dict, dict]:
        if not 0 <= worker < len(self.workers):
            raise ValueError(f"worker must be in [0, {len(self.workers)}), got {worker}")
        self._flush()
        return self._gather([self._on(worker, replica.state, self.tid,
                                      key=f"jitgrad-state-{self.tid}-{uuid.uuid4().hex[:8]}")])[0]

    def close(self) -> None:
        """Drop the replicas from the workers' memory."""
        if not self._closed:
            self._flush()
            self._closed = True
            fs = [self._on(i, replica.drop, self.tid, key=f"jitgrad-drop-{self.tid}-{i}")
                  for i in range(len(self.workers))]
            self.client.gather(fs, errors="skip")

    def __enter__(self) -> "DataParallel":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
