"""Distribution, Paddle's abstract base (paddle.distribution.Distribution), and the helpers
the distributions share: parameter conversion, value casting, parameter-free noise."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from ..ops.creation import generator


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def np_dtype(t: Tensor) -> np.dtype:
    return t._data.dtype


def dtype_name(t: Tensor) -> str:
    return str(np_dtype(t))


def check_shape(shape: Any, what: str = "sample shape") -> tuple:
    """A sample shape as a tuple of ints (Paddle: a list or tuple)."""
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) or not isinstance(shape, (list, tuple, np.ndarray)):
        raise TypeError(f"{what} must be a list or tuple of ints, e.g. [1000] or (10, 2), "
                        f"got {type(shape).__name__}")
    return tuple(int(s) for s in shape)


def uniform_noise(shape: Sequence[int], dtype: Any, low: float = 0.0, high: float = 1.0
                  ) -> Tensor:
    """Parameter-free U[low, high) noise from jitgrad's seeded generator (paddle.seed)."""
    arr = generator().uniform(low, high, tuple(shape))
    return P.to_tensor(np.asarray(arr, dtype=np.dtype(dtype)))


def normal_noise(shape: Sequence[int], dtype: Any) -> Tensor:
    """Parameter-free N(0, 1) noise from jitgrad's seeded generator."""
    arr = generator().standard_normal(tuple(shape))
    return P.to_tensor(np.asarray(arr, dtype=np.dtype(dtype)))


def real_or_tensor(x: Any, what: str, cls: str) -> Tensor:
    """Laplace/Cauchy/Gumbel/Beta style: a Python real becomes a 0-d default-dtype tensor;
    anything else but a Tensor is a TypeError."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return P.full([], float(x))
    raise TypeError(f"{cls}: {what} must be a Python real number or a Tensor, got "
                    f"{type(x).__name__} (wrap lists with paddle.to_tensor)")


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """x * log(y) with 0 where x and y are 0 (0 log 0 = 0), without NaN where y < 0 (the
    callers mask values outside the support). Its x-gradient is log(y), also at x = 0 (0
    at x = y = 0)."""
    safe = (x == 0).logical_and(y == 0).logical_or(y < 0)
    return x * P.log(P.where(safe, P.ones_like(y + x), y + P.zeros_like(x)))


def p_log_q(log_p: Tensor, log_q: Tensor) -> Tensor:
    """exp(log_p) * log_q, 0 where log_p is -inf (0 log 0 = 0): the terms of entropies and KL
    divergences summed over a support that reaches outside a distribution's own."""
    zero = P.zeros_like(log_p + log_q)
    outside = P.broadcast_to(log_p == float("-inf"), zero.shape)
    return P.exp(log_p) * P.where(outside, zero, log_q + zero)


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Distribution:
    """The abstract base class of probability distributions (Paddle's Distribution).

    batch_shape: independent, not identically distributed draws; event_shape: the shape of
    one draw ([] for scalar distributions, [n] for an n-dimensional one).
    """

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = ()
                 ) -> None:
        self._batch_shape = tuple(int(s) for s in batch_shape)
        self._event_shape = tuple(int(s) for s in event_shape)

    @property
    def batch_shape(self) -> tuple:
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """sqrt(variance) (a jitgrad addition where Paddle 3.3.1's class has no stddev)."""
        return P.sqrt(self.variance)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        raise NotImplementedError

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def kl_divergence(self, other: "Distribution") -> Tensor:
        raise NotImplementedError

    def prob(self, value: Tensor) -> Tensor:
        return self.log_prob(value).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def probs(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(batch_shape={list(self._batch_shape)}, "
                f"event_shape={list(self._event_shape)})")

    def _extend_shape(self, sample_shape: Sequence[int]) -> tuple:
        return tuple(check_shape(sample_shape)) + self._batch_shape + self._event_shape

    def _validate_args(self, *args: Any) -> bool:
        """True if every argument is a Tensor, False if none is; a mix is a ValueError."""
        tensors = [isinstance(a, Tensor) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError(f"{type(self).__name__}: if one argument is a Tensor, all must be "
                             f"Tensors (got {', '.join(type(a).__name__ for a in args)}); "
                             f"wrap the others with paddle.to_tensor")
        return all(tensors)

    def _to_tensor(self, *args: Any) -> tuple:
        """Python floats, lists, tuples and numpy arrays -> float32 tensors broadcast together
        (as Paddle 3.3.1's, float64 arrays too; Normal/Uniform/Categorical then cast back)."""
        arrays = []
        for a in args:
            if isinstance(a, bool) or not isinstance(a, (float, int, list, tuple, np.ndarray,
                                                         np.floating)):
                raise TypeError(f"{type(self).__name__}: parameters must be float, list, tuple, "
                                f"numpy.ndarray or Tensor, got {type(a).__name__}")
            arrays.append(np.array(a, dtype=np.float32))
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        return tuple(P.to_tensor(np.broadcast_to(a, shape).copy()) for a in arrays)

    def _check_values_dtype_in_probs(self, param: Tensor, value: Any) -> Tensor:
        """value as a tensor of param's dtype (a Tensor of another float dtype is cast, as
        Paddle's; Python numbers and arrays are converted)."""
        return as_value(value, param)

    def _probs_to_logits(self, probs: Tensor, is_binary: bool = False) -> Tensor:
        return (P.log(probs) - P.log1p(-probs)) if is_binary else P.log(probs)

    def _logits_to_probs(self, logits: Tensor, is_binary: bool = False) -> Tensor:
        return P.sigmoid(logits) if is_binary else P.softmax(logits, axis=-1)

    def _broadcast_all(self, *args: Any) -> list:
        for a in args:
            if not isinstance(a, (float, int, list, tuple, np.ndarray, Tensor)) or \
                    isinstance(a, bool):
                raise TypeError(f"{type(self).__name__}: parameters must be float, list, tuple, "
                                f"numpy.ndarray or Tensor, got {type(a).__name__}")
        dtype = next((a.dtype for a in args if isinstance(a, Tensor)), P.get_default_dtype())
        ts = [a if isinstance(a, Tensor) else P.to_tensor(np.asarray(a, dtype=np.float64),
                                                           dtype=dtype) for a in args]
        return P.broadcast_tensors(ts)


def as_value(value: Any, like: Tensor) -> Tensor:
    """A log_prob/cdf argument as a tensor of like's float dtype."""
    if isinstance(value, Tensor):
        if value.dtype != like.dtype:
            return value.astype(like.dtype)
        return value
    return P.to_tensor(np.asarray(value, dtype=np_dtype(like)))


def promoted_value(value: Any, like: Tensor) -> Tensor:
    """A log_prob/cdf argument that meets the parameters in arithmetic, as Paddle's
    Exponential, Gamma, Beta and Dirichlet use it: a float Tensor is kept (a float64 value
    with float32 parameters gives a float64 result), an integer one and Python numbers and
    arrays take like's dtype."""
    if isinstance(value, Tensor) and P.is_floating_point(value):
        return value
    return as_value(value, like)


def log_normalizer_and_gradients(dist: "ExponentialFamily") -> tuple:
    """dist's natural parameters (detached copies that require a gradient), its log
    normalizer F at them and dF/dtheta (differentiable again), recorded also under no_grad."""
    from ..autograd.api import grad
    from ..core.grad_mode import enable_grad
    natural = [p.detach() for p in dist._natural_parameters]
    for p in natural:
        p.stop_gradient = False
    with enable_grad():
        log_norm = dist._log_normalizer(*natural)
        grads = grad(log_norm.sum(), natural, create_graph=True)
    return natural, log_norm, grads


class ExponentialFamily(Distribution):
    """Base of the exponential-family distributions (Paddle's ExponentialFamily)."""

    @property
    def _natural_parameters(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy from the Bregman divergence of the log normalizer F (as Paddle's):
        -E[k(x)] + F(theta) - <theta, grad F(theta)>, for subclasses that give
        _natural_parameters, _log_normalizer and _mean_carrier_measure. As in Paddle and
        torch, the natural parameters are detached: no gradient reaches the parameters."""
        natural, log_norm, grads = log_normalizer_and_gradients(self)
        value = log_norm - self._mean_carrier_measure
        for p, g in zip(natural, grads):
            value = value - p * g
        return value
