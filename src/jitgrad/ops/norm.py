"""layer_norm and batch_norm as composites (mean, subtract, rsqrt, multiply).

batch_norm in training mode updates the running statistics in place, outside the graph:
running = momentum * running + (1 - momentum) * batch statistic (Paddle's convention, with
the biased batch variance)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import reduce as R
from .core import apply_internal, require_float
from .elementwise import _compiled_forward, clone
from .math import rsqrt
from .normalization import batch_stats, fusable, norm_op, normalize_affine
from .shape import reshape, reshape_exact, transpose


def layer_norm(x: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, epsilon: float = 1e-05, name: str | None = None
               ) -> Tensor:
    """Normalise over the trailing dims given by normalized_shape, then scale and shift."""
    require_float(x, "layer_norm")
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(shape)
    if x.shape[x.ndim - k:] != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} does not match the trailing "
                         f"dims of {x.shape}")
    if fusable(x, weight, bias) and (weight is None or weight._data.size == math.prod(shape)) \
            and (bias is None or bias._data.size == math.prod(shape)):
        L = math.prod(shape)
        return normalize_affine(x, weight, bias, (1, x._data.size // L, L), (L, 0), epsilon)
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.size != math.prod(shape):    # (the fused path checked it)
            raise ValueError(f"layer_norm: {what} must have {math.prod(shape)} elements "
                             f"(normalized_shape {shape}), got shape {list(t.shape)}")
    axes = list(range(x.ndim - k, x.ndim))
    mu = R.mean(x, axis=axes, keepdim=True)
    d = x - mu
    y = d * rsqrt(R.mean(d * d, axis=axes, keepdim=True) + epsilon)
    if weight is not None:
        y = y * reshape(weight, shape)
    if bias is not None:
        y = y + reshape(bias, shape)
    return y


def _channel_axis(x: Tensor, data_format: str) -> int:
    fmt = data_format.upper()
    if fmt in ("NC", "NCL", "NCHW", "NCDHW"):
        return 1
    if fmt in ("NLC", "NHWC", "NDHWC"):
        return x.ndim - 1
    raise ValueError(f"batch_norm: unsupported data_format {data_format!r}")


# (shape, data_format) -> (channel axis, C, stats, affine) of an input that passed the
# checks: a training step repeats its shapes, and working these out was ~1.5 us of ~25.
_LAYOUTS: dict = {}


def _layout(x: Tensor, data_format: Any) -> tuple:
    shape = x._data.shape
    key = (shape, data_format) if type(data_format) is str else None
    lay = _LAYOUTS.get(key) if key is not None else None
    if lay is None:
        if x.ndim < 2:
            raise ValueError(f"batch_norm needs an input [N, C, ...], got shape {x.shape}")
        ax = _channel_axis(x, data_format)
        C = int(shape[ax])
        stats = (int(math.prod(shape[:ax])), C, int(math.prod(shape[ax + 1:])))
        lay = (ax, C, stats, (C, stats[2]))
        if key is not None and len(_LAYOUTS) < 512:
            _LAYOUTS[key] = lay
    return lay


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.9, epsilon: float = 1e-05,
               data_format: str = "NCHW", use_global_stats: bool | None = None,
               name: str | None = None) -> Tensor:
    """Normalise each channel by the batch statistics (training, or use_global_stats=False)
    or the running ones (eval, or use_global_stats=True); whenever the batch statistics are
    used, the running ones are updated with them (Paddle 3.3.1, eval mode too)."""
    xd = x._data
    if xd.dtype.kind != "f":
        require_float(x, "batch_norm")
    ax, C, stats, affine = _layout(x, data_format)
    if running_mean._data.size != C or (weight is not None and weight.size != C):
        _channels_error(x, C, running_mean, weight)
    use_batch = training if use_global_stats is None else not use_global_stats
    if use_batch and xd.size == C:
        # one value per channel: Paddle 3.3.1 skips the normalisation (y = x, its gradient
        # passes through; the running statistics stay) where the formula would give zeros
        return clone(x)
    if use_batch and xd.size:
        dt = xd.dtype
        if weight is not None and bias is not None and isinstance(weight, Tensor) \
                and isinstance(bias, Tensor) and weight._data.dtype == dt \
                and bias._data.dtype == dt:
            y = apply_internal(norm_op, x, weight, bias, stats=stats, affine=affine,
                               eps=float(epsilon))
        elif fusable(x, weight, bias):
            y = normalize_affine(x, weight, bias, stats, affine, epsilon)
        else:
            y = None
        if y is not None:
            mu, var = batch_stats(y, x, stats)
            _update_running(running_mean, running_var, mu, var, momentum, C)
            return y
    bshape = [C if i == ax else 1 for i in range(x.ndim)]
    axes = [i for i in range(x.ndim) if i != ax]
    if use_batch:
        mu = R.mean(x, axis=axes, keepdim=True)
        d = x - mu
        var = R.mean(d * d, axis=axes, keepdim=True)
        y = d * rsqrt(var + epsilon)
        _update_running(running_mean, running_var, mu._data, var._data, momentum, C)
    else:
        rm = Tensor._make(running_mean._data.reshape(bshape).astype(x._data.dtype))
        rv = np.asarray(running_var._data.reshape(bshape), dtype=np.float64)
        y = (x - rm) * Tensor._make((1 / np.sqrt(rv + epsilon)).astype(x._data.dtype))
    if weight is not None:
        y = y * reshape(weight, bshape)
    if bias is not None:
        y = y + reshape(bias, bshape)
    return y


def _channels_error(x: Tensor, C: int, running_mean: Tensor, weight: Any) -> None:
    """batch_norm's error for statistics or a weight of another channel count than x's
    (numpy's 'cannot reshape array of size 4 into shape (3,1)' otherwise)."""
    raise ValueError(f"batch_norm: x of shape {list(x.shape)} has {C} channels, but "
                     f"running_mean has {running_mean._data.size} values"
                     + ("" if weight is None else f" and weight {weight._data.size}")
                     + " (num_features of the layer must equal the channel count)")


_write_fresh: Any = None     # ops.inplace.write_fresh (imported on first use)
_FAST_RUNNING = (np.dtype(np.float32), np.dtype(np.float64))


def _update_running(running_mean: Tensor, running_var: Tensor, mu: np.ndarray,
                    var: np.ndarray, momentum: float, C: int) -> None:
    """running = momentum * running + (1 - momentum) * batch statistic, in place: each
    running tensor gets a new buffer and a version bump, as set_value gives it (ops/
    inplace.py write_fresh: the same bookkeeping without set_value's copy of the old one).
    The common case (both buffers [C] and the statistics [1, C, 1], contiguous, of one
    float dtype) computes both in one compiled call once Numba is loaded, numpy's values."""
    global _write_fresh
    if _write_fresh is None:
        from .inplace import write_fresh
        _write_fresh = write_fresh
    m = float(momentum)
    a, b = running_mean._data, running_var._data
    dt = a.dtype
    todo: tuple = ((running_mean, mu), (running_var, var))
    if running_mean is not running_var and dt in _FAST_RUNNING and b.dtype == dt \
            and mu.dtype == dt and var.dtype == dt and a.shape == (C,) and b.shape == (C,) \
            and mu.shape == (1, C, 1) and var.shape == (1, C, 1) and C \
            and a.flags.c_contiguous and b.flags.c_contiguous and mu.flags.c_contiguous \
            and var.flags.c_contiguous:
        kernels = _compiled_forward()
        if kernels is not None:
            new_mean, new_var = np.empty(C, dt), np.empty(C, dt)
            if kernels.bn_running(a, b, mu, var, m, 1 - m, new_mean, new_var):
                _write_fresh(running_mean, new_mean)
                if running_mean._data is new_mean and running_var._data is b:
                    _write_fresh(running_var, new_var)
                    return
                # the first write reached running_var (a `.data` view, a shared
                # accumulator): its update reads its values now, as one by one
                todo = ((running_var, var),)
            # (else a non-finite result: numpy's update below, the same values with
            # numpy's overflow / invalid warnings)
    for run, stat in todo:
        old = run._data
        new = m * old                       # (in place, no astype copy: the same values)
        np.add(new, (1 - m) * stat.reshape(C).astype(new.dtype, copy=False), out=new)
        if type(new) is np.ndarray and new.dtype == old.dtype and new.shape == old.shape:
            _write_fresh(run, new)          # new: a fresh array of run's dtype and shape
        else:
            from .inplace import set_value
            set_value(run, new)


def group_norm(x: Tensor, num_groups: int, epsilon: float = 1e-05,
               weight: Tensor | None = None, bias: Tensor | None = None,
               data_format: str = "NCHW", name: str | None = None) -> Tensor:
    require_float(x, "group_norm")
    if data_format not in _GROUP_FORMATS:
        raise ValueError(f"group_norm: data_format must be one of {_GROUP_FORMATS}, got "
                         f"{data_format!r}")
    if data_format[1] != "C" and x.ndim > 2:   # channels last: normalise channels first
        last = list(range(x.ndim))
        first = [0, x.ndim - 1] + last[1:-1]
        y = group_norm(transpose(x, first), num_groups, epsilon, weight, bias, "NCHW")
        return transpose(y, [0] + last[2:] + [1])
    N, C = x.shape[:2]
    if C % num_groups:
        raise ValueError(f"group_norm: {C} channels do not split into {num_groups} groups")
    if fusable(x, weight, bias):
        HW = math.prod(x.shape[2:])
        return normalize_affine(x, weight, bias, (1, N * num_groups, C // num_groups * HW),
                                (C, HW), epsilon)
    g = reshape_exact(x, [N, num_groups, C // num_groups * math.prod(x.shape[2:])])
    mu = R.mean(g, axis=2, keepdim=True)
    d = g - mu
    y = reshape_exact(d * rsqrt(R.mean(d * d, axis=2, keepdim=True) + epsilon), x.shape)
    bshape: Sequence[int] = [1, C] + [1] * (x.ndim - 2)
    if weight is not None:
        y = y * reshape(weight, bshape)
    if bias is not None:
        y = y + reshape(bias, bshape)
    return y


_INSTANCE_FORMATS = ("NC", "NCL", "NCHW", "NCDHW")
_GROUP_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def instance_norm(x: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.9, eps: float = 1e-05, data_format: str = "NCHW",
                  name: str | None = None) -> Tensor:
    """Normalise each (sample, channel) of x [N, C, ...] over its spatial dims (biased
    variance), then scale and shift by weight / bias [C].

    As Paddle 3.3.1 (dynamic mode): running_mean, running_var, use_input_stats and momentum
    are accepted and ignored (documented obsolete; the running tensors are not updated); the
    channel axis is always 1. With no spatial dims ([N, C]) the output is zeros. Paddle also
    ignores an unknown data_format; here one outside its documented list is a ValueError."""
    require_float(x, "instance_norm")
    if str(data_format).upper() not in _INSTANCE_FORMATS:
        raise ValueError(f"instance_norm: data_format must be one of {_INSTANCE_FORMATS} "
                         f"(channels first), got {data_format!r}")
    if x.ndim < 2:
        raise ValueError(f"instance_norm needs an input [N, C, ...], got shape {x.shape}")
    N, C = x.shape[:2]
    if fusable(x, weight, bias):
        HW = math.prod(x.shape[2:])
        return normalize_affine(x, weight, bias, (1, N * C, HW), (C, HW), eps)
    g = reshape(x, [N, C, -1])
    mu = R.mean(g, axis=2, keepdim=True)
    d = g - mu
    y = reshape(d * rsqrt(R.mean(d * d, axis=2, keepdim=True) + eps), x.shape)
    bshape = [1, C] + [1] * (x.ndim - 2)
    if weight is not None:
        y = y * reshape(weight, bshape)
    if bias is not None:
        y = y + reshape(bias, bshape)
    return y
