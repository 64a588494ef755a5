"""More optimizers (paddle.optimizer names): NAdam, RAdam, ASGD, Rprop, as Paddle 3.3.1's CPU
kernels compute them (phi nadam / radam / asgd / rprop kernels, float32 for float32
parameters, hyperparameters rounded to float32 as Paddle passes them as float attributes).

The accumulators are named and shaped as Paddle's: NAdam's momentum_decay_pow, beta2_pow and
mu_product and RAdam's beta1_pow, beta2_pow and rho are tensors of the parameter's shape (all
elements equal), not [1] scalars; ASGD keeps y as [batch_num, *shape] and its step count m as
int64 [1] (`_acc_spec`, read by state.py).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterable

import numpy as np

from ..core.tensor import Tensor
from .lr_schedulers import LRScheduler
from .optimizers import Optimizer, _l2


def _f32(value: float, dt: type) -> Any:
    """A float attribute as Paddle's kernel sees it: rounded to float32, then cast to T."""
    return dt(np.float32(value))


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, np.floating,
                                                              np.integer))


def _ones(state: dict, kind: str, like: np.ndarray) -> np.ndarray:
    """An accumulator Paddle starts at 1.0 (fill_value=1.0, the parameter's shape)."""
    value = state.get(kind)
    return np.ones_like(like) if value is None else value


def _scalar(owner: str, key: str, value: Any) -> float:
    """A float hyperparameter; a one-element Tensor (Paddle allows one for the betas) too."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"{owner}: {key} must be a float or a one-element Tensor, got a "
                             f"Tensor of shape {list(value.shape)}")
        return float(value._data.reshape(-1)[0])
    if not _is_number(value):
        raise TypeError(f"{owner}: {key} must be a float, got {value!r}")
    return float(value)


def _adam_checks(owner: str, learning_rate: Any, beta1: Any, beta2: Any,
                 epsilon: Any) -> tuple[float, float, float]:
    """NAdam's and RAdam's checks (Paddle's messages)."""
    if _is_number(learning_rate) and not learning_rate >= 0:
        raise ValueError(f"{owner}: invalid learning rate: {learning_rate}, expect "
                         "learning_rate >= 0.")
    eps = _scalar(owner, "epsilon", epsilon)
    if not eps >= 0:
        raise ValueError(f"{owner}: invalid epsilon value: {epsilon}, expect epsilon >= 0.")
    betas = []
    for key, b in (("beta1", beta1), ("beta2", beta2)):
        b = _scalar(owner, key, b)
        if not 0.0 <= b < 1.0:
            raise ValueError(f"{owner}: invalid {key}: {b}, expect 0. <= {key} < 1.0.")
        betas.append(b)
    return betas[0], betas[1], eps


class NAdam(Optimizer):
    """Adam with Nesterov momentum and momentum decay psi (Paddle's kernel):
    mu_t = b1 (1 - 0.5 * 0.96^(t psi)), mu_{t+1} = b1 (1 - 0.5 * 0.96^((t+1) psi));
    m_hat = mu_{t+1} m / (1 - prod_{i<=t+1} mu_i) + (1 - mu_t) g / (1 - prod_{i<=t} mu_i);
    v_hat = v / (1 - b2^t); p -= lr m_hat / (sqrt(v_hat) + eps).
    weight_decay (a float or L2Decay) is added to the gradient, L1Decay too."""

    _accumulators = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")
    _group_keys: ClassVar[dict[str, str]] = {"beta1": "_b1", "beta2": "_b2", "epsilon": "_eps",
                                             "momentum_decay": "_md"}

    def __init__(self, learning_rate: float | LRScheduler = 0.002, beta1: float | Tensor = 0.9,
                 beta2: float | Tensor = 0.999, epsilon: float = 1.0e-8,
                 momentum_decay: float = 0.004,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        b1, b2, eps = _adam_checks("NAdam", learning_rate, beta1, beta2, epsilon)
        md = _scalar("NAdam", "momentum_decay", momentum_decay)
        if not md >= 0:
            raise ValueError(f"NAdam: invalid momentum_decay value: {momentum_decay}, expect "
                             "momentum_decay >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._b1, self._b2, self._eps, self._md = b1, b2, eps, md

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        b1, b2, eps, md = (_f32(v, dt) for v in (self._b1, self._b2, self._eps, self._md))
        one, half, c96 = dt(1), dt(0.5), dt(0.96)
        mdp = state["momentum_decay_pow"] = _ones(state, "momentum_decay_pow", p._data) * c96
        b2p = state["beta2_pow"] = _ones(state, "beta2_pow", p._data) * b2
        pw = np.power(mdp, md)
        mu_t = b1 * (one - half * pw)
        mu_t1 = b1 * (one - half * pw * dt(np.power(c96, md)))
        mu_prod = state["mu_product"] = _ones(state, "mu_product", p._data) * mu_t
        mu_prod1 = mu_prod * mu_t1
        m = state["moment1"] = b1 * state.get("moment1", 0.0) + (one - b1) * g
        v = state["moment2"] = b2 * state.get("moment2", 0.0) + (one - b2) * g * g
        m_hat = mu_t1 * m / (one - mu_prod1) + (one - mu_t) * g / (one - mu_prod)
        v_hat = v / (one - b2p)
        p._data = (p._data - dt(lr) * m_hat / (np.sqrt(v_hat) + eps)).astype(
            p._data.dtype, copy=False)


class RAdam(Optimizer):
    """Rectified Adam (Paddle's kernel): rho_inf = 2 / (1 - b2) - 1,
    rho_t = rho_inf - 2 t b2^t / (1 - b2^t) (kept as the running `rho` accumulator);
    m_hat = m / (1 - b1^t); if rho_t > 5: p -= lr m_hat r_t sqrt(1 - b2^t) / (sqrt(v) + eps)
    with r_t = sqrt((rho_t-4)(rho_t-2) rho_inf / ((rho_inf-4)(rho_inf-2) rho_t)),
    else p -= lr m_hat. weight_decay is added to the gradient."""

    _accumulators = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")
    _group_keys: ClassVar[dict[str, str]] = {"beta1": "_b1", "beta2": "_b2", "epsilon": "_eps"}

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float | Tensor = 0.9,
                 beta2: float | Tensor = 0.999, epsilon: float = 1.0e-8,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        b1, b2, eps = _adam_checks("RAdam", learning_rate, beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._b1, self._b2, self._eps = b1, b2, eps

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        b1, b2, eps = (_f32(v, dt) for v in (self._b1, self._b2, self._eps))
        one, two, four = dt(1), dt(2), dt(4)
        rho_inf = two / (one - b2) - one
        b1p = state["beta1_pow"] = _ones(state, "beta1_pow", p._data) * b1
        b2p = state["beta2_pow"] = _ones(state, "beta2_pow", p._data) * b2
        rho = state["rho"] = (_ones(state, "rho", p._data) * (b2 - b2p) + b2p) / (one - b2p)
        m = state["moment1"] = b1 * state.get("moment1", 0.0) + (one - b1) * g
        v = state["moment2"] = b2 * state.get("moment2", 0.0) + (one - b2) * g * g
        m_hat = m / (one - b1p)
        rho_t = rho_inf - two * rho.reshape(-1)[0]     # the kernel reads the first element
        step = dt(lr) * m_hat
        if rho_t > dt(5):
            l_t = np.sqrt(one - b2p) / (np.sqrt(v) + eps)
            r_t = np.sqrt(((rho_t - four) * (rho_t - two) * rho_inf)
                          / ((rho_inf - four) * (rho_inf - two) * rho_t))
            step = step * r_t * l_t
        p._data = (p._data - step).astype(p._data.dtype, copy=False)


class ASGD(Optimizer):
    """Paddle's ASGD (stochastic average gradient, SAG): with i = m % batch_num the step
    count m of the parameter, d = d - y[i] + g, y[i] = g, m += 1,
    p -= lr / min(m, batch_num) * d. weight_decay is added to g first (so y keeps it)."""

    _accumulators = ("d", "y", "m")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, batch_num: int = 1,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: Any = None, grad_clip: Callable | None = None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        if learning_rate is None:
            raise ValueError("ASGD: learning_rate should not be None")
        if batch_num is None:
            raise ValueError("ASGD: batch_num should not be None")
        if isinstance(batch_num, bool) or not isinstance(batch_num, (int, np.integer)):
            raise TypeError(f"ASGD: batch_num must be an int (the number of batches in an "
                            f"epoch), got {batch_num!r}")
        if not batch_num > 0:
            raise ValueError(f"ASGD: batch_num should be greater than 0, got {batch_num}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision)
        self._n = int(batch_num)

    def _acc_spec(self, p: Tensor, kind: str) -> tuple[list[int], np.dtype] | None:
        if kind == "y":
            return [self._n, *p._data.shape], self._state_dtype(p)
        if kind == "m":
            return [1], np.dtype(np.int64)
        return None

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        y = state.get("y")
        if y is None:
            y = np.zeros((self._n, *p._data.shape), dtype=p._data.dtype)
        m = state.get("m")
        count = 0 if m is None else int(m.reshape(-1)[0])
        i = count % self._n
        d = state["d"] = state.get("d", 0.0) - y[i] + g
        y = y.copy()                    # copy on write: a state_dict taken earlier keeps its y
        y[i] = g
        state["y"] = y
        state["m"] = np.array([count + 1], dtype=np.int64)
        rate = dt(lr) / dt(min(count + 1, self._n))
        p._data = (p._data - rate * d).astype(p._data.dtype, copy=False)


class Rprop(Optimizer):
    """Resilient backpropagation (full batch), Paddle's kernel: per element, with the previous
    gradient prev, eta = etas[1] if g * prev > 0, etas[0] (and g = 0) if g * prev < 0, else 1;
    rate = clip(rate * eta, *learning_rate_range); p -= sign(g) * rate; prev = g.
    learning_rate is only the initial per-element rate (so no LRScheduler; a group's
    learning_rate is ignored, as in Paddle). Paddle's Rprop has no weight_decay argument; a
    parameter's own regularizer (ParamAttr) is added to the gradient."""

    _accumulators = ("prevs", "learning_rates")

    def __init__(self, learning_rate: float = 0.001,
                 learning_rate_range: tuple[float, float] = (1e-5, 50),
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 etas: tuple[float, float] = (0.5, 1.2), grad_clip: Callable | None = None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        if learning_rate is None:
            raise ValueError("Rprop: learning_rate is not set")
        if not _is_number(learning_rate):
            raise TypeError(f"Rprop: learning_rate must be a float (the initial step size of "
                            f"every element), got {learning_rate!r}; Rprop adapts the rates "
                            "itself and takes no LRScheduler")
        lo, hi = self._pair("learning_rate_range", learning_rate_range)
        if not 0.0 < lo <= learning_rate <= hi:
            raise ValueError(f"Rprop: '0.0 < learning_rate_range[0] <= learning_rate <= "
                             f"learning_rate_range[1]' must be true, got learning_rate="
                             f"{learning_rate}, learning_rate_range={tuple(learning_rate_range)}")
        eta_minus, eta_plus = self._pair("etas", etas)
        if not 0.0 < eta_minus < 1.0 < eta_plus:
            raise ValueError(f"Rprop: '0.0 < etas[0] < 1.0 < etas[1]' must be true, got "
                             f"etas={tuple(etas)}")
        super().__init__(learning_rate, parameters, None, grad_clip, name, multi_precision)
        self._range, self._etas = (lo, hi), (eta_minus, eta_plus)
        self._initial_rate = float(learning_rate)

    @staticmethod
    def _pair(key: str, value: Any) -> tuple[float, float]:
        try:
            a, b = value
        except (TypeError, ValueError):
            raise TypeError(f"Rprop: {key} must be a pair of floats, got {value!r}") from None
        if not (_is_number(a) and _is_number(b)):
            raise TypeError(f"Rprop: {key} must be a pair of floats, got {value!r}")
        return float(a), float(b)

    def _update(self, p, g, lr, wd, state):
        g = _l2(p, g, wd)
        dt = p._data.dtype.type
        lo, hi = (dt(v) for v in self._range)
        eta_minus, eta_plus = (dt(v) for v in self._etas)
        prev = state.get("prevs")
        rates = state.get("learning_rates")
        if rates is None:
            rates = np.full_like(p._data, dt(self._initial_rate))
        prod = g * prev if prev is not None else np.zeros_like(g)
        eta = np.where(prod > 0, eta_plus, np.where(prod < 0, eta_minus, dt(1))).astype(
            p._data.dtype, copy=False)
        g = np.where(prod < 0, dt(0), g).astype(p._data.dtype, copy=False)
        rates = state["learning_rates"] = np.clip(rates * eta, lo, hi)
        state["prevs"] = g
        p._data = (p._data - np.sign(g) * rates).astype(p._data.dtype, copy=False)
