"""Gradient checking: random-direction central differences, through every backward path.

`check_grads(f, *arrays)` compares, for a random seed u and direction v, the directional
derivative of sum(f(x) * u) computed by finite differences in float64 with the one given by
each backward path: the compiled interpreter, the numpy reference interpreter and the eager
rules (the create_graph path). It is what the generated op tests use; users can call it on
their own functions and PyLayers.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from . import tape, vm
from .autograd import eager_gradients
from .lower import lower
from .tensor import Tensor

PATHS = ("numba", "reference", "eager")


def _leaves(arrays: Sequence[np.ndarray]) -> list[Tensor]:
    out = []
    for a in arrays:
        t = Tensor._make(np.array(a, copy=True))
        t._stop_gradient = False
        out.append(t)
    return out


def gradients(f: Callable[..., Tensor], arrays: Sequence[np.ndarray], seed: np.ndarray,
              path: str) -> list[np.ndarray]:
    """Gradients of sum(f(*xs) * seed) w.r.t. each input, by one backward path."""
    xs = _leaves(arrays)
    out = f(*xs)
    if out._node is None:
        return [np.zeros_like(a) for a in arrays]
    s = Tensor._make(np.asarray(seed, dtype=out._data.dtype).reshape(out._data.shape))
    if path == "eager":
        found = eager_gradients([out], [s], targets=xs)
        return [found[id(x)]._data if id(x) in found else np.zeros_like(x._data) for x in xs]
    prog = lower([out], targets=xs)
    prog.arena[prog.seeds[0][0]:prog.seeds[0][0] + prog.seeds[0][1]] = s._data.ravel()
    vm.execute(prog, vm=path)
    by_id = {id(t): prog.arena[off:off + int(np.prod(shape))].reshape(shape)
             for t, off, shape, _ in prog.outputs}
    return [np.array(by_id[id(x)]).astype(x._data.dtype) if id(x) in by_id
            else np.zeros_like(x._data) for x in xs]


def numeric_directional(f: Callable[..., Tensor], arrays: Sequence[np.ndarray],
                        seed: np.ndarray, direction: Sequence[np.ndarray],
                        eps: float = 1e-6) -> float:
    def loss(sign: float) -> float:
        with tape.no_grad():
            xs = [Tensor._make(a + sign * eps * v) for a, v in zip(arrays, direction)]
            return float(np.sum(f(*xs)._data * seed))
    return (loss(1.0) - loss(-1.0)) / (2 * eps)


def check_grads(f: Callable[..., Tensor], *arrays: Any, paths: Sequence[str] = PATHS,
                rtol: float = 1e-5, atol: float = 1e-6, seed: int = 0) -> None:
    """Raise AssertionError if any backward path disagrees with finite differences.

    Inputs are converted to float64; pass them as numpy arrays or nested lists.
    """
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    with tape.no_grad():
        out_shape = f(*[Tensor._make(a) for a in arrays])._data.shape
    u = rng.standard_normal(out_shape)
    v = [rng.standard_normal(a.shape) for a in arrays]
    want = numeric_directional(f, arrays, u, v)
    for path in paths:
        grads = gradients(f, arrays, u, path)
        got = float(sum(np.sum(g * d) for g, d in zip(grads, v)))
        if not np.isclose(got, want, rtol=rtol, atol=atol):
            raise AssertionError(f"{path} backward gives directional derivative {got!r}, "
                                 f"finite differences give {want!r}")
