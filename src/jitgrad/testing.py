"""Gradient checking: random-direction central differences, through every backward path.

`check_grads(f, *arrays)` compares, for a random seed u and direction v, the directional
derivative of sum(f(x) * u) computed by finite differences in float64 with the one given by
each backward path: the compiled interpreter, the numpy reference interpreter, the eager
rules (the create_graph path) and the rules on arrays (the interpret state, a new graph
structure's first backward). It is what the generated op tests use; users can call it on
their own functions and PyLayers.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .compile import executor
from .core import config, grad_mode
from . import vm
from .autograd.eager import eager_gradients, node_gradients
from .core.tensor import Tensor

PATHS = ("numba", "reference", "eager", "interpret")


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
    if path == "interpret":
        found = node_gradients([out], [s], targets=xs, on_arrays=True)
        return [found[id(x)][1] if id(x) in found else np.zeros_like(x._data) for x in xs]
    if path == "numba" and not vm.compiled_ready(out._data.dtype):
        vm.warmup(quiet=True)           # the compiled path itself, not the tiered start
    with vm.using(path), config.override(interpret_new=False):     # (the Program itself)
        found = executor.run_grad([out], [s], xs, None, False)
    return [found[id(x)]._data if id(x) in found else np.zeros_like(x._data) for x in xs]


def numeric_directional(f: Callable[..., Tensor], arrays: Sequence[np.ndarray],
                        seed: np.ndarray, direction: Sequence[np.ndarray],
                        eps: float = 1e-6) -> float:
    def loss(sign: float) -> float:
        with grad_mode.no_grad():
            xs = [Tensor._make(a + sign * eps * v) for a, v in zip(arrays, direction)]
            return float(np.sum(f(*xs)._data * seed))
    return (loss(1.0) - loss(-1.0)) / (2 * eps)


def first_order(f: Callable[..., Tensor], u: np.ndarray, v: Sequence[np.ndarray],
                create_graph: bool) -> Callable[..., Tensor]:
    """x -> sum_i <d sum(f(x) * u) / dx_i, v_i>, a 0-d Tensor.

    With create_graph=True it is differentiable (the function order-2 checks differentiate);
    with False it runs the compiled first-order backward (the values finite differences
    are taken of). Inputs that are constants become fresh leaves, so it also works under
    no_grad.
    """
    from .autograd.api import grad

    def h(*xs: Tensor) -> Tensor:
        with grad_mode.enable_grad():
            leaves = [Tensor._make(x._data, stop_gradient=False) if x._stop_gradient else x
                      for x in xs]
            out = f(*leaves)
            total = Tensor._make(np.zeros((), out._data.dtype))
            if out._node is None:
                return total
            seed = Tensor._make(np.asarray(u, out._data.dtype).reshape(out._data.shape))
            gs = grad([out], leaves, [seed], create_graph=create_graph, allow_unused=True)
            for g, d in zip(gs, v):
                if g is not None:
                    total = total + (g * Tensor._make(np.asarray(d, g._data.dtype))).sum()
            return total
    return h


def check_grads(f: Callable[..., Tensor], *arrays: Any, order: int = 1,
                paths: Sequence[str] = PATHS, rtol: float = 1e-5, atol: float = 1e-6,
                seed: int = 0) -> None:
    """Raise AssertionError if any backward path disagrees with finite differences.

    order=2 also checks second derivatives: the gradient of a first-order directional
    derivative (recorded with create_graph=True, then run through every path) against
    finite differences of the first-order gradients. Inputs are converted to float64; pass
    them as numpy arrays or nested lists.
    """
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    with grad_mode.no_grad():
        out_shape = f(*[Tensor._make(a) for a in arrays])._data.shape
    u = rng.standard_normal(out_shape)
    v = [rng.standard_normal(a.shape) for a in arrays]
    _check_first(f, arrays, u, v, paths, rtol, atol, "")
    if order == 2:
        w = [rng.standard_normal(a.shape) for a in arrays]
        h_graph = first_order(f, u, v, create_graph=True)
        h_values = first_order(f, u, v, create_graph=False)
        want = numeric_directional(h_values, arrays, np.ones(()), w)
        for path in paths:
            grads = gradients(h_graph, arrays, np.ones(()), path)
            got = float(sum(np.sum(g * d) for g, d in zip(grads, w)))
            if not np.isclose(got, want, rtol=rtol, atol=atol):
                raise AssertionError(f"second order, {path} backward of the recorded backward "
                                     f"gives {got!r}, finite differences of first-order "
                                     f"gradients give {want!r}")


def _check_first(f: Callable[..., Tensor], arrays: list, u: np.ndarray, v: list,
                 paths: Sequence[str], rtol: float, atol: float, what: str) -> None:
    want = numeric_directional(f, arrays, u, v)
    for path in paths:
        grads = gradients(f, arrays, u, path)
        got = float(sum(np.sum(g * d) for g, d in zip(grads, v)))
        if not np.isclose(got, want, rtol=rtol, atol=atol):
            raise AssertionError(f"{path} backward gives directional derivative {got!r}, "
                                 f"finite differences give {want!r}")
