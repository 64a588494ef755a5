"""Window functions (paddle.hann_window, hamming_window, blackman_window, bartlett_window,
kaiser_window): Paddle 3.3.1 builds them in paddle.audio.functional.window from tensor ops in
the window's own dtype; these follow the same steps in the same order. float64 windows match
Paddle's to the last bit or one ulp, float32 ones to one ulp (Paddle's float32 cos and i0
kernels round differently from numpy's). Constants, not ops: a window has no inputs to
differentiate.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from . import creation
from .bessel import _bessel64

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
         "kaiser_window"]


def _length(window_length: Any, where: str) -> int:
    """Paddle's length guard: a non-negative int (3.0 fails later in Paddle's paddle.full
    with a TypeError; so does it here, at once)."""
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{where}: window_length must be an int, got "
                        f"{type(window_length).__name__} {window_length!r}")
    if window_length < 0:
        raise ValueError(f"{where}: Window length M must be a non-negative integer, got "
                         f"{window_length}")
    return int(window_length)


def _float_dtype(dtype: Any, where: str) -> np.dtype:
    dt = dtypes.to_dtype(dtype).np
    if dt.kind != "f":
        raise TypeError(f"{where}: dtype must be a floating type (float16, float32, float64), "
                        f"got {dt.name}")
    return dt


def _general_cosine(m: int, coeffs: tuple[float, ...], dt: np.dtype) -> np.ndarray:
    """sum_k a_k cos(k fac), fac = linspace(-pi, pi, m): Paddle's _general_cosine."""
    fac = creation._linspace(-math.pi, math.pi, m, dt)
    w = np.zeros(m, dt)
    for k, a in enumerate(coeffs):
        w = w + dt.type(a) * np.cos(dt.type(k) * fac)
    return w


def _bartlett(m: int, dt: np.dtype) -> np.ndarray:
    n = np.arange(m).astype(dt)
    last = dt.type(m) - dt.type(1)
    rise = dt.type(2.0) * n / last
    return np.where(n <= last / dt.type(2.0), rise, dt.type(2.0) - rise)


def _kaiser(m: int, beta: float, dt: np.dtype) -> np.ndarray:
    n = np.arange(m).astype(dt)
    alpha = (dt.type(m) - dt.type(1)) / dt.type(2.0)
    b = dt.type(beta)
    arg = b * np.sqrt(dt.type(1) - ((n - alpha) / alpha) ** dt.type(2.0))
    return (_bessel64(arg, 0, False).astype(dt) / _bessel64(b, 0, False).astype(dt)).astype(dt)


def _window(where: str, build: Any, window_length: Any, periodic: bool, dtype: Any,
            layout: Any, device: Any, pin_memory: bool, requires_grad: bool) -> Tensor:
    """Paddle's get_window + _apply_window_postprocess: a periodic window is the symmetric
    one of length + 1 without its last sample; length 0 or 1 gives ones."""
    m = _length(window_length, where)
    dt = _float_dtype(dtype, where)
    if layout is not None:
        warnings.warn("layout only supports 'strided' in Paddle; ignored", stacklevel=3)
    if device is not None:
        from ..core.places import to_place
        to_place(device, f"{where}()")
    if pin_memory:
        raise RuntimeError(f"{where}(): pin_memory=True is not supported: jitgrad has no "
                           "pinned memory, it runs on the CPU only (Paddle's CPU build: "
                           "'Pinning memory is not supported for Place(cpu)')")
    if m <= 1:
        w = np.ones(m, dt)
    else:
        w = build(m + 1, dt)[:-1] if periodic else build(m, dt)
    out = creation._t(w.astype(dt))
    if requires_grad is True:
        out.stop_gradient = False
    return out


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = "float32",
                layout: Any = None, device: Any = None, pin_memory: bool = False,
                requires_grad: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi n / N): periodic (N = length) for spectra, else symmetric."""
    return _window("hann_window", lambda m, dt: _general_cosine(m, (0.5, 1.0 - 0.5), dt),
                   window_length, periodic, dtype, layout, device, pin_memory, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = "float32", layout: Any = None,
                   device: Any = None, pin_memory: bool = False, requires_grad: bool = False
                   ) -> Tensor:
    """alpha - beta cos(2 pi n / N), as Paddle makes it: the 0.54 / 0.46 window w0 rescaled,
    (alpha - B 0.54) + B w0 with B = beta / 0.46."""
    def build(m: int, dt: np.dtype) -> np.ndarray:
        w0 = _general_cosine(m, (0.54, 1.0 - 0.54), dt)   # (Paddle's 1 - alpha)
        scale = beta / 0.46
        return dt.type(alpha - scale * 0.54) + dt.type(scale) * w0
    return _window("hamming_window", build, window_length, periodic, dtype, layout, device,
                   pin_memory, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = "float32",
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""
    return _window("blackman_window", lambda m, dt: _general_cosine(m, (0.42, 0.5, 0.08), dt),
                   window_length, periodic, dtype, layout, device, pin_memory, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = "float32",
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """The triangle rising 0 -> 1 -> 0 over the window."""
    return _window("bartlett_window", _bartlett, window_length, periodic, dtype, layout,
                   device, pin_memory, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = "float32", layout: Any = None, device: Any = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2."""
    return _window("kaiser_window", lambda m, dt: _kaiser(m, beta, dt), window_length,
                   periodic, dtype, layout, device, pin_memory, requires_grad)
