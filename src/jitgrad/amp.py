"""paddle.amp on a CPU: as Paddle 3.3.1 behaves on its CPU place, where auto_cast leaves
every op in float32 (measured: a Linear's output stays float32 under auto_cast with float16
or bfloat16) and GradScaler turns itself off with a warning (its scale() returns the loss
unchanged and step() is the optimizer's step). jitgrad computes in float32 / float64 only,
so this is also the only honest behaviour: nothing pretends to run in half precision."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from .core.tensor import Tensor

__all__ = ["auto_cast", "amp_guard", "decorate", "amp_decorate", "GradScaler", "AmpScaler",
           "is_float16_supported", "is_bfloat16_supported"]

_state = {"enabled": False, "dtype": "float16"}


class _AutoCast(contextlib.ContextDecorator):
    """The auto_cast context (and decorator): it records that it is on, for
    is_autocast_enabled(), and changes no op's dtype."""

    def __init__(self, enable: bool, dtype: str) -> None:
        self.enable, self.dtype = bool(enable), dtype

    def __enter__(self) -> _AutoCast:
        self._saved = dict(_state)
        _state.update(enabled=self.enable, dtype=self.dtype)
        return self

    def __exit__(self, *exc: Any) -> None:
        _state.update(self._saved)


def auto_cast(enable: bool = True, custom_white_list: Any = None, custom_black_list: Any = None,
              level: str = "O1", dtype: str = "float16", use_promote: bool = True) -> _AutoCast:
    """Mixed precision as Paddle's CPU place has it: ops keep float32 (see the module)."""
    if level not in ("O0", "OD", "O1", "O2"):
        raise ValueError(f"auto_cast: level must be 'O0', 'OD', 'O1' or 'O2', got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    return _AutoCast(enable, dtype)


amp_guard = auto_cast


def decorate(models: Any, optimizers: Any = None, level: str = "O1", dtype: str = "float16",
             master_weight: Any = None, save_dtype: Any = None, master_grad: bool = False,
             excluded_layers: Any = None) -> Any:
    """The models (and optimizers) unchanged: on a CPU, Paddle keeps float32 parameters."""
    if level not in ("O1", "O2"):
        raise ValueError(f"decorate: level must be 'O1' or 'O2', got {level!r}")
    return models if optimizers is None else (models, optimizers)


amp_decorate = decorate


def is_float16_supported(device: Any = None) -> bool:
    return False


def is_bfloat16_supported(device: Any = None) -> bool:
    return False


class GradScaler:
    """Paddle's loss scaler, off on a CPU as Paddle's is there (it warns once): scale()
    returns the loss, step() / minimize() run the optimizer, update() does nothing. The
    settings are kept and reported as Paddle's disabled scaler reports them."""

    _warned = False

    def __init__(self, enable: bool = True, init_loss_scaling: float = 65536.0,
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True) -> None:
        if enable and not GradScaler._warned:
            warnings.warn("GradScaler can only be enabled on CUDAPlace, XPUPlace and "
                          "CustomPlace; jitgrad runs on the CPU, so it makes no effect "
                          "(as Paddle's on a CPU)", stacklevel=2)
            GradScaler._warned = True
        self._enable = False
        self._init_loss_scaling = 1.0
        self._incr_ratio, self._decr_ratio = incr_ratio, decr_ratio
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._use_dynamic_loss_scaling = False

    def scale(self, var: Tensor) -> Tensor:
        return var

    def unscale_(self, optimizer: Any) -> None:
        return None

    def step(self, optimizer: Any) -> None:
        optimizer.step()

    def minimize(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        return optimizer.minimize(*args, **kwargs)

    def update(self) -> None:
        return None

    def is_enable(self) -> bool:
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling: float) -> None:
        self._init_loss_scaling = new_init_loss_scaling

    def get_incr_ratio(self) -> float:
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio: float) -> None:
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self) -> float:
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio: float) -> None:
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self) -> int:
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps: int) -> None:
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self) -> int:
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf: int) -> None:
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    def state_dict(self) -> dict:
        return {}           # (a disabled scaler's, as Paddle's)

    def load_state_dict(self, state_dict: dict) -> None:
        return None


AmpScaler = GradScaler


def is_autocast_enabled(device_type: Any = None) -> bool:
    return bool(_state["enabled"])


def get_autocast_dtype(device_type: Any = None) -> str:
    return str(_state["dtype"])


get_autocast_cpu_dtype = get_autocast_gpu_dtype = get_autocast_dtype


@contextlib.contextmanager
def autocast(device_type: str = "cpu", dtype: Any = "float16", enabled: bool = True,
             cache_enabled: bool = True) -> Iterator[None]:
    """torch-style paddle.autocast: auto_cast under another signature."""
    with _AutoCast(enabled, getattr(dtype, "name", dtype)):
        yield


