"""paddle.nn.utils: gradient clipping in place, parameters as one vector, weight
normalisation (weight = g * v / ||v||) and spectral normalisation (weight / sigma_max),
each recomputed by a forward pre-hook."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from ..ops import concat, creation, dot, matmul, mv, reshape, transpose
from ..ops.loss import normalize
from ..ops.inplace import set_value
from ..ops.stats import vector_norm
from ..utils import unique_name
from .layer import Layer, Parameter

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "weight_norm", "remove_weight_norm", "spectral_norm"]


def _params(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        return [parameters]
    out = list(parameters)
    if not all(isinstance(p, Tensor) for p in out):
        raise TypeError("parameters must be a Tensor or an iterable of Tensors")
    return out


def clip_grad_norm_(parameters: Iterable[Tensor] | Tensor, max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Scale the gradients in place so that their joint norm is at most max_norm (by
    max_norm / (norm + 1e-6), as Paddle); returns the norm before clipping.

    As in Paddle 3.3.1 (and torch): a NaN norm scales every gradient by NaN, so the step
    that follows shows the divergence instead of applying the other gradients unclipped;
    norm_type 0 counts the gradients holding a nonzero element (the L0 norm of their L0
    norms)."""
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return Tensor._make(np.array(0.0, np.float32))
    norm_type = float(norm_type)
    if not (norm_type >= 0):
        raise ValueError(f"clip_grad_norm_: norm_type must be 0, a positive number or inf, "
                         f"got {norm_type}")
    flat = [np.abs(g._data.astype(np.float64)).ravel() for g in grads]
    if norm_type == np.inf:
        total = max(float(f.max(initial=0.0)) for f in flat)
    elif norm_type == 0:
        total = float(sum(np.count_nonzero(f) > 0 for f in flat))
    else:
        total = sum(float((f ** norm_type).sum()) for f in flat) ** (1.0 / norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} of the gradients is "
                           f"non-finite, so they cannot be clipped; pass "
                           f"error_if_nonfinite=False to clip anyway")
    coef = float(max_norm) / (total + 1e-6)
    if not coef >= 1.0:                                     # (NaN included)
        with no_grad(), np.errstate(invalid="ignore"):      # (inf * 0: NaN, as Paddle)
            for g in grads:
                g.scale_(coef)
    return Tensor._make(np.array(total, grads[0]._data.dtype))


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float) -> None:
    """Clip every gradient element to [-clip_value, clip_value], in place."""
    with no_grad():
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clip_(-float(clip_value), float(clip_value))


def parameters_to_vector(parameters: Iterable[Tensor], name: str | None = None) -> Tensor:
    """The parameters flattened and concatenated (differentiable)."""
    return concat([reshape(p, [-1]) for p in _params(parameters)])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor],
                         name: str | None = None) -> None:
    """Copy consecutive slices of vec into the parameters, in place. A longer vec is read
    from its start (its tail unused), as in Paddle 3.3.1."""
    params = _params(parameters)
    sizes = [p._data.size for p in params]
    if vec.ndim != 1 or vec.shape[0] < sum(sizes):
        raise ValueError(f"vector_to_parameters: vec must be 1-D with at least {sum(sizes)} "
                         f"elements (the parameters'), got shape {list(vec.shape)}")
    start = 0
    for p, n in zip(params, sizes):
        set_value(p, vec._data[start:start + n].reshape(p._data.shape))
        start += n


def _norm_except(v: Tensor, dim: int | None) -> Tensor:
    """||v|| over every axis but dim (all of them for None), kept for broadcasting."""
    if dim is None:
        return vector_norm(v)
    axes = [a for a in range(v.ndim) if a != dim]
    return vector_norm(v, axis=axes, keepdim=True) if axes else abs(v)


def _parameter_of(layer: Layer, values: np.ndarray) -> Parameter:
    """A new parameter of layer holding values, named as Paddle 3.3.1 names it (the layer's
    next `.w_N`, so optimizer checkpoints match). Made first and then written, as Paddle
    does: an initializer would lose to set_global_initializer's, which outranks a default."""
    p = layer.create_parameter(list(values.shape), dtype=values.dtype)
    with no_grad():
        set_value(p, values)
    return p


class _WeightNorm:
    """The forward pre-hook weight_norm registers: weight = g * v / ||v||."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name, self.dim = name, dim

    def compute(self, layer: Layer) -> Tensor:
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        norm = _norm_except(v, self.dim)
        if self.dim is not None:
            g = reshape(g, [v.shape[a] if a == self.dim else 1 for a in range(v.ndim)])
        return v * (g / norm)

    def __call__(self, layer: Layer, inputs: Any) -> None:
        setattr(layer, self.name, self.compute(layer))      # (a buffer stays one)


def weight_norm(layer: Layer, name: str = "weight", dim: int | None = 0) -> Layer:
    """Replace parameter `name` by name_g (its norm over every axis but dim; a scalar for
    dim None) and name_v (its direction), and recompute it from them before each forward.
    dim=-1 is dim None (every element normalised together), as in Paddle 3.3.1; other
    negative dims count from the end."""
    if getattr(layer, "_weight_norm_hooks", {}).get(name) is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                           f"{name}")
    w = layer._parameters.get(name)
    if not isinstance(w, Parameter):
        raise ValueError(f"weight_norm: the layer has no parameter {name!r}")
    if dim == -1:
        dim = None
    if dim is not None:
        if not -w.ndim <= dim < w.ndim:
            raise ValueError(f"weight_norm: dim {dim} is out of range for a {w.ndim}-D "
                             f"parameter")
        dim %= w.ndim
    with no_grad():
        norm = _norm_except(Tensor._make(w._data), dim)._data
    g_values = norm.reshape(-1) if dim is not None else norm.reshape(())
    del layer._parameters[name]
    object.__delattr__(layer, name)
    layer.add_parameter(name + "_v", _parameter_of(layer, w._data))
    layer.add_parameter(name + "_g", _parameter_of(layer, g_values))
    hook = _WeightNorm(name, dim)
    layer.register_buffer(name, None, persistable=False)    # the computed weight (Paddle's)
    handle = layer.register_forward_pre_hook(hook)
    hooks = layer.__dict__.setdefault("_weight_norm_hooks", {})
    hooks[name] = (hook, handle)
    hook(layer, ())
    return layer


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undo weight_norm: `name` becomes one parameter again, of the current value."""
    entry = getattr(layer, "_weight_norm_hooks", {}).pop(name, None)
    if entry is None:
        raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in {layer}")
    hook, handle = entry
    with no_grad():
        w = hook.compute(layer)
    handle.remove()
    for suffix in ("_g", "_v", ""):
        delattr(layer, name + suffix)
    layer.add_parameter(name, _parameter_of(layer, w._data))
    return layer


class _SpectralNorm:
    """The forward pre-hook spectral_norm registers: weight = weight_orig / sigma, sigma
    the largest singular value of weight_orig as [shape[dim], rest], estimated by power
    iteration on the buffers weight_u, weight_v (advanced only in training)."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        self.name, self.n, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, w: Tensor) -> Tensor:
        if self.dim != 0:
            w = transpose(w, [self.dim] + [d for d in range(w.ndim) if d != self.dim])
        return reshape(w, [w.shape[0], -1])

    def compute(self, layer: Layer, power_iteration: bool) -> Tensor:
        w = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        mat = self.matrix(w)
        if power_iteration:
            with no_grad():
                for _ in range(self.n):
                    set_value(v, normalize(matmul(mat, u, transpose_x=True), axis=0,
                                           epsilon=self.eps))
                    set_value(u, normalize(matmul(mat, v), axis=0, epsilon=self.eps))
        u, v = Tensor._make(u._data), Tensor._make(v._data)     # (constants of the graph)
        return w / dot(u, mv(mat, v))

    def __call__(self, layer: Layer, inputs: Any) -> None:
        setattr(layer, self.name, self.compute(layer, layer.training))     # (a buffer)


def spectral_norm(layer: Layer, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Layer:
    """Divide parameter `name` by its largest singular value before every forward (the
    parameter becomes name_orig; buffers name_u, name_v hold the power iteration's
    vectors). dim None: 1 for Linear and the transposed convolutions (their output axis),
    else 0, as Paddle."""
    from .layers import Conv1DTranspose, Conv2DTranspose, Linear
    from .layers3d import Conv3DTranspose
    if n_power_iterations <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    if any(isinstance(h, _SpectralNorm) and h.name == name
           for h in layer._forward_pre_hooks.values()):
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter "
                           f"{name}")
    w = layer._parameters.get(name)
    if not isinstance(w, Parameter):
        raise ValueError(f"spectral_norm: the layer has no parameter {name!r}")
    if dim is None:
        transposed = (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose, Linear)
        dim = 1 if isinstance(layer, transposed) else 0
    hook = _SpectralNorm(name, n_power_iterations, dim, eps)
    h, rest = hook.matrix(Tensor._make(w._data)).shape
    g = creation.generator()
    u, v = (Tensor._make(normalize(Tensor._make(g.normal(0.0, 1.0, n).astype(w._data.dtype)),
                                   axis=0, epsilon=eps)._data) for n in (h, rest))
    for _ in (u, v):            # Paddle makes u and v with layer.create_parameter: their
        unique_name.generate(f"{layer.full_name()}.w")      # names are taken
    del layer._parameters[name]
    object.__delattr__(layer, name)
    layer.add_parameter(name + "_orig", w)
    layer.register_buffer(name, w * 1.0, persistable=False)     # the computed weight
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer
