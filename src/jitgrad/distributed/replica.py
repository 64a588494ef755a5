"""The worker side of DataParallel: one model + optimizer replica per (trainer, worker),
kept in this module's memory on the worker process between tasks.

Every function here runs as a Dask task pinned to one worker. A step's gradient payload is
one flat array in the parameters' dtype: the concatenated (weighted) gradients followed by
the weighted loss, so Dask ships a single contiguous buffer and its byte count is exact.
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

    def __init__(self, model: Any, optimizer: Any, loss_fn: Callable) -> None:
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.params = [p for p in model.parameters() if not p.stop_gradient]
        if not self.params:
            raise ValueError("DataParallel: the model has no trainable parameters")
        self.dtype = np.result_type(*[p._data.dtype for p in self.params])
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
         state: dict) -> tuple[int, str]:
    """Build the replica from the driver's initial state; (values per payload, dtype)."""
    allocate_like_a_plain_process()
    model = model_fn()
    if not (hasattr(model, "parameters") and hasattr(model, "set_state_dict")):
        raise TypeError(f"model_fn must return a jitgrad nn.Layer, got {type(model).__name__}")
    missing, unexpected = model.set_state_dict(state)
    if missing or unexpected:
        raise ValueError(f"DataParallel: the initial state does not fit model_fn()'s model "
                         f"(missing {missing}, unexpected {unexpected})")
    replica = Replica(model, None, loss_fn)
    replica.optimizer = optimizer_fn(replica.params)
    _REPLICAS[tid, worker_address()] = replica
    return replica.size + 1, replica.dtype.str


def grads(tid: str, weight: float, arrays: list, previous: list | None) -> np.ndarray:
    """Apply the previous step's update (`previous`: its payloads, or their sum), then
    forward and backward on this worker's shard; the gradients times `weight` (n_i/N for
    a mean loss, so the shards' payloads sum to the whole batch's), then the weighted
    loss."""
    import jitgrad
    if previous is not None:
        apply(tid, previous)
    r = _get(tid)
    loss = r.loss_fn(r.model, *[jitgrad.to_tensor(a) for a in arrays])
    if not isinstance(loss, jitgrad.Tensor) or loss.size != 1:
        shape = f" of shape {list(loss.shape)}" if hasattr(loss, "shape") else ""
        raise TypeError(f"loss_fn must return a scalar jitgrad Tensor (the batch's mean or "
                        f"sum loss), got a {type(loss).__name__}{shape}")
    loss.backward()
    out = np.zeros(r.size + 1, dtype=r.dtype)
    for p, (a, b) in zip(r.params, r.slices):
        if p._grad is not None:
            np.multiply(p._grad.reshape(-1), weight, out=out[a:b], casting="unsafe")
    out[-1] = float(loss) * weight
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
    """Give every parameter its slice of the summed gradient and step the optimizer; every
    replica runs this on the same payloads, so the replicas stay identical."""
    r = _get(tid)
    summed = total(payloads)
    for p, (a, b) in zip(r.params, r.slices):
        # a copy: the payloads belong to Dask (and may be read-only after transfer)
        p._grad = np.array(summed[a:b].reshape(p._data.shape), dtype=p._data.dtype)
    r.optimizer.step()
    r.optimizer.clear_grad(set_to_zero=False)
    return float(summed[-1])


def loss(*payloads: np.ndarray) -> float:
    """The batch's loss: the last value of the payloads' sum (so the driver fetches a
    float, not a payload)."""
    return float(sum(float(p[-1]) for p in payloads))


def state(tid: str) -> tuple[dict, dict]:
    """The replica's model and optimizer state dicts, as numpy arrays."""
    r = _get(tid)
    model = {k: np.array(v.numpy()) for k, v in r.model.state_dict().items()}
    opt = {k: (np.array(v.numpy()) if hasattr(v, "numpy") else v)
           for k, v in r.optimizer.state_dict().items()}
    return model, opt


def drop(tid: str) -> bool:
    """Forget the replica (trainer closed)."""
    return _REPLICAS.pop((tid, worker_address()), None) is not None
