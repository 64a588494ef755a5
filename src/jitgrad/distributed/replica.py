"""The worker side of DataParallel: one model + optimizer replica per (trainer, worker),
kept in this module's memory on the worker process between tasks.

Every function here runs as a Dask task pinned to one worker. A step's gradient payload is
one flat array in the parameters' dtype (at least float32): the concatenated gradients and
the loss, each times the shard's row count n_i for a mean loss (as they are for a sum
loss), then n_i. The payloads' sum holds the whole batch's gradient, loss and row count N:
a mean divides by N once, after the sum, so a worker needs no other shard's size (a shard
loaded on the worker itself is as good as one the driver split). Dask ships one
contiguous buffer and its byte count is exact.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._deps import worker_address

# (trainer id, worker address) -> Replica; keyed by address too so that a cluster of
# threads in one process (processes=False) still keeps one replica per worker
_REPLICAS: dict[tuple[str, str], "Replica"] = {}


class Replica:
    """A model, its optimizer and the loss; `slices` place each parameter in the payload."""

    def __init__(self, model: Any, optimizer: Any, loss_fn: Callable, mean: bool) -> None:
        self.model, self.optimizer, self.loss_fn, self.mean = model, optimizer, loss_fn, mean
        self.params = [p for p in model.parameters() if not p.stop_gradient]
        if not self.params:
            raise ValueError("DataParallel: the model has no trainable parameters")
        # (at least float32: a float16 payload would round row counts above 2048 and
        # overflow gradients times n_i; the sum is cast back when applied)
        self.dtype = np.result_type(np.float32, *[p._data.dtype for p in self.params])
        self.slices, at = [], 0
        for p in self.params:
            self.slices.append((at, at + p._data.size))
            at += p._data.size
        self.size = at


def _get(tid: str) -> Replica:
    try:
        return _REPLICAS[tid, worker_address()]
    except KeyError:
        raise RuntimeError(f"no jitgrad replica {tid} on worker {worker_address()} (the worker "
                           "was restarted or the trainer closed)") from None


# glibc's mallopt parameter for the mmap threshold (malloc.h's M_MMAP_THRESHOLD)
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 64 << 20


def allocate_like_a_plain_process() -> bool:
    """Undo what Dask's nanny's MALLOC_TRIM_THRESHOLD_=65536 does to array allocation.

    The nanny sets it so that a worker gives freed memory back to the OS. Setting it also
    pins glibc's mmap threshold at its 128 KB start (glibc stops adapting it), so every
    temporary array over 128 KB (a 512 x 512 activation, its gradient) is a fresh mmap
    whose pages fault in again at each step: the W4 step on 512 rows took 21.8 ms in a
    worker (and in a plain process with that variable) against 15.6 ms without it. A
    64 MB mmap threshold gives back glibc's adaptive behaviour for arrays up to that size;
    the trim threshold still returns a free heap top. True if set (glibc only)."""
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):         # not glibc (macOS, Windows, musl ...)
        return False


def init(tid: str, model_fn: Callable, optimizer_fn: Callable, loss_fn: Callable,
         state: dict, mean: bool) -> tuple[int, str]:
    """Build the replica from the driver's initial state; (values per payload, dtype)."""
    allocate_like_a_plain_process()
    model = model_fn()
    if not (hasattr(model, "parameters") and hasattr(model, "set_state_dict")):
        raise TypeError(f"model_fn must return a jitgrad nn.Layer, got {type(model).__name__}")
    missing, unexpected = model.set_state_dict(state)
    if missing or unexpected:
        raise ValueError(f"DataParallel: the initial state does not fit model_fn()'s model "
                         f"(missing {missing}, unexpected {unexpected})")
    replica = Replica(model, None, loss_fn, mean)
    replica.optimizer = optimizer_fn(replica.params)
    _REPLICAS[tid, worker_address()] = replica
    return replica.size + 2, replica.dtype.str


def grads(tid: str, arrays: list, previous: list | None) -> np.ndarray:
    """Apply the previous step's update (`previous`: its payloads, or their sum), then
    forward and backward on this worker's shard; its payload (module docstring)."""
    if previous is not None:
        apply(tid, previous)
    return _payload(_get(tid), arrays)


def grads_from(tid: str, loader: Callable, index: Any, rank: int, world: int,
               previous: list | None) -> np.ndarray:
    """grads() on the shard `loader(index, rank, world)` loads on this worker."""
    if previous is not None:
        apply(tid, previous)
    got = loader(index, rank, world)
    arrays = list(got) if isinstance(got, (tuple, list)) else [got]
    what = f"the loader's shard for step {index!r} on rank {rank}"
    if not arrays:
        raise ValueError(f"DataParallel: {what} is empty; return a tuple of arrays")
    arrays = [np.asarray(a) for a in arrays]
    if any(a.ndim == 0 for a in arrays) or any(a.shape[0] != arrays[0].shape[0]
                                               for a in arrays):
        raise ValueError(f"DataParallel: {what} has arrays of shapes "
                         f"{[a.shape for a in arrays]}; they need one first (row) axis of "
                         f"the same length")
    if arrays[0].shape[0] == 0:
        raise ValueError(f"DataParallel: {what} has no rows; give every worker at least one")
    return _payload(_get(tid), arrays)


def _payload(r: Replica, arrays: list) -> np.ndarray:
    import jitgrad
    rows = arrays[0].shape[0]
    weight = float(rows) if r.mean else 1.0
    try:
        loss = r.loss_fn(r.model, *[jitgrad.to_tensor(a) for a in arrays])
        if not isinstance(loss, jitgrad.Tensor) or loss.size != 1:
            shape = f" of shape {list(loss.shape)}" if hasattr(loss, "shape") else ""
            raise TypeError(f"loss_fn must return a scalar jitgrad Tensor (the batch's mean "
                            f"or sum loss), got a {type(loss).__name__}{shape}")
        loss.backward()
        out = np.zeros(r.size + 2, dtype=r.dtype)
        for p, (a, b) in zip(r.params, r.slices):
            if p._grad is not None:
                np.multiply(p._grad.reshape(-1), weight, out=out[a:b], dtype=r.dtype)
        out[-2] = float(loss) * weight
        out[-1] = rows
    finally:
        # (also when the step fails part way, say a hook raising inside backward: the
        # gradients it accumulated must not add to the next step's)
        r.optimizer.clear_grad(set_to_zero=False)
    return out


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One node of the tree reduction."""
    return a + b


def total(payloads: list) -> np.ndarray:
    """The payloads summed in worker order: the same additions in the same order on every
    worker, so every replica gets the same sum to the bit."""
    if len(payloads) == 1:
        return payloads[0]
    out = payloads[0] + payloads[1]
    for p in payloads[2:]:
        out += p
    return out


def apply(tid: str, payloads: list) -> float:
    """Give every parameter its slice of the summed gradient (over the batch's N rows for a
    mean loss) and step the optimizer; every replica runs this on the same payloads, so
    the replicas stay identical. The batch's loss."""
    r = _get(tid)
    summed = total(payloads)
    if r.mean:
        summed = summed[:-1] / summed[-1]
    for p, (a, b) in zip(r.params, r.slices):
        # a copy: the payloads belong to Dask (and may be read-only after transfer)
        p._grad = np.array(summed[a:b].reshape(p._data.shape), dtype=p._data.dtype)
    r.optimizer.step()
    r.optimizer.clear_grad(set_to_zero=False)
    return float(summed[r.size])


def loss(mean: bool, *payloads: np.ndarray) -> float:
    """The batch's loss from the payloads' loss and row-count slots (so the driver fetches
    a float, not a payload)."""
    value = sum(float(p[-2]) for p in payloads)
    return value / sum(float(p[-1]) for p in payloads) if mean else value


def state(tid: str) -> tuple[dict, dict]:
    """The replica's model and optimizer state dicts, as numpy arrays."""
    r = _get(tid)
    model = {k: np.array(v.numpy()) for k, v in r.model.state_dict().items()}
    return model, _as_numpy(r.optimizer.state_dict())


def _as_numpy(value: Any) -> Any:
    """Tensors as numpy arrays, also inside dicts (an optimizer's master_weights)."""
    if hasattr(value, "numpy"):
        return np.array(value.numpy())
    if isinstance(value, dict):
        return {k: _as_numpy(v) for k, v in value.items()}
    return value


def drop(tid: str) -> bool:
    """Forget the replica (trainer closed)."""
    return _REPLICAS.pop((tid, worker_address()), None) is not None
